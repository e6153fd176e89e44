#include "engine/core/run.h"

#include "engine/base/files.h"

#include <cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "engine/base/json.h"

char *run_path(const char *run_dir, const char *rel)
{
	char *tp = path_join(run_dir, ".tileport");
	char *p = path_join(tp, rel);
	free(tp);
	return p;
}

char *run_attempt_dir(const struct run_state *st, const struct attempt *a)
{
	char *rel = xasprintf("attempts/%s", a->dir);
	char *p = run_path(st->run_dir, rel);
	free(rel);
	return p;
}

char *run_keep_dir(const struct run_state *st)
{
	return st->natt ? run_attempt_dir(st, &st->att[st->natt - 1]) : run_path(st->run_dir, "");
}

void run_state_init(struct run_state *st)
{
	memset(st, 0, sizeof(*st));
	st->schema = RUN_SCHEMA;
}

/* ---- the vocabulary ---- */

static const char *const run_status_names[] = {
	[RUN_RUNNING] = "running",   [RUN_WAITING] = "waiting",
	[RUN_COMPLETE] = "complete", [RUN_OFFLINE_COMPLETE] = "offline_complete",
	[RUN_STOPPED] = "stopped",   [RUN_ABORTED] = "aborted",
};
static const char *const gate_names[] = {
	[GATE_NONE] = "none",
	[GATE_ACCEPT] = "accepted",
	[GATE_ACCEPT_SOFT_MISSING] = "soft_missing",
	[GATE_REPAIR] = "repair",
	[GATE_SOFT_FAILED] = "soft_failed",
	[GATE_SKIPPED] = "skipped",
};
static const char *const validator_names[] = {
	[VALIDATOR_NOT_RUN] = "not_run", [VALIDATOR_PASS] = "pass",
	[VALIDATOR_FAIL] = "fail",       [VALIDATOR_DEFERRED] = "deferred",
	[VALIDATOR_NONE] = "none",       [VALIDATOR_UNAVAILABLE] = "unavailable",
};

static const char *const outcome_names[] = {
	[OUTCOME_NONE] = "none",
	[OUTCOME_ACCEPTED] = "accepted",
	[OUTCOME_NOT_ACCEPTED] = "not_accepted",
	[OUTCOME_PENDING] = "pending",
};
static const char *const outcome_words[] = {
	[OUTCOME_NONE] = "-",
	[OUTCOME_ACCEPTED] = "accepted",
	[OUTCOME_NOT_ACCEPTED] = "not accepted",
	[OUTCOME_PENDING] = "pending",
};

static int name_index(const char *const *names, size_t n, const char *name)
{
	for (size_t i = 0; name && i < n; i++)
		if (strcmp(names[i], name) == 0)
			return (int)i;
	return -1;
}

const char *run_status_name(enum run_status s)
{
	return (size_t)s < TP_ARRAY_LEN(run_status_names) ? run_status_names[s] : "?";
}

int run_status_parse(const char *name)
{
	return name_index(run_status_names, TP_ARRAY_LEN(run_status_names), name);
}

const char *gate_outcome_name(enum gate_outcome o)
{
	return (size_t)o < TP_ARRAY_LEN(gate_names) ? gate_names[o] : "?";
}

int gate_outcome_parse(const char *name)
{
	return name_index(gate_names, TP_ARRAY_LEN(gate_names), name);
}

const char *validator_result_name(enum validator_result r)
{
	return (size_t)r < TP_ARRAY_LEN(validator_names) ? validator_names[r] : "?";
}

int validator_result_parse(const char *name)
{
	return name_index(validator_names, TP_ARRAY_LEN(validator_names), name);
}

const char *run_outcome_name(enum run_outcome o)
{
	return (size_t)o < TP_ARRAY_LEN(outcome_names) ? outcome_names[o] : "?";
}

int run_outcome_parse(const char *name)
{
	return name_index(outcome_names, TP_ARRAY_LEN(outcome_names), name);
}

const char *run_outcome_words(enum run_outcome o)
{
	return (size_t)o < TP_ARRAY_LEN(outcome_words) ? outcome_words[o] : "?";
}

static void attempt_free(struct attempt *a)
{
	free(a->dir);
	free(a->driver);
	free(a->exit);
	free(a->stderr_tail);
	free(a->claimed);
	free(a->verdict);
	free(a->klass);
	free(a->gate_reason);
	strv_free(a->soft);
	strv_free(a->deferred);
	free(a->action);
	free(a->note);
	free(a->refusal);
	free(a->refused_by);
	free(a->partial);
}

void run_state_free(struct run_state *st)
{
	free(st->version);
	free(st->op);
	free(st->workspace);
	free(st->out_root);
	free(st->run_dir);
	free(st->table);
	free(st->final);
	free(st->reason);
	free(st->outcome_reason);
	strv_free(st->missing);
	strv_free(st->port_before);
	for (size_t i = 0; i < st->natt; i++)
		attempt_free(&st->att[i]);
	free(st->att);
	for (int i = 0; i < STAGE_LETTERS; i++) {
		free(st->drivers[i]);
		free(st->validators[i]);
	}
	memset(st, 0, sizeof(*st));
}

struct attempt *run_add_attempt(struct run_state *st)
{
	st->att = xgrow(st->att, &st->capatt, st->natt + 1, sizeof(*st->att));
	struct attempt *a = &st->att[st->natt++];
	memset(a, 0, sizeof(*a));
	a->seq = (int)st->natt;
	return a;
}

struct attempt *run_attempt_by_seq(struct run_state *st, int seq)
{
	for (size_t i = 0; i < st->natt; i++)
		if (st->att[i].seq == seq)
			return &st->att[i];
	return NULL;
}

struct attempt *run_last_attempt(struct run_state *st)
{
	return st->natt ? &st->att[st->natt - 1] : NULL;
}

struct attempt *run_latest_attempt(struct run_state *st, char stage)
{
	for (size_t i = st->natt; i-- > 0;)
		if (st->att[i].stage == stage)
			return &st->att[i];
	return NULL;
}

int run_count(const struct run_state *st, char stage)
{
	int n = 0;
	for (size_t i = 0; i < st->natt; i++)
		if (st->att[i].stage == stage && st->att[i].counts)
			n++;
	return n;
}

bool run_deferred_owed(const struct run_state *st, size_t i)
{
	const struct attempt *a = &st->att[i];
	if (!a->verdict || strcmp(a->verdict, "DEFERRED") != 0)
		return false;
	for (size_t k = i + 1; k < st->natt; k++)
		if (st->att[k].stage == a->stage && !st->att[k].offline)
			return false;
	return true;
}

void attempt_add_soft(struct attempt *a, const char *marker)
{
	for (size_t i = 0; a->soft && a->soft[i]; i++)
		if (strcmp(a->soft[i], marker) == 0)
			return;
	size_t n = strv_len(a->soft);
	a->soft = xrealloc(a->soft, (n + 2) * sizeof(*a->soft));
	a->soft[n] = xstrdup(marker);
	a->soft[n + 1] = NULL;
}

/* ---- JSON mapping ---- */

static void put_letter(cJSON *o, const char *k, char c)
{
	char s[2] = {c, 0};
	cJSON_AddStringToObject(o, k, s);
}

const char *attempt_state_name(enum attempt_state s)
{
	return s == ATTEMPT_RUNNING ? "running" : s == ATTEMPT_JUDGED ? "judged"
	       : s == ATTEMPT_DONE ? "done" : "skipped";
}

static cJSON *attempt_to_json(const struct attempt *a)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "seq", a->seq);
	put_letter(o, "stage", a->stage);
	cJSON_AddNumberToObject(o, "attempt", a->n);
	cJSON_AddBoolToObject(o, "repair", a->repair);
	cJSON_AddBoolToObject(o, "counts", a->counts);
	cJSON_AddBoolToObject(o, "manual", a->manual);
	cJSON_AddBoolToObject(o, "offline", a->offline);
	cJSON_AddStringToObject(o, "state", attempt_state_name(a->state));
	json_put_str(o, "dir", a->dir);
	json_put_str(o, "driver", a->driver);
	cJSON_AddNumberToObject(o, "started", (double)a->started);
	cJSON_AddNumberToObject(o, "ended", (double)a->ended);
	if (a->state == ATTEMPT_RUNNING) {
		cJSON_AddNumberToObject(o, "pid", (double)a->pid);
		cJSON_AddNumberToObject(o, "pid_start", (double)a->pid_start);
	}
	json_put_str(o, "exit", a->exit);
	json_put_str(o, "stderr_tail", a->stderr_tail);
	json_put_str(o, "claimed", a->claimed);
	json_put_str(o, "verdict", a->verdict);
	json_put_str(o, "class", a->klass);
	if (a->class_defaulted)
		cJSON_AddBoolToObject(o, "class_defaulted", true);
	if (a->overruled)
		cJSON_AddBoolToObject(o, "overruled", true);
	if (a->owner_unknown)
		cJSON_AddBoolToObject(o, "owner_unknown", true);
	if (a->gate != GATE_NONE)
		cJSON_AddStringToObject(o, "gate", gate_outcome_name(a->gate));
	json_put_str(o, "gate_reason", a->gate_reason);
	if (a->validator != VALIDATOR_NOT_RUN)
		cJSON_AddStringToObject(o, "validator", validator_result_name(a->validator));
	json_put_strv(o, "soft", a->soft);
	json_put_strv(o, "deferred", a->deferred);
	cJSON_AddNumberToObject(o, "tokens_in", (double)a->tokens_in);
	cJSON_AddNumberToObject(o, "tokens_out", (double)a->tokens_out);
	cJSON_AddNumberToObject(o, "cost", a->cost);
	if (a->route_row) {
		cJSON_AddNumberToObject(o, "route_row", a->route_row);
		cJSON_AddNumberToObject(o, "route_line", a->route_line);
	}
	json_put_str(o, "action", a->action);
	json_put_str(o, "note", a->note);
	json_put_str(o, "refusal", a->refusal);
	json_put_str(o, "refused_by", a->refused_by);
	if (a->partial) {
		cJSON_AddStringToObject(o, "partial", a->partial);
		cJSON_AddNumberToObject(o, "partial_files", a->npartial);
	}
	return o;
}

cJSON *run_state_to_json(const struct run_state *st)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "schema", st->schema);
	json_put_str(o, "tileport_version", st->version);
	json_put_str(o, "op", st->op);
	json_put_str(o, "workspace", st->workspace);
	json_put_str(o, "out_root", st->out_root);
	json_put_str(o, "run_dir", st->run_dir);
	json_put_str(o, "table", st->table);
	cJSON_AddStringToObject(o, "status", run_status_name(st->status));
	json_put_str(o, "final", st->final);
	json_put_str(o, "reason", st->reason);
	cJSON_AddStringToObject(o, "mode", st->offline ? "offline" : "online");
	json_put_strv(o, "missing", st->missing);
	cJSON_AddNumberToObject(o, "created", (double)st->created);
	cJSON_AddNumberToObject(o, "updated", (double)st->updated);
	cJSON_AddBoolToObject(o, "hold", st->hold);
	json_put_strv(o, "port_before", st->port_before);
	if (st->next.set) {
		cJSON *n = cJSON_AddObjectToObject(o, "next");
		put_letter(n, "stage", st->next.stage);
		cJSON_AddBoolToObject(n, "repair", st->next.repair);
		cJSON_AddBoolToObject(n, "manual", st->next.manual);
		cJSON_AddBoolToObject(n, "beyond_cap", st->next.beyond_cap);
	}
	cJSON *rep = cJSON_AddObjectToObject(o, "repairs");
	cJSON *drv = cJSON_AddObjectToObject(o, "drivers");
	cJSON *val = cJSON_AddObjectToObject(o, "validators");
	for (int i = 0; i < STAGE_LETTERS; i++) {
		char l[2] = {stage_at_slot(i), 0};
		if (st->repairs[i])
			cJSON_AddNumberToObject(rep, l, st->repairs[i]);
		if (st->drivers[i])
			cJSON_AddStringToObject(drv, l, st->drivers[i]);
		if (st->validators[i])
			cJSON_AddStringToObject(val, l, st->validators[i]);
	}
	char defaults[STAGE_LETTERS + 1];
	size_t nd = 0;
	for (int i = 0; i < STAGE_LETTERS; i++)
		if (st->drivers_default[i] && st->drivers[i])
			defaults[nd++] = stage_at_slot(i);
	defaults[nd] = '\0';
	if (nd)
		cJSON_AddStringToObject(o, "drivers_default", defaults);
	cJSON *att = cJSON_AddArrayToObject(o, "attempts");
	for (size_t i = 0; i < st->natt; i++)
		cJSON_AddItemToArray(att, attempt_to_json(&st->att[i]));
	if (st->status == RUN_COMPLETE)
		cJSON_AddStringToObject(o, "contract", validator_result_name(st->contract));
	if (st->outcome != OUTCOME_NONE) {
		cJSON_AddStringToObject(o, "outcome", run_outcome_name(st->outcome));
		json_put_str(o, "outcome_reason", st->outcome_reason);
	}
	return o;
}

static cJSON *usage_json(struct run_usage u)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "tokens_in", (double)u.tokens_in);
	cJSON_AddNumberToObject(o, "tokens_out", (double)u.tokens_out);
	cJSON_AddNumberToObject(o, "cost", u.cost);
	return o;
}

int run_state_save(const struct run_state *st, struct tp_err *err)
{
	cJSON *o = run_state_to_json(st);
	/* For whoever reads the file: the attempts' usage summed per stage
	 * that used any, and for the run (loading ignores it). */
	cJSON *use = cJSON_AddObjectToObject(o, "usage");
	for (int i = 0; i < STAGE_LETTERS; i++) {
		struct run_usage u = run_state_usage(st, stage_at_slot(i));
		char k[2] = {stage_at_slot(i), 0};
		if (u.tokens_in || u.tokens_out || u.cost > 0)
			cJSON_AddItemToObject(use, k, usage_json(u));
	}
	cJSON_AddItemToObject(use, "run", usage_json(run_state_usage(st, 0)));
	char *text = cJSON_Print(o);
	cJSON_Delete(o);
	char *path = run_path(st->run_dir, "state.json");
	struct sbuf sb = SBUF_INIT;
	sb_adds(&sb, text);
	sb_addc(&sb, '\n');
	cJSON_free(text);
	int rc = write_file_atomic(path, sb.buf, sb.len, err);
	sb_free(&sb);
	free(path);
	return rc;
}

static double get_num(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsNumber(v) && isfinite(v->valuedouble) ? v->valuedouble : 0;
}

/* Numbers from a file are clamped before any conversion: an out-of-range
 * double converted to an integer is undefined behaviour. */
static long long get_ll(const cJSON *o, const char *k)
{
	double d = get_num(o, k);
	return d > 9e15 ? 9000000000000000LL : d < -9e15 ? -9000000000000000LL : (long long)d;
}

static int get_int(const cJSON *o, const char *k)
{
	double d = get_num(o, k);
	return d > INT_MAX ? INT_MAX : d < INT_MIN ? INT_MIN : (int)d;
}

static bool get_bool(const cJSON *o, const char *k)
{
	return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, k));
}

static char get_letter(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	if (!cJSON_IsString(v) || !stage_letter_ok(v->valuestring[0]) || v->valuestring[1])
		return 0;
	return v->valuestring[0];
}

/* A word of the vocabulary; absent is `none`; *bad names the first key whose
 * word is unknown. */
static int get_word(const cJSON *o, const char *k, int (*parse)(const char *), int none,
		    const char **bad)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	if (!v)
		return none;
	int w = cJSON_IsString(v) ? parse(v->valuestring) : -1;
	if (w < 0 && !*bad)
		*bad = k;
	return w < 0 ? none : w;
}

static int attempt_state_parse(const char *name)
{
	return !strcmp(name, "running") ? ATTEMPT_RUNNING
	       : !strcmp(name, "judged")  ? ATTEMPT_JUDGED
	       : !strcmp(name, "done")	  ? ATTEMPT_DONE
	       : !strcmp(name, "skipped") ? ATTEMPT_SKIPPED
					  : -1;
}

/* 0, or -1 when the record lacks what names it; *bad: a key whose word is
 * unknown. */
static int load_attempt(struct attempt *a, const cJSON *o, const char **bad)
{
	a->seq = get_int(o, "seq");
	a->stage = get_letter(o, "stage");
	/* "n" in files written before the key was "attempt" everywhere */
	a->n = get_int(o, cJSON_HasObjectItem(o, "attempt") ? "attempt" : "n");
	a->repair = get_bool(o, "repair");
	a->counts = get_bool(o, "counts");
	a->manual = get_bool(o, "manual");
	a->offline = get_bool(o, "offline");
	a->state = get_word(o, "state", attempt_state_parse, ATTEMPT_RUNNING, bad);
	a->dir = json_get_str(o, "dir");
	a->driver = json_get_str(o, "driver");
	a->started = (int64_t)get_ll(o, "started");
	a->ended = (int64_t)get_ll(o, "ended");
	a->pid = (long)get_ll(o, "pid");
	a->pid_start = get_ll(o, "pid_start");
	a->exit = json_get_str(o, "exit");
	a->stderr_tail = json_get_str(o, "stderr_tail");
	a->claimed = json_get_str(o, "claimed");
	a->verdict = json_get_str(o, "verdict");
	a->klass = json_get_str(o, "class");
	a->class_defaulted = get_bool(o, "class_defaulted");
	a->overruled = get_bool(o, "overruled");
	a->owner_unknown = get_bool(o, "owner_unknown");
	a->gate = get_word(o, "gate", gate_outcome_parse, GATE_NONE, bad);
	a->gate_reason = json_get_str(o, "gate_reason");
	a->validator = get_word(o, "validator", validator_result_parse, VALIDATOR_NOT_RUN, bad);
	a->soft = json_get_strv(o, "soft");
	a->deferred = json_get_strv(o, "deferred");
	a->tokens_in = get_ll(o, "tokens_in");
	a->tokens_out = get_ll(o, "tokens_out");
	a->cost = get_num(o, "cost");
	a->route_row = get_int(o, "route_row");
	a->route_line = get_int(o, "route_line");
	a->action = json_get_str(o, "action");
	a->note = json_get_str(o, "note");
	a->refusal = json_get_str(o, "refusal");
	a->refused_by = json_get_str(o, "refused_by");
	a->partial = json_get_str(o, "partial");
	a->npartial = get_int(o, "partial_files");
	return a->stage && a->seq > 0 && a->dir ? 0 : -1;
}

int run_state_load(const char *run_dir, struct run_state *st, struct tp_err *err)
{
	run_state_init(st);
	char *path = run_path(run_dir, "state.json");
	size_t len;
	char *text = read_file_flags(path, &len, FILE_NOFOLLOW, err);
	bool read_ok = text != NULL;
	long nul = text ? text_nul_at(text, len) : -1;
	cJSON *o = text && nul < 0 ? json_parse_doc(path, text, len, err) : NULL;
	free(text);
	if (!cJSON_IsObject(o)) {
		if (nul >= 0)
			tp_err_set(err, TP_EXIT_USAGE, "%s: byte offset %ld: a NUL byte; not a tileport "
				   "state file", path, nul);
		else if (o)
			tp_err_set(err, TP_EXIT_USAGE, "%s:1:1: not a tileport state file (expected a JSON "
				   "object)", path);
		else if (read_ok && err)
			snprintf(err->msg + strlen(err->msg), sizeof(err->msg) - strlen(err->msg),
				 "; not a tileport state file");
		cJSON_Delete(o);
		free(path);
		return -1;
	}
	st->schema = get_int(o, "schema");
	if (st->schema != RUN_SCHEMA) {
		tp_err_set(err, TP_EXIT_USAGE, "%s: state schema %d is not supported (this tileport reads %d)",
			   path, st->schema, RUN_SCHEMA);
		cJSON_Delete(o);
		free(path);
		return -1;
	}
	st->version = json_get_str(o, "tileport_version");
	st->op = json_get_str(o, "op");
	st->workspace = json_get_str(o, "workspace");
	st->out_root = json_get_str(o, "out_root");
	st->run_dir = xstrdup(run_dir); /* the directory may have moved */
	st->table = json_get_str(o, "table");
	const char *bad = NULL;
	bool has_status = cJSON_HasObjectItem(o, "status");
	st->status = get_word(o, "status", run_status_parse, RUN_RUNNING, &bad);
	st->final = json_get_str(o, "final");
	st->reason = json_get_str(o, "reason");
	char *mode = json_get_str(o, "mode");
	st->offline = mode && strcmp(mode, "offline") == 0;
	free(mode);
	st->missing = json_get_strv(o, "missing");
	st->created = (int64_t)get_ll(o, "created");
	st->updated = (int64_t)get_ll(o, "updated");
	st->hold = get_bool(o, "hold");
	st->port_before = json_get_strv(o, "port_before");
	const cJSON *next = cJSON_GetObjectItemCaseSensitive(o, "next");
	if (cJSON_IsObject(next)) {
		st->next.set = true;
		st->next.stage = get_letter(next, "stage");
		st->next.repair = get_bool(next, "repair");
		st->next.manual = get_bool(next, "manual");
		st->next.beyond_cap = get_bool(next, "beyond_cap");
	}
	for (int i = 0; i < STAGE_LETTERS; i++) {
		char l[2] = {stage_at_slot(i), 0};
		st->repairs[i] = get_int(cJSON_GetObjectItemCaseSensitive(o, "repairs"), l);
		st->drivers[i] = json_get_str(cJSON_GetObjectItemCaseSensitive(o, "drivers"), l);
		st->validators[i] = json_get_str(cJSON_GetObjectItemCaseSensitive(o, "validators"), l);
	}
	const cJSON *dd = cJSON_GetObjectItemCaseSensitive(o, "drivers_default");
	for (const char *c = cJSON_IsString(dd) ? dd->valuestring : ""; *c; c++)
		if (stage_letter_ok(*c))
			st->drivers_default[stage_slot(*c)] = true;
	const cJSON *att = cJSON_GetObjectItemCaseSensitive(o, "attempts"), *it;
	size_t incomplete = 0;
	cJSON_ArrayForEach(it, att)
		if (load_attempt(run_add_attempt(st), it, &bad) < 0 && !incomplete)
			incomplete = st->natt;
	st->contract = get_word(o, "contract", validator_result_parse, VALIDATOR_NOT_RUN, &bad);
	st->outcome = get_word(o, "outcome", run_outcome_parse, OUTCOME_NONE, &bad);
	st->outcome_reason = json_get_str(o, "outcome_reason");
	cJSON_Delete(o);
	int rc = 0;
	if (!st->op || !has_status) {
		tp_err_set(err, TP_EXIT_USAGE, "%s: incomplete state (no op or status)", path);
		rc = -1;
	} else if (incomplete) {
		tp_err_set(err, TP_EXIT_USAGE, "%s: incomplete state (attempt %zu lacks seq, stage or dir)",
			   path, incomplete);
		rc = -1;
	} else if (bad) {
		tp_err_set(err, TP_EXIT_USAGE, "%s: a '%s' value this tileport does not know", path, bad);
		rc = -1;
	}
	if (rc < 0) {
		free(path);
		run_state_free(st);
		return -1;
	}
	free(path);
	return 0;
}

static int cmp_summary(const void *a, const void *b)
{
	const struct run_summary *x = a, *y = b;
	if (x->updated != y->updated)
		return x->updated < y->updated ? 1 : -1;
	return strcmp(x->op, y->op);
}

int runs_list(const char *out_root, struct run_summary **out, size_t *n, struct tp_err *err)
{
	*out = NULL;
	*n = 0;
	DIR *d = opendir(out_root);
	if (!d) {
		if (errno == ENOENT)
			return 0;
		tp_err_set(err, TP_EXIT_USAGE, "%s: cannot list runs: %s", out_root, strerror(errno));
		return -1;
	}
	size_t cap = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char *dir = path_join(out_root, e->d_name);
		struct run_state st;
		struct tp_err lerr;
		if (!run_exists(dir)) {
			free(dir);
			continue;
		}
		*out = xgrow(*out, &cap, *n + 1, sizeof(**out));
		struct run_summary *s = &(*out)[(*n)++];
		memset(s, 0, sizeof(*s));
		if (run_state_load(dir, &st, &lerr) < 0) {
			/* A damaged run is shown, not silently dropped. */
			s->op = xstrdup(e->d_name);
			s->run_dir = dir;
			s->error = xstrdup(lerr.msg);
			continue;
		}
		s->op = xstrdup(st.op);
		s->run_dir = dir;
		s->status = st.status;
		s->final = st.final ? xstrdup(st.final) : NULL;
		s->stage = st.natt ? st.att[st.natt - 1].stage : 0;
		s->running = run_locked(dir);
		s->outcome = st.outcome;
		s->outcome_reason = st.outcome_reason ? xstrdup(st.outcome_reason) : NULL;
		s->updated = st.updated;
		s->attempts = (int)st.natt;
		run_state_free(&st);
	}
	closedir(d);
	if (*n)
		qsort(*out, *n, sizeof(**out), cmp_summary);
	return 0;
}

const char *run_display_state(enum run_status status, const char *final, bool locked)
{
	if (!locked && (status == RUN_RUNNING || status == RUN_WAITING))
		return "interrupted";
	return final ? final : run_status_name(status);
}

const char *run_summary_state(const struct run_summary *s)
{
	return s->error ? "unreadable" : run_display_state(s->status, s->final, s->running);
}

void runs_free(struct run_summary *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].op);
		free(v[i].run_dir);
		free(v[i].final);
		free(v[i].error);
		free(v[i].outcome_reason);
	}
	free(v);
}

long long proc_start_time(long pid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	char *text = read_file(path, NULL, NULL);
	if (!text)
		return -1;
	/* The command name may contain spaces and parentheses: fields start
	 * after the last ')'. Field 22 is the 20th after it. */
	char *p = strrchr(text, ')');
	long long v = -1;
	if (p) {
		p++;
		for (int field = 3; field < 22 && p; field++)
			p = strchr(p + 1, ' ');
		if (p)
			v = atoll(p + 1);
	}
	free(text);
	return v;
}

struct run_usage run_state_usage(const struct run_state *st, char stage)
{
	struct run_usage u = {0};
	for (size_t i = 0; i < st->natt; i++) {
		const struct attempt *a = &st->att[i];
		if (stage && a->stage != stage)
			continue;
		u.tokens_in += a->tokens_in;
		u.tokens_out += a->tokens_out;
		u.cost += a->cost;
	}
	return u;
}

/* run --fresh: the existing run goes to OP.N, the first free N, whole and
 * untouched; one that an orchestrator holds stays where it is. */
int run_move_aside(const char *run_dir, char **aside, struct tp_err *err)
{
	if (run_locked(run_dir)) {
		tp_err_set(err, TP_EXIT_ENV, "run %s is in use by another tileport: it cannot be moved aside",
			   run_dir);
		return -1;
	}
	for (int n = 1; n < 10000; n++) {
		char *to = xasprintf("%s.%d", run_dir, n);
		if (!path_is_dir(to) && !path_is_file(to)) {
			if (rename(run_dir, to) == 0) {
				*aside = to;
				return 0;
			}
			tp_err_set(err, TP_EXIT_ENV, "%s: cannot move it to %s: %s", run_dir, to, strerror(errno));
			free(to);
			return -1;
		}
		free(to);
	}
	tp_err_set(err, TP_EXIT_ENV, "%s: no free name to move it aside", run_dir);
	return -1;
}
