#include "engine/base/proc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine/base/files.h"
#include "engine/base/proc_int.h"
#include "engine/base/sandbox.h"

extern char **environ;

/* Exit of the group leader is seen through a pidfd (no SIGCHLD handler, so
 * several loops can run children independently); kernels without pidfds
 * fall back to polling waitpid on a short timer. */
#define REAP_POLL_MS 20
/* After the leader exits, pipes still held open by escaped descendants are
 * closed after this long so that a stage always ends. */
#define DRAIN_MS 2000

struct proc {
	struct loop *loop;
	pid_t pid;
	int out_fd, err_fd, pid_fd;
	int go_fd, exec_fd; /* a held child: its release pipe, its exec-error pipe */
	char *prog;         /* for the message when a held child cannot exec */
	bool leader_exited, out_eof, err_eof, done;
	int wstatus;
	enum proc_end kill_reason;
	bool killing;
	uint64_t wall_timer, idle_timer, kill_timer, drain_timer, reap_timer;
	int64_t start_ms, end_ms;
	int64_t idle_ms, grace_ms;
	proc_output_cb on_stdout, on_stderr;
	proc_exit_cb on_exit;
	void *ud;
};

/* ---- orphans (docs/reliability.md, "Process cleanup") ----
 * A stage's child that leaves its process group (setsid, a daemon's double
 * fork) is not reached by kill(-pgid). tileport is a child subreaper, so
 * such a process re-parents to tileport when its own parent dies, instead
 * of to init; when a stage ends, every child of tileport that is not a
 * process this layer started is such an orphan, and is killed with its
 * group. (A cgroup per stage would also catch a process that escapes while
 * its parent lives on; cgroup v2 is not writable on every machine tileport
 * runs on, so this is the mechanism everywhere.) */
static struct proc **live;
static size_t nlive, live_cap;

static void track(struct proc *p)
{
	static bool subreaper;
	if (!subreaper)
		subreaper = prctl(PR_SET_CHILD_SUBREAPER, 1) == 0;
	live = xgrow(live, &live_cap, nlive + 1, sizeof(*live));
	live[nlive++] = p;
}

static void untrack(struct proc *p)
{
	for (size_t i = 0; i < nlive; i++)
		if (live[i] == p) {
			live[i] = live[--nlive];
			break;
		}
}

static bool tracked(pid_t pid)
{
	for (size_t i = 0; i < nlive; i++)
		if (live[i]->pid == pid && !live[i]->leader_exited)
			return true;
	return false;
}

/* Fields 4 and 5 of /proc/PID/stat: the parent and the process group. */
static bool proc_parent(pid_t pid, pid_t *ppid, pid_t *pgid)
{
	char path[64], buf[512];
	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	char *rp = strrchr(buf, ')');
	long pp, pg;
	if (!rp || sscanf(rp + 1, " %*c %ld %ld", &pp, &pg) != 2)
		return false;
	*ppid = (pid_t)pp;
	*pgid = (pid_t)pg;
	return true;
}

/* Kill and reap the orphans there are now; false when there were none. */
static bool sweep_orphans(void)
{
	pid_t self = getpid(), own_group = getpgrp();
	DIR *d = opendir("/proc");
	if (!d)
		return false;
	pid_t found[256];
	size_t nf = 0;
	struct dirent *e;
	while ((e = readdir(d)) && nf < TP_ARRAY_LEN(found)) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);
		pid_t pp, pg;
		/* Every stage starts a session of its own, so whatever came from
		 * one is outside our process group; a child of ours in it (the
		 * screen's editor) is no orphan of a stage. */
		if (*end || pid <= 0 || !proc_parent((pid_t)pid, &pp, &pg) || pp != self ||
		    pg == own_group || tracked((pid_t)pid))
			continue;
		if (pg > 1)
			kill(-pg, SIGKILL);
		kill((pid_t)pid, SIGKILL);
		found[nf++] = (pid_t)pid;
	}
	closedir(d);
	for (size_t i = 0; i < nf; i++)
		waitpid(found[i], NULL, 0);
	return nf > 0;
}

/* The stage's group was sent SIGKILL: until every member is gone, a
 * member's child may not have re-parented to us yet, so sweep until the
 * group is empty, then until a sweep finds no one (each dying orphan hands
 * its own children to us). While another child of this layer runs, an
 * orphan may be its helper: the sweep waits for the last one. */
static void kill_orphans(pid_t group)
{
	for (size_t i = 0; i < nlive; i++)
		if (!live[i]->leader_exited)
			return;
	for (int i = 0; i < 100000 && kill(-group, 0) == 0; i++)
		if (!sweep_orphans())
			sched_yield();
	for (int round = 0; round < 64 && sweep_orphans(); round++)
		;
}

static void set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

char **env_current(void)
{
	size_t n = strv_len(environ);
	char **v = xcalloc(n + 1, sizeof(*v));
	for (size_t i = 0; i < n; i++)
		v[i] = xstrdup(environ[i]);
	return v;
}

static ssize_t env_find(char *const *env, const char *name)
{
	size_t ln = strlen(name);
	for (size_t i = 0; env && env[i]; i++)
		if (strncmp(env[i], name, ln) == 0 && env[i][ln] == '=')
			return (ssize_t)i;
	return -1;
}

void env_set(char ***env, const char *name, const char *value)
{
	char *kv = xasprintf("%s=%s", name, value);
	ssize_t i = env_find(*env, name);
	if (i >= 0) {
		free((*env)[i]);
		(*env)[i] = kv;
		return;
	}
	size_t n = strv_len(*env);
	*env = xrealloc(*env, (n + 2) * sizeof(**env));
	(*env)[n] = kv;
	(*env)[n + 1] = NULL;
}

void env_unset(char ***env, const char *name)
{
	ssize_t i = env_find(*env, name);
	if (i < 0)
		return;
	free((*env)[i]);
	size_t n = strv_len(*env);
	memmove(*env + i, *env + i + 1, (n - (size_t)i) * sizeof(**env));
}

const char *env_get(char *const *env, const char *name)
{
	ssize_t i = env_find(env, name);
	return i < 0 ? NULL : env[i] + strlen(name) + 1;
}

char *argv_quote(char *const *argv)
{
	struct sbuf sb = SBUF_INIT;
	for (size_t i = 0; argv[i]; i++) {
		if (i)
			sb_addc(&sb, ' ');
		const char *a = argv[i];
		bool plain = *a != '\0';
		for (const char *c = a; *c && plain; c++)
			plain = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				       "0123456789-_./=:,+@%", *c) != NULL;
		if (plain) {
			sb_adds(&sb, a);
			continue;
		}
		sb_addc(&sb, '\'');
		for (const char *c = a; *c; c++) {
			if (*c == '\'')
				sb_adds(&sb, "'\\''");
			else
				sb_addc(&sb, *c);
		}
		sb_addc(&sb, '\'');
	}
	return sb_detach(&sb);
}


static void log_command(const char *logpath, pid_t pid, const struct proc_opts *o)
{
	char ts[32];
	iso8601_utc(wall_ms(), ts);
	/* API keys live in the environment; a command line that spells one out
	 * must not carry it into the run directory. */
	char *raw = argv_quote(o->argv);
	/* the caller's list (already the secrets), else the environment's */
	char **secrets = o->redact ? NULL : env_secrets(o->env, NULL);
	char *q = redact_secrets(raw, o->redact ? o->redact : secrets);
	strv_free(secrets);
	free(raw);
	struct sbuf conf = SBUF_INIT;
	for (size_t i = 0; o->write_only_beneath && o->write_only_beneath[i]; i++)
		sb_printf(&conf, "%s%s", i ? ", " : "  (writes only beneath ", o->write_only_beneath[i]);
	for (size_t i = 0; o->write_only_beneath && o->write_except && o->write_except[i]; i++)
		sb_printf(&conf, "%s%s", i ? ", " : "; not beneath ", o->write_except[i]);
	if (conf.len)
		sb_addc(&conf, ')');
	char *line = xasprintf("%s pid=%ld cwd=%s: %s%s\n", ts, (long)pid, o->cwd ? o->cwd : ".", q,
			       sb_str(&conf));
	sb_free(&conf);
	struct tp_err err;
	if (append_file(logpath, line, strlen(line), &err) < 0)
		fprintf(stderr, "tileport: %s\n", err.msg);
	free(line);
	free(q);
}

static void finish(struct proc *p)
{
	if (p->done || !p->leader_exited || !p->out_eof || !p->err_eof)
		return;
	p->done = true;
	p->end_ms = now_ms();
	struct loop *l = p->loop;
	uint64_t *timers[] = {&p->wall_timer, &p->idle_timer, &p->kill_timer, &p->drain_timer,
			      &p->reap_timer};
	for (size_t i = 0; i < TP_ARRAY_LEN(timers); i++) {
		if (*timers[i])
			loop_cancel_timer(l, *timers[i]);
		*timers[i] = 0;
	}
	struct proc_status st = {.elapsed_ms = p->end_ms - p->start_ms};
	if (WIFSIGNALED(p->wstatus))
		st.signo = WTERMSIG(p->wstatus);
	if (p->killing)
		st.end = p->kill_reason;
	else if (WIFEXITED(p->wstatus))
		st.end = PROC_EXITED;
	else
		st.end = PROC_SIGNALED;
	st.code = WIFEXITED(p->wstatus) ? WEXITSTATUS(p->wstatus) : -1;
	if (p->on_exit)
		p->on_exit(p, &st, p->ud);
}

static void close_pipe(struct proc *p, int *fd, bool *eof)
{
	if (*fd >= 0) {
		loop_remove_fd(p->loop, *fd);
		close(*fd);
		*fd = -1;
	}
	*eof = true;
}

static void on_idle(struct loop *l, void *ud);

static void on_output(struct loop *l, int fd, short rev, void *ud)
{
	struct proc *p = ud;
	(void)rev;
	char buf[65536];
	bool is_out = fd == p->out_fd;
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n > 0) {
			proc_output_cb cb = is_out ? p->on_stdout : p->on_stderr;
			if (cb)
				cb(p, buf, (size_t)n, p->ud);
			if (p->idle_timer) {
				loop_cancel_timer(l, p->idle_timer);
				p->idle_timer = loop_add_timer(l, p->idle_ms, on_idle, p);
			}
			if ((size_t)n < sizeof(buf))
				return; /* drained for now; poll tells us about more */
			continue;
		}
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		/* EOF or a hard error both end this stream. */
		if (is_out)
			close_pipe(p, &p->out_fd, &p->out_eof);
		else
			close_pipe(p, &p->err_fd, &p->err_eof);
		finish(p);
		return;
	}
}

static void on_drain_timeout(struct loop *l, void *ud)
{
	struct proc *p = ud;
	(void)l;
	p->drain_timer = 0;
	close_pipe(p, &p->out_fd, &p->out_eof);
	close_pipe(p, &p->err_fd, &p->err_eof);
	finish(p);
}

static void reap(struct proc *p)
{
	if (p->leader_exited)
		return;
	int ws;
	pid_t r = waitpid(p->pid, &ws, WNOHANG);
	if (r != p->pid)
		return;
	p->leader_exited = true;
	p->wstatus = ws;
	if (p->pid_fd >= 0) {
		loop_remove_fd(p->loop, p->pid_fd);
		close(p->pid_fd);
		p->pid_fd = -1;
	}
	/* Nothing the stage started may outlive it. */
	kill(-p->pid, SIGKILL);
	kill_orphans(p->pid);
	if (!p->out_eof || !p->err_eof)
		p->drain_timer = loop_add_timer(p->loop, DRAIN_MS, on_drain_timeout, p);
	finish(p);
}

static void on_pidfd(struct loop *l, int fd, short rev, void *ud)
{
	(void)l;
	(void)fd;
	(void)rev;
	reap(ud);
}

static void on_reap_poll(struct loop *l, void *ud)
{
	struct proc *p = ud;
	p->reap_timer = 0;
	reap(p);
	if (!p->leader_exited)
		p->reap_timer = loop_add_timer(l, REAP_POLL_MS, on_reap_poll, p);
}

static void on_kill_grace(struct loop *l, void *ud)
{
	struct proc *p = ud;
	(void)l;
	p->kill_timer = 0;
	kill(-p->pid, SIGKILL);
}

static void terminate(struct proc *p, enum proc_end why)
{
	if (p->killing || p->leader_exited)
		return;
	p->killing = true;
	p->kill_reason = why;
	kill(-p->pid, SIGTERM);
	p->kill_timer = loop_add_timer(p->loop, p->grace_ms, on_kill_grace, p);
}

static void on_wall(struct loop *l, void *ud)
{
	struct proc *p = ud;
	(void)l;
	p->wall_timer = 0;
	terminate(p, PROC_TIMED_OUT);
}

static void on_idle(struct loop *l, void *ud)
{
	struct proc *p = ud;
	(void)l;
	p->idle_timer = 0;
	terminate(p, PROC_IDLE_TIMEOUT);
}

/* Whether the child got to exec: its exec-error pipe closes on exec, or
 * brings the errno of the failure. */
static int exec_result(struct proc *p, struct tp_err *err)
{
	int child_errno = 0;
	ssize_t r;
	do
		r = read(p->exec_fd, &child_errno, sizeof(child_errno));
	while (r < 0 && errno == EINTR);
	close(p->exec_fd);
	p->exec_fd = -1;
	if (r != (ssize_t)sizeof(child_errno))
		return 0;
	tp_err_set(err, TP_EXIT_ENV, "%s: cannot run: %s", p->prog, strerror(child_errno));
	return -1;
}

static void close_fds(const int *fds, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

/* Runs in the child between fork and exec: async-signal-safe calls only. */
static void child_fail(int errfd, int e)
{
	ssize_t r = write(errfd, &e, sizeof(e));
	(void)r;
	_exit(127);
}

struct proc *proc_spawn(struct loop *l, const struct proc_opts *o, struct tp_err *err)
{
	char *prog = which_in(o->argv[0], env_get(o->env, "PATH"));
	if (!prog) {
		tp_err_set(err, TP_EXIT_ENV, "%s: command not found", o->argv[0]);
		return NULL;
	}
	const char *in_path = o->stdin_path ? o->stdin_path : "/dev/null";
	int in_fd = open(in_path, O_RDONLY | O_CLOEXEC);
	if (in_fd < 0) {
		tp_err_set(err, TP_EXIT_ENV, "%s: cannot open for stdin: %s", in_path, strerror(errno));
		free(prog);
		return NULL;
	}
	/* Output to a file needs no reader: the child may outlive us. */
	int out[2] = {-1, -1}, errp[2] = {-1, -1}, ep[2] = {-1, -1}, go[2] = {-1, -1};
	int file_fd = -1;
	if (o->output_path) {
		file_fd = open(o->output_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (file_fd < 0) {
			tp_err_set(err, TP_EXIT_ENV, "%s: cannot open for output: %s", o->output_path,
				   strerror(errno));
			close(in_fd);
			free(prog);
			return NULL;
		}
		out[1] = errp[1] = file_fd;
	}
	if ((!o->output_path && (pipe2(out, O_CLOEXEC) < 0 || pipe2(errp, O_CLOEXEC) < 0)) ||
	    pipe2(ep, O_CLOEXEC) < 0 || (o->held && pipe2(go, O_CLOEXEC) < 0)) {
		tp_err_set(err, TP_EXIT_ENV, "pipe: %s", strerror(errno));
		close(in_fd);
		if (file_fd >= 0)
			close(file_fd);
		free(prog);
		return NULL;
	}
	int rules = o->write_only_beneath ? sandbox_ruleset(o->write_only_beneath, o->write_except, err) : -1;
	if (o->write_only_beneath && rules < 0) {
		close(in_fd);
		close_fds((int[]){out[0], out[1], errp[0], file_fd >= 0 ? -1 : errp[1], ep[0], ep[1]}, 6);
		free(prog);
		return NULL;
	}
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid < 0) {
		tp_err_set(err, TP_EXIT_ENV, "fork: %s", strerror(errno));
		if (rules >= 0)
			close(rules);
		close(in_fd);
		close_fds((int[]){out[0], out[1], errp[0], file_fd >= 0 ? -1 : errp[1], ep[0], ep[1], go[0], go[1]},
			  8);
		free(prog);
		return NULL;
	}
	if (pid == 0) {
		/* A new session: a new process group we can signal as a whole, and
		 * no controlling terminal, so a stage can never read the TUI's keys. */
		setsid();
		/* Told when this process dies, even by SIGKILL; a parent that died
		 * before prctl took effect is not told again. */
		if (o->parent_death_signal && !o->group_dies_with_us &&
		    (prctl(PR_SET_PDEATHSIG, o->parent_death_signal) < 0 || getppid() != parent))
			_exit(127);
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		for (int s = 1; s < NSIG; s++)
			if (s != SIGKILL && s != SIGSTOP)
				signal(s, SIG_DFL);
		if (o->group_dies_with_us) {
			proc_guard_arm();
			if (getppid() != parent)
				_exit(127);
		}
		if (dup2(in_fd, 0) < 0 || dup2(out[1], 1) < 0 || dup2(errp[1], 2) < 0)
			child_fail(ep[1], errno);
		if (o->cwd && chdir(o->cwd) < 0)
			child_fail(ep[1], errno);
		if (o->held) {
			/* A byte: go. End of file: whoever held us died before letting
			 * us run; nothing of the stage may happen then. */
			close(go[1]);
			char c;
			ssize_t g;
			do
				g = read(go[0], &c, 1);
			while (g < 0 && errno == EINTR);
			if (g != 1)
				_exit(0);
		}
		if (o->group_dies_with_us)
			proc_guard_run(prog, o->argv, o->env, rules, ep[1]);
		if (rules >= 0 && sandbox_enter(rules) < 0)
			child_fail(ep[1], errno);
		execve(prog, o->argv, o->env);
		child_fail(ep[1], errno);
	}
	close(in_fd);
	if (rules >= 0)
		close(rules);
	close_fds((int[]){out[1], file_fd >= 0 ? -1 : errp[1], ep[1]}, 3);
	struct proc *p = xcalloc(1, sizeof(*p));
	p->go_fd = -1;
	p->exec_fd = ep[0];
	p->prog = prog;
	if (o->held) {
		close(go[0]);
		p->go_fd = go[1];
	} else if (exec_result(p, err) < 0) {
		waitpid(pid, NULL, 0);
		close_fds((int[]){out[0], errp[0]}, 2);
		free(p->prog);
		free(p);
		return NULL;
	}
	p->loop = l;
	p->pid = pid;
	p->out_fd = out[0];
	p->err_fd = errp[0];
	p->out_eof = p->err_eof = file_fd >= 0;
	p->start_ms = now_ms();
	p->idle_ms = o->idle_timeout_ms;
	p->grace_ms = o->kill_grace_ms > 0 ? o->kill_grace_ms : 2000;
	p->on_stdout = o->on_stdout;
	p->on_stderr = o->on_stderr;
	p->on_exit = o->on_exit;
	p->ud = o->ud;
	track(p);
	if (o->command_log)
		log_command(o->command_log, pid, o);
	if (file_fd < 0) {
		set_nonblock(p->out_fd);
		set_nonblock(p->err_fd);
		loop_add_fd(l, p->out_fd, POLLIN, on_output, p);
		loop_add_fd(l, p->err_fd, POLLIN, on_output, p);
	}
	p->pid_fd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (p->pid_fd >= 0)
		loop_add_fd(l, p->pid_fd, POLLIN, on_pidfd, p);
	else
		p->reap_timer = loop_add_timer(l, REAP_POLL_MS, on_reap_poll, p);
	if (o->timeout_ms > 0)
		p->wall_timer = loop_add_timer(l, o->timeout_ms, on_wall, p);
	if (o->idle_timeout_ms > 0 && file_fd < 0)
		p->idle_timer = loop_add_timer(l, o->idle_timeout_ms, on_idle, p);
	return p;
}

pid_t proc_pid(const struct proc *p)
{
	return p->pid;
}

int proc_release(struct proc *p, struct tp_err *err)
{
	if (p->go_fd < 0)
		return 0;
	ssize_t w;
	do
		w = write(p->go_fd, "g", 1);
	while (w < 0 && errno == EINTR);
	close(p->go_fd);
	p->go_fd = -1;
	return exec_result(p, err);
}

void proc_kill(struct proc *p)
{
	if (p && !p->done)
		terminate(p, PROC_KILLED);
}

void proc_free(struct proc *p)
{
	if (!p)
		return;
	if (!p->leader_exited) {
		kill(-p->pid, SIGKILL);
		waitpid(p->pid, NULL, 0);
		p->leader_exited = true;
		kill_orphans(p->pid);
	}
	untrack(p);
	p->on_exit = NULL;
	if (p->go_fd >= 0)
		close(p->go_fd);
	if (p->exec_fd >= 0)
		close(p->exec_fd);
	free(p->prog);
	close_pipe(p, &p->out_fd, &p->out_eof);
	close_pipe(p, &p->err_fd, &p->err_eof);
	if (p->pid_fd >= 0) {
		loop_remove_fd(p->loop, p->pid_fd);
		close(p->pid_fd);
	}
	finish(p);
	free(p);
}

void proc_wait(struct loop *l, struct proc *p, const bool *done, bool (*stop)(void *ud), void *ud)
{
	bool asked = false;
	while (!*done) {
		if (!asked && stop && stop(ud)) {
			proc_kill(p);
			asked = true;
		}
		if (loop_run_once(l, -1) < 0 && errno != EINTR)
			break;
	}
}

struct sync_ctx {
	struct sbuf *out, *err;
	struct proc_status st;
	bool done;
};

static void sync_out(struct proc *p, const char *d, size_t n, void *ud)
{
	(void)p;
	struct sync_ctx *c = ud;
	if (c->out)
		sb_add(c->out, d, n);
}

static void sync_err(struct proc *p, const char *d, size_t n, void *ud)
{
	(void)p;
	struct sync_ctx *c = ud;
	if (c->err)
		sb_add(c->err, d, n);
}

static void sync_exit(struct proc *p, const struct proc_status *st, void *ud)
{
	(void)p;
	struct sync_ctx *c = ud;
	c->st = *st;
	c->done = true;
}

int proc_run_sync(const struct proc_opts *o, struct sbuf *out, struct sbuf *errout,
		  struct proc_status *st, struct tp_err *err)
{
	struct loop *l = loop_new();
	struct sync_ctx c = {out, errout, {0}, false};
	struct proc_opts so = *o;
	so.on_stdout = sync_out;
	so.on_stderr = sync_err;
	so.on_exit = sync_exit;
	so.ud = &c;
	struct proc *p = proc_spawn(l, &so, err);
	if (!p) {
		loop_free(l);
		return -1;
	}
	while (!c.done)
		if (loop_run_once(l, -1) < 0 && errno != EINTR)
			break;
	proc_free(p);
	loop_free(l);
	if (st)
		*st = c.st;
	return c.done ? 0 : -1;
}

char *proc_first_line(char *const *argv, int64_t timeout_ms)
{
	char **env = env_current();
	struct proc_opts o = {.argv = argv, .env = env, .timeout_ms = timeout_ms, .kill_grace_ms = 200};
	struct sbuf out = SBUF_INIT;
	struct proc_status st;
	char *line = NULL;
	if (proc_run_sync(&o, &out, NULL, &st, NULL) == 0 && st.end == PROC_EXITED && st.code == 0) {
		const char *s = sb_str(&out);
		line = xstrndup(s, strcspn(s, "\n"));
	}
	sb_free(&out);
	strv_free(env);
	return line;
}

void proc_status_str(const struct proc_status *st, char *buf, size_t n)
{
	switch (st->end) {
	case PROC_EXITED:
		snprintf(buf, n, "exit %d", st->code);
		break;
	case PROC_SIGNALED:
		snprintf(buf, n, "killed by signal %d (%s)", st->signo, strsignal(st->signo));
		break;
	case PROC_TIMED_OUT:
		snprintf(buf, n, "timed out after %.1fs", (double)st->elapsed_ms / 1000.0);
		break;
	case PROC_IDLE_TIMEOUT:
		snprintf(buf, n, "no output for too long; killed after %.1fs",
			 (double)st->elapsed_ms / 1000.0);
		break;
	case PROC_KILLED:
		snprintf(buf, n, "stopped on request after %.1fs", (double)st->elapsed_ms / 1000.0);
		break;
	case PROC_EXEC_FAILED:
		snprintf(buf, n, "could not start: %s", strerror(st->code));
		break;
	}
}
