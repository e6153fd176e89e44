/* Column widths of UTF-8 text: CJK and emoji take two columns, combining
 * marks none, tabs run to the next stop, bad bytes one column each. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <locale.h>
#include <string.h>

#include "views/width.h"

static int setup(void **state)
{
	(void)state;
	return setlocale(LC_CTYPE, "C.UTF-8") ? 0 : -1;
}

static void test_ascii_and_wide(void **state)
{
	(void)state;
	assert_int_equal(str_columns("abc", 3, 0), 3);
	const char *cjk = "漢字";
	assert_int_equal(str_columns(cjk, strlen(cjk), 0), 4);
	const char *emoji = "a😀b";
	assert_int_equal(str_columns(emoji, strlen(emoji), 0), 4);
	const char *comb = "e\xcc\x81"; /* e + combining acute */
	assert_int_equal(str_columns(comb, strlen(comb), 0), 1);
}

static void test_tabs_follow_stops(void **state)
{
	(void)state;
	assert_int_equal(str_columns("\t", 1, 0), 8);
	assert_int_equal(str_columns("ab\tc", 4, 0), 9);
	assert_int_equal(str_columns("\t", 1, 3), 5);
}

static void test_invalid_bytes_are_one_column(void **state)
{
	(void)state;
	const char bad[] = {'a', (char)0xff, (char)0xe6, 'b', 0};
	assert_int_equal(str_columns(bad, strlen(bad), 0), 4);
	wchar_t wc;
	assert_int_equal(utf8_next("\xe6\xbc", 2, &wc), 1); /* truncated sequence */
	assert_int_equal(wc, 0xfffd);
	assert_int_equal(utf8_next("\xc0\x80", 2, &wc), 1); /* overlong */
	assert_int_equal(wc, 0xfffd);
	assert_int_equal(utf8_next("\xed\xa0\x80", 3, &wc), 1); /* surrogate */
	assert_int_equal(wc, 0xfffd);
}

static void test_fit_never_splits_a_wide_char(void **state)
{
	(void)state;
	const char *s = "ab漢字cd";
	size_t used;
	size_t n = str_fit(s, strlen(s), 3, 0, &used);
	assert_int_equal(n, 2); /* "ab": 漢 would need columns 3-4 */
	assert_int_equal(used, 2);
	n = str_fit(s, strlen(s), 4, 0, &used);
	assert_int_equal(n, 5);
	assert_int_equal(used, 4);
	n = str_fit(s, strlen(s), 100, 0, &used);
	assert_int_equal(n, strlen(s));
	assert_int_equal(used, 8);
}

static void test_skip_reports_half_characters(void **state)
{
	(void)state;
	const char *s = "漢字x";
	size_t over;
	size_t n = str_skip(s, strlen(s), 1, &over);
	assert_int_equal(n, 3); /* all of 漢 is skipped... */
	assert_int_equal(over, 1); /* ...one column of it was past the edge */
	n = str_skip(s, strlen(s), 4, &over);
	assert_int_equal(n, 6);
	assert_int_equal(over, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ascii_and_wide),
		cmocka_unit_test(test_tabs_follow_stops),
		cmocka_unit_test(test_invalid_bytes_are_one_column),
		cmocka_unit_test(test_fit_never_splits_a_wide_char),
		cmocka_unit_test(test_skip_reports_half_characters),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
