/* $EDITOR and $PAGER on a file: curses is suspended, the program gets the
 * terminal in our foreground process group, and the event loop keeps
 * serving everything but the keyboard until it exits, so a live run goes
 * on (and its timeouts stay honest) while the user edits. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tui/app.h"
#include "tui/display.h"

static const char *program_for(enum external_kind kind)
{
	const char *p;
	if (kind == EXTERNAL_EDITOR) {
		if ((p = getenv("VISUAL")) && *p)
			return p;
		if ((p = getenv("EDITOR")) && *p)
			return p;
		return "vi";
	}
	if ((p = getenv("PAGER")) && *p)
		return p;
	return "less";
}

static void child_exited(struct loop *l, int fd, short revents, void *data)
{
	(void)l, (void)fd, (void)revents;
	*(bool *)data = true;
}

int external_open(struct app *a, enum external_kind kind, const char *path, long line)
{
	const char *prog = program_for(kind);
	/* Through the shell: $EDITOR may carry its own arguments. */
	char *script = xasprintf("exec %s \"$@\"", prog);
	char lineopt[32];
	snprintf(lineopt, sizeof(lineopt), "+%ld", line);
	char *argv[6];
	int n = 0;
	argv[n++] = "sh";
	argv[n++] = "-c";
	argv[n++] = script;
	argv[n++] = "sh";
	if (kind == EXTERNAL_EDITOR && line > 0) {
		argv[n++] = lineopt;
	}
	argv[n++] = (char *)path;
	char *full[8];
	for (int i = 0; i < n; i++)
		full[i] = argv[i];
	full[n] = NULL;

	int in_fd = display_input_fd();
	if (in_fd >= 0)
		loop_set_events(a->loop, in_fd, 0);
	display_suspend();
	a->external_running = true;
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		if (display_virtual()) {
			int devnull = open("/dev/null", O_RDONLY);
			if (devnull >= 0)
				dup2(devnull, STDIN_FILENO);
		}
		execvp("/bin/sh", full);
		_exit(127);
	}
	int status = 0;
	int fork_errno = pid < 0 ? errno : 0;
	bool reaped = false;
	if (pid > 0) {
		bool done = false;
		int pfd = (int)syscall(SYS_pidfd_open, pid, 0);
		if (pfd >= 0)
			loop_add_fd(a->loop, pfd, POLLIN, child_exited, &done);
		while (!done) {
			loop_run_once(a->loop, pfd >= 0 ? -1 : 50);
			if (pfd < 0 && waitpid(pid, &status, WNOHANG) == pid) {
				reaped = true;
				break;
			}
		}
		if (pfd >= 0) {
			loop_remove_fd(a->loop, pfd);
			close(pfd);
		}
		if (!reaped)
			while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
				;
	}
	a->external_running = false;
	display_resume();
	if (in_fd >= 0)
		loop_set_events(a->loop, in_fd, POLLIN);
	screen_redraw_all(a);
	free(script);
	if (pid < 0) {
		app_report(a, true, "cannot run %s: %s", prog, strerror(fork_errno));
		return -1;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
		app_report(a, true, "%s exited with status %d", prog, WEXITSTATUS(status));
		return -1;
	}
	if (WIFSIGNALED(status)) {
		app_report(a, true, "%s was killed by signal %d", prog, WTERMSIG(status));
		return -1;
	}
	return 0;
}
