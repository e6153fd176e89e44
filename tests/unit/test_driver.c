/* Driver specs (engine/core/driver.h): exec:COMMAND, chains of built-in
 * names, and a chain whose last link is exec:COMMAND (`mech,
 * exec:./agent.sh`), whose command keeps its commas. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "engine/core/driver.h"

static bool known(const char *name)
{
	return !strcmp(name, "mech") || !strcmp(name, "claude");
}

static const struct driver_catalog cat = {"mech, claude", known, NULL, NULL};

static void test_exec_and_chains(void **state)
{
	(void)state;
	struct driver d;
	struct tp_err err = {0};
	assert_int_equal(driver_parse("exec:./a.sh x,y", &cat, &d, &err), 0);
	assert_int_equal(d.kind, DRIVER_EXEC);
	assert_string_equal(d.command, "./a.sh x,y");
	driver_free(&d);
	assert_int_equal(driver_parse("mech, claude", &cat, &d, &err), 0);
	assert_int_equal(d.kind, DRIVER_BUILTIN);
	assert_string_equal(d.command, "mech,claude");
	driver_free(&d);
	/* an exec: link ends the chain; its command is the rest, commas too */
	assert_int_equal(driver_parse("mech, exec: ./a.sh --x=1,2", &cat, &d, &err), 0);
	assert_int_equal(d.kind, DRIVER_BUILTIN);
	assert_string_equal(d.chain[0], "mech");
	assert_string_equal(d.chain[1], "exec:./a.sh --x=1,2");
	assert_null(d.chain[2]);
	assert_string_equal(d.command, "mech,exec:./a.sh --x=1,2");
	/* what the stage child is given parses to the same chain */
	struct driver again;
	assert_int_equal(driver_parse(d.command, &cat, &again, &err), 0);
	assert_string_equal(again.chain[1], "exec:./a.sh --x=1,2");
	driver_free(&again);
	driver_free(&d);
	assert_int_equal(driver_parse("mech, exec:", &cat, &d, &err), -1);
	assert_non_null(strstr(err.msg, "exec needs a command"));
	assert_int_equal(driver_parse("nope, exec:x", &cat, &d, &err), -1);
	assert_non_null(strstr(err.msg, "unknown driver 'nope'"));
	assert_int_equal(driver_parse("mech, http:x", &cat, &d, &err), -1);
}

static void test_resolve_a_chains_exec_link(void **state)
{
	(void)state;
	const char *top = getenv("TILEPORT_TOP") ? getenv("TILEPORT_TOP") : ".";
	char *base = realpath(top, NULL);
	assert_non_null(base);
	char *r = driver_spec_resolve("mech, exec:./tests/run.sh a", base);
	char *want = xasprintf("mech, exec:%s/tests/run.sh a", base);
	assert_string_equal(r, want);
	free(want);
	free(r);
	r = driver_spec_resolve("mech, claude", base);
	assert_string_equal(r, "mech, claude");
	free(r);
	free(base);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exec_and_chains),
		cmocka_unit_test(test_resolve_a_chains_exec_link),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
