/* The end of one attempt: its reply through the acceptance gate (a repair
 * retry when the reply is unusable), the verdict written down, the
 * orchestrator's own validator and the owner class (pipeline_owner.c),
 * then routing (pipeline_route.c). pipeline_stage.c starts attempts and
 * hands their replies here. */
#include "engine/core/pipeline_int.h"

#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/base/files.h"

static void write_in(const char *dir, const char *name, const char *text)
{
	char *path = path_join(dir, name);
	write_file(path, text, strlen(text), NULL);
	free(path);
}

static void after_validator(struct pipeline *p, struct attempt *a, bool failed);
static void after_gate(struct pipeline *p, struct attempt *a, struct verdict_reply *r,
		       const struct gate_result *g);

void pl_judge_reply(struct pipeline *p, struct attempt *a, char *text, const struct proc_status *st,
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
		const char *last = pl_last_line(a->stderr_tail);
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
char **pl_owed_steps(struct pipeline *p, const struct attempt *a)
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
		char **deferred = pl_owed_steps(p, a);
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
	char **env = pl_stage_env(p, a);
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
