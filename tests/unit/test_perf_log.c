#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/perf/compare.h"
#include "engine/perf/perflog.h"
#include "engine/perf/perfmd.h"
#include "tests/unit/testutil.h"

static char *tmp;

static int setup(void **state)
{
	(void)state;
	tmp = tu_tmpdir();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	remove_tree(tmp);
	free(tmp);
	return 0;
}

static void parse(const char *text, struct perf_log *log)
{
	perflog_parse("x.txt", text, strlen(text), log);
}

/* a section as the sample workspace's conftest prints it */
#define SECTION(id, json) \
	id " \n==================== Performance Test Results ====================\ntest: " id \
	"\n" json "\n\n" id " PASSED\n"

static void test_reference_layout(void **state)
{
	(void)state;
	/* the layout of the fixture logs: node id, marker, payload, PASSED */
	const char *t =
		"collecting ... collected 2 items\n\n"
		"tests/ops/test_softmax.py::Test_Softmax::test_perf[4096-1024-float16-cutile]\n"
		"==================== Performance Test Results ====================\n"
		"{\"cutile\": {\"forward\": {\"median\": 0.0301, \"rel_std\": 1.1, \"nrep\": 120}}}\n"
		"PASSED\n"
		"tests/ops/test_softmax.py::Test_Softmax::test_perf[8192-1024-float16-cutile] SKIPPED\n";
	struct perf_log log;
	parse(t, &log);
	assert_int_equal(log.sections, 1);
	assert_int_equal(log.passed, 1);
	assert_int_equal(log.skipped, 1);
	assert_int_equal(log.nrecs, 1);
	const struct perf_record *r = &log.recs[0];
	assert_int_equal(r->line, 4);
	assert_string_equal(r->params, "4096-1024-float16-cutile");
	assert_string_equal(r->backend, "cutile");
	assert_string_equal(r->config, "4096-1024-float16");
	assert_float_equal(r->st.median, 0.0301, 1e-12);
	assert_float_equal(r->st.noise, 1.1, 1e-12); /* rel_std stands in for noise */
	assert_int_equal(r->st.nrep, 120);
	assert_true(isnan(r->st.kernels));
	assert_int_equal(r->outcome, PERF_OUTCOME_PASSED);
	assert_null(r->problem);
	perflog_free(&log);
	/* a repetition count no long holds is no count (found by fuzz_perflog:
	 * the conversion was undefined) */
	parse("tests/ops/test_softmax.py::Test_Softmax::test_perf[8-cutile]\n"
	      "==================== Performance Test Results ====================\n"
	      "{\"cutile\": {\"forward\": {\"median\": 0.03, \"nrep\": 9.1e57}}}\nPASSED\n",
	      &log);
	assert_int_equal(log.nrecs, 1);
	assert_int_equal(log.recs[0].st.nrep, -1);
	perflog_free(&log);
}

static void test_conftest_layout_and_fields(void **state)
{
	(void)state;
	const char *t =
		"warning: at::native::vectorized_elementwise_kernel<4> launched\n" SECTION(
			"tests/ops/test_x.py::T::test_perf[8-1024-cutile_rs-True]",
			"{\"cutile_rs\": {\"forward\": {\"median\": 0.5, \"kernels_per_iter\": 2, "
			"\"noise\": 0.4, \"rel_std\": 0.9, \"kernel_name\": \"k\"}, "
			"\"backward\": {\"median\": 1.5, \"kernel_times\": [{\"name\": \"a\", \"count\": "
			"1}, {\"name\": \"b\", \"count\": 3}]}}}");
	struct perf_log log;
	parse(t, &log);
	assert_int_equal(log.nrecs, 2);
	assert_int_equal(log.nnotes, 0);
	assert_string_equal(log.recs[0].config, "8-1024-True");
	assert_float_equal(log.recs[0].st.kernels, 2, 0);
	assert_float_equal(log.recs[0].st.noise, 0.4, 1e-12); /* explicit noise wins */
	assert_string_equal(log.recs[0].st.kernel_name, "k");
	assert_true(log.recs[1].backward);
	assert_string_equal(log.recs[1].config, "8-1024-True backward");
	assert_float_equal(log.recs[1].st.kernels, 4, 0); /* sum of kernel_times counts */
	assert_int_equal(log.recs[1].outcome, PERF_OUTCOME_PASSED);
	perflog_free(&log);
}

static void test_multiline_and_bad_payloads(void **state)
{
	(void)state;
	const char *t =
		"t.py::test[a-cutile]\n== Performance Test Results ==\n{\n  \"cutile\": {\"median\": 2}\n}\n"
		"PASSED\n"
		"t.py::test[b-cutile]\n== Performance Test Results ==\n{'cutile': {'median': 1}}\nPASSED\n"
		"t.py::test[c-cutile]\n== Performance Test Results ==\nno payload here\nFAILED\n"
		"t.py::test[d-cutile]\n== Performance Test Results ==\n{\"cutile\": {\"forward\": "
		"{\"median\": 3}}}\nFAILED t.py::test[d-cutile] - AssertionError\n";
	struct perf_log log;
	parse(t, &log);
	assert_int_equal(log.sections, 4);
	assert_int_equal(log.failed, 2);
	assert_int_equal(log.first_failed_line, 14);
	assert_int_equal(log.nrecs, 4);
	assert_float_equal(log.recs[0].st.median, 2, 0); /* stats without "forward" */
	assert_string_equal(log.recs[0].config, "a");
	/* one line for one record: the problem's own, not the marker's too (issue 26) */
	assert_non_null(strstr(log.recs[1].problem, "the benchmark record is not valid JSON"));
	assert_null(strstr(log.recs[1].problem, "line"));
	assert_int_equal(perf_record_problem_line(&log.recs[1]), 9);
	assert_int_equal(perf_record_problem_line(&log.recs[3]), log.recs[3].line);
	assert_non_null(strstr(log.recs[2].problem, "expected the benchmark record"));
	assert_int_equal(log.recs[2].outcome, PERF_OUTCOME_FAILED);
	assert_string_equal(log.recs[3].problem, "the test FAILED");
	perflog_free(&log);

	/* cJSON takes a raw newline in a key; as a backend name it would have
	 * put a second geomean_ratio= line into a report (found by fuzzing) */
	t = "t.py::test[a-cutile]\n== Performance Test Results ==\n"
	    "{\"cut\ngeomean_ratio=ile\": {\"median\": 2}}\nPASSED\n";
	parse(t, &log);
	assert_int_equal(log.nrecs, 1);
	assert_string_equal(log.recs[0].backend, "cutile"); /* from the test id */
	assert_string_equal(log.recs[0].config, "a");
	assert_true(isnan(log.recs[0].st.median));
	assert_non_null(strstr(log.recs[0].problem, "control character"));
	perflog_free(&log);
}

static void test_config_keys(void **state)
{
	(void)state;
	struct {
		const char *params, *backend, *want;
	} cases[] = {
		{"4096-1024-float16-cutile", "cutile", "4096-1024-float16"},
		{"cutile_rs-4096-1024", "cutile_rs", "4096-1024"},
		{"4096-cutile-rs-1024", "cutile_rs", "4096-1024"}, /* '_' written '-' */
		{"4096-cutile2-1024", "cutile", "4096-cutile2-1024"}, /* not the token */
		{"4096-triton-1024", NULL, "4096-1024"},           /* known backend names */
		{"4096-1024", "cutile", "4096-1024"},
	};
	for (size_t i = 0; i < TP_ARRAY_LEN(cases); i++) {
		char *k = perflog_config_key(cases[i].params, cases[i].backend);
		assert_string_equal(k, cases[i].want);
		free(k);
	}
	size_t n;
	const char *d = perf_config_dtype("16384-8192-bfloat16", &n);
	assert_non_null(d);
	assert_int_equal(n, 8);
	assert_null(perf_config_dtype("8-1024-True", &n));
	char *s = perf_config_shape("16384-torch.float16-8192");
	assert_string_equal(s, "16384-8192");
	free(s);
}

static char *log_of(const char *name, const char *backend, const char *const *cfgs,
		    const double *ms, size_t n)
{
	struct sbuf sb = SBUF_INIT;
	for (size_t i = 0; i < n; i++)
		sb_printf(&sb, "tests/ops/test_softmax.py::T::test_perf[%s-%s]\n"
			  "==================== Performance Test Results ====================\n"
			  "{\"%s\": {\"forward\": {\"median\": %.6f, \"rel_std\": 1.0, \"nrep\": 100}}}\n"
			  "PASSED\n", cfgs[i], backend, backend, ms[i]);
	char *p = tu_write(tmp, name, sb_str(&sb));
	sb_free(&sb);
	return p;
}

static void test_bands(void **state)
{
	(void)state;
	assert_int_equal(perf_band_of(0.5), PERF_BAND_DONE);
	assert_int_equal(perf_band_of(1.05), PERF_BAND_DONE);
	assert_int_equal(perf_band_of(1.0501), PERF_BAND_MILD);
	assert_int_equal(perf_band_of(1.10), PERF_BAND_MILD);
	assert_int_equal(perf_band_of(1.1001), PERF_BAND_MODERATE);
	assert_int_equal(perf_band_of(1.50), PERF_BAND_MODERATE);
	assert_int_equal(perf_band_of(1.5001), PERF_BAND_LARGE);
	assert_int_equal(perf_band_of(NAN), PERF_BAND_MISSING);
	assert_string_equal(perf_band_name(PERF_BAND_MODERATE), "MODERATE_GAP");
}

static void test_pairing_na_and_verdicts(void **state)
{
	(void)state;
	const char *cfgs[] = {"4096-1024-float16", "8192-1024-float16", "16384-1024-float16"};
	double base_ms[] = {0.03, 0.05, 0.1}, cand_ms[] = {0.033, 0.055};
	char *b = log_of("base.txt", "cutile", cfgs, base_ms, 3);
	char *c = log_of("cand.txt", "cutile_rs", cfgs, cand_ms, 2);
	char *bv[] = {b, NULL}, *cv[] = {c, NULL};
	struct perf_table t;
	struct tp_err err;
	assert_int_equal(perf_compare(bv, cv, NULL, &t, &err), 0);
	assert_string_equal(t.kernel, "softmax"); /* from the test file's name */
	assert_int_equal(t.nrows, 3);
	assert_int_equal(t.npaired, 2);
	assert_float_equal(t.rows[0].ratio, 1.1, 1e-9);
	assert_int_equal(t.rows[0].band, PERF_BAND_MILD);
	assert_true(isnan(t.rows[2].ratio)); /* baseline only: an NA row */
	assert_string_equal(t.rows[2].why, "no candidate record");
	assert_float_equal(t.geomean, 1.1, 1e-9);
	assert_int_equal(t.severity, PERF_BAND_MISSING);
	assert_int_equal(t.verdict, PERF_VERDICT_INVESTIGATE);
	assert_string_equal(t.base_name, "cutile");
	assert_string_equal(t.cand_name, "cutile_rs");
	/* the within-run interval: sqrt(pi/2) 1% / sqrt(100) per side and config */
	double sd = sqrt(2 * 2 * pow(sqrt(M_PI / 2) * 0.01 / 10, 2)) / 2;
	assert_float_equal(t.ci_lo, 1.1 * exp(-1.959964 * sd), 1e-9);
	assert_float_equal(t.ci_hi, 1.1 * exp(1.959964 * sd), 1e-9);
	perf_table_free(&t);

	double fast[] = {0.0301, 0.0502, 0.1};
	char *c2 = log_of("cand2.txt", "cutile_rs", cfgs, fast, 3);
	cv[0] = c2;
	assert_int_equal(perf_compare(bv, cv, NULL, &t, &err), 0);
	assert_int_equal(t.verdict, PERF_VERDICT_DONE);
	assert_int_equal(t.severity, PERF_BAND_DONE);
	/* the bench rule: DONE needs the interval's upper bound under the gate */
	perf_table_free(&t);

	const char *other[] = {"1-2-float32"};
	char *c3 = log_of("cand3.txt", "cutile_rs", other, fast, 1);
	cv[0] = c3;
	assert_int_equal(perf_compare(bv, cv, NULL, &t, &err), 0);
	assert_int_equal(t.npaired, 0);
	assert_int_equal(t.verdict, PERF_VERDICT_BLOCKED);
	assert_true(isnan(t.geomean));
	perf_table_free(&t);
	free(b);
	free(c);
	free(c2);
	free(c3);
}

static void test_strict_ci_rule(void **state)
{
	(void)state;
	struct perf_table t;
	perf_table_init(&t);
	struct perf_row *r = perf_table_add(&t, "a");
	r->base.ms = 1.0;
	r->cand.ms = 1.04;
	t.ci_lo = 1.02;
	t.ci_hi = 1.06;
	t.ci_how = xstrdup("given");
	t.strict_ci = true;
	perf_table_finish(&t);
	assert_int_equal(t.severity, PERF_BAND_DONE); /* the point is inside the gate */
	assert_int_equal(t.verdict, PERF_VERDICT_INVESTIGATE); /* its interval is not */
	t.ci_hi = 1.049;
	perf_table_finish(&t);
	assert_int_equal(t.verdict, PERF_VERDICT_DONE);
	perf_table_free(&t);
}

static void test_variants_choose_baselines(void **state)
{
	(void)state;
	const char *cfgs[] = {"8-1024-False", "8-2048-False", "8-1024-True"};
	double cu[] = {1.0, 2.0, 4.0}, tr[] = {2.0, 1.0, 2.0}, rs[] = {1.1, 1.1, 2.2};
	char *a = log_of("cutile.txt", "cutile", cfgs, cu, 3);
	char *b = log_of("triton.txt", "triton", cfgs, tr, 3);
	char *c = log_of("rs.txt", "cutile_rs", cfgs, rs, 3);
	char *an = tu_write(tmp, "analysis.json",
			    "{\"kernel_name\": \"bmm\", \"reference_backend\": \"cutile\",\n"
			    " \"kernel_variants\": [{\"variant_name\": \"np\"},\n"
			    "   {\"variant_name\": \"sp\", \"reference_backend\": \"triton\"}],\n"
			    " \"config_to_variant\": {\"8-1024-False\": \"np\", \"8-2048\": \"np\",\n"
			    "   \"True\": \"sp\"}}\n");
	char *bv[] = {a, b, NULL}, *cv[] = {c, NULL};
	struct perf_table t;
	struct tp_err err;
	assert_int_equal(perf_compare(bv, cv, an, &t, &err), 0);
	assert_string_equal(t.kernel, "bmm");
	assert_int_equal(t.nrows, 3);
	/* np: the top-level winner cutile (exact key, then a token prefix) */
	assert_string_equal(t.rows[0].variant, "np");
	assert_string_equal(t.rows[0].base.backend, "cutile");
	assert_string_equal(t.rows[1].variant, "np");
	assert_string_equal(t.rows[1].base.backend, "cutile");
	/* sp: its own winner, triton (a key whose tokens the config contains) */
	assert_string_equal(t.rows[2].variant, "sp");
	assert_string_equal(t.rows[2].base.backend, "triton");
	assert_float_equal(t.rows[2].ratio, 1.1, 1e-9);
	assert_int_equal(t.nvariants, 2);
	assert_string_equal(t.base_name, "cutile/triton");
	perf_table_free(&t);

	/* without analysis.json: the lower-geomean backend (triton: 2*1*2 < 1*2*4) */
	assert_int_equal(perf_compare(bv, cv, NULL, &t, &err), 0);
	for (size_t i = 0; i < t.nrows; i++)
		assert_string_equal(t.rows[i].base.backend, "triton");
	assert_null(t.rows[0].variant);
	perf_table_free(&t);

	/* a config measured twice with other numbers: the first is used, and said */
	struct sbuf again = SBUF_INIT;
	sb_adds(&again, "tests/ops/test_bmm.py::T::test_perf[8-1024-True-cutile_rs]\n"
			"== Performance Test Results ==\n"
			"{\"cutile_rs\": {\"forward\": {\"median\": 9.0}}}\nPASSED\n");
	char *c2 = tu_write(tmp, "rs_again.txt", sb_str(&again));
	char *cv2[] = {c, c2, NULL};
	assert_int_equal(perf_compare(bv, cv2, an, &t, &err), 0);
	assert_float_equal(t.rows[2].ratio, 1.1, 1e-9);
	assert_int_equal(t.nnotes, 1);
	assert_non_null(strstr(t.notes[0], "rs_again.txt:2: cutile_rs 8-1024-True measured again; "
					   "the first record ("));
	assert_non_null(strstr(t.notes[0], "/rs.txt:10) is used"));
	perf_table_free(&t);
	sb_free(&again);
	free(c2);

	/* the winner named but not measured for a config: NA, saying so */
	char *bv2[] = {b, NULL};
	assert_int_equal(perf_compare(bv2, cv, an, &t, &err), 0);
	assert_true(isnan(t.rows[0].ratio));
	assert_non_null(strstr(t.rows[0].why, "no cutile baseline record"));
	assert_float_equal(t.rows[2].ratio, 1.1, 1e-9);
	perf_table_free(&t);
	free(a);
	free(b);
	free(c);
	free(an);
}

static void test_input_errors(void **state)
{
	(void)state;
	char *empty = tu_write(tmp, "empty.txt", "collected 0 items\n");
	char *bad = tu_write(tmp, "bad.json", "{\"kernel_name\": \"x\",\n \"a\": [1,,]}\n");
	const char *cfgs[] = {"a"};
	double ms[] = {1};
	char *ok = log_of("ok.txt", "cutile", cfgs, ms, 1);
	char *bv[] = {empty, NULL}, *cv[] = {ok, NULL};
	struct perf_table t;
	struct tp_err err;
	assert_int_equal(perf_compare(bv, cv, NULL, &t, &err), -1);
	assert_int_equal(err.code, TP_EXIT_USAGE);
	assert_non_null(strstr(err.msg, "empty.txt: no 'Performance Test Results' section"));
	perf_table_free(&t);
	bv[0] = ok;
	assert_int_equal(perf_compare(bv, cv, bad, &t, &err), -1);
	assert_non_null(strstr(err.msg, "bad.json:2: expected a JSON object"));
	perf_table_free(&t);
	char *missing = path_join(tmp, "nope.txt");
	bv[0] = missing;
	assert_int_equal(perf_compare(bv, cv, NULL, &t, &err), -1);
	assert_non_null(strstr(err.msg, "nope.txt: cannot open"));
	perf_table_free(&t);
	free(missing);
	free(empty);
	free(bad);
	free(ok);
}

static void test_report_round_trip(void **state)
{
	(void)state;
	const char *cfgs[] = {"4096-1024-float16", "8192-1024-float16"};
	double b[] = {0.0301, 0.0562}, c[] = {0.0309};
	char *bl = log_of("b.txt", "cutile", cfgs, b, 2);
	char *cl = log_of("c.txt", "cutile_rs", cfgs, c, 1);
	char *bv[] = {bl, NULL}, *cv[] = {cl, NULL};
	struct perf_table t;
	struct tp_err err;
	assert_int_equal(perf_compare(bv, cv, NULL, &t, &err), 0);
	struct sbuf md = SBUF_INIT;
	perf_md_write(&t, &md);
	const char *s = sb_str(&md);
	assert_true(str_starts(s, "VERDICT: INVESTIGATE\n## Performance Results: softmax\n"));
	assert_non_null(strstr(s, "| Config | baseline (ms) | cutile-rs (ms) | ratio | verdict |\n"));
	assert_non_null(strstr(s, "| 4096-1024-float16 | 0.03010 | 0.03090 | 1.03x | PASS |\n"));
	assert_non_null(strstr(s, "| 8192-1024-float16 | 0.05620 | NA | NA | INVESTIGATE |\n"));
	assert_non_null(strstr(s, "\ngeomean_ratio=1.0266\nGeo-mean ratio: 1.03x\n"
				  "Severity: MISSING_DATA\n"));
	assert_null(strstr(strstr(s, "geomean_ratio=") + 1, "geomean_ratio="));
	assert_non_null(strstr(s, "NA 8192-1024-float16: no candidate record.\n"));
	char *md_path = tu_write(tmp, "reports/performance.md", s);
	assert_true(perf_md_sniff(md_path));
	assert_false(perf_md_sniff(bl));
	struct perf_table back;
	assert_int_equal(perf_md_read(md_path, &back, &err), 0);
	assert_int_equal(back.nrows, 2);
	assert_float_equal(back.geomean, 1.0266, 1e-9);
	assert_int_equal(back.verdict, PERF_VERDICT_INVESTIGATE);
	assert_int_equal(back.severity, PERF_BAND_MISSING);
	assert_string_equal(back.rows[1].why, "no candidate record");
	/* the Inputs line found the logs: noise and samples filled in */
	assert_int_equal(back.rows[0].base.n, 100);
	assert_float_equal(back.rows[0].cand.noise, 1.0, 1e-12);
	assert_string_equal(back.cand_name, "cutile_rs");
	assert_int_equal(back.nnotes, 0);
	perf_table_free(&back);

	/* a report whose geomean line disagrees with its rows: shown, and said */
	struct sbuf edited = SBUF_INIT;
	sb_adds(&edited, s);
	char *g = strstr(edited.buf, "geomean_ratio=1.0266");
	memcpy(g, "geomean_ratio=1.2000", 20);
	char *p2 = tu_write(tmp, "edited.md", sb_str(&edited));
	assert_int_equal(perf_md_read(p2, &back, &err), 0);
	assert_float_equal(back.geomean, 1.2, 1e-9);
	assert_int_equal(back.nnotes, 1);
	assert_non_null(strstr(back.notes[0], "geomean_ratio=1.2000, but its rows give 1.0266"));
	perf_table_free(&back);

	char *notmd = tu_write(tmp, "not.md", "# a title\n| Config |\n");
	assert_int_equal(perf_md_read(notmd, &back, &err), -1);
	assert_non_null(strstr(err.msg, "not.md:1: expected 'VERDICT: DONE'"));
	perf_table_free(&back);
	sb_free(&edited);
	sb_free(&md);
	perf_table_free(&t);
	free(bl);
	free(cl);
	free(md_path);
	free(p2);
	free(notmd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reference_layout),
		cmocka_unit_test(test_conftest_layout_and_fields),
		cmocka_unit_test(test_multiline_and_bad_payloads),
		cmocka_unit_test(test_config_keys),
		cmocka_unit_test(test_bands),
		cmocka_unit_test(test_pairing_na_and_verdicts),
		cmocka_unit_test(test_strict_ci_rule),
		cmocka_unit_test(test_variants_choose_baselines),
		cmocka_unit_test(test_input_errors),
		cmocka_unit_test(test_report_round_trip),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
