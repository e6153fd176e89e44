/* A run directory's own files (engine/core/run.h, events.h): the repair of
 * events.jsonl never deletes a whole event, the lock survives the lock
 * file being deleted, links in .tileport are refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/core/events.h"
#include "engine/base/files.h"
#include "engine/core/run.h"
#include "tests/unit/testutil.h"

static int setup(void **state)
{
	char *dir = tu_tmpdir();
	char *tp = path_join(dir, ".tileport");
	assert_int_equal(mkdir_p(tp, 0755, NULL), 0);
	free(tp);
	*state = dir;
	return 0;
}

static int teardown(void **state)
{
	remove_tree(*state);
	free(*state);
	return 0;
}

static char *events_path(const char *run)
{
	return run_path(run, "events.jsonl");
}

static void put_events(const char *run, const char *text, size_t n)
{
	char *p = events_path(run);
	assert_int_equal(write_file(p, text, n, NULL), 0);
	free(p);
}

static char *events_text(const char *run, size_t *len)
{
	char *p = events_path(run);
	char *t = read_file(p, len, NULL);
	free(p);
	return t;
}

#define EV1 "{\"type\":\"run_created\",\"t\":1}\n"
#define EV2 "{\"type\":\"stage_started\",\"t\":2}"

static void test_repair_keeps_an_event_that_lost_its_newline(void **state)
{
	const char *run = *state;
	put_events(run, EV1 EV2, strlen(EV1 EV2));
	assert_int_equal(events_repair(run, run, NULL), 0);
	char *t = events_text(run, NULL);
	assert_string_equal(t, EV1 EV2 "\n");
	free(t);
}

static void test_repair_cuts_a_torn_fragment_and_keeps_a_copy(void **state)
{
	const char *run = *state;
	put_events(run, EV1 "{\"type\":\"sta", strlen(EV1) + 12);
	char *keep = path_join(run, "attempt");
	assert_int_equal(mkdir_p(keep, 0755, NULL), 0);
	assert_int_equal(events_repair(run, keep, NULL), 0);
	char *t = events_text(run, NULL);
	assert_string_equal(t, EV1);
	free(t);
	char *kp = path_join(keep, "events-torn.jsonl");
	t = read_file(kp, NULL, NULL);
	assert_string_equal(t, "{\"type\":\"sta");
	free(t);
	free(kp);
	free(keep);
}

static void test_repair_refuses_other_line_endings(void **state)
{
	const char *run = *state;
	/* CR, and CRLF, whose lines all end in a newline (issue 26) */
	const char *cr[] = {"{\"type\":\"a\"}\r{\"type\":\"b\"}\r", "{\"type\":\"a\"}\r\n{\"type\":\"b\"}\r\n"};
	for (size_t i = 0; i < 2; i++) {
		put_events(run, cr[i], strlen(cr[i]));
		struct tp_err err = {0};
		assert_int_equal(events_repair(run, run, &err), -1);
		assert_non_null(strstr(err.msg, "byte offset 12: a carriage return (CRLF or CR line endings)"));
		size_t len;
		char *t = events_text(run, &len);
		assert_int_equal(len, strlen(cr[i])); /* left as it was */
		free(t);
	}
}

static void test_repair_sees_past_a_nul_byte(void **state)
{
	const char *run = *state;
	/* a NUL inside an earlier line must not hide the lines after it */
	const char data[] = "{\"type\":\"a\",\"x\":\"\0\"}\n" EV1 "{\"ty";
	size_t n = sizeof(data) - 1;
	put_events(run, data, n);
	assert_int_equal(events_repair(run, run, NULL), 0);
	size_t len;
	char *t = events_text(run, &len);
	assert_int_equal(len, n - 4);
	assert_memory_equal(t, data, n - 4);
	free(t);
}

static void test_lock_holds_when_the_lock_file_is_deleted(void **state)
{
	const char *run = *state;
	int fd = run_lock(run, NULL);
	assert_true(fd >= 0);
	char *lock = run_path(run, "lock");
	assert_int_equal(unlink(lock), 0);
	struct tp_err err = {0};
	assert_int_equal(run_lock(run, &err), -1);
	assert_non_null(strstr(err.msg, "in use by another tileport"));
	assert_true(run_locked(run));
	assert_int_equal(run_lock_check(run, fd, NULL), 0);
	/* the directory moved away and a new one put in its place */
	char *tp = path_join(run, ".tileport"), *moved = path_join(run, "old");
	assert_int_equal(rename(tp, moved), 0);
	assert_int_equal(mkdir(tp, 0755), 0);
	assert_int_equal(run_lock_check(run, fd, &err), -1);
	assert_non_null(strstr(err.msg, "removed or replaced"));
	run_unlock(fd);
	free(tp), free(moved), free(lock);
}

/* A kill during an atomic write left its temporary file: the next lock
 * holder removes the run files' ones, and nothing else (issue 26). */
static void test_lock_removes_leftover_temps(void **state)
{
	const char *run = *state;
	char *tp = path_join(run, ".tileport");
	char *files[] = {tu_write(tp, "state.json.tmp.4242", "{"), tu_write(tp, "contract.txt.tmp.7", "x"),
			 tu_write(tp, "state.json.tmp.", "keep"), tu_write(tp, "notes.tmp.1", "keep"),
			 tu_write(tp, "state.json.tmp.12x", "keep")};
	int fd = run_lock(run, NULL);
	assert_true(fd >= 0);
	bool want[] = {false, false, true, true, true};
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		if (path_is_file(files[i]) != want[i])
			fail_msg("%s: %s", files[i], want[i] ? "removed" : "left");
		free(files[i]);
	}
	run_unlock(fd);
	free(tp);
}

static void test_links_in_the_run_directory_are_refused(void **state)
{
	const char *run = *state;
	char *outside = tu_write(run, "outside", "mine\n");
	char *lock = run_path(run, "lock");
	assert_int_equal(symlink(outside, lock), 0);
	struct tp_err err = {0};
	assert_int_equal(run_lock(run, &err), -1);
	assert_non_null(strstr(err.msg, "is a symbolic link"));
	char *t = read_file(outside, NULL, NULL);
	assert_string_equal(t, "mine\n"); /* no pid written through the link */
	free(t);
	assert_int_equal(unlink(lock), 0);
	char *ev = events_path(run);
	assert_int_equal(symlink(outside, ev), 0);
	assert_int_equal(events_append(run, "x", NULL, NULL, &err), -1);
	t = read_file(outside, NULL, NULL);
	assert_string_equal(t, "mine\n");
	free(t);
	free(ev), free(lock), free(outside);
}

static void test_state_file_errors_say_what_and_where(void **state)
{
	const char *run = *state;
	char *sp = run_path(run, "state.json");
	struct run_state st;
	struct tp_err err = {0};
	assert_int_equal(mkdir(sp, 0755), 0);
	assert_true(run_exists(run)); /* there, but not a file: not "missing" */
	assert_int_equal(run_state_load(run, &st, &err), -1);
	assert_non_null(strstr(err.msg, "is a directory"));
	assert_int_equal(rmdir(sp), 0);
	assert_int_equal(write_file(sp, "{\n  \"schema\": 1,\n  oops\n}\n", 26, NULL), 0);
	assert_int_equal(run_state_load(run, &st, &err), -1);
	assert_non_null(strstr(err.msg, "state.json:3:"));
	free(sp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_repair_keeps_an_event_that_lost_its_newline, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_repair_cuts_a_torn_fragment_and_keeps_a_copy, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_repair_refuses_other_line_endings, setup, teardown),
		cmocka_unit_test_setup_teardown(test_repair_sees_past_a_nul_byte, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lock_holds_when_the_lock_file_is_deleted, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_lock_removes_leftover_temps, setup, teardown),
		cmocka_unit_test_setup_teardown(test_links_in_the_run_directory_are_refused, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_state_file_errors_say_what_and_where, setup,
						teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
