/* The IR diff view's document: the pairs of IR files (two given files, or
 * a run's reference and generated IR paired by variant), each diffed by
 * engine/ir, turned into the items the diff pane lays out and the findings
 * (each pointing at an item, sorted by where they point). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/base/files.h"
#include "engine/check/check.h"
#include "views/irdiff_int.h"

#define NO_ITEM UINT32_MAX

static uint32_t add_item(struct irv_doc *d, enum irv_item_kind kind, size_t pair, uint32_t entry,
			 uint32_t row)
{
	d->items = xgrow(d->items, &d->capitems, d->nitems + 1, sizeof(*d->items));
	struct irv_item *it = &d->items[d->nitems];
	memset(it, 0, sizeof(*it));
	it->kind = (uint8_t)kind;
	it->mark = -1;
	it->pair = (uint16_t)pair;
	it->entry = entry;
	it->row = row;
	return (uint32_t)d->nitems++;
}

void irv_doc_clear(struct irv_doc *d)
{
	for (size_t i = 0; i < d->nitems; i++) {
		free(d->items[i].spans[0]);
		free(d->items[i].spans[1]);
	}
	free(d->items);
	d->items = NULL;
	d->nitems = d->capitems = 0;
	for (size_t i = 0; i < d->npairs; i++) {
		struct irv_pair *p = &d->pairs[i];
		for (size_t e = 0; p->names && e < 2 * p->r->nentries; e++)
			ir_names_free(p->names[e]);
		free(p->names);
		irdiff_free(p->r);
		ir_module_free(p->ref);
		ir_module_free(p->gen);
		free(p->variant);
		free(p->ref_shown);
		free(p->gen_shown);
		free(p->problem);
		free(p->entry_head);
		free(p->entry_row0);
	}
	free(d->pairs);
	d->pairs = NULL;
	d->npairs = 0;
	free(d->finds);
	d->finds = NULL;
	d->nfinds = 0;
	d->ncritical = d->nwarn = d->ninfo = d->nnote = 0;
	d->verdict = IRDIFF_PASS;
	d->cur_find = SIZE_MAX;
}

void irv_doc_unref(struct irv_doc *d)
{
	if (!d || --d->refs > 0)
		return;
	irv_doc_clear(d);
	free(d->run_dir);
	free(d->ref_path);
	free(d->gen_path);
	free(d);
}

/* The file's line s says what the shown text t does, blanks aside; t may
 * go on past it (an op whose region arguments the file puts on the next
 * line). */
static bool same_but_blanks(const char *s, const char *t)
{
	for (;; s++, t++) {
		while (*s == ' ' || *s == '\t')
			s++;
		while (*t == ' ' || *t == '\t')
			t++;
		if (!*s)
			return true;
		if (*s != *t)
			return false;
	}
}

/* Whether a side's ops are shown otherwise than the file writes them at
 * the lines shown beside them: the canonical printer renumbers values (the
 * file's %3 is %0 on screen). Spacing alone does not count. */
static bool reprinted(const char *path, const struct irdiff_result *r, int side)
{
	size_t len;
	char *text = read_file(path, &len, NULL);
	if (!text)
		return false;
	size_t n;
	char **lines = str_split(text, '\n', true, &n);
	free(text);
	bool differs = false;
	for (size_t e = 0; r && e < r->nentries && !differs; e++)
		for (size_t i = 0; i < r->entries[e].nrows && !differs; i++) {
			const struct irdiff_side *s = side ? &r->entries[e].rows[i].gen : &r->entries[e].rows[i].ref;
			if (s->text && s->first && s->first <= n)
				differs = !same_but_blanks(lines[s->first - 1], s->text);
		}
	strv_free(lines);
	return differs;
}

/* Shown relative to the run when inside it, saying when the pane shows the
 * canonical print rather than the file's own text. */
static char *shown_name(const struct irv_doc *d, const char *path, const struct ir_module *m,
			const struct irdiff_result *r, int side)
{
	const char *s = path;
	size_t rl = d->run_dir ? strlen(d->run_dir) : 0;
	if (rl && !strncmp(path, d->run_dir, rl) && path[rl] == '/')
		s = path + rl + 1;
	const char *note = m && m->source == IR_SRC_BYTECODE ? " (bytecode)"
			 : m && r && reprinted(path, r, side) ? " (canonical print)" : "";
	return xasprintf("%s%s", s, note);
}

/* Load and diff one pair; a side that is missing or does not load leaves
 * the pair without a diff and says why in p->problem. */
static void pair_load(struct irv_doc *d, struct irv_pair *p, const char *ref, const char *gen)
{
	struct tp_err err;
	tp_err_clear(&err);
	if (!ref || !gen) {
		char *want = ref ? irpairs_gen_candidates(p->variant) : irpairs_ref_name(p->variant);
		char *have = shown_name(d, ref ? ref : gen, NULL, NULL, 0);
		p->problem = xasprintf("%s side missing for %s (looked for %s)",
				       ref ? "generated" : "reference", have, want);
		free(want);
		free(have);
	} else if (!ir_module_load_pair(ref, gen, &p->ref, &p->gen, &err)) {
		p->problem = xstrdup(err.msg);
	} else {
		struct irdiff_options o = {.keep_dead_constants = d->keep_dead, .texts = true};
		p->r = irdiff_modules(p->ref, p->gen, &o, &err);
		if (!p->r)
			p->problem = xstrdup(err.msg);
	}
	p->ref_shown = ref ? shown_name(d, ref, p->ref, p->r, 0) : xstrdup("(none)");
	p->gen_shown = gen ? shown_name(d, gen, p->gen, p->r, 1) : xstrdup("(none)");
}

/* The item a finding points at: its row, else the row on its line range,
 * else its entry, else its pair. */
static uint32_t finding_item(const struct irv_pair *p, const struct irdiff_finding *f)
{
	const struct irdiff_result *r = p->r;
	if (f->entry < 0 || (size_t)f->entry >= r->nentries)
		return p->first_item;
	const struct irdiff_entry *e = &r->entries[f->entry];
	uint32_t row0 = p->entry_row0[f->entry];
	if (row0 == NO_ITEM)
		return p->entry_head[f->entry];
	if (f->row >= 0 && (size_t)f->row < e->nrows)
		return row0 + (uint32_t)f->row;
	for (size_t i = 0; i < e->nrows; i++) {
		const struct irdiff_row *rw = &e->rows[i];
		if ((f->ref_first && rw->ref.text && rw->ref.first == f->ref_first) ||
		    (f->gen_first && rw->gen.text && rw->gen.first == f->gen_first))
			return row0 + (uint32_t)i;
	}
	return p->entry_head[f->entry];
}

static const struct irv_doc *sort_doc; /* qsort has no context argument */

static int cmp_find(const void *a, const void *b)
{
	const struct irv_find *x = a, *y = b;
	if (x->item != y->item)
		return x->item < y->item ? -1 : 1;
	int sx = (int)sort_doc->pairs[x->pair].r->findings[x->index].severity;
	int sy = (int)sort_doc->pairs[y->pair].r->findings[y->index].severity;
	if (sx != sy)
		return sx - sy;
	return x->index < y->index ? -1 : x->index > y->index;
}

static void add_entry_items(struct irv_doc *d, size_t pi)
{
	struct irv_pair *p = &d->pairs[pi];
	const struct irdiff_result *r = p->r;
	size_t ne = r->nentries ? r->nentries : 1;
	p->entry_head = xcalloc(ne, sizeof(uint32_t));
	p->entry_row0 = xcalloc(ne, sizeof(uint32_t));
	for (size_t ei = 0; ei < r->nentries; ei++) {
		const struct irdiff_entry *e = &r->entries[ei];
		bool header = r->nentries > 1 || !e->ref || !e->gen;
		uint32_t head = header ? add_item(d, IV_ENTRY, pi, (uint32_t)ei, 0) : NO_ITEM;
		p->entry_row0[ei] = e->nrows ? (uint32_t)d->nitems : NO_ITEM;
		for (size_t ri = 0; ri < e->nrows; ri++)
			add_item(d, IV_ROW, pi, (uint32_t)ei, (uint32_t)ri);
		p->entry_head[ei] = head != NO_ITEM ? head
				    : p->entry_row0[ei] != NO_ITEM ? p->entry_row0[ei] : p->first_item;
	}
	if (!r->nentries)
		add_item(d, IV_EMPTY, pi, 0, 0);
}

/* Items, findings, marks, counts and the line number width. */
static void doc_build(struct irv_doc *d)
{
	uint32_t maxline = 0;
	size_t nf = 0;
	for (size_t pi = 0; pi < d->npairs; pi++) {
		struct irv_pair *p = &d->pairs[pi];
		if (d->npairs > 1)
			add_item(d, IV_SUMMARY, pi, 0, 0);
		p->first_item = add_item(d, IV_PAIR, pi, 0, 0);
		if (!p->r) {
			add_item(d, IV_EMPTY, pi, 0, 0);
			continue;
		}
		add_entry_items(d, pi);
		nf += p->r->nfindings;
		if (p->r->verdict > d->verdict)
			d->verdict = p->r->verdict;
		d->ncritical += p->r->ncritical;
		d->nwarn += p->r->nwarn;
		d->ninfo += p->r->ninfo;
		d->nnote += p->r->nnote;
		for (size_t ei = 0; ei < p->r->nentries; ei++) {
			const struct irdiff_entry *e = &p->r->entries[ei];
			for (size_t ri = 0; ri < e->nrows; ri++) {
				if (e->rows[ri].ref.last > maxline)
					maxline = e->rows[ri].ref.last;
				if (e->rows[ri].gen.last > maxline)
					maxline = e->rows[ri].gen.last;
			}
		}
	}
	d->finds = xcalloc(nf ? nf : 1, sizeof(*d->finds));
	for (size_t pi = 0; pi < d->npairs; pi++) {
		const struct irv_pair *p = &d->pairs[pi];
		for (size_t i = 0; p->r && i < p->r->nfindings; i++) {
			const struct irdiff_finding *f = &p->r->findings[i];
			struct irv_find *fd = &d->finds[d->nfinds++];
			fd->pair = (uint16_t)pi;
			fd->index = (uint32_t)i;
			fd->item = finding_item(p, f);
			struct irv_item *it = &d->items[fd->item];
			if (it->mark < 0 || (int)f->severity < it->mark)
				it->mark = (int8_t)f->severity;
		}
	}
	sort_doc = d;
	qsort(d->finds, d->nfinds, sizeof(*d->finds), cmp_find);
	d->lnw = 2;
	for (uint32_t m = maxline; m >= 100; m /= 10)
		d->lnw++;
}

/* Fill the document from its sources. Two files: -1 when either does not
 * load. A run: -1 when nothing at all can be diffed; the problems of the
 * other pairs go to *problems. */
int irv_doc_load(struct irv_doc *d, char **problems, struct tp_err *err)
{
	*problems = NULL;
	if (!d->run_dir) {
		d->pairs = xcalloc(1, sizeof(*d->pairs));
		d->npairs = 1;
		d->pairs[0].variant = xstrdup("");
		pair_load(d, &d->pairs[0], d->ref_path, d->gen_path);
		if (!d->pairs[0].r) {
			tp_err_set(err, TP_EXIT_USAGE, "%s", d->pairs[0].problem);
			return -1;
		}
		doc_build(d);
		return 0;
	}
	struct irpair_list l;
	irpairs_of_run(d->run_dir, &l);
	if (!l.n) {
		tp_err_set(err, TP_EXIT_USAGE,
			   "No IR to diff in %s: no reference/reference*.mlir and no "
			   "generated/generated*.mlir", d->run_dir);
		irpairs_free(&l);
		return -1;
	}
	d->pairs = xcalloc(l.n, sizeof(*d->pairs));
	d->npairs = l.n;
	struct sbuf why = SBUF_INIT;
	size_t diffed = 0;
	for (size_t i = 0; i < l.n; i++) {
		struct irv_pair *p = &d->pairs[i];
		p->variant = xstrdup(l.v[i].variant);
		pair_load(d, p, l.v[i].ref, l.v[i].gen);
		if (p->problem)
			sb_printf(&why, "%s%s", why.len ? "; " : "", p->problem);
		diffed += p->r != NULL;
	}
	irpairs_free(&l);
	if (!diffed) {
		tp_err_set(err, TP_EXIT_USAGE, "IR diff: %s", sb_str(&why));
		sb_free(&why);
		return -1;
	}
	doc_build(d);
	*problems = why.len ? sb_detach(&why) : NULL;
	sb_free(&why);
	return 0;
}

