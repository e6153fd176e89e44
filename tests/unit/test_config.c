#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "engine/base/config.h"
#include "tests/unit/testutil.h"

static void test_sections_overrides_directives(void **state)
{
	(void)state;
	char *dir = tu_tmpdir();
	char *a = tu_write(dir, "a.conf",
			   "# user config\n"
			   "theme = light\n"
			   "\n"
			   "[driver]\n"
			   "A = exec:./agent.sh --stage A\n"
			   "bind pipeline r respawn\n"
			   "quoted = \"  keep # this  \"\n");
	char *b = tu_write(dir, ".tileport.conf", "theme=mono\n");
	struct config c = {0};
	struct tp_err err;
	assert_int_equal(config_load_file(&c, a, &err), 0);
	assert_int_equal(config_load_file(&c, b, &err), 0);
	assert_string_equal(config_get(&c, "theme"), "mono");
	assert_string_equal(config_get(&c, "driver.A"), "exec:./agent.sh --stage A");
	assert_string_equal(config_get(&c, "driver.quoted"), "  keep # this  ");
	const struct config_entry *e = config_find(&c, "driver.A");
	assert_int_equal(e->line, 5);
	bool found = false;
	for (size_t i = 0; i < c.n; i++)
		if (!c.v[i].key && strcmp(c.v[i].value, "bind pipeline r respawn") == 0)
			found = c.v[i].line == 6;
	assert_true(found);
	assert_null(config_get(&c, "missing"));
	config_free(&c);
	free(a);
	free(b);
	remove_tree(dir);
	free(dir);
}

/* Comments after a value, as the docs' examples write them: a '#' after a
 * blank outside quotes; a '#' inside a word or quotes is the value's. */
static void test_inline_comments(void **state)
{
	(void)state;
	char *dir = tu_tmpdir();
	char *a = tu_write(dir, "a.conf",
			   "jobs = 8          # runs at once\n"
			   "[slurm]   # the cluster\n"
			   "partition = gpu#2\n"
			   "time = \"04:00 # not a comment\"   # a comment\n"
			   "bind pipeline r respawn   # a directive's comment\n");
	struct config c = {0};
	struct tp_err err;
	assert_int_equal(config_load_file(&c, a, &err), 0);
	assert_string_equal(config_get(&c, "jobs"), "8");
	assert_string_equal(config_get(&c, "slurm.partition"), "gpu#2");
	assert_string_equal(config_get(&c, "slurm.time"), "04:00 # not a comment");
	bool found = false;
	for (size_t i = 0; i < c.n; i++)
		found |= !c.v[i].key && !strcmp(c.v[i].value, "bind pipeline r respawn");
	assert_true(found);
	config_free(&c);
	free(a);
	remove_tree(dir);
	free(dir);
}

static void test_errors_name_file_and_line(void **state)
{
	(void)state;
	char *dir = tu_tmpdir();
	char *a = tu_write(dir, "bad.conf", "theme = x\n\nbad key = 1\n");
	struct config c = {0};
	struct tp_err err;
	assert_int_equal(config_load_file(&c, a, &err), -1);
	assert_int_equal(err.code, 2);
	char *want = xasprintf("%s:3: expected 'key = value'", a);
	assert_non_null(strstr(err.msg, want));
	free(want);
	char *s = tu_write(dir, "sec.conf", "[open\n");
	assert_int_equal(config_load_file(&c, s, &err), -1);
	assert_non_null(strstr(err.msg, ":1: expected '[section]'"));
	/* a missing file is fine */
	assert_int_equal(config_load_file(&c, "/nonexistent/conf", &err), 0);
	config_free(&c);
	free(a);
	free(s);
	remove_tree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sections_overrides_directives),
		cmocka_unit_test(test_errors_name_file_and_line),
		cmocka_unit_test(test_inline_comments),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
