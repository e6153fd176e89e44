/* Secrets never reach a transcript (engine/core/redact.h, transcript.h):
 * JSON-escaped spellings, a secret across the 1 MiB line cut or across two
 * reads, lower-case names, variables the config marks; a transcript's size
 * cap keeps head and tail; orphans of a stage are killed with it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/core/proc.h"
#include "engine/core/redact.h"
#include "engine/core/transcript.h"
#include "tests/unit/testutil.h"

#define SECRET "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"

static char *secrets_env[] = {"AWS_SECRET_ACCESS_KEY=" SECRET, NULL};


/* Feed text through a redacting transcript in pieces of `step` bytes and
 * return the file it wrote. */
static char *through_transcript(const char *dir, const char *text, size_t n, size_t step,
				long long cap)
{
	char *path = path_join(dir, "transcript.jsonl");
	struct transcript *t = transcript_open(path, NULL);
	assert_non_null(t);
	transcript_redact(t, secrets_env);
	transcript_limit(t, cap);
	for (size_t at = 0; at < n; at += step)
		transcript_feed(t, text + at, n - at < step ? n - at : step, NULL, NULL);
	transcript_finish(t, NULL, NULL);
	assert_int_equal(transcript_error(t, NULL), 0);
	transcript_close(t);
	char *out = read_file(path, NULL, NULL);
	free(path);
	return out;
}

static void test_json_escaped_secret_is_redacted(void **state)
{
	const char *line = "{\"type\":\"text\",\"text\":\"key wJalrXUtnFEMI\\/K7MDENG\\/bPxRfiCYEXAMPLEKEY "
			   "and \\u0077JalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\"}\n";
	char *out = through_transcript(*state, line, strlen(line), 4096, 0);
	assert_null(strstr(out, "bPxRfiCYEXAMPLEKEY"));
	assert_non_null(strstr(out, "${AWS_SECRET_ACCESS_KEY}"));
	free(out);
}

/* A record past the 1 MiB cut is kept as raw bytes, never decoded: the
 * JSON spelling of a secret ('/' as "\\/") is caught there too. */
static void test_json_escaped_secret_in_a_cut_record_is_redacted(void **state)
{
	size_t cut = (size_t)1 << 20, n = cut + 4096;
	struct sbuf sb = SBUF_INIT;
	sb_adds(&sb, "{\"type\":\"text\",\"text\":\"");
	while (sb.len < cut - 100)
		sb_addc(&sb, 'a');
	sb_adds(&sb, "wJalrXUtnFEMI\\/K7MDENG\\/bPxRfiCYEXAMPLEKEY");
	while (sb.len < n - 3)
		sb_addc(&sb, 'b');
	sb_adds(&sb, "\"}\n");
	char *out = through_transcript(*state, sb.buf, sb.len, 65536, 0);
	assert_null(strstr(out, "bPxRfiCYEXAMPLEKEY"));
	assert_non_null(strstr(out, "${AWS_SECRET_ACCESS_KEY}"));
	free(out);
	sb_free(&sb);
}

static void test_secret_across_the_line_cut_is_redacted(void **state)
{
	/* one line longer than the 1 MiB cut, the secret right across it */
	size_t cut = (size_t)1 << 20, n = cut + 4096;
	char *text = xmalloc(n + 1);
	memset(text, 'a', n);
	memcpy(text + cut - 10, SECRET, strlen(SECRET));
	text[n - 1] = '\n';
	text[n] = '\0';
	for (size_t step = 7; step <= 65536; step *= 97) {
		char *out = through_transcript(*state, text, n, step, 0);
		assert_null(strstr(out, "bPxRfiCY"));
		assert_null(strstr(out, "wJalrXUt"));
		assert_non_null(strstr(out, "${AWS_SEC")); /* the mark itself may be cut */
		free(out);
	}
	free(text);
}

static void test_which_names_are_secret(void **state)
{
	(void)state;
	char *env[] = {"my_api_key=abcdefgh12345678", "PATH=/usr/bin:/bin:/usr/local/bin",
		       "DEPLOY_PASS=hunter2hunter2", "SHORT_TOKEN=abc", NULL};
	char **s = env_secrets(env, NULL);
	assert_int_equal(strv_len(s), 1);
	assert_string_equal(s[0], "my_api_key=abcdefgh12345678");
	strv_free(s);
	s = env_secrets(env, "OTHER, DEPLOY_PASS");
	assert_int_equal(strv_len(s), 2);
	char *red = redact_secrets("pass hunter2hunter2 key abcdefgh12345678", s);
	assert_string_equal(red, "pass ${DEPLOY_PASS} key ${my_api_key}");
	free(red);
	strv_free(s);
}

static void test_transcript_cap_keeps_head_and_tail(void **state)
{
	struct sbuf in = SBUF_INIT; /* 2 MB of plain text */
	for (int i = 0; i < 40000; i++)
		sb_printf(&in, "line %06d of an agent that prints far too much\n", i);
	long long cap = 256 << 10;
	char *out = through_transcript(*state, in.buf, in.len, 65536, cap);
	size_t len = strlen(out);
	assert_true(len < (size_t)cap + 4096 && len < in.len);
	assert_non_null(strstr(out, "line 000000 "));
	assert_non_null(strstr(out, "line 039999 "));
	assert_null(strstr(out, "line 020000 "));
	assert_non_null(strstr(out, "{\"type\":\"cut\",\"bytes\":"));
	assert_non_null(strstr(out, "\"type\":\"final\""));
	free(out);
	sb_free(&in);
}

/* ---- processes that leave the stage's group ---- */

static bool alive(pid_t pid)
{
	return kill(pid, 0) == 0;
}

static long read_pid(const char *path)
{
	char *t = read_file(path, NULL, NULL);
	long pid = t ? atol(t) : 0;
	free(t);
	return pid;
}

/* A stage whose child escapes its group by `escape`; the leader then exits
 * at once, or (hang) runs until the stage's timeout stops it. */
static void run_escaping_stage(const char *dir, const char *escape, bool hang)
{
	char *pidfile = path_join(dir, "escaped.pid");
	char *daemon = tu_write(dir, "daemon.sh", "#!/bin/sh\necho $$ > \"$PIDFILE\"\nexec sleep 1000\n");
	assert_int_equal(chmod(daemon, 0755), 0);
	/* the escapee writes its pid, then the leader exits without waiting */
	char *script = xasprintf("%s\nwhile [ ! -s '%s' ]; do :; done%s", escape, pidfile,
				 hang ? "\nexec tail -f /dev/null" : "");
	char *argv[] = {"/bin/sh", "-c", script, NULL};
	char **env = env_current();
	env_set(&env, "PIDFILE", pidfile);
	env_set(&env, "DAEMON", daemon);
	struct proc_opts o = {.argv = argv, .env = env, .timeout_ms = hang ? 500 : 0};
	struct proc_status st;
	assert_int_equal(proc_run_sync(&o, NULL, NULL, &st, NULL), 0);
	if (hang)
		assert_int_equal(st.end, PROC_TIMED_OUT);
	long pid = read_pid(pidfile);
	assert_true(pid > 1);
	/* killed and reaped by the time the stage is over: no zombie either
	 * (a failure does not leave the escapee behind) */
	bool escaped = alive((pid_t)pid);
	if (escaped)
		kill((pid_t)pid, SIGKILL);
	assert_false(escaped);
	strv_free(env);
	free(script);
	free(daemon);
	free(pidfile);
}

/* The classic daemon: fork, a new session (out of the stage's group), fork
 * again, and the middle one exits, so the daemon is nobody's child. */
#define DAEMONIZE "( setsid sh -c '\"$DAEMON\" & exit' & )"

static void test_setsid_child_dies_with_the_stage(void **state)
{
	run_escaping_stage(*state, "setsid \"$DAEMON\" &", false);
}

static void test_setsid_child_dies_with_a_timed_out_stage(void **state)
{
	run_escaping_stage(*state, "setsid \"$DAEMON\" &", true);
}

static void test_double_forked_daemon_dies_with_a_timed_out_stage(void **state)
{
	run_escaping_stage(*state, DAEMONIZE, true);
}

static void test_double_forked_daemon_dies_with_the_stage(void **state)
{
	run_escaping_stage(*state, DAEMONIZE, false);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		TU_DIR_TEST(test_json_escaped_secret_is_redacted),
		TU_DIR_TEST(test_secret_across_the_line_cut_is_redacted),
		TU_DIR_TEST(test_json_escaped_secret_in_a_cut_record_is_redacted),
		TU_DIR_TEST(test_which_names_are_secret),
		TU_DIR_TEST(test_transcript_cap_keeps_head_and_tail),
		TU_DIR_TEST(test_setsid_child_dies_with_the_stage),
		TU_DIR_TEST(test_double_forked_daemon_dies_with_the_stage),
		TU_DIR_TEST(test_setsid_child_dies_with_a_timed_out_stage),
		TU_DIR_TEST(test_double_forked_daemon_dies_with_a_timed_out_stage),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
