/* One attempt of a stage: the step that starts the next one, the spawn
 * through its driver with the stage's environment, the streamed transcript
 * and the agent's exit; its reply then goes to pipeline_judge.c (the gate,
 * the validator, routing). The loop's step timer is the only way back to
 * the top of this cycle. */
#include "engine/core/pipeline_int.h"

#include <fcntl.h>
#include <dirent.h>
#include <glob.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/core/driver.h"
#include "engine/base/files.h"
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

static bool killed_from_outside(const struct proc_status *st)
{
	/* by the signal itself, or a shell's 128+N for its child's */
	int s = st->end == PROC_SIGNALED ? st->signo
		: st->end == PROC_EXITED && st->code > 128 ? st->code - 128 : 0;
	return s == SIGTERM || s == SIGKILL || s == SIGINT || s == SIGHUP;
}

/* The last line of an agent's stderr tail (NULL for none). */
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
	const char *last = pl_last_line(a->stderr_tail);
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
	pl_judge_reply(p, a, text, st, driver);
	free(driver);
}

char **pl_stage_env(struct pipeline *p, const struct attempt *a)
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
		char **owed = pl_owed_steps(p, a);
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
	char **env = pl_stage_env(p, a);
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
