/* The meter while a stage runs: every usage record the agent prints moves
 * the attempt's tokens and cost at once (the run model's listeners hear
 * RUN_USAGE), and state.json carries them before the stage ends, so a
 * second screen following the run from disk shows them in its TOKENS and
 * COST columns. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/base/files.h"
#include "engine/base/loop.h"
#include "engine/core/pipeline.h"
#include "engine/base/proc.h"
#include "engine/core/session.h"
#include "tests/unit/testutil.h"

static int meters;

static void on_change(struct run_model *m, const struct run_change *c, void *ud)
{
	(void)m, (void)ud;
	if (c->kind == RUN_USAGE && c->attempt->stage == 'A')
		meters++;
}

static long long saved_tokens_in(const char *run_dir)
{
	char *path = path_join(run_dir, ".tileport/state.json");
	char *text = read_file(path, NULL, NULL);
	free(path);
	cJSON *o = cJSON_Parse(text);
	free(text);
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(o, "usage"), "A");
	const cJSON *n = cJSON_GetObjectItemCaseSensitive(m, "tokens_in");
	long long v = cJSON_IsNumber(n) ? (long long)n->valuedouble : -1;
	cJSON_Delete(o);
	return v;
}

static void test_tokens_move_while_the_stage_runs(void **state)
{
	(void)state;
	const char *top = getenv("TILEPORT_TOP");
	const char *bin = getenv("TILEPORT");
	if (!top || !bin)
		skip();
	char *dir = tu_tmpdir();
	char *go = path_join(dir, "go");
	assert_int_equal(mkfifo(go, 0600), 0);
	char *agent_text = xasprintf(
		"#!/bin/sh\n"
		"echo '{\"type\":\"start\",\"driver\":\"test\"}'\n"
		"echo '{\"type\":\"usage\",\"tokens_in\":1200,\"tokens_out\":300,\"cost\":0.5}'\n"
		"read x < %s\n"
		"echo '{\"type\":\"usage\",\"tokens_in\":800,\"tokens_out\":100,\"cost\":0.25}'\n"
		"echo '{\"type\":\"final\",\"text\":\"<VALIDATOR_OUTPUT>\\n$ true\\nexit=0\\n"
		"</VALIDATOR_OUTPUT>\\nVERDICT: BLOCKED\"}'\n", go);
	char *agent = tu_write(dir, "agent.sh", agent_text);
	chmod(agent, 0755);
	char *drv = xasprintf("exec:%s", agent);
	char *screen = path_join(dir, "follow.screen");
	char *stext = xasprintf(":save-display %s\n:quit\n", screen);
	char *script = tu_write(dir, "script", stext);
	char *out = path_join(dir, "out");
	char *ws = path_join(top, "samples/workspace");
	char *xdg = path_join(dir, "xdg");
	setenv("XDG_CONFIG_HOME", xdg, 1);
	setenv("TILEPORT_GPU", "0", 1);

	struct session_opts so = {.workspace = ws, .out_root = out};
	for (int i = 0; i < 6; i++) {
		so.commands.drivers[i] = drv;
		so.commands.validators[i] = "none";
	}
	struct session *session;
	struct tp_err err;
	if (session_open(&session, &so, &err) < 0)
		fail_msg("%s", err.msg);
	struct loop *l = session_loop(session);
	struct run_model *model = session_new_run(session, "softmax", &err);
	if (!model)
		fail_msg("%s", err.msg);
	struct pipeline *p = run_model_pipeline(model);
	run_model_listen(model, on_change, NULL);
	pipeline_start(p);
	while (meters < 1)
		loop_run_once(l, -1);
	const struct attempt *a = run_model_latest(model, 'A');
	assert_true(run_model_running(model, a));
	assert_non_null(a);
	assert_int_equal(a->tokens_in, 1200);
	assert_int_equal(a->tokens_out, 300);
	assert_float_equal(a->cost, 0.5, 1e-9);
	const char *run_dir = run_model_state(model)->run_dir;
	assert_int_equal(saved_tokens_in(run_dir), 1200);

	/* a second screen follows the run from disk while the stage runs */
	char *argv[] = {(char *)bin, "open", (char *)run_dir, NULL};
	char **env = env_current();
	env_set(&env, "TILEPORT_SCRIPT", script);
	env_set(&env, "TILEPORT_NO_DISPLAY", "1");
	env_set(&env, "TILEPORT_DATA_DIR", top);
	env_set(&env, "COLUMNS", "120");
	env_set(&env, "LINES", "20");
	struct proc_opts po = {.argv = argv, .env = env, .timeout_ms = 60000};
	struct proc_status st;
	struct sbuf sout = SBUF_INIT;
	assert_int_equal(proc_run_sync(&po, &sout, &sout, &st, &err), 0);
	if (st.end != PROC_EXITED || st.code != 0)
		fail_msg("tileport open: %s", sb_str(&sout));
	char *text = read_file(screen, NULL, NULL);
	assert_non_null(text);
	if (!strstr(text, "1.2k/300") || !strstr(text, "$0.50") || !strstr(text, "[read-only]"))
		fail_msg("the follower does not show the live meter:\n%s", text);
	free(text);

	int fd = open(go, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "go\n", 3), 3);
	close(fd);
	while (pipeline_busy(p))
		loop_run_once(l, -1);
	assert_int_equal(meters, 2);
	const struct attempt *done = run_model_latest(model, 'A');
	assert_int_equal(done->tokens_in, 2000);
	assert_float_equal(done->cost, 0.75, 1e-9);
	assert_int_equal(saved_tokens_in(run_dir), 2000);
	run_model_free(model);
	session_close(session);
	strv_free(env);
	sb_free(&sout);
	unsetenv("TILEPORT_GPU");
	remove_tree(dir);
	free(dir), free(go), free(agent_text), free(agent), free(drv), free(screen), free(stext);
	free(script), free(out), free(ws), free(xdg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tokens_move_while_the_stage_runs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
