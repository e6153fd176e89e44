/* Generic view behaviour: the generated tables, the line builder,
 * navigation, dirty-row bookkeeping and search. */
#include "views/view.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "views/width.h"

const struct line_type_info line_types[LINE__COUNT] = {
#define LINE(id, name, rule, help) [LINE_##id] = {name, rule, help},
#include "views/lines.def"
#undef LINE
};

int line_type_by_name(const char *name)
{
	for (int i = 0; i < LINE__COUNT; i++)
		if (strcmp(line_types[i].name, name) == 0)
			return i;
	return -1;
}

const struct view_ops *const view_ops_table[VIEW__COUNT] = {
#define VIEW(id, name, keys, help) [VIEW_##id] = &name##_view_ops,
#include "views/views.def"
#undef VIEW
};

const struct request_info requests[REQ__COUNT] = {
	[REQ_NONE] = {"none", "", "", ""},
#define VIEW(id, name, keys, help) [REQ_VIEW_##id] = {"view-" #name, "generic", keys, help},
#include "views/views.def"
#undef VIEW
#define REQ_GROUP(title)
#define REQ(id, name, maps, keys, help) [REQ_##id] = {name, maps, keys, help},
#include "views/requests.def"
#undef REQ
#undef REQ_GROUP
};

/* The help screen's order: group titles (req == REQ_NONE) and actions. */
const struct request_layout request_layout[] = {
	{"View switching", REQ_NONE},
#define VIEW(id, name, keys, help) {NULL, REQ_VIEW_##id},
#include "views/views.def"
#undef VIEW
#define REQ_GROUP(title) {title, REQ_NONE},
#define REQ(id, name, maps, keys, help) {NULL, REQ_##id},
#include "views/requests.def"
#undef REQ
#undef REQ_GROUP
};
const size_t request_layout_len = TP_ARRAY_LEN(request_layout);

enum request request_by_name(const char *name)
{
	for (int i = 1; i < REQ__COUNT; i++)
		if (strcmp(requests[i].name, name) == 0)
			return (enum request)i;
	return REQ_NONE;
}

static void leave_confirmed(struct view *v, const char *answer, void *ud)
{
	if (!v || !answer)
		return;
	if (ud)
		v->host->quit(v->host);
	else
		v->host->close(v->host, v);
}

void view_confirm_leave(struct view *v, const char *question, enum request req)
{
	v->host->confirm(v->host, v, question, leave_confirmed, req == REQ_QUIT ? (void *)1 : NULL);
}

/* ---- line builder ---- */

void lo_init(struct line_out *o)
{
	memset(o, 0, sizeof(*o));
}

void lo_reset(struct line_out *o, enum line_type type)
{
	o->type = type;
	sb_reset(&o->text);
	o->ncells = 0;
}

void lo_free(struct line_out *o)
{
	sb_free(&o->text);
	free(o->cells);
	memset(o, 0, sizeof(*o));
}

static struct cell *new_cell(struct line_out *o, enum line_type type, const char *s, size_t n)
{
	o->cells = xgrow(o->cells, &o->capcells, o->ncells + 1, sizeof(*o->cells));
	struct cell *c = &o->cells[o->ncells++];
	c->off = (uint32_t)o->text.len;
	c->len = (uint32_t)n;
	c->type = (uint16_t)type;
	c->width = 0;
	c->align = ALIGN_LEFT;
	sb_add(&o->text, s, n);
	return c;
}

void lo_add(struct line_out *o, enum line_type type, const char *s, size_t n)
{
	if (n == 0)
		return;
	/* Merge with the previous cell of the same type: fewer cells to draw. */
	if (o->ncells) {
		struct cell *last = &o->cells[o->ncells - 1];
		if (last->type == type && last->width == 0 && last->off + last->len == o->text.len) {
			sb_add(&o->text, s, n);
			last->len += (uint32_t)n;
			return;
		}
	}
	new_cell(o, type, s, n);
}

void lo_adds(struct line_out *o, enum line_type type, const char *s)
{
	lo_add(o, type, s, strlen(s));
}

void lo_addf(struct line_out *o, enum line_type type, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = xvasprintf(fmt, ap);
	va_end(ap);
	lo_adds(o, type, s);
	free(s);
}

void lo_cell(struct line_out *o, enum line_type type, int width, enum cell_align align,
	     const char *s)
{
	struct cell *c = new_cell(o, type, s ? s : "", s ? strlen(s) : 0);
	c->width = (uint16_t)(width > 0 ? width : 1);
	c->align = (uint8_t)align;
}

void lo_col(struct line_out *o, enum line_type type, int width, enum cell_align align,
	    const char *s)
{
	lo_cell(o, type, width, align, s);
	lo_add(o, o->type, " ", 1);
}

/* ---- reports ---- */

static void vreport(struct view *v, bool error, const char *fmt, va_list ap) TP_PRINTF(3, 0);
static void vreport(struct view *v, bool error, const char *fmt, va_list ap)
{
	char *msg = xvasprintf(fmt, ap);
	if (v->host && v->host->report)
		v->host->report(v->host, error, msg);
	free(msg);
}

void view_report(struct view *v, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport(v, false, fmt, ap);
	va_end(ap);
}

void view_error(struct view *v, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport(v, true, fmt, ap);
	va_end(ap);
}

/* ---- dirty rows ---- */

static void mark_row(struct view *v, long row)
{
	if (row >= 0 && row < v->dirty_cap && row < v->height)
		v->dirty[row] = 1;
}

void view_line_dirty(struct view *v, size_t idx)
{
	if (idx >= v->offset && idx < v->offset + (size_t)(v->height > 0 ? v->height : 0))
		mark_row(v, (long)(idx - v->offset));
}

void view_redraw(struct view *v)
{
	v->redraw = true;
	v->title_dirty = true;
}

void view_clamp(struct view *v)
{
	size_t h = v->height > 0 ? (size_t)v->height : 1;
	if (v->nlines == 0) {
		v->lineno = v->offset = 0;
		return;
	}
	if (v->lineno >= v->nlines)
		v->lineno = v->nlines - 1;
	if (v->offset > v->lineno)
		v->offset = v->lineno;
	if (v->lineno >= v->offset + h)
		v->offset = v->lineno - h + 1;
	/* No empty rows at the bottom when the lines could fill them. */
	if (v->nlines >= h && v->offset > v->nlines - h)
		v->offset = v->nlines - h;
}

static void scroll_to(struct view *v, size_t offset)
{
	if (offset != v->offset) {
		v->offset = offset;
		v->redraw = true;
	}
}

void view_select(struct view *v, size_t idx)
{
	if (v->nlines == 0)
		return;
	if (idx >= v->nlines)
		idx = v->nlines - 1;
	size_t h = v->height > 0 ? (size_t)v->height : 1;
	size_t old = v->lineno;
	view_line_dirty(v, old);
	v->lineno = idx;
	if (idx < v->offset)
		scroll_to(v, idx);
	else if (idx >= v->offset + h)
		scroll_to(v, idx - h + 1);
	view_line_dirty(v, idx);
	v->title_dirty = true;
	if (old != idx && v->ops->select)
		v->ops->select(v);
}

void view_set_lines(struct view *v, size_t n)
{
	size_t old = v->nlines;
	v->nlines = n;
	v->title_dirty = true;
	if (n < old) {
		v->redraw = true;
		size_t keep = v->lineno;
		view_clamp(v);
		if (keep != v->lineno && v->ops->select)
			v->ops->select(v);
	} else {
		for (size_t i = old; i < n; i++) {
			if (i >= v->offset + (size_t)(v->height > 0 ? v->height : 0))
				break;
			view_line_dirty(v, i);
		}
	}
	if (v->follow && n > 0 && v->lineno != n - 1)
		view_select(v, n - 1);
	else if (old == 0 && n > 0 && v->ops->select)
		v->ops->select(v);
}

/* Columns of the widest line on the screen, as drawn (cells at their
 * widths). */
static size_t widest_on_screen(struct view *v)
{
	struct line_out lo;
	lo_init(&lo);
	size_t widest = 0;
	for (size_t i = v->offset; i < v->nlines && i < v->offset + (size_t)v->height; i++) {
		view_format(v, i, &lo);
		size_t w = 0;
		for (size_t k = 0; k < lo.ncells; k++)
			w += lo.cells[k].width ? lo.cells[k].width
					       : str_columns(lo.text.buf + lo.cells[k].off, lo.cells[k].len, w);
		widest = w > widest ? w : widest;
	}
	lo_free(&lo);
	return widest;
}

bool view_navigate(struct view *v, enum request req)
{
	size_t h = v->height > 1 ? (size_t)v->height : 1;
	size_t last = v->nlines ? v->nlines - 1 : 0;
	size_t at = v->lineno;
	bool up = false;
	switch (req) {
	case REQ_MOVE_UP:
		at = at ? at - 1 : 0;
		up = true;
		break;
	case REQ_MOVE_DOWN:
		at = at < last ? at + 1 : last;
		break;
	case REQ_MOVE_PAGE_UP:
	case REQ_MOVE_HALF_PAGE_UP: {
		size_t step = req == REQ_MOVE_PAGE_UP ? h : (h + 1) / 2;
		at = at > step ? at - step : 0;
		scroll_to(v, v->offset > step ? v->offset - step : 0);
		up = true;
		break;
	}
	case REQ_MOVE_PAGE_DOWN:
	case REQ_MOVE_HALF_PAGE_DOWN: {
		size_t step = req == REQ_MOVE_PAGE_DOWN ? h : (h + 1) / 2;
		at = at + step < last ? at + step : last;
		size_t maxoff = v->nlines > h ? v->nlines - h : 0;
		scroll_to(v, v->offset + step < maxoff ? v->offset + step : maxoff);
		break;
	}
	case REQ_MOVE_FIRST_LINE:
		at = 0;
		up = true;
		break;
	case REQ_MOVE_LAST_LINE:
		at = last;
		/* Still loading: the end is not there yet; keep going to it. */
		if (v->loading)
			v->follow = true;
		break;
	case REQ_SCROLL_LINE_UP:
		if (v->offset == 0)
			return true;
		scroll_to(v, v->offset - 1);
		if (at >= v->offset + h)
			at = v->offset + h - 1;
		up = true;
		break;
	case REQ_SCROLL_LINE_DOWN:
		if (v->offset + h >= v->nlines)
			return true;
		scroll_to(v, v->offset + 1);
		if (at < v->offset)
			at = v->offset;
		break;
	case REQ_SCROLL_LEFT:
		if (v->col == 0)
			return true;
		v->col = v->col > (size_t)(v->width / 2) ? v->col - (size_t)(v->width / 2) : 0;
		v->redraw = true;
		return true;
	case REQ_SCROLL_RIGHT: {
		/* No further than the end of the longest line in sight: past it
		 * the screen would go blank. */
		size_t widest = widest_on_screen(v);
		size_t last = widest > (size_t)v->width ? widest - (size_t)v->width : 0;
		if (v->col >= last) {
			view_report(v, "At the end of the longest line on the screen");
			return true;
		}
		v->col += (size_t)(v->width > 1 ? v->width / 2 : 1);
		if (v->col > last)
			v->col = last;
		v->redraw = true;
		return true;
	}
	default:
		return false;
	}
	/* Moving up while following pauses: the text stops moving under you. */
	if (up && v->follow && at != last) {
		v->follow = false;
		v->title_dirty = true;
	}
	view_select(v, at);
	return true;
}

/* ---- search ---- */

const char *view_search_in(const struct view_search *s, const char *text, size_t n)
{
	const char *p = s->pattern;
	size_t m = p ? strlen(p) : 0;
	if (m == 0 || m > n)
		return NULL;
	if (!s->ignore_case)
		return memmem(text, n, p, m);
	unsigned char lo = (unsigned char)tolower((unsigned char)p[0]);
	unsigned char hi = (unsigned char)toupper((unsigned char)p[0]);
	const char *end = text + n - m;
	for (const char *q = text; q <= end; q++) {
		unsigned char c = (unsigned char)*q;
		if ((c == lo || c == hi) && strncasecmp(q, p, m) == 0)
			return q;
	}
	return NULL;
}

void view_set_search(struct view *v, const char *pattern)
{
	free(v->search.pattern);
	v->search.pattern = pattern && *pattern ? xstrdup(pattern) : NULL;
	v->search.ignore_case = true;
	for (const char *q = pattern; q && *q; q++)
		if (isupper((unsigned char)*q))
			v->search.ignore_case = false;
	v->redraw = true;
}

void view_format(struct view *v, size_t idx, struct line_out *out)
{
	lo_reset(out, LINE_DEFAULT);
	if (idx < v->nlines)
		v->ops->line(v, idx, out);
}

static ssize_t generic_find(struct view *v, size_t from, bool backward, const struct view_search *s)
{
	struct line_out lo;
	lo_init(&lo);
	ssize_t found = -1;
	size_t n = v->nlines;
	for (size_t k = 0; k < n; k++) {
		size_t i = backward ? (from + n - k) % n : (from + k) % n;
		view_format(v, i, &lo);
		if (view_search_in(s, sb_str(&lo.text), lo.text.len)) {
			found = (ssize_t)i;
			break;
		}
	}
	lo_free(&lo);
	return found;
}

bool view_find(struct view *v, bool backward, bool skip_current)
{
	if (!v->search.pattern) {
		view_error(v, "No search pattern: use / or ?");
		return false;
	}
	if (v->nlines == 0) {
		view_error(v, "No match for '%s'", v->search.pattern);
		return false;
	}
	size_t from = v->lineno;
	if (skip_current)
		from = backward ? (from + v->nlines - 1) % v->nlines : (from + 1) % v->nlines;
	ssize_t at = v->ops->find ? v->ops->find(v, from, backward, &v->search)
				  : generic_find(v, from, backward, &v->search);
	if (at < 0) {
		view_error(v, "No match for '%s'", v->search.pattern);
		return false;
	}
	bool wrapped = backward ? (size_t)at > v->lineno : (size_t)at < v->lineno;
	if (v->follow && (size_t)at != v->nlines - 1)
		v->follow = false;
	view_select(v, (size_t)at);
	/* Put a match far from the cursor in the middle, like less does. */
	size_t h = v->height > 0 ? (size_t)v->height : 1;
	if ((size_t)at >= h / 2 && (v->lineno < v->offset + 2 || v->lineno + 2 >= v->offset + h)) {
		size_t off = (size_t)at - h / 2;
		size_t maxoff = v->nlines > h ? v->nlines - h : 0;
		scroll_to(v, off < maxoff ? off : maxoff);
	}
	view_report(v, "%s '%s': line %zu of %zu%s", backward ? "Search back" : "Search",
		    v->search.pattern, (size_t)at + 1, v->nlines, wrapped ? " (wrapped)" : "");
	return true;
}

/* ---- formatting helpers ---- */

int64_t view_now_ms(void)
{
	const char *f = getenv("TILEPORT_NOW");
	if (f && *f)
		return strtoll(f, NULL, 10);
	return wall_ms();
}

const char *view_spinner(uint64_t n)
{
	static const char *const frames[] = {
		"\xe2\xa0\x8b", "\xe2\xa0\x99", "\xe2\xa0\xb9", "\xe2\xa0\xb8", "\xe2\xa0\xbc",
		"\xe2\xa0\xb4", "\xe2\xa0\xa6", "\xe2\xa0\xa7", "\xe2\xa0\x87", "\xe2\xa0\x8f",
	};
	return frames[n % TP_ARRAY_LEN(frames)];
}
