/* Prompt commands (`:name args`), shared by the `:` prompt and scripts. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/app.h"
#include "tui/display.h"
#include "tui/keys.h"

typedef int (*command_fn)(struct app *a, const char *args, struct tp_err *err);

struct command {
	struct command_info info;
	command_fn fn;
	bool needs_args;
};

static int cmd_quit(struct app *a, const char *args, struct tp_err *err)
{
	(void)args, (void)err;
	a->quit = true;
	return 0;
}

static int cmd_save_display(struct app *a, const char *args, struct tp_err *err)
{
	/* The file must show what a user would see now. */
	screen_draw(a);
	return display_save(args, err);
}

static int cmd_save_view(struct app *a, const char *args, struct tp_err *err)
{
	return screen_save_view(a, args, err);
}

static int cmd_resize(struct app *a, const char *args, struct tp_err *err)
{
	int cols, lines;
	char extra;
	if (sscanf(args, "%dx%d%c", &cols, &lines, &extra) != 2) {
		tp_err_set(err, TP_EXIT_USAGE, "resize: expected COLSxLINES, such as 160x48, got '%s'",
			   args);
		return -1;
	}
	if (display_resize(lines, cols, err) < 0)
		return -1;
	a->layout_dirty = true;
	return 0;
}

static int cmd_bind(struct app *a, const char *args, struct tp_err *err)
{
	char *line = xasprintf("bind %s", args);
	int rc = tui_config_bind(line, "bind", err);
	free(line);
	a->status_dirty = true;
	return rc;
}

static void apply_theme(struct app *a)
{
	for (size_t i = 0; i < a->cfg.ncolors; i++) {
		struct tp_err e;
		theme_set(&a->theme, a->cfg.colors[i].area, a->cfg.colors[i].spec, &e);
	}
	theme_apply(&a->theme, a->use_color);
	screen_redraw_all(a);
}

static int cmd_theme(struct app *a, const char *args, struct tp_err *err)
{
	struct theme t;
	if (theme_load(&t, args, err) < 0) {
		theme_free(&t);
		return -1;
	}
	theme_free(&a->theme);
	a->theme = t;
	apply_theme(a);
	return 0;
}

static int cmd_set(struct app *a, const char *args, struct tp_err *err)
{
	char *copy = xstrdup(args);
	char *eq = strchr(copy, '=');
	char *sp = strchr(copy, ' ');
	char *sep = eq ? eq : sp;
	int rc = -1;
	if (!sep) {
		tp_err_set(err, TP_EXIT_USAGE, "set: expected KEY = VALUE");
		goto out;
	}
	*sep = '\0';
	char *key = str_trim(copy), *value = str_trim(sep + 1);
	if (strcmp(key, "theme") == 0) {
		rc = cmd_theme(a, value, err);
		if (rc == 0) {
			free(a->cfg.theme);
			a->cfg.theme = xstrdup(value);
		}
		goto out;
	}
	rc = tui_config_set(&a->cfg, key, value, err);
	if (rc == 0) {
		if (str_starts(key, "color."))
			apply_theme(a);
		a->layout_dirty = true;
	}
out:
	free(copy);
	return rc;
}

static int cmd_open(struct app *a, const char *args, struct tp_err *err)
{
	struct view_arg arg = {.path = args};
	enum view_id id = VIEW_TEXT;
	if (path_is_dir(args)) {
		char *state = path_join(args, ".tileport/state.json");
		id = path_is_file(state) ? VIEW_PIPELINE : VIEW_RUNS;
		free(state);
	} else if (str_ends(args, ".jsonl")) {
		id = VIEW_TRANSCRIPT;
	} else if (!path_is_file(args)) {
		tp_err_set(err, TP_EXIT_USAGE, "open: no such file or directory: %s", args);
		return -1;
	}
	if (!app_open_view(a, NULL, id, &arg, 0)) {
		tp_err_set(err, TP_EXIT_USAGE, "%s", a->message ? a->message : "cannot open");
		return -1;
	}
	return 0;
}

static int goto_line(struct app *a, const char *args, struct tp_err *err)
{
	char *end;
	errno = 0;
	long n = strtol(args, &end, 10);
	if (end == args || *end || errno || n < 1) {
		tp_err_set(err, TP_EXIT_USAGE, "goto: expected a line number, got '%s'", args);
		return -1;
	}
	if (a->focus)
		view_select(a->focus, (size_t)n - 1);
	return 0;
}

static int cmd_search(struct app *a, const char *args, struct tp_err *err)
{
	(void)err;
	if (!a->focus)
		return 0;
	view_set_search(a->focus, args);
	view_find(a->focus, false, false);
	return 0;
}

static int cmd_echo(struct app *a, const char *args, struct tp_err *err)
{
	(void)err;
	app_report(a, false, "%s", args);
	return 0;
}

static const struct command commands[] = {
	{{"quit", "", "Quit tileport"}, cmd_quit, false},
	{{"save-display", "FILE", "Write what is on screen to FILE (trailing blanks trimmed)"},
	 cmd_save_display, true},
	{{"save-view", "FILE", "Write the focused view's lines with their types to FILE"},
	 cmd_save_view, true},
	{{"resize", "COLSxLINES", "Resize the virtual screen (TILEPORT_NO_DISPLAY=1)"}, cmd_resize,
	 true},
	{{"bind", "KEYMAP KEY ACTION", "Bind a key, as in the config file"}, cmd_bind, true},
	{{"set", "KEY = VALUE", "Change a setting, as in the config file"}, cmd_set, true},
	{{"theme", "NAME", "Switch to another theme"}, cmd_theme, true},
	{{"open", "PATH", "Open a file, a run directory or an output root"}, cmd_open, true},
	{{"goto", "LINE", "Select line LINE (also :LINE)"}, goto_line, true},
	{{"search", "TEXT", "Search forward for TEXT"}, cmd_search, true},
	{{"echo", "TEXT", "Show TEXT on the status line"}, cmd_echo, false},
};

const struct command_info *command_list(size_t *n)
{
	static struct command_info infos[TP_ARRAY_LEN(commands) + 1];
	for (size_t i = 0; i < TP_ARRAY_LEN(commands); i++)
		infos[i] = commands[i].info;
	infos[TP_ARRAY_LEN(commands)] =
		(struct command_info){"ACTION", "", "Run any action by its name, e.g. :move-down"};
	*n = TP_ARRAY_LEN(infos);
	return infos;
}

int command_run(struct app *a, const char *line, struct tp_err *err)
{
	char *copy = xstrdup(line);
	char *s = str_trim(copy);
	if (*s == ':')
		s++;
	char *args = s;
	while (*args && *args != ' ' && *args != '\t')
		args++;
	if (*args)
		*args++ = '\0';
	args = str_trim(args);
	int rc = -1;
	if (*s >= '0' && *s <= '9') {
		rc = goto_line(a, s, err);
		goto out;
	}
	if (strcmp(s, "q") == 0)
		s = "quit";
	for (size_t i = 0; i < TP_ARRAY_LEN(commands); i++) {
		if (strcmp(s, commands[i].info.name) != 0)
			continue;
		if (commands[i].needs_args && !*args) {
			tp_err_set(err, TP_EXIT_USAGE, "%s: expected %s", s, commands[i].info.args);
			goto out;
		}
		rc = commands[i].fn(a, args, err);
		goto out;
	}
	enum request req = request_by_name(s);
	if (req != REQ_NONE) {
		app_request(a, req);
		rc = 0;
		goto out;
	}
	tp_err_set(err, TP_EXIT_USAGE, "unknown command '%s' (expected a command such as "
		   "save-display, resize or set, or an action name; see the help view)", s);
out:
	free(copy);
	return rc;
}
