/* The Slurm executor: one job array per submission (sbatch --parsable
 * --array=0-K%N) whose task i runs `tileport run` (or `resume`, when the
 * run exists) for operator i; squeue lists the live tasks, scontrol tells
 * how the others ended, scancel cancels. Before the first submission a
 * probe job writes a marker into the batch folder: when the marker never
 * arrives, the compute nodes do not see the output root and nothing is
 * submitted. Facts: ../shared/reference/slurm.md. */
#include "engine/batch/batch_int.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/base/files.h"
#include "engine/base/proc.h"

#define CMD_TIMEOUT_MS 120000
#define PROBE_TIMEOUT_MS 300000
#define PROBE_GRACE_MS 30000
#define PROBE_CHECK_MS 250

struct slurm_state {
	struct proc *query;
	struct sbuf out, err;
	char **bases; /* array jobs scontrol is still to be asked about */
	size_t next_base;
	struct slurm_job *seen;
	size_t nseen, capseen;
};

static struct slurm_state *sstate(struct batch *b)
{
	if (!b->slurm)
		b->slurm = xcalloc(1, sizeof(*b->slurm));
	return b->slurm;
}

static char *q1(const char *arg)
{
	char *v[] = {(char *)arg, NULL};
	return argv_quote(v);
}

/* The first lines of what a command said, for a message. */
static char *said(const struct sbuf *e, const struct sbuf *o)
{
	char *raw = xstrdup(e->len ? sb_str(e) : sb_str(o));
	size_t n;
	char **lines = str_split(str_trim(raw), '\n', false, &n);
	char *t = strv_join(lines, "; ");
	strv_free(lines);
	free(raw);
	if (strlen(t) > 600)
		t[600] = '\0';
	return t;
}

static int tools_present(struct tp_err *err)
{
	static const char *const tools[] = {"sbatch", "squeue", "scontrol", "scancel"};
	for (size_t i = 0; i < TP_ARRAY_LEN(tools); i++) {
		char *p = which(tools[i]);
		free(p);
		if (!p) {
			tp_err_set(err, TP_EXIT_ENV, "%s is not on PATH: the slurm executor needs Slurm's "
						     "client commands (sbatch, squeue, scontrol, scancel) "
						     "on this host", tools[i]);
			return -1;
		}
	}
	return 0;
}

/* Run a Slurm command to its end. -1 only when it could not run at all. */
static int run_cmd(char **argv, struct sbuf *out, struct sbuf *errout, struct proc_status *st,
		   struct tp_err *err)
{
	char **env = env_current();
	struct proc_opts o = {.argv = argv, .env = env, .timeout_ms = CMD_TIMEOUT_MS};
	int rc = proc_run_sync(&o, out, errout, st, err);
	strv_free(env);
	return rc;
}

static bool cmd_ok(const struct proc_status *st)
{
	return st->end == PROC_EXITED && st->code == 0;
}

static void push(char ***v, size_t *n, char *s)
{
	*v = xrealloc(*v, (*n + 2) * sizeof(**v));
	(*v)[(*n)++] = s;
	(*v)[*n] = NULL;
}

/* The options every job of the batch shares (the probe leaves out gres). */
static void add_common(char ***v, size_t *n, const struct batch_slurm *s, bool gres)
{
	const char *opt[] = {"--partition", s->partition, "--account", s->account, "--qos", s->qos,
			     "--time", s->time, "--gres", gres ? s->gres : NULL};
	for (size_t i = 0; i < TP_ARRAY_LEN(opt); i += 2)
		if (opt[i + 1])
			push(v, n, xasprintf("%s=%s", opt[i], opt[i + 1]));
	for (size_t i = 0; s->sbatch_args && s->sbatch_args[i]; i++)
		push(v, n, xstrdup(s->sbatch_args[i]));
}

/* sbatch ARGS: the job id, or -1 with sbatch's own words and the exit
 * code that fits (2: it refused the request, 3: it could not be asked). */
static char *submit(char **argv, const char *what, struct tp_err *err)
{
	struct sbuf out = SBUF_INIT, e = SBUF_INIT;
	struct proc_status st;
	char *id = NULL;
	if (run_cmd(argv, &out, &e, &st, err) == 0) {
		if (!cmd_ok(&st)) {
			char *t = said(&e, &out);
			int code = slurm_error_code(t);
			tp_err_set(err, code, "sbatch %s %s: %s%s", code == TP_EXIT_ENV ? "could not submit"
									: "refused", what, t,
				   code == TP_EXIT_ENV ? " (is slurmctld up, and SLURM_CONF right?)"
						       : " (check partition, account, qos, time, gres and "
							 "sbatch args: slurm.* in the config or batch "
							 "start's options)");
			free(t);
		} else if (!(id = slurm_parse_jobid(sb_str(&out)))) {
			char *t = said(&e, &out);
			tp_err_set(err, TP_EXIT_ENV, "sbatch printed no job id for %s: '%s'", what, t);
			free(t);
		}
	}
	sb_free(&out);
	sb_free(&e);
	return id;
}

static void scancel(const char *job)
{
	char *argv[] = {"scancel", (char *)job, NULL};
	struct sbuf out = SBUF_INIT, e = SBUF_INIT;
	struct proc_status st;
	run_cmd(argv, &out, &e, &st, NULL);
	sb_free(&out);
	sb_free(&e);
}

/* One synchronous look at a job: its state and node ("" when gone). */
static void job_now(const char *job, char **state, char **node)
{
	*state = *node = NULL;
	char *argv[] = {"scontrol", "-o", "show", "job", (char *)job, NULL};
	struct sbuf out = SBUF_INIT, e = SBUF_INIT;
	struct proc_status st;
	if (run_cmd(argv, &out, &e, &st, NULL) == 0 && cmd_ok(&st)) {
		struct slurm_job *v;
		size_t n;
		slurm_parse_scontrol(sb_str(&out), &v, &n);
		if (n) {
			*state = v[0].state ? xstrdup(v[0].state) : NULL;
			*node = v[0].node ? xstrdup(v[0].node) : NULL;
		}
		slurm_jobs_free(v, n);
	}
	sb_free(&out);
	sb_free(&e);
}

/* A job writes a marker into the batch folder; it must show up here. */
static int probe(struct batch *b, struct tp_err *err)
{
	struct batch_slurm *s = &b->rec.slurm;
	char *adir = path_absolute(b->rec.dir); /* the job's view: no relative paths */
	char *marker = xasprintf("%s/probe.%ld", adir, (long)getpid());
	free(adir);
	char *qm = q1(marker);
	char **argv = NULL;
	size_t n = 0;
	push(&argv, &n, xstrdup("sbatch"));
	push(&argv, &n, xstrdup("--parsable"));
	push(&argv, &n, xasprintf("--job-name=tileport-probe-%s", b->rec.name));
	push(&argv, &n, xstrdup("--output=/dev/null"));
	push(&argv, &n, xstrdup("--chdir=/"));
	add_common(&argv, &n, s, false);
	push(&argv, &n, xasprintf("--wrap=hostname >%s", qm));
	free(qm);
	char *job = submit(argv, "the probe job", err);
	strv_free(argv);
	if (!job) {
		free(marker);
		return -1;
	}
	int64_t timeout = s->probe_timeout_ms > 0 ? s->probe_timeout_ms : PROBE_TIMEOUT_MS;
	int64_t grace = s->probe_grace_ms > 0 ? s->probe_grace_ms : PROBE_GRACE_MS;
	int64_t poll = s->poll_ms > 0 && s->poll_ms < 5000 ? s->poll_ms : 1000;
	batch_note(b, 0, "probe job %s: waiting (up to %llds in the queue) for it to write a marker "
		   "in %s", job, (long long)(timeout / 1000), b->rec.dir);
	int64_t start = now_ms(), asked = 0, ended_at = 0;
	char *state = NULL, *node = NULL;
	struct loop *l = loop_new();
	int rc = -1;
	for (;;) {
		if (file_nonempty(marker)) {
			rc = 0;
			break;
		}
		int64_t now = now_ms();
		if (!ended_at && now - asked >= poll) {
			asked = now;
			free(state), free(node);
			job_now(job, &state, &node);
			if (!state || slurm_phase(state) >= JOB_CANCELLED)
				ended_at = now;
		}
		if (ended_at && now - ended_at >= grace) {
			tp_err_set(err, TP_EXIT_ENV,
				   "the probe job %s ended (%s%s%s) but its marker %s never appeared here: the "
				   "compute nodes do not see the output root %s. tileport batch needs it on "
				   "a file system this host and the nodes share (see docs/batch.md)",
				   job, state ? state : "no longer known to Slurm", node ? " on " : "",
				   node ? node : "", marker, b->rec.out_root);
			break;
		}
		if (!ended_at && now - start >= timeout) {
			tp_err_set(err, TP_EXIT_ENV,
				   "the probe job %s is still %s after %llds; raise slurm.probe_timeout, "
				   "or set slurm.probe = no to skip the check", job, state ? state : "queued",
				   (long long)(timeout / 1000));
			scancel(job);
			break;
		}
		loop_run_once(l, PROBE_CHECK_MS); /* nothing registered: waits the check interval */
	}
	loop_free(l);
	if (rc == 0) {
		char *host = read_file(marker, NULL, NULL);
		free(s->probe_node);
		s->probe_node = host ? xstrdup(str_trim(host)) : NULL;
		free(host);
		batch_note(b, 0, "probe job %s ran on %s and its marker arrived: the output root is shared",
			   job, s->probe_node ? s->probe_node : "?");
	}
	unlink(marker);
	free(marker);
	free(state);
	free(node);
	free(job);
	return rc;
}

static char *script_text(const struct batch *b, const size_t *idx, size_t n, size_t subno)
{
	const struct batch_record *r = &b->rec;
	struct sbuf sb = SBUF_INIT;
	/* the nodes see absolute paths only */
	char *adir = path_absolute(r->dir), *aout = path_absolute(r->out_root);
	char *dir = q1(adir), *out = q1(aout), *ws = q1(r->workspace), *name = q1(r->name);
	char *self = r->slurm.tileport ? xstrdup(r->slurm.tileport) : tp_self_exe();
	char *bin = q1(self ? self : "tileport");
	free(self);
	char *args = r->run_args && r->run_args[0] ? argv_quote(r->run_args) : xstrdup("");
	sb_printf(&sb, "#!/bin/sh\n"
		       "# tileport batch %s, submission %zu: array task i converts one operator.\n"
		       "# Written by tileport; 'tileport batch resume %s' submits again what ended\n"
		       "# without a verdict of its own.\n"
		       "case \"${SLURM_ARRAY_TASK_ID:-}\" in\n", r->name, subno, r->name);
	for (size_t k = 0; k < n; k++)
		sb_printf(&sb, "%zu) op=%s ;;\n", k, r->ops[idx[k]].op);
	sb_printf(&sb,
		  "*) echo \"tileport batch: no operator for array task '${SLURM_ARRAY_TASK_ID:-}'\" >&2; exit 2 ;;\n"
		  "esac\n"
		  "if [ ! -f %s/batch.json ]; then\n"
		  "\techo \"tileport batch: %s is not visible on $(hostname): the output root must be "
		  "shared with the compute nodes\" >&2\n"
		  "\texit 3\n"
		  "fi\n"
		  "export TILEPORT_BATCH=%s\n"
		  "run=%s/\"$op\"\n"
		  "if [ -f \"$run/.tileport/state.json\" ]; then\n"
		  "\texec %s resume \"$run\" --headless %s\n"
		  "fi\n"
		  "exec %s run \"$op\" --workspace %s --out %s --headless %s\n",
		  dir, adir, name, out, bin, args, bin, ws, out, args);
	free(dir), free(out), free(ws), free(name), free(bin), free(args), free(adir), free(aout);
	return sb_detach(&sb);
}

static int slurm_launch(struct batch *b, const size_t *idx, size_t n, struct tp_err *err)
{
	if (tools_present(err) < 0)
		return -1;
	bool first = b->rec.nsubs == 0;
	if (first && b->rec.slurm.probe && probe(b, err) < 0)
		return -1;
	size_t subno = b->rec.nsubs + 1;
	char *rel = xasprintf("submit-%zu.sh", subno);
	char *adir = path_absolute(b->rec.dir); /* what the jobs see */
	char *script = path_join(adir, rel);
	char *logs = path_join(adir, "logs");
	char *text = script_text(b, idx, n, subno);
	int rc = mkdir_p(logs, 0755, err);
	if (rc == 0)
		rc = write_file_atomic(script, text, strlen(text), err);
	free(text);
	char *job = NULL;
	if (rc == 0) {
		chmod(script, 0755);
		char **argv = NULL;
		size_t an = 0;
		push(&argv, &an, xstrdup("sbatch"));
		push(&argv, &an, xstrdup("--parsable"));
		push(&argv, &an, xasprintf("--array=0-%zu%%%d", n - 1, b->rec.jobs));
		push(&argv, &an, xasprintf("--job-name=tileport-%s", b->rec.name));
		push(&argv, &an, xasprintf("--output=%s/%%A_%%a.out", logs));
		push(&argv, &an, xasprintf("--chdir=%s", adir));
		/* resume decides what runs again, not Slurm */
		push(&argv, &an, xstrdup("--no-requeue"));
		add_common(&argv, &an, &b->rec.slurm, true);
		push(&argv, &an, xstrdup(script));
		job = submit(argv, "the job array", err);
		strv_free(argv);
		if (!job) {
			unlink(script);
			rc = -1;
		}
	}
	if (rc == 0) {
		struct batch_record *r = &b->rec;
		r->subs = xrealloc(r->subs, (r->nsubs + 1) * sizeof(*r->subs));
		struct batch_submission *s = &r->subs[r->nsubs++];
		s->job = xstrdup(job);
		s->script = xstrdup(rel);
		s->ops = xcalloc(n + 1, sizeof(*s->ops));
		s->at = wall_ms();
		for (size_t k = 0; k < n; k++) {
			struct batch_op *o = &r->ops[idx[k]];
			s->ops[k] = xstrdup(o->op);
			free(o->job);
			o->job = xasprintf("%s_%zu", job, k);
			free(o->node);
			o->node = NULL;
			o->starts++;
			o->started = o->ended = 0;
			batch_set_state(b, idx[k], BST_QUEUED, NULL);
		}
		batch_note(b, 0, "submitted %zu run%s as job array %s", n, n == 1 ? "" : "s", job);
		/* At start the record is written here, so that a failure to
		 * write it takes the jobs back: no job without its record. */
		if (first && batch_record_save(r, b->lock_fd, err) < 0) {
			scancel(job);
			rc = -1;
		}
	}
	free(job);
	free(rel);
	free(script);
	free(logs);
	free(adir);
	return rc;
}

static int slurm_cancel(struct batch *b, size_t i, struct tp_err *err)
{
	struct batch_op *o = &b->rec.ops[i];
	if (tools_present(err) < 0)
		return -1;
	char *argv[] = {"scancel", o->job, NULL};
	struct sbuf out = SBUF_INIT, e = SBUF_INIT;
	struct proc_status st;
	int rc = run_cmd(argv, &out, &e, &st, err);
	if (rc == 0 && !cmd_ok(&st)) {
		char *t = said(&e, &out);
		tp_err_set(err, slurm_error_code(t), "scancel %s: %s", o->job, t);
		free(t);
		rc = -1;
	}
	sb_free(&out);
	sb_free(&e);
	if (rc == 0) {
		char *why = xasprintf("cancelled by hand (scancel %s)", o->job);
		batch_set_state(b, i, BST_CANCELLED, why);
		free(why);
	}
	return rc;
}

/* ---- observing: squeue for the live tasks, scontrol for the rest ---- */

static const struct slurm_job *seen_job(const struct slurm_state *ss, const char *id)
{
	for (size_t i = 0; i < ss->nseen; i++)
		if (!strcmp(ss->seen[i].id, id))
			return &ss->seen[i];
	return NULL;
}

static void keep_seen(struct slurm_state *ss, struct slurm_job *v, size_t n)
{
	if (n) {
		ss->seen = xgrow(ss->seen, &ss->capseen, ss->nseen + n, sizeof(*ss->seen));
		memcpy(ss->seen + ss->nseen, v, n * sizeof(*v));
		ss->nseen += n;
	}
	free(v);
}

static char *base_of(const char *job)
{
	const char *u = strchr(job, '_');
	return u ? xstrndup(job, (size_t)(u - job)) : xstrdup(job);
}

static bool watched(const struct batch_op *o)
{
	return o->job && batch_state_active(o->state);
}

static void apply(struct batch *b)
{
	struct slurm_state *ss = b->slurm;
	for (size_t i = 0; i < b->rec.nops; i++) {
		struct batch_op *o = &b->rec.ops[i];
		if (!watched(o))
			continue;
		const struct slurm_job *j = seen_job(ss, o->job);
		enum job_phase ph = j ? slurm_phase(j->state) : JOB_GONE;
		if (j && j->node && (!o->node || strcmp(o->node, j->node))) {
			free(o->node);
			o->node = xstrdup(j->node);
			b->dirty = true;
			batch_changed(b);
		}
		if (ph == JOB_RUNNING && !o->started) {
			o->started = wall_ms();
			b->dirty = true;
		}
		batch_progress_read(b, i, true); /* the job moved on: its run too */
		enum batch_state s = batch_state_from(&b->prog[i], ph);
		char *why = NULL;
		if (!batch_state_final(s) && !batch_state_active(s)) {
			if (j)
				why = xasprintf("job %s %s%s%s%s%s", o->job, j->state ? j->state : "?",
						j->node ? " on " : "", j->node ? j->node : "",
						j->exit ? ", exit " : "", j->exit ? j->exit : "");
			else
				why = xasprintf("job %s is no longer known to Slurm", o->job);
		} else if (ph == JOB_WAITING && j && j->reason && strcmp(j->reason, "None")) {
			why = xasprintf("waiting: %s", j->reason);
		}
		batch_set_state(b, i, s, why);
		free(why);
	}
}

static void finish_query(struct batch *b, const char *problem)
{
	struct slurm_state *ss = b->slurm;
	if (!problem)
		apply(b);
	slurm_jobs_free(ss->seen, ss->nseen);
	ss->seen = NULL;
	ss->nseen = ss->capseen = 0;
	strv_free(ss->bases);
	ss->bases = NULL;
	batch_observed(b, problem);
}

static void ask(struct batch *b, char **argv);

static void next_scontrol(struct batch *b)
{
	struct slurm_state *ss = b->slurm;
	while (ss->bases && ss->bases[ss->next_base]) {
		const char *base = ss->bases[ss->next_base++];
		char *argv[] = {"scontrol", "-o", "show", "job", (char *)base, NULL};
		ask(b, argv);
		return;
	}
	finish_query(b, NULL);
}

/* squeue is done: ask scontrol about arrays with tasks it did not list. */
static void after_squeue(struct batch *b)
{
	struct slurm_state *ss = b->slurm;
	size_t n = 0;
	ss->bases = xcalloc(b->rec.nops + 1, sizeof(*ss->bases));
	ss->next_base = 0;
	for (size_t i = 0; i < b->rec.nops; i++) {
		const struct batch_op *o = &b->rec.ops[i];
		if (!watched(o) || seen_job(ss, o->job))
			continue;
		char *base = base_of(o->job);
		bool dup = false;
		for (size_t k = 0; k < n && !dup; k++)
			dup = !strcmp(ss->bases[k], base);
		if (dup)
			free(base);
		else
			ss->bases[n++] = base;
	}
	next_scontrol(b);
}

static void on_query_out(struct proc *p, const char *d, size_t n, void *ud)
{
	(void)p;
	sb_add(&((struct batch *)ud)->slurm->out, d, n);
}

static void on_query_err(struct proc *p, const char *d, size_t n, void *ud)
{
	(void)p;
	sb_add(&((struct batch *)ud)->slurm->err, d, n);
}

static void on_query_exit(struct proc *p, const struct proc_status *st, void *ud)
{
	struct batch *b = ud;
	struct slurm_state *ss = b->slurm;
	bool squeue = ss->bases == NULL;
	ss->query = NULL;
	proc_free(p);
	const char *e = sb_str(&ss->err);
	/* A job id Slurm has forgotten is an answer, not a failure. */
	bool forgotten = strstr(e, "Invalid job id") != NULL;
	char *problem = NULL;
	if (!cmd_ok(st) && !forgotten) {
		char *t = said(&ss->err, &ss->out);
		problem = xasprintf("%s: %s", squeue ? "squeue" : "scontrol", t);
		free(t);
	} else if (!forgotten) {
		struct slurm_job *v;
		size_t n;
		if (squeue)
			slurm_parse_squeue(sb_str(&ss->out), &v, &n);
		else
			slurm_parse_scontrol(sb_str(&ss->out), &v, &n);
		keep_seen(ss, v, n);
	}
	sb_reset(&ss->out);
	sb_reset(&ss->err);
	if (problem) {
		finish_query(b, problem);
		free(problem);
	} else if (squeue) {
		after_squeue(b);
	} else {
		next_scontrol(b);
	}
}

static void ask(struct batch *b, char **argv)
{
	struct slurm_state *ss = b->slurm;
	char **env = env_current();
	struct proc_opts o = {.argv = argv, .env = env, .timeout_ms = CMD_TIMEOUT_MS,
			      .on_stdout = on_query_out, .on_stderr = on_query_err,
			      .on_exit = on_query_exit, .ud = b};
	struct tp_err err;
	ss->query = proc_spawn(b->loop, &o, &err);
	strv_free(env);
	if (!ss->query)
		finish_query(b, err.msg);
}

static void slurm_observe(struct batch *b)
{
	struct slurm_state *ss = sstate(b);
	struct sbuf ids = SBUF_INIT;
	for (size_t i = 0; i < b->rec.nops; i++) {
		const struct batch_op *o = &b->rec.ops[i];
		if (!watched(o))
			continue;
		char *base = base_of(o->job);
		char *with = xasprintf(",%s,", base);
		char *have = xasprintf(",%s,", sb_str(&ids));
		if (!strstr(have, with))
			sb_printf(&ids, "%s%s", ids.len ? "," : "", base);
		free(have);
		free(with);
		free(base);
	}
	if (!ids.len) {
		sb_free(&ids);
		batch_observed(b, NULL);
		return;
	}
	strv_free(ss->bases);
	ss->bases = NULL;
	char *argv[] = {"squeue", "-h", "-r", "-o", "%i|%T|%N|%r", "-j", ids.buf, NULL};
	ask(b, argv);
	sb_free(&ids);
}

static void slurm_free(struct batch *b)
{
	struct slurm_state *ss = b->slurm;
	if (!ss)
		return;
	proc_free(ss->query);
	sb_free(&ss->out);
	sb_free(&ss->err);
	strv_free(ss->bases);
	slurm_jobs_free(ss->seen, ss->nseen);
	free(ss);
	b->slurm = NULL;
}

const struct batch_exec batch_slurm_exec = {
	.launch = slurm_launch,
	.cancel = slurm_cancel,
	.observe = slurm_observe,
	.free = slurm_free,
};
