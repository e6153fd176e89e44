/* The batch record: OUT/.tileport-batch/NAME/batch.json, its names and
 * states, reading and atomic writing. */
#include "engine/batch/batch_int.h"

#include <ctype.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "engine/base/files.h"
#include "engine/base/json.h"
#include "engine/base/lock.h"

static const char *const state_names[BST__COUNT] = {
	[BST_PENDING] = "pending",         [BST_QUEUED] = "queued",
	[BST_RUNNING] = "running",         [BST_COMPLETE] = "complete",
	[BST_OFFLINE] = "offline_complete", [BST_STOPPED] = "stopped",
	[BST_INTERRUPTED] = "interrupted", [BST_CANCELLED] = "cancelled",
	[BST_FAILED] = "failed",
};

const char *batch_state_name(enum batch_state s)
{
	return s < BST__COUNT ? state_names[s] : "?";
}

int batch_state_parse(const char *name)
{
	for (int i = 0; name && i < BST__COUNT; i++)
		if (strcmp(state_names[i], name) == 0)
			return i;
	return -1;
}

const char *batch_executor_name(enum batch_executor e)
{
	return e == BATCH_SLURM ? "slurm" : "local";
}

bool batch_state_final(enum batch_state s)
{
	return s == BST_COMPLETE || s == BST_OFFLINE || s == BST_STOPPED;
}

bool batch_state_active(enum batch_state s)
{
	return s == BST_QUEUED || s == BST_RUNNING;
}

bool batch_name_ok(const char *name)
{
	if (!name || !*name || *name == '.' || strlen(name) > 64)
		return false;
	for (const char *c = name; *c; c++)
		if (!isalnum((unsigned char)*c) && !strchr("._-", *c))
			return false;
	return true;
}

char *batch_dir_of(const char *out_root, const char *name)
{
	return xasprintf("%s/%s/%s", out_root, BATCH_FOLDER, name);
}

char *batch_path(const struct batch_record *r, const char *rel)
{
	return path_join(r->dir, rel);
}

static bool is_batch_dir(const char *dir)
{
	char *p = path_join(dir, "batch.json");
	bool ok = path_is_file(p);
	free(p);
	return ok;
}

char *batch_resolve(const char *arg, const char *out_root)
{
	if (!arg || !*arg)
		return NULL;
	if (str_ends(arg, "/batch.json") && path_is_file(arg))
		return xstrndup(arg, strlen(arg) - strlen("/batch.json"));
	if (strchr(arg, '/'))
		return is_batch_dir(arg) ? xstrdup(arg) : NULL;
	if (!batch_name_ok(arg) || !out_root)
		return NULL;
	char *dir = batch_dir_of(out_root, arg);
	if (is_batch_dir(dir))
		return dir;
	free(dir);
	return NULL;
}

char *batch_latest(const char *out_root)
{
	char *root = path_join(out_root, BATCH_FOLDER);
	DIR *d = opendir(root);
	char *best = NULL;
	int64_t best_at = 0;
	struct dirent *e;
	while (d && (e = readdir(d))) {
		if (!batch_name_ok(e->d_name))
			continue;
		char *dir = path_join(root, e->d_name);
		struct batch_record r;
		if (batch_record_load(dir, &r, NULL) == 0) {
			if (!best || r.created > best_at ||
			    (r.created == best_at && strcmp(dir, best) > 0)) {
				free(best);
				best = xstrdup(dir);
				best_at = r.created;
			}
			batch_record_free(&r);
		}
		free(dir);
	}
	if (d)
		closedir(d);
	free(root);
	return best;
}

static void free_slurm(struct batch_slurm *s)
{
	free(s->partition);
	free(s->account);
	free(s->qos);
	free(s->time);
	free(s->gres);
	strv_free(s->sbatch_args);
	free(s->tileport);
	free(s->probe_node);
}

void batch_record_free(struct batch_record *r)
{
	free(r->version);
	free(r->name);
	free(r->dir);
	free(r->workspace);
	free(r->out_root);
	strv_free(r->run_args);
	free_slurm(&r->slurm);
	for (size_t i = 0; i < r->nsubs; i++) {
		free(r->subs[i].job);
		free(r->subs[i].script);
		strv_free(r->subs[i].ops);
	}
	free(r->subs);
	for (size_t i = 0; i < r->nops; i++) {
		struct batch_op *o = &r->ops[i];
		free(o->op);
		free(o->run_dir);
		free(o->job);
		free(o->node);
		free(o->why);
	}
	free(r->ops);
	memset(r, 0, sizeof(*r));
}

/* ---- JSON ---- */

static cJSON *record_json(const struct batch_record *r)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "schema", r->schema);
	json_put_str(o, "tileport_version", r->version);
	json_put_str(o, "name", r->name);
	cJSON_AddStringToObject(o, "executor", batch_executor_name(r->executor));
	json_put_str(o, "workspace", r->workspace);
	json_put_str(o, "out_root", r->out_root);
	cJSON_AddNumberToObject(o, "jobs", r->jobs);
	json_put_strv(o, "run_args", r->run_args);
	cJSON_AddNumberToObject(o, "created", (double)r->created);
	cJSON_AddNumberToObject(o, "updated", (double)r->updated);
	if (r->executor == BATCH_SLURM) {
		const struct batch_slurm *s = &r->slurm;
		cJSON *j = cJSON_AddObjectToObject(o, "slurm");
		json_put_str(j, "partition", s->partition);
		json_put_str(j, "account", s->account);
		json_put_str(j, "qos", s->qos);
		json_put_str(j, "time", s->time);
		json_put_str(j, "gres", s->gres);
		json_put_strv(j, "sbatch_args", s->sbatch_args);
		json_put_str(j, "tileport", s->tileport);
		cJSON_AddNumberToObject(j, "poll_ms", (double)s->poll_ms);
		json_put_str(j, "probe_node", s->probe_node);
	}
	cJSON *subs = cJSON_AddArrayToObject(o, "submissions");
	for (size_t i = 0; i < r->nsubs; i++) {
		cJSON *j = cJSON_CreateObject();
		json_put_str(j, "job", r->subs[i].job);
		json_put_str(j, "script", r->subs[i].script);
		json_put_strv(j, "ops", r->subs[i].ops);
		cJSON_AddNumberToObject(j, "at", (double)r->subs[i].at);
		cJSON_AddItemToArray(subs, j);
	}
	cJSON *ops = cJSON_AddArrayToObject(o, "ops");
	for (size_t i = 0; i < r->nops; i++) {
		const struct batch_op *b = &r->ops[i];
		cJSON *j = cJSON_CreateObject();
		json_put_str(j, "op", b->op);
		json_put_str(j, "run_dir", b->run_dir);
		cJSON_AddStringToObject(j, "state", batch_state_name(b->state));
		json_put_str(j, "job", b->job);
		if (b->pid_start)
			cJSON_AddNumberToObject(j, "pid_start", (double)b->pid_start);
		json_put_str(j, "node", b->node);
		json_put_str(j, "why", b->why);
		cJSON_AddNumberToObject(j, "starts", b->starts);
		cJSON_AddNumberToObject(j, "started", (double)b->started);
		cJSON_AddNumberToObject(j, "ended", (double)b->ended);
		cJSON_AddItemToArray(ops, j);
	}
	return o;
}

/* Numbers from a file are clamped before any conversion: an out-of-range
 * double converted to an integer is undefined behaviour. */
static double get_num(const cJSON *o, const char *k, double lo, double hi)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	double d = cJSON_IsNumber(v) ? v->valuedouble : 0;
	return d < lo ? lo : d > hi ? hi : d;
}

static int get_int(const cJSON *o, const char *k)
{
	return (int)get_num(o, k, 0, 1e6);
}

static int64_t get_ms(const cJSON *o, const char *k)
{
	return (int64_t)get_num(o, k, 0, 9e15);
}

/* A record is checked as hard as a state file: resume acts on what it
 * names (directories it moves, jobs it cancels). */
static int from_json(const cJSON *o, const char *path, struct batch_record *r, struct tp_err *err)
{
	r->schema = get_int(o, "schema");
	if (r->schema != BATCH_SCHEMA) {
		tp_err_set(err, TP_EXIT_USAGE, "%s: schema %d, expected %d", path, r->schema, BATCH_SCHEMA);
		return -1;
	}
	r->version = json_get_str(o, "tileport_version");
	r->name = json_get_str(o, "name");
	char *ex = json_get_str(o, "executor");
	bool ex_ok = ex && (!strcmp(ex, "local") || !strcmp(ex, "slurm"));
	r->executor = ex && !strcmp(ex, "slurm") ? BATCH_SLURM : BATCH_LOCAL;
	free(ex);
	if (!ex_ok || !batch_name_ok(r->name)) {
		tp_err_set(err, TP_EXIT_USAGE, "%s: expected a name and an executor (local or slurm)", path);
		return -1;
	}
	r->workspace = json_get_str(o, "workspace");
	r->jobs = get_int(o, "jobs");
	if (r->jobs < 1)
		r->jobs = 1;
	r->run_args = json_get_strv(o, "run_args");
	r->created = get_ms(o, "created");
	r->updated = get_ms(o, "updated");
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(o, "slurm");
	if (cJSON_IsObject(s)) {
		struct batch_slurm *d = &r->slurm;
		d->partition = json_get_str(s, "partition");
		d->account = json_get_str(s, "account");
		d->qos = json_get_str(s, "qos");
		d->time = json_get_str(s, "time");
		d->gres = json_get_str(s, "gres");
		d->sbatch_args = json_get_strv(s, "sbatch_args");
		d->tileport = json_get_str(s, "tileport");
		d->poll_ms = get_ms(s, "poll_ms");
		d->probe_node = json_get_str(s, "probe_node");
	}
	const cJSON *subs = cJSON_GetObjectItemCaseSensitive(o, "submissions");
	r->subs = xcalloc((size_t)cJSON_GetArraySize(subs) + 1, sizeof(*r->subs));
	const cJSON *e;
	cJSON_ArrayForEach(e, subs) {
		struct batch_submission *b = &r->subs[r->nsubs++];
		b->job = json_get_str(e, "job");
		b->script = json_get_str(e, "script");
		b->ops = json_get_strv(e, "ops");
		b->at = get_ms(e, "at");
	}
	const cJSON *ops = cJSON_GetObjectItemCaseSensitive(o, "ops");
	r->ops = xcalloc((size_t)cJSON_GetArraySize(ops) + 1, sizeof(*r->ops));
	cJSON_ArrayForEach(e, ops) {
		struct batch_op *b = &r->ops[r->nops++];
		b->op = json_get_str(e, "op");
		char *st = json_get_str(e, "state");
		int s = batch_state_parse(st);
		free(st);
		if (!b->op || !*b->op || strchr(b->op, '/') || b->op[0] == '.' || s < 0) {
			tp_err_set(err, TP_EXIT_USAGE, "%s: op %zu: expected an operator name and a state",
				   path, r->nops);
			return -1;
		}
		b->state = (enum batch_state)s;
		/* The output root is where the record lies: the folder may have moved. */
		b->run_dir = path_join(r->out_root, b->op);
		b->job = json_get_str(e, "job");
		b->pid_start = get_ms(e, "pid_start");
		b->node = json_get_str(e, "node");
		b->why = json_get_str(e, "why");
		b->starts = get_int(e, "starts");
		b->started = get_ms(e, "started");
		b->ended = get_ms(e, "ended");
	}
	return 0;
}

/* dir is OUT/.tileport-batch/NAME: OUT as the caller wrote it (relative
 * paths stay relative for display; what runs gets absolute ones). */
static char *out_root_of(const char *dir)
{
	char *d = xstrdup(dir);
	size_t n = strlen(d);
	while (n > 1 && d[n - 1] == '/')
		d[--n] = '\0';
	for (int up = 0; up < 2; up++) {
		char *slash = strrchr(d, '/');
		if (!slash) {
			free(d);
			return xstrdup(up ? "." : "..");
		}
		*slash = '\0';
	}
	if (!*d) {
		free(d);
		return xstrdup("/");
	}
	return d;
}

int batch_record_load(const char *dir, struct batch_record *r, struct tp_err *err)
{
	memset(r, 0, sizeof(*r));
	char *path = path_join(dir, "batch.json");
	char *text = read_file(path, NULL, err);
	if (!text) {
		free(path);
		return -1;
	}
	cJSON *o = cJSON_Parse(text);
	free(text);
	int rc = -1;
	if (!cJSON_IsObject(o)) {
		tp_err_set(err, TP_EXIT_USAGE, "%s: not a JSON object", path);
	} else {
		r->dir = xstrdup(dir);
		r->out_root = out_root_of(dir);
		rc = from_json(o, path, r, err);
	}
	cJSON_Delete(o);
	free(path);
	if (rc < 0)
		batch_record_free(r);
	return rc;
}

int batch_lock_check(const struct batch_record *r, int fd, struct tp_err *err)
{
	char *path = batch_path(r, "lock");
	int rc = lock_check(path, fd, err);
	free(path);
	return rc;
}

int batch_record_save(struct batch_record *r, int lock_fd, struct tp_err *err)
{
	if (lock_fd >= 0 && batch_lock_check(r, lock_fd, err) < 0)
		return -1;
	r->updated = wall_ms();
	cJSON *o = record_json(r);
	char *text = cJSON_Print(o);
	cJSON_Delete(o);
	char *line = xasprintf("%s\n", text);
	cJSON_free(text);
	char *path = batch_path(r, "batch.json");
	int rc = write_file_atomic(path, line, strlen(line), err);
	free(path);
	free(line);
	return rc;
}

int batch_lock(const struct batch_record *r, struct tp_err *err)
{
	char *path = batch_path(r, "lock");
	long holder;
	int fd = lock_take(path, &holder, err);
	if (fd < 0 && holder >= 0)
		tp_err_set(err, TP_EXIT_ENV, "batch %s is being changed by another tileport (pid %ld)",
			   r->name, holder);
	free(path);
	return fd;
}
