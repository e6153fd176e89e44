/* Drawing typed lines into curses windows: cells in their theme colours,
 * fixed-width columns padded or cut with a ~ marker, tabs expanded,
 * control characters and bad UTF-8 shown as one column each, horizontal
 * scroll in columns, search matches highlighted. */
#ifndef TILEPORT_TUI_DRAW_H
#define TILEPORT_TUI_DRAW_H

#include <curses.h>

#include "views/view.h"

struct draw_opts {
	size_t hscroll;                    /* columns to skip */
	int cursor;                        /* LINE_CURSOR/LINE_CURSOR_BLUR, or -1 */
	const struct view_search *search;  /* highlight matches, or NULL */
	const char *prefix;                /* drawn first, not scrolled (line numbers) */
	enum line_type prefix_type;
};

/* Draw lo on row `row` of w, `width` columns from column `x`, and clear
 * the rest of those columns in the line's colour. */
void draw_line(WINDOW *w, int row, int x, int width, const struct line_out *lo,
	       const struct draw_opts *o);
/* Plain text in one type, cut to width (title bars, status line). */
void draw_text(WINDOW *w, int row, int x, int width, enum line_type type, const char *s);

#endif
