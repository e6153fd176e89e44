/* One attempt of a stage: the step that starts the next one, the spawn
 * through its driver, the streamed transcript, then the acceptance gate,
 * the orchestrator's own validator and the owner class (pipeline_owner.c),
 * and routing (pipeline_route.c) to decide what comes next. The loop's step timer is
 * the only way back to the top of this cycle. */
#include "engine/core/pipeline_int.h"

#include <fcntl.h>
#include <dirent.h>
#include <glob.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/core/driver.h"
#include "engine/core/files.h"
#include "engine/core/prompt.h"

static void step(struct loop *l, void *ud);
static int spawn(struct pipeline *p, struct attempt *a, const char *repair_reason,
		 const char *validator_notes);





static void notify_line(struct pipeline *p, const char *line, size_t n, bool is_stderr)
{
	struct attempt *a = pl_cur(p);
	struct pipeline_event e = {PEV_OUTPUT, NULL, line, n, is_stderr, a ? a->seq : 0,
				   a ? a->stage : 0};
	pl_notify(p, &e);
}

static void on_line(const char *line, size_t n, void *ud)
{
	notify_line(ud, line, n, false);
}

/* How often a live attempt's usage reaches state.json (for screens that
 * follow the run from disk); listeners hear of every change. */
#define METER_SAVE_MS 2000

static void meter(struct pipeline *p)
{
	struct attempt *a = pl_cur(p);
	long long tin = transcript_tokens_in(p->tr), tout = transcript_tokens_out(p->tr);
	double cost = transcript_cost(p->tr);
	if (!a || (tin == a->tokens_in && tout == a->tokens_out && cost == a->cost))
		return;
	a->tokens_in = tin;
	a->tokens_out = tout;
	a->cost = cost;
	struct pipeline_event e = {.kind = PEV_METER, .seq = a->seq, .stage = a->stage};
	for (size_t i = 0; i < p->nls; i++)
		p->ls[i].fn(p, &e, p->ls[i].ud);
	if (now_ms() - p->meter_saved >= METER_SAVE_MS) {
		p->meter_saved = now_ms();
		pl_save(p);
	}
}

static void on_stdout(struct proc *pr, const char *data, size_t n, void *ud)
{
	struct pipeline *p = ud;
	(void)pr;
	transcript_feed(p->tr, data, n, p->nls ? on_line : NULL, p);
	meter(p);
}

/* The last few lines a stage wrote on stderr: when it fails, the reason is
 * usually there, and the event and the screen show it. */
#define ERRTAIL_LINES 5
#define ERRTAIL_BYTES 1000

static void errtail_add(struct sbuf *t, const char *line, size_t n)
{
	sb_printf(t, "%.*s\n", (int)(n < ERRTAIL_BYTES ? n : ERRTAIL_BYTES), line);
	size_t lines = 0;
	for (size_t i = 0; i < t->len; i++)
		lines += t->buf[i] == '\n';
	while (lines > ERRTAIL_LINES || t->len > ERRTAIL_BYTES) {
		char *nl = memchr(t->buf, '\n', t->len);
		size_t cut = nl ? (size_t)(nl - t->buf) + 1 : t->len;
		memmove(t->buf, t->buf + cut, t->len - cut + 1);
		t->len -= cut;
		lines--;
	}
}

/* stderr.log is written line by line; its bytes were redacted before they
 * were cut into lines (p->errred). */
static void err_line(const char *line, size_t n, void *ud)
{
	struct pipeline *p = ud;
	errtail_add(&p->errtail, line, n);
	fwrite(line, 1, n, p->errlog);
	fputc('\n', p->errlog);
	notify_line(p, line, n, true);
}

static void on_stderr(struct proc *pr, const char *data, size_t n, void *ud)
{
	struct pipeline *p = ud;
	(void)pr;
	struct sbuf clean = SBUF_INIT;
	redact_stream_feed(&p->errred, data, n, &clean);
	lines_feed(&p->errlines, clean.buf ? clean.buf : "", clean.len, err_line, p);
	sb_free(&clean);
	fflush(p->errlog);
}

static void write_in(const char *dir, const char *name, const char *text)
{
	char *path = path_join(dir, name);
	write_file(path, text, strlen(text), NULL);
	free(path);
}

static void after_validator(struct pipeline *p, struct attempt *a, bool failed);
static void after_gate(struct pipeline *p, struct attempt *a, struct verdict_reply *r,
		       const struct gate_result *g);

static void judge(struct pipeline *p, struct attempt *a, char *text, const struct proc_status *st,
		  const char *driver);

static bool killed_from_outside(const struct proc_status *st)
{
	/* by the signal itself, or a shell's 128+N for its child's */
	int s = st->end == PROC_SIGNALED ? st->signo
		: st->end == PROC_EXITED && st->code > 128 ? st->code - 128 : 0;
	return s == SIGTERM || s == SIGKILL || s == SIGINT || s == SIGHUP;
}

/* The last line of an agent's stderr tail (NULL for none). */
static const char *last_line(const char *tail)
{
	const char *nl = tail ? strrchr(tail, '\n') : NULL;
	return nl ? nl + 1 : tail;
}

void pl_rerun(struct pipeline *p, struct attempt *a)
{
	p->rerun_seq = a->seq;
	pl_set(&a->exit, NULL);
	pl_set(&a->claimed, NULL);
	pl_set(&a->verdict, NULL);
	pl_set(&a->refusal, NULL);
	pl_set(&a->refused_by, NULL);
}

static void on_exit_cb(struct proc *pr, const struct proc_status *st, void *ud)
{
	struct pipeline *p = ud;
	(void)pr;
	struct attempt *a = pl_cur(p);
	tp_crashpoint();
	transcript_finish(p->tr, p->nls ? on_line : NULL, p);
	char exitbuf[128];
	proc_status_str(st, exitbuf, sizeof(exitbuf));
	pl_set(&a->exit, p->aborting ? "aborted by hand" : exitbuf);
	a->ended = wall_ms();
	a->tokens_in = transcript_tokens_in(p->tr);
	a->tokens_out = transcript_tokens_out(p->tr);
	a->cost = transcript_cost(p->tr);
	char *text = xstrdup(transcript_final(p->tr));
	const char *spoke = transcript_driver(p->tr);
	char *driver = spoke ? xstrdup(spoke) : NULL;
	struct sbuf rest = SBUF_INIT;
	redact_stream_flush(&p->errred, &rest);
	lines_feed(&p->errlines, rest.buf ? rest.buf : "", rest.len, err_line, p);
	sb_free(&rest);
	lines_flush(&p->errlines, err_line, p);
	pl_stage_outputs_done(p, a);
	transcript_close(p->tr);
	p->tr = NULL;
	fclose(p->errlog);
	p->errlog = NULL;
	struct proc *done = p->proc;
	p->proc = NULL;

	bool failed = st->end != PROC_EXITED || st->code != 0;
	pl_set(&a->stderr_tail, NULL);
	if (failed && p->errtail.len) {
		p->errtail.buf[--p->errtail.len] = '\0'; /* the last newline */
		pl_set(&a->stderr_tail, p->errtail.buf);
	}
	cJSON *f = pl_attempt_fields(a);
	cJSON_AddStringToObject(f, "exit", a->exit);
	cJSON_AddNumberToObject(f, "elapsed_ms", (double)st->elapsed_ms);
	if (a->stderr_tail)
		cJSON_AddStringToObject(f, "stderr", a->stderr_tail);
	const char *last = last_line(a->stderr_tail);
	pl_emit(p, "stage_ended", f, "%c%d ended: %s%s%s", a->stage, a->n, a->exit, last ? "; stderr: " : "",
		last ? last : "");
	proc_free(done);

	if (p->aborting) {
		free(text);
		free(driver);
		pl_aborted(p);
		return;
	}
	if (killed_from_outside(st) && p->outside_seq != a->seq) {
		/* A reply cut short says nothing about the stage, and whatever
		 * killed it may be stopping this tileport too (Slurm ends a job
		 * by signalling every process of it): no judging, no repair; the
		 * attempt runs again under its number, as resume would run it, and
		 * if this process is stopped meanwhile it is still to run. Once:
		 * an agent killed every time (out of memory) is judged. */
		free(text);
		free(driver);
		p->outside_seq = a->seq;
		pl_rerun(p, a);
		pl_save(p);
		pl_schedule(p);
		return;
	}
	judge(p, a, text, st, driver);
	free(driver);
}

static void judge(struct pipeline *p, struct attempt *a, char *text, const struct proc_status *st,
		  const char *driver)
{
	const struct stage_def *s = table_stage(p->table, a->stage);
	char **vocab = xcalloc(strv_len(s->verdicts) + 2, sizeof(char *));
	size_t nv = 0;
	for (size_t i = 0; s->verdicts[i]; i++)
		vocab[nv++] = s->verdicts[i];
	if (p->st.offline && s->deferrable)
		vocab[nv++] = "DEFERRED";
	struct verdict_reply r;
	verdict_parse(text, strlen(text), vocab, &r);
	free(vocab);
	if (!r.verdict && st->end == PROC_EXITED && (st->code == 126 || st->code == 127)) {
		/* The shell could not run the command: a repair retry would only
		 * fail the same way. */
		verdict_reply_free(&r);
		free(text);
		const char *last = last_line(a->stderr_tail);
		char *why = xasprintf("%c%d's driver command could not start (exit %d: %s)%s%s", a->stage,
				      a->n, st->code, st->code == 127 ? "command not found" : "not executable",
				      last ? ": " : "", last ? last : "");
		pl_stop_attempt(p, a, "the driver command could not start", why, NULL);
		free(why);
		return;
	}
	struct gate_result g;
	verdict_gate(p->table, s, &r, text, p->st.offline, &g);
	pl_note_refusal(p, a, text, r.verdict, driver);
	pl_refusal_gate(a, &g);
	free(text);
	after_gate(p, a, &r, &g);
	verdict_reply_free(&r);
}

static void write_verdict_json(struct pipeline *p, struct attempt *a, const struct verdict_reply *r,
			       const struct gate_result *g)
{
	cJSON *o = cJSON_CreateObject();
	if (r->verdict)
		cJSON_AddStringToObject(o, "verdict", r->verdict);
	cJSON_AddBoolToObject(o, "enumerated", r->enumerated);
	cJSON_AddNumberToObject(o, "verdict_line", r->verdict_line);
	cJSON_AddBoolToObject(o, "trailing_text", r->trailing_text);
	cJSON_AddBoolToObject(o, "block", r->has_block);
	cJSON_AddBoolToObject(o, "block_closed", r->block_closed);
	cJSON *cmds = cJSON_AddArrayToObject(o, "commands");
	for (size_t i = 0; i < r->ncmds; i++) {
		cJSON *c = cJSON_CreateObject();
		if (r->cmds[i].command)
			cJSON_AddStringToObject(c, "command", r->cmds[i].command);
		if (r->cmds[i].has_exit)
			cJSON_AddNumberToObject(c, "exit", r->cmds[i].exit);
		cJSON_AddItemToArray(cmds, c);
	}
	if (r->has_perf_log) {
		cJSON *perf = cJSON_AddObjectToObject(o, "perf_log");
		for (size_t i = 0; i < r->nperf; i++)
			cJSON_AddStringToObject(perf, r->perf[i].key, r->perf[i].value);
	}
	if (r->deferred) {
		cJSON *d = cJSON_AddArrayToObject(o, "deferred");
		for (size_t i = 0; r->deferred[i]; i++)
			cJSON_AddItemToArray(d, cJSON_CreateString(r->deferred[i]));
	}
	cJSON_AddStringToObject(o, "gate", gate_outcome_name(g->outcome));
	cJSON_AddStringToObject(o, "gate_reason", g->reason);
	char *s = cJSON_Print(o);
	cJSON_Delete(o);
	char *dir = run_attempt_dir(&p->st, a);
	write_in(dir, "verdict.json", s);
	free(dir);
	cJSON_free(s);
}

static bool repair_left(struct pipeline *p, char letter)
{
	return p->st.repairs[stage_slot(letter)] < p->table->repairs_per_letter;
}

static void schedule_repair(struct pipeline *p, struct attempt *a, const char *reason)
{
	p->st.repairs[stage_slot(a->stage)]++;
	a->state = ATTEMPT_DONE;
	pl_set(&a->action, "repair");
	pl_set(&a->note, reason);
	p->st.next = (struct run_next){.set = true, .stage = a->stage, .repair = true};
	pl_save(p);
	cJSON *f = pl_attempt_fields(a);
	cJSON_AddStringToObject(f, "reason", reason);
	pl_emit(p, "repair_scheduled", f, "%c%d: repair retry (once per letter): %s", a->stage, a->n,
		reason);
	pl_schedule(p);
}

/* The verdict to route on when neither the reply nor its repair gave a
 * usable one: the table's validator_fail_verdict, else the first failure. */
static const char *fallback_verdict(const struct stage_def *s)
{
	if (s->validator_fail_verdict)
		return s->validator_fail_verdict;
	for (size_t i = 0; s->verdicts[i]; i++)
		if (!stage_is_success(s, s->verdicts[i]))
			return s->verdicts[i];
	return s->verdicts[0];
}

static void after_gate(struct pipeline *p, struct attempt *a, struct verdict_reply *r,
		       const struct gate_result *g)
{
	const struct stage_def *s = table_stage(p->table, a->stage);
	write_verdict_json(p, a, r, g);
	pl_set(&a->claimed, r->verdict);
	pl_set(&a->gate_reason, g->reason);
	if (r->deferred) {
		strv_free(a->deferred);
		size_t n = strv_len(r->deferred);
		a->deferred = xcalloc(n + 1, sizeof(char *));
		for (size_t i = 0; i < n; i++)
			a->deferred[i] = xstrdup(r->deferred[i]);
	}
	cJSON *f = pl_attempt_fields(a);
	if (r->verdict)
		cJSON_AddStringToObject(f, "claimed", r->verdict);
	cJSON_AddStringToObject(f, "gate", gate_outcome_name(g->outcome));
	cJSON_AddStringToObject(f, "reason", g->reason);
	if (a->refusal)
		cJSON_AddStringToObject(f, "refusal", a->refusal);
	if (a->refused_by)
		cJSON_AddStringToObject(f, "refused_by", a->refused_by);
	pl_emit(p, "verdict_read", f, "%c%d returned %s; gate: %s (%s)%s%s", a->stage, a->n,
		r->verdict ? r->verdict : "no verdict", gate_outcome_name(g->outcome), g->reason,
		!a->refusal ? "" : str_starts(a->refusal, "FAIL [") ? "; " : "; unsupported: ",
		a->refusal ? a->refusal : "");

	if (g->outcome == GATE_REPAIR) {
		if (repair_left(p, a->stage)) {
			schedule_repair(p, a, g->reason);
			return;
		}
		attempt_add_soft(a, "SOFT_VALIDATOR_FAILED");
		a->gate = GATE_SOFT_FAILED;
		bool usable = r->verdict && stage_has_verdict(s, r->verdict, p->st.offline);
		pl_set(&a->verdict, usable ? r->verdict : fallback_verdict(s));
		pl_emit(p, "soft_marker", pl_attempt_fields(a),
			"%c%d: SOFT_VALIDATOR_FAILED (repair spent); routing on %s", a->stage, a->n,
			a->verdict);
	} else {
		a->gate = g->outcome;
		pl_set(&a->verdict, r->verdict);
		if (g->outcome == GATE_ACCEPT_SOFT_MISSING) {
			attempt_add_soft(a, "SOFT_VALIDATOR_MISSING");
			pl_emit(p, "soft_marker", pl_attempt_fields(a),
				"%c%d: SOFT_VALIDATOR_MISSING (no validator block; clean %s accepted)",
				a->stage, a->n, a->verdict);
		}
	}
	/* From here a resume validates and routes this reply; it never runs
	 * the agent again. */
	a->state = ATTEMPT_JUDGED;
	pl_save(p);
	tp_crashpoint_at("judged");
	pl_validate(p, a, false);
}

/* ---- the orchestrator's own validator ---- */

static void validator_done(struct pipeline *p, struct attempt *a, int code, const char *out,
			   const char *summary, const char *findings, bool manual);

static void on_vout(struct proc *pr, const char *d, size_t n, void *ud)
{
	(void)pr;
	sb_add(&((struct pipeline *)ud)->vout, d, n);
}

static void on_vexit(struct proc *pr, const struct proc_status *st, void *ud)
{
	struct pipeline *p = ud;
	(void)pr;
	struct proc *done = p->vproc;
	p->vproc = NULL;
	proc_free(done);
	char *out = sb_detach(&p->vout);
	if (p->aborting) {
		/* Stopping a re-validation by hand leaves the run as it was. */
		free(out);
		if (p->vmanual)
			p->aborting = false;
		else
			pl_aborted(p);
		return;
	}
	int code = st->end == PROC_EXITED ? st->code : 1;
	validator_done(p, run_attempt_by_seq(&p->st, p->vseq), code, out, NULL, NULL, p->vmanual);
	free(out);
}

/* What the toolchain still owes when `a` is checked. Offline, a step that an
 * earlier stage deferred is still missing (B cannot have the reference IR A
 * deferred), so the deferred steps of the whole offline run add up. */
static char **owed_steps(struct pipeline *p, const struct attempt *a)
{
	struct sbuf sb = SBUF_INIT;
	for (size_t i = 0; p->st.offline && i < p->st.natt; i++) {
		const struct attempt *o = &p->st.att[i];
		if (o != a && o->verdict && strcmp(o->verdict, "DEFERRED") == 0)
			for (size_t k = 0; o->deferred && o->deferred[k]; k++)
				sb_printf(&sb, "%s,", o->deferred[k]);
	}
	for (size_t k = 0; a->deferred && a->deferred[k]; k++)
		sb_printf(&sb, "%s,", a->deferred[k]);
	char **v = str_split(sb_str(&sb), ',', false, NULL);
	sb_free(&sb);
	return v;
}

static char **stage_env(struct pipeline *p, const struct attempt *a)
{
	char **env = env_current();
	char l[2] = {a->stage, 0}, n[16], seq[16];
	snprintf(n, sizeof(n), "%d", a->n);
	snprintf(seq, sizeof(seq), "%d", a->seq);
	env_set(&env, "TILEPORT_STAGE", l);
	env_set(&env, "TILEPORT_ATTEMPT", n);
	env_set(&env, "TILEPORT_SEQ", seq);
	env_set(&env, "TILEPORT_OP", p->st.op);
	env_set(&env, "TILEPORT_RUN_DIR", p->st.run_dir);
	env_set(&env, "TILEPORT_SKILL_DIR", p->skill_dir);
	env_set(&env, "TILEGYM_PATH", p->st.workspace);
	env_set(&env, "CUTILE_KERNEL_OUT_ROOT", p->st.out_root);
	char *adir = run_attempt_dir(&p->st, a);
	env_set(&env, "TILEPORT_ATTEMPT_DIR", adir);
	char *prompt = path_join(adir, "prompt.md");
	env_set(&env, "TILEPORT_PROMPT", prompt);
	free(prompt);
	free(adir);
	env_set(&env, "TILEPORT_REPAIR", a->repair ? "1" : "0");
	/* `tileport validate` in a stage must be this tileport, not whatever
	 * else is on PATH (skill/scripts use TILEPORT_BIN first). */
	char *self = tp_self_exe();
	if (self) {
		env_set(&env, "TILEPORT_BIN", self);
		const char *path = env_get(env, "PATH");
		char *np = xasprintf("%.*s%s%s", (int)(strrchr(self, '/') - self), self, path ? ":" : "",
				     path ? path : "");
		env_set(&env, "PATH", np);
		free(np);
		free(self);
	}
	if (p->st.offline) {
		env_set(&env, "TILEPORT_OFFLINE", "1");
		char *miss = strv_join(p->st.missing, ",");
		env_set(&env, "TILEPORT_MISSING", miss);
		free(miss);
		/* what earlier stages deferred: `tileport validate` in the stage
		 * reports it deferred, as the orchestrator's own check does */
		char **owed = owed_steps(p, a);
		char *list = strv_join(owed, ",");
		env_set(&env, "TILEPORT_DEFERRED", list);
		free(list);
		strv_free(owed);
	} else {
		env_unset(&env, "TILEPORT_OFFLINE");
		env_unset(&env, "TILEPORT_MISSING");
		env_unset(&env, "TILEPORT_DEFERRED");
	}
	return env;
}

void pl_validate(struct pipeline *p, struct attempt *a, bool manual)
{
	const struct stage_def *s = table_stage(p->table, a->stage);
	const char *cmd = p->st.validators[stage_slot(a->stage)];
	if (!cmd)
		cmd = s->validator;
	if (!cmd || strcmp(cmd, "none") == 0) {
		validator_done(p, a, -2, "no validator configured for this stage\n", NULL, NULL, manual);
		return;
	}
	if (strcmp(cmd, "builtin") == 0) {
		if (!p->checker) {
			validator_done(p, a, -1, "built-in validators are not available in this build\n", NULL, NULL,
				       manual);
			return;
		}
		char **deferred = owed_steps(p, a);
		struct check_request rq = {p->st.op, p->st.run_dir, p->st.out_root, p->st.workspace,
					   a->stage, deferred, p->st.offline};
		struct check_outcome o = {0};
		/* In-process and quick (milliseconds): no child to wait for. */
		if (p->checker(&rq, &o) < 0) {
			validator_done(p, a, -1, o.text ? o.text : "built-in validator could not run\n",
				       o.summary, NULL, manual);
		} else {
			int code = o.status == VALIDATOR_PASS ? 0 : o.status == VALIDATOR_DEFERRED ? 3 : 1;
			if (o.json) {
				char *dir = run_attempt_dir(&p->st, a);
				write_in(dir, "validator.json", o.json);
				free(dir);
			}
			validator_done(p, a, code, o.text ? o.text : "", o.summary, o.json, manual);
		}
		check_outcome_free(&o);
		strv_free(deferred);
		return;
	}
	char *argv[] = {"/bin/sh", "-c", (char *)cmd, NULL};
	char **env = stage_env(p, a);
	/* A validator needs no API key. */
	for (size_t i = 0; p->secrets && p->secrets[i]; i++) {
		char *name = xstrndup(p->secrets[i], strcspn(p->secrets[i], "="));
		env_unset(&env, name);
		free(name);
	}
	char *log = run_path(p->st.run_dir, "commands.log");
	/* A command validator is a child on the loop like a stage, whether it
	 * follows a stage or a person asked for it: a slow one never freezes
	 * the screen. */
	struct proc_opts o = {.argv = argv, .env = env, .cwd = p->st.run_dir, .timeout_ms = 600000,
			      .kill_grace_ms = p->grace_ms, .command_log = log, .group_dies_with_us = true,
			      .on_stdout = on_vout, .on_stderr = on_vout, .on_exit = on_vexit, .ud = p};
	struct tp_err err;
	sb_reset(&p->vout);
	p->vseq = a->seq;
	p->vmanual = manual;
	p->vproc = proc_spawn(p->loop, &o, &err);
	if (!p->vproc)
		validator_done(p, a, 1, err.msg, NULL, NULL, manual);
	free(log);
	strv_free(env);
}

/* The report named by verdict_file must open with the verdict routed on. */
static char *verdict_file_mismatch(struct pipeline *p, const struct stage_def *s, const char *verdict)
{
	if (!s->verdict_file || !verdict || strcmp(verdict, "DEFERRED") == 0)
		return NULL;
	char *pat = path_join(p->st.run_dir, s->verdict_file);
	glob_t g;
	char *msg = NULL;
	if (glob(pat, 0, NULL, &g) == 0) {
		bool any = false;
		for (size_t i = 0; i < g.gl_pathc; i++) {
			char *fv = report_first_verdict(g.gl_pathv[i]);
			if (fv && strcmp(fv, verdict) == 0)
				any = true;
			else if (!msg && fv && stage_has_verdict(s, fv, false))
				msg = xasprintf("%s opens with VERDICT: %s but the reply says %s",
						g.gl_pathv[i] + strlen(p->st.run_dir) + 1, fv, verdict);
			free(fv);
		}
		if (any) {
			free(msg);
			msg = NULL;
		}
	}
	globfree(&g);
	free(pat);
	return msg;
}

static void validator_done(struct pipeline *p, struct attempt *a, int code, const char *out_raw,
			   const char *summary_in, const char *findings, bool manual)
{
	char *out = redact_secrets(out_raw, p->secrets);
	const struct stage_def *s = table_stage(p->table, a->stage);
	enum validator_result res = code == 0 ? VALIDATOR_PASS : code == 3 ? VALIDATOR_DEFERRED
				  : code == -1 ? VALIDATOR_UNAVAILABLE : code == -2 ? VALIDATOR_NONE
				  : VALIDATOR_FAIL;
	char *dir = run_attempt_dir(&p->st, a);
	char *vpath = path_join(dir, "validator.txt");
	char ts[32];
	iso8601_utc(wall_ms(), ts);
	/* -1 and -2 are no exit status: the file says what they mean */
	char *head = code >= 0 ? xasprintf("# %s validator for %c%d, exit %d\n", ts, a->stage, a->n, code)
				 : xasprintf("# %s validator for %c%d: %s\n", ts, a->stage, a->n,
					     validator_result_name(res));
	append_file(vpath, head, strlen(head), NULL);
	append_file(vpath, out, strlen(out), NULL);
	free(head);
	free(vpath);
	free(dir);

	char *mismatch = code >= 0 ? verdict_file_mismatch(p, s, a->verdict) : NULL;
	if (mismatch)
		res = VALIDATOR_FAIL;
	a->validator = res;
	const char *result = validator_result_name(res);
	/* first line of the output as the summary */
	char *summary = mismatch ? xstrdup(mismatch)
			: summary_in ? xstrdup(summary_in) : xstrndup(out, strcspn(out, "\n"));
	cJSON *f = pl_attempt_fields(a);
	cJSON_AddStringToObject(f, "result", result);
	cJSON_AddStringToObject(f, "summary", summary);
	cJSON *fj = findings ? cJSON_Parse(findings) : NULL;
	if (cJSON_IsArray(fj)) {
		/* Only what needs attention: PASS findings stay in validator.json. */
		cJSON *keep = cJSON_CreateArray(), *it;
		cJSON_ArrayForEach(it, fj)
		{
			const cJSON *sev = cJSON_GetObjectItemCaseSensitive(it, "severity");
			if (cJSON_IsString(sev) && strcmp(sev->valuestring, "PASS") != 0 &&
			    strcmp(sev->valuestring, "INFO") != 0)
				cJSON_AddItemToArray(keep, cJSON_Duplicate(it, true));
		}
		cJSON_AddItemToObject(f, "findings", keep);
	}
	cJSON_Delete(fj);
	pl_emit(p, manual ? "manual_revalidate" : "validator_result", f, "%c%d validator: %s%s%s", a->stage,
		a->n, result, *summary ? " - " : "", summary);
	free(summary);
	free(mismatch);
	free(out);
	if (manual)
		pl_save(p);
	else
		after_validator(p, a, res == VALIDATOR_FAIL);
}

static void after_validator(struct pipeline *p, struct attempt *a, bool failed)
{
	const struct stage_def *s = table_stage(p->table, a->stage);
	bool claims_success = stage_is_success(s, a->verdict) || strcmp(a->verdict, "DEFERRED") == 0;
	if (failed && claims_success) {
		char *why = xasprintf("%s claimed, but the orchestrator's validator failed (see validator.txt)",
				      a->verdict);
		if (repair_left(p, a->stage)) {
			schedule_repair(p, a, why);
			free(why);
			return;
		}
		attempt_add_soft(a, "SOFT_VALIDATOR_FAILED");
		pl_set(&a->note, why);
		pl_set(&a->verdict, fallback_verdict(s));
		a->overruled = true;
		pl_emit(p, "soft_marker", pl_attempt_fields(a),
			"%c%d: SOFT_VALIDATOR_FAILED; the validator overrules the claimed %s: routing on %s, "
			"which the agent did not return", a->stage, a->n, a->claimed, a->verdict);
		free(why);
	}
	if (!a->refused_by) /* no owner to ask about: the driver could not do it */
		pl_classify(p, a);
	if (pl_route(p, a))
		pl_schedule(p);
}

/* ---- spawning ---- */

void pl_kill_leftover(const struct attempt *a)
{
	if (a->pid <= 1)
		return;
	/* Only the very process we started: same start time, and still the
	 * leader of its own session (stages are started with setsid). */
	if (a->pid_start > 0 && proc_start_time(a->pid) == a->pid_start &&
	    getsid((pid_t)a->pid) == (pid_t)a->pid)
		kill(-(pid_t)a->pid, SIGKILL);
}

/* The attempt could not start: it ends here, and so does the run. */
static int spawn_failed(struct pipeline *p, struct attempt *a, const char *why)
{
	a->state = ATTEMPT_DONE;
	a->ended = wall_ms();
	char *exit = xasprintf("could not start: %s", why);
	pl_set(&a->exit, exit);
	free(exit);
	pl_stop_attempt(p, a, "the attempt could not start", why, NULL);
	return -1;
}

/* An attempt's folder is emptied before it runs, except what an earlier,
 * interrupted run of it left (partial/, killed/, partial-2/...). */
static void clear_attempt_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || str_starts(e->d_name, "partial") ||
		    str_starts(e->d_name, "killed"))
			continue;
		char *path = path_join(dir, e->d_name);
		if (unlink(path) < 0)
			remove_tree(path);
		free(path);
	}
	if (d)
		closedir(d);
}

static int spawn(struct pipeline *p, struct attempt *a, const char *repair_reason,
		 const char *validator_notes)
{
	const struct stage_def *s = table_stage(p->table, a->stage);
	char *dir = run_attempt_dir(&p->st, a);
	clear_attempt_dir(dir);
	struct tp_err err;
	tp_err_clear(&err);
	struct prompt_ctx pc = {p->st.op, p->st.workspace, p->st.out_root, p->st.run_dir, p->skill_dir,
				a->n, a->repair, repair_reason, validator_notes, p->st.offline,
				p->st.missing};
	char *prompt = prompt_build(s, &pc);
	char *ppath = path_join(dir, "prompt.md");
	int wrote = mkdir_p(dir, 0755, &err) == 0 ? write_file(ppath, prompt, strlen(prompt), &err) : -1;
	free(ppath);
	free(prompt);
	if (wrote < 0) {
		free(dir);
		return spawn_failed(p, a, err.msg);
	}

	struct driver d;
	char **slot = &p->st.drivers[stage_slot(a->stage)];
	struct sbuf none = SBUF_INIT;
	if (!*slot && p->catalog) { /* a stage the run did not expect to reach (a respawn by hand, say) */
		*slot = p->catalog->choose(a->stage, p->st.op, p->st.workspace, p->st.offline, &none);
		p->st.drivers_default[stage_slot(a->stage)] = *slot != NULL;
	}
	const char *spec = *slot;
	if (!spec || driver_parse(spec, p->catalog, &d, &err) < 0) {
		char *why = spec ? xstrdup(err.msg)
				 : xasprintf("no driver for stage %c%s%s", a->stage, none.len ? ": " : "",
					     sb_str(&none));
		sb_free(&none);
		free(dir);
		spawn_failed(p, a, why);
		free(why);
		return -1;
	}
	sb_free(&none);
	pl_set(&a->driver, spec);
	char *tpath = path_join(dir, "transcript.jsonl");
	char *epath = path_join(dir, "stderr.log");
	p->tr = transcript_open(tpath, &err);
	if (p->tr) {
		transcript_redact(p->tr, p->secrets);
		transcript_limit(p->tr, p->transcript_max);
	}
	int efd = p->tr ? file_open_write(epath, O_TRUNC, &err) : -1;
	p->errlog = efd >= 0 ? fdopen(efd, "w") : NULL;
	redact_stream_free(&p->errred);
	p->errred = (struct redact_stream){.secrets = p->secrets};
	sb_reset(&p->errtail);
	free(tpath);
	free(epath);
	char **argv = driver_argv(&d, a->stage, p->st.run_dir);
	char **env = stage_env(p, a);
	char *log = run_path(p->st.run_dir, "commands.log");
	struct proc_opts o = {
		.argv = argv, .env = env, .cwd = p->st.workspace,
		.timeout_ms = (int64_t)s->timeout_s * 1000,
		.idle_timeout_ms = (int64_t)s->idle_timeout_s * 1000,
		.kill_grace_ms = p->grace_ms, .command_log = log, .held = true, .group_dies_with_us = true,
		.on_stdout = on_stdout, .on_stderr = on_stderr, .on_exit = on_exit_cb, .ud = p,
	};
	p->cur_seq = a->seq;
	a->started = wall_ms();
	a->state = ATTEMPT_RUNNING;
	p->proc = p->tr && p->errlog ? proc_spawn(p->loop, &o, &err) : NULL;
	free(log);
	strv_free(argv);
	strv_free(env);
	driver_free(&d);
	free(dir);
	if (!p->proc) {
		if (p->tr)
			transcript_close(p->tr);
		if (p->errlog)
			fclose(p->errlog);
		p->tr = NULL;
		p->errlog = NULL;
		return spawn_failed(p, a, err.msg[0] ? err.msg : "cannot write the attempt's files");
	}
	/* The child waits until its pid is saved: a kill before that leaves no
	 * agent running that a resume could not find and stop. */
	a->pid = (long)proc_pid(p->proc);
	a->pid_start = proc_start_time(a->pid);
	tp_crashpoint_at("spawned");
	pl_save(p);
	if (proc_release(p->proc, &err) < 0) {
		proc_free(p->proc);
		p->proc = NULL;
		transcript_close(p->tr);
		fclose(p->errlog);
		p->tr = NULL;
		p->errlog = NULL;
		return spawn_failed(p, a, err.msg);
	}
	cJSON *f = pl_attempt_fields(a);
	cJSON_AddStringToObject(f, "driver", spec);
	cJSON_AddNumberToObject(f, "pid", (double)a->pid);
	pl_emit(p, "stage_started", f, "%c%d started%s%s (%s)", a->stage, a->n, a->repair ? " as repair retry" : "",
		a->manual ? " by hand" : "", a->dir);
	return 0;
}

/* ---- the next step ---- */

void pl_schedule(struct pipeline *p)
{
	if (p->started && !p->step_timer)
		p->step_timer = loop_add_timer(p->loop, 0, step, p);
}

struct attempt *pl_new_attempt(struct pipeline *p)
{
	struct run_state *st = &p->st;
	struct run_next nx = st->next;
	const struct attempt *prev = run_latest_attempt(st, nx.stage);
	int prev_n = prev ? prev->n : 0;
	struct attempt *a = run_add_attempt(st);
	a->stage = nx.stage;
	a->repair = nx.repair;
	a->manual = nx.manual;
	a->offline = st->offline;
	a->n = nx.repair ? prev_n : run_count(st, nx.stage) + 1;
	a->counts = !nx.repair;
	a->dir = xasprintf("%02d-%c%d%s", a->seq, a->stage, a->n, a->repair ? "r" : "");
	a->state = ATTEMPT_RUNNING;
	st->next.set = false;
	return a;
}

static void step(struct loop *l, void *ud)
{
	struct pipeline *p = ud;
	(void)l;
	p->step_timer = 0;
	struct run_state *st = &p->st;
	if (p->proc || p->vproc || st->final || st->status == RUN_ABORTED || p->broken)
		return;
	if (p->reroute) {
		p->reroute = false;
		if (pl_route(p, run_last_attempt(st)))
			pl_schedule(p);
		return;
	}
	if (p->rejudge_seq) {
		struct attempt *a = run_attempt_by_seq(st, p->rejudge_seq);
		p->rejudge_seq = 0;
		st->status = RUN_RUNNING;
		pl_emit(p, "verdict_recovered", pl_attempt_fields(a),
			"%c%d's reply (%s) was judged before the interruption: validating and routing it, "
			"not running it again", a->stage, a->n, a->verdict ? a->verdict : "no verdict");
		pl_validate(p, a, false);
		return;
	}
	if (p->rerun_seq) {
		struct attempt *a = run_attempt_by_seq(st, p->rerun_seq);
		if (st->hold && !p->go_once) {
			st->status = RUN_WAITING;
			pl_save(p);
			return;
		}
		p->go_once = false;
		p->rerun_seq = 0;
		st->status = RUN_RUNNING;
		pl_emit(p, "attempt_rerun", pl_attempt_fields(a),
			"%c%d was interrupted; running it again under the same number", a->stage, a->n);
		/* a repair retry is re-run with the reason recorded on its parent */
		const char *why = NULL;
		for (size_t i = 0; a->repair && i < st->natt; i++)
			if (st->att[i].seq < a->seq && st->att[i].stage == a->stage && st->att[i].note)
				why = st->att[i].note;
		pl_move_partial(p, a);
		spawn(p, a, why, NULL);
		return;
	}
	if (!st->next.set)
		return;
	if (st->hold && !p->go_once) {
		st->status = RUN_WAITING;
		char *why = xasprintf("waiting for continue before %c", st->next.stage);
		pl_set(&st->reason, why);
		pl_save(p);
		pl_emit(p, "waiting", NULL, "%s", why);
		free(why);
		return;
	}
	p->go_once = false;
	st->status = RUN_RUNNING;
	pl_set(&st->reason, NULL);
	const char *why = NULL;
	struct attempt *prev = run_last_attempt(st);
	if (st->next.repair && prev)
		why = prev->note;
	char *reason = why ? xstrdup(why) : NULL;
	char *vnotes = NULL;
	if (st->next.repair && prev) {
		char *dir = run_attempt_dir(st, prev);
		char *vp = path_join(dir, "validator.txt");
		vnotes = read_file(vp, NULL, NULL);
		free(vp);
		free(dir);
	}
	struct attempt *a = pl_new_attempt(p);
	pl_save(p); /* the attempt exists before anything runs */
	spawn(p, a, reason, vnotes);
	free(reason);
	free(vnotes);
}
