/* The TUI's state and the operations its modules share: the open views
 * and the two display slots (a view and its lower pane), focus, the status
 * line, the prompt, script mode, and action dispatch. One instance per
 * process (tui_main). */
#ifndef TILEPORT_TUI_APP_H
#define TILEPORT_TUI_APP_H

#include <curses.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "engine/base/loop.h"
#include "tui/config.h"
#include "tui/theme.h"
#include "tui/tui.h"
#include "views/view.h"

struct script;

enum prompt_kind { PROMPT_NONE, PROMPT_COMMAND, PROMPT_SEARCH, PROMPT_SEARCH_BACK, PROMPT_TEXT,
		   PROMPT_CONFIRM };

struct prompt {
	enum prompt_kind kind;
	char *label;
	struct sbuf text;
	view_answer_cb cb;
	struct view *view;
	void *ctx;
};

struct pane {
	WINDOW *body, *title;
	int y, x, rows, cols; /* whole pane, title row included */
	struct view *view;
};

struct app {
	struct loop *loop;
	struct view_host host;
	struct tui_config cfg;
	struct theme theme;
	bool use_color;
	const struct tui_start *start;

	struct view **views; /* every open view, for freeing */
	size_t nviews, capviews;
	struct view *main;   /* the view in the top slot */
	struct view *focus;  /* main or main->lower */
	bool maximized;

	struct pane panes[2];
	WINDOW *status;
	bool vertical;
	bool layout_dirty;
	int last_lines, last_cols;

	char *message;
	bool message_error;
	bool status_dirty;
	struct prompt prompt;

	struct script *script;
	bool input_ready;
	bool external_running;
	bool quit;
	int exit_code;
	int quit_signal;

	int64_t last_tick, last_frame;
	int64_t key_time_us;  /* when the key being answered was read; 0 = none */
	FILE *latency_log;
};

void app_host_init(struct app *a);
void app_free_views(struct app *a);

/* views */
struct view *app_open_view(struct app *a, struct view *from, enum view_id id,
			   const struct view_arg *arg, unsigned flags);
void app_close_view(struct app *a, struct view *v);
void app_focus(struct app *a, struct view *v);
/* Apply an action to the focused view (the view's ops first). */
void app_request(struct app *a, enum request req);
/* A key from the terminal or the script. */
void app_key(struct app *a, int key);
/* Anything loading, streaming or waiting for a program. */
bool app_busy(struct app *a);
bool app_idle_for_script(struct app *a);
/* Let loading views work for about budget_ms; returns true if more remains. */
bool app_pump(struct app *a, int64_t budget_ms);
void app_tick(struct app *a);

/* status line */
void app_report(struct app *a, bool error, const char *fmt, ...) TP_PRINTF(3, 4);

/* screen (tui/screen.c) */
void screen_layout(struct app *a);
/* Draw what is dirty and flush with one doupdate(). Returns true when
 * something was drawn. */
bool screen_draw(struct app *a);
void screen_redraw_all(struct app *a);
void screen_free(struct app *a);
/* Dump the focused view's model: name, size, and per line its type and
 * typed cells. */
int screen_save_view(struct app *a, const char *path, struct tp_err *err);

/* prompt (tui/prompt.c) */
void prompt_open(struct app *a, enum prompt_kind kind, const char *label, view_answer_cb cb,
		 struct view *v, void *ctx);
/* Feed a key to an open prompt; returns false when no prompt is open. */
bool prompt_key(struct app *a, int key);
void prompt_draw(struct app *a);
void prompt_free(struct prompt *p);

/* : commands (tui/command.c) */
int command_run(struct app *a, const char *line, struct tp_err *err);
const struct command_info *command_list(size_t *n);

/* $EDITOR / $PAGER (tui/external.c) */
int external_open(struct app *a, enum external_kind kind, const char *path, long line);

#endif
