/* Reports through the public API: verdicts and exit codes, deferral, the
 * text and JSON printers, argument and environment errors, and the
 * analysis.json rules on small hand-written run directories. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "engine/check/check_impl.h"
#include "engine/core/pipeline.h"
#include "tests/unit/testutil.h"

static void test_verdicts(void **state)
{
	(void)state;
	struct check_ctx ctx;
	check_ctx_init(&ctx);
	ctx.deferred = CHECK_STEP_PYTEST;
	struct check_report *r = check_report_new("t");
	struct ck k;
	ck_begin(&k, &ctx, r, "one", "a b");
	ck_add(&k, CHECK_PASS, 0, "x.a", NULL, 0, "fine");
	ck_add(&k, CHECK_INFO, 0, "x.b", "/f", 3, "note");
	assert_int_equal(ck_end(&k, "PASS"), 0);
	assert_int_equal(check_report_verdict(r), CHECK_PASS);
	ck_begin(&k, &ctx, r, "two", "");
	ck_add(&k, CHECK_WARN, 0, "x.c", NULL, 0, "hmm");
	ck_add(&k, CHECK_FAIL, CHECK_STEP_PYTEST, "x.d", NULL, 0, "deferred, not failed");
	ck_add(&k, CHECK_WARN, CHECK_STEP_PYTEST, "x.e", NULL, 0, "also deferred");
	assert_int_equal(ck_count(&k, CHECK_DEFERRED), 2);
	assert_int_equal(ck_end(&k, "PASS"), 0);
	assert_int_equal(check_report_verdict(r), CHECK_DEFERRED);
	assert_int_equal(check_report_exit(r), 0);
	assert_int_equal(check_report_deferred_hit(r), CHECK_STEP_PYTEST);
	ck_begin(&k, &ctx, r, "three", "");
	ck_add(&k, CHECK_FAIL, CHECK_STEP_CARGO_BUILD, "x.f", NULL, 0, "not deferred");
	assert_int_equal(ck_end(&k, "FAIL"), 1);
	assert_int_equal(check_report_verdict(r), CHECK_FAIL);
	assert_int_equal(check_report_exit(r), 1);
	size_t counts[5];
	check_report_counts(r, counts);
	assert_int_equal(counts[CHECK_PASS], 1);
	assert_int_equal(counts[CHECK_INFO], 1);
	assert_int_equal(counts[CHECK_WARN], 1);
	assert_int_equal(counts[CHECK_DEFERRED], 2);
	assert_int_equal(counts[CHECK_FAIL], 1);
	assert_int_equal(r->runs[1].verdict, CHECK_DEFERRED);
	assert_int_equal(r->runs[1].first, 2);
	assert_int_equal(r->runs[1].count, 3);

	/* several runs print as a validator block */
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	check_print_text(mem, r, CHECK_TEXT_QUIET);
	fclose(mem);
	assert_non_null(strstr(buf, "$ tileport validate one a b 2>&1\nINFO [x.b] /f:3: note\nPASS\nexit=0\n"));
	assert_non_null(strstr(buf, "DEFERRED [x.d] deferred, not failed\n"));
	assert_non_null(strstr(buf, "DEFERRED: 2 check(s) wait for pytest\nPASS\nexit=0\n"));
	assert_non_null(strstr(buf, "FAIL [x.f] not deferred\nFAIL\nexit=1\nt: FAIL (exit 1)\n"));
	assert_null(strstr(buf, "fine")); /* PASS findings are quiet */
	free(buf);

	cJSON *j = check_report_json(r);
	assert_string_equal(cJSON_GetObjectItem(j, "verdict")->valuestring, "FAIL");
	assert_int_equal(cJSON_GetObjectItem(j, "exit_code")->valueint, 1);
	cJSON *fs = cJSON_GetObjectItem(j, "findings");
	assert_int_equal(cJSON_GetArraySize(fs), 6);
	cJSON *d = cJSON_GetArrayItem(fs, 3);
	assert_string_equal(cJSON_GetObjectItem(d, "rule")->valuestring, "x.d");
	assert_string_equal(cJSON_GetObjectItem(d, "severity")->valuestring, "DEFERRED");
	assert_string_equal(cJSON_GetObjectItem(d, "step")->valuestring, "pytest");
	assert_string_equal(cJSON_GetObjectItem(d, "validator")->valuestring, "two");
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(d, "file")));
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(d, "line")));
	cJSON *b = cJSON_GetArrayItem(fs, 1);
	assert_int_equal(cJSON_GetObjectItem(b, "line")->valueint, 3);
	cJSON_Delete(j);
	check_report_free(r);
	check_ctx_free(&ctx);
}

static void test_errors(void **state)
{
	(void)state;
	struct check_ctx ctx;
	check_ctx_init(&ctx);
	struct check_report *r = check_report_new("x");
	struct tp_err err = {0};
	char *one[] = {"k"};
	assert_int_equal(check_by_name("nope", 1, one, &ctx, r, &err), -1);
	assert_int_equal(err.code, TP_EXIT_USAGE);
	assert_int_equal(check_by_name("ir", 0, one, &ctx, r, &err), -1);
	assert_non_null(strstr(err.msg, "ir FILE KERNEL"));
	assert_int_equal(check_by_name("agent-b", 1, one, &ctx, r, &err), -1);
	assert_int_equal(err.code, TP_EXIT_ENV);
	assert_int_equal(check_stage('Z', &ctx, r, &err), -1);
	assert_int_equal(err.code, TP_EXIT_USAGE);
	check_ctx_set(&ctx.out_root, "/nonexistent");
	assert_int_equal(check_by_name("kernel", 1, one, &ctx, r, &err), -1);
	assert_int_equal(err.code, TP_EXIT_ENV);
	assert_non_null(strstr(err.msg, "TILEGYM_PATH"));
	assert_int_equal(r->nruns, 0); /* nothing recorded for an error */
	/* a missing run directory is a finding, not an error */
	check_ctx_set(&ctx.tilegym, "/nonexistent");
	assert_int_equal(check_by_name("kernel", 1, one, &ctx, r, &err), 1);
	assert_string_equal(r->findings[0].rule, "kernel.out-dir");
	assert_string_equal(r->runs[0].closing, "Result: 1 fail, 0 warn\nFAIL");
	check_report_free(r);
	check_ctx_free(&ctx);
}

/* ---- analysis.json rules ---- */

static const char *const base_analysis =
	"{\"kernel_name\": \"op\", \"source\": \"src/tilegym/ops/cutile/op.py\",\n"
	" \"launch_path\": \"direct\", \"pattern\": \"single\", \"ops_used\": [\"ct.load\"],\n"
	" \"reference_backend\": \"cutile\",\n"
	" \"reference_backend_selection\": {\"winner\": \"cutile\", \"cutile_geo_mean_ms\": 1.0},\n"
	" \"test_perf_configs\": {\"t\": {\"shapes\": [[1, 2]]}},\n"
	" \"kernel_variants\": [{\"variant_name\": \"default\", \"kernel_function\": \"op_k\",\n"
	"   \"dispatch_condition\": \"always\", \"reference_ir\": \"reference/reference.mlir\",\n"
	"   \"reference_backend\": \"cutile\"}],\n"
	" \"config_to_variant\": {\"1-2\": \"default\"},\n"
	" \"correctness_reference\": {\"function\": \"tests/ops/test_op.py::T::reference\", \"source\": \"t\"},\n"
	" \"correctness_tolerance\": {\"f16\": {\"atol\": 0.01, \"rtol\": 0.01}, \"source\": \"t\"}}\n";

/* Run check_analysis on `text`; returns "SEV rule" lines of non-PASS findings. */
static char *analyse(const char *text, int *rc)
{
	char *dir = tu_tmpdir();
	free(tu_write(dir, "op/reference/analysis.json", text));
	free(tu_write(dir, "op/reference/reference.mlir", "cuda_tile.module @k {}\n"));
	struct check_ctx ctx;
	check_ctx_init(&ctx);
	check_ctx_set(&ctx.out_root, dir);
	check_ctx_set(&ctx.kernel, "op");
	struct check_report *r = check_report_new("analysis");
	*rc = check_analysis(&ctx, r, NULL);
	struct sbuf sb = SBUF_INIT;
	for (size_t i = 0; i < r->nfindings; i++)
		if (r->findings[i].sev != CHECK_PASS && r->findings[i].sev != CHECK_INFO)
			sb_printf(&sb, "%s %s\n", check_sev_name(r->findings[i].sev), r->findings[i].rule);
	check_report_free(r);
	check_ctx_free(&ctx);
	remove_tree(dir);
	free(dir);
	return sb_detach(&sb);
}

static char *edited(const char *from, const char *to)
{
	const char *at = strstr(base_analysis, from);
	assert_non_null(at);
	return xasprintf("%.*s%s%s", (int)(at - base_analysis), base_analysis, to, at + strlen(from));
}

static void test_analysis_rules(void **state)
{
	(void)state;
	int rc;
	char *got = analyse(base_analysis, &rc);
	assert_string_equal(got, "");
	assert_int_equal(rc, 0);
	free(got);
	static const struct {
		const char *from, *to, *want;
	} cases[] = {
		{"\"pattern\": \"single\", ", "", "FAIL analysis.required\n"},
		{"\"ops_used\": [\"ct.load\"]", "\"ops_used\": null", "FAIL analysis.required\n"},
		{"\"reference_backend\": \"cutile\",\n", "\"reference_backend\": \"triton_tileir\",\n",
		 "FAIL analysis.reference-backend\n"},
		{"[[1, 2]]", "[]", "FAIL analysis.test-perf-configs\n"},
		{"\"cutile_geo_mean_ms\"", "\"cutile_geomean_ms\"", "WARN analysis.backend-selection\n"},
		{"\"reference_ir\": \"reference/reference.mlir\"", "\"reference_ir\": \"reference/gone.mlir\"",
		 "FAIL analysis.reference-ir\n"},
		{"\"rtol\": 0.01}", "\"tol\": 0.01}", "FAIL analysis.tolerance\n"},
		{"\"launch_path\": \"direct\"", "\"launch_path\": \"autotune\"",
		 "WARN analysis.autotune-backends\nWARN analysis.autotune-key\nFAIL analysis.autotune\n"},
		{"{\"1-2\": \"default\"}", "{}", "WARN analysis.config-to-variant\n"},
	};
	for (size_t i = 0; i < TP_ARRAY_LEN(cases); i++) {
		char *text = edited(cases[i].from, cases[i].to);
		got = analyse(text, &rc);
		if (strcmp(got, cases[i].want) != 0)
			fail_msg("case %zu: expected\n%sgot\n%s", i, cases[i].want, got);
		assert_int_equal(rc, strstr(cases[i].want, "FAIL") ? 1 : 0);
		free(got);
		free(text);
	}
	got = analyse("{\"a\": 1,\n \"b\": }\n", &rc);
	assert_string_equal(got, "FAIL analysis.file\n");
	free(got);
}

static void test_pipeline_hook(void **state)
{
	(void)state;
	char *dir = tu_tmpdir();
	free(tu_write(dir, "op/reports/perf_investigation_all.md", "VERDICT: ALIGNED\n# x\n"));
	free(tu_write(dir, "op/reports/agent_logs/agent_f.md", "log\n"));
	char *run = path_join(dir, "op");
	struct check_request rq = {"op", run, dir, "/nonexistent", 'F', NULL, false};
	struct check_outcome o;
	assert_int_equal(check_pipeline_checker(&rq, &o), 0);
	assert_int_equal(o.status, VALIDATOR_PASS);
	assert_non_null(strstr(o.text, "agent-f"));
	assert_string_equal(o.summary, "stage F: PASS (0 fail, 0 warn, 0 deferred)");
	cJSON *j = cJSON_Parse(o.json);
	assert_true(cJSON_IsArray(j));
	assert_int_equal(cJSON_GetArraySize(j), 2);
	cJSON_Delete(j);
	check_outcome_free(&o);

	/* D on a run without D's files: pytest deferred, the rest fails */
	char *deferred[] = {"pytest", "warp-drive", NULL};
	rq.stage = 'D';
	rq.deferred = deferred;
	assert_int_equal(check_pipeline_checker(&rq, &o), 0);
	assert_int_equal(o.status, VALIDATOR_FAIL);
	assert_non_null(strstr(o.text, "note: unknown deferred step(s) ignored: warp-drive\n"));
	assert_non_null(strstr(o.text, "DEFERRED [agent-d.pytest-log]"));
	assert_non_null(strstr(o.text, "FAIL [agent-d.log]"));
	check_outcome_free(&o);

	/* B offline, only its toolchain artefacts missing: DEFERRED */
	free(tu_write(dir, "op/kernel.rs",
		      "#[cutile::entry()]\npub unsafe fn op_k<E: ElementType>(x: &Tensor<E, {[-1]}>) {}\n"));
	free(tu_write(dir, "op/reference/reference.mlir",
		      "cuda_tile.module @k { entry @op_k() { load_view_tko } }\n"));
	free(tu_write(dir, "op/reports/agent_logs/agent_b.md", "log\n"));
	char *offline_b[] = {"generated-ir", "cargo-build", NULL};
	rq.stage = 'B';
	rq.deferred = offline_b;
	rq.workspace = NULL;
	assert_int_equal(check_pipeline_checker(&rq, &o), 0);
	assert_int_equal(o.status, VALIDATOR_DEFERRED);
	assert_non_null(strstr(o.text, "VERDICT: DEFERRED"));
	check_outcome_free(&o);

	/* the final contract of an offline run defers every toolchain step */
	rq.stage = 0;
	rq.deferred = NULL;
	rq.offline = true;
	rq.workspace = dir;
	assert_int_equal(check_pipeline_checker(&rq, &o), 0);
	assert_int_equal(o.status, VALIDATOR_FAIL); /* ffi.rs, reports, wrapper... */
	assert_non_null(strstr(o.text, "DEFERRED [kernel.ir]"));
	assert_non_null(strstr(o.text, "FAIL [kernel.files]"));
	check_outcome_free(&o);

	/* no workspace for the contract: an error the orchestrator records */
	rq.workspace = NULL;
	assert_int_equal(check_pipeline_checker(&rq, &o), -1);
	assert_non_null(strstr(o.text, "TILEGYM_PATH"));
	check_outcome_free(&o);
	remove_tree(dir);
	free(run);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pipeline_hook),
		cmocka_unit_test(test_verdicts),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_analysis_rules),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
