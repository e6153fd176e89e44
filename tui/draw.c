#include "tui/draw.h"

#include <string.h>
#include <wchar.h>

#include "tui/theme.h"
#include "views/width.h"

/* One row being drawn: where we are on screen and in the scrolled text. */
struct pen {
	WINDOW *w;
	int row, x0, width;
	size_t vcol;      /* column in the unscrolled line */
	size_t skip;      /* columns hidden on the left */
	int col;          /* columns drawn so far */
	bool cut;         /* text was left out at the right edge */
	enum line_type line;
	int cursor;
	/* search matches as byte ranges of the line text */
	const size_t *mstart, *mend;
	size_t nmatch;
};

static unsigned long attr_for(const struct pen *p, enum line_type type, long src)
{
	if (p->cursor >= 0)
		type = (enum line_type)p->cursor;
	unsigned long a = theme_attr(type, p->cursor >= 0 ? (enum line_type)p->cursor : p->line);
	if (src >= 0) {
		for (size_t i = 0; i < p->nmatch; i++)
			if ((size_t)src >= p->mstart[i] && (size_t)src < p->mend[i])
				return theme_attr(LINE_SEARCH_MATCH, p->line);
	}
	return a;
}

static void put_wc(struct pen *p, wchar_t wc, unsigned long attr)
{
	cchar_t cc;
	wchar_t ws[2] = {wc, 0};
	setcchar(&cc, ws, (attr_t)(attr & ~A_COLOR), (short)PAIR_NUMBER(attr), NULL);
	mvwadd_wch(p->w, p->row, p->x0 + p->col, &cc);
}

/* Text beyond the right edge: the line is marked as cut unless only blanks
 * were left out. */
static void left_out(struct pen *p, const char *s, size_t n)
{
	for (size_t i = 0; i < n && !p->cut; i++)
		p->cut = s[i] != ' ' && s[i] != '\t';
}

/* Put one character of `cols` columns (after tab expansion). */
static void put(struct pen *p, wchar_t wc, int cols, enum line_type type, long src)
{
	if (p->col >= p->width) {
		p->cut |= wc != L' ' && wc != L'\t';
		return;
	}
	unsigned long attr = attr_for(p, type, src);
	size_t start = p->vcol;
	p->vcol += (size_t)cols;
	if (p->vcol <= p->skip)
		return;
	if (start < p->skip) {
		/* A wide character or tab cut by the left edge: blanks. */
		for (size_t k = p->skip; k < p->vcol && p->col < p->width; k++, p->col++)
			put_wc(p, L' ', attr);
		return;
	}
	if (wc == L'\t' || cols == 0 || p->col + cols > p->width) {
		p->cut |= wc != L'\t' && cols > 0;
		for (int k = 0; k < cols && p->col < p->width; k++, p->col++)
			put_wc(p, L' ', attr);
		return;
	}
	put_wc(p, wc, attr);
	p->col += cols;
}

static void put_text(struct pen *p, const char *s, size_t n, enum line_type type, long base)
{
	for (size_t i = 0; i < n; ) {
		if (p->col >= p->width) {
			left_out(p, s + i, n - i);
			return;
		}
		wchar_t wc;
		size_t len = utf8_next(s + i, n - i, &wc);
		int cols;
		if (wc == L'\t') {
			cols = (int)(TAB_SIZE - p->vcol % TAB_SIZE);
		} else if (wc < 0x20 || wc == 0x7f || wcwidth(wc) < 0) {
			wc = L'?';
			cols = 1;
		} else {
			cols = wc_columns(wc);
			if (cols == 0) {
				/* Combining mark: attach nothing rather than misplace it. */
				i += len;
				continue;
			}
		}
		put(p, wc, cols, type, base >= 0 ? base + (long)i : -1);
		i += len;
	}
}

static void put_column(struct pen *p, const struct line_out *lo, const struct cell *c)
{
	const char *s = lo->text.buf + c->off;
	size_t cols = str_columns(s, c->len, 0);
	size_t width = c->width;
	if (cols > width && c->align == ALIGN_TAIL) {
		size_t over;
		size_t skip = str_skip(s, c->len, cols - (width - 1), &over);
		put(p, L'~', 1, LINE_DELIMITER, -1);
		for (; over; over--)
			put(p, L' ', 1, c->type, -1);
		put_text(p, s + skip, c->len - skip, c->type, c->off + (long)skip);
		return;
	}
	if (cols > width) {
		size_t used;
		size_t fit = str_fit(s, c->len, width - 1, 0, &used);
		put_text(p, s, fit, c->type, c->off);
		for (; used < width - 1; used++)
			put(p, L' ', 1, c->type, -1);
		put(p, L'~', 1, LINE_DELIMITER, -1);
		return;
	}
	size_t pad = width - cols;
	if (c->align == ALIGN_RIGHT)
		for (size_t k = 0; k < pad; k++)
			put(p, L' ', 1, c->type, -1);
	put_text(p, s, c->len, c->type, c->off);
	if (c->align != ALIGN_RIGHT)
		for (size_t k = 0; k < pad; k++)
			put(p, L' ', 1, c->type, -1);
}

#define MAX_MATCHES 64

void draw_line(WINDOW *w, int row, int x, int width, const struct line_out *lo,
	       const struct draw_opts *o)
{
	size_t ms[MAX_MATCHES], me[MAX_MATCHES];
	struct pen p = {
		.w = w, .row = row, .x0 = x, .width = width, .line = lo->type,
		.cursor = o ? o->cursor : -1, .mstart = ms, .mend = me,
	};
	if (o && o->search && o->search->pattern && lo->text.len) {
		const char *t = lo->text.buf;
		size_t n = lo->text.len, plen = strlen(o->search->pattern);
		for (size_t at = 0; p.nmatch < MAX_MATCHES && at < n;) {
			const char *m = view_search_in(o->search, t + at, n - at);
			if (!m)
				break;
			ms[p.nmatch] = (size_t)(m - t);
			me[p.nmatch] = ms[p.nmatch] + plen;
			at = me[p.nmatch++];
		}
	}
	if (o && o->prefix) {
		put_text(&p, o->prefix, strlen(o->prefix), o->prefix_type, -1);
		/* The prefix does not scroll: restart the scrolled part after it. */
		p.x0 += p.col;
		p.width -= p.col;
		p.col = 0;
		p.vcol = 0;
	}
	p.skip = o ? o->hscroll : 0;
	for (size_t i = 0; i < lo->ncells; i++) {
		const struct cell *c = &lo->cells[i];
		if (p.col >= p.width)
			left_out(&p, lo->text.buf + c->off, c->len);
		else if (c->width)
			put_column(&p, lo, c);
		else
			put_text(&p, lo->text.buf + c->off, c->len, c->type, c->off);
	}
	unsigned long fill = attr_for(&p, lo->type, -1);
	while (p.col < p.width) {
		put_wc(&p, L' ', fill);
		p.col++;
	}
	if (p.cut && p.width > 0) {
		p.col = p.width - 1;
		put_wc(&p, L'~', attr_for(&p, LINE_DELIMITER, -1));
	}
}

void draw_text(WINDOW *w, int row, int x, int width, enum line_type type, const char *s)
{
	struct line_out lo;
	lo_init(&lo);
	lo_reset(&lo, type);
	lo_adds(&lo, type, s);
	draw_line(w, row, x, width, &lo, NULL);
	lo_free(&lo);
}
