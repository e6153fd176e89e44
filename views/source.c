/* The source view: the reference Python kernel beside its cuTile Rust,
 * lines that correspond lit together. The correspondence is the semantic
 * check of engine/sem: a line of the Python paired with the Rust line
 * that computes the same value (a load, a reduction, an mma, a store...).
 * The cursor moves in one side (Tab changes side) and the other follows:
 * the Rust line of the value under the cursor stands on the cursor row,
 * the others of the same value are lit, and between them both sides
 * scroll together. Lines where the check found something are marked C
 * (computes something different), W (a hint differs) or I (a note: the
 * same computation spelled otherwise, and why); ] and [ go from one to
 * the next, Enter says what it is — for a C, the two values.
 *
 * Opened on a .py and its kernel.rs (`tileport open KERNEL.py KERNEL.rs`,
 * view_arg path and path2), on a .py alone (path2 NULL: the translation
 * is made in memory, `tileport translate --tui`), on a run's stage B
 * (view_arg run: the workspace's source and the run's kernel.rs), and on
 * a changeset's texts (view_arg model, struct src_texts: the reference in
 * the parent tree, the commit's kernel.rs). Nothing is written. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/core/session.h"
#include "views/source_int.h"
#include "views/width.h"

#define MAX_LIT 32

struct srcv {
	struct src_doc doc;
	char *py_arg, *rs_arg; /* for reload: the files, or with texts the names shown */
	bool texts;            /* the sides are texts in memory (struct src_texts) */
	char *py_text, *rs_text, *ffi_text;
	int side;              /* the side the cursor is in */
	size_t cur[2];         /* each side's cursor line (0-based) */
	size_t other;          /* the other side's line on the cursor row */
	uint32_t entry;        /* the Rust entry followed */
	uint32_t lit[MAX_LIT]; /* other-side lines (1-based) of the op under the cursor */
	size_t nlit;
	size_t hcol;
	int lnw;
};

/* ---- following ---- */

static uint32_t entry_of_rust_line(const struct src_doc *d, uint32_t line, uint32_t keep)
{
	long best = -1;
	for (size_t e = 0; e < d->nentries; e++) {
		if (!d->entry_first[e])
			continue;
		if (line >= d->entry_first[e] && line <= d->entry_last[e])
			return (uint32_t)e;
		if (d->entry_first[e] <= line && (best < 0 || d->entry_first[e] > d->entry_first[best]))
			best = (long)e;
	}
	return best >= 0 ? (uint32_t)best : keep;
}

/* A Python line inside one variant only (a branch on a Constant)
 * follows that variant's entry: the entry with an op nearest at or
 * before the line; on a tie the entry followed stays. */
static uint32_t entry_of_python_line(const struct src_doc *d, uint32_t line, uint32_t keep)
{
	uint32_t best = keep, best_line = 0, keep_line = 0;
	for (size_t i = 0; i < d->nlinks; i++) {
		const struct src_link *l = &d->links[i];
		uint32_t pl = l->line[SIDE_PY];
		if (pl > line)
			continue;
		if (l->entry == keep && pl > keep_line)
			keep_line = pl;
		if (pl > best_line) {
			best_line = pl;
			best = l->entry;
		}
	}
	return keep_line == best_line ? keep : best;
}

/* Is link a better anchor than b for a cursor on side s: the one nearest
 * at or before the cursor (before: at or after), first in the other side. */
static bool nearer(const struct src_link *a, const struct src_link *b, int s, bool before)
{
	if (!b)
		return true;
	if (a->line[s] != b->line[s])
		return before ? a->line[s] > b->line[s] : a->line[s] < b->line[s];
	return a->line[1 - s] < b->line[1 - s];
}

static void follow(struct srcv *x)
{
	struct src_doc *d = &x->doc;
	int s = x->side, o = 1 - s;
	uint32_t at = (uint32_t)x->cur[s] + 1;
	if (s == SIDE_RS)
		x->entry = entry_of_rust_line(d, at, x->entry);
	else
		x->entry = entry_of_python_line(d, at, x->entry);
	const struct src_link *a = NULL, *b = NULL;
	for (size_t i = 0; i < d->nlinks; i++) {
		const struct src_link *l = &d->links[i];
		if (l->entry != x->entry)
			continue;
		if (l->line[s] <= at && nearer(l, a, s, true))
			a = l;
		else if (l->line[s] > at && nearer(l, b, s, false))
			b = l;
	}
	long other;
	if (a) {
		other = (long)a->line[o] - 1 + (long)(at - a->line[s]);
		/* stop short of the next op's line until the cursor gets there */
		if (b && b->line[o] > a->line[o] && other > (long)b->line[o] - 2)
			other = (long)b->line[o] - 2;
	} else if (b) {
		other = (long)b->line[o] - 1 - (long)(b->line[s] - at);
	} else {
		other = (long)at - 1;
	}
	size_t n = d->f[o].n;
	x->other = other < 0 ? 0 : (size_t)other >= n ? (n ? n - 1 : 0) : (size_t)other;
	x->nlit = 0;
	const struct src_link *anchor = a && a->line[s] == at ? a : NULL;
	for (size_t i = 0; anchor && i < d->nlinks && x->nlit < MAX_LIT; i++) {
		const struct src_link *l = &d->links[i];
		if (l->entry == x->entry && l->line[s] == at)
			x->lit[x->nlit++] = l->line[o];
	}
}

static bool is_lit(const struct srcv *x, size_t line0)
{
	for (size_t i = 0; i < x->nlit; i++)
		if (x->lit[i] == line0 + 1)
			return true;
	return false;
}

/* ---- lines ---- */

struct geom {
	int side_w, tw;
};

static struct geom geom_of(const struct srcv *x, int width)
{
	struct geom g;
	int w = width > 0 ? width : 80;
	g.side_w = (w - 3) / 2; /* " │ " between the sides */
	g.tw = g.side_w - x->lnw - 3; /* "M NUM " before the text */
	if (g.tw < 1)
		g.tw = 1;
	return g;
}

static enum line_type mark_type(uint8_t m)
{
	switch (m) {
	case MARK_CRITICAL: return LINE_FINDING_CRITICAL;
	case MARK_WARN: return LINE_FINDING_WARN;
	case MARK_INFO: return LINE_FINDING_INFO;
	default: return LINE_DEFAULT;
	}
}

/* A line's text from column hcol, tabs expanded, in a tw-column cell. */
static void text_cell(struct line_out *o, enum line_type t, const char *s, size_t n,
		      size_t hcol, int tw)
{
	struct sbuf sb = SBUF_INIT;
	size_t col = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\t') {
			do
				sb_addc(&sb, ' ');
			while (++col % TAB_SIZE);
		} else {
			sb_addc(&sb, s[i]);
			col++;
		}
	}
	size_t over = 0;
	size_t skip = str_skip(sb_str(&sb), sb.len, hcol, &over);
	struct sbuf cut = SBUF_INIT;
	for (size_t k = 0; k < over; k++)
		sb_addc(&cut, ' ');
	sb_add(&cut, sb_str(&sb) + skip, sb.len - skip);
	lo_cell(o, t, tw, ALIGN_LEFT, sb_str(&cut));
	sb_free(&cut);
	sb_free(&sb);
}

static void side_cells(struct srcv *x, struct line_out *o, const struct geom *g, int side,
		       long line)
{
	const struct src_file *f = &x->doc.f[side];
	if (line < 0 || (size_t)line >= f->n) {
		lo_cell(o, LINE_DEFAULT, g->side_w, ALIGN_LEFT, "");
		return;
	}
	static const char *const letters[] = {"C", "W", "I", " "};
	uint8_t m = f->mark[line];
	lo_cell(o, mark_type(m), 1, ALIGN_LEFT, letters[m]);
	lo_add(o, LINE_DEFAULT, " ", 1);
	char num[24];
	snprintf(num, sizeof(num), "%ld", line + 1);
	lo_cell(o, LINE_LINE_NUMBER, x->lnw, ALIGN_RIGHT, num);
	lo_add(o, LINE_DEFAULT, " ", 1);
	size_t n;
	const char *s = src_line(f, (size_t)line, &n);
	bool lit = side != x->side && is_lit(x, (size_t)line);
	text_cell(o, lit ? LINE_SOURCE_MATCH : LINE_DEFAULT, s, n, x->hcol, g->tw);
}

static void src_line_out(struct view *v, size_t idx, struct line_out *out)
{
	struct srcv *x = v->priv;
	struct geom g = geom_of(x, v->width);
	lo_reset(out, LINE_DEFAULT);
	long mine = (long)idx;
	long theirs = (long)idx - (long)x->cur[x->side] + (long)x->other;
	side_cells(x, out, &g, SIDE_PY, x->side == SIDE_PY ? mine : theirs);
	lo_add(out, LINE_DELIMITER, " \xe2\x94\x82 ", 5);
	side_cells(x, out, &g, SIDE_RS, x->side == SIDE_RS ? mine : theirs);
}

static bool src_header(struct view *v, struct line_out *out)
{
	struct srcv *x = v->priv;
	struct geom g = geom_of(x, v->width);
	lo_reset(out, LINE_HEADER);
	for (int s = 0; s < 2; s++) {
		if (s)
			lo_add(out, LINE_DELIMITER, " \xe2\x94\x82 ", 5);
		enum line_type t = s == x->side ? LINE_HEADER : LINE_DIM;
		lo_cell(out, t, 2 + x->lnw + 1, ALIGN_LEFT, s == x->side ? "\xe2\x96\xb6" : "");
		lo_cell(out, t, g.tw, ALIGN_LEFT, x->doc.f[s].shown);
	}
	return true;
}

static void src_title(struct view *v, struct sbuf *out)
{
	struct srcv *x = v->priv;
	const struct src_doc *d = &x->doc;
	sb_adds(out, x->side == SIDE_PY ? "python" : "rust");
	if (d->nentries > 1 && x->entry < d->sem.nentries)
		sb_printf(out, ", %s", *d->sem.entries[x->entry].rust ? d->sem.entries[x->entry].rust : "(no entry)");
	if (d->have_sem)
		sb_printf(out, ", %s", sem_verdict(&d->sem));
	else
		sb_adds(out, ", no check");
	if (x->hcol)
		sb_printf(out, " +%zu", x->hcol);
}

/* ---- actions ---- */

static void say_notes(struct view *v, int side, size_t line0, bool quiet)
{
	struct srcv *x = v->priv;
	const struct src_doc *d = &x->doc;
	struct sbuf sb = SBUF_INIT;
	size_t n = 0;
	for (size_t i = 0; i < d->nnotes; i++) {
		const struct src_note *nt = &d->notes[i];
		if (nt->side != side || nt->line != line0 + 1)
			continue;
		if (n++)
			sb_adds(&sb, "; ");
		sb_adds(&sb, nt->text);
	}
	if (n)
		view_report(v, "%s", sb_str(&sb));
	else if (!quiet)
		view_report(v, "The check has nothing to say about this line");
	sb_free(&sb);
}

static void set_side(struct view *v, int side)
{
	struct srcv *x = v->priv;
	if (side == x->side)
		return;
	if (!x->doc.f[side].n) {
		view_report(v, "Nothing on the %s side", side == SIDE_PY ? "Python" : "Rust");
		return;
	}
	size_t row = v->lineno >= v->offset ? v->lineno - v->offset : 0;
	x->cur[x->side] = v->lineno;
	x->cur[side] = x->other;
	x->side = side;
	view_set_lines(v, x->doc.f[side].n);
	v->lineno = x->cur[side];
	v->offset = v->lineno > row ? v->lineno - row : 0;
	view_clamp(v);
	follow(x);
	view_redraw(v);
}

static void next_mark(struct view *v, bool backward)
{
	struct srcv *x = v->priv;
	const struct src_file *f = &x->doc.f[x->side];
	for (size_t k = 1; k < f->n; k++) {
		size_t i = backward ? (v->lineno + f->n - k) % f->n : (v->lineno + k) % f->n;
		if (f->mark[i] != MARK_NONE) {
			view_select(v, i);
			say_notes(v, x->side, i, true);
			return;
		}
	}
	view_report(v, "No line differs on this side");
}

static void report_summary(struct view *v)
{
	struct srcv *x = v->priv;
	const struct src_doc *d = &x->doc;
	if (d->problem)
		view_error(v, "%s", d->problem);
	else if (d->untranslated)
		view_error(v, "%s; the rest: semantic check %s", d->untranslated, sem_verdict(&d->sem));
	else
		view_report(v, "Semantic check: %d critical, %d warn, %d note: %s", d->sem.ncritical,
			    d->sem.nwarn, d->sem.nnote, sem_verdict(&d->sem));
}

static int load(struct view *v, struct tp_err *err)
{
	struct srcv *x = v->priv;
	if (x->texts) {
		if (src_doc_load_texts(&x->doc, &(struct src_texts){x->py_arg, x->py_text, x->rs_arg,
								       x->rs_text, x->ffi_text}) < 0)
			return -1;
	} else if (src_doc_load(&x->doc, x->py_arg, x->rs_arg, err) < 0) {
		return -1;
	}
	size_t most = x->doc.f[0].n > x->doc.f[1].n ? x->doc.f[0].n : x->doc.f[1].n;
	x->lnw = 3;
	for (size_t n = most; n >= 1000; n /= 10)
		x->lnw++;
	view_set_lines(v, x->doc.f[x->side].n);
	view_clamp(v);
	x->cur[x->side] = v->lineno;
	follow(x);
	return 0;
}

static void reload(struct view *v)
{
	struct srcv *x = v->priv;
	src_doc_free(&x->doc);
	struct tp_err err;
	tp_err_clear(&err);
	if (load(v, &err) < 0) {
		view_set_lines(v, 0);
		view_error(v, "%s", err.msg);
	} else {
		report_summary(v);
	}
	view_redraw(v);
}

static enum request src_request(struct view *v, enum request req)
{
	struct srcv *x = v->priv;
	switch (req) {
	case REQ_VIEW_NEXT:
		set_side(v, 1 - x->side);
		return REQ_NONE;
	case REQ_NEXT_MISMATCH:
	case REQ_PREV_MISMATCH:
		next_mark(v, req == REQ_PREV_MISMATCH);
		return REQ_NONE;
	case REQ_ENTER:
		say_notes(v, x->side, v->lineno, false);
		return REQ_NONE;
	case REQ_SCROLL_LEFT:
	case REQ_SCROLL_RIGHT: {
		size_t step = (size_t)(v->width > 8 ? v->width / 4 : 2);
		if (req == REQ_SCROLL_LEFT)
			x->hcol = x->hcol > step ? x->hcol - step : 0;
		else
			x->hcol += step;
		view_redraw(v);
		return REQ_NONE;
	}
	case REQ_REFRESH:
		reload(v);
		return REQ_NONE;
	default:
		return req;
	}
}

static void src_select(struct view *v)
{
	struct srcv *x = v->priv;
	x->cur[x->side] = v->lineno;
	uint32_t entry = x->entry;
	follow(x);
	if (entry != x->entry)
		v->title_dirty = true;
	view_redraw(v);
}

static const char *src_file_of(struct view *v, long *line)
{
	struct srcv *x = v->priv;
	*line = (long)v->lineno + 1;
	return x->doc.f[x->side].path;
}

/* A run's stage B: the op's source in the run's workspace, and the run's
 * kernel.rs (translated in memory while B has not written one). */
static int open_run(struct srcv *x, const struct run_state *st, struct tp_err *err)
{
	char *rel = st->workspace && st->op ? port_source_of(st->workspace, st->op) : NULL;
	if (!rel) {
		tp_err_set(err, TP_EXIT_USAGE, "no %s.py with a kernel under src/tilegym/ops/cutile/ or "
					       "ops/triton/ (subfolders included) in %s", st->op ? st->op : "?",
			   st->workspace ? st->workspace : "the run's workspace");
		return -1;
	}
	x->py_arg = path_join(st->workspace, rel);
	free(rel);
	char *rs = path_join(st->run_dir, "kernel.rs");
	if (path_is_file(rs))
		x->rs_arg = rs;
	else
		free(rs);
	return 0;
}

static int src_open(struct view *v, const struct view_arg *arg, struct tp_err *err)
{
	struct srcv *x = v->priv;
	if (arg->model) {
		const struct src_texts *t = arg->model;
		x->texts = true;
		x->py_arg = xstrdup(t->py_name);
		x->py_text = xstrdup(t->py);
		x->rs_arg = t->rs ? xstrdup(t->rs_name) : NULL;
		x->rs_text = t->rs ? xstrdup(t->rs) : NULL;
		x->ffi_text = t->ffi ? xstrdup(t->ffi) : NULL;
	} else if (arg->run) {
		if (open_run(x, run_model_state(arg->run), err) < 0)
			return -1;
	} else if (arg->path) {
		x->py_arg = xstrdup(arg->path);
		x->rs_arg = arg->path2 ? xstrdup(arg->path2) : NULL;
	} else {
		tp_err_set(err, TP_EXIT_USAGE, "the source view opens on a run's stage B, with "
						"tileport translate --tui or tileport open KERNEL.py");
		return -1;
	}
	const char *a = strrchr(x->py_arg, '/');
	const char *b = x->rs_arg ? strrchr(x->rs_arg, '/') : NULL;
	v->ref = xasprintf("%s \xe2\x86\x94 %s", a ? a + 1 : x->py_arg,
			   x->rs_arg ? (b ? b + 1 : x->rs_arg) : "translation");
	if (load(v, err) < 0)
		return -1;
	long line = arg->line > 0 ? arg->line : x->doc.start_line;
	if (arg->line > 0 && arg->index == SRC_AT_RUST && x->doc.f[SIDE_RS].n) {
		/* a compiler finding's line of kernel.rs: the cursor on it */
		set_side(v, SIDE_RS);
		view_select(v, (size_t)arg->line - 1);
	} else if (line > 0) {
		view_select(v, (size_t)line - 1);
	}
	report_summary(v);
	return 0;
}

static void src_done(struct view *v)
{
	struct srcv *x = v->priv;
	src_doc_free(&x->doc);
	free(x->py_arg);
	free(x->rs_arg);
	free(x->py_text);
	free(x->rs_text);
	free(x->ffi_text);
}

const struct view_ops source_view_ops = {
	.type = "source",
	.private_size = sizeof(struct srcv),
	/* B writes the kernel the source is read beside */
	.stages = "B",
	.noun = "source view",
	.open = src_open,
	.line = src_line_out,
	.request = src_request,
	.select = src_select,
	.header = src_header,
	.title = src_title,
	.file = src_file_of,
	.done = src_done,
};
