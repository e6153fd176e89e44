/* Safe reading and writing (engine/base/files.h): FIFOs never block a
 * reader, devices are written through and never replaced, links are
 * refused, NUL bytes and trailing data are errors with an offset. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine/base/files.h"
#include "tests/unit/testutil.h"


static void test_fifo_is_refused_not_waited_on(void **state)
{
	char *f = path_join(*state, "f");
	assert_int_equal(mkfifo(f, 0600), 0);
	struct tp_err err = {0};
	assert_null(read_file(f, NULL, &err));
	assert_int_equal(err.code, TP_EXIT_USAGE);
	assert_non_null(strstr(err.msg, "is a FIFO, not a regular file"));
	assert_non_null(strstr(err.msg, f));
	char *d = path_join(*state, "");
	assert_null(read_file(d, NULL, &err));
	assert_non_null(strstr(err.msg, "is a directory"));
	free(d);
	free(f);
}

static void test_run_file_link_is_refused(void **state)
{
	char *target = tu_write(*state, "target", "outside\n");
	char *link = path_join(*state, "link");
	assert_int_equal(symlink(target, link), 0);
	struct tp_err err = {0};
	assert_null(read_file_flags(link, NULL, FILE_NOFOLLOW, &err));
	assert_non_null(strstr(err.msg, "symbolic link"));
	/* appending to a run file through a link would write outside the run */
	assert_int_equal(append_file(link, "x", 1, &err), -1);
	assert_int_equal(write_file(link, "x", 1, &err), -1);
	size_t len;
	char *text = read_file(target, &len, NULL);
	assert_string_equal(text, "outside\n");
	free(text);
	free(link);
	free(target);
}

static void test_nul_byte_names_its_offset(void **state)
{
	char *p = path_join(*state, "t");
	assert_int_equal(write_file(p, "ab\ncd\0ef\n", 9, NULL), 0);
	struct tp_err err = {0};
	assert_null(read_text_file(p, NULL, &err));
	assert_non_null(strstr(err.msg, "byte offset 5: a NUL byte"));
	free(p);
}

static void test_json_doc_errors_say_where(void **state)
{
	(void)state;
	struct tp_err err = {0};
	const char *trail = "{\"a\": 1}\n{\"b\": 2}\n";
	assert_null(json_parse_doc("x.json", trail, strlen(trail), &err));
	assert_string_equal(err.msg, "x.json:2:1: unexpected data after the JSON value");
	const char *bad = "{\n  \"a\": oops\n}\n";
	assert_null(json_parse_doc("x.json", bad, strlen(bad), &err));
	assert_non_null(strstr(err.msg, "x.json:2:"));
	assert_non_null(strstr(err.msg, "malformed JSON"));
	cJSON *ok = json_parse_doc("x.json", trail, 8, &err);
	assert_non_null(ok);
	cJSON_Delete(ok);
}

static void test_output_to_a_device_is_written_through(void **state)
{
	if (geteuid() != 0)
		skip(); /* mknod needs root */
	char *node = path_join(*state, "null");
	assert_int_equal(mknod(node, S_IFCHR | 0666, makedev(1, 3)), 0);
	struct tp_err err = {0};
	assert_int_equal(write_output(node, "report\n", 7, &err), 0);
	struct stat st;
	assert_int_equal(lstat(node, &st), 0);
	assert_true(S_ISCHR(st.st_mode)); /* not replaced by a regular file */
	free(node);
}

static void test_output_to_a_fifo_is_written_through(void **state)
{
	char *f = path_join(*state, "out.fifo");
	assert_int_equal(mkfifo(f, 0600), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		size_t len;
		/* the reader opens the FIFO blocking; the write below meets it */
		int fd = open(f, O_RDONLY);
		char buf[64];
		ssize_t n = read(fd, buf, sizeof(buf));
		len = n > 0 ? (size_t)n : 0;
		_exit(len == 5 && memcmp(buf, "hello", 5) == 0 ? 0 : 1);
	}
	assert_int_equal(write_output(f, "hello", 5, NULL), 0);
	int ws;
	assert_int_equal(waitpid(pid, &ws, 0), pid);
	assert_true(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
	struct stat st;
	assert_int_equal(lstat(f, &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
	free(f);
}

static void test_output_refuses_links_and_directories(void **state)
{
	char *target = tu_write(*state, "keep", "kept\n");
	char *link = path_join(*state, "report.md");
	assert_int_equal(symlink(target, link), 0);
	struct tp_err err = {0};
	assert_int_equal(write_output(link, "new\n", 4, &err), -1);
	assert_non_null(strstr(err.msg, "is a symbolic link"));
	char *text = read_file(target, NULL, NULL);
	assert_string_equal(text, "kept\n");
	free(text);
	struct stat st;
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_int_equal(write_output(*state, "x", 1, &err), -1);
	assert_non_null(strstr(err.msg, "is a directory"));
	/* a regular file is replaced atomically, as before */
	assert_int_equal(write_output(target, "new\n", 4, &err), 0);
	text = read_file(target, NULL, NULL);
	assert_string_equal(text, "new\n");
	free(text);
	free(link);
	free(target);
}

/* A rename would change the owner of someone else's file and cut a hard
 * link off from its other names: those are rewritten in place. */
static void test_output_keeps_owner_and_hard_links(void **state)
{
	char *a = tu_write(*state, "a.md", "old\n");
	char *b = path_join(*state, "b.md");
	assert_int_equal(link(a, b), 0);
	assert_int_equal(write_output(a, "new\n", 4, NULL), 0);
	char *text = read_file(b, NULL, NULL);
	assert_string_equal(text, "new\n"); /* the other name sees the report */
	free(text);
	if (geteuid() == 0) {
		char *c = tu_write(*state, "c.md", "old\n");
		assert_int_equal(chown(c, 4321, 4321), 0);
		assert_int_equal(write_output(c, "new\n", 4, NULL), 0);
		struct stat st;
		assert_int_equal(stat(c, &st), 0);
		assert_int_equal(st.st_uid, 4321); /* still the user's file */
		text = read_file(c, NULL, NULL);
		assert_string_equal(text, "new\n");
		free(text);
		free(c);
	}
	free(b);
	free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		TU_DIR_TEST(test_fifo_is_refused_not_waited_on),
		TU_DIR_TEST(test_run_file_link_is_refused),
		TU_DIR_TEST(test_nul_byte_names_its_offset),
		TU_DIR_TEST(test_json_doc_errors_say_where),
		TU_DIR_TEST(test_output_to_a_device_is_written_through),
		TU_DIR_TEST(test_output_to_a_fifo_is_written_through),
		TU_DIR_TEST(test_output_keeps_owner_and_hard_links),
		TU_DIR_TEST(test_output_refuses_links_and_directories),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
