#include "tui/config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/base/config.h"
#include "tui/keys.h"
#include "tui/theme.h"
#include "tui/tui.h"

void tui_config_init(struct tui_config *c)
{
	memset(c, 0, sizeof(*c));
	c->layout = LAYOUT_AUTO;
	c->split_size = 40;
	c->follow = true;
}

void tui_config_free(struct tui_config *c)
{
	free(c->theme);
	for (size_t i = 0; i < c->ncolors; i++) {
		free(c->colors[i].area);
		free(c->colors[i].spec);
	}
	free(c->colors);
	memset(c, 0, sizeof(*c));
}

static int parse_bool(const char *key, const char *v, bool *out, struct tp_err *err)
{
	if (!strcmp(v, "yes") || !strcmp(v, "true") || !strcmp(v, "on") || !strcmp(v, "1")) {
		*out = true;
		return 0;
	}
	if (!strcmp(v, "no") || !strcmp(v, "false") || !strcmp(v, "off") || !strcmp(v, "0")) {
		*out = false;
		return 0;
	}
	tp_err_set(err, TP_EXIT_USAGE, "%s: expected yes or no, got '%s'", key, v);
	return -1;
}

/* 1 when key is the TUI's, 0 when it is not, -1 on a bad value. */
static int set_known(struct tui_config *c, const char *key, const char *value, struct tp_err *err)
{
	if (strcmp(key, "theme") == 0) {
		if (!*value) {
			tp_err_set(err, TP_EXIT_USAGE, "theme: expected a theme name or path");
			return -1;
		}
		/* checked where it is written, so that the message has its file
		 * and line, and every command refuses it, not only the screen */
		if (theme_check_name(value, err) < 0)
			return -1;
		free(c->theme);
		c->theme = xstrdup(value);
		return 1;
	}
	if (strcmp(key, "layout") == 0) {
		if (!strcmp(value, "auto"))
			c->layout = LAYOUT_AUTO;
		else if (!strcmp(value, "horizontal"))
			c->layout = LAYOUT_HORIZONTAL;
		else if (!strcmp(value, "vertical"))
			c->layout = LAYOUT_VERTICAL;
		else {
			tp_err_set(err, TP_EXIT_USAGE,
				   "layout: expected auto, horizontal or vertical, got '%s'", value);
			return -1;
		}
		return 1;
	}
	if (strcmp(key, "split-size") == 0) {
		char *end;
		long n = strtol(value, &end, 10);
		if (*end == '%')
			end++;
		if (end == value || *end || n < 10 || n > 90) {
			tp_err_set(err, TP_EXIT_USAGE,
				   "split-size: expected a percentage from 10 to 90, got '%s'", value);
			return -1;
		}
		c->split_size = (int)n;
		return 1;
	}
	if (strcmp(key, "line-numbers") == 0)
		return parse_bool(key, value, &c->line_numbers, err) < 0 ? -1 : 1;
	if (strcmp(key, "follow") == 0)
		return parse_bool(key, value, &c->follow, err) < 0 ? -1 : 1;
	if (str_starts(key, "color.")) {
		int t = line_type_by_name(key + 6);
		if (t < 0) {
			tp_err_set(err, TP_EXIT_USAGE, "%s: unknown area '%s' (docs/tui.md lists them)",
				   key, key + 6);
			return -1;
		}
		c->colors = xgrow(c->colors, &c->capcolors, c->ncolors + 1, sizeof(*c->colors));
		c->colors[c->ncolors].area = xstrdup(key + 6);
		c->colors[c->ncolors].spec = xstrdup(value);
		c->ncolors++;
		return 1;
	}
	return 0;
}

int tui_config_set(struct tui_config *c, const char *key, const char *value, struct tp_err *err)
{
	int r = set_known(c, key, value, err);
	if (r == 0) {
		tp_err_set(err, TP_EXIT_USAGE,
			   "unknown setting '%s' (expected theme, layout, split-size, line-numbers, "
			   "follow or color.AREA)", key);
		return -1;
	}
	return r < 0 ? -1 : 0;
}

static bool is_bind(const char *line)
{
	return str_starts(line, "bind ") || str_starts(line, "bind\t");
}

/* `bind KEYMAP KEY ACTION`, checked; bound too when `apply`. */
static int bind_line(const char *line, bool apply, struct tp_err *err)
{
	size_t n;
	char **w = str_split(line, ' ', false, &n);
	int rc, km, k;
	enum request req;
	if (n != 4 || strcmp(w[0], "bind") != 0) {
		tp_err_set(err, TP_EXIT_USAGE, "expected 'bind KEYMAP KEY ACTION'");
		rc = -1;
	} else {
		rc = keys_parse_bind(w[1], w[2], w[3], &km, &k, &req, err);
	}
	strv_free(w);
	if (rc == 0 && apply)
		keys_bind(km, k, req);
	return rc;
}

int tui_config_bind(const char *line, const char *where, struct tp_err *err)
{
	struct tp_err e;
	if (bind_line(line, true, &e) == 0)
		return 0;
	tp_err_set(err, TP_EXIT_USAGE, "%s%s%s", where ? where : "", where ? ": " : "", e.msg);
	return -1;
}

const char tui_settings_hint[] =
	"a screen setting: theme, layout, split-size, line-numbers, follow, color.AREA";

int tui_setting_check(const struct config_entry *e, struct tp_err *err)
{
	if (!e->key) {
		/* A line without '=' can only be a screen directive. */
		if (is_bind(e->value))
			return bind_line(e->value, false, err) < 0 ? -1 : 1;
		tp_err_set(err, TP_EXIT_USAGE, "expected 'key = value' or 'bind KEYMAP KEY ACTION', got '%s'",
			   e->value);
		return -1;
	}
	bool in_tui = str_starts(e->key, "tui.");
	struct tui_config scratch;
	tui_config_init(&scratch);
	int r = set_known(&scratch, in_tui ? e->key + 4 : e->key, e->value, err);
	tui_config_free(&scratch);
	if (r == 0 && in_tui) {
		/* The [tui] section is the screen's alone. */
		tp_err_set(err, TP_EXIT_USAGE, "unknown setting '%s' (expected theme, layout, split-size, "
			   "line-numbers, follow or color.AREA)", e->key + 4);
		return -1;
	}
	return r;
}

int tui_config_apply(struct tui_config *c, const struct config *cfg, struct tp_err *err)
{
	for (size_t i = 0; i < cfg->n; i++) {
		const struct config_entry *ce = &cfg->v[i];
		char where[4200];
		snprintf(where, sizeof(where), "%s:%d", ce->file, ce->line);
		if (!ce->key) {
			if (is_bind(ce->value) && tui_config_bind(ce->value, where, err) < 0)
				return -1;
			continue;
		}
		bool in_tui = str_starts(ce->key, "tui.");
		struct tp_err e;
		tp_err_clear(&e);
		int r = set_known(c, in_tui ? ce->key + 4 : ce->key, ce->value, &e);
		if (r == 0 && in_tui)
			tp_err_set(&e, TP_EXIT_USAGE,
				   "unknown setting '%s' (expected theme, layout, split-size, "
				   "line-numbers, follow or color.AREA)", ce->key + 4);
		if (r < 0 || (r == 0 && in_tui)) {
			tp_err_set(err, TP_EXIT_USAGE, "%s: %s", where, e.msg);
			return -1;
		}
	}
	return 0;
}
