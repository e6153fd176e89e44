#include "tui/config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/keys.h"

void config_init(struct tui_config *c)
{
	memset(c, 0, sizeof(*c));
	c->layout = LAYOUT_AUTO;
	c->split_size = 40;
	c->follow = true;
}

void config_free(struct tui_config *c)
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

int config_set(struct tui_config *c, const char *key, const char *value, struct tp_err *err)
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

int config_line(struct tui_config *c, const char *line, bool strict, const char *where,
		struct tp_err *err)
{
	char *copy = xstrdup(line);
	char *s = str_trim(copy);
	int rc = 0;
	struct tp_err e;
	tp_err_clear(&e);
	if (!*s || *s == '#')
		goto out;
	if (str_starts(s, "bind ") || str_starts(s, "bind\t")) {
		size_t n;
		char **w = str_split(s + 5, ' ', false, &n);
		if (n != 3) {
			tp_err_set(&e, TP_EXIT_USAGE, "expected 'bind KEYMAP KEY ACTION'");
			rc = -1;
		} else {
			rc = keys_bind_words(w[0], w[1], w[2], &e);
		}
		strv_free(w);
		goto out;
	}
	char *eq = strchr(s, '=');
	if (!eq) {
		tp_err_set(&e, TP_EXIT_USAGE, "expected 'key = value' or 'bind KEYMAP KEY ACTION'");
		rc = -1;
		goto out;
	}
	*eq = '\0';
	char *key = str_trim(s), *value = str_trim(eq + 1);
	int r = set_known(c, key, value, &e);
	if (r < 0)
		rc = -1;
	else if (r == 0 && strict) {
		tp_err_set(&e, TP_EXIT_USAGE,
			   "unknown setting '%s' (expected theme, layout, split-size, line-numbers, "
			   "follow, color.AREA or bind)", key);
		rc = -1;
	}
out:
	if (rc < 0)
		tp_err_set(err, TP_EXIT_USAGE, "%s%s%s", where ? where : "", where ? ": " : "", e.msg);
	free(copy);
	return rc;
}

int config_load_file(struct tui_config *c, const char *path, struct tp_err *err)
{
	if (!path_is_file(path))
		return 0;
	size_t len;
	char *text = read_file(path, &len, err);
	if (!text)
		return -1;
	if (memchr(text, '\0', len)) {
		tp_err_set(err, TP_EXIT_USAGE, "%s: not a text file", path);
		free(text);
		return -1;
	}
	int rc = 0, lineno = 0;
	bool mine = true, strict = false;
	char *next = text;
	while (rc == 0 && next && *next) {
		char *line = next;
		char *nl = strchr(line, '\n');
		next = nl ? nl + 1 : NULL;
		if (nl)
			*nl = '\0';
		lineno++;
		char *s = str_trim(line);
		if (*s == '[') {
			char *end = strchr(s, ']');
			if (!end || end[1]) {
				tp_err_set(err, TP_EXIT_USAGE, "%s:%d: expected '[section]'", path, lineno);
				rc = -1;
				break;
			}
			*end = '\0';
			mine = strcmp(str_trim(s + 1), "tui") == 0;
			strict = mine;
			continue;
		}
		if (!mine)
			continue;
		char where[4096];
		snprintf(where, sizeof(where), "%s:%d", path, lineno);
		rc = config_line(c, s, strict, where, err);
	}
	free(text);
	return rc;
}

char *config_user_path(void)
{
	const char *xdg = getenv("XDG_CONFIG_HOME");
	if (xdg && *xdg)
		return xasprintf("%s/tileport/config", xdg);
	const char *home = getenv("HOME");
	return xasprintf("%s/.config/tileport/config", home && *home ? home : ".");
}

int config_load(struct tui_config *c, const char *workspace, struct tp_err *err)
{
	char *user = config_user_path();
	int rc = config_load_file(c, user, err);
	free(user);
	if (rc < 0)
		return -1;
	char *ws = path_join(workspace && *workspace ? workspace : ".", ".tileport.conf");
	rc = config_load_file(c, ws, err);
	free(ws);
	return rc;
}
