#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "engine/base/files.h"
#include "engine/core/table.h"
#include "tests/unit/testutil.h"

static char *real_table(void)
{
	char *p = xasprintf("%s/skill/pipeline.json", getenv("TILEPORT_TOP") ? getenv("TILEPORT_TOP") : ".");
	char *t = read_file(p, NULL, NULL);
	assert_non_null(t);
	free(p);
	return t;
}

/* Replace the first occurrence of `from` in `text`. */
static char *replace(const char *text, const char *from, const char *to)
{
	const char *at = strstr(text, from);
	assert_non_null(at);
	return xasprintf("%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
}

static int line_of(const char *text, const char *needle)
{
	const char *at = strstr(text, needle);
	assert_non_null(at);
	int line = 1;
	for (const char *p = text; p < at; p++)
		line += *p == '\n';
	return line;
}

/* Load `text` and expect an error containing ":LINE: " and `what`. */
static void expect_error(const char *text, int line, const char *what)
{
	char *dir = tu_tmpdir();
	char *path = tu_write(dir, "pipeline.json", text);
	struct tp_err err;
	struct table *t = table_load(path, &err);
	assert_null(t);
	assert_int_equal(err.code, 2);
	char *where = xasprintf("%s:%d:", path, line);
	if (!strstr(err.msg, where) || !strstr(err.msg, what))
		fail_msg("got '%s', want '%s' and '%s'", err.msg, where, what);
	free(where);
	free(path);
	remove_tree(dir);
	free(dir);
}

static void test_real_table_loads(void **state)
{
	(void)state;
	char *text = real_table();
	char *dir = tu_tmpdir();
	char *path = tu_write(dir, "pipeline.json", text);
	struct tp_err err;
	struct table *t = table_load(path, &err);
	assert_non_null(t);
	assert_int_equal(t->nstages, 6);
	const char caps[] = {1, 2, 1, 2, 2, 1};
	for (size_t i = 0; i < 6; i++) {
		assert_int_equal(t->stages[i].letter, "ABCDEF"[i]);
		assert_int_equal(t->stages[i].cap, caps[i]);
	}
	/* row lines point at the rows themselves */
	assert_int_equal(t->routes[0].line, line_of(text, "{\"stage\": \"A\", \"verdicts\": [\"PASS\"]"));
	const struct route_row *r = table_route(t, 'D', 1, "FAIL", "host", false, NULL, NULL);
	assert_non_null(r);
	assert_int_equal(r->action, ROUTE_SPAWN);
	assert_int_equal(r->target, 'D');
	r = table_route(t, 'D', 2, "FAIL", "host", false, NULL, NULL);
	assert_int_equal(r->action, ROUTE_COMPLETE);
	/* conditions: without an evaluator a conditional row never fires */
	r = table_route(t, 'E', 1, "INVESTIGATE", NULL, false, NULL, NULL);
	assert_int_equal(r->action, ROUTE_COMPLETE);
	/* the gate's and the end's settings */
	assert_false(t->missing_owner_kernel);
	assert_int_equal(t->accept_stage, 'E');
	assert_string_equal(t->accept_verdicts[0], "DONE");
	assert_null(t->accept_verdicts[1]);
	/* offline rows only offline */
	assert_null(table_route(t, 'A', 1, "DEFERRED", NULL, false, NULL, NULL));
	assert_non_null(table_route(t, 'A', 1, "DEFERRED", NULL, true, NULL, NULL));
	table_free(t);
	free(path);
	remove_tree(dir);
	free(dir);
	free(text);
}

static void test_gate_and_final_settings(void **state)
{
	(void)state;
	char *text = real_table();
	char *bad = replace(text, "\"missing_owner\": \"stop\"", "\"missing_owner\": \"guess\"");
	expect_error(bad, 1, "gate.missing_owner is \"stop\" or \"kernel\", not \"guess\"");
	free(bad);
	bad = replace(text, "\"verdicts\": [\"DONE\"]}}", "\"verdicts\": [\"FINE\"]}}");
	expect_error(bad, 1, "final.accept: 'FINE' is not a verdict of stage E");
	free(bad);
	bad = replace(text, "\"accept\": {\"stage\": \"E\"", "\"accept\": {\"stage\": \"Q\"");
	expect_error(bad, 1, "final.accept needs a 'stage' of the table");
	free(bad);
	free(text);
}

static void test_unknown_verdict_names_row_line(void **state)
{
	(void)state;
	char *text = real_table();
	const char *row = "{\"stage\": \"E\", \"attempt\": 1, \"verdicts\": [\"DONE\"]";
	char *bad = replace(text, row, "{\"stage\": \"E\", \"attempt\": 1, \"verdicts\": [\"DONNE\"]");
	expect_error(bad, line_of(text, row), "unknown verdict 'DONNE' for stage E");
	free(bad);
	free(text);
}

static void test_duplicate_row(void **state)
{
	(void)state;
	char *text = real_table();
	const char *row = "    {\"stage\": \"A\", \"verdicts\": [\"PASS\"], \"action\": \"spawn B\"},\n";
	char *bad = replace(text, row, "    {\"stage\": \"A\", \"verdicts\": [\"PASS\"], \"action\": \"spawn B\"},\n"
				       "    {\"stage\": \"A\", \"verdicts\": [\"PASS\"], \"action\": \"STOP\"},\n");
	expect_error(bad, line_of(text, row) + 1, "duplicate row: stage A verdict PASS");
	free(bad);
	free(text);
}

static void test_unreachable_stage(void **state)
{
	(void)state;
	char *text = real_table();
	/* Without its "manual" flag, F is spawned by no row. */
	char *bad = replace(text, "\"deferrable\": false, \"manual\": true,", "\"deferrable\": false,");
	expect_error(bad, line_of(text, "\"letter\": \"F\"") - 1, "stage F is unreachable");
	free(bad);
	free(text);
}

static void test_missing_row(void **state)
{
	(void)state;
	char *text = real_table();
	const char *row = "    {\"stage\": \"D\", \"attempt\": 1, \"verdicts\": [\"BLOCKED\"], \"class\": \"env\", \"action\": \"STOP\"},\n";
	char *bad = replace(text, row, "");
	expect_error(bad, line_of(text, "\"letter\": \"D\"") - 1,
		     "stage D: no unconditional routing row for attempt 1, verdict BLOCKED, class env");
	free(bad);
	free(text);
}

static void test_malformed_json_and_actions(void **state)
{
	(void)state;
	expect_error("{\n  \"schema\": 1,\n  \"stages\": [ oops ]\n}\n", 3, "malformed JSON");
	char *text = real_table();
	const char *row = "{\"stage\": \"C\", \"verdicts\": [\"PASS\", \"PASS_WITH_NOTES\"], \"action\": \"PIPELINE_COMPLETE\"}";
	char *bad = replace(text, row, "{\"stage\": \"C\", \"verdicts\": [\"PASS\", \"PASS_WITH_NOTES\"], \"action\": \"spawn Z\"}");
	expect_error(bad, line_of(text, row), "spawn of unknown stage Z");
	free(bad);
	bad = replace(text, "\"when\": [\"not_respawned D\"]", "\"when\": [\"sometimes D\"]");
	expect_error(bad, line_of(text, "\"when\": [\"not_respawned D\"]"), "unknown condition 'sometimes D'");
	free(bad);
	free(text);
}

/* Containers of the wrong JSON type are errors, never crashes. */
static void test_wrong_container_types(void **state)
{
	(void)state;
	char *text = real_table();
	const char *keys = "\"keys\": {\"FAIL_FIXABLE\": {\"key\": \"owner\", \"classes\": [\"host\", \"kernel\"]}}";
	char *bad = replace(text, keys, "\"keys\": [{\"key\": \"owner\"}]");
	expect_error(bad, line_of(text, "\"letter\": \"C\"") - 1, "owner 'keys' must be an object");
	free(bad);
	bad = replace(text, "\"when\": [\"not_respawned D\"]", "\"when\": \"not_respawned D\"");
	expect_error(bad, line_of(text, "\"when\": [\"not_respawned D\"]"), "'when' must be a list of strings");
	free(bad);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_table_loads),
		cmocka_unit_test(test_gate_and_final_settings),
		cmocka_unit_test(test_unknown_verdict_names_row_line),
		cmocka_unit_test(test_duplicate_row),
		cmocka_unit_test(test_unreachable_stage),
		cmocka_unit_test(test_missing_row),
		cmocka_unit_test(test_malformed_json_and_actions),
		cmocka_unit_test(test_wrong_container_types),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
