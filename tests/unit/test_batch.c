#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/batch/batch_int.h"
#include "engine/base/util.h"
#include "tests/unit/testutil.h"

static void test_squeue_rows(void **state)
{
	(void)state;
	struct slurm_job *v;
	size_t n;
	slurm_parse_squeue("12_0|RUNNING|vm|None\n12_3|PENDING||JobArrayTaskLimit\n\n12_4|PENDING|(null)|Priority\n",
			   &v, &n);
	assert_int_equal(n, 3);
	assert_string_equal(v[0].id, "12_0");
	assert_string_equal(v[0].state, "RUNNING");
	assert_string_equal(v[0].node, "vm");
	assert_null(v[1].node);
	assert_string_equal(v[1].reason, "JobArrayTaskLimit");
	assert_null(v[2].node); /* "(null)" is no node */
	slurm_jobs_free(v, n);
	slurm_parse_squeue("", &v, &n);
	assert_int_equal(n, 0);
	slurm_jobs_free(v, n);
}

static void test_scontrol_records(void **state)
{
	(void)state;
	struct slurm_job *v;
	size_t n;
	slurm_parse_scontrol(
		"JobId=15 ArrayJobId=12 ArrayTaskId=3 JobName=tileport-x JobState=NODE_FAIL Reason=NodeDown "
		"ExitCode=0:15 NodeList=vm\n"
		"JobId=12 ArrayJobId=12 ArrayTaskId=4-5,7%2 JobState=PENDING Reason=JobArrayTaskLimit "
		"NodeList=(null)\n"
		"JobId=9 JobName=probe JobState=COMPLETED ExitCode=0:0 NodeList=n01\n",
		&v, &n);
	assert_int_equal(n, 5);
	assert_string_equal(v[0].id, "12_3");
	assert_string_equal(v[0].state, "NODE_FAIL");
	assert_string_equal(v[0].exit, "0:15");
	assert_string_equal(v[0].node, "vm");
	assert_string_equal(v[1].id, "12_4");
	assert_string_equal(v[2].id, "12_5");
	assert_string_equal(v[3].id, "12_7");
	assert_string_equal(v[3].state, "PENDING");
	assert_null(v[3].node);
	assert_string_equal(v[4].id, "9");
	assert_string_equal(v[4].node, "n01");
	slurm_jobs_free(v, n);
}

static void test_sbatch_answers(void **state)
{
	(void)state;
	char *id = slurm_parse_jobid("123\n");
	assert_string_equal(id, "123");
	free(id);
	id = slurm_parse_jobid("  456;cluster\n");
	assert_string_equal(id, "456");
	free(id);
	assert_null(slurm_parse_jobid("sbatch: error: x"));
	assert_null(slurm_parse_jobid("12x"));
	assert_null(slurm_parse_jobid(""));
	assert_int_equal(slurm_error_code("sbatch: error: Batch job submission failed: Unable to contact "
					  "slurm controller (connect failure)"), TP_EXIT_ENV);
	assert_int_equal(slurm_error_code("sbatch: error: invalid partition specified: x"), TP_EXIT_USAGE);
	assert_int_equal(slurm_error_code(NULL), TP_EXIT_USAGE);
}

static void test_job_phases(void **state)
{
	(void)state;
	assert_int_equal(slurm_phase("PENDING"), JOB_WAITING);
	assert_int_equal(slurm_phase("REQUEUED"), JOB_WAITING);
	assert_int_equal(slurm_phase("RUNNING"), JOB_RUNNING);
	assert_int_equal(slurm_phase("COMPLETING"), JOB_RUNNING);
	assert_int_equal(slurm_phase("CANCELLED"), JOB_CANCELLED);
	assert_int_equal(slurm_phase("CANCELLED+"), JOB_CANCELLED);
	const char *ended[] = {"COMPLETED", "FAILED", "TIMEOUT", "NODE_FAIL", "PREEMPTED", "OUT_OF_MEMORY"};
	for (size_t i = 0; i < TP_ARRAY_LEN(ended); i++)
		assert_int_equal(slurm_phase(ended[i]), JOB_ENDED);
	assert_int_equal(slurm_phase(NULL), JOB_GONE);
}

/* A verdict of the run's own wins over whatever its job did. */
static void test_state_from_run_and_job(void **state)
{
	(void)state;
	struct batch_progress none = {.geomean = NAN}, mid = {.exists = true, .geomean = NAN};
	struct batch_progress done = {.exists = true, .final = "PIPELINE_COMPLETE"};
	struct batch_progress off = {.exists = true, .final = "OFFLINE_COMPLETE"};
	struct batch_progress stop = {.exists = true, .final = "STOP"};
	assert_int_equal(batch_state_from(&done, JOB_CANCELLED), BST_COMPLETE);
	assert_int_equal(batch_state_from(&off, JOB_ENDED), BST_OFFLINE);
	assert_int_equal(batch_state_from(&stop, JOB_RUNNING), BST_STOPPED);
	assert_int_equal(batch_state_from(&none, JOB_NONE), BST_PENDING);
	assert_int_equal(batch_state_from(&none, JOB_WAITING), BST_QUEUED);
	assert_int_equal(batch_state_from(&mid, JOB_RUNNING), BST_RUNNING);
	assert_int_equal(batch_state_from(&mid, JOB_CANCELLED), BST_CANCELLED);
	assert_int_equal(batch_state_from(&mid, JOB_ENDED), BST_INTERRUPTED);
	assert_int_equal(batch_state_from(&mid, JOB_GONE), BST_INTERRUPTED);
	assert_int_equal(batch_state_from(&none, JOB_ENDED), BST_FAILED);
}

/* Converted means accepted: a run that ended PIPELINE_COMPLETE but was not
 * accepted (its contract failed, E did not say DONE) converted nothing. */
static void test_converted_is_accepted(void **state)
{
	(void)state;
	struct batch_op complete = {.op = "softmax", .state = BST_COMPLETE};
	struct batch_op offline = {.op = "rope", .state = BST_OFFLINE};
	struct batch_progress accepted = {.exists = true, .final = "PIPELINE_COMPLETE",
					  .outcome = OUTCOME_ACCEPTED};
	struct batch_progress refused = {.exists = true, .final = "PIPELINE_COMPLETE",
					 .outcome = OUTCOME_NOT_ACCEPTED};
	struct batch_progress old = {.exists = true, .final = "PIPELINE_COMPLETE",
				     .outcome = OUTCOME_NONE};
	struct batch_progress pending = {.exists = true, .final = "OFFLINE_COMPLETE",
					 .outcome = OUTCOME_PENDING};
	assert_true(batch_op_converted(&complete, &accepted));
	assert_false(batch_op_converted(&complete, &refused));
	assert_false(batch_op_converted(&complete, &old)); /* ended before outcomes were kept */
	assert_false(batch_op_converted(&offline, &pending));
}

static void test_resume_rules(void **state)
{
	(void)state;
	struct {
		enum batch_state s;
		enum batch_resume_action plain, named; /* named -1: refused */
	} cases[] = {
		{BST_PENDING, BRA_RESUME, BRA_RESUME},   {BST_QUEUED, BRA_KEEP, -1},
		{BST_RUNNING, BRA_KEEP, -1},             {BST_COMPLETE, BRA_KEEP, -1},
		{BST_OFFLINE, BRA_KEEP, -1},             {BST_STOPPED, BRA_KEEP, BRA_RERUN},
		{BST_INTERRUPTED, BRA_RESUME, BRA_RESUME}, {BST_CANCELLED, BRA_RESUME, BRA_RESUME},
		{BST_FAILED, BRA_RESUME, BRA_RESUME},
	};
	for (size_t i = 0; i < TP_ARRAY_LEN(cases); i++) {
		struct batch_op o = {.op = "softmax", .state = cases[i].s, .job = "7_1"};
		struct batch_progress p = {0};
		enum batch_resume_action act;
		struct tp_err err;
		assert_int_equal(batch_resume_decide(&o, &p, false, false, &act, NULL, &err), 0);
		assert_int_equal(act, cases[i].plain);
		int rc = batch_resume_decide(&o, &p, true, false, &act, NULL, &err);
		if ((int)cases[i].named < 0) {
			assert_int_equal(rc, -1);
			assert_int_equal(err.code, TP_EXIT_USAGE);
			assert_non_null(strstr(err.msg, "--rerun softmax"));
		} else {
			assert_int_equal(rc, 0);
			assert_int_equal(act, cases[i].named);
		}
	}
}

/* A failure that starting again cannot change is kept, and resume says
 * why: a refusal the batch's drivers would repeat, a refused input. */
static void test_resume_keeps_what_cannot_change(void **state)
{
	(void)state;
	struct batch_op o = {.op = "looped", .state = BST_STOPPED};
	struct batch_progress p = {.refused_by = "mech", .refusal = "looped.py:12:5: while loop", .refused_stage = 'A'};
	enum batch_resume_action act;
	char *kept = NULL;
	struct tp_err err;
	assert_int_equal(batch_resume_decide(&o, &p, false, true, &act, &kept, &err), 0);
	assert_int_equal(act, BRA_KEEP);
	assert_non_null(kept);
	assert_non_null(strstr(kept, "looped stopped on mech's refusal of stage A (looped.py:12:5: while loop)"));
	assert_non_null(strstr(kept, "--driver A=..."));
	free(kept);
	assert_int_equal(batch_resume_decide(&o, &p, true, true, &act, &kept, &err), -1);
	assert_int_equal(err.code, TP_EXIT_USAGE);
	assert_non_null(strstr(err.msg, "--rerun looped stopped on mech's refusal"));
	/* another driver would take the stage now: --rerun starts it afresh */
	assert_int_equal(batch_resume_decide(&o, &p, true, false, &act, &kept, &err), 0);
	assert_int_equal(act, BRA_RERUN);
	struct batch_op f = {.op = "swiglu", .state = BST_FAILED,
			     .why = "exit 2: tileport: swiglu already has a cuTile Rust port"};
	struct batch_progress none = {0};
	assert_int_equal(batch_resume_decide(&f, &none, false, false, &act, &kept, &err), 0);
	assert_int_equal(act, BRA_KEEP);
	assert_non_null(strstr(kept, "swiglu was refused before its run began (exit 2: tileport: swiglu already "
				     "has a cuTile Rust port)"));
	free(kept);
	assert_int_equal(batch_resume_decide(&f, &none, true, false, &act, &kept, &err), 0);
	assert_int_equal(act, BRA_RESUME);
	f.why = "exit 137: killed";
	assert_int_equal(batch_resume_decide(&f, &none, false, false, &act, &kept, &err), 0);
	assert_int_equal(act, BRA_RESUME);
	assert_null(kept);
}

static void test_names(void **state)
{
	(void)state;
	assert_true(batch_name_ok("lib-2026.12_01"));
	assert_false(batch_name_ok(".hidden"));
	assert_false(batch_name_ok("a/b"));
	assert_false(batch_name_ok(""));
	assert_false(batch_name_ok(NULL));
	assert_false(batch_name_ok("a b"));
	assert_int_equal(batch_state_parse("offline_complete"), BST_OFFLINE);
	assert_int_equal(batch_state_parse("nope"), -1);
	for (int s = 0; s < BST__COUNT; s++)
		assert_int_equal(batch_state_parse(batch_state_name((enum batch_state)s)), s);
}

/* Written, moved elsewhere, read back: the same record, its runs under
 * the output root it now lies in. */
static void test_record_round_trip(void **state)
{
	(void)state;
	char *root = tu_tmpdir();
	char *dir = batch_dir_of(root, "lib");
	assert_int_equal(mkdir_p(dir, 0755, NULL), 0);
	struct batch_record r = {.schema = BATCH_SCHEMA, .executor = BATCH_SLURM, .jobs = 3};
	r.version = xstrdup("0.1.0");
	r.name = xstrdup("lib");
	r.dir = xstrdup(dir);
	r.workspace = xstrdup("/ws");
	r.out_root = xstrdup(root);
	r.run_args = xcalloc(3, sizeof(char *));
	r.run_args[0] = xstrdup("--driver");
	r.run_args[1] = xstrdup("A=exec:/a b.sh");
	r.slurm.partition = xstrdup("gpu");
	r.slurm.sbatch_args = xcalloc(2, sizeof(char *));
	r.slurm.sbatch_args[0] = xstrdup("--exclusive");
	r.slurm.poll_ms = 2500;
	r.subs = xcalloc(1, sizeof(*r.subs));
	r.nsubs = 1;
	r.subs[0].job = xstrdup("12");
	r.subs[0].script = xstrdup("submit-1.sh");
	r.subs[0].ops = xcalloc(2, sizeof(char *));
	r.subs[0].ops[0] = xstrdup("softmax");
	r.ops = xcalloc(1, sizeof(*r.ops));
	r.nops = 1;
	r.ops[0] = (struct batch_op){.op = xstrdup("softmax"), .run_dir = path_join(root, "softmax"),
				     .state = BST_INTERRUPTED, .job = xstrdup("12_0"), .node = xstrdup("vm"),
				     .why = xstrdup("job 12_0 NODE_FAIL on vm"), .starts = 1, .started = 5,
				     .ended = 9};
	assert_int_equal(batch_record_save(&r, -1, NULL), 0);
	char *moved = tu_tmpdir();
	char *cmd = xasprintf("mv '%s/%s' '%s/'", root, BATCH_FOLDER, moved);
	assert_int_equal(system(cmd), 0);
	char *dir2 = batch_resolve("lib", moved);
	assert_non_null(dir2);
	struct batch_record b;
	struct tp_err err;
	assert_int_equal(batch_record_load(dir2, &b, &err), 0);
	assert_string_equal(b.name, "lib");
	assert_int_equal(b.executor, BATCH_SLURM);
	assert_int_equal(b.jobs, 3);
	assert_string_equal(b.out_root, moved);
	assert_string_equal(b.run_args[1], "A=exec:/a b.sh");
	assert_string_equal(b.slurm.partition, "gpu");
	assert_string_equal(b.slurm.sbatch_args[0], "--exclusive");
	assert_int_equal(b.slurm.poll_ms, 2500);
	assert_string_equal(b.subs[0].ops[0], "softmax");
	assert_int_equal(b.nops, 1);
	char *want = path_join(moved, "softmax");
	assert_string_equal(b.ops[0].run_dir, want);
	assert_int_equal(b.ops[0].state, BST_INTERRUPTED);
	assert_string_equal(b.ops[0].why, "job 12_0 NODE_FAIL on vm");
	assert_int_equal(b.ops[0].ended, 9);
	char *latest = batch_latest(moved);
	assert_string_equal(latest, dir2);
	free(latest);
	free(want);
	batch_record_free(&b);
	batch_record_free(&r);
	free(cmd);
	free(dir2);
	remove_tree(moved);
	free(moved);
	remove_tree(root);
	free(root);
	free(dir);
}

static void test_record_refuses_what_it_cannot_trust(void **state)
{
	(void)state;
	char *root = tu_tmpdir();
	char *dir = batch_dir_of(root, "x");
	const char *bad[] = {
		"[1]",
		"{\"schema\": 2, \"name\": \"x\", \"executor\": \"local\"}",
		"{\"schema\": 1, \"name\": \"x\", \"executor\": \"pbs\"}",
		"{\"schema\": 1, \"name\": \"x\", \"executor\": \"local\", \"ops\": [{\"op\": \"../etc\", "
		"\"state\": \"pending\"}]}",
		"{\"schema\": 1, \"name\": \"x\", \"executor\": \"local\", \"ops\": [{\"op\": \"a\", "
		"\"state\": \"lost\"}]}",
		"{\"schema\": 1, \"name\": \"x\", \"executor\": \"local\", \"jobs\": 1e300, \"ops\": "
		"[{\"op\": \"a\", \"state\": \"pending\", \"starts\": -1e300, \"started\": 1e300}]}",
	};
	for (size_t i = 0; i < TP_ARRAY_LEN(bad); i++) {
		free(tu_write(dir, "batch.json", bad[i]));
		struct batch_record r;
		struct tp_err err;
		int rc = batch_record_load(dir, &r, &err);
		if (i + 1 < TP_ARRAY_LEN(bad)) {
			assert_int_equal(rc, -1);
			assert_int_equal(err.code, TP_EXIT_USAGE);
			assert_non_null(strstr(err.msg, "batch.json"));
		} else {
			/* out-of-range numbers are clamped, not undefined */
			assert_int_equal(rc, 0);
			assert_true(r.jobs >= 1);
			batch_record_free(&r);
		}
	}
	remove_tree(root);
	free(root);
	free(dir);
}

static void test_discover_all(void **state)
{
	(void)state;
	char *ws = tu_tmpdir();
	const char *files[] = {
		"src/tilegym/ops/cutile/softmax.py", "src/tilegym/ops/cutile/__init__.py",
		"src/tilegym/ops/cutile/layer_norm.py", "src/tilegym/ops/triton/layer_norm.py",
		"src/tilegym/ops/triton/rope.py", "src/tilegym/ops/cutile/matmul.py",
		"src/tilegym/ops/cutile/gelu.py", "src/tilegym/ops/cutile/bad-name.py",
		"src/tilegym/ops/cutile/activation/relu.py",
	};
	for (size_t i = 0; i < TP_ARRAY_LEN(files); i++)
		free(tu_write(ws, files[i], "import cuda.tile as ct\n\n@ct.kernel\ndef k(x):\n    pass\n"));
	free(tu_write(ws, "src/tilegym/ops/cutile/utils.py", "def helper():\n    pass\n"));
	free(tu_write(ws, "src/tilegym/ops/cutile_rs/matmul_kernel/kernel.rs", ""));
	free(tu_write(ws, "src/tilegym/ops/cutile_rs/gelu.py", ""));
	char **ops, **left;
	struct tp_err err;
	assert_int_equal(batch_discover(ws, &ops, &left, &err), 0);
	char *all = strv_join(ops, " ");
	assert_string_equal(all, "layer_norm relu rope softmax");
	free(all);
	char *out = strv_join(left, "; ");
	assert_string_equal(out, "gelu (a cuTile Rust port: src/tilegym/ops/cutile_rs/gelu.py); matmul (a cuTile "
				 "Rust port: src/tilegym/ops/cutile_rs/matmul_kernel/)");
	free(out);
	strv_free(left);
	strv_free(ops);
	char *empty = tu_tmpdir();
	assert_int_equal(batch_discover(empty, &ops, NULL, &err), -1);
	assert_int_equal(err.code, TP_EXIT_USAGE);
	assert_non_null(strstr(err.msg, "src/tilegym/ops"));
	remove_tree(empty);
	free(empty);
	remove_tree(ws);
	free(ws);
}

/* What session_open asks of a [batch] or [slurm] setting, and reading them. */
static void test_settings(void **state)
{
	(void)state;
	struct {
		const char *key, *value;
		int want;
	} cases[] = {
		{"batch.executor", "slurm", 1},   {"batch.executor", "pbs", -1},  {"batch.jobs", "8", 1},
		{"batch.jobs", "0", -1},          {"slurm.poll", "0.5", 1},       {"slurm.poll", "soon", -1},
		{"slurm.probe", "no", 1},         {"slurm.probe", "maybe", -1},   {"slurm.partition", "gpu", 1},
		{"slurm.partition", "", -1},      {"slurm.nodes", "4", 0},        {"theme", "light", 0},
	};
	for (size_t i = 0; i < TP_ARRAY_LEN(cases); i++) {
		struct config_entry e = {.key = (char *)cases[i].key, .value = (char *)cases[i].value};
		struct tp_err err;
		tp_err_clear(&err);
		assert_int_equal(batch_setting_check(&e, &err), cases[i].want);
		if (cases[i].want < 0)
			assert_non_null(strstr(err.msg, "expected"));
	}
	struct config c = {0};
	char *dir = tu_tmpdir();
	char *path = tu_write(dir, "config", "[batch]\njobs = 3\n[slurm]\npartition = gpu\n"
					     "sbatch_args = --exclusive --mem=8G\npoll = 2.5\nprobe = no\n");
	assert_int_equal(config_load_file(&c, path, NULL), 0);
	struct batch_config bc;
	batch_config_read(&c, &bc);
	assert_int_equal(bc.executor, -1);
	assert_int_equal(bc.jobs, 3);
	assert_true(bc.slurm_configured);
	assert_string_equal(bc.slurm.partition, "gpu");
	assert_string_equal(bc.slurm.sbatch_args[1], "--mem=8G");
	assert_int_equal(bc.slurm.poll_ms, 2500);
	assert_false(bc.slurm.probe);
	batch_config_free(&bc);
	config_free(&c);
	free(path);
	remove_tree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_squeue_rows),
		cmocka_unit_test(test_scontrol_records),
		cmocka_unit_test(test_sbatch_answers),
		cmocka_unit_test(test_job_phases),
		cmocka_unit_test(test_state_from_run_and_job),
		cmocka_unit_test(test_resume_rules),
		cmocka_unit_test(test_converted_is_accepted),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_resume_keeps_what_cannot_change),
		cmocka_unit_test(test_record_round_trip),
		cmocka_unit_test(test_record_refuses_what_it_cannot_trust),
		cmocka_unit_test(test_discover_all),
		cmocka_unit_test(test_settings),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
