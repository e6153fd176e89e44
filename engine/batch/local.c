/* The local executor: up to `jobs` runs at once, each a child `tileport
 * run OP --headless` (or `resume RUN`) of this process on the shared loop,
 * its output appended to the batch folder's logs/OP.log (a file, not a
 * pipe: a child outlives a killed parent long enough to finish writing). A
 * child gets SIGTERM when this process dies, so that it saves its run and
 * stops; a later `batch resume` continues it. A cancel from another tileport is a
 * marker file (cancel.OP) and a SIGTERM to the child, so that the driving
 * tileport records the op as cancelled. */
#include "engine/batch/batch_int.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/base/files.h"
#include "engine/base/lock.h"
#include "engine/base/proc.h"
#include "engine/core/run.h"

struct child {
	struct batch *b;
	size_t op;
	struct proc *proc;
	bool cancel; /* stopped by hand: ends cancelled */
	char *log;
};

struct local_state {
	struct child *kids; /* one per op; proc NULL when none */
	size_t running;
	uint64_t pump_timer;
	bool stopping;
	char host[256];
};

static struct local_state *state(struct batch *b)
{
	if (!b->local) {
		b->local = xcalloc(1, sizeof(*b->local));
		b->local->kids = xcalloc(b->rec.nops + 1, sizeof(*b->local->kids));
		if (gethostname(b->local->host, sizeof(b->local->host) - 1) < 0)
			strcpy(b->local->host, "localhost");
	}
	return b->local;
}

static char *cancel_marker(const struct batch *b, size_t i)
{
	char *rel = xasprintf("cancel.%s", b->rec.ops[i].op);
	char *p = batch_path(&b->rec, rel);
	free(rel);
	return p;
}

static void pump(struct batch *b);

static void on_exit_child(struct proc *p, const struct proc_status *st, void *ud)
{
	struct child *c = ud;
	struct batch *b = c->b;
	struct local_state *ls = b->local;
	size_t i = c->op;
	char how[128];
	proc_status_str(st, how, sizeof(how));
	char *marker = cancel_marker(b, i);
	bool cancel = c->cancel || path_is_file(marker);
	unlink(marker);
	free(marker);
	batch_progress_read(b, i, true);
	enum batch_state s = batch_state_from(&b->prog[i], cancel ? JOB_CANCELLED : JOB_ENDED);
	if (s == BST_FAILED && ls->stopping)
		s = BST_PENDING; /* stopped by us before its run began: it never started */
	char *why = NULL, *tail = s == BST_FAILED ? file_last_line(c->log) : NULL;
	if (tail)
		why = xasprintf("%s: %s", how, tail);
	else if (!batch_state_final(s))
		why = xasprintf("%s%s", cancel ? "cancelled by hand, " : "", how);
	free(tail);
	c->proc = NULL;
	proc_free(p);
	free(c->log);
	c->log = NULL;
	ls->running--;
	batch_set_state(b, i, s, why);
	free(why);
	struct tp_err err;
	if (batch_save(b, &err) < 0)
		batch_note(b, i, "cannot save the batch record: %s", err.msg);
	if (!ls->stopping)
		pump(b);
}

static int spawn(struct batch *b, size_t i, struct tp_err *err)
{
	struct local_state *ls = b->local;
	struct child *c = &ls->kids[i];
	struct batch_op *o = &b->rec.ops[i];
	char *logs = batch_path(&b->rec, "logs");
	int rc = mkdir_p(logs, 0755, err);
	free(logs);
	char *self = rc < 0 ? NULL : tp_self_exe();
	if (rc == 0 && !self)
		tp_err_set(err, TP_EXIT_ENV, "cannot find this tileport's binary (/proc/self/exe)");
	if (!self)
		return -1;
	char **argv = batch_run_argv(b, i, self);
	free(self);
	char **env = env_current();
	env_set(&env, "TILEPORT_BATCH", b->rec.name);
	c->b = b;
	c->op = i;
	c->cancel = false;
	c->log = batch_log_path(b, i);
	char *q = argv_quote(argv);
	char *head = xasprintf("== tileport batch %s: start %d of %s: %s\n", b->rec.name, o->starts + 1,
			       o->op, q);
	append_file(c->log, head, strlen(head), NULL);
	free(head);
	free(q);
	struct proc_opts po = {
		.argv = argv, .env = env, .cwd = b->rec.workspace, .parent_death_signal = SIGTERM,
		.output_path = c->log, .on_exit = on_exit_child, .ud = c,
		/* a run stopping on TERM aborts its stage (its own grace) first */
		.kill_grace_ms = 10000,
	};
	c->proc = proc_spawn(b->loop, &po, err);
	strv_free(argv);
	strv_free(env);
	if (!c->proc) {
		free(c->log);
		c->log = NULL;
		return -1;
	}
	ls->running++;
	long pid = (long)proc_pid(c->proc);
	free(o->job);
	o->job = xasprintf("pid %ld", pid);
	o->pid_start = proc_start_time(pid);
	free(o->node);
	o->node = xstrdup(ls->host);
	o->starts++;
	o->started = wall_ms();
	o->ended = 0;
	batch_set_state(b, i, BST_RUNNING, NULL);
	return 0;
}

static void pump(struct batch *b)
{
	if (b->lock_fd < 0)
		return; /* not (or no longer) the batch's driver */
	struct local_state *ls = state(b);
	bool changed = false;
	for (size_t i = 0; i < b->rec.nops && ls->running < (size_t)b->rec.jobs; i++) {
		if (b->rec.ops[i].state != BST_QUEUED || ls->kids[i].proc)
			continue;
		struct tp_err err;
		if (spawn(b, i, &err) < 0)
			batch_set_state(b, i, BST_FAILED, err.msg);
		changed = true;
	}
	struct tp_err err;
	if (changed && batch_save(b, &err) < 0)
		batch_note(b, 0, "cannot save the batch record: %s", err.msg);
}

static void on_pump(struct loop *l, void *ud)
{
	(void)l;
	struct batch *b = ud;
	b->local->pump_timer = 0;
	pump(b);
}

static int local_launch(struct batch *b, const size_t *idx, size_t n, struct tp_err *err)
{
	(void)err;
	struct local_state *ls = state(b);
	for (size_t k = 0; k < n; k++)
		batch_set_state(b, idx[k], BST_QUEUED, NULL);
	/* Children start from the loop, never inside the caller. */
	if (!ls->pump_timer)
		ls->pump_timer = loop_add_timer(b->loop, 0, on_pump, b);
	return 0;
}

/* Is the recorded child (pid N, started at pid_start) still that process? */
static long recorded_pid(const struct batch_op *o)
{
	long pid = 0;
	if (!o->job || sscanf(o->job, "pid %ld", &pid) != 1 || pid <= 0)
		return 0;
	return proc_start_time(pid) == o->pid_start ? pid : 0;
}

static int local_cancel(struct batch *b, size_t i, struct tp_err *err)
{
	struct batch_op *o = &b->rec.ops[i];
	if (b->lock_fd >= 0) {
		struct child *c = &state(b)->kids[i];
		if (c->proc) {
			c->cancel = true;
			proc_kill(c->proc);
		} else {
			batch_set_state(b, i, BST_CANCELLED, "cancelled by hand before it started");
		}
		return 0;
	}
	/* Another tileport drives the batch: ask its child to stop. */
	long pid = recorded_pid(o);
	if (o->state == BST_RUNNING && pid) {
		char *marker = cancel_marker(b, i);
		int rc = write_file(marker, "", 0, err);
		free(marker);
		if (rc < 0)
			return -1;
		kill((pid_t)pid, SIGTERM);
		return 0;
	}
	tp_err_set(err, TP_EXIT_ENV, "%s is %s in a batch another tileport drives; cancel it there "
				     "(or cancel the whole batch)", o->op, batch_state_name(o->state));
	return -1;
}

/* Without the children in this process, the runs' own files say it. */
static void local_observe(struct batch *b)
{
	bool driver_alive = b->lock_fd >= 0;
	if (!driver_alive) {
		char *lock = batch_path(&b->rec, "lock");
		driver_alive = lock_held(lock);
		free(lock);
	}
	bool requeue = false;
	for (size_t i = 0; i < b->rec.nops; i++) {
		struct batch_op *o = &b->rec.ops[i];
		const struct batch_progress *p = &b->prog[i];
		bool ours = b->lock_fd >= 0 && b->local && b->local->kids[i].proc;
		if (ours || (b->lock_fd < 0 && driver_alive))
			continue; /* the driving tileport keeps the record right */
		if (b->lock_fd >= 0 && o->state == BST_QUEUED)
			continue; /* waiting for a slot here */
		if (p->locked) {
			/* A run going on elsewhere (a child left by a killed batch,
			 * or someone's `tileport resume`): wait for it. */
			batch_set_state(b, i, BST_RUNNING, "run by another tileport");
			continue;
		}
		if (!batch_state_active(o->state))
			continue;
		enum batch_state s = batch_state_from(p, JOB_GONE);
		if (s == BST_FAILED && !o->starts)
			s = BST_PENDING;
		/* The run we waited for is free now: take it up again. */
		if (b->lock_fd >= 0 && o->why && !strcmp(o->why, "run by another tileport") &&
		    !batch_state_final(s)) {
			batch_set_state(b, i, BST_QUEUED, NULL);
			requeue = true;
			continue;
		}
		batch_set_state(b, i, s, batch_state_final(s) ? NULL : "its batch's tileport is gone");
	}
	if (requeue)
		pump(b);
	batch_observed(b, NULL);
}

static bool local_settling(const struct batch *b)
{
	const struct local_state *ls = b->local;
	if (!ls)
		return false;
	if (ls->pump_timer)
		return true;
	for (size_t i = 0; i < b->rec.nops; i++)
		if (ls->kids[i].proc && (ls->kids[i].cancel || ls->stopping))
			return true;
	return false;
}

static void local_stop(struct batch *b)
{
	struct local_state *ls = b->local;
	if (!ls)
		return;
	ls->stopping = true;
	if (ls->pump_timer) {
		loop_cancel_timer(b->loop, ls->pump_timer);
		ls->pump_timer = 0;
	}
	for (size_t i = 0; i < b->rec.nops; i++) {
		if (ls->kids[i].proc)
			proc_kill(ls->kids[i].proc);
		else if (b->rec.ops[i].state == BST_QUEUED)
			batch_set_state(b, i, BST_PENDING, NULL);
	}
}

static void local_free(struct batch *b)
{
	struct local_state *ls = b->local;
	if (!ls)
		return;
	if (ls->pump_timer)
		loop_cancel_timer(b->loop, ls->pump_timer);
	for (size_t i = 0; i < b->rec.nops; i++) {
		struct child *c = &ls->kids[i];
		if (c->proc) {
			/* The caller should have stopped them (batch_stop); a
			 * child killed here is resumed like a crashed one. */
			proc_free(c->proc);
			c->proc = NULL;
		}
		free(c->log);
	}
	free(ls->kids);
	free(ls);
	b->local = NULL;
}

const struct batch_exec batch_local_exec = {
	.launch = local_launch,
	.cancel = local_cancel,
	.observe = local_observe,
	.settling = local_settling,
	.stop = local_stop,
	.free = local_free,
};
