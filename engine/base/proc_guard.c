/* A stage's process group dies with tileport, even when tileport is killed
 * with SIGKILL (docs/reliability.md, "Processes"). PR_SET_PDEATHSIG tells
 * one process, not its group: so the group's leader is not the command but
 * a forked copy of tileport that never execs. It asks to be told of the
 * parent's death, runs the command as its child in the same group, and
 * waits. Told, it kills the whole group; otherwise it ends as the command
 * ends, with its exit status or its signal, so that the layer above sees
 * the command's end. The signals tileport and terminals send a group
 * (TERM, INT, HUP ...) it ignores: the command decides what they mean, and
 * a leader gone early would leave the command's grace period to the
 * orphan sweep. Everything here runs between fork and exec or in the
 * leader: async-signal-safe calls only. */
#include "engine/base/proc_int.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine/base/sandbox.h"

static void on_parent_death(int sig)
{
	(void)sig;
	kill(0, SIGKILL); /* the whole group, this leader with it */
	_exit(137);
}

void proc_guard_arm(void)
{
	struct sigaction sa = {0};
	sa.sa_handler = on_parent_death;
	sigemptyset(&sa.sa_mask);
	sigaction(PROC_GUARD_SIGNAL, &sa, NULL);
	prctl(PR_SET_PDEATHSIG, PROC_GUARD_SIGNAL);
}

static void tell(int fd, int e)
{
	ssize_t w = write(fd, &e, sizeof(e));
	(void)w;
}

/* The leader never execs, so the descriptors it was forked with would stay
 * open for as long as the stage runs: the run's lock among them, which a
 * resume after a kill would find still held. All go but these. */
static void close_others(int keep1, int keep2)
{
	int lo = keep1 < keep2 ? keep1 : keep2, hi = keep1 < keep2 ? keep2 : keep1;
	unsigned from = 3;
	int keep[] = {lo, hi};
	for (size_t i = 0; i < 2; i++) {
		if (keep[i] < (int)from)
			continue;
		if ((unsigned)keep[i] > from)
			syscall(SYS_close_range, from, (unsigned)keep[i] - 1, 0);
		from = (unsigned)keep[i] + 1;
	}
	syscall(SYS_close_range, from, ~0U, 0);
}

void proc_guard_run(const char *prog, char *const *argv, char *const *env, int rules, int errfd)
{
	close_others(errfd, rules);
	int started[2];
	if (pipe2(started, O_CLOEXEC) < 0) {
		tell(errfd, errno);
		_exit(127);
	}
	pid_t cmd = fork();
	if (cmd < 0) {
		tell(errfd, errno);
		_exit(127);
	}
	if (cmd == 0) {
		/* the leader's handler is not the command's; exec resets it anyway */
		signal(PROC_GUARD_SIGNAL, SIG_DFL);
		close(started[0]);
		if (rules < 0 || sandbox_enter(rules) == 0)
			execve(prog, argv, env);
		tell(started[1], errno);
		_exit(127);
	}
	close(started[1]);
	int e;
	ssize_t r;
	do
		r = read(started[0], &e, sizeof(e));
	while (r < 0 && errno == EINTR);
	if (r == (ssize_t)sizeof(e)) {
		waitpid(cmd, NULL, 0);
		tell(errfd, e);
		_exit(127);
	}
	close(started[0]);
	close(errfd); /* end of file: the command runs */
	static const int group_signals[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGPIPE, SIGALRM, SIGUSR2,
					    SIGTSTP, SIGTTIN, SIGTTOU};
	for (size_t i = 0; i < TP_ARRAY_LEN(group_signals); i++)
		signal(group_signals[i], SIG_IGN);
	int st;
	while (waitpid(cmd, &st, 0) < 0)
		if (errno != EINTR)
			_exit(127);
	if (WIFEXITED(st))
		_exit(WEXITSTATUS(st));
	int s = WTERMSIG(st);
	signal(s, SIG_DFL);
	sigset_t one;
	sigemptyset(&one);
	sigaddset(&one, s);
	sigprocmask(SIG_UNBLOCK, &one, NULL);
	kill(getpid(), s);
	_exit(128 + s);
}
