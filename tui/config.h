/* The TUI's settings, read from $XDG_CONFIG_HOME/tileport/config (or
 * ~/.config/tileport/config) and then .tileport.conf in the workspace.
 * Lines are `key = value`, `bind KEYMAP KEY ACTION`, `[section]` and
 * `# comments`. Top-level lines and the [tui] section are read here; other
 * sections belong to the engine. In [tui] an unknown key is an error; at
 * top level keys that are not the TUI's are left to the engine.
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

#include "engine/core/util.h"

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

void config_init(struct tui_config *c);
void config_free(struct tui_config *c);
/* Both files, in order; missing files are fine. Bindings go straight into
 * the keymaps (keys_init first). */
int config_load(struct tui_config *c, const char *workspace, struct tp_err *err);
int config_load_file(struct tui_config *c, const char *path, struct tp_err *err);
/* One setting, as from a file or the :set command. */
int config_set(struct tui_config *c, const char *key, const char *value, struct tp_err *err);
/* One line of config syntax ("bind ...", "key = value"); `where` prefixes
 * error messages (file:line). strict: unknown keys are errors. */
int config_line(struct tui_config *c, const char *line, bool strict, const char *where,
		struct tp_err *err);
/* The user config file path (whether or not it exists); caller frees. */
char *config_user_path(void);

#endif
