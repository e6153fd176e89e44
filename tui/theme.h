/* Themes: a rule (foreground, background, attributes) per line type, read
 * from themes/NAME.theme files over the built-in rules in views/lines.def.
 *
 *   # comment
 *   AREA = FG BG [ATTR...]
 *
 * Colours: default, black red green yellow blue magenta cyan white,
 * bright-black .. bright-white (colours 8-15), colorN (0-255), #rrggbb.
 * "A|B" tries A and falls back to B when the terminal has too few colours;
 * without one the nearest colour is picked (256 -> 16 -> 8). Attributes:
 * normal bold dim underline reverse standout italic blink.
 * NO_COLOR (non-empty) or a terminal without colours drops every colour
 * and uses the monochrome theme's attributes. */
#ifndef TILEPORT_TUI_THEME_H
#define TILEPORT_TUI_THEME_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/base/util.h"
#include "views/view.h"

enum theme_attr_bits {
	TA_BOLD = 1 << 0,
	TA_DIM = 1 << 1,
	TA_UNDERLINE = 1 << 2,
	TA_REVERSE = 1 << 3,
	TA_STANDOUT = 1 << 4,
	TA_ITALIC = 1 << 5,
	TA_BLINK = 1 << 6,
};

enum theme_color_kind { TC_DEFAULT, TC_INDEX, TC_RGB };

struct theme_color {
	uint8_t kind;      /* enum theme_color_kind */
	uint8_t has_fallback;
	uint32_t value;    /* palette index or 0xRRGGBB */
	uint8_t fb_kind;
	uint32_t fb_value;
};

struct theme_rule {
	struct theme_color fg, bg;
	unsigned attrs;
	bool set;
};

struct theme {
	char *name;
	struct theme_rule rules[LINE__COUNT];
};

/* Parse one colour word; returns 0, or -1 with a message in err. */
int theme_parse_color(const char *word, struct theme_color *c, struct tp_err *err);
/* The palette index to use on a terminal with `ncolors` colours (-1 for
 * the terminal default); *bold is set when a bright colour had to become
 * its dim twin plus bold (8-colour terminals). */
int theme_resolve_color(const struct theme_color *c, int ncolors, bool is_fg, bool *bold);
/* Parse "FG BG [ATTR...]". */
int theme_parse_rule(const char *spec, struct theme_rule *r, struct tp_err *err);

/* The built-in rules (views/lines.def). */
void theme_init_builtin(struct theme *t);
/* Apply a theme file over t. Errors name the file and line. */
int theme_load_file(struct theme *t, const char *path, struct tp_err *err);
/* Find NAME: a path if it has a '/', else
 * $XDG_CONFIG_HOME/tileport/themes/NAME.theme, then
 * <data dir>/themes/NAME.theme. Caller frees; NULL when not found. */
char *theme_find(const char *name);
/* 0 when name is a theme that can be loaded (or the built-in default), -1
 * with the message saying where it was looked for. */
int theme_check_name(const char *name, struct tp_err *err);
/* Builtin rules + the named theme (NULL: "default"). */
int theme_load(struct theme *t, const char *name, struct tp_err *err);
/* Set one area from a rule string (config `color.AREA = ...`). */
int theme_set(struct theme *t, const char *area, const char *spec, struct tp_err *err);
void theme_free(struct theme *t);

/* ---- curses side ---- */
/* Turn the rules into curses attributes; call after the screen started.
 * use_color false drops all colours (NO_COLOR, monochrome terminals). */
void theme_apply(const struct theme *t, bool use_color);
/* curses attribute (colour pair included) for a cell of type `cell` on a
 * line of type `line`: a cell with a default background takes the line's. */
unsigned long theme_attr(enum line_type cell, enum line_type line);
/* Whether NO_COLOR asks for no colours. */
bool theme_no_color_env(void);

#endif
