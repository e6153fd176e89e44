/* The IR diff pane's layout and lines: side by side (reference left,
 * generated right, each with its source line numbers) or unified; long ops
 * cut and scrolled sideways or wrapped; every width in screen columns
 * (wcwidth). A changed row's differing tokens are cells of their own,
 * found by a longest-common-subsequence over the two texts' tokens in
 * which the printer's invented value names (%0, %tview_3) compare alike. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "views/width.h"
#include "views/irdiff_int.h"

/* Narrower sides than this are not worth it: unified instead. */
#define MIN_SIDE 20

struct geom {
	bool unified;
	int lnw;
	size_t tw; /* columns of op text on one side (unified: the only one) */
};

static struct geom geom_of(const struct irv *x, int width)
{
	struct geom g;
	g.lnw = x->doc->lnw;
	int w = width > 0 ? width : 80;
	int side = (w - 7 - 2 * g.lnw) / 2; /* "M " num " " text " | " num " " text */
	g.unified = x->unified || side < MIN_SIDE;
	int tw = g.unified ? w - 6 - 2 * g.lnw : side; /* "M " num " " num " " "- " text */
	g.tw = tw > 1 ? (size_t)tw : 1;
	return g;
}

const struct irdiff_row *irv_row(const struct irv_doc *d, const struct irv_item *it)
{
	return &d->pairs[it->pair].r->entries[it->entry].rows[it->row];
}

uint32_t irv_item_of(const struct irv *x, size_t idx)
{
	return x->ndl ? x->dl[idx < x->ndl ? idx : x->ndl - 1].item : 0;
}

void irv_range(char *buf, size_t n, uint32_t first, uint32_t last)
{
	if (!first)
		snprintf(buf, n, "-");
	else if (!last || last == first)
		snprintf(buf, n, "%u", first);
	else
		snprintf(buf, n, "%u-%u", first, last);
}

enum line_type irv_severity_type(enum irdiff_severity s)
{
	switch (s) {
	case IRDIFF_CRITICAL: return LINE_FINDING_CRITICAL;
	case IRDIFF_WARN: return LINE_FINDING_WARN;
	case IRDIFF_INFO: return LINE_FINDING_INFO;
	case IRDIFF_NOTE: return LINE_FINDING_NOTE;
	}
	return LINE_DEFAULT;
}

enum line_type irv_verdict_type(enum irdiff_verdict v)
{
	return v == IRDIFF_PASS ? LINE_VERDICT_OK
	       : v == IRDIFF_PASS_WITH_NOTES ? LINE_VERDICT_WARN : LINE_VERDICT_FAIL;
}

void irv_entry_names(const struct irdiff_entry *e, struct sbuf *out)
{
	if (e->ref_name && e->gen_name)
		sb_printf(out, "@%s \xe2\x86\x94 @%s", e->ref_name, e->gen_name);
	else
		sb_printf(out, "@%s", e->ref_name ? e->ref_name : e->gen_name ? e->gen_name : "?");
}

/* ---- unified parts ---- */

static int row_parts(const struct irdiff_row *r, bool unified)
{
	return unified && r->kind == IRDIFF_ROW_CHANGED ? 2 : 1;
}

/* Which side a unified line shows: 0 reference, 1 generated (context lines
 * show the generated text, as unified diffs show the new file's). */
static int unified_side(const struct irdiff_row *r, int part)
{
	switch (r->kind) {
	case IRDIFF_ROW_CHANGED: return part;
	case IRDIFF_ROW_REF_ONLY: return 0;
	default: return 1;
	}
}

static const struct irdiff_side *side_of(const struct irdiff_row *r, int side)
{
	return side ? &r->gen : &r->ref;
}

/* ---- wrapping ---- */

static int cols_of(wchar_t wc)
{
	return wc == L'\t' ? 1 : wc_columns(wc);
}

/* Part of a name, number or type word: a line never breaks inside one
 * when it can break elsewhere (xf3 / 2 would read as two tokens). */
static bool in_word(wchar_t wc)
{
	return (wc >= L'a' && wc <= L'z') || (wc >= L'A' && wc <= L'Z') || (wc >= L'0' && wc <= L'9') ||
	       wc == L'_' || wc == L'%' || wc == L'.' || wc == L'#' || wc == L'@' || wc == L'$' || wc >= 0x80;
}

/* Break s into lines of at most w0 columns (the first) and w1 (the
 * rest): after a space when one falls in the second half of the line, else
 * after punctuation there (`,` `>` `(` ...), and inside a word only when
 * a word fills the line. Returns the number of lines; starts[k] (k < max)
 * gets line k's first byte. */
static size_t wrap_text(const char *s, size_t n, size_t w0, size_t w1, size_t *starts, size_t max)
{
	size_t count = 0, b = 0;
	for (;;) {
		size_t w = count ? w1 : w0;
		if (starts && count < max)
			starts[count] = b;
		count++;
		size_t i = b, cols = 0, brk = 0, punct = 0;
		while (i < n) {
			wchar_t wc;
			size_t len = utf8_next(s + i, n - i, &wc);
			size_t c = (size_t)cols_of(wc);
			if (cols + c > w && cols > 0)
				break;
			cols += c;
			i += len;
			if (wc == L' ' && cols * 2 >= w)
				brk = i;
			else if (!in_word(wc) && cols * 2 >= w)
				punct = i;
		}
		if (i >= n || count >= UINT16_MAX)
			return count;
		b = brk > b && brk < i ? brk : punct > b && punct < i ? punct : i;
		if (b == punct)
			while (b < n && s[b] == ' ')
				b++; /* a line never starts with the blank it broke before */
	}
}

/* How a side's text sits in its tw columns: indented by its nesting, and
 * wrapped lines after the first by two more. */
struct fit {
	size_t indent, w0, w1;
};

static struct fit fit_of(const struct irdiff_side *s, size_t tw)
{
	struct fit f;
	size_t in = s->depth > 0 ? (size_t)s->depth * 2 : 0;
	f.indent = in < tw / 3 ? in : tw / 3;
	f.w0 = tw - f.indent;
	f.w1 = f.w0 > 12 ? f.w0 - 2 : f.w0;
	return f;
}

/* Bytes [*b0, *b1) of wrapped line `sub`; false when there is none. */
static bool wrap_slice(const char *s, size_t n, const struct fit *f, size_t sub, size_t *b0,
		       size_t *b1)
{
	size_t starts[2];
	if (sub >= UINT16_MAX)
		return false;
	size_t *all = sub + 2 <= 2 ? starts : xmalloc((sub + 2) * sizeof(size_t));
	size_t count = wrap_text(s, n, f->w0, f->w1, all, sub + 2);
	bool ok = sub < count;
	if (ok) {
		*b0 = all[sub];
		*b1 = sub + 1 < count ? all[sub + 1] : n;
	}
	if (all != starts)
		free(all);
	return ok;
}

/* A reduce or scan whose file puts its block arguments on the next line:
 * ir_op_line joins them by a space ("... -> tile<1xf32> (%a: tile<f32>,
 * %b: tile<f32>) {"); the view shows them again on their own line, with
 * that line's number, as the file has them. The byte where they begin
 * (after the space), or 0. */
static size_t args_at(const struct irdiff_side *s)
{
	if (!s->text || !s->first || s->last <= s->first)
		return 0;
	size_t n = strlen(s->text);
	if (n < 4 || strcmp(s->text + n - 3, ") {") != 0)
		return 0;
	for (size_t i = n - 3; i-- > 1;)
		if (s->text[i] == '(' && s->text[i - 1] == ' ' && s->text[i + 1] == '%')
			return i;
	return 0;
}

static size_t side_lines(const struct irdiff_side *s, size_t tw)
{
	if (!s->text)
		return 0;
	struct fit f = fit_of(s, tw);
	size_t n = strlen(s->text);
	/* no character takes more columns than it has bytes */
	if (n <= f.w0)
		return 1;
	return wrap_text(s->text, n, f.w0, f.w1, NULL, 0);
}

/* ---- cells ---- */

static void pad(struct line_out *o, size_t n)
{
	static const char blanks[] = "                                ";
	while (n) {
		size_t k = n < sizeof(blanks) - 1 ? n : sizeof(blanks) - 1;
		lo_add(o, LINE_DEFAULT, blanks, k);
		n -= k;
	}
}

static bool in_span(const struct irv_span *sp, size_t nsp, size_t *k, size_t at)
{
	while (*k < nsp && at >= sp[*k].off + sp[*k].len)
		(*k)++;
	return *k < nsp && at >= sp[*k].off;
}

/* Columns [skip, skip + width) of bytes [b0, b1) of s, as cells typed
 * `base`, or `hl` inside the spans; padded to width. cut: text going on
 * past the window ends in a ~ marker. */
static void emit_text(struct line_out *o, const char *s, size_t b0, size_t b1,
		      const struct irv_span *sp, size_t nsp, enum line_type base, enum line_type hl,
		      size_t skip, size_t width, bool cut)
{
	size_t total = 0;
	for (size_t i = b0; i < b1;) {
		wchar_t wc;
		i += utf8_next(s + i, b1 - i, &wc);
		total += (size_t)cols_of(wc);
	}
	bool more = cut && total > skip + width;
	size_t room = more ? width - 1 : width;
	size_t pos = 0, used = 0, run = b0, k = 0, i = b0;
	enum line_type run_t = base;
	bool open = false;
	while (i < b1) {
		wchar_t wc;
		size_t len = utf8_next(s + i, b1 - i, &wc);
		size_t c = (size_t)cols_of(wc);
		enum line_type t = in_span(sp, nsp, &k, i) ? hl : base;
		if (pos + c <= skip) {
			/* scrolled out on the left */
		} else if (pos < skip) {
			/* a wide character cut by the left edge: blanks */
			pad(o, pos + c - skip);
			used += pos + c - skip;
		} else if (used + c > room) {
			break;
		} else {
			if (open && (t != run_t || wc == L'\t')) {
				lo_add(o, run_t, s + run, i - run);
				open = false;
			}
			if (wc == L'\t') {
				lo_add(o, t, " ", 1); /* tab stops would depend on the column */
			} else if (!open) {
				run = i;
				run_t = t;
				open = true;
			}
			used += c;
		}
		pos += c;
		i += len;
	}
	if (open)
		lo_add(o, run_t, s + run, i - run);
	if (more) {
		pad(o, room > used ? room - used : 0);
		lo_add(o, LINE_DELIMITER, "~", 1);
		used = width;
	}
	pad(o, width > used ? width - used : 0);
}

static void mark_cell(struct line_out *o, const struct irv_item *it, bool show)
{
	static const char *const letters[] = {"C", "W", "I", "N"};
	if (show && it->mark >= 0 && it->mark < 4)
		lo_add(o, irv_severity_type((enum irdiff_severity)it->mark), letters[it->mark], 1);
	else
		lo_add(o, LINE_DEFAULT, " ", 1);
	lo_add(o, LINE_DEFAULT, " ", 1);
}

static void num_cell(struct line_out *o, const struct geom *g, const struct irdiff_side *s,
		     bool show, size_t sub)
{
	char num[16] = "";
	if (s && s->text && sub == 1 && args_at(s))
		snprintf(num, sizeof(num), "%u", s->last);
	else if (show && s && s->text && s->first)
		snprintf(num, sizeof(num), "%u", s->first);
	lo_cell(o, LINE_LINE_NUMBER, g->lnw, ALIGN_RIGHT, num);
	lo_add(o, LINE_DEFAULT, " ", 1);
}

/* One side's text for display line `sub`, indented by its nesting. */
static void text_cells(struct line_out *o, const struct irv *x, const struct geom *g,
		       const struct irv_item *it, const struct irdiff_side *s, int side,
		       enum line_type base, enum line_type hl, size_t sub)
{
	if (!s->text) {
		pad(o, g->tw);
		return;
	}
	size_t n = strlen(s->text), b0 = 0, b1 = n;
	const struct irv_span *sp = it->spans[side];
	size_t nsp = it->nspans[side];
	struct fit f = fit_of(s, g->tw);
	if (x->wrap) {
		if (!wrap_slice(s->text, n, &f, sub, &b0, &b1)) {
			pad(o, g->tw);
			return;
		}
		size_t lead = g->tw - (sub ? f.w1 : f.w0);
		pad(o, lead);
		emit_text(o, s->text, b0, b1, sp, nsp, base, hl, 0, g->tw - lead, false);
	} else {
		/* the block-argument line of a reduce or scan: its own line */
		size_t at = args_at(s);
		if (at)
			b0 = sub ? at : 0, b1 = sub ? n : at - 1;
		else if (sub) {
			pad(o, g->tw);
			return;
		}
		if (x->hcol < f.indent) {
			pad(o, f.indent - x->hcol);
			emit_text(o, s->text, b0, b1, sp, nsp, base, hl, 0, g->tw - (f.indent - x->hcol), true);
		} else {
			emit_text(o, s->text, b0, b1, sp, nsp, base, hl, x->hcol - f.indent, g->tw, true);
		}
	}
}

static void row_types(const struct irdiff_row *r, int side, bool unified, enum line_type *base,
		      enum line_type *hl)
{
	*hl = side ? LINE_DIFF_ADD_HIGHLIGHT : LINE_DIFF_DEL_HIGHLIGHT;
	*base = LINE_DEFAULT;
	switch (r->kind) {
	case IRDIFF_ROW_EQUAL:
		*base = LINE_DEFAULT;
		break;
	case IRDIFF_ROW_CHANGED:
		*base = !unified ? LINE_DIFF_CHANGE : side ? LINE_DIFF_ADD : LINE_DIFF_DEL;
		break;
	case IRDIFF_ROW_REF_ONLY:
		*base = LINE_DIFF_DEL;
		break;
	case IRDIFF_ROW_GEN_ONLY:
		*base = LINE_DIFF_ADD;
		break;
	}
}

static void row_line(const struct irv *x, const struct geom *g, struct irv_item *it,
		     const struct irv_dline *l, struct line_out *o)
{
	const struct irdiff_row *r = irv_row(x->doc, it);
	if (!it->diffed)
		irv_diff_words(x->doc, it, r);
	lo_reset(o, LINE_DEFAULT);
	enum line_type base, hl;
	if (g->unified) {
		int side = unified_side(r, l->part);
		bool head = l->sub == 0;
		mark_cell(o, it, head && l->part == 0);
		num_cell(o, g, &r->ref, head && (side == 0 || r->kind == IRDIFF_ROW_EQUAL),
			 !x->wrap && (side == 0 || r->kind == IRDIFF_ROW_EQUAL) ? l->sub : 0);
		num_cell(o, g, &r->gen, head && (side == 1), !x->wrap && side == 1 ? l->sub : 0);
		row_types(r, side, true, &base, &hl);
		const char *sign = r->kind == IRDIFF_ROW_EQUAL ? " " : side ? "+" : "-";
		lo_add(o, r->kind == IRDIFF_ROW_EQUAL ? LINE_DEFAULT : side ? LINE_DIFF_ADD : LINE_DIFF_DEL,
		       sign, 1);
		lo_add(o, LINE_DEFAULT, " ", 1);
		text_cells(o, x, g, it, side_of(r, side), side, base, hl, l->sub);
		return;
	}
	mark_cell(o, it, l->sub == 0);
	for (int side = 0; side < 2; side++) {
		const struct irdiff_side *s = side_of(r, side);
		bool there = s->text && (!x->wrap || l->sub < side_lines(s, g->tw));
		if (s->text)
			num_cell(o, g, s, l->sub == 0, x->wrap ? 0 : l->sub);
		else
			pad(o, (size_t)g->lnw + 1);
		row_types(r, side, false, &base, &hl);
		if (there)
			text_cells(o, x, g, it, s, side, base, hl, l->sub);
		else
			pad(o, g->tw);
		if (side == 0) {
			static const char *const seps[] = {" \xe2\x94\x82 ", " \xe2\x89\xa0 ", " < ", " > "};
			static const enum line_type sep_t[] = {LINE_DELIMITER, LINE_DIFF_CHANGE,
							       LINE_DIFF_DEL, LINE_DIFF_ADD};
			lo_adds(o, sep_t[r->kind], seps[r->kind]);
		}
	}
}

/* A file name in w columns: a long one loses its start, not its name. */
static void path_cell(struct line_out *o, size_t w, const char *path)
{
	size_t n = strlen(path), cols = str_columns(path, n, 0);
	if (cols <= w) {
		lo_cell(o, LINE_DIFF_HEADER, (int)w, ALIGN_LEFT, path);
		return;
	}
	size_t over;
	size_t skip = str_skip(path, n, cols - w + 1, &over);
	lo_add(o, LINE_DELIMITER, "~", 1);
	pad(o, over);
	lo_cell(o, LINE_DIFF_HEADER, (int)(w - 1 - over), ALIGN_LEFT, path + skip);
}

static void counts(struct line_out *o, enum line_type t, const struct irdiff_result *r)
{
	lo_addf(o, t, "%d critical, %d warn, %d info, %d note", r->ncritical, r->nwarn, r->ninfo,
		r->nnote);
}

void irv_line(struct view *v, size_t idx, struct line_out *out)
{
	struct irv *x = v->priv;
	struct irv_doc *d = x->doc;
	if (idx >= x->ndl) {
		lo_reset(out, LINE_DEFAULT);
		return;
	}
	const struct irv_dline *l = &x->dl[idx];
	struct irv_item *it = &d->items[l->item];
	const struct irv_pair *p = &d->pairs[it->pair];
	struct geom g = geom_of(x, x->laid_width);
	switch ((enum irv_item_kind)it->kind) {
	case IV_SUMMARY:
		lo_reset(out, LINE_DIFF_HEADER);
		lo_addf(out, LINE_DIFF_HEADER, "variant %s  ", *p->variant ? p->variant : "(none)");
		if (p->r) {
			lo_adds(out, irv_verdict_type(p->r->verdict), irdiff_verdict_name(p->r->verdict));
			lo_adds(out, LINE_DIFF_HEADER, "  ");
			counts(out, LINE_DIM, p->r);
		} else {
			lo_adds(out, LINE_STATE_WARN, "not diffed");
		}
		return;
	case IV_PAIR:
		lo_reset(out, LINE_DIFF_HEADER);
		mark_cell(out, it, l->part == 0);
		if (g.unified) {
			lo_adds(out, LINE_DIFF_HEADER, l->part ? "+++ " : "--- ");
			lo_adds(out, LINE_DIFF_HEADER, l->part ? p->gen_shown : p->ref_shown);
		} else {
			path_cell(out, (size_t)g.lnw + 1 + g.tw, p->ref_shown);
			lo_adds(out, LINE_DELIMITER, " \xe2\x94\x82 ");
			path_cell(out, (size_t)g.lnw + 1 + g.tw, p->gen_shown);
		}
		return;
	case IV_ENTRY: {
		const struct irdiff_entry *e = &p->r->entries[it->entry];
		struct sbuf sb = SBUF_INIT;
		irv_entry_names(e, &sb);
		lo_reset(out, LINE_SECTION);
		mark_cell(out, it, true);
		lo_adds(out, LINE_SECTION, sb_str(&sb));
		sb_free(&sb);
		if (!e->gen)
			lo_adds(out, LINE_DIFF_DEL, "  reference only: no generated entry matches it");
		else if (!e->ref)
			lo_adds(out, LINE_DIFF_ADD, "  generated only: no reference entry matches it");
		else
			lo_addf(out, LINE_DIM, "  %zu equal, %zu changed, %zu reference only, %zu generated only",
				e->nequal, e->nchanged, e->nref_only, e->ngen_only);
		return;
	}
	case IV_EMPTY:
		lo_reset(out, LINE_EMPTY);
		lo_adds(out, LINE_EMPTY, p->problem ? p->problem : "Neither module has an entry");
		return;
	case IV_ROW:
		row_line(x, &g, it, l, out);
		return;
	}
}

bool irv_header(struct view *v, struct line_out *out)
{
	struct irv *x = v->priv;
	struct irv_doc *d = x->doc;
	lo_reset(out, LINE_HEADER);
	size_t diffed = 0;
	for (size_t i = 0; i < d->npairs; i++)
		diffed += d->pairs[i].r != NULL;
	if (!diffed) {
		lo_adds(out, LINE_STATE_WARN, "nothing diffed");
		return true;
	}
	lo_adds(out, irv_verdict_type(d->verdict), irdiff_verdict_name(d->verdict));
	const int n[] = {d->ncritical, d->nwarn, d->ninfo, d->nnote};
	static const char *const names[] = {"critical", "warn", "info", "note"};
	for (int s = 0; s < 4; s++) {
		lo_adds(out, LINE_HEADER, "  ");
		lo_addf(out, n[s] ? irv_severity_type((enum irdiff_severity)s) : LINE_DIM, "%d %s", n[s],
			names[s]);
	}
	if (diffed < d->npairs)
		lo_addf(out, LINE_STATE_WARN, "  %zu of %zu variants not diffed", d->npairs - diffed,
			d->npairs);
	return true;
}

/* ---- layout ---- */

static void push(struct irv *x, uint32_t item, int part, size_t sub)
{
	x->dl = xgrow(x->dl, &x->capdl, x->ndl + 1, sizeof(*x->dl));
	x->dl[x->ndl++] = (struct irv_dline){item, (uint16_t)part, (uint16_t)sub};
}

void irv_layout(struct view *v)
{
	struct irv *x = v->priv;
	struct irv_doc *d = x->doc;
	uint32_t keep = 0;
	uint16_t keep_part = 0;
	size_t on_screen = 0;
	bool had = x->ndl > 0;
	if (had) {
		const struct irv_dline *l = &x->dl[v->lineno < x->ndl ? v->lineno : x->ndl - 1];
		keep = l->item;
		keep_part = l->part;
		on_screen = v->lineno >= v->offset ? v->lineno - v->offset : 0;
	}
	struct geom g = geom_of(x, v->width);
	x->narrow = !x->unified && g.unified;
	x->ndl = 0;
	x->first = xrealloc(x->first, (d->nitems ? d->nitems : 1) * sizeof(*x->first));
	for (size_t i = 0; i < d->nitems; i++) {
		const struct irv_item *it = &d->items[i];
		x->first[i] = (uint32_t)x->ndl;
		if (it->kind == IV_PAIR && g.unified) {
			push(x, (uint32_t)i, 0, 0);
			push(x, (uint32_t)i, 1, 0);
			continue;
		}
		if (it->kind != IV_ROW) {
			push(x, (uint32_t)i, 0, 0);
			continue;
		}
		const struct irdiff_row *r = irv_row(d, it);
		for (int part = 0; part < row_parts(r, g.unified); part++) {
			size_t subs = 1;
			if (x->wrap && g.unified) {
				subs = side_lines(side_of(r, unified_side(r, part)), g.tw);
			} else if (x->wrap) {
				size_t a = side_lines(&r->ref, g.tw), b = side_lines(&r->gen, g.tw);
				subs = a > b ? a : b;
			} else if (g.unified) {
				subs = args_at(side_of(r, unified_side(r, part))) ? 2 : 1;
			} else {
				subs = args_at(&r->ref) || args_at(&r->gen) ? 2 : 1;
			}
			for (size_t s = 0; s < (subs ? subs : 1); s++)
				push(x, (uint32_t)i, part, s);
		}
	}
	x->laid_width = v->width;
	size_t line = 0;
	if (had && keep < d->nitems) {
		line = x->first[keep];
		while (line + 1 < x->ndl && x->dl[line + 1].item == keep && x->dl[line].part < keep_part)
			line++;
	}
	view_set_lines(v, x->ndl);
	v->lineno = x->ndl ? (line < x->ndl ? line : x->ndl - 1) : 0;
	v->offset = v->lineno >= on_screen ? v->lineno - on_screen : 0;
	view_clamp(v);
	view_redraw(v);
}

/* ---- search ---- */

/* Search what a display unit shows: a row's texts (the shown side when
 * unified), or a header line as drawn. */
static bool unit_matches(struct view *v, size_t idx, const struct view_search *s,
			 struct line_out *lo)
{
	struct irv *x = v->priv;
	const struct irv_dline *l = &x->dl[idx];
	const struct irv_item *it = &x->doc->items[l->item];
	if (it->kind == IV_ROW) {
		const struct irdiff_row *r = irv_row(x->doc, it);
		bool unified = x->unified || x->narrow;
		for (int side = 0; side < 2; side++) {
			if (unified && side != unified_side(r, l->part))
				continue;
			const char *t = side_of(r, side)->text;
			if (t && view_search_in(s, t, strlen(t)))
				return true;
		}
		return false;
	}
	irv_line(v, idx, lo);
	return view_search_in(s, sb_str(&lo->text), lo->text.len) != NULL;
}

ssize_t irv_find_item(struct view *v, size_t from, bool backward, const struct view_search *s)
{
	struct irv *x = v->priv;
	size_t n = x->ndl;
	if (!n)
		return -1;
	struct line_out lo;
	lo_init(&lo);
	ssize_t found = -1;
	for (size_t k = 0; k < n && found < 0; k++) {
		size_t i = backward ? (from + n - k) % n : (from + k) % n;
		if (x->dl[i].sub == 0 && unit_matches(v, i, s, &lo))
			found = (ssize_t)i;
	}
	lo_free(&lo);
	return found;
}
