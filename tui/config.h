/* The TUI's settings, from the config files the session read
 * (engine/core/session.h: $XDG_CONFIG_HOME/tileport/config, then
 * .tileport.conf in the workspace; `key = value`, `[section]`, directives).
 * The TUI takes its keys at top level or in a [tui] section, and every
 * `bind KEYMAP KEY ACTION` directive. In [tui] an unknown key is an error
 * (file:line); other top-level keys belong to the engine. The session
 * checks every entry through tui_setting_check (tui/tui.h) before the
 * screen starts.
 *
 *   theme = default | light | high-contrast | monochrome | PATH
 *   layout = auto | horizontal | vertical     (how the lower pane splits)
 *   split-size = 40                           (lower pane, percent)
 *   line-numbers = yes | no
 *   follow = yes | no                         (live panes follow output)
 *   color.AREA = FG BG [ATTR...]              (one theme rule)
 *   bind KEYMAP KEY ACTION                    (ACTION none unbinds) */
#ifndef TILEPORT_TUI_CONFIG_H
#define TILEPORT_TUI_CONFIG_H

#include <stdbool.h>

#include "engine/base/config.h"
#include "engine/base/util.h"

enum tui_layout { LAYOUT_AUTO, LAYOUT_HORIZONTAL, LAYOUT_VERTICAL };

struct color_override {
	char *area, *spec;
};

struct tui_config {
	char *theme;
	enum tui_layout layout;
	int split_size;  /* percent of the screen for the lower pane */
	bool line_numbers;
	bool follow;
	struct color_override *colors;
	size_t ncolors, capcolors;
};

void tui_config_init(struct tui_config *c);
void tui_config_free(struct tui_config *c);
/* Take the screen's settings from the entries of the config files, in
 * order. Bindings go straight into the keymaps (keys_init first). */
int tui_config_apply(struct tui_config *c, const struct config *cfg, struct tp_err *err);
/* One setting, as from a file or the :set command. */
int tui_config_set(struct tui_config *c, const char *key, const char *value, struct tp_err *err);
/* A `bind KEYMAP KEY ACTION` line; `where` prefixes errors (file:line). */
int tui_config_bind(const char *line, const char *where, struct tp_err *err);

#endif
