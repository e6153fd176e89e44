/* Secrets never reach a transcript (engine/base/redact.h, transcript.h):
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

#include "engine/base/files.h"
#include "engine/base/proc.h"
#include "engine/base/redact.h"
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

/* Every spelling a transcript can carry (issue 26): escapes of any of its
 * characters, mixed (JSON \uXXXX in either case, "\/", \xXX, %XX), and the
 * whole in base64 or base64url at any alignment, or hex. */
static void test_every_spelling_is_redacted(void **state)
{
	(void)state;
	static const char *const spelled[] = {
		SECRET,
		"wJalrXUtnFEMI\\/K7MDENG\\/bPxRfiCYEXAMPLEKEY",
		("\\u0077\\u004a\\u0061\\u006c\\u0072\\u0058\\u0055\\u0074\\u006e\\u0046\\u0045\\u004d\\u0049"
		 "\\u002f\\u004b\\u0037\\u004d\\u0044\\u0045\\u004e\\u0047\\u002f\\u0062\\u0050\\u0078\\u0052"
		 "\\u0066\\u0069\\u0043\\u0059\\u0045\\u0058\\u0041\\u004d\\u0050\\u004c\\u0045\\u004b\\u0045\\u0059"),
		"wJal\\u0072XUtnFEMI\\u002FK7MDENG\\/bPxRfiCYEXAMPLE\\x4bEY",
		("%77%4A%61%6C%72%58%55%74%6E%46%45%4D%49%2F%4B%37%4D%44%45%4E%47%2F%62%50%78%52%66%69%43%59%45%58"
		 "%41%4D%50%4C%45%4B%45%59"),
		"d0phbHJYVXRuRkVNSS9LN01ERU5HL2JQeFJmaUNZRVhBTVBMRUtFWQ==",
		"eHdKYWxyWFV0bkZFTUkvSzdNREVORy9iUHhSZmlDWUVYQU1QTEVLRVk=",
		"eHl3SmFsclhVdG5GRU1JL0s3TURFTkcvYlB4UmZpQ1lFWEFNUExFS0VZ",
		"774a616c725855746e46454d492f4b374d44454e472f62507852666943594558414d504c454b4559",
		"774A616C725855746E46454D492F4B374D44454E472F62507852666943594558414D504C454B4559",
	};
	for (size_t i = 0; i < sizeof(spelled) / sizeof(spelled[0]); i++) {
		char *text = xasprintf("before %s after", spelled[i]);
		char *red = redact_secrets(text, secrets_env);
		if (strstr(red, spelled[i]) || !strstr(red, "${AWS_SECRET_ACCESS_KEY}"))
			fail_msg("%zu: %s", i, red);
		free(red);
		/* and through the stream, one byte at a time */
		struct redact_stream rs = {.secrets = secrets_env};
		struct sbuf out = SBUF_INIT;
		for (size_t k = 0; text[k]; k++)
			redact_stream_feed(&rs, text + k, 1, &out);
		redact_stream_flush(&rs, &out);
		if (strstr(sb_str(&out), spelled[i]) || !strstr(sb_str(&out), "${AWS_SECRET_ACCESS_KEY}"))
			fail_msg("stream %zu: %s", i, sb_str(&out));
		sb_free(&out);
		redact_stream_free(&rs);
		free(text);
	}
	/* base64url differs where base64 has + and / */
	char *sym[] = {"SYM_TOKEN=k3y?>>>~~~~?\?>>x", NULL};
	const char *b64[] = {"azN5Pz4+Pn5+fn4/Pz4+eA==", "azN5Pz4-Pn5-fn4_Pz4-eA==", "eGszeT8-Pj5-fn5-Pz8-Png=",
			     "eHlrM3k_Pj4-fn5-fj8_Pj54"};
	for (size_t i = 0; i < 4; i++) {
		char *red = redact_secrets(b64[i], sym);
		if (!strstr(red, "${SYM_TOKEN}"))
			fail_msg("b64 %zu: %s", i, red);
		free(red);
	}
	/* ordinary text, and near misses, stay as they are */
	const char *plain = "path\\/to %41 \\u0077JalrXUtn d0phbHJYVXRu 774a616c";
	char *red = redact_secrets(plain, secrets_env);
	assert_string_equal(red, plain);
	free(red);
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
		TU_DIR_TEST(test_every_spelling_is_redacted),
		TU_DIR_TEST(test_which_names_are_secret),
		TU_DIR_TEST(test_transcript_cap_keeps_head_and_tail),
		TU_DIR_TEST(test_setsid_child_dies_with_the_stage),
		TU_DIR_TEST(test_double_forked_daemon_dies_with_the_stage),
		TU_DIR_TEST(test_setsid_child_dies_with_a_timed_out_stage),
		TU_DIR_TEST(test_double_forked_daemon_dies_with_a_timed_out_stage),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
