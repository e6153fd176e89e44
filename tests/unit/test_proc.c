#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine/base/files.h"
#include "engine/base/proc.h"
#include "engine/base/util.h"
#include "tests/unit/testutil.h"

static int run_sh(const char *script, char **env, int64_t timeout, int64_t idle,
		  struct sbuf *out, struct sbuf *err, struct proc_status *st)
{
	char *argv[] = {"sh", "-c", (char *)script, NULL};
	char **e = env ? env : env_current();
	struct proc_opts o = {.argv = argv, .env = e, .timeout_ms = timeout,
			      .idle_timeout_ms = idle, .kill_grace_ms = 200};
	struct tp_err te;
	int rc = proc_run_sync(&o, out, err, st, &te);
	if (!env)
		strv_free(e);
	return rc;
}

static void test_output_and_exit_code(void **state)
{
	(void)state;
	struct sbuf out = SBUF_INIT, err = SBUF_INIT;
	struct proc_status st;
	assert_int_equal(run_sh("echo out; echo err >&2; exit 7", NULL, 0, 0, &out, &err, &st), 0);
	assert_int_equal(st.end, PROC_EXITED);
	assert_int_equal(st.code, 7);
	assert_string_equal(sb_str(&out), "out\n");
	assert_string_equal(sb_str(&err), "err\n");
	sb_free(&out);
	sb_free(&err);
}

static void test_signal_status(void **state)
{
	(void)state;
	struct proc_status st;
	assert_int_equal(run_sh("kill -SEGV $$", NULL, 0, 0, NULL, NULL, &st), 0);
	assert_int_equal(st.end, PROC_SIGNALED);
	assert_int_equal(st.signo, SIGSEGV);
	char buf[128];
	proc_status_str(&st, buf, sizeof(buf));
	assert_non_null(strstr(buf, "signal 11"));
}

static void test_timeout_kills_whole_group(void **state)
{
	(void)state;
	/* Become the reaper of orphaned grandchildren so their exit is observable. */
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	char *dir = tu_tmpdir();
	char *pidfile = path_join(dir, "grandchild.pid");
	/* The agent ignores TERM and leaves a grandchild that also ignores it:
	 * only a KILL of the whole group ends both. The grandchild writes its
	 * pid once its trap is set, and the agent waits for that before it says
	 * "started", so the TERM never lands before the traps exist. */
	char *script = xasprintf("trap '' TERM; sh -c 'trap \"\" TERM; echo $$ > %s.tmp; mv %s.tmp %s; "
				 "while :; do sleep 1; done' & "
				 "while [ ! -s %s ]; do :; done; echo started; while :; do sleep 1; done",
				 pidfile, pidfile, pidfile, pidfile);
	struct sbuf out = SBUF_INIT;
	struct proc_status st;
	assert_int_equal(run_sh(script, NULL, 1500, 0, &out, NULL, &st), 0);
	assert_int_equal(st.end, PROC_TIMED_OUT);
	assert_int_equal(st.signo, SIGKILL);
	assert_string_equal(sb_str(&out), "started\n");
	char *pidtxt = read_file(pidfile, NULL, NULL);
	assert_non_null(pidtxt);
	pid_t gc = (pid_t)atol(pidtxt);
	assert_true(gc > 0);
	/* The orphaned grandchild is now our child (subreaper): block until it
	 * dies; the alarm turns a leaked process into a failure, not a hang.
	 * When both died at once it may have been reaped before it could be
	 * re-parented to us (ECHILD); then it must simply be gone. */
	int ws = 0;
	alarm(10);
	pid_t r = waitpid(gc, &ws, 0);
	int werr = errno;
	alarm(0);
	if (r == gc) {
		assert_true(WIFSIGNALED(ws));
		assert_int_equal(WTERMSIG(ws), SIGKILL);
	} else {
		assert_int_equal(werr, ECHILD);
		assert_int_equal(kill(gc, 0), -1);
		assert_int_equal(errno, ESRCH);
	}
	free(pidtxt);
	free(script);
	free(pidfile);
	remove_tree(dir);
	free(dir);
	sb_free(&out);
}

static void test_idle_timeout(void **state)
{
	(void)state;
	struct proc_status st;
	assert_int_equal(run_sh("echo a; sleep 30", NULL, 0, 200, NULL, NULL, &st), 0);
	assert_int_equal(st.end, PROC_IDLE_TIMEOUT);
	assert_true(st.elapsed_ms < 20000);
}

/* Output resets the inactivity timer: a child that prints every 50 ms
 * outlives an idle limit of 300 ms and ends normally. */
static void test_output_keeps_an_idle_child_alive(void **state)
{
	(void)state;
	struct proc_status st;
	assert_int_equal(run_sh("for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do echo $i; sleep 0.05; done",
				NULL, 0, 300, NULL, NULL, &st), 0);
	assert_int_equal(st.end, PROC_EXITED);
	assert_int_equal(st.code, 0);
}

/* When the agent exits normally, what it left running in its group dies. */
static void test_leftovers_die_with_the_leader(void **state)
{
	(void)state;
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	char *dir = tu_tmpdir();
	char *pidfile = path_join(dir, "bg.pid");
	char *script = xasprintf("sh -c 'echo $$ > %s.tmp; mv %s.tmp %s; exec sleep 1000' & "
				 "while [ ! -s %s ]; do :; done; exit 0", pidfile, pidfile, pidfile, pidfile);
	struct proc_status st;
	assert_int_equal(run_sh(script, NULL, 0, 0, NULL, NULL, &st), 0);
	assert_int_equal(st.end, PROC_EXITED);
	char *pidtxt = read_file(pidfile, NULL, NULL);
	assert_non_null(pidtxt);
	pid_t bg = (pid_t)atol(pidtxt);
	int ws = 0;
	alarm(10);
	pid_t r = waitpid(bg, &ws, 0);
	int werr = errno;
	alarm(0);
	if (r == bg) {
		assert_true(WIFSIGNALED(ws));
		assert_int_equal(WTERMSIG(ws), SIGKILL);
	} else {
		assert_int_equal(werr, ECHILD);
		assert_int_equal(kill(bg, 0), -1);
	}
	free(pidtxt);
	free(script);
	free(pidfile);
	remove_tree(dir);
	free(dir);
}

static void test_exec_failure_is_an_error(void **state)
{
	(void)state;
	char *argv[] = {"no-such-program-tileport", NULL};
	char **env = env_current();
	struct proc_opts o = {.argv = argv, .env = env};
	struct tp_err err;
	struct proc_status st;
	assert_int_equal(proc_run_sync(&o, NULL, NULL, &st, &err), -1);
	assert_int_equal(err.code, TP_EXIT_ENV);
	assert_non_null(strstr(err.msg, "no-such-program-tileport"));
	strv_free(env);
}

static void test_stdin_env_cwd_and_log(void **state)
{
	(void)state;
	char *dir = tu_tmpdir();
	char *in = tu_write(dir, "in.txt", "from-file\n");
	char *log = path_join(dir, "commands.log");
	char **env = NULL;
	env_set(&env, "PATH", "/usr/bin:/bin");
	env_set(&env, "ONLY_THIS", "yes");
	env_set(&env, "ONLY_THIS", "twice");
	char *argv[] = {"sh", "-c", "read x; echo \"$x $ONLY_THIS $(pwd) ${HOME:-nohome}\"", NULL};
	struct proc_opts o = {.argv = argv, .env = env, .stdin_path = in, .cwd = dir,
			      .command_log = log};
	struct sbuf out = SBUF_INIT;
	struct proc_status st;
	struct tp_err err;
	assert_int_equal(proc_run_sync(&o, &out, NULL, &st, &err), 0);
	char *want = xasprintf("from-file twice %s nohome\n", dir);
	assert_string_equal(sb_str(&out), want);
	char *logtxt = read_file(log, NULL, NULL);
	assert_non_null(strstr(logtxt, "sh -c 'read x;"));
	free(logtxt);
	free(want);
	sb_free(&out);
	strv_free(env);
	free(in);
	free(log);
	remove_tree(dir);
	free(dir);
}

static void test_secrets_never_reach_the_command_log(void **state)
{
	(void)state;
	char *dir = tu_tmpdir();
	char *log = path_join(dir, "commands.log");
	char **env = env_current();
	env_set(&env, "OPENAI_API_KEY", "sk-test-1234567890abcdef");
	env_set(&env, "SHORT_TOKEN", "abc");
	char *argv[] = {"sh", "-c", "OPENAI_API_KEY=sk-test-1234567890abcdef agent --t abc", NULL};
	struct proc_opts o = {.argv = argv, .env = env, .command_log = log};
	struct proc_status st;
	struct tp_err err;
	assert_int_equal(proc_run_sync(&o, NULL, NULL, &st, &err), 0);
	char *text = read_file(log, NULL, NULL);
	assert_null(strstr(text, "sk-test-1234567890abcdef"));
	assert_non_null(strstr(text, "OPENAI_API_KEY=${OPENAI_API_KEY} agent --t abc"));
	free(text);
	strv_free(env);
	free(log);
	remove_tree(dir);
	free(dir);
}

/* Output to a file, and a child told by SIGTERM that its parent died: the
 * local batch executor's children save their runs that way. */
static void test_output_file_and_parent_death(void **state)
{
	(void)state;
	char *dir = tu_tmpdir();
	char *log = path_join(dir, "child.log");
	/* the orphaned child comes to us, so that its end is an event to wait on */
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	pid_t mid = fork();
	assert_true(mid >= 0);
	if (mid == 0) {
		struct loop *l = loop_new();
		char *argv[] = {"sh", "-c", "trap 'echo term; exit 0' TERM; echo $$; echo err >&2; "
					    "while :; do sleep 0.02; done", NULL};
		char **env = env_current();
		struct proc_opts o = {.argv = argv, .env = env, .output_path = log,
				      .parent_death_signal = SIGTERM};
		struct proc *p = proc_spawn(l, &o, NULL);
		/* the parent dies once the child runs, without stopping it */
		for (int i = 0; p && i < 2000; i++) {
			char *t = read_file(log, NULL, NULL);
			bool up = t && strstr(t, "err");
			free(t);
			if (up)
				_exit(0);
			loop_run_once(l, 5);
		}
		_exit(1);
	}
	int ws;
	assert_int_equal(waitpid(mid, &ws, 0), mid);
	assert_int_equal(WEXITSTATUS(ws), 0);
	char *text = read_file(log, NULL, NULL);
	assert_non_null(text);
	pid_t orphan = (pid_t)atol(text); /* its first line */
	free(text);
	assert_true(orphan > 1);
	alarm(30); /* the bound: a child that never got its SIGTERM fails the test */
	assert_int_equal(waitpid(orphan, &ws, 0), orphan);
	alarm(0);
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 0), 0);
	assert_true(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
	text = read_file(log, NULL, NULL);
	char *want = xasprintf("%ld\nerr\nterm\n", (long)orphan);
	assert_string_equal(text, want);
	free(want);
	free(text);
	free(log);
	remove_tree(dir);
	free(dir);
}

/* A guarded group (group_dies_with_us): the command's exit code and signal
 * come through its leader, an exec failure is still an error, and when the
 * spawning process is killed with SIGKILL the leader, the command and a
 * child the command left in the background all die (issue 26). */
static int run_guarded(char **argv, struct proc_status *st, struct tp_err *err)
{
	char **env = env_current();
	struct proc_opts o = {.argv = argv, .env = env, .kill_grace_ms = 200, .group_dies_with_us = true};
	int rc = proc_run_sync(&o, NULL, NULL, st, err);
	strv_free(env);
	return rc;
}

/* pid is gone within 30 s (a pidfd: an event, not a delay). */
static bool dies(pid_t pid)
{
	int fd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (fd < 0)
		return errno == ESRCH;
	struct pollfd pf = {fd, POLLIN, 0};
	int n = poll(&pf, 1, 30000);
	close(fd);
	return n == 1;
}

static void test_group_dies_with_us(void **state)
{
	(void)state;
	struct proc_status st;
	struct tp_err err;
	char *exit7[] = {"sh", "-c", "exit 7", NULL};
	assert_int_equal(run_guarded(exit7, &st, &err), 0);
	assert_true(st.end == PROC_EXITED && st.code == 7);
	char *term[] = {"sh", "-c", "kill -TERM $$", NULL};
	assert_int_equal(run_guarded(term, &st, &err), 0);
	assert_true(st.end == PROC_SIGNALED && st.signo == SIGTERM);
	char *dir = tu_tmpdir();
	char *bad = tu_write(dir, "bad", "\177ELF not really\n");
	assert_int_equal(chmod(bad, 0755), 0);
	char *badv[] = {bad, NULL};
	assert_int_equal(run_guarded(badv, &st, &err), -1);
	assert_non_null(strstr(err.msg, "bad"));
	free(bad);
	/* the spawning process dies by SIGKILL */
	char *pids = path_join(dir, "pids");
	pid_t mid = fork();
	assert_true(mid >= 0);
	if (mid == 0) {
		struct loop *l = loop_new();
		char *script = xasprintf("sleep 300 & echo $$ $! > %s.tmp && mv %s.tmp %s; wait", pids, pids, pids);
		char *argv[] = {"sh", "-c", script, NULL};
		char **env = env_current();
		struct proc_opts o = {.argv = argv, .env = env, .group_dies_with_us = true};
		struct proc *p = proc_spawn(l, &o, NULL);
		for (int i = 0; p && i < 4000; i++) {
			if (path_is_file(pids)) {
				char *line = xasprintf("%ld\n", (long)proc_pid(p));
				char *leader = path_join(dir, "leader");
				write_file(leader, line, strlen(line), NULL);
				kill(getpid(), SIGKILL);
			}
			loop_run_once(l, 5);
		}
		_exit(1);
	}
	int ws;
	assert_int_equal(waitpid(mid, &ws, 0), mid);
	assert_true(WIFSIGNALED(ws) && WTERMSIG(ws) == SIGKILL);
	char *leader = path_join(dir, "leader");
	char *t1 = read_file(pids, NULL, NULL), *t2 = read_file(leader, NULL, NULL);
	assert_non_null(t1);
	assert_non_null(t2);
	long cmd = 0, bg = 0, lead = atol(t2);
	assert_int_equal(sscanf(t1, "%ld %ld", &cmd, &bg), 2);
	assert_true(cmd > 1 && bg > 1 && lead > 1 && cmd != lead);
	assert_true(dies((pid_t)lead));
	assert_true(dies((pid_t)cmd));
	assert_true(dies((pid_t)bg));
	free(t1);
	free(t2);
	free(leader);
	free(pids);
	remove_tree(dir);
	free(dir);
}

static void test_argv_quote(void **state)
{
	(void)state;
	char *argv[] = {"a", "b c", "it's", "", NULL};
	char *q = argv_quote(argv);
	assert_string_equal(q, "a 'b c' 'it'\\''s' ''");
	free(q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_output_and_exit_code),
		cmocka_unit_test(test_signal_status),
		cmocka_unit_test(test_timeout_kills_whole_group),
		cmocka_unit_test(test_idle_timeout),
		cmocka_unit_test(test_output_keeps_an_idle_child_alive),
		cmocka_unit_test(test_leftovers_die_with_the_leader),
		cmocka_unit_test(test_exec_failure_is_an_error),
		cmocka_unit_test(test_stdin_env_cwd_and_log),
		cmocka_unit_test(test_secrets_never_reach_the_command_log),
		cmocka_unit_test(test_output_file_and_parent_death),
		cmocka_unit_test(test_group_dies_with_us),
		cmocka_unit_test(test_argv_quote),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
