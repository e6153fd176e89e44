#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/base/files.h"
#include "engine/base/util.h"
#include "tests/unit/testutil.h"

static void test_sbuf(void **state)
{
	(void)state;
	struct sbuf sb = SBUF_INIT;
	assert_string_equal(sb_str(&sb), "");
	for (int i = 0; i < 1000; i++)
		sb_printf(&sb, "%d,", i);
	assert_true(str_starts(sb.buf, "0,1,2,"));
	assert_true(str_ends(sb.buf, "998,999,"));
	char *s = sb_detach(&sb);
	assert_null(sb.buf);
	free(s);
	/* the printf-free integers print what printf does */
	static const int64_t ints[] = {0, 7, -1, 10, -987654321, INT64_MAX, INT64_MIN};
	for (size_t i = 0; i < TP_ARRAY_LEN(ints); i++) {
		sb_reset(&sb);
		sb_add_int(&sb, ints[i]);
		char want[32];
		snprintf(want, sizeof(want), "%lld", (long long)ints[i]);
		assert_string_equal(sb.buf, want);
	}
	sb_reset(&sb);
	sb_add_uint(&sb, UINT64_MAX);
	assert_string_equal(sb.buf, "18446744073709551615");
	sb_free(&sb);
}

/* tp_hash: every byte and the length count, and the seed changes it. */
static void test_hash(void **state)
{
	(void)state;
	const char *s = "load_view_tko weak %pview[%arg1]";
	size_t n = strlen(s);
	uint64_t h = tp_hash(s, n, 0);
	assert_true(h == tp_hash(s, n, 0));
	assert_true(h != tp_hash(s, n, 1));
	assert_true(h != tp_hash(s, n - 1, 0));
	char *t = xstrdup(s);
	for (size_t i = 0; i < n; i++) {
		t[i] ^= 1;
		assert_true(tp_hash(t, n, 0) != h);
		t[i] ^= 1;
	}
	free(t);
	/* lengths that are and are not multiples of 8 differ from their prefixes */
	assert_true(tp_hash("12345678", 8, 0) != tp_hash("1234567", 7, 0));
	assert_true(tp_hash("", 0, 0) != tp_hash("\0", 1, 0));
}

static void test_split_trim(void **state)
{
	(void)state;
	size_t n;
	char **v = str_split("a::b:c", ':', false, &n);
	assert_int_equal(n, 3);
	assert_string_equal(v[2], "c");
	strv_free(v);
	v = str_split("a::b", ':', true, &n);
	assert_int_equal(n, 3);
	assert_string_equal(v[1], "");
	strv_free(v);
	char buf[] = " \t x y \r\n";
	assert_string_equal(str_trim(buf), "x y");
	unsigned long long z;
	assert_int_equal(str_size("64M", &z), 0);
	assert_true(z == 64ull << 20);
	assert_int_equal(str_size("7", &z), 0);
	assert_true(z == 7);
	assert_int_equal(str_size("2g", &z), 0);
	assert_true(z == 2ull << 30);
	const char *bad[] = {"", "M", "-1", "12X", "1MB", "99999999999999999999", "17179869184G"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		assert_int_equal(str_size(bad[i], &z), -1);
}

static void test_atomic_write(void **state)
{
	(void)state;
	char *dir = tu_tmpdir();
	char *sub = path_join(dir, "a/b/c");
	struct tp_err err;
	assert_int_equal(mkdir_p(sub, 0755, &err), 0);
	char *f = path_join(sub, "state.json");
	assert_int_equal(write_file_atomic(f, "one", 3, &err), 0);
	assert_int_equal(write_file_atomic(f, "two!", 4, &err), 0);
	size_t len;
	char *got = read_file(f, &len, &err);
	assert_non_null(got);
	assert_int_equal(len, 4);
	assert_string_equal(got, "two!");
	free(got);
	/* no temp file is left behind */
	char *tmp = xasprintf("%s.tmp.%ld", f, (long)getpid());
	assert_false(path_is_file(tmp));
	free(tmp);
	/* not a regular file: read to the end all the same */
	got = read_file("/proc/self/status", &len, &err);
	assert_non_null(got);
	assert_true(len > 0 && strlen(got) == len && strstr(got, "Name:"));
	free(got);
	assert_null(read_file("/nonexistent/x", NULL, &err));
	assert_int_equal(err.code, TP_EXIT_USAGE);
	assert_non_null(strstr(err.msg, "/nonexistent/x"));
	assert_int_equal(remove_tree(dir), 0);
	assert_false(path_is_dir(dir));
	free(f);
	free(sub);
	free(dir);
}

static void test_which(void **state)
{
	(void)state;
	char *sh = which("sh");
	assert_non_null(sh);
	free(sh);
	assert_null(which("definitely-not-a-program-tileport"));
}

/* One formatter for ages, durations and counts: the runs command and the
 * screen show the same "1m" for a run last updated 90 s ago. */
static void test_numbers_for_people(void **state)
{
	(void)state;
	char b[32];
	fmt_age(59999, b, sizeof(b));
	assert_string_equal(b, "59s");
	fmt_age(90000, b, sizeof(b));
	assert_string_equal(b, "1m");
	fmt_age(3600000, b, sizeof(b));
	assert_string_equal(b, "1h");
	fmt_age(86400000LL * 3, b, sizeof(b));
	assert_string_equal(b, "3d");
	fmt_age(-5, b, sizeof(b));
	assert_string_equal(b, "0s");
	fmt_elapsed(7000, b, sizeof(b));
	assert_string_equal(b, "0:07");
	fmt_elapsed(3723000, b, sizeof(b));
	assert_string_equal(b, "1:02:03");
	fmt_count(950, b, sizeof(b));
	assert_string_equal(b, "950");
	fmt_count(12345, b, sizeof(b));
	assert_string_equal(b, "12.3k");
	fmt_count(4500000, b, sizeof(b));
	assert_string_equal(b, "4.5M");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sbuf),
		cmocka_unit_test(test_hash),
		cmocka_unit_test(test_split_trim),
		cmocka_unit_test(test_atomic_write),
		cmocka_unit_test(test_which),
		cmocka_unit_test(test_numbers_for_people),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
