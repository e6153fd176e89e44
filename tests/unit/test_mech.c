/* The mech driver's stages A, B and D on a private copy of the sample
 * workspace: what it handles, the transcript it writes (read back by the
 * transcript reader), a reply the acceptance gate takes, the artifacts,
 * idempotent registration, and the hand-overs (an unsupported construct,
 * a run with the toolchain). The validators run as $TILEPORT. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/agents/agent.h"
#include "engine/agents/mech.h"
#include "engine/agents/mech_int.h"
#include "engine/base/files.h"
#include "engine/base/proc.h"
#include "engine/core/table.h"
#include "engine/core/transcript.h"
#include "engine/core/verdict.h"
#include "tests/unit/testutil.h"

static char *tmp, *ws, *out;
static struct table *tbl;

static int setup(void **state)
{
	(void)state;
	const char *top = getenv("TILEPORT_TOP") ? getenv("TILEPORT_TOP") : ".";
	char *p = xasprintf("%s/skill/pipeline.json", top);
	tbl = table_load(p, NULL);
	free(p);
	tmp = tu_tmpdir();
	ws = path_join(tmp, "ws");
	out = path_join(tmp, "out");
	char *src = xasprintf("%s/samples/workspace", top);
	char *argv[] = {"cp", "-R", src, ws, NULL};
	char **env = env_current();
	struct proc_opts o = {.argv = argv, .env = env};
	struct proc_status st;
	int rc = proc_run_sync(&o, NULL, NULL, &st, NULL);
	strv_free(env);
	free(src);
	return tbl && rc == 0 && st.end == PROC_EXITED && st.code == 0 ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	remove_tree(tmp);
	free(tmp);
	free(ws);
	free(out);
	table_free(tbl);
	return 0;
}

struct stage_result {
	char *final;   /* the final message */
	long long tokens;
	enum gate_outcome gate;
	char *verdict;
};

static void stage_result_free(struct stage_result *s)
{
	free(s->final);
	free(s->verdict);
}

/* Run stage `stage` of `op` and read its transcript back. */
static void run_stage(char stage, const char *op, bool offline, struct stage_result *res)
{
	const char *bin = getenv("TILEPORT");
	if (!bin)
		skip();
	char *run = path_join(out, op);
	struct mech_ctx c = {.stage = stage, .op = op, .run_dir = run, .workspace = ws,
			     .offline = offline, .bin = bin};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct recorder rec;
	recorder_init(&rec, f);
	struct tp_err err = {0};
	assert_int_equal(mech_run(&c, &rec, &err), 0);
	recorder_free(&rec);
	fclose(f);
	char *tpath = path_join(tmp, "transcript.jsonl");
	struct transcript *t = transcript_open(tpath, NULL);
	assert_non_null(t);
	transcript_feed(t, buf, len, NULL, NULL);
	transcript_finish(t, NULL, NULL);
	res->final = xstrdup(transcript_final(t));
	res->tokens = transcript_tokens_in(t) + transcript_tokens_out(t);
	transcript_close(t);
	const struct stage_def *s = table_stage(tbl, stage);
	struct verdict_reply r;
	verdict_parse(res->final, strlen(res->final), s->verdicts, &r);
	res->verdict = r.verdict ? xstrdup(r.verdict) : xstrdup("");
	struct gate_result g;
	verdict_gate(tbl, s, &r, res->final, offline, &g);
	res->gate = g.outcome;
	verdict_reply_free(&r);
	free(tpath);
	free(buf);
	free(run);
}

static bool exists(const char *root, const char *rel)
{
	char *p = path_join(root, rel);
	bool ok = access(p, F_OK) == 0;
	free(p);
	return ok;
}

static char *ws_file(const char *rel)
{
	char *p = path_join(ws, rel);
	char *text = read_file(p, NULL, NULL);
	free(p);
	assert_non_null(text);
	return text;
}

static void has(const char *text, const char *want)
{
	if (!strstr(text, want)) {
		fprintf(stderr, "---- want\n%s\n---- in\n%s\n----\n", want, text);
		fail();
	}
}

/* Stage B lets the IR check decide only where the semantic check's every
 * CRITICAL is a place it could not follow: one real difference, or no
 * CRITICAL at all, is not that. */
static void test_sem_only_unread(void **state)
{
	(void)state;
	const char *unread = "entry k <-> k: 1 critical, 0 warn, 1 note\n"
			     "CRITICAL [sem.unread] k.py:7: the check cannot follow the source here: x\n"
			     "NOTE [sem.hint] k.py:3 k.rs:8: kernel hint occupancy=2\n"
			     "semantic check (dataflow): 1 critical, 0 warn, 1 note\nMISMATCH\n";
	assert_true(mech_sem_only_unread(unread));
	char *mixed = xasprintf("%sCRITICAL [sem.value] k.py:9 k.rs:40: value of the store differs\n", unread);
	assert_false(mech_sem_only_unread(mixed));
	free(mixed);
	assert_false(mech_sem_only_unread("semantic check (dataflow): 0 critical, 0 warn, 0 note\nMATCH\n"));
	assert_false(mech_sem_only_unread(""));
}

static void test_what_mech_handles(void **state)
{
	(void)state;
	char *why = NULL;
	for (const char *s = "ABD"; *s; s++)
		assert_true(mech_handles(*s, "softmax", ws, &why));
	assert_false(mech_handles('C', "softmax", ws, &why));
	assert_non_null(why);
	free(why);
	why = NULL;
	assert_false(mech_handles('A', "no_such_op", ws, &why));
	assert_non_null(why);
	free(why);
	/* the registry's hook: a default of offline runs only */
	const struct agent_driver *d = agent_driver_find("mech");
	assert_non_null(d);
	assert_true(d->hands_over);
	assert_true(d->deterministic);
	assert_false(agent_driver_find("claude")->deterministic);
	struct agent_probe off = {NULL, false, true}, on = {NULL, false, false};
	assert_true(d->handles(&off, 'B', "softmax", ws, NULL));
	assert_false(d->handles(&on, 'B', "softmax", ws, NULL));
	why = NULL;
	assert_false(d->handles(&off, 'C', "softmax", ws, &why));
	assert_non_null(why); /* the reason reaches the default choice */
	free(why);
}

static void test_offline_a_b_d_deferred(void **state)
{
	(void)state;
	/* every sample operator: its analysis, kernel and host code pass the
	 * validators the stages run (validate analysis, entry-pattern,
	 * agent-b's source checks, agent-d's host checks) */
	static const char *const ops[] = {"softmax", "silu_and_mul", "layer_norm", "matmul",
					  "rms_norm"};
	/* no compiler here: the toolchain steps stay deferred (the real
	 * compiler's runs are tests/integration/compile.sh's) */
	if (!getenv("TILEPORT"))
		skip();
	char *path = xstrdup(getenv("PATH")), *home = xstrdup(getenv("HOME"));
	setenv("PATH", "/usr/bin:/bin", 1);
	setenv("HOME", tmp, 1);
	for (size_t i = 0; i < TP_ARRAY_LEN(ops); i++) {
		for (const char *s = "ABD"; *s; s++) {
			struct stage_result res = {0};
			run_stage(*s, ops[i], true, &res);
			has(res.final, "<VALIDATOR_OUTPUT>");
			has(res.final, "deferred: ");
			if (strstr(res.final, "\nexit=1") || strstr(res.final, "\nexit=2")) {
				fprintf(stderr, "%s stage %c:\n%s\n", ops[i], *s, res.final);
				fail();
			}
			assert_string_equal(res.verdict, "DEFERRED");
			assert_int_equal(res.gate, GATE_ACCEPT);
			assert_int_equal(res.tokens, 0);
			stage_result_free(&res);
		}
		char *run = path_join(out, ops[i]);
		assert_true(exists(run, "reference/analysis.json"));
		assert_true(exists(run, "kernel.rs"));
		assert_true(exists(run, "reports/build_log.md"));
		assert_true(exists(run, "ffi.rs"));
		assert_true(exists(run, "reports/agent_logs/agent_d.md"));
		free(run);
	}
	char *lib = ws_file("src/tilegym/ops/cutile_rs/cutile_kernels/src/lib.rs");
	has(lib, "layer_norm");
	char *test = ws_file("tests/ops/test_layer_norm.py");
	has(test, "cutile-rs");
	/* D again: the registration edits are not repeated */
	struct stage_result res = {0};
	run_stage('D', "layer_norm", true, &res);
	assert_string_equal(res.verdict, "DEFERRED");
	stage_result_free(&res);
	char *lib2 = ws_file("src/tilegym/ops/cutile_rs/cutile_kernels/src/lib.rs");
	char *test2 = ws_file("tests/ops/test_layer_norm.py");
	assert_string_equal(lib, lib2);
	assert_string_equal(test, test2);
	free(lib);
	free(lib2);
	free(test);
	free(test2);
	setenv("PATH", path, 1);
	setenv("HOME", home, 1);
	free(path);
	free(home);
}

static void test_unsupported_hands_over(void **state)
{
	(void)state;
	free(tu_write(ws, "src/tilegym/ops/cutile/looped.py",
		      "import cuda.tile as ct\n\n\n@ct.kernel\ndef looped_kernel(X):\n"
		      "    i = 0\n    while i < 4:\n        i += 1\n"));
	char *why = NULL;
	assert_false(mech_handles('B', "looped", ws, &why));
	has(why, "src/tilegym/ops/cutile/looped.py:7:5: unsupported: while loop");
	free(why);
	struct stage_result res = {0};
	run_stage('B', "looped", true, &res);
	/* the chain's hand-over: a line beginning `unsupported:`, a FAIL verdict */
	assert_true(str_starts(res.final,
			       "unsupported: src/tilegym/ops/cutile/looped.py:7:5: while loop\n"));
	assert_string_equal(res.verdict, "FAIL_FIXABLE");
	stage_result_free(&res);
}

static void test_toolchain_runs_hand_over(void **state)
{
	(void)state;
	struct stage_result res = {0};
	run_stage('B', "softmax", false, &res);
	assert_true(str_starts(res.final, "unsupported: the toolchain is present"));
	assert_true(strncmp(res.verdict, "FAIL", 4) == 0);
	assert_int_equal(res.tokens, 0);
	stage_result_free(&res);
}

/* An operator whose second kernel is refused (issue 23): A and B are
 * mech's, D is not; B writes the first kernel and hands the stage over
 * naming exactly the second, at FILE:LINE:COL, and what kernel.rs holds. */
static void test_partial_hands_over_the_rest(void **state)
{
	(void)state;
	if (!getenv("TILEPORT"))
		skip();
	const char *top = getenv("TILEPORT_TOP") ? getenv("TILEPORT_TOP") : ".";
	char *src = xasprintf("%s/tests/fixtures/port/partial/scale_then_count.py", top);
	char *tst = xasprintf("%s/tests/fixtures/port/partial/test_scale_then_count.py", top);
	char *text = read_file(src, NULL, NULL), *ttext = read_file(tst, NULL, NULL);
	assert_non_null(text);
	assert_non_null(ttext);
	char *dst = path_join(ws, "src/tilegym/ops/cutile/scale_then_count.py");
	char *tdst = path_join(ws, "tests/ops/test_scale_then_count.py");
	assert_int_equal(write_file_atomic(dst, text, strlen(text), NULL), 0);
	assert_int_equal(write_file_atomic(tdst, ttext, strlen(ttext), NULL), 0);
	char *why = NULL;
	assert_true(mech_handles('A', "scale_then_count", ws, NULL));
	assert_true(mech_handles('B', "scale_then_count", ws, NULL));
	assert_false(mech_handles('D', "scale_then_count", ws, &why));
	has(why, "while loop");
	free(why);
	struct stage_result a, b;
	run_stage('A', "scale_then_count", true, &a);
	assert_string_equal(a.verdict, "DEFERRED");
	run_stage('B', "scale_then_count", true, &b);
	assert_string_equal(b.verdict, "FAIL_FIXABLE");
	assert_int_equal(b.tokens, 0);
	has(b.final, "unsupported: src/tilegym/ops/cutile/scale_then_count.py:19:5: while loop (kernel "
		     "count_up_kernel, not translated); kernel.rs holds the translated kernel "
		     "scale_rows_kernel\npartial: kernel.rs holds 1 of 2 kernels, translated by mech");
	has(b.final, "; keep them as they are and add only the kernels left\nleft: count_up_kernel at "
		     "src/tilegym/ops/cutile/scale_then_count.py:19:5: while loop\n<VALIDATOR_OUTPUT>");
	char *u = verdict_unsupported(b.final);
	has(u, "count_up_kernel");
	free(u);
	char *kp = path_join(out, "scale_then_count/kernel.rs");
	char *k = read_file(kp, NULL, NULL);
	assert_non_null(k);
	has(k, "pub unsafe fn scale_rows_kernel<");
	assert_null(strstr(k, "fn count_up_kernel"));
	free(k);
	free(kp);
	stage_result_free(&a);
	stage_result_free(&b);
	free(dst);
	free(tdst);
	free(text);
	free(ttext);
	free(src);
	free(tst);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sem_only_unread),
		cmocka_unit_test(test_what_mech_handles),
		cmocka_unit_test(test_offline_a_b_d_deferred),
		cmocka_unit_test(test_unsupported_hands_over),
		cmocka_unit_test(test_partial_hands_over_the_rest),
		cmocka_unit_test(test_toolchain_runs_hand_over),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
