/* A batch on a loop: starting one, opening one, observing it, resuming and
 * cancelling its runs, writing its record. What is particular to the local
 * executor or to Slurm lives in local.c and slurm.c. */
#include "engine/batch/batch_int.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "engine/core/pipeline.h"
#include "engine/base/lock.h"
#include "engine/base/proc.h"
#include "engine/core/run.h"

#define PROGRESS_MS 500      /* look for runs that began; local: the record of a live driver */
#define SLURM_POLL_MS 5000   /* default squeue/scontrol cadence */

static struct batch *batch_new(struct session *s)
{
	struct batch *b = xcalloc(1, sizeof(*b));
	b->s = s;
	b->loop = session_loop(s);
	b->lock_fd = -1;
	return b;
}

static void adopt(struct batch *b)
{
	b->exec = b->rec.executor == BATCH_SLURM ? &batch_slurm_exec : &batch_local_exec;
	b->prog = xcalloc(b->rec.nops + 1, sizeof(*b->prog));
	b->runs = xcalloc(b->rec.nops + 1, sizeof(*b->runs));
	for (size_t i = 0; i < b->rec.nops; i++) {
		b->prog[i].geomean = NAN;
		batch_progress_read(b, i, false);
	}
}

int batch_open(struct batch **out, struct session *s, const char *dir, struct tp_err *err)
{
	*out = NULL;
	struct batch *b = batch_new(s);
	if (batch_record_load(dir, &b->rec, err) < 0) {
		free(b);
		return -1;
	}
	adopt(b);
	*out = b;
	return 0;
}

void batch_free(struct batch *b)
{
	if (!b)
		return;
	if (b->timer)
		loop_cancel_timer(b->loop, b->timer);
	if (b->exec && b->exec->free)
		b->exec->free(b);
	for (size_t i = 0; i < b->rec.nops; i++)
		batch_progress_forget(b, i);
	free(b->prog);
	free(b->runs);
	lock_release(b->lock_fd);
	batch_record_free(&b->rec);
	free(b->problem);
	strv_free(b->kept);
	free(b->ls);
	free(b);
}

const struct batch_record *batch_record(const struct batch *b)
{
	return &b->rec;
}

const struct batch_progress *batch_progress(const struct batch *b, size_t i)
{
	return i < b->rec.nops ? &b->prog[i] : NULL;
}

const char *batch_problem(const struct batch *b)
{
	return b->problem;
}

bool batch_driving(const struct batch *b)
{
	return b->lock_fd >= 0 && b->rec.executor == BATCH_LOCAL;
}

bool batch_going(const struct batch *b)
{
	for (size_t i = 0; i < b->rec.nops; i++)
		if (batch_state_active(b->rec.ops[i].state))
			return true;
	return false;
}

bool batch_settling(const struct batch *b)
{
	return b->observing || (b->exec->settling && b->exec->settling(b));
}

int batch_exit_code(const struct batch *b)
{
	/* as `tileport run` exits: 0 for an accepted run or OFFLINE_COMPLETE */
	for (size_t i = 0; i < b->rec.nops; i++)
		if (!batch_op_converted(&b->rec.ops[i], &b->prog[i]) &&
		    b->rec.ops[i].state != BST_OFFLINE)
			return TP_EXIT_FAILED;
	return TP_EXIT_OK;
}

/* ---- listeners ---- */

void batch_listen(struct batch *b, batch_listener fn, void *ud)
{
	b->ls = xgrow(b->ls, &b->capls, b->nls + 1, sizeof(*b->ls));
	b->ls[b->nls++] = (struct batch_ls){fn, ud};
}

void batch_unlisten(struct batch *b, batch_listener fn, void *ud)
{
	for (size_t i = 0; i < b->nls; i++) {
		if (b->ls[i].fn == fn && b->ls[i].ud == ud) {
			memmove(&b->ls[i], &b->ls[i + 1], (b->nls - i - 1) * sizeof(*b->ls));
			b->nls--;
			return;
		}
	}
}

void batch_changed(struct batch *b)
{
	for (size_t i = 0; i < b->nls; i++)
		b->ls[i].fn(b, SIZE_MAX, NULL, b->ls[i].ud);
}

void batch_note(struct batch *b, size_t op, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg = xvasprintf(fmt, ap);
	va_end(ap);
	for (size_t i = 0; i < b->nls; i++)
		b->ls[i].fn(b, op, msg, b->ls[i].ud);
	free(msg);
}

void batch_set_state(struct batch *b, size_t i, enum batch_state s, const char *why)
{
	struct batch_op *o = &b->rec.ops[i];
	bool same_why = (!why && !o->why) || (why && o->why && !strcmp(why, o->why));
	if (o->state == s && same_why)
		return;
	bool moved = o->state != s;
	o->state = s;
	b->dirty = true;
	free(o->why);
	o->why = why ? xstrdup(why) : NULL;
	if (batch_state_final(s) || (moved && !batch_state_active(s) && s != BST_PENDING))
		o->ended = wall_ms();
	const struct batch_progress *p = &b->prog[i];
	if (batch_state_final(s))
		batch_note(b, i, "%s: %s (%s)", o->op, p->final ? p->final : batch_state_name(s),
			   p->attempts ? p->attempts : "");
	else
		batch_note(b, i, "%s: %s%s%s", o->op, batch_state_name(s), why ? ": " : "", why ? why : "");
}

/* ---- writing the record ---- */

/* Take over what another tileport wrote, keeping what this one saw of the
 * jobs it knows (same job id): a resubmission elsewhere wins. */
static void merge_from_disk(struct batch *b)
{
	struct batch_record disk;
	if (batch_record_load(b->rec.dir, &disk, NULL) < 0)
		return;
	if (disk.nops != b->rec.nops) {
		batch_record_free(&disk);
		return;
	}
	for (size_t i = 0; i < disk.nops; i++) {
		struct batch_op *d = &disk.ops[i], *m = &b->rec.ops[i];
		if (strcmp(d->op, m->op) != 0 || d->starts != m->starts ||
		    (d->job == NULL) != (m->job == NULL) || (d->job && strcmp(d->job, m->job) != 0))
			continue; /* started again elsewhere: disk's */
		struct batch_op keep = *d;
		*d = *m;
		*m = keep; /* freed with disk */
	}
	/* the settings and the submissions are disk's */
	batch_record_free(&b->rec);
	b->rec = disk;
}

int batch_save(struct batch *b, struct tp_err *err)
{
	if (!b->dirty)
		return 0;
	int rc;
	if (b->lock_fd >= 0) {
		rc = batch_record_save(&b->rec, b->lock_fd, err);
		if (rc < 0 && batch_lock_check(&b->rec, b->lock_fd, NULL) < 0) {
			/* another tileport may have the batch now: this one writes
			 * and starts nothing more, and stops its runs (they save
			 * their state; whoever has the batch resumes them) */
			lock_release(b->lock_fd);
			b->lock_fd = -1;
			batch_stop(b);
		}
	} else {
		struct tp_err lerr;
		int fd = batch_lock(&b->rec, &lerr);
		if (fd < 0)
			return 0; /* another tileport is writing it; it sees the same jobs */
		merge_from_disk(b);
		rc = batch_record_save(&b->rec, fd, err);
		lock_release(fd);
	}
	if (rc == 0)
		b->dirty = false;
	return rc;
}

/* ---- observing ---- */

static void schedule(struct batch *b, int64_t ms);

/* Op i's progress again; a line when it reached another stage. */
static void reread(struct batch *b, size_t i, bool now)
{
	const struct batch_progress *p = &b->prog[i];
	char stage = p->stage;
	char *att = p->attempts ? xstrdup(p->attempts) : NULL;
	if (batch_progress_read(b, i, now)) {
		batch_changed(b);
		p = &b->prog[i];
		if (p->stage && (p->stage != stage || !att || !p->attempts || strcmp(att, p->attempts)) &&
		    batch_state_active(b->rec.ops[i].state))
			batch_note(b, i, "%s: stage %c (%s)", b->rec.ops[i].op, p->stage, p->attempts);
	}
	free(att);
}

void batch_progress_changed(struct batch *b, size_t i)
{
	reread(b, i, false);
}

/* Runs that have begun get a model (which then follows them itself);
 * now: every run is read again at once (a refresh). */
static void read_runs(struct batch *b, bool now)
{
	for (size_t i = 0; i < b->rec.nops; i++)
		if (now || !b->runs[i].m)
			reread(b, i, now);
}

/* Another tileport may have changed the record (a resume, a cancel). */
static void reload_if_changed(struct batch *b)
{
	struct batch_record disk;
	if (b->lock_fd >= 0 || batch_record_load(b->rec.dir, &disk, NULL) < 0)
		return;
	if (disk.updated == b->rec.updated || disk.nops != b->rec.nops) {
		batch_record_free(&disk);
		return;
	}
	batch_record_free(&b->rec);
	b->rec = disk;
	batch_changed(b);
}

void batch_observed(struct batch *b, const char *problem)
{
	b->observing = false;
	bool was = b->problem != NULL;
	free(b->problem);
	b->problem = problem ? xstrdup(problem) : NULL;
	if (was || problem)
		batch_changed(b);
	struct tp_err err;
	if (batch_save(b, &err) < 0) {
		free(b->problem);
		b->problem = xstrdup(err.msg);
	}
}

static void observe(struct batch *b, bool now)
{
	reload_if_changed(b);
	read_runs(b, now);
	if (!b->observing) {
		b->observing = true;
		b->exec->observe(b);
	}
}

static void on_timer(struct loop *l, void *ud)
{
	(void)l;
	struct batch *b = ud;
	b->timer = 0;
	int64_t poll = b->rec.slurm.poll_ms > 0 ? b->rec.slurm.poll_ms : SLURM_POLL_MS;
	int64_t every = b->rec.executor == BATCH_SLURM ? poll : PROGRESS_MS;
	if (now_ms() - b->observed_at >= every) {
		b->observed_at = now_ms();
		observe(b, false);
	} else {
		read_runs(b, false);
	}
	if (b->following)
		schedule(b, PROGRESS_MS);
}

static void schedule(struct batch *b, int64_t ms)
{
	if (!b->timer)
		b->timer = loop_add_timer(b->loop, ms, on_timer, b);
}

void batch_follow(struct batch *b, bool on)
{
	b->following = on;
	if (on)
		schedule(b, 0);
}

int batch_refresh(struct batch *b, struct tp_err *err)
{
	b->observed_at = now_ms();
	observe(b, true);
	while (b->observing)
		if (loop_run_once(b->loop, -1) < 0)
			break;
	if (b->problem) {
		tp_err_set(err, TP_EXIT_ENV, "%s", b->problem);
		return -1;
	}
	return 0;
}

/* ---- starting ---- */

/* Every operator resolved to its name (a path names one too), checked as
 * `tileport run` checks it; an existing run is refused, or with --fresh
 * moved aside (after every check passed: a refusal moves nothing). */
static int check_spec(const struct batch_spec *s, const char *ws, const char *out_root, char ***names,
		      struct tp_err *err)
{
	*names = NULL;
	if (!s->ops || !s->ops[0]) {
		tp_err_set(err, TP_EXIT_USAGE, "no operators: name them, or use --all");
		return -1;
	}
	if (s->jobs < 1) {
		tp_err_set(err, TP_EXIT_USAGE, "--jobs must be at least 1, got %d", s->jobs);
		return -1;
	}
	if (s->name && !batch_name_ok(s->name)) {
		tp_err_set(err, TP_EXIT_USAGE, "'%s' is not a batch name (letters, digits and ._-, not "
					       "starting with '.')", s->name);
		return -1;
	}
	size_t n = strv_len(s->ops);
	char **v = xcalloc(n + 1, sizeof(*v));
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		rc = pipeline_check_op(ws, s->ops[i], s->again, &v[i], err);
		for (size_t k = 0; k < i && rc == 0; k++) {
			if (!strcmp(v[i], v[k])) {
				tp_err_set(err, TP_EXIT_USAGE, "operator '%s' is named twice", v[i]);
				rc = -1;
			}
		}
		char *run = rc == 0 ? path_join(out_root, v[i]) : NULL;
		if (run && run_exists(run) && !s->fresh) {
			tp_err_set(err, TP_EXIT_USAGE, "%s already has a run in %s: resume its batch, start "
						       "afresh with --fresh (the old run is kept, moved aside), "
						       "or leave %s out", v[i], run, v[i]);
			rc = -1;
		} else if (run && run_exists(run) && run_locked(run)) {
			tp_err_set(err, TP_EXIT_ENV, "run %s is in use by another tileport: it cannot be "
						     "moved aside", run);
			rc = -1;
		}
		free(run);
	}
	for (size_t i = 0; i < n && rc == 0 && s->fresh; i++) {
		char *run = path_join(out_root, v[i]), *aside = NULL;
		if (run_exists(run))
			rc = run_move_aside(run, &aside, err);
		free(run);
		free(aside);
	}
	if (rc < 0)
		strv_free(v);
	else
		*names = v;
	return rc;
}

static bool left_behind(const char *dir)
{
	char *rec = path_join(dir, "batch.json"), *lock = path_join(dir, "lock");
	bool yes = !path_is_file(rec) && !lock_held(lock);
	free(rec);
	free(lock);
	return yes;
}

static char *default_name(void)
{
	time_t t = time(NULL);
	struct tm tm;
	localtime_r(&t, &tm);
	char buf[32];
	strftime(buf, sizeof(buf), "%Y%m%d-%H%M%S", &tm);
	return xstrdup(buf);
}

static char **strv_dup(char *const *v)
{
	char **d = xcalloc(strv_len(v) + 1, sizeof(*d));
	for (size_t i = 0; v && v[i]; i++)
		d[i] = xstrdup(v[i]);
	return d;
}

static char *dup_or_null(const char *s)
{
	return s && *s ? xstrdup(s) : NULL;
}

static void fill_record(struct batch_record *r, const struct batch_spec *s, char *const *ops,
			const char *ws, const char *out_root, const char *name, const char *dir,
			const char *secret_vars)
{
	r->schema = BATCH_SCHEMA;
	r->version = xstrdup(TILEPORT_VERSION);
	r->name = xstrdup(name);
	r->dir = xstrdup(dir);
	r->executor = s->executor;
	r->workspace = path_absolute(ws);
	r->out_root = path_absolute(out_root);
	r->jobs = s->jobs;
	/* a key spelled out in a driver is kept as ${NAME}, which the stage's
	 * shell expands again (docs/pipeline.md, Secrets); only secrets: a
	 * path that happens to equal $PWD or $HOME stays a path */
	char **env = env_current();
	char **secrets = env_secrets(env, secret_vars);
	r->run_args = xcalloc(strv_len(s->run_args) + 1, sizeof(*r->run_args));
	for (size_t i = 0; s->run_args && s->run_args[i]; i++)
		r->run_args[i] = redact_secrets(s->run_args[i], secrets);
	strv_free(secrets);
	strv_free(env);
	r->created = wall_ms();
	if (s->slurm) {
		struct batch_slurm *d = &r->slurm;
		d->partition = dup_or_null(s->slurm->partition);
		d->account = dup_or_null(s->slurm->account);
		d->qos = dup_or_null(s->slurm->qos);
		d->time = dup_or_null(s->slurm->time);
		d->gres = dup_or_null(s->slurm->gres);
		d->sbatch_args = strv_dup(s->slurm->sbatch_args);
		d->tileport = dup_or_null(s->slurm->tileport);
		d->poll_ms = s->slurm->poll_ms;
		d->probe = s->slurm->probe;
		d->probe_timeout_ms = s->slurm->probe_timeout_ms;
		d->probe_grace_ms = s->slurm->probe_grace_ms;
	}
	size_t n = strv_len(ops);
	r->ops = xcalloc(n + 1, sizeof(*r->ops));
	for (size_t i = 0; i < n; i++) {
		struct batch_op *o = &r->ops[r->nops++];
		o->op = xstrdup(ops[i]);
		o->run_dir = path_join(r->out_root, o->op);
		o->state = BST_PENDING;
	}
}

int batch_start(struct batch **out, struct session *ss, const struct batch_spec *s,
		struct tp_err *err)
{
	*out = NULL;
	const char *ws = session_workspace(ss), *out_root = session_out_root(ss);
	if (!ws) {
		tp_err_set(err, TP_EXIT_USAGE, "no workspace: use --workspace DIR or set TILEGYM_PATH");
		return -1;
	}
	char **ops;
	if (check_spec(s, ws, out_root, &ops, err) < 0)
		return -1;
	char *name = s->name ? xstrdup(s->name) : default_name();
	char *root = path_join(out_root, BATCH_FOLDER);
	char *dir = batch_dir_of(out_root, name);
	if (mkdir_p(root, 0755, err) < 0) {
		free(root), free(dir), free(name), strv_free(ops);
		return -1;
	}
	/* mkdir of the last part claims the name: two starts cannot share it.
	 * A folder without a record, whose lock nobody holds, is what a start
	 * killed before it wrote one left behind: the name is free again. */
	if (mkdir(dir, 0755) < 0 && (errno != EEXIST || !left_behind(dir) || remove_tree(dir) < 0 ||
				     mkdir(dir, 0755) < 0)) {
		if (errno == EEXIST)
			tp_err_set(err, TP_EXIT_USAGE, "batch %s already exists in %s: resume it with "
						       "'tileport batch resume %s', or choose another --name",
				   name, out_root, name);
		else
			tp_err_set(err, TP_EXIT_ENV, "%s: cannot create: %s", dir, strerror(errno));
		free(root), free(dir), free(name), strv_free(ops);
		return -1;
	}
	struct batch *b = batch_new(ss);
	fill_record(&b->rec, s, ops, ws, out_root, name, dir, session_secret_vars(ss));
	strv_free(ops);
	adopt(b);
	if (s->told)
		batch_listen(b, s->told, s->told_ud);
	size_t n = b->rec.nops;
	size_t *all = xcalloc(n, sizeof(*all));
	for (size_t i = 0; i < n; i++)
		all[i] = i;
	/* held while starting; a local batch keeps it while it runs */
	b->lock_fd = batch_lock(&b->rec, err);
	int rc = b->lock_fd < 0 ? -1 : b->exec->launch(b, all, n, err);
	/* Slurm: the submission wrote the record once sbatch took the array. */
	if (rc == 0 && b->rec.executor == BATCH_LOCAL)
		rc = batch_record_save(&b->rec, b->lock_fd, err);
	if (rc == 0 && b->rec.executor == BATCH_SLURM) {
		lock_release(b->lock_fd);
		b->lock_fd = -1;
	}
	free(all);
	if (rc < 0) {
		/* Nothing half-done is left: no record, no folder. */
		batch_free(b);
		remove_tree(dir);
	} else {
		if (s->told)
			batch_unlisten(b, s->told, s->told_ud);
		*out = b;
	}
	free(root);
	free(dir);
	free(name);
	return rc;
}

/* ---- resume and cancel ---- */

static ssize_t op_index(const struct batch *b, const char *op)
{
	for (size_t i = 0; i < b->rec.nops; i++)
		if (!strcmp(b->rec.ops[i].op, op))
			return (ssize_t)i;
	return -1;
}

/* Keep the stopped run beside the record, out of the way of the new one. */
static int archive_run(struct batch *b, size_t i, struct tp_err *err)
{
	struct batch_op *o = &b->rec.ops[i];
	char *prev = batch_path(&b->rec, "previous");
	if (mkdir_p(prev, 0755, err) < 0) {
		free(prev);
		return -1;
	}
	char *to = NULL;
	for (int k = 1; !to || path_is_dir(to); k++) {
		free(to);
		to = xasprintf("%s/%s.%d", prev, o->op, k);
	}
	int rc = 0;
	if (rename(o->run_dir, to) < 0) {
		tp_err_set(err, TP_EXIT_ENV, "cannot move the stopped run %s to %s: %s", o->run_dir, to,
			   strerror(errno));
		rc = -1;
	} else {
		batch_note(b, i, "%s: the stopped run is kept in %s", o->op, to);
		batch_progress_forget(b, i);
		b->prog[i].geomean = NAN;
	}
	free(prev);
	free(to);
	return rc;
}

/* The write access resume and cancel need: a local batch is driven by
 * this process from now on; a Slurm one is locked for this change. */
static int take_lock(struct batch *b, int *txn, struct tp_err *err)
{
	*txn = -1;
	if (b->lock_fd >= 0)
		return 0;
	int fd = batch_lock(&b->rec, err);
	if (fd < 0)
		return -1;
	struct batch_record disk;
	if (batch_record_load(b->rec.dir, &disk, err) < 0) {
		lock_release(fd);
		return -1;
	}
	if (disk.nops != b->rec.nops) {
		tp_err_set(err, TP_EXIT_USAGE, "%s/batch.json: its operators changed under us", b->rec.dir);
		batch_record_free(&disk);
		lock_release(fd);
		return -1;
	}
	batch_record_free(&b->rec);
	b->rec = disk;
	if (b->jobs_override)
		b->rec.jobs = b->jobs_override;
	if (b->rec.executor == BATCH_LOCAL)
		b->lock_fd = fd;
	else
		*txn = fd;
	return 0;
}

/* Would a new run of op i get the driver that refused it last time: the
 * batch's --driver for that stage, else the config's driver.X, else the
 * default chosen now (an agent installed since would take over)? */
static bool refusal_repeats(const struct batch *b, size_t i)
{
	const struct batch_progress *p = &b->prog[i];
	if (!p->refused_by)
		return false;
	char stage = p->refused_stage;
	const char *spec = NULL;
	for (size_t k = 0; b->rec.run_args && b->rec.run_args[k]; k++)
		if (!strcmp(b->rec.run_args[k], "--driver") && b->rec.run_args[k + 1] &&
		    b->rec.run_args[k + 1][0] == stage && b->rec.run_args[k + 1][1] == '=')
			spec = b->rec.run_args[k + 1] + 2;
	struct stage_commands cfg;
	session_stage_commands(b->s, RUN_NEW, &cfg);
	if (!spec)
		spec = cfg.drivers[stage_slot(stage)];
	if (spec)
		return !strcmp(spec, p->refused_by);
	const struct driver_catalog *cat = session_catalog(b->s);
	if (!cat || !cat->choose)
		return true;
	struct sbuf why = SBUF_INIT;
	char *def = cat->choose(stage, b->rec.ops[i].op, b->rec.workspace, true, &why);
	bool same = !def || !strcmp(def, p->refused_by);
	free(def);
	sb_free(&why);
	return same;
}

static int launch_set(struct batch *b, char *const *rerun, const size_t *only, size_t *started,
		      struct tp_err *err)
{
	size_t n = b->rec.nops, k = 0, nkept = 0, capkept = 0;
	size_t *idx = xcalloc(n + 1, sizeof(*idx));
	strv_free(b->kept);
	b->kept = NULL;
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		if (only && *only != i)
			continue;
		bool named = only != NULL;
		for (size_t r = 0; rerun && rerun[r]; r++)
			named = named || !strcmp(rerun[r], b->rec.ops[i].op);
		enum batch_resume_action act;
		char *kept = NULL;
		rc = batch_resume_decide(&b->rec.ops[i], &b->prog[i], named, refusal_repeats(b, i), &act, &kept,
					 err);
		if (kept) {
			b->kept = xgrow(b->kept, &capkept, nkept + 2, sizeof(*b->kept));
			b->kept[nkept++] = kept;
			b->kept[nkept] = NULL;
		}
		if (rc == 0 && act == BRA_RERUN)
			rc = archive_run(b, i, err);
		if (rc == 0 && act != BRA_KEEP)
			idx[k++] = i;
	}
	if (rc == 0 && k)
		rc = b->exec->launch(b, idx, k, err);
	if (rc == 0 && k && b->lock_fd >= 0)
		rc = batch_record_save(&b->rec, b->lock_fd, err);
	free(idx);
	*started = rc == 0 ? k : 0;
	return rc;
}

static int resume(struct batch *b, char *const *rerun, const size_t *only, size_t *started,
		  struct tp_err *err)
{
	*started = 0;
	for (size_t r = 0; rerun && rerun[r]; r++) {
		if (op_index(b, rerun[r]) < 0) {
			tp_err_set(err, TP_EXIT_USAGE, "--rerun %s: batch %s has no such operator",
				   rerun[r], b->rec.name);
			return -1;
		}
	}
	int txn;
	if (take_lock(b, &txn, err) < 0)
		return -1;
	int rc = batch_refresh(b, err);
	if (rc == 0)
		rc = launch_set(b, rerun, only, started, err);
	if (txn >= 0) {
		/* what was seen and submitted is saved while the lock is held */
		if (rc == 0)
			rc = batch_record_save(&b->rec, txn, err);
		lock_release(txn);
	}
	batch_changed(b);
	return rc;
}

int batch_resume(struct batch *b, char *const *rerun, size_t *started, struct tp_err *err)
{
	return resume(b, rerun, NULL, started, err);
}

char *const *batch_resume_kept(const struct batch *b)
{
	return b->kept;
}

size_t batch_resumable(const struct batch *b, bool named)
{
	size_t n = 0;
	for (size_t i = 0; i < b->rec.nops; i++) {
		enum batch_resume_action act;
		if (batch_resume_decide(&b->rec.ops[i], &b->prog[i], named, refusal_repeats(b, i), &act, NULL,
					NULL) == 0 && act == (named ? BRA_RERUN : BRA_RESUME))
			n++;
	}
	return n;
}

int batch_resume_op(struct batch *b, size_t i, struct tp_err *err)
{
	size_t started;
	if (i >= b->rec.nops)
		return -1;
	const struct batch_op *o = &b->rec.ops[i];
	if (o->state == BST_COMPLETE || o->state == BST_OFFLINE || batch_state_active(o->state)) {
		tp_err_set(err, TP_EXIT_USAGE, "%s is %s: nothing to resume", o->op,
			   batch_state_name(o->state));
		return -1;
	}
	if (resume(b, NULL, &i, &started, err) < 0)
		return -1;
	if (!started) {
		tp_err_set(err, TP_EXIT_USAGE, "%s is %s: nothing to resume", b->rec.ops[i].op,
			   batch_state_name(b->rec.ops[i].state));
		return -1;
	}
	return 0;
}

static int cancel_op(struct batch *b, size_t i, struct tp_err *err)
{
	if (i >= b->rec.nops)
		return -1;
	if (!batch_state_active(b->rec.ops[i].state)) {
		tp_err_set(err, TP_EXIT_USAGE, "%s is %s: nothing to cancel", b->rec.ops[i].op,
			   batch_state_name(b->rec.ops[i].state));
		return -1;
	}
	return b->exec->cancel(b, i, err);
}

int batch_cancel(struct batch *b, char *const *ops, struct tp_err *err)
{
	for (size_t r = 0; ops && ops[r]; r++) {
		if (op_index(b, ops[r]) < 0) {
			tp_err_set(err, TP_EXIT_USAGE, "batch %s has no operator '%s'", b->rec.name, ops[r]);
			return -1;
		}
	}
	int rc = 0, n = 0;
	for (size_t i = 0; i < b->rec.nops && rc == 0; i++) {
		bool named = !ops;
		for (size_t r = 0; ops && ops[r]; r++)
			named = named || !strcmp(ops[r], b->rec.ops[i].op);
		if (!named || (!ops && !batch_state_active(b->rec.ops[i].state)))
			continue;
		if ((rc = cancel_op(b, i, err)) == 0)
			n++;
	}
	if (rc == 0)
		rc = batch_save(b, err);
	return rc < 0 ? -1 : n;
}

void batch_set_jobs(struct batch *b, int jobs)
{
	if (jobs > 0)
		b->rec.jobs = b->jobs_override = jobs;
}

void batch_stop(struct batch *b)
{
	if (b->exec->stop)
		b->exec->stop(b);
}

void batch_stop_wait(struct batch *b)
{
	batch_stop(b);
	while (batch_settling(b))
		if (loop_run_once(b->loop, -1) < 0)
			break;
}

/* ---- what a run is given ---- */

char **batch_run_argv(const struct batch *b, size_t i, const char *prog)
{
	const struct batch_record *r = &b->rec;
	const struct batch_op *o = &r->ops[i];
	size_t n = strv_len(r->run_args);
	char **v = xcalloc(n + 10, sizeof(*v));
	size_t k = 0;
	v[k++] = xstrdup(prog);
	/* absolute: children run in the workspace */
	if (run_exists(o->run_dir)) {
		/* started before: it continues from its own state */
		v[k++] = xstrdup("resume");
		v[k++] = path_absolute(o->run_dir);
	} else {
		v[k++] = xstrdup("run");
		v[k++] = xstrdup(o->op);
		v[k++] = xstrdup("--workspace");
		v[k++] = xstrdup(r->workspace);
		v[k++] = xstrdup("--out");
		v[k++] = path_absolute(r->out_root);
	}
	v[k++] = xstrdup("--headless");
	for (size_t a = 0; a < n; a++)
		v[k++] = xstrdup(r->run_args[a]);
	return v;
}

char *batch_log_path(const struct batch *b, size_t i)
{
	char *rel = xasprintf("logs/%s.log", b->rec.ops[i].op);
	char *p = batch_path(&b->rec, rel);
	free(rel);
	return p;
}
