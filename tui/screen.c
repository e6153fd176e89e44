/* Layout of the panes and the draw pass: only dirty rows are drawn, every
 * window is staged with wnoutrefresh and the frame goes out with one
 * doupdate(). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/base/files.h"
#include "tui/app.h"
#include "tui/draw.h"
#include "tui/keys.h"
#include "views/width.h"

static WINDOW *separator;
static struct line_out lo; /* reused for every row drawn */

static void free_windows(struct app *a)
{
	for (int i = 0; i < 2; i++) {
		if (a->panes[i].body)
			delwin(a->panes[i].body);
		if (a->panes[i].title)
			delwin(a->panes[i].title);
		memset(&a->panes[i], 0, sizeof(a->panes[i]));
	}
	if (a->status)
		delwin(a->status);
	a->status = NULL;
	if (separator)
		delwin(separator);
	separator = NULL;
}

void screen_free(struct app *a)
{
	free_windows(a);
	lo_free(&lo);
}

static void size_view(struct view *v, int rows, int cols)
{
	int h = rows - (v->ops->header ? 1 : 0) - (v->ops->footer ? 1 : 0);
	if (h < 1)
		h = 1;
	if (h > v->dirty_cap) {
		v->dirty = xrealloc(v->dirty, (size_t)h);
		v->dirty_cap = h;
	}
	bool changed = v->height != h || v->width != cols;
	v->height = h;
	v->width = cols;
	if (changed && v->ops->resize)
		v->ops->resize(v);
	view_clamp(v);
	view_redraw(v);
}

static void place(struct app *a, int i, struct view *v, int y, int x, int rows, int cols)
{
	struct pane *p = &a->panes[i];
	p->y = y, p->x = x, p->rows = rows, p->cols = cols;
	p->view = v;
	int body = rows - 1 > 0 ? rows - 1 : 1;
	p->body = newwin(body, cols, y, x);
	p->title = newwin(1, cols, y + body, x);
	size_view(v, body, cols);
}

void screen_layout(struct app *a)
{
	free_windows(a);
	a->last_lines = LINES;
	a->last_cols = COLS;
	a->layout_dirty = false;
	a->status = newwin(1, COLS, LINES - 1, 0);
	keypad(a->status, TRUE);
	nodelay(a->status, TRUE);
	a->status_dirty = true;
	int rows = LINES - 1;
	if (!a->main || rows < 2)
		return;
	struct view *low = a->maximized ? NULL : a->main->lower;
	if (low && rows < 7 && COLS < 40)
		low = NULL;
	if (!low) {
		place(a, 0, a->main, 0, 0, rows, COLS);
		if (a->main->lower) {
			/* Hidden lower pane: keep its geometry sane for its model. */
			a->main->lower->height = a->main->lower->height > 0 ? a->main->lower->height : 1;
		}
		return;
	}
	a->vertical = a->cfg.layout == LAYOUT_VERTICAL ||
		      (a->cfg.layout == LAYOUT_AUTO && COLS >= 200);
	if (a->vertical && COLS >= 41) {
		int lc = COLS * a->cfg.split_size / 100;
		int want = low->ops->want_cols ? low->ops->want_cols(low, COLS) : 0;
		if (want > 0 && want < lc)
			lc = want;
		if (lc < 20)
			lc = 20;
		int mc = COLS - lc - 1;
		place(a, 0, a->main, 0, 0, rows, mc);
		place(a, 1, low, 0, mc + 1, rows, lc);
		separator = newwin(rows, 1, 0, mc);
	} else {
		a->vertical = false;
		int lr = rows * a->cfg.split_size / 100;
		/* a pane with less to show than its share takes only what it needs
		 * (its rows and its title) */
		int want = low->ops->want_rows ? low->ops->want_rows(low) : 0;
		if (want > 0 && want + 1 < lr)
			lr = want + 1;
		if (lr < 3)
			lr = 3;
		if (rows - lr < 3)
			lr = rows - 3 > 2 ? rows - 3 : 2;
		place(a, 0, a->main, 0, 0, rows - lr, COLS);
		place(a, 1, low, rows - lr, 0, lr, COLS);
	}
}

void screen_redraw_all(struct app *a)
{
	clearok(curscr, TRUE);
	a->layout_dirty = true;
}

static void format_title(struct app *a, struct view *v, struct sbuf *left, struct sbuf *right)
{
	sb_printf(left, "[%s]", v->ops->type);
	if (v->ref && *v->ref)
		sb_printf(left, " %s", v->ref);
	if (v->ops->title) {
		struct sbuf t = SBUF_INIT;
		v->ops->title(v, &t);
		if (t.len)
			sb_printf(left, " - %s", sb_str(&t));
		sb_free(&t);
	}
	if (v->loading)
		sb_adds(right, "loading... ");
	if (v->follow)
		sb_adds(right, "[follow] ");
	const char *mode = v->ops->mode ? v->ops->mode(v) : NULL;
	if (mode)
		sb_printf(right, "[%s] ", mode);
	if (v->nlines) {
		size_t pct = v->nlines ? (v->lineno + 1) * 100 / v->nlines : 0;
		sb_printf(right, "line %zu/%zu %3zu%%", v->lineno + 1, v->nlines, pct);
	} else {
		sb_adds(right, "empty");
	}
	(void)a;
}

static void draw_title(struct app *a, struct pane *p, bool focused)
{
	struct view *v = p->view;
	struct sbuf left = SBUF_INIT, right = SBUF_INIT;
	format_title(a, v, &left, &right);
	enum line_type t = focused ? LINE_TITLE_FOCUS : LINE_TITLE_BLUR;
	struct sbuf badge = SBUF_INIT;
	enum line_type bt = v->ops->badge ? v->ops->badge(v, &badge) : LINE_DEFAULT;
	struct line_out lo;
	lo_init(&lo);
	lo_reset(&lo, t);
	size_t rw = str_columns(sb_str(&right), right.len, 0);
	size_t bw = badge.len ? str_columns(badge.buf, badge.len, 0) + 3 : 0;
	size_t lcols = str_columns(sb_str(&left), left.len, 0);
	int lw = p->cols - (int)rw - (int)bw - 1;
	if (lw < 1) {
		lo_adds(&lo, t, sb_str(&left));
	} else {
		/* The badge follows the title text, the position stays right. */
		int cut = lcols < (size_t)lw ? (int)lcols : lw;
		lo_cell(&lo, t, cut, ALIGN_LEFT, sb_str(&left));
		if (badge.len) {
			lo_adds(&lo, t, " ");
			lo_addf(&lo, bt, " %s ", sb_str(&badge));
		}
		lo_cell(&lo, t, lw - cut + 1, ALIGN_LEFT, "");
		lo_adds(&lo, t, sb_str(&right));
	}
	sb_free(&badge);
	draw_line(p->title, 0, 0, p->cols, &lo, NULL);
	lo_free(&lo);
	sb_free(&left);
	sb_free(&right);
	wnoutrefresh(p->title);
}

static bool draw_pane(struct app *a, struct pane *p)
{
	struct view *v = p->view;
	bool focused = a->focus == v;
	bool drew = false;
	int top = v->ops->header ? 1 : 0;
	if (v->redraw) {
		for (int r = 0; r < v->height && r < v->dirty_cap; r++)
			v->dirty[r] = 1;
		if (top) {
			lo_reset(&lo, LINE_HEADER);
			if (!v->ops->header(v, &lo))
				lo_reset(&lo, LINE_DEFAULT);
			draw_line(p->body, 0, 0, p->cols, &lo, NULL);
		}
		if (v->ops->footer) {
			lo_reset(&lo, LINE_DEFAULT);
			if (!v->ops->footer(v, &lo))
				lo_reset(&lo, LINE_DEFAULT);
			draw_line(p->body, top + v->height, 0, p->cols, &lo, NULL);
		}
	}
	char prefix[48];
	int digits = 1; /* at most 20: size_t has that many */
	for (size_t n = v->nlines; n >= 10; n /= 10)
		digits++;
	for (int r = 0; r < v->height && r < v->dirty_cap; r++) {
		if (!v->dirty[r])
			continue;
		v->dirty[r] = 0;
		drew = true;
		size_t idx = v->offset + (size_t)r;
		struct draw_opts o = {.hscroll = v->col, .cursor = -1, .search = &v->search};
		if (idx < v->nlines) {
			view_format(v, idx, &lo);
			if (idx == v->lineno)
				o.cursor = focused ? LINE_CURSOR : LINE_CURSOR_BLUR;
			if (v->line_numbers) {
				snprintf(prefix, sizeof(prefix), "%*zu ", digits & 31, idx + 1);
				o.prefix = prefix;
				o.prefix_type = LINE_LINE_NUMBER;
			}
		} else {
			lo_reset(&lo, LINE_DEFAULT);
		}
		draw_line(p->body, r + top, 0, p->cols, &lo, &o);
	}
	if (drew || v->redraw)
		wnoutrefresh(p->body);
	if (v->title_dirty || v->redraw) {
		draw_title(a, p, focused);
		drew = true;
	}
	v->redraw = false;
	v->title_dirty = false;
	return drew;
}

/* The status line with nothing to say shows the focused view's own keys:
 * generated from its keymap, so it cannot drift from the bindings. */
static void key_hints(struct app *a, struct sbuf *out)
{
	struct view *v = a->focus;
	if (!v)
		return;
	int keys[4];
	char name[32];
	if (keys_bound(KEYMAP_GENERIC, REQ_VIEW_HELP, keys, 1)) {
		key_label(keys[0], name, sizeof(name));
		sb_printf(out, "%s help", name);
	}
	for (int r = 1; r < REQ__COUNT && out->len < (size_t)COLS; r++) {
		if (!keys_bound((int)v->id, (enum request)r, keys, 1) ||
		    (v->ops->offers && !v->ops->offers(v, (enum request)r)))
			continue;
		key_label(keys[0], name, sizeof(name));
		sb_printf(out, "  %s %s", name, requests[r].name);
	}
}

bool screen_draw(struct app *a)
{
	if (a->layout_dirty || a->last_lines != LINES || a->last_cols != COLS)
		screen_layout(a);
	bool drew = false;
	for (int i = 0; i < 2; i++)
		if (a->panes[i].view && a->panes[i].body)
			drew |= draw_pane(a, &a->panes[i]);
	if (separator) {
		for (int r = 0; r < getmaxy(separator); r++)
			mvwaddch(separator, r, 0, ACS_VLINE);
		wnoutrefresh(separator);
		/* Draw it once per layout. */
		delwin(separator);
		separator = NULL;
		drew = true;
	}
	if (a->status && (a->status_dirty || a->prompt.kind != PROMPT_NONE)) {
		if (a->prompt.kind != PROMPT_NONE) {
			prompt_draw(a);
		} else {
			curs_set(0);
			if (a->message) {
				draw_text(a->status, 0, 0, COLS, a->message_error ? LINE_STATUS_ERROR
										 : LINE_STATUS,
					  a->message);
			} else {
				struct sbuf h = SBUF_INIT;
				key_hints(a, &h);
				draw_text(a->status, 0, 0, COLS, LINE_DIM, sb_str(&h));
				sb_free(&h);
			}
		}
		wnoutrefresh(a->status);
		a->status_dirty = false;
		drew = true;
	}
	if (drew)
		doupdate();
	return drew;
}

/* One line's cells with their types, as :save-view writes them. */
static void dump_cells(struct sbuf *out, const struct line_out *l)
{
	for (size_t c = 0; c < l->ncells; c++)
		sb_printf(out, " [%s %.*s]", line_types[l->cells[c].type].name, (int)l->cells[c].len,
			  l->text.buf + l->cells[c].off);
	sb_addc(out, '\n');
}

int screen_save_view(struct app *a, const char *path, struct tp_err *err)
{
	struct view *v = a->focus;
	if (!v) {
		tp_err_set(err, TP_EXIT_USAGE, "no view");
		return -1;
	}
	struct sbuf out = SBUF_INIT;
	sb_printf(&out, "view %s\nsize %dx%d\nlines %zu\noffset %zu\nselected %zu\n", v->ops->type,
		  v->width, v->height, v->nlines, v->offset, v->lineno);
	if (v->ops->header) {
		lo_reset(&lo, LINE_HEADER);
		if (v->ops->header(v, &lo)) {
			sb_printf(&out, "header %s:", line_types[lo.type].name);
			dump_cells(&out, &lo);
		}
	}
	if (v->ops->footer) {
		lo_reset(&lo, LINE_DEFAULT);
		if (v->ops->footer(v, &lo)) {
			sb_printf(&out, "footer %s:", line_types[lo.type].name);
			dump_cells(&out, &lo);
		}
	}
	for (size_t i = 0; i < v->nlines; i++) {
		view_format(v, i, &lo);
		sb_printf(&out, "%zu %s:", i + 1, line_types[lo.type].name);
		dump_cells(&out, &lo);
	}
	int rc = write_output(path, out.buf, out.len, err);
	sb_free(&out);
	return rc;
}
