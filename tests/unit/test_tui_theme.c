/* Theme parsing and colour fallbacks: names, colorN, #rrggbb, explicit A|B
 * fallbacks, nearest-colour mapping for 256 -> 16 -> 8 colour terminals,
 * errors that name file and line, and the shipped theme files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "tests/unit/testutil.h"
#include "tui/theme.h"
#include "engine/base/files.h"

static int color(const char *word, int ncolors, bool fg, bool *bold)
{
	struct theme_color c;
	struct tp_err e;
	assert_int_equal(theme_parse_color(word, &c, &e), 0);
	*bold = false;
	return theme_resolve_color(&c, ncolors, fg, bold);
}

static void test_names_and_numbers(void **state)
{
	(void)state;
	bool bold;
	assert_int_equal(color("default", 256, true, &bold), -1);
	assert_int_equal(color("red", 8, true, &bold), 1);
	assert_int_equal(color("bright-blue", 256, true, &bold), 12);
	assert_false(bold);
	assert_int_equal(color("color208", 256, true, &bold), 208);
	assert_int_equal(color("#ff0000", 256, true, &bold), 9);
	assert_int_equal(color("#000000", 256, true, &bold), 0);
}

static void test_fallbacks(void **state)
{
	(void)state;
	bool bold;
	/* 8 colours: bright colours become their base colour, bold for text. */
	assert_int_equal(color("bright-blue", 8, true, &bold), 4);
	assert_true(bold);
	assert_int_equal(color("bright-blue", 8, false, &bold), 4);
	assert_false(bold);
	/* Nearest: orange 208 (#ff8700) is closest to red among 16, yellow-ish... */
	int c16 = color("color208", 16, true, &bold);
	assert_true(c16 == 9 || c16 == 11 || c16 == 3 || c16 == 1);
	/* A grey from the ramp lands on a grey or white/black. */
	int g = color("color244", 8, true, &bold);
	assert_true(g == 7 || g == 0);
	/* An explicit fallback wins over the nearest colour. */
	assert_int_equal(color("color208|magenta", 8, true, &bold), 5);
	assert_int_equal(color("color208|magenta", 256, true, &bold), 208);
	/* No colours at all. */
	assert_int_equal(color("red", 0, true, &bold), -1);
}

static void test_bad_words(void **state)
{
	(void)state;
	struct theme_color c;
	struct tp_err e;
	assert_int_equal(theme_parse_color("color256", &c, &e), -1);
	assert_int_equal(theme_parse_color("purple", &c, &e), -1);
	assert_non_null(strstr(e.msg, "unknown colour 'purple'"));
	assert_int_equal(theme_parse_color("#12345", &c, &e), -1);
	struct theme_rule r;
	assert_int_equal(theme_parse_rule("red", &r, &e), -1);
	assert_int_equal(theme_parse_rule("red blue sparkly", &r, &e), -1);
	assert_non_null(strstr(e.msg, "unknown attribute 'sparkly'"));
	assert_int_equal(theme_parse_rule("red default bold underline", &r, &e), 0);
	assert_int_equal(r.attrs, TA_BOLD | TA_UNDERLINE);
}

static void test_file_errors_name_line(void **state)
{
	(void)state;
	char *dir = tu_tmpdir();
	char *path = tu_write(dir, "x.theme", "# comment\n\ncursor = black cyan\nnot-an-area = red red\n");
	struct theme t;
	theme_init_builtin(&t);
	struct tp_err e;
	assert_int_equal(theme_load_file(&t, path, &e), -1);
	char *want = xasprintf("%s:4: unknown area 'not-an-area'", path);
	assert_non_null(strstr(e.msg, want));
	free(want);
	/* The good line before it was applied. */
	assert_int_equal(t.rules[LINE_CURSOR].bg.value, 6);
	theme_free(&t);
	remove_tree(dir);
	free(dir);
	free(path);
}

static void test_shipped_themes_parse_and_cover_every_area(void **state)
{
	(void)state;
	const char *top = getenv("TILEPORT_TOP");
	if (!top)
		top = ".";
	static const char *const names[] = {"default", "light", "high-contrast", "monochrome"};
	for (size_t i = 0; i < 4; i++) {
		char *path = xasprintf("%s/themes/%s.theme", top, names[i]);
		char *text = read_file(path, NULL, NULL);
		assert_non_null(text);
		struct theme t;
		theme_init_builtin(&t);
		struct tp_err e;
		if (theme_load_file(&t, path, &e) < 0)
			fail_msg("%s", e.msg);
		/* Every area is set in every theme file: a new line type must be
		 * given a colour everywhere. */
		for (int a = 0; a < LINE__COUNT; a++) {
			char *key = xasprintf("\n%s ", line_types[a].name);
			if (!strstr(text, key))
				fail_msg("%s does not set %s", path, line_types[a].name);
			free(key);
		}
		free(text);
		free(path);
		theme_free(&t);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_and_numbers),
		cmocka_unit_test(test_fallbacks),
		cmocka_unit_test(test_bad_words),
		cmocka_unit_test(test_file_errors_name_line),
		cmocka_unit_test(test_shipped_themes_parse_and_cover_every_area),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
