/* The mech driver: the transcript, the validator block, stage A, the
 * choice of what mech handles, and its hooks in the driver registry
 * (engine/agents/drivers.def). Stages B and D are in mech_bd.c. */
#include "engine/agents/mech_int.h"

#include <cJSON.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "engine/agents/agent.h"
#include "engine/base/files.h"
#include "engine/base/proc.h"

void mech_say(struct mech_run *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = xvasprintf(fmt, ap);
	va_end(ap);
	rec_text(r->rec, s);
	sb_printf(&r->log, "- %s\n", s);
	free(s);
}

static int write_under(struct mech_run *r, const char *root, const char *rel, const char *text,
		       struct tp_err *err)
{
	char *path = path_join(root, rel);
	char *dir = xstrdup(path);
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	int rc = mkdir_p(dir, 0755, err);
	if (rc == 0)
		rc = write_file_atomic(path, text, strlen(text), err);
	if (rc == 0)
		sb_printf(&r->log, "- wrote %s (%zu bytes)\n", path, strlen(text));
	free(dir);
	free(path);
	return rc;
}

int mech_write(struct mech_run *r, const char *rel, const char *text, struct tp_err *err)
{
	return write_under(r, r->c->run_dir, rel, text, err);
}

int mech_write_ws(struct mech_run *r, const char *rel, const char *text, struct tp_err *err)
{
	return write_under(r, r->c->workspace, rel, text, err);
}

int mech_tool(struct mech_run *r, const char *const *args)
{
	size_t n = 0;
	while (args[n])
		n++;
	char **argv = xcalloc(n + 2, sizeof(*argv));
	argv[0] = xstrdup(r->c->bin);
	for (size_t i = 0; i < n; i++)
		argv[i + 1] = xstrdup(args[i]);
	char **shown = xcalloc(n + 2, sizeof(*shown));
	shown[0] = xstrdup("tileport");
	for (size_t i = 0; i < n; i++)
		shown[i + 1] = xstrdup(args[i]);
	char *cmd = argv_quote(shown);
	strv_free(shown);
	char **env = env_current();
	env_set(&env, "TILEGYM_PATH", r->c->workspace);
	/* the compile check can wait on a shared cache and a loaded machine:
	 * 120 s by default, TILEPORT_MECH_TIMEOUT seconds where that is short */
	const char *tv = getenv("TILEPORT_MECH_TIMEOUT");
	long secs = tv && *tv ? strtol(tv, NULL, 10) : 0;
	int timeout_ms = secs > 0 && secs < 86400 ? (int)secs * 1000 : 120000;
	struct proc_opts o = {.argv = argv, .env = env, .cwd = r->c->workspace, .timeout_ms = timeout_ms};
	struct sbuf out = SBUF_INIT, errout = SBUF_INIT;
	struct proc_status st;
	struct tp_err err = {0};
	int code;
	if (proc_run_sync(&o, &out, &errout, &st, &err) < 0 || st.end != PROC_EXITED) {
		char why[128];
		proc_status_str(&st, why, sizeof(why));
		sb_printf(&errout, "%s\n", err.msg[0] ? err.msg : why);
		/* 124 as timeout(1) says it: a limit, not a command that is missing */
		code = st.end == PROC_TIMED_OUT ? 124 : 127;
		if (code == 124)
			sb_printf(&errout, "stopped after %d s (TILEPORT_MECH_TIMEOUT=SECONDS sets the limit)\n",
				  timeout_ms / 1000);
	} else {
		code = st.code;
	}
	sb_printf(&r->block, "$ %s 2>&1\n%s%s", cmd, sb_str(&out), sb_str(&errout));
	if (r->block.len && r->block.buf[r->block.len - 1] != '\n')
		sb_addc(&r->block, '\n');
	sb_printf(&r->block, "exit=%d\n", code);
	sb_printf(&r->log, "- ran `%s`: exit %d\n", cmd, code);
	cJSON *input = cJSON_CreateObject();
	cJSON_AddStringToObject(input, "command", cmd);
	char *input_json = cJSON_PrintUnformatted(input);
	cJSON_Delete(input);
	char *id = xasprintf("mech-%d", ++r->ntools);
	rec_tool_call(r->rec, id, "run", input_json);
	char *output = xasprintf("%s%sexit=%d", sb_str(&out), sb_str(&errout), code);
	rec_tool_result(r->rec, id, output, code != 0);
	free(output);
	free(id);
	cJSON_free(input_json);
	if (code != 0)
		r->nonzero++;
	sb_free(&out);
	sb_free(&errout);
	free(cmd);
	strv_free(env);
	strv_free(argv);
	return code;
}

int mech_log_flush(struct mech_run *r, struct tp_err *err)
{
	char *rel = xasprintf("reports/agent_logs/agent_%c.md", r->c->stage + ('a' - 'A'));
	char *path = path_join(r->c->run_dir, rel);
	char *dir = xstrdup(path);
	*strrchr(dir, '/') = '\0';
	int rc = mkdir_p(dir, 0755, err);
	if (rc == 0)
		rc = write_file_atomic(path, r->log.buf ? r->log.buf : "", r->log.len, err);
	free(dir);
	free(path);
	free(rel);
	return rc;
}

void mech_final(struct mech_run *r, const char *verdict, const char *unsupported)
{
	struct sbuf f = SBUF_INIT;
	if (unsupported)
		sb_printf(&f, "unsupported: %s\n", unsupported);
	if (unsupported && r->handover)
		sb_adds(&f, r->handover);
	if (r->c->offline && r->deferred && *r->deferred &&
	    (strcmp(verdict, "DEFERRED") == 0 || strcmp(verdict, "COMPILED") == 0))
		sb_printf(&f, "deferred: %s\n", r->deferred);
	sb_printf(&f, "<VALIDATOR_OUTPUT>\n%s</VALIDATOR_OUTPUT>\nVERDICT: %s", sb_str(&r->block),
		  verdict);
	rec_usage(r->rec, &(struct usage){.model = "none"});
	rec_final(r->rec, sb_str(&f));
	sb_free(&f);
}

/* "FILE:LINE:COL: unsupported: X" -> "FILE:LINE:COL: X" for the
 * `unsupported:` line of a chain hand-over. */
char *mech_refusal(const char *msg)
{
	const char *u = strstr(msg, ": unsupported: ");
	if (!u)
		return xstrdup(msg);
	return xasprintf("%.*s: %s", (int)(u - msg), msg, u + strlen(": unsupported: "));
}

/* ---- what mech handles ---- */

bool mech_handles(char stage, const char *op, const char *workspace, char **why)
{
	if (why)
		*why = NULL;
	if (stage != 'A' && stage != 'B' && stage != 'D') {
		if (why)
			*why = xasprintf("stage %c needs measurements or diagnosis, not translation", stage);
		return false;
	}
	char *rel = port_source_of(workspace, op);
	if (!rel) {
		if (why)
			*why = xasprintf("no src/tilegym/ops/cutile/%s.py or ops/triton/%s.py", op, op);
		return false;
	}
	struct port_op *p = NULL;
	struct tp_err err = {0};
	/* A and B take an operator whose kernels partly translate (B writes
	 * those and hands the rest over); D needs every kernel's host code */
	bool ok = (stage == 'D' ? port_open_in(workspace, rel, NULL, op, &p, &err)
				: port_open_in_partial(workspace, rel, op, &p, &err)) == 0;
	if (ok && stage == 'D') {
		char *ffi = NULL;
		ok = port_ffi_rs(p, &ffi, &err) == 0;
		free(ffi);
		char *w = NULL;
		ok = ok && port_wrapper_py_in(p, workspace, rel, &w, &err) == 0;
		free(w);
	}
	port_close(p);
	if (!ok && why)
		*why = xstrdup(err.msg);
	free(rel);
	return ok;
}

/* ---- stage A ---- */

static int stage_a(struct mech_run *r, struct tp_err *err)
{
	const struct mech_ctx *c = r->c;
	r->deferred = "reference-ir, perf-log";
	char *json = NULL;
	struct tp_err aerr = {0};
	mech_say(r, "reading %s and tests/ops/test_%s.py", r->source_rel, c->op);
	if (port_analyze_workspace(c->workspace, c->op, !c->offline, &json, &aerr) < 0) {
		const char *args[] = {"analyze", c->op, "--print", NULL};
		mech_tool(r, args);
		char *u = mech_refusal(aerr.msg);
		mech_final(r, "FAIL_FIXABLE", u);
		free(u);
		return 0;
	}
	if (mech_write(r, "reference/analysis.json", json, err) < 0) {
		free(json);
		return -1;
	}
	cJSON *a = cJSON_Parse(json);
	free(json);
	const cJSON *vars = cJSON_GetObjectItemCaseSensitive(a, "kernel_variants");
	struct sbuf rep = SBUF_INIT;
	sb_printf(&rep, "# Agent A Report - %s\n\nWritten by tileport mech (offline: no model, no "
			"tokens).\n\n## Sources read\n- %s\n- tests/ops/test_%s.py\n\n",
		  c->op, r->source_rel, c->op);
	const cJSON *cls = cJSON_GetObjectItemCaseSensitive(a, "test_class");
	sb_printf(&rep, "## Test class and configs\n- class: %s\n",
		  cJSON_IsString(cls) ? cls->valuestring : "?");
	const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(a, "test_perf_configs");
	for (const cJSON *k = cfg ? cfg->child : NULL; k; k = k->next) {
		char *v = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(k, "shapes"));
		sb_printf(&rep, "- test_perf `%s`: %s\n", k->string, v);
		cJSON_free(v);
	}
	sb_adds(&rep, "\n## Benchmark commands and the geomean selection\nDeferred: no GPU. "
		      "`tileport resume RUN --online` measures both backends.\n\n"
		      "## Variants and dispatch conditions\n");
	for (const cJSON *v = vars ? vars->child : NULL; v; v = v->next)
		sb_printf(&rep, "- `%s` (%s): %s\n",
			  cJSON_GetObjectItemCaseSensitive(v, "variant_name")->valuestring,
			  cJSON_GetObjectItemCaseSensitive(v, "rust_entry")->valuestring,
			  cJSON_GetObjectItemCaseSensitive(v, "dispatch_condition")->valuestring);
	struct sbuf dump = SBUF_INIT;
	bool have_ir = mech_refir(r, &dump); /* reference IR offline: docs/refir.md */
	r->deferred = have_ir ? "perf-log" : "reference-ir, perf-log";
	const cJSON *left = cJSON_GetObjectItemCaseSensitive(a, "untranslated_kernels");
	if (cJSON_GetArraySize(left) > 0) {
		sb_adds(&rep, "\n## Kernels the translator refuses\nTheir variants are not analysed "
			      "here; stage B translates the others and hands these over:\n");
		for (const cJSON *u = left->child; u; u = u->next)
			sb_printf(&rep, "- `%s` at %s: %s\n",
				  cJSON_GetObjectItemCaseSensitive(u, "kernel_function")->valuestring,
				  cJSON_GetObjectItemCaseSensitive(u, "where")->valuestring,
				  cJSON_GetObjectItemCaseSensitive(u, "construct")->valuestring);
	}
	sb_printf(&rep, "\n## Supplements\nNone.\n\n## Dump commands and files\n%s\n## Entry "
			"symbols and any alias proof\nNo alias repair: it needs the dumped IR.\n\n"
			"## Analysis summary\nSee reference/analysis.json.\n", sb_str(&dump));
	sb_free(&dump);
	cJSON_Delete(a);
	if (mech_log_flush(r, err) < 0)
		return -1;
	const char *args[] = {"validate", "analysis", c->op, "--run", c->run_dir, "--deferred",
			      have_ir ? "perf-log" : "reference-ir,perf-log", NULL};
	int vrc = mech_tool(r, args);
	sb_printf(&rep, "\n## Validator output\n```\n%s```\n", sb_str(&r->block));
	int rc = mech_write(r, "reports/agent_a.md", sb_str(&rep), err);
	sb_free(&rep);
	if (rc < 0)
		return -1;
	const char *verdict = vrc != 0 ? "FAIL_FIXABLE" : c->offline ? "DEFERRED" : "PASS";
	mech_final(r, verdict, NULL);
	return 0;
}

int mech_run(const struct mech_ctx *c, struct recorder *rec, struct tp_err *err)
{
	struct mech_run r = {.c = c, .rec = rec};
	rec_start(rec, "mech", "none", TILEPORT_VERSION);
	r.source_rel = port_source_of(c->workspace, c->op);
	sb_printf(&r.log, "# Agent %c log - %s (tileport mech)\n\n- workspace: %s\n- run: %s\n- "
			  "offline: %s\n",
		  c->stage, c->op, c->workspace, c->run_dir, c->offline ? "yes" : "no");
	int rc = 0;
	if (!r.source_rel) {
		char *u = xasprintf("%s: no src/tilegym/ops/cutile/%s.py or ops/triton/%s.py",
				    c->workspace, c->op, c->op);
		mech_final(&r, c->stage == 'D' ? "FAIL" : "FAIL_FIXABLE", u);
		free(u);
	} else if (!c->offline) {
		const char *v = c->stage == 'D' ? "FAIL" : c->stage == 'B' ? "FAIL_COMPILE" : "FAIL_FIXABLE";
		mech_final(&r, v,
			   "the toolchain is present: dumping IR, building and testing need an agent "
			   "driver");
	} else if (c->stage == 'A') {
		rc = stage_a(&r, err);
	} else if (c->stage == 'B') {
		rc = mech_stage_b(&r, err);
	} else if (c->stage == 'D') {
		rc = mech_stage_d(&r, err);
	} else {
		tp_err_set(err, TP_EXIT_USAGE, "mech: no stage %c (A, B or D)", c->stage);
		rc = -1;
	}
	struct tp_err lerr = {0};
	if (rc == 0 && r.source_rel && mech_log_flush(&r, &lerr) < 0) {
		tp_err_set(err, lerr.code, "%s", lerr.msg);
		rc = -1;
	}
	sb_free(&r.block);
	sb_free(&r.log);
	free(r.source_rel);
	free(r.handover);
	return rc;
}

/* ---- the registry's hooks ---- */

void mech_probe(const struct agent_probe *q, struct driver_status *st)
{
	memset(st, 0, sizeof(*st));
	st->available = true;
	st->path = xstrdup("built in");
	if (q->version)
		st->version = xstrdup(TILEPORT_VERSION);
	st->why = xstrdup("stages A, B and D offline, for the operators it translates (docs/mech.md)");
}

/* Online, the stages dump IR, build and test: mech would only hand over,
 * so it is not a default there. */
bool mech_stage_handles(const struct agent_probe *q, char stage, const char *op,
			const char *workspace, char **why)
{
	if (why)
		*why = NULL;
	return q->offline && op && workspace && mech_handles(stage, op, workspace, why);
}

int mech_stage_run(struct agent_ctx *ctx)
{
	char *self = tp_self_exe();
	struct mech_ctx c = {.stage = ctx->stage, .op = ctx->op, .run_dir = ctx->run_dir,
			     .workspace = ctx->workspace, .offline = ctx->offline,
			     .bin = self ? self : "tileport"};
	struct tp_err err = {0};
	int rc = mech_run(&c, ctx->rec, &err);
	free(self);
	if (rc < 0) {
		rec_error(ctx->rec, "%s", err.msg);
		rec_final(ctx->rec, "");
		return err.code ? err.code : TP_EXIT_FAILED;
	}
	return TP_EXIT_OK;
}
