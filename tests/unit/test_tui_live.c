/* tui_main on a live run (TUI_START_RUN with a live run model, what
 * `tileport run OP` does without --headless): the screen follows the run to
 * its end on the session's loop, in script mode on the virtual screen, and
 * leaves the run to the caller. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/base/files.h"
#include "engine/base/loop.h"
#include "engine/core/pipeline.h"
#include "engine/core/session.h"
#include "tests/unit/testutil.h"
#include "tui/tui.h"

static void test_live_run_in_the_pipeline_view(void **state)
{
	(void)state;
	const char *top = getenv("TILEPORT_TOP");
	if (!top)
		top = ".";
	char *dir = tu_tmpdir();
	char *scen = tu_write(dir, "scen", "A: PASS format=json\nB: FAIL_COMPILE\n");
	char *screen = path_join(dir, "live.screen");
	char *view = path_join(dir, "live.view");
	char *stext = xasprintf(":save-display %s\n:save-view %s\n", screen, view);
	char *script = tu_write(dir, "script", stext);
	char *out = path_join(dir, "out");
	char *ws = path_join(top, "samples/workspace");
	char *fake = xasprintf("exec:%s/tests/integration/lib/fake_agent.sh", top);
	setenv("FAKE_SCENARIO", scen, 1);
	setenv("TILEPORT_SCRIPT", script, 1);
	setenv("TILEPORT_NO_DISPLAY", "1", 1);
	setenv("TILEPORT_DATA_DIR", top, 1);
	setenv("TILEPORT_GPU", "0", 1);
	setenv("LINES", "24", 1);
	setenv("COLUMNS", "100", 1);
	char *xdg = path_join(dir, "xdg");
	setenv("XDG_CONFIG_HOME", xdg, 1);

	struct session_opts so = {.workspace = ws, .out_root = out};
	for (int i = 0; i < 6; i++) {
		so.commands.drivers[i] = fake;
		so.commands.validators[i] = "none";
	}
	struct session *session;
	struct tp_err err;
	if (session_open(&session, &so, &err) < 0)
		fail_msg("%s", err.msg);
	struct loop *l = session_loop(session);
	struct run_model *m = session_new_run(session, "softmax", &err);
	if (!m)
		fail_msg("%s", err.msg);
	struct pipeline *p = run_model_pipeline(m);
	pipeline_start(p);
	struct tui_start s = {.kind = TUI_START_RUN, .session = session, .run = m};
	/* The script waits for the run to go idle, saves, and quits. */
	assert_int_equal(tui_main(&s), 0);
	assert_true(pipeline_finished(p));
	assert_int_equal(pipeline_exit_code(p), 1); /* STOP at B */

	char *text = read_file(screen, NULL, NULL);
	assert_non_null(text);
	assert_non_null(strstr(text, "[pipeline] softmax - STOP"));
	assert_non_null(strstr(text, "FAIL_COMPILE"));
	assert_non_null(strstr(text, "STOP: B returned FAIL_COMPILE"));
	assert_null(strstr(text, "[read-only]"));
	free(text);
	text = read_file(view, NULL, NULL);
	assert_non_null(strstr(text, "[verdict-fail FAIL_COMPILE]"));
	free(text);

	/* The pipeline is still the caller's: it can act on it and free it. */
	assert_int_equal(pipeline_respawn(p, 'B', false, &err), 0);
	while (pipeline_busy(p))
		loop_run_once(l, -1);
	run_model_free(m);
	session_close(session);

	unsetenv("TILEPORT_SCRIPT");
	unsetenv("TILEPORT_NO_DISPLAY");
	unsetenv("FAKE_SCENARIO");
	remove_tree(dir);
	free(dir), free(scen), free(screen), free(view), free(stext), free(script);
	free(out), free(ws), free(fake), free(xdg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_live_run_in_the_pipeline_view),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
