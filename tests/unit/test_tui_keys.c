/* Keys in config syntax, default keymaps generated from the action table,
 * bindings from the config files, and config errors that name file:line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <curses.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/testutil.h"
#include "tui/config.h"
#include "tui/keys.h"

static int parse1(const char *s)
{
	int k;
	struct tp_err e;
	if (key_parse_one(s, &k, &e) < 0)
		fail_msg("%s: %s", s, e.msg);
	return k;
}

static void test_key_syntax(void **state)
{
	(void)state;
	assert_int_equal(parse1("j"), 'j');
	assert_int_equal(parse1("<Enter>"), KEYC_ENTER);
	assert_int_equal(parse1("<enter>"), KEYC_ENTER);
	assert_int_equal(parse1("<C-f>"), 6);
	assert_int_equal(parse1("^F"), 6);
	assert_int_equal(parse1("<Space>"), ' ');
	assert_int_equal(parse1("<PgDown>"), KEY_FN + KEY_NPAGE);
	assert_int_equal(parse1("<F1>"), KEY_FN + KEY_F(1));
	assert_int_equal(parse1("<LessThan>"), '<');
	assert_int_equal(parse1("<"), '<');
	assert_int_equal(parse1("é"), 0xe9);
	int k;
	struct tp_err e;
	assert_int_equal(key_parse_one("<Bogus>", &k, &e), -1);
	assert_non_null(strstr(e.msg, "unknown key '<Bogus>'"));
	assert_int_equal(key_parse_one("jj", &k, &e), -1);
	/* A script line is several keys. */
	const char *p = "a<Down>b";
	int keys[3];
	for (int i = 0; i < 3; i++)
		assert_int_equal(key_parse(&p, &keys[i], &e), 0);
	assert_int_equal(keys[1], KEY_FN + KEY_DOWN);
	assert_int_equal(*p, '\0');
}

static void test_labels_round_trip(void **state)
{
	(void)state;
	static const char *const names[] = {"j", "<Enter>", "<C-f>", "<PgDown>", "<F5>", "<Space>",
					    "<Tab>", "<Esc>", "G", "é"};
	for (size_t i = 0; i < TP_ARRAY_LEN(names); i++) {
		char buf[32];
		key_label(parse1(names[i]), buf, sizeof(buf));
		assert_string_equal(buf, names[i]);
	}
}

static void test_default_keymaps_come_from_the_table(void **state)
{
	(void)state;
	keys_init();
	assert_int_equal(keys_lookup(VIEW_TEXT, 'j'), REQ_MOVE_DOWN);
	assert_int_equal(keys_lookup(VIEW_TEXT, KEY_FN + KEY_DOWN), REQ_MOVE_DOWN);
	assert_int_equal(keys_lookup(VIEW_HELP, 'h'), REQ_VIEW_HELP);
	/* View-specific keys live only in their keymaps. */
	assert_int_equal(keys_lookup(VIEW_TRANSCRIPT, 'o'), REQ_TOGGLE_FOLD);
	assert_int_equal(keys_lookup(VIEW_TEXT, 'o'), REQ_NONE);
	assert_int_equal(keys_lookup(VIEW_STAGE, 'S'), REQ_RESPAWN);
	assert_int_equal(keys_lookup(VIEW_PIPELINE, 'O'), REQ_OVERRIDE);
	assert_int_equal(keys_lookup(VIEW_RUNS, 'O'), REQ_NONE);
	/* Every action has a name that maps back to it. */
	for (int r = 1; r < REQ__COUNT; r++)
		assert_int_equal(request_by_name(requests[r].name), r);
	keys_free();
}

static void test_bind_overrides_and_unbinds(void **state)
{
	(void)state;
	keys_init();
	struct tp_err e;
	assert_int_equal(keys_bind_words("generic", "x", "move-down", &e), 0);
	assert_int_equal(keys_lookup(VIEW_RUNS, 'x'), REQ_MOVE_DOWN);
	/* A view keymap wins over generic, and "none" hides a generic key. */
	assert_int_equal(keys_bind_words("text", "x", "none", &e), 0);
	assert_int_equal(keys_lookup(VIEW_TEXT, 'x'), REQ_NONE);
	assert_int_equal(keys_lookup(VIEW_HELP, 'x'), REQ_MOVE_DOWN);
	assert_int_equal(keys_bind_words("nosuch", "x", "move-down", &e), -1);
	assert_non_null(strstr(e.msg, "unknown keymap 'nosuch'"));
	assert_int_equal(keys_bind_words("generic", "x", "fly", &e), -1);
	assert_non_null(strstr(e.msg, "unknown action 'fly'"));
	keys_free();
}

/* The user's file, then the workspace's, as the session reads them. */
static int tui_config_load(struct tui_config *c, const char *ws, struct tp_err *e)
{
	struct config raw = {0};
	char *user = config_user_path();
	char *wsconf = path_join(ws, ".tileport.conf");
	int rc = config_load_file(&raw, user, e);
	if (rc == 0)
		rc = config_load_file(&raw, wsconf, e);
	if (rc == 0)
		rc = tui_config_apply(c, &raw, e);
	config_free(&raw);
	free(user);
	free(wsconf);
	return rc;
}

static void test_config_files(void **state)
{
	(void)state;
	char *dir = tu_tmpdir();
	char *xdg = path_join(dir, "xdg");
	setenv("XDG_CONFIG_HOME", xdg, 1);
	char *user = tu_write(xdg, "tileport/config",
			      "# user settings\ntheme = light\nout_root = /elsewhere\n"
			      "bind pipeline r respawn\n[tui]\nsplit-size = 30\n");
	char *ws = path_join(dir, "ws");
	char *wsconf = tu_write(ws, ".tileport.conf", "layout = vertical\n[agents]\nA = mech\n");
	keys_init();
	struct tui_config c;
	tui_config_init(&c);
	struct tp_err e;
	if (tui_config_load(&c, ws, &e) < 0)
		fail_msg("%s", e.msg);
	assert_string_equal(c.theme, "light");
	assert_int_equal(c.split_size, 30);
	assert_int_equal(c.layout, LAYOUT_VERTICAL);
	assert_int_equal(keys_lookup(VIEW_PIPELINE, 'r'), REQ_RESPAWN);
	tui_config_free(&c);

	/* An unknown key in [tui] is an error naming the file and line. */
	free(tu_write(ws, ".tileport.conf", "[tui]\n\nlayout = diagonal\n"));
	tui_config_init(&c);
	assert_int_equal(tui_config_load(&c, ws, &e), -1);
	char *want = xasprintf("%s:3: layout: expected auto, horizontal or vertical", wsconf);
	assert_non_null(strstr(e.msg, want));
	free(want);
	tui_config_free(&c);
	free(tu_write(ws, ".tileport.conf", "[tui]\ncolour = red\n"));
	tui_config_init(&c);
	assert_int_equal(tui_config_load(&c, ws, &e), -1);
	assert_non_null(strstr(e.msg, ":2: unknown setting 'colour'"));
	tui_config_free(&c);
	free(tu_write(ws, ".tileport.conf", "bind generic <Nope> quit\n"));
	tui_config_init(&c);
	assert_int_equal(tui_config_load(&c, ws, &e), -1);
	assert_non_null(strstr(e.msg, ".tileport.conf:1: unknown key '<Nope>'"));
	tui_config_free(&c);

	keys_free();
	unsetenv("XDG_CONFIG_HOME");
	remove_tree(dir);
	free(dir);
	free(xdg);
	free(user);
	free(ws);
	free(wsconf);
}

int main(void)
{
	setlocale(LC_CTYPE, "C.UTF-8");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_key_syntax),
		cmocka_unit_test(test_labels_round_trip),
		cmocka_unit_test(test_default_keymaps_come_from_the_table),
		cmocka_unit_test(test_bind_overrides_and_unbinds),
		cmocka_unit_test(test_config_files),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
