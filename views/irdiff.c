/* The IR diff view: a reference Tile IR module against a generated one,
 * aligned op by op per entry (engine/ir irdiff_modules), side by side or
 * unified, with the findings in a lower pane. Opened on two files
 * (`tileport irdiff --tui REF GEN`, view_arg path and path2) or on a run
 * directory (view_arg path; `d` in the stage view of a B or C attempt and
 * in the pipeline view on stage B or C): every reference/reference*.mlir
 * against its generated/generated*_canon.mlir, paired by variant
 * (engine/check/check.h).
 *
 * The findings pane is a second view of this kind (view_arg model = the
 * shared document): moving through it shows each finding's op above, and
 * Enter jumps there. ] and [ go to the next and previous critical finding
 * from either pane. view_arg index 1: keep dead constants. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "views/irdiff_int.h"

/* ---- the findings pane's lines ---- */

static void add_fline(struct irv *x, size_t *cap, enum irv_fl_kind kind, size_t pair,
		      uint32_t entry, size_t find)
{
	x->fl = xgrow(x->fl, cap, x->nfl + 1, sizeof(*x->fl));
	x->fl[x->nfl++] = (struct irv_fline){(uint8_t)kind, (uint16_t)pair, entry, (uint32_t)find};
}

static void build_flines(struct irv *x)
{
	struct irv_doc *d = x->doc;
	free(x->fl);
	x->fl = NULL;
	x->nfl = 0;
	size_t cap = 0;
	x->sev_w = 8;
	x->rule_w = 4;
	x->range_w = 3;
	long pair = -1, entry = -1;
	for (size_t i = 0; i < d->nfinds; i++) {
		const struct irv_find *fd = &d->finds[i];
		const struct irv_pair *p = &d->pairs[fd->pair];
		const struct irdiff_finding *f = &p->r->findings[fd->index];
		if (d->npairs > 1 && pair != fd->pair)
			add_fline(x, &cap, FL_PAIR, fd->pair, 0, 0);
		if (pair != fd->pair)
			entry = -1;
		pair = fd->pair;
		if (p->r->nentries > 1 && f->entry >= 0 && f->entry != entry)
			add_fline(x, &cap, FL_ENTRY, fd->pair, (uint32_t)f->entry, 0);
		entry = f->entry;
		add_fline(x, &cap, FL_FIND, fd->pair, 0, i);
		int rl = (int)strlen(f->rule);
		if (rl > x->rule_w)
			x->rule_w = rl > 24 ? 24 : rl;
		char buf[32];
		irv_range(buf, sizeof(buf), f->ref_first, f->ref_last);
		if ((int)strlen(buf) > x->range_w)
			x->range_w = (int)strlen(buf);
		irv_range(buf, sizeof(buf), f->gen_first, f->gen_last);
		if ((int)strlen(buf) > x->range_w)
			x->range_w = (int)strlen(buf);
	}
	if (!x->nfl)
		add_fline(x, &cap, FL_NONE, 0, 0, 0);
}

static void findings_line(struct view *v, size_t idx, struct line_out *out)
{
	struct irv *x = v->priv;
	struct irv_doc *d = x->doc;
	const struct irv_fline *l = &x->fl[idx];
	const struct irv_pair *p = &d->pairs[l->pair];
	switch (l->kind) {
	case FL_NONE:
		lo_reset(out, LINE_EMPTY);
		lo_adds(out, LINE_EMPTY, d->nitems ? "No findings: the two sides match"
					      : "Nothing was diffed");
		return;
	case FL_PAIR:
		lo_reset(out, LINE_DIFF_HEADER);
		lo_addf(out, LINE_DIFF_HEADER, "%s \xe2\x86\x94 %s  ", p->ref_shown, p->gen_shown);
		lo_adds(out, irv_verdict_type(p->r->verdict), irdiff_verdict_name(p->r->verdict));
		return;
	case FL_ENTRY: {
		lo_reset(out, LINE_SECTION);
		struct sbuf sb = SBUF_INIT;
		irv_entry_names(&p->r->entries[l->entry], &sb);
		lo_adds(out, LINE_SECTION, sb_str(&sb));
		sb_free(&sb);
		return;
	}
	default:
		break;
	}
	const struct irv_find *fd = &d->finds[l->find];
	const struct irdiff_finding *f = &p->r->findings[fd->index];
	char a[32], b[32];
	lo_reset(out, LINE_DEFAULT);
	lo_col(out, irv_severity_type(f->severity), x->sev_w, ALIGN_LEFT,
	       irdiff_severity_name(f->severity));
	lo_col(out, LINE_LABEL, x->rule_w, ALIGN_LEFT, f->rule);
	irv_range(a, sizeof(a), f->ref_first, f->ref_last);
	irv_range(b, sizeof(b), f->gen_first, f->gen_last);
	lo_col(out, LINE_LINE_NUMBER, x->range_w, ALIGN_RIGHT, a);
	lo_col(out, LINE_LINE_NUMBER, x->range_w, ALIGN_RIGHT, b);
	lo_adds(out, LINE_DEFAULT, f->message);
}

/* ---- moving between the panes ---- */

static struct irv *diff_pane_of(struct view *v)
{
	struct irv *x = v->priv;
	if (!x->findings_pane)
		return x;
	if (!v->upper || v->upper->ops != &irdiff_view_ops)
		return NULL;
	struct irv *up = v->upper->priv;
	return up->doc == x->doc && !up->findings_pane ? up : NULL;
}

static struct view *diff_view_of(struct view *v)
{
	struct irv *x = v->priv;
	return x->findings_pane ? (diff_pane_of(v) ? v->upper : NULL) : v;
}

static struct view *findings_view_of(struct view *v)
{
	struct irv *x = v->priv;
	if (x->findings_pane)
		return v;
	if (!v->lower || v->lower->ops != &irdiff_view_ops)
		return NULL;
	struct irv *low = v->lower->priv;
	return low->doc == x->doc && low->findings_pane ? v->lower : NULL;
}

/* Select an item's first line; one far off screen lands in the middle. */
static void show_item(struct view *v, uint32_t item)
{
	struct irv *x = v->priv;
	if (item >= x->doc->nitems || !x->ndl)
		return;
	size_t line = x->first[item];
	size_t h = v->height > 0 ? (size_t)v->height : 1;
	bool far = line < v->offset || line >= v->offset + h;
	view_select(v, line);
	if (far && line >= h / 2) {
		size_t maxoff = x->ndl > h ? x->ndl - h : 0;
		size_t off = line - h / 2;
		v->offset = off < maxoff ? off : maxoff;
		v->redraw = true;
	}
}

static void select_fline(struct view *fv, size_t find)
{
	struct irv *f = fv->priv;
	for (size_t i = 0; i < f->nfl; i++)
		if (f->fl[i].kind == FL_FIND && f->fl[i].find == find) {
			view_select(fv, i);
			return;
		}
}

static void report_find(struct view *v, size_t i)
{
	struct irv_doc *d = ((struct irv *)v->priv)->doc;
	const struct irv_find *fd = &d->finds[i];
	const struct irdiff_finding *f = &d->pairs[fd->pair].r->findings[fd->index];
	view_report(v, "%s %s: %s", irdiff_severity_name(f->severity), f->rule, f->message);
}

/* Jump to finding i in both panes. */
static void goto_find(struct view *v, size_t i)
{
	struct irv_doc *d = ((struct irv *)v->priv)->doc;
	d->cur_find = i;
	d->syncing = true;
	struct view *dv = diff_view_of(v), *fv = findings_view_of(v);
	if (dv)
		show_item(dv, d->finds[i].item);
	if (fv)
		select_fline(fv, i);
	d->syncing = false;
	report_find(v, i);
}

static uint32_t cursor_item(struct view *v)
{
	struct irv *x = diff_pane_of(v);
	struct view *dv = diff_view_of(v);
	if (!x || !dv || !x->ndl)
		return 0;
	return irv_item_of(x, dv->lineno);
}

static void next_critical(struct view *v, bool backward)
{
	struct irv *x = v->priv;
	struct irv_doc *d = x->doc;
	size_t n = d->nfinds, from;
	if (!d->ncritical) {
		view_report(v, "No critical findings");
		return;
	}
	/* From the finding under the cursor (findings pane, or the one last
	 * jumped to while the diff cursor still rests on its op), else from
	 * the diff cursor's op. */
	bool have = false;
	if (x->findings_pane && v->lineno < x->nfl && x->fl[v->lineno].kind == FL_FIND) {
		from = x->fl[v->lineno].find;
		have = true;
	} else if (d->cur_find < n && d->finds[d->cur_find].item == cursor_item(v)) {
		from = d->cur_find;
		have = true;
	} else {
		uint32_t item = cursor_item(v);
		from = 0;
		while (from < n && (backward ? d->finds[from].item < item : d->finds[from].item <= item))
			from++;
		/* from: the first finding past the cursor going forward */
	}
	for (size_t k = 0; k < n; k++) {
		size_t i;
		if (have)
			i = backward ? (from + n - 1 - k) % n : (from + 1 + k) % n;
		else
			i = backward ? (from + n - 1 - k) % n : (from + k) % n;
		const struct irv_find *fd = &d->finds[i];
		if (d->pairs[fd->pair].r->findings[fd->index].severity == IRDIFF_CRITICAL) {
			goto_find(v, i);
			return;
		}
	}
}

/* The start of the next (previous) run of rows that differ. */
static void next_change(struct view *v, bool backward)
{
	struct irv *x = diff_pane_of(v);
	struct view *dv = diff_view_of(v);
	if (!x || !dv)
		return;
	struct irv_doc *d = x->doc;
	uint32_t at = cursor_item(v);
	for (uint32_t k = 1; k <= d->nitems; k++) {
		uint32_t i = backward ? (at + (uint32_t)d->nitems - k) % (uint32_t)d->nitems
				      : (at + k) % (uint32_t)d->nitems;
		const struct irv_item *it = &d->items[i];
		if (it->kind != IV_ROW || irv_row(d, it)->kind == IRDIFF_ROW_EQUAL)
			continue;
		const struct irv_item *prev = i ? &d->items[i - 1] : NULL;
		if (prev && prev->kind == IV_ROW && irv_row(d, prev)->kind != IRDIFF_ROW_EQUAL)
			continue;
		show_item(dv, i);
		return;
	}
	view_report(v, "No ops differ");
}

static void open_pane(struct view *v)
{
	struct irv *x = v->priv;
	struct view_arg arg = {.model = x->doc};
	v->host->open(v->host, v, VIEW_IRDIFF, &arg, OPEN_SPLIT | OPEN_NOFOCUS);
}

/* ---- view ops ---- */

static int irv_open(struct view *v, const struct view_arg *arg, struct tp_err *err)
{
	struct irv *x = v->priv;
	if (arg->model) {
		x->doc = arg->model;
		x->doc->refs++;
		x->findings_pane = true;
		v->ref = xstrdup("findings");
		build_flines(x);
		view_set_lines(v, x->nfl);
		return 0;
	}
	if (!arg->path) {
		tp_err_set(err, TP_EXIT_USAGE, "IR diff view: no run or files given");
		return -1;
	}
	struct irv_doc *d = xcalloc(1, sizeof(*d));
	d->refs = 1;
	d->cur_find = SIZE_MAX;
	d->keep_dead = arg->index == 1;
	x->doc = d;
	if (arg->path2) {
		d->ref_path = xstrdup(arg->path);
		d->gen_path = xstrdup(arg->path2);
		const char *a = strrchr(arg->path, '/'), *b = strrchr(arg->path2, '/');
		v->ref = xasprintf("%s \xe2\x86\x94 %s", a ? a + 1 : arg->path, b ? b + 1 : arg->path2);
	} else {
		d->run_dir = xstrdup(arg->path);
		size_t n = strlen(d->run_dir);
		while (n > 1 && d->run_dir[n - 1] == '/')
			d->run_dir[--n] = '\0';
		const char *a = strrchr(d->run_dir, '/');
		v->ref = xstrdup(arg->name ? arg->name : a ? a + 1 : d->run_dir);
	}
	char *problems = NULL;
	if (irv_doc_load(d, &problems, err) < 0)
		return -1; /* irv_done frees the document */
	irv_layout(v);
	/* The findings pane opens once this view is on screen. */
	x->pane_pending = d->nfinds > 0;
	v->loading = x->pane_pending;
	if (problems)
		view_error(v, "%s", problems);
	free(problems);
	return 0;
}

static bool irv_pump(struct view *v, int64_t budget_ms)
{
	(void)budget_ms;
	struct irv *x = v->priv;
	if (x->pane_pending) {
		x->pane_pending = false;
		if (!v->lower)
			open_pane(v);
	}
	return false;
}

static void irv_any_line(struct view *v, size_t idx, struct line_out *out)
{
	struct irv *x = v->priv;
	if (x->findings_pane)
		findings_line(v, idx, out);
	else
		irv_line(v, idx, out);
}

static bool irv_any_header(struct view *v, struct line_out *out)
{
	struct irv *x = v->priv;
	if (!x->findings_pane)
		return irv_header(v, out);
	lo_reset(out, LINE_HEADER);
	lo_col(out, LINE_HEADER, x->sev_w, ALIGN_LEFT, "SEVERITY");
	lo_col(out, LINE_HEADER, x->rule_w, ALIGN_LEFT, "RULE");
	lo_col(out, LINE_HEADER, x->range_w, ALIGN_RIGHT, "REF");
	lo_col(out, LINE_HEADER, x->range_w, ALIGN_RIGHT, "GEN");
	lo_adds(out, LINE_HEADER, "MESSAGE");
	return true;
}

/* The findings pane's cursor shows its finding above; the diff cursor on
 * an op with findings selects the first of them below. */
static void irv_select(struct view *v)
{
	struct irv *x = v->priv;
	struct irv_doc *d = x->doc;
	if (d->syncing)
		return;
	d->syncing = true;
	if (x->findings_pane) {
		struct view *dv = diff_view_of(v);
		const struct irv_fline *l = v->lineno < x->nfl ? &x->fl[v->lineno] : NULL;
		if (dv && l && l->kind != FL_NONE) {
			const struct irv_pair *p = &d->pairs[l->pair];
			uint32_t item = l->kind == FL_FIND  ? d->finds[l->find].item
					: l->kind == FL_ENTRY ? p->entry_head[l->entry]
							      : p->first_item;
			if (l->kind == FL_FIND)
				d->cur_find = l->find;
			if (cursor_item(v) != item)
				show_item(dv, item);
		}
	} else if (x->ndl) {
		struct view *fv = findings_view_of(v);
		uint32_t item = irv_item_of(x, v->lineno);
		if (fv && d->items[item].mark >= 0) {
			for (size_t i = 0; i < d->nfinds; i++)
				if (d->finds[i].item == item) {
					select_fline(fv, i);
					break;
				}
		}
	}
	d->syncing = false;
}

static void reload(struct view *v)
{
	struct view *dv = diff_view_of(v), *fv = findings_view_of(v);
	struct irv_doc *d = ((struct irv *)v->priv)->doc;
	irv_doc_clear(d);
	char *problems = NULL;
	struct tp_err err;
	tp_err_clear(&err);
	if (irv_doc_load(d, &problems, &err) < 0) {
		/* Keep the view: it shows that nothing is left to diff. */
		irv_doc_clear(d);
		view_error(v, "%s", err.msg);
	} else if (problems) {
		view_error(v, "%s", problems);
	} else {
		view_report(v, "Diffed again: %s", irdiff_verdict_name(d->verdict));
	}
	free(problems);
	if (dv)
		irv_layout(dv);
	if (fv) {
		struct irv *f = fv->priv;
		build_flines(f);
		view_set_lines(fv, f->nfl);
		view_clamp(fv);
		view_redraw(fv);
	}
}

static void set_mode(struct view *v, enum request req)
{
	struct view *dv = diff_view_of(v);
	struct irv *x = diff_pane_of(v);
	if (!dv || !x)
		return;
	if (req == REQ_TOGGLE_UNIFIED)
		x->unified = !x->unified;
	else
		x->wrap = !x->wrap;
	x->hcol = 0;
	irv_layout(dv);
	if (req == REQ_TOGGLE_UNIFIED && !x->unified && x->narrow)
		view_report(v, "Side by side does not fit in %d columns: unified", dv->width);
	else if (req == REQ_TOGGLE_UNIFIED)
		view_report(v, "%s", x->unified ? "Unified" : "Side by side");
	else
		view_report(v, "%s", x->wrap ? "Long ops wrap" : "Long ops are cut: <Left> and <Right> scroll");
}

static enum request diff_request(struct view *v, enum request req)
{
	struct irv *x = v->priv;
	struct irv_doc *d = x->doc;
	switch (req) {
	case REQ_SCROLL_LEFT:
	case REQ_SCROLL_RIGHT: {
		if (x->wrap) {
			view_report(v, "Long ops wrap: nothing to scroll (w cuts them)");
			return REQ_NONE;
		}
		size_t step = (size_t)(v->width > 8 ? v->width / 4 : 2);
		if (req == REQ_SCROLL_LEFT)
			x->hcol = x->hcol > step ? x->hcol - step : 0;
		else
			x->hcol += step;
		view_redraw(v);
		return REQ_NONE;
	}
	case REQ_ENTER: {
		uint32_t item = cursor_item(v);
		if (x->ndl && d->items[item].mark >= 0) {
			if (!v->lower)
				open_pane(v);
			for (size_t i = 0; i < d->nfinds; i++)
				if (d->finds[i].item == item) {
					goto_find(v, i);
					break;
				}
		} else {
			view_report(v, "No finding points at this line");
		}
		return REQ_NONE;
	}
	case REQ_MOVE_NEXT_SECTION:
	case REQ_MOVE_PREV_SECTION: {
		bool next = req == REQ_MOVE_NEXT_SECTION;
		uint32_t at = cursor_item(v);
		for (uint32_t i = at; next ? i + 1 < d->nitems : i > 0;) {
			i = next ? i + 1 : i - 1;
			uint8_t k = d->items[i].kind;
			if (k == IV_ENTRY || k == IV_SUMMARY || (k == IV_PAIR && d->npairs == 1)) {
				show_item(v, i);
				break;
			}
		}
		return REQ_NONE;
	}
	default:
		return req;
	}
}

static enum request findings_request(struct view *v, enum request req)
{
	struct irv *x = v->priv;
	switch (req) {
	case REQ_ENTER: {
		struct view *dv = diff_view_of(v);
		if (!dv || v->lineno >= x->nfl || x->fl[v->lineno].kind == FL_NONE)
			return REQ_NONE;
		irv_select(v);
		if (x->fl[v->lineno].kind == FL_FIND)
			report_find(v, x->fl[v->lineno].find);
		return REQ_VIEW_NEXT; /* the focus goes to the op */
	}
	default:
		return req;
	}
}

static enum request irv_request(struct view *v, enum request req)
{
	struct irv *x = v->priv;
	switch (req) {
	case REQ_TOGGLE_UNIFIED:
	case REQ_TOGGLE_WRAP:
		set_mode(v, req);
		return REQ_NONE;
	case REQ_TOGGLE_FINDINGS:
		if (x->findings_pane)
			v->host->close(v->host, v); /* v is gone now */
		else if (v->lower)
			v->host->close(v->host, v->lower);
		else
			open_pane(v);
		return REQ_NONE;
	case REQ_NEXT_CRITICAL:
	case REQ_PREV_CRITICAL:
		next_critical(v, req == REQ_PREV_CRITICAL);
		return REQ_NONE;
	case REQ_NEXT_CHANGE:
	case REQ_PREV_CHANGE:
		next_change(v, req == REQ_PREV_CHANGE);
		return REQ_NONE;
	case REQ_REFRESH:
		reload(v);
		return REQ_NONE;
	default:
		break;
	}
	return x->findings_pane ? findings_request(v, req) : diff_request(v, req);
}

static void irv_title(struct view *v, struct sbuf *out)
{
	struct irv *x = v->priv;
	if (x->findings_pane) {
		sb_printf(out, "%zu finding%s", x->doc->nfinds, x->doc->nfinds == 1 ? "" : "s");
		return;
	}
	sb_adds(out, x->unified || x->narrow ? "unified" : "side by side");
	if (x->narrow && !x->unified)
		sb_adds(out, " (narrow)");
	sb_adds(out, x->wrap ? ", wrap" : ", cut");
	if (!x->wrap && x->hcol)
		sb_printf(out, " +%zu", x->hcol);
}

static ssize_t irv_find(struct view *v, size_t from, bool backward, const struct view_search *s)
{
	struct irv *x = v->priv;
	if (!x->findings_pane)
		return irv_find_item(v, from, backward, s);
	struct line_out lo;
	lo_init(&lo);
	ssize_t found = -1;
	for (size_t k = 0; k < x->nfl && found < 0; k++) {
		size_t i = backward ? (from + x->nfl - k) % x->nfl : (from + k) % x->nfl;
		findings_line(v, i, &lo);
		if (view_search_in(s, sb_str(&lo.text), lo.text.len))
			found = (ssize_t)i;
	}
	lo_free(&lo);
	return found;
}

static void irv_resize(struct view *v)
{
	struct irv *x = v->priv;
	if (!x->findings_pane && v->width != x->laid_width)
		irv_layout(v);
}

static const char *irv_file(struct view *v, long *line)
{
	struct irv *x = v->priv;
	struct irv_doc *d = x->doc;
	*line = 0;
	if (x->findings_pane || !x->ndl)
		return NULL;
	const struct irv_item *it = &d->items[irv_item_of(x, v->lineno)];
	const struct irv_pair *p = &d->pairs[it->pair];
	if (it->kind == IV_ROW) {
		const struct irdiff_row *r = irv_row(d, it);
		bool gen = !r->ref.text || (x->dl[v->lineno].part == 1);
		*line = gen ? r->gen.first : r->ref.first;
		return gen ? (p->gen ? p->gen->path : NULL) : (p->ref ? p->ref->path : NULL);
	}
	return p->ref ? p->ref->path : NULL;
}

/* As a findings pane: its lines and its header, and no more. */
static int irv_want_rows(struct view *v)
{
	struct irv *x = v->priv;
	return x->findings_pane ? (int)x->nfl + 1 : 0;
}

/* As a side pane: never wider than each of the two IR sides beside it,
 * which need the room more than the findings' ends do. */
static int irv_want_cols(struct view *v, int cols)
{
	struct irv *x = v->priv;
	return x->findings_pane ? (cols - 1) / 3 : 0;
}

static void irv_done(struct view *v)
{
	struct irv *x = v->priv;
	irv_doc_unref(x->doc);
	free(x->dl);
	free(x->first);
	free(x->fl);
}

const struct view_ops irdiff_view_ops = {
	.type = "irdiff",
	.private_size = sizeof(struct irv),
	/* B makes the generated IR, C reads the diff */
	.stages = "BC",
	.noun = "IR diff",
	.open = irv_open,
	.line = irv_any_line,
	.request = irv_request,
	.select = irv_select,
	.header = irv_any_header,
	.title = irv_title,
	.pump = irv_pump,
	.find = irv_find,
	.resize = irv_resize,
	.want_rows = irv_want_rows,
	.want_cols = irv_want_cols,
	.file = irv_file,
	.done = irv_done,
};
