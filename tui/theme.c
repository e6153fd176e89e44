#include "tui/theme.h"

#include <curses.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/base/files.h"

static const char *const color_names[8] = {
	"black", "red", "green", "yellow", "blue", "magenta", "cyan", "white",
};

static const struct {
	const char *name;
	unsigned bit;
} attr_names[] = {
	{"normal", 0},          {"bold", TA_BOLD},       {"dim", TA_DIM},
	{"underline", TA_UNDERLINE}, {"reverse", TA_REVERSE}, {"standout", TA_STANDOUT},
	{"italic", TA_ITALIC},  {"blink", TA_BLINK},
};

static int parse_one_color(const char *w, uint8_t *kind, uint32_t *value)
{
	if (strcmp(w, "default") == 0 || strcmp(w, "-1") == 0) {
		*kind = TC_DEFAULT;
		*value = 0;
		return 0;
	}
	for (int i = 0; i < 8; i++) {
		if (strcmp(w, color_names[i]) == 0) {
			*kind = TC_INDEX;
			*value = (uint32_t)i;
			return 0;
		}
		if (str_starts(w, "bright-") && strcmp(w + 7, color_names[i]) == 0) {
			*kind = TC_INDEX;
			*value = (uint32_t)(8 + i);
			return 0;
		}
	}
	if (str_starts(w, "color") && w[5]) {
		char *end;
		errno = 0;
		long n = strtol(w + 5, &end, 10);
		if (*end || errno || n < 0 || n > 255)
			return -1;
		*kind = TC_INDEX;
		*value = (uint32_t)n;
		return 0;
	}
	if (w[0] == '#' && strlen(w) == 7) {
		char *end;
		unsigned long v = strtoul(w + 1, &end, 16);
		if (*end)
			return -1;
		*kind = TC_RGB;
		*value = (uint32_t)v;
		return 0;
	}
	return -1;
}

int theme_parse_color(const char *word, struct theme_color *c, struct tp_err *err)
{
	memset(c, 0, sizeof(*c));
	char buf[64];
	snprintf(buf, sizeof(buf), "%s", word);
	char *bar = strchr(buf, '|');
	if (bar)
		*bar++ = '\0';
	if (parse_one_color(buf, &c->kind, &c->value) < 0 ||
	    (bar && parse_one_color(bar, &c->fb_kind, &c->fb_value) < 0)) {
		tp_err_set(err, TP_EXIT_USAGE,
			   "unknown colour '%s' (expected default, a colour name such as red or "
			   "bright-blue, colorN with N in 0-255, or #rrggbb; A|B for a fallback)",
			   word);
		return -1;
	}
	c->has_fallback = bar != NULL;
	return 0;
}

/* The xterm palette, so that colours can be matched to the nearest one a
 * smaller terminal has. */
static uint32_t palette_rgb(int i)
{
	static const uint32_t base[16] = {
		0x000000, 0xcd0000, 0x00cd00, 0xcdcd00, 0x0000ee, 0xcd00cd, 0x00cdcd, 0xe5e5e5,
		0x7f7f7f, 0xff0000, 0x00ff00, 0xffff00, 0x5c5cff, 0xff00ff, 0x00ffff, 0xffffff,
	};
	if (i < 16)
		return base[i];
	if (i < 232) {
		static const uint8_t lv[6] = {0, 95, 135, 175, 215, 255};
		int k = i - 16;
		return (uint32_t)lv[k / 36] << 16 | (uint32_t)lv[(k / 6) % 6] << 8 | lv[k % 6];
	}
	uint32_t g = (uint32_t)(8 + 10 * (i - 232));
	return g << 16 | g << 8 | g;
}

static int nearest(uint32_t rgb, int ncolors)
{
	int best = 0;
	long bestd = -1;
	for (int i = 0; i < ncolors && i < 256; i++) {
		uint32_t p = palette_rgb(i);
		long dr = (long)(rgb >> 16 & 0xff) - (long)(p >> 16 & 0xff);
		long dg = (long)(rgb >> 8 & 0xff) - (long)(p >> 8 & 0xff);
		long db = (long)(rgb & 0xff) - (long)(p & 0xff);
		long d = dr * dr * 3 + dg * dg * 4 + db * db * 2;
		if (bestd < 0 || d < bestd)
			bestd = d, best = i;
	}
	return best;
}

static int resolve(uint8_t kind, uint32_t value, int ncolors, bool is_fg, bool *bold, bool *fits)
{
	*fits = true;
	if (kind == TC_DEFAULT)
		return -1;
	if (kind == TC_INDEX && (int)value < ncolors)
		return (int)value;
	*fits = false;
	uint32_t rgb = kind == TC_RGB ? value : palette_rgb((int)value);
	if (ncolors >= 16) {
		return nearest(rgb, ncolors >= 256 ? 256 : 16);
	}
	/* 8 colours: bright-X becomes X plus bold for a foreground. */
	int n16 = kind == TC_INDEX && value < 16 ? (int)value : nearest(rgb, 16);
	if (n16 >= 8) {
		if (is_fg)
			*bold = true;
		return n16 - 8;
	}
	return n16;
}

int theme_resolve_color(const struct theme_color *c, int ncolors, bool is_fg, bool *bold)
{
	bool fits;
	if (ncolors <= 0)
		return -1;
	int idx = resolve(c->kind, c->value, ncolors, is_fg, bold, &fits);
	if (!fits && c->has_fallback) {
		bool b2 = false;
		int fb = resolve(c->fb_kind, c->fb_value, ncolors, is_fg, &b2, &fits);
		*bold = b2;
		return fb;
	}
	return idx;
}

int theme_parse_rule(const char *spec, struct theme_rule *r, struct tp_err *err)
{
	size_t n;
	char **w = str_split(spec, ' ', false, &n);
	int rc = -1;
	memset(r, 0, sizeof(*r));
	if (n < 2) {
		tp_err_set(err, TP_EXIT_USAGE, "expected 'FG BG [ATTR...]', got '%s'", spec);
		goto out;
	}
	if (theme_parse_color(w[0], &r->fg, err) < 0 || theme_parse_color(w[1], &r->bg, err) < 0)
		goto out;
	for (size_t i = 2; i < n; i++) {
		size_t k;
		for (k = 0; k < TP_ARRAY_LEN(attr_names); k++)
			if (strcmp(w[i], attr_names[k].name) == 0)
				break;
		if (k == TP_ARRAY_LEN(attr_names)) {
			tp_err_set(err, TP_EXIT_USAGE,
				   "unknown attribute '%s' (expected normal, bold, dim, underline, "
				   "reverse, standout, italic or blink)", w[i]);
			goto out;
		}
		r->attrs |= attr_names[k].bit;
	}
	r->set = true;
	rc = 0;
out:
	strv_free(w);
	return rc;
}

void theme_init_builtin(struct theme *t)
{
	memset(t, 0, sizeof(*t));
	for (int i = 0; i < LINE__COUNT; i++) {
		struct tp_err e;
		if (theme_parse_rule(line_types[i].builtin, &t->rules[i], &e) < 0)
			tp_die("built-in rule for %s: %s", line_types[i].name, e.msg);
	}
}

int theme_set(struct theme *t, const char *area, const char *spec, struct tp_err *err)
{
	int type = line_type_by_name(area);
	if (type < 0) {
		tp_err_set(err, TP_EXIT_USAGE, "unknown area '%s' (see docs/tui.md for the list)", area);
		return -1;
	}
	struct theme_rule r;
	if (theme_parse_rule(spec, &r, err) < 0)
		return -1;
	t->rules[type] = r;
	return 0;
}

int theme_load_file(struct theme *t, const char *path, struct tp_err *err)
{
	size_t len;
	char *text = read_text_file(path, &len, err);
	if (!text)
		return -1;
	int rc = 0;
	int lineno = 0;
	char *next = text;
	while (next && *next) {
		char *line = next;
		char *nl = strchr(line, '\n');
		next = nl ? nl + 1 : NULL;
		if (nl)
			*nl = '\0';
		lineno++;
		char *s = str_trim(line);
		if (!*s || *s == '#')
			continue;
		char *eq = strchr(s, '=');
		if (!eq) {
			tp_err_set(err, TP_EXIT_USAGE, "%s:%d: expected 'AREA = FG BG [ATTR...]'",
				   path, lineno);
			rc = -1;
			break;
		}
		*eq = '\0';
		char *key = str_trim(s), *val = str_trim(eq + 1);
		struct tp_err e;
		if (strcmp(key, "name") == 0) {
			free(t->name);
			t->name = xstrdup(val);
		} else if (theme_set(t, key, val, &e) < 0) {
			tp_err_set(err, TP_EXIT_USAGE, "%s:%d: %s", path, lineno, e.msg);
			rc = -1;
			break;
		}
	}
	free(text);
	return rc;
}

char *theme_find(const char *name)
{
	if (strchr(name, '/'))
		return access(name, F_OK) == 0 ? xstrdup(name) : NULL; /* loading says what is wrong */
	char *file = xasprintf("%s.theme", name);
	char *found = NULL;
	const char *xdg = getenv("XDG_CONFIG_HOME");
	const char *home = getenv("HOME");
	char *user = xdg && *xdg ? xasprintf("%s/tileport/themes/%s", xdg, file)
		     : home && *home ? xasprintf("%s/.config/tileport/themes/%s", home, file)
				     : NULL;
	if (user && path_is_file(user))
		found = user, user = NULL;
	free(user);
	if (!found) {
		char *data = xasprintf("%s/themes/%s", tp_data_dir(), file);
		if (path_is_file(data))
			found = data;
		else
			free(data);
	}
	free(file);
	return found;
}

int theme_check_name(const char *name, struct tp_err *err)
{
	char *path = theme_find(name);
	free(path);
	/* The default theme may be missing from a bare install; anything
	 * named on purpose must exist. */
	if (path || strcmp(name, "default") == 0)
		return 0;
	tp_err_set(err, TP_EXIT_USAGE,
		   "theme '%s' not found (looked in $XDG_CONFIG_HOME/tileport/themes and %s/themes)", name,
		   tp_data_dir());
	return -1;
}

int theme_load(struct theme *t, const char *name, struct tp_err *err)
{
	theme_init_builtin(t);
	if (!name)
		name = "default";
	t->name = xstrdup(name);
	if (theme_check_name(name, err) < 0)
		return -1;
	char *path = theme_find(name);
	if (!path)
		return 0;
	int rc = theme_load_file(t, path, err);
	free(path);
	return rc;
}

void theme_free(struct theme *t)
{
	free(t->name);
	t->name = NULL;
}

bool theme_no_color_env(void)
{
	const char *nc = getenv("NO_COLOR");
	return nc && *nc;
}

/* ---- curses side ---- */

struct resolved {
	short fg, bg;
	attr_t attrs;
};

static struct resolved resolved[LINE__COUNT];
static unsigned long attr_cache[LINE__COUNT][LINE__COUNT];
static bool attr_cached[LINE__COUNT][LINE__COUNT];
static bool colors_on, default_colors;

static attr_t to_curses_attrs(unsigned a)
{
	attr_t r = A_NORMAL;
	if (a & TA_BOLD)
		r |= A_BOLD;
	if (a & TA_DIM)
		r |= A_DIM;
	if (a & TA_UNDERLINE)
		r |= A_UNDERLINE;
	if (a & TA_REVERSE)
		r |= A_REVERSE;
	if (a & TA_STANDOUT)
		r |= A_STANDOUT;
	if (a & TA_ITALIC)
		r |= A_ITALIC;
	if (a & TA_BLINK)
		r |= A_BLINK;
	return r;
}

void theme_apply(const struct theme *t, bool use_color)
{
	colors_on = use_color && has_colors();
	if (colors_on) {
		start_color();
		default_colors = use_default_colors() == OK;
	}
	int ncolors = colors_on ? COLORS : 0;
	for (int i = 0; i < LINE__COUNT; i++) {
		const struct theme_rule *r = &t->rules[i];
		bool bold = false;
		resolved[i].fg = (short)theme_resolve_color(&r->fg, ncolors, true, &bold);
		bool ignore = false;
		resolved[i].bg = (short)theme_resolve_color(&r->bg, ncolors, false, &ignore);
		resolved[i].attrs = to_curses_attrs(r->attrs) | (bold ? A_BOLD : 0);
	}
	memset(attr_cached, 0, sizeof(attr_cached));
}

static short pair_for(short fg, short bg)
{
	static short pairs[512][2];
	static int npairs;
	if (fg == -1 && bg == -1)
		return 0;
	if (!default_colors) {
		if (fg == -1)
			fg = COLOR_WHITE;
		if (bg == -1)
			bg = COLOR_BLACK;
	}
	for (int i = 0; i < npairs; i++)
		if (pairs[i][0] == fg && pairs[i][1] == bg)
			return (short)(i + 1);
	if (npairs + 1 >= COLOR_PAIRS || npairs >= 511)
		return 0;
	pairs[npairs][0] = fg;
	pairs[npairs][1] = bg;
	npairs++;
	init_pair((short)npairs, fg, bg);
	return (short)npairs;
}

unsigned long theme_attr(enum line_type cell, enum line_type line)
{
	if ((unsigned)cell >= LINE__COUNT)
		cell = LINE_DEFAULT;
	if ((unsigned)line >= LINE__COUNT)
		line = LINE_DEFAULT;
	if (attr_cached[cell][line])
		return attr_cache[cell][line];
	const struct resolved *c = &resolved[cell];
	attr_t a = c->attrs;
	if (colors_on) {
		short bg = c->bg == -1 ? resolved[line].bg : c->bg;
		a |= COLOR_PAIR(pair_for(c->fg, bg));
	}
	attr_cache[cell][line] = a;
	attr_cached[cell][line] = true;
	return a;
}
