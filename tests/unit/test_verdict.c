#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "engine/core/table.h"
#include "engine/core/verdict.h"
#include "tests/unit/testutil.h"

static struct table *tbl;

static int setup(void **state)
{
	(void)state;
	char *p = xasprintf("%s/skill/pipeline.json", getenv("TILEPORT_TOP") ? getenv("TILEPORT_TOP") : ".");
	struct tp_err err;
	tbl = table_load(p, &err);
	free(p);
	return tbl ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	table_free(tbl);
	return 0;
}

static void parse(const char *text, char stage, struct verdict_reply *r)
{
	verdict_parse(text, strlen(text), table_stage(tbl, stage)->verdicts, r);
}

static enum gate_outcome gate(const char *text, char stage, bool offline, char *reason, size_t n)
{
	struct verdict_reply r;
	const struct stage_def *s = table_stage(tbl, stage);
	verdict_parse(text, strlen(text), s->verdicts, &r);
	struct gate_result g;
	verdict_gate(tbl, s, &r, text, offline, &g);
	if (reason)
		snprintf(reason, n, "%s", g.reason);
	verdict_reply_free(&r);
	return g.outcome;
}

static void test_block_commands_and_exits(void **state)
{
	(void)state;
	const char *text =
		"Done. Wrote the analysis.\r\n"
		"<VALIDATOR_OUTPUT>\r\n"
		"$ bash validate_ir.sh reference.mlir softmax 2>&1\r\n"
		"PASS: Valid MLIR IR matched entry @softmax (40 lines, 3 key ops)\r\n"
		"exit=0\r\n"
		"$ bash validate_analysis.sh softmax 2>&1\r\n"
		"kernel: softmax\r\n"
		"PASS: analysis.json has all required fields\r\n"
		"exit_code=0\r\n"
		"</VALIDATOR_OUTPUT>\r\n"
		"VERDICT: PASS\r\n";
	struct verdict_reply r;
	parse(text, 'A', &r);
	assert_string_equal(r.verdict, "PASS");
	assert_true(r.enumerated);
	assert_int_equal(r.verdict_line, 11);
	assert_true(r.has_block && r.block_closed);
	assert_int_equal(r.ncmds, 2);
	assert_string_equal(r.cmds[0].command, "bash validate_ir.sh reference.mlir softmax 2>&1");
	assert_string_equal(r.cmds[1].output, "kernel: softmax\nPASS: analysis.json has all required fields\n");
	assert_int_equal(r.exits, 2);
	assert_int_equal(r.nonzero, 0);
	assert_false(r.trailing_text);
	verdict_reply_free(&r);
	assert_int_equal(gate(text, 'A', false, NULL, 0), GATE_ACCEPT);
}

static void test_validator_verdict_inside_block_does_not_win(void **state)
{
	(void)state;
	/* validate_agent_b prints its own VERDICT line inside the block. */
	const char *text = "<VALIDATOR_OUTPUT>\n$ validate_agent_b.sh x\nVERDICT: COMPILED\nexit=0\n"
			   "</VALIDATOR_OUTPUT>\n**VERDICT: FAIL_FIXABLE**\n";
	struct verdict_reply r;
	parse(text, 'B', &r);
	assert_string_equal(r.verdict, "FAIL_FIXABLE");
	verdict_reply_free(&r);
}

static void test_noise_missing_closer_long_lines(void **state)
{
	(void)state;
	struct sbuf sb = SBUF_INIT;
	sb_adds(&sb, "log: ");
	for (int i = 0; i < 200000; i++)
		sb_addc(&sb, 'x');
	sb_adds(&sb, "\nVERDICT: maybe later\n<VALIDATOR_OUTPUT>\n$ pytest -x\nexit=1\n"
		     "$ validate_agent_d.sh k\nexit=0\n> VERDICT: FAIL\ntrailing words\n");
	struct verdict_reply r;
	parse(sb.buf, 'D', &r);
	assert_string_equal(r.verdict, "FAIL");
	assert_true(r.has_block);
	assert_false(r.block_closed);
	assert_int_equal(r.exits, 2);
	assert_int_equal(r.nonzero, 1);
	assert_true(r.trailing_text);
	verdict_reply_free(&r);
	/* D may carry a failing pytest together with FAIL (pipeline.md §14.5) */
	assert_int_equal(gate(sb.buf, 'D', false, NULL, 0), GATE_ACCEPT);
	sb_free(&sb);
}

static void test_perf_log_and_deferred(void **state)
{
	(void)state;
	const char *text = "<PERF_LOG>\ngeomean_ratio=1.02x\nseverity=DONE\n</PERF_LOG>\n"
			   "- deferred: reference-ir, perf-log\n"
			   "<VALIDATOR_OUTPUT>\n$ x\nexit=0\n</VALIDATOR_OUTPUT>\nVERDICT: DEFERRED\n";
	struct verdict_reply r;
	parse(text, 'E', &r);
	assert_true(r.has_perf_log);
	assert_int_equal(r.nperf, 2);
	assert_string_equal(r.perf[0].key, "geomean_ratio");
	assert_string_equal(r.perf[0].value, "1.02x");
	assert_non_null(r.deferred);
	assert_string_equal(r.deferred[0], "reference-ir");
	assert_string_equal(r.deferred[1], "perf-log");
	assert_null(r.deferred[2]);
	assert_false(r.enumerated); /* DEFERRED is not in E's vocabulary */
	verdict_reply_free(&r);
}

/* The five cases of the acceptance gate (pipeline.md §2). */
static void test_gate_cases(void **state)
{
	(void)state;
	char why[256];
	/* 1: a block whose exits are all 0 -> accept */
	assert_int_equal(gate("<VALIDATOR_OUTPUT>\n$ v\nexit=0\n</VALIDATOR_OUTPUT>\nVERDICT: COMPILED\n",
			      'B', false, why, sizeof(why)), GATE_ACCEPT);
	/* 2: no block, clean success, no bad words -> accept, soft marker */
	assert_int_equal(gate("All good.\nVERDICT: ALL_PASS\n", 'D', false, why, sizeof(why)),
			 GATE_ACCEPT_SOFT_MISSING);
	/* 3: no block and the text is not clean -> repair */
	assert_int_equal(gate("Traceback (most recent call last)\nVERDICT: DONE\n", 'E', false, why,
			      sizeof(why)), GATE_REPAIR);
	assert_non_null(strstr(why, "Traceback"));
	assert_int_equal(gate("no block\nVERDICT: FAIL_COMPILE\n", 'B', false, why, sizeof(why)),
			 GATE_REPAIR);
	/* 4: a block with a non-zero exit -> repair */
	assert_int_equal(gate("<VALIDATOR_OUTPUT>\n$ validate_agent_b.sh k\nexit=1\n</VALIDATOR_OUTPUT>\n"
			      "VERDICT: COMPILED\n", 'B', false, why, sizeof(why)), GATE_REPAIR);
	assert_non_null(strstr(why, "exit=1 for validate_agent_b.sh k"));
	/* 5: a block with no parseable exit at all -> repair */
	assert_int_equal(gate("<VALIDATOR_OUTPUT>\n$ v\nok\n</VALIDATOR_OUTPUT>\nVERDICT: PASS\n", 'A',
			      false, why, sizeof(why)), GATE_REPAIR);
	/* no verdict / unknown verdict -> repair */
	assert_int_equal(gate("nothing\n", 'A', false, why, sizeof(why)), GATE_REPAIR);
	assert_int_equal(gate("VERDICT: GREAT\n", 'A', false, why, sizeof(why)), GATE_REPAIR);
	/* DEFERRED only offline, only for deferrable stages */
	const char *def = "<VALIDATOR_OUTPUT>\n$ v\nexit=0\n</VALIDATOR_OUTPUT>\nVERDICT: DEFERRED\n";
	assert_int_equal(gate(def, 'A', false, NULL, 0), GATE_REPAIR);
	assert_int_equal(gate(def, 'A', true, NULL, 0), GATE_ACCEPT);
	assert_int_equal(gate(def, 'E', true, NULL, 0), GATE_REPAIR);
	/* pytest non-zero is only allowed together with FAIL */
	assert_int_equal(gate("<VALIDATOR_OUTPUT>\n$ python -m pytest t.py\nexit=1\n</VALIDATOR_OUTPUT>\n"
			      "VERDICT: ALL_PASS\n", 'D', false, NULL, 0), GATE_REPAIR);
	/* B's IR check: irdiff's 2 (notes) with COMPILED, not its 1; its 1 with
	 * FAIL_FIXABLE (the table's gate_allow_nonzero with "exits") */
	const char *irdiff2 = "<VALIDATOR_OUTPUT>\n$ tileport irdiff r.mlir g.mlir\nexit=2\n</VALIDATOR_OUTPUT>\n";
	const char *irdiff1 = "<VALIDATOR_OUTPUT>\n$ tileport irdiff r.mlir g.mlir\nexit=1\n</VALIDATOR_OUTPUT>\n";
	char *t = xasprintf("%sVERDICT: COMPILED\n", irdiff2);
	assert_int_equal(gate(t, 'B', true, NULL, 0), GATE_ACCEPT);
	free(t);
	t = xasprintf("%sVERDICT: COMPILED\n", irdiff1);
	assert_int_equal(gate(t, 'B', true, why, sizeof(why)), GATE_REPAIR);
	assert_non_null(strstr(why, "exit=1 for tileport irdiff"));
	free(t);
	t = xasprintf("%sVERDICT: FAIL_FIXABLE\n", irdiff1);
	assert_int_equal(gate(t, 'B', true, NULL, 0), GATE_ACCEPT);
	free(t);
}

static void test_owner_tags(void **state)
{
	(void)state;
	char *dir = tu_tmpdir();
	char *a = tu_write(dir, "correctness.md",
			   "VERDICT: FAIL\n# Agent D Report - softmax\n| Test | Config |\n"
			   "- **fail_class:** Host\nhost_fix: pass strides\n");
	char *v = owner_tag_read(a, "fail_class");
	assert_string_equal(v, "host");
	free(v);
	assert_null(owner_tag_read(a, "block_class"));
	char *b = tu_write(dir, "diff_report.md", "VERDICT: FAIL_FIXABLE\nowner:\nowner: kernel\n");
	assert_null(owner_tag_read(b, "owner")); /* the first tag line is empty */
	v = report_first_verdict(a);
	assert_string_equal(v, "FAIL");
	free(v);
	free(a);
	free(b);
	remove_tree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_block_commands_and_exits),
		cmocka_unit_test(test_validator_verdict_inside_block_does_not_win),
		cmocka_unit_test(test_noise_missing_closer_long_lines),
		cmocka_unit_test(test_perf_log_and_deferred),
		cmocka_unit_test(test_gate_cases),
		cmocka_unit_test(test_owner_tags),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
