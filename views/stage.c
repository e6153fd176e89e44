/* The stage view: one attempt of one stage. Its record (state, exit,
 * claimed and routed verdicts, owner class, gate, validator, route,
 * tokens, cost, soft markers), its files (prompt.md, transcript.jsonl,
 * stderr.log, validator.txt, verdict.json), the validator's findings
 * (validator.json, else validator.txt), the stage's artifacts with their
 * validation state, and the stage's other attempts. Enter opens the line's
 * file (or finding's location, or attempt); e and v open it in $EDITOR and
 * $PAGER; the stepping keys act on this attempt. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "engine/base/files.h"
#include "engine/compile/compile.h"
#include "engine/core/session.h"
#include "views/attempt.h"
#include "views/view.h"

#define REBUILD_MS 500 /* a running attempt's elapsed time */

enum skind { S_TEXT, S_FILE, S_FINDING, S_ARTIFACT, S_ATTEMPT, S_COMPILE };

struct sline {
	enum skind kind;
	enum line_type type;
	char *cell[3];
	uint8_t ctype[3];
	char *path; /* file to open */
	long line;
	int seq;
};

struct stage {
	struct run_model *m;
	char *run_dir, *dir;
	int seq;
	struct sline *l;
	size_t n, cap;
	int64_t built;
	/* Column widths from what the lines hold (a label, a file name, a
	 * finding's path, an artifact): a path is cut only where the screen
	 * is narrower than it, never to fit a fixed column. */
	int w_label, w_file, w_fpath, w_art;
};

static void measure(struct stage *s);

static const struct attempt *attempt_of(struct stage *s)
{
	return run_model_attempt(s->m, s->seq);
}

static void clear(struct stage *s)
{
	for (size_t i = 0; i < s->n; i++) {
		for (int k = 0; k < 3; k++)
			free(s->l[i].cell[k]);
		free(s->l[i].path);
	}
	s->n = 0;
}

static struct sline *add(struct stage *s, enum skind kind, enum line_type type)
{
	s->l = xgrow(s->l, &s->cap, s->n + 1, sizeof(*s->l));
	struct sline *l = &s->l[s->n++];
	memset(l, 0, sizeof(*l));
	l->kind = kind;
	l->type = type;
	return l;
}

static void cell(struct sline *l, int k, enum line_type type, const char *text)
{
	free(l->cell[k]);
	l->cell[k] = xstrdup(text ? text : "");
	l->ctype[k] = (uint8_t)type;
}

static void field(struct stage *s, const char *label, enum line_type type, const char *value)
{
	if (!value || !*value)
		return;
	struct sline *l = add(s, S_TEXT, LINE_DEFAULT);
	cell(l, 0, LINE_LABEL, label);
	cell(l, 1, type, value);
}

static void section(struct stage *s, const char *fmt, ...) TP_PRINTF(2, 3);
static void section(struct stage *s, const char *fmt, ...)
{
	if (s->n)
		add(s, S_TEXT, LINE_DEFAULT);
	va_list ap;
	va_start(ap, fmt);
	char *t = xvasprintf(fmt, ap);
	va_end(ap);
	cell(add(s, S_TEXT, LINE_SECTION), 0, LINE_SECTION, t);
	free(t);
}

static void joined(struct sbuf *sb, char *const *v)
{
	for (size_t i = 0; v && v[i]; i++)
		sb_printf(sb, "%s%s", i ? ", " : "", v[i]);
}

static enum line_type verdict_type(const struct stage_def *d, const char *v)
{
	if (!v)
		return LINE_DIM;
	if (d && stage_is_success(d, v))
		return LINE_VERDICT_OK;
	return strstr(v, "FAIL") || strstr(v, "BLOCKED") ? LINE_VERDICT_FAIL : LINE_VERDICT_WARN;
}

static void build_record(struct stage *s, const struct attempt *a, const struct stage_def *d)
{
	char buf[256], t1[32], t2[32];
	struct sline *l = add(s, S_TEXT, LINE_SECTION);
	snprintf(buf, sizeof(buf), "%c%d%s  %s - attempt %d of cap %d%s%s%s", a->stage, a->n,
		 a->repair ? "r" : "", d && d->name ? d->name : "", a->n, d ? d->cap : 0,
		 a->repair ? " (repair retry)" : "", a->manual ? " (by hand)" : "",
		 a->offline ? " (offline)" : "");
	cell(l, 0, LINE_SECTION, buf);
	const char *state = attempt_state_name(a->state);
	fmt_elapsed(run_model_elapsed_ms(s->m, a, view_now_ms()), t1, sizeof(t1));
	snprintf(buf, sizeof(buf), "%s%s%s, %s", state, a->exit ? ", " : "", a->exit ? a->exit : "", t1);
	field(s, "state", a->state == ATTEMPT_RUNNING ? LINE_STATE_RUNNING : LINE_DEFAULT, buf);
	if (a->stderr_tail) {
		/* why it failed, usually: its last line, the rest in stderr.log */
		const char *last = strrchr(a->stderr_tail, '\n');
		int more = 0;
		for (const char *c = a->stderr_tail; *c; c++)
			more += *c == '\n';
		snprintf(buf, sizeof(buf), "%s%s", last ? last + 1 : a->stderr_tail,
			 more ? "  (more in stderr.log)" : "");
		field(s, "stderr", LINE_STATE_FAIL, buf);
	}
	field(s, "claimed", verdict_type(d, a->claimed), a->claimed);
	if (a->refusal) {
		/* where and what the driver could not convert, and what would */
		char *u = xasprintf("%s%s%s%s", a->refusal, a->refused_by ? "  (" : "",
				    a->refused_by ? a->refused_by : "",
				    a->refused_by ? ": no model, running it again refuses the same way)" : "");
		/* an unsupported construct, or a failure of the driver's own check */
		field(s, str_starts(a->refusal, "FAIL [") ? "failed" : "unsupported", LINE_STATE_FAIL, u);
		free(u);
		const char *reason = run_model_state(s->m)->reason;
		const char *next = a->refused_by && reason ? strstr(reason, "What would finish the job: ") : NULL;
		if (next)
			field(s, "to finish", LINE_DEFAULT, next + strlen("What would finish the job: "));
	}
	field(s, "verdict", verdict_type(d, a->verdict), a->verdict ? a->verdict : "-");
	if (a->klass) {
		snprintf(buf, sizeof(buf), "%s%s", a->klass,
			 a->class_defaulted ? " (tag missing: the table's default)" : "");
		field(s, "owner", LINE_DEFAULT, buf);
	}
	if (a->gate != GATE_NONE) {
		snprintf(buf, sizeof(buf), "%s%s%s", gate_outcome_name(a->gate), a->gate_reason ? ": " : "",
			 a->gate_reason ? a->gate_reason : "");
		field(s, "gate", a->gate != GATE_ACCEPT ? LINE_STATE_WARN : LINE_DEFAULT, buf);
	}
	if (a->validator != VALIDATOR_NOT_RUN)
		field(s, "validator", a->validator == VALIDATOR_PASS ? LINE_STATE_OK
				      : a->validator == VALIDATOR_FAIL ? LINE_STATE_FAIL : LINE_STATE_WARN,
		      validator_result_name(a->validator));
	if (a->action) {
		if (a->route_row)
			snprintf(buf, sizeof(buf), "%s (table row %d, line %d)", a->action, a->route_row,
				 a->route_line);
		else
			snprintf(buf, sizeof(buf), "%s", a->action);
		field(s, "route", LINE_ROUTE, buf);
	}
	field(s, "note", LINE_DEFAULT, a->note);
	if (a->partial) {
		snprintf(buf, sizeof(buf), "%d file%s an interrupted run left: %s", a->npartial,
			 a->npartial == 1 ? "" : "s", a->partial);
		field(s, "partial", LINE_STATE_WARN, buf);
	}
	fmt_count(a->tokens_in, t1, sizeof(t1));
	fmt_count(a->tokens_out, t2, sizeof(t2));
	snprintf(buf, sizeof(buf), "%s in, %s out, $%.4f", t1, t2, a->cost);
	field(s, "tokens", LINE_COST, buf);
	field(s, "driver", LINE_DIM, a->driver);
	struct sbuf sb = SBUF_INIT;
	joined(&sb, a->soft);
	field(s, "soft", LINE_STATE_WARN, sb_str(&sb));
	sb_reset(&sb);
	joined(&sb, a->deferred);
	field(s, "deferred", LINE_STATE_WARN, sb_str(&sb));
	sb_free(&sb);
}

static void file_line(struct stage *s, const char *name)
{
	char *path = path_join(s->dir, name);
	struct stat sb;
	struct sline *l = add(s, S_FILE, LINE_DEFAULT);
	cell(l, 0, LINE_DEFAULT, name);
	char info[64];
	if (stat(path, &sb) < 0)
		snprintf(info, sizeof(info), "missing");
	else if (sb.st_size == 0)
		snprintf(info, sizeof(info), "empty");
	else if (sb.st_size < 10240)
		snprintf(info, sizeof(info), "%lld bytes", (long long)sb.st_size);
	else
		snprintf(info, sizeof(info), "%.1f kB", (double)sb.st_size / 1024);
	cell(l, 1, stat(path, &sb) < 0 ? LINE_ARTIFACT_MISSING : LINE_DIM, info);
	l->path = path;
}

/* validator.json: the orchestrator's findings as engine/check writes them,
 * an array (or {"findings": [...]}) of {validator, rule, severity, file,
 * line, message}; severities PASS INFO WARN DEFERRED FAIL (and CRITICAL
 * from IR diffs). */
static enum line_type severity_type(const char *sv)
{
	if (!strcasecmp(sv, "critical"))
		return LINE_FINDING_CRITICAL;
	if (!strcasecmp(sv, "warn") || !strcasecmp(sv, "warning"))
		return LINE_FINDING_WARN;
	if (!strcasecmp(sv, "info"))
		return LINE_FINDING_INFO;
	if (!strcasecmp(sv, "pass"))
		return LINE_VERDICT_OK;
	if (!strcasecmp(sv, "deferred"))
		return LINE_STATE_WARN;
	return LINE_FINDING_ERROR;
}

static size_t build_findings_json(struct stage *s, const cJSON *root)
{
	const cJSON *arr = cJSON_IsArray(root) ? root : cJSON_GetObjectItemCaseSensitive(root, "findings");
	size_t n = 0;
	const cJSON *f;
	cJSON_ArrayForEach(f, arr) {
		const cJSON *sev = cJSON_GetObjectItemCaseSensitive(f, "severity");
		const cJSON *file = cJSON_GetObjectItemCaseSensitive(f, "file");
		const cJSON *line = cJSON_GetObjectItemCaseSensitive(f, "line");
		const cJSON *msg = cJSON_GetObjectItemCaseSensitive(f, "message");
		const cJSON *rule = cJSON_GetObjectItemCaseSensitive(f, "rule");
		if (!cJSON_IsString(rule))
			rule = cJSON_GetObjectItemCaseSensitive(f, "id");
		const char *sv = cJSON_IsString(sev) ? sev->valuestring : "INFO";
		enum line_type t = severity_type(sv);
		struct sline *l = add(s, S_FINDING, t);
		cell(l, 0, t, sv);
		char loc[512] = "";
		if (cJSON_IsString(file)) {
			/* Paths inside the run are shown relative to it. */
			const char *shown = file->valuestring;
			size_t rl = strlen(s->run_dir);
			if (!strncmp(shown, s->run_dir, rl) && shown[rl] == '/')
				shown += rl + 1;
			if (cJSON_IsNumber(line) && line->valueint > 0)
				snprintf(loc, sizeof(loc), "%s:%d", shown, line->valueint);
			else
				snprintf(loc, sizeof(loc), "%s", shown);
			l->path = file->valuestring[0] == '/' ? xstrdup(file->valuestring)
							      : path_join(s->run_dir, file->valuestring);
			l->line = cJSON_IsNumber(line) ? line->valueint : 0;
		}
		cell(l, 1, LINE_DIM, loc);
		char *m = xasprintf("%s%s%s%s", cJSON_IsString(msg) ? msg->valuestring : "",
				    cJSON_IsString(rule) ? " [" : "",
				    cJSON_IsString(rule) ? rule->valuestring : "",
				    cJSON_IsString(rule) ? "]" : "");
		cell(l, 2, LINE_DEFAULT, m);
		free(m);
		n++;
	}
	return n;
}

static enum line_type text_finding_type(const char *s)
{
	while (*s == ' ')
		s++;
	if (str_starts(s, "CRITICAL"))
		return LINE_FINDING_CRITICAL;
	if (str_starts(s, "FAIL") || str_starts(s, "ERROR") || str_starts(s, "exit=1"))
		return LINE_FINDING_ERROR;
	if (str_starts(s, "WARN"))
		return LINE_FINDING_WARN;
	if (str_starts(s, "PASS") || str_starts(s, "OK"))
		return LINE_VERDICT_OK;
	return LINE_DIM;
}

static void build_findings(struct stage *s)
{
	char *jp = path_join(s->dir, "validator.json");
	char *text = read_file(jp, NULL, NULL);
	cJSON *root = text ? cJSON_Parse(text) : NULL;
	free(text);
	free(jp);
	if (root) {
		size_t at = s->n;
		section(s, "Validator findings");
		size_t n = build_findings_json(s, root);
		cJSON_Delete(root);
		free(s->l[at + (at ? 1 : 0)].cell[0]);
		s->l[at + (at ? 1 : 0)].cell[0] = xasprintf("Validator findings (%zu)", n);
		if (!n)
			cell(add(s, S_TEXT, LINE_EMPTY), 0, LINE_EMPTY, "none");
		return;
	}
	char *vp = path_join(s->dir, "validator.txt");
	text = read_file(vp, NULL, NULL);
	section(s, "Validator output (validator.txt)");
	if (!text) {
		cell(add(s, S_TEXT, LINE_EMPTY), 0, LINE_EMPTY, "no validator output for this attempt");
		free(vp);
		return;
	}
	size_t shown = 0;
	for (char *line = text, *nl; line && *line && shown < 200; line = nl ? nl + 1 : NULL, shown++) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		enum line_type t = text_finding_type(line);
		struct sline *l = add(s, S_FINDING, t);
		cell(l, 0, t, line);
		l->path = xstrdup(vp);
		l->line = (long)shown + 1;
	}
	free(text);
	free(vp);
}

/* Findings that name this artifact (by path relative to the run, or by
 * base name). */
static size_t findings_for(struct stage *s, size_t from, const char *rel)
{
	size_t n = 0;
	const char *base = strrchr(rel, '/') ? strrchr(rel, '/') + 1 : rel;
	for (size_t i = from; i < s->n; i++) {
		const struct sline *l = &s->l[i];
		if (l->kind != S_FINDING || !l->cell[1] || !*l->cell[1])
			continue;
		if (l->type != LINE_FINDING_CRITICAL && l->type != LINE_FINDING_ERROR)
			continue;
		const char *loc = l->cell[1];
		size_t k = strcspn(loc, ":");
		if ((strlen(rel) == k && !strncmp(loc, rel, k)) ||
		    (strlen(base) == k && !strncmp(loc, base, k)))
			n++;
	}
	return n;
}

static void artifact_line(struct stage *s, const struct attempt *a, const struct run_artifact *art,
			  size_t findings_at)
{
	struct sline *l = add(s, S_ARTIFACT, LINE_DEFAULT);
	size_t bad = art->exists ? findings_for(s, findings_at, art->rel) : 0;
	const char *glyph, *state;
	enum line_type t;
	char buf[64];
	if (!art->exists) {
		glyph = "\xc2\xb7", state = "missing", t = LINE_ARTIFACT_MISSING;
	} else if (bad) {
		snprintf(buf, sizeof(buf), "%zu finding%s", bad, bad == 1 ? "" : "s");
		glyph = "\xe2\x9c\x97", state = buf, t = LINE_ARTIFACT_FAIL;
	} else if (a->validator == VALIDATOR_PASS) {
		glyph = "\xe2\x9c\x93", state = "validated", t = LINE_ARTIFACT_OK;
	} else if (a->validator == VALIDATOR_FAIL) {
		glyph = "?", state = "present, validator failed", t = LINE_ARTIFACT_FAIL;
	} else if (a->validator == VALIDATOR_DEFERRED) {
		/* the validator ran: only its toolchain checks wait */
		glyph = "\xe2\x9c\x93", state = "validated, toolchain checks deferred", t = LINE_ARTIFACT_OK;
	} else if (a->validator == VALIDATOR_NONE) {
		glyph = "\xe2\x9c\x93", state = "present, no validator for the stage", t = LINE_ARTIFACT_OK;
	} else {
		glyph = "\xe2\x9c\x93", state = "present, not validated", t = LINE_ARTIFACT_OK;
	}
	cell(l, 0, t, glyph);
	cell(l, 1, LINE_DEFAULT, art->rel);
	cell(l, 2, t, state);
	l->path = xstrdup(art->path);
}

static void build_artifacts(struct stage *s, const struct attempt *a, size_t findings_at)
{
	section(s, "Artifacts of stage %c", a->stage);
	struct run_artifact *art;
	size_t n = run_model_artifacts(s->m, a, &art);
	for (size_t i = 0; i < n; i++)
		artifact_line(s, a, &art[i], findings_at);
	if (!n)
		cell(add(s, S_TEXT, LINE_EMPTY), 0, LINE_EMPTY, "the table lists no artifacts");
	run_artifacts_free(art, n);
}

static void build_attempts(struct stage *s, const struct attempt *cur, const struct stage_def *d)
{
	const struct run_state *st = run_model_state(s->m);
	section(s, "Attempts of stage %c", cur->stage);
	for (size_t i = 0; i < st->natt; i++) {
		const struct attempt *a = &st->att[i];
		if (a->stage != cur->stage)
			continue;
		struct sline *l = add(s, S_ATTEMPT, LINE_DEFAULT);
		char mark[8];
		snprintf(mark, sizeof(mark), "%s", a->seq == cur->seq ? "\xe2\x96\xb8" : " ");
		cell(l, 0, LINE_LABEL, mark);
		cell(l, 1, LINE_DEFAULT, a->dir);
		cell(l, 2, verdict_type(d, a->verdict), a->verdict ? a->verdict : a->state == ATTEMPT_RUNNING
								     ? "running" : "-");
		l->seq = a->seq;
	}
}

/* The real compiler's findings (reports/compile.json of B's check of the
 * kernel, compile_lib.json of D's check of the registered op): rustc's and
 * cutile's lines with the kernel's own places. */
static void build_compile(struct stage *s, const struct attempt *a)
{
	if (a->stage != 'B' && a->stage != 'D')
		return;
	char *path = path_join(s->run_dir, a->stage == 'B' ? "reports/compile.json"
							    : "reports/compile_lib.json");
	struct compile_result r;
	struct tp_err err = {0};
	if (!path_is_file(path)) {
		free(path);
		return;
	}
	if (compile_report_load(path, &r, &err) < 0) {
		section(s, "Compiler");
		cell(add(s, S_TEXT, LINE_FINDING_ERROR), 0, LINE_FINDING_ERROR, err.msg);
		free(path);
		return;
	}
	size_t shown = 0;
	for (size_t i = 0; i < r.nf; i++)
		shown += r.f[i].in_op || r.f[i].error;
	char ck[32], lw[32];
	fmt_elapsed(r.check_ms, ck, sizeof(ck));
	fmt_elapsed(r.lower_ms, lw, sizeof(lw));
	section(s, "Compiler: %d error%s, %d warning%s (type check %s%s%s)%s", r.errors,
		r.errors == 1 ? "" : "s", r.warnings, r.warnings == 1 ? "" : "s", ck,
		r.nout ? ", lowering " : "", r.nout ? lw : "",
		r.lowered ? "; lowered to generated/" : "");
	for (size_t i = 0; i < r.nf; i++) {
		const struct compile_finding *f = &r.f[i];
		if (!f->in_op && !f->error)
			continue;
		enum line_type t = f->error ? LINE_FINDING_ERROR : LINE_FINDING_WARN;
		struct sline *l = add(s, S_COMPILE, t);
		char lvl[48];
		snprintf(lvl, sizeof(lvl), "%s%s%s%s", f->error ? "error" : "warning", *f->code ? "[" : "",
			 f->code, *f->code ? "]" : "");
		cell(l, 0, t, lvl);
		if (f->file) {
			char *loc = xasprintf("%s:%d:%d", f->file, f->line, f->col);
			cell(l, 1, LINE_DIM, loc);
			free(loc);
			l->path = f->file[0] == '/' ? xstrdup(f->file) : path_join(s->run_dir, f->file);
			l->line = f->line;
		}
		char *m = xasprintf("%s%s", f->phase == PHASE_LOWER ? "cutile: " : "", f->message);
		cell(l, 2, LINE_DEFAULT, m);
		free(m);
	}
	if (!shown)
		cell(add(s, S_TEXT, LINE_EMPTY), 0, LINE_EMPTY, "no findings");
	compile_result_free(&r);
	free(path);
}

static void build(struct view *v)
{
	struct stage *s = v->priv;
	size_t keep = v->lineno;
	clear(s);
	const struct attempt *a = attempt_of(s);
	if (!a) {
		cell(add(s, S_TEXT, LINE_EMPTY), 0, LINE_EMPTY, "This attempt is not in the run's state");
	} else {
		const struct stage_def *d = table_stage(run_model_table(s->m), a->stage);
		build_record(s, a, d);
		section(s, "Files");
		static const char *const files[] = {"prompt.md", "transcript.jsonl", "stderr.log",
						    "validator.txt", "verdict.json"};
		for (size_t i = 0; i < TP_ARRAY_LEN(files); i++)
			file_line(s, files[i]);
		size_t findings_at = s->n;
		build_findings(s);
		build_compile(s, a);
		build_artifacts(s, a, findings_at);
		build_attempts(s, a, d);
	}
	s->built = now_ms();
	measure(s);
	view_set_lines(v, s->n);
	view_redraw(v);
	if (keep < s->n && keep != v->lineno)
		view_select(v, keep);
}

static void on_change(struct run_model *m, const struct run_change *c, void *ud)
{
	(void)m;
	struct view *v = ud;
	struct stage *s = v->priv;
	/* lines are the transcript's; usage matters for the attempt shown */
	if (c->kind == RUN_OUTPUT || (c->kind == RUN_USAGE && c->attempt->seq != s->seq))
		return;
	build(v);
}

static int stage_open(struct view *v, const struct view_arg *arg, struct tp_err *err)
{
	struct stage *s = v->priv;
	if (!arg->run || !arg->index || !run_model_attempt(arg->run, arg->index)) {
		tp_err_set(err, TP_EXIT_USAGE, "stage view: no attempt given");
		return -1;
	}
	s->m = run_model_ref(arg->run);
	s->seq = arg->index;
	const struct attempt *a = attempt_of(s);
	s->run_dir = xstrdup(run_model_state(s->m)->run_dir);
	s->dir = run_model_attempt_path(s->m, a, NULL);
	v->ref = xstrdup(a->dir);
	run_model_listen(s->m, on_change, v);
	v->ticking = run_model_running(s->m, a);
	build(v);
	return 0;
}

#define WIDEST_PATH 96 /* a column wider would crowd out what follows it */

static int text_width(const char *t)
{
	int w = 0;
	for (const unsigned char *c = (const unsigned char *)t; c && *c; c++)
		w += (*c & 0xc0) != 0x80;
	return w;
}

static void widen(int *w, const char *t, int floor, int ceiling)
{
	int n = text_width(t);
	n = n < floor ? floor : n > ceiling ? ceiling : n;
	if (n > *w)
		*w = n;
}

static void measure(struct stage *s)
{
	s->w_label = 9, s->w_file = 19, s->w_fpath = 27, s->w_art = 42;
	for (size_t i = 0; i < s->n; i++) {
		const struct sline *l = &s->l[i];
		if (l->kind == S_TEXT && l->cell[1])
			widen(&s->w_label, l->cell[0], 9, 16);
		else if (l->kind == S_FILE)
			widen(&s->w_file, l->cell[0], 19, WIDEST_PATH);
		else if (l->kind == S_FINDING && l->cell[1])
			widen(&s->w_fpath, l->cell[1], 27, WIDEST_PATH);
		else if (l->kind == S_ARTIFACT)
			widen(&s->w_art, l->cell[1], 42, WIDEST_PATH);
	}
}

/* A path column as wide as its widest path, but within a share of the
 * screen (never under the old fixed width) so that what follows it shows. */
static int share(int want, int floor, int screen, int part)
{
	int most = screen * part / 10;
	return want < most ? want : most > floor ? most : floor;
}

static bool fixed_width(const struct stage *s, int screen, const struct sline *l, int k, int *w)
{
	switch (l->kind) {
	case S_TEXT:
		*w = k == 0 && l->cell[1] ? s->w_label + 1 : 0;
		return *w > 0;
	case S_FILE:
		*w = k == 0 ? share(s->w_file + 1, 20, screen, 4) : 0;
		return *w > 0;
	case S_FINDING:
		*w = k == 0 && l->cell[1] ? 9 : k == 1 ? share(s->w_fpath + 1, 28, screen, 4) : 0;
		return *w > 0;
	case S_ARTIFACT:
		*w = k == 0 ? 1 : k == 1 ? share(s->w_art + 2, 44, screen, 5) : 0;
		return *w > 0;
	case S_ATTEMPT:
		*w = k == 0 ? 1 : k == 1 ? 10 : 0;
		return *w > 0;
	case S_COMPILE:
		*w = k == 0 ? 14 : k == 1 ? 22 : 0;
		return *w > 0;
	}
	return false;
}

static void stage_line(struct view *v, size_t idx, struct line_out *out)
{
	struct stage *s = v->priv;
	const struct sline *l = &s->l[idx];
	lo_reset(out, l->type);
	if (l->kind != S_TEXT || l->type != LINE_SECTION)
		lo_adds(out, LINE_DEFAULT, "  ");
	for (int k = 0; k < 3; k++) {
		if (!l->cell[k])
			continue;
		int w;
		/* file names and finding paths keep their ends when cut */
		bool path = (l->kind == S_FINDING || l->kind == S_ARTIFACT) ? k == 1 : l->kind == S_FILE;
		if (fixed_width(s, v->width, l, k, &w))
			lo_col(out, l->ctype[k], w, path ? ALIGN_TAIL : ALIGN_LEFT, l->cell[k]);
		else
			lo_adds(out, l->ctype[k], l->cell[k]);
	}
}

static void open_line(struct view *v, const struct sline *l)
{
	struct stage *s = v->priv;
	if (l->kind == S_ATTEMPT) {
		const struct attempt *other = run_model_attempt(s->m, l->seq);
		if (other && l->seq != s->seq)
			attempt_view_open(v, VIEW_STAGE, s->m, other, 0);
		return;
	}
	if (!l->path) {
		view_error(v, "Nothing to open on this line");
		return;
	}
	if (l->kind == S_COMPILE && str_ends(l->path, "/kernel.rs")) {
		/* the kernel's line beside its Python, in the source view */
		struct view_arg arg = {.run = s->m, .line = l->line, .index = SRC_AT_RUST};
		v->host->open(v->host, v, VIEW_SOURCE, &arg, 0);
		return;
	}
	struct stat sb;
	if (stat(l->path, &sb) < 0) {
		view_error(v, "%s does not exist", l->path);
		return;
	}
	bool tx = str_ends(l->path, ".jsonl");
	const struct attempt *a = attempt_of(s);
	bool live = tx && run_model_pipeline(s->m) && run_model_running(s->m, a);
	struct view_arg arg = {.path = l->path, .line = l->line, .name = tx && a ? a->dir : NULL,
			       .run = live ? s->m : NULL, .index = s->seq};
	v->host->open(v->host, v, tx ? VIEW_TRANSCRIPT : VIEW_TEXT, &arg, 0);
}

static bool stage_offers(struct view *v, enum request req)
{
	struct stage *s = v->priv;
	const struct attempt *a = attempt_of(s);
	struct attempt_target t = {.m = s->m, .stage = a ? a->stage : 0, .seq = s->seq};
	return attempt_offers(&t, req);
}

static enum request stage_request(struct view *v, enum request req)
{
	struct stage *s = v->priv;
	switch (req) {
	case REQ_ENTER:
		if (v->lineno < s->n)
			open_line(v, &s->l[v->lineno]);
		return REQ_NONE;
	case REQ_VIEW_TRANSCRIPT: {
		for (size_t i = 0; i < s->n; i++)
			if (s->l[i].kind == S_FILE && str_ends(s->l[i].path, "transcript.jsonl"))
				open_line(v, &s->l[i]);
		return REQ_NONE;
	}
	case REQ_REFRESH:
		build(v);
		return REQ_NONE;
	case REQ_MOVE_NEXT_SECTION:
	case REQ_MOVE_PREV_SECTION: {
		bool next = req == REQ_MOVE_NEXT_SECTION;
		for (size_t i = v->lineno; next ? i + 1 < s->n : i > 0;) {
			i = next ? i + 1 : i - 1;
			if (s->l[i].type == LINE_SECTION) {
				view_select(v, i);
				break;
			}
		}
		return REQ_NONE;
	}
	default:
		break;
	}
	const struct attempt *a = attempt_of(s);
	struct attempt_target t = {.m = s->m, .stage = a ? a->stage : 0, .seq = s->seq};
	enum request r = attempt_request(v, &t, req);
	if (r == REQ_NONE)
		build(v);
	return r;
}

static void stage_tick(struct view *v)
{
	struct stage *s = v->priv;
	if (now_ms() - s->built >= REBUILD_MS)
		build(v);
	v->ticking = run_model_running(s->m, attempt_of(s));
}

static const char *stage_file(struct view *v, long *line)
{
	struct stage *s = v->priv;
	if (v->lineno >= s->n)
		return NULL;
	*line = s->l[v->lineno].line;
	return s->l[v->lineno].path;
}

static void stage_done(struct view *v)
{
	struct stage *s = v->priv;
	clear(s);
	free(s->l);
	if (s->m) {
		run_model_unlisten(s->m, on_change, v);
		run_model_free(s->m);
	}
	free(s->run_dir);
	free(s->dir);
}

const struct view_ops stage_view_ops = {
	.type = "stage",
	.private_size = sizeof(struct stage),
	.open = stage_open,
	.line = stage_line,
	.request = stage_request,
	.offers = stage_offers,
	.tick = stage_tick,
	.file = stage_file,
	.done = stage_done,
};
