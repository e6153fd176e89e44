/* The session: every setting of both config files is checked once, by the
 * engine or by the screen's check it passes the rest to, and an unknown
 * key in any section names its file and line; which drivers a run gets
 * is decided in one place. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "engine/core/session.h"
#include "tests/unit/testutil.h"
#include "tui/tui.h"

struct env {
	char *dir, *xdg, *ws, *user_conf, *ws_conf;
};

static int setup(void **state)
{
	struct env *e = xcalloc(1, sizeof(*e));
	e->dir = tu_tmpdir();
	e->xdg = path_join(e->dir, "xdg");
	e->ws = path_join(e->dir, "ws");
	e->user_conf = path_join(e->xdg, "tileport/config");
	e->ws_conf = path_join(e->ws, ".tileport.conf");
	mkdir_p(e->ws, 0755, NULL);
	setenv("XDG_CONFIG_HOME", e->xdg, 1);
	unsetenv("TILEGYM_PATH");
	unsetenv("CUTILE_KERNEL_OUT_ROOT");
	*state = e;
	return 0;
}

static int teardown(void **state)
{
	struct env *e = *state;
	remove_tree(e->dir);
	free(e->dir), free(e->xdg), free(e->ws), free(e->user_conf), free(e->ws_conf);
	free(e);
	unsetenv("XDG_CONFIG_HOME");
	return 0;
}

static void write_conf(const char *path, const char *text)
{
	char *dir = xstrdup(path);
	*strrchr(dir, '/') = '\0';
	free(tu_write(dir, strrchr(path, '/') + 1, text));
	free(dir);
}

/* session_open on the files as they are; the screen's check passed along
 * unless `engine_only`. */
static int open_session(struct env *e, bool engine_only, struct session **s, struct tp_err *err)
{
	struct session_opts o = {.workspace = e->ws};
	if (!engine_only) {
		o.check_setting = tui_setting_check;
		o.settings_hint = tui_settings_hint;
	}
	return session_open(s, &o, err);
}

/* The user's file holds `text`; opening fails with FILE:LINE: want. */
static void refused(struct env *e, const char *text, int line, const char *want)
{
	write_conf(e->user_conf, text);
	struct session *s = NULL;
	struct tp_err err;
	tp_err_clear(&err);
	if (open_session(e, false, &s, &err) == 0)
		fail_msg("accepted: %s", text);
	assert_null(s);
	assert_int_equal(err.code, TP_EXIT_USAGE);
	char *where = xasprintf("%s:%d: %s", e->user_conf, line, want);
	if (!strstr(err.msg, where))
		fail_msg("got '%s', want '%s'", err.msg, where);
	free(where);
}

static void test_unknown_key_in_each_section(void **state)
{
	struct env *e = *state;
	refused(e, "theme = light\nthme = dark\n", 2, "unknown setting 'thme' (expected workspace");
	refused(e, "# drivers\n[driver]\nA = exec:./a.sh\nAB = exec:./b.sh\n", 4,
		"unknown setting 'driver.AB'");
	refused(e, "[validator]\nB = builtin\nfoo = true\n", 3, "unknown setting 'validator.foo'");
	/* [tui] is the screen's: its own check names the key it does not know */
	refused(e, "[tui]\nlayout = vertical\ncolour = red\n", 3,
		"unknown setting 'colour' (expected theme, layout");
	refused(e, "[agents]\nA = mech\n", 2, "unknown setting 'agents.A'");
	/* values are checked too, by whoever owns the key */
	refused(e, "[tui]\nlayout = sideways\n", 2, "layout: expected auto, horizontal or vertical");
	refused(e, "driver.A = llm:gpt\n", 1, "driver 'llm:gpt': unknown driver kind 'llm'");
	refused(e, "bind generic <Nope> quit\n", 1, "unknown key '<Nope>'");
	refused(e, "bnd pipeline r respawn\n", 1, "expected 'key = value' or 'bind KEYMAP KEY ACTION'");
}

static void test_workspace_file_names_itself(void **state)
{
	struct env *e = *state;
	write_conf(e->user_conf, "theme = light\n");
	write_conf(e->ws_conf, "[driver]\nA = exec:./a.sh\n[tui]\nsplit = 30\n");
	struct session *s = NULL;
	struct tp_err err;
	assert_int_equal(open_session(e, false, &s, &err), -1);
	char *want = xasprintf("%s:4: unknown setting 'split'", e->ws_conf);
	assert_non_null(strstr(err.msg, want));
	free(want);
}

/* Screen settings are known only through the screen's check: the engine
 * alone refuses them, so nothing passes unchecked. */
static void test_screen_settings_pass_through(void **state)
{
	struct env *e = *state;
	write_conf(e->user_conf, "theme = light\nbind pipeline r respawn\n[tui]\nsplit-size = 30\n");
	struct session *s = NULL;
	struct tp_err err;
	assert_int_equal(open_session(e, false, &s, &err), 0);
	assert_int_equal(session_config(s)->n, 3);
	session_close(s);
	assert_int_equal(open_session(e, true, &s, &err), -1);
	assert_non_null(strstr(err.msg, ":1: unknown setting 'theme'"));
}

/* What a run executes: the command line, else the config; an existing run
 * never takes the workspace's file (agents can write it). */
static void test_which_drivers_a_run_gets(void **state)
{
	struct env *e = *state;
	write_conf(e->user_conf, "driver.A = exec:user-a\nvalidator.B = builtin\nout_root = /from/user\n");
	write_conf(e->ws_conf, "driver.A = exec:ws-a\ndriver.B = exec:ws-b\nout_root = /from/ws\n");
	struct session_opts o = {.workspace = e->ws};
	o.commands.drivers[stage_slot('D')] = "exec:cmdline-d";
	struct session *s;
	struct tp_err err;
	if (session_open(&s, &o, &err) < 0)
		fail_msg("%s", err.msg);
	assert_string_equal(session_workspace(s), e->ws);
	assert_string_equal(session_out_root(s), "/from/ws");
	struct stage_commands c;
	session_stage_commands(s, RUN_NEW, &c);
	assert_string_equal(c.drivers[stage_slot('A')], "exec:ws-a");
	assert_string_equal(c.drivers[stage_slot('B')], "exec:ws-b");
	assert_string_equal(c.drivers[stage_slot('D')], "exec:cmdline-d");
	assert_string_equal(c.validators[stage_slot('B')], "builtin");
	assert_null(c.drivers[stage_slot('E')]);
	session_stage_commands(s, RUN_EXISTING, &c);
	assert_string_equal(c.drivers[stage_slot('A')], "exec:user-a");
	assert_null(c.drivers[stage_slot('B')]); /* keeps the run's own */
	assert_string_equal(c.drivers[stage_slot('D')], "exec:cmdline-d");
	session_close(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_unknown_key_in_each_section, setup, teardown),
		cmocka_unit_test_setup_teardown(test_workspace_file_names_itself, setup, teardown),
		cmocka_unit_test_setup_teardown(test_screen_settings_pass_through, setup, teardown),
		cmocka_unit_test_setup_teardown(test_which_drivers_a_run_gets, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
