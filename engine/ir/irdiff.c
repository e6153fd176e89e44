/* irdiff: match entries by name modulo mangling, flatten and align each
 * pair, run the rules, and decide the verdict as the reference diff_ir.sh
 * does: any CRITICAL -> FAIL_FIXABLE (exit 1), else any WARN ->
 * PASS_WITH_NOTES (exit 2), else PASS (exit 0). INFO and NOTE findings do not
 * change the verdict. */
#include "engine/ir/irdiff_internal.h"

#include <git2.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

struct priv {
	struct nside *sides; /* 2 per entry; kept only for their texts */
	size_t n;
	char *alignment;
};

struct irdiff_finding *irdiff_add(struct fbuf *fb, const char *rule, enum irdiff_severity sev,
				  int entry, const char *fmt, ...)
{
	if (fb->n == fb->cap) {
		fb->cap = fb->cap ? fb->cap * 2 : 32;
		fb->v = xrealloc(fb->v, fb->cap * sizeof(*fb->v));
	}
	struct irdiff_finding *f = &fb->v[fb->n++];
	memset(f, 0, sizeof(*f));
	f->rule = rule;
	f->severity = sev;
	f->entry = entry;
	f->row = -1;
	va_list ap;
	va_start(ap, fmt);
	f->message = xvasprintf(fmt, ap);
	va_end(ap);
	return f;
}

/* ---- entry names ---- */

static const char *strip_underscores(const char *s)
{
	while (*s == '_')
		s++;
	return s;
}

int irdiff_name_match(const char *ref, const char *gen)
{
	if (strcmp(ref, gen) == 0)
		return 100;
	const char *a = strip_underscores(ref), *b = strip_underscores(gen);
	if (!*a || !*b)
		return 0;
	if (strcmp(a, b) == 0)
		return 95;
	size_t la = strlen(a), lb = strlen(b), p = 0;
	while (a[p] && a[p] == b[p])
		p++;
	size_t shorter = la < lb ? la : lb;
	/* one name is the other plus a mangling suffix ("_kernel_<hash>", "_Kt1_...") */
	if (p == shorter && (a[p] == '_' || b[p] == '_'))
		return 90;
	if (p >= 8 || (shorter && p * 10 >= shorter * 6))
		return 50 + (int)(p > 40 ? 40 : p);
	if (strstr(a, b) || strstr(b, a))
		return 40;
	return 0;
}

static const struct ir_module *sort_gen; /* qsort has no context argument */

static int by_name(const void *x, const void *y)
{
	return strcmp(ir_symbol_name(sort_gen->entries[*(const uint32_t *)x]),
		      ir_symbol_name(sort_gen->entries[*(const uint32_t *)y]));
}

/* Greedy best-score pairing; with one entry on each side they always pair. */
static void match_entries(const struct ir_module *ref, const struct ir_module *gen, int *gen_of)
{
	uint32_t nr = ref->nentries, ng = gen->nentries;
	bool *used = xcalloc(ng ? ng : 1, sizeof(bool));
	for (uint32_t i = 0; i < nr; i++)
		gen_of[i] = -1;
	/* exact names first, through a sorted index: modules can hold
	 * thousands of entries */
	uint32_t *order = xcalloc(ng ? ng : 1, sizeof(*order));
	for (uint32_t j = 0; j < ng; j++)
		order[j] = j;
	sort_gen = gen;
	qsort(order, ng, sizeof(*order), by_name);
	uint32_t unmatched = 0;
	for (uint32_t i = 0; i < nr; i++) {
		const char *name = ir_symbol_name(ref->entries[i]);
		size_t lo = 0, hi = ng;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			if (strcmp(ir_symbol_name(gen->entries[order[mid]]), name) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; lo < ng && strcmp(ir_symbol_name(gen->entries[order[lo]]), name) == 0; lo++)
			if (!used[order[lo]]) {
				gen_of[i] = (int)order[lo];
				used[order[lo]] = true;
				break;
			}
		unmatched += gen_of[i] < 0;
	}
	free(order);
	/* the rest by best mangling score (few entries remain in practice) */
	while (unmatched) {
		int best = 0, bi = -1, bj = -1;
		for (uint32_t i = 0; i < nr; i++) {
			if (gen_of[i] >= 0)
				continue;
			for (uint32_t j = 0; j < ng; j++) {
				if (used[j])
					continue;
				int s = irdiff_name_match(ir_symbol_name(ref->entries[i]),
							  ir_symbol_name(gen->entries[j]));
				if (s > best)
					best = s, bi = (int)i, bj = (int)j;
			}
		}
		if (bi < 0)
			break;
		gen_of[bi] = bj;
		used[bj] = true;
		unmatched--;
	}
	if (nr == 1 && ng == 1 && gen_of[0] < 0)
		gen_of[0] = 0;
	free(used);
}

/* ---- the diff ---- */

struct irdiff_result *irdiff_modules(const struct ir_module *ref, const struct ir_module *gen,
				     const struct irdiff_options *opt, struct tp_err *err)
{
	struct irdiff_options none = {false, false};
	if (!opt)
		opt = &none;
	struct irdiff_result *r = xcalloc(1, sizeof(*r));
	r->ref = ref;
	r->gen = gen;
	int *gen_of = xcalloc(ref->nentries ? ref->nentries : 1, sizeof(int));
	match_entries(ref, gen, gen_of);
	bool *gen_used = xcalloc(gen->nentries ? gen->nentries : 1, sizeof(bool));
	size_t cap = ref->nentries + gen->nentries;
	r->entries = xcalloc(cap ? cap : 1, sizeof(*r->entries));
	struct priv *pv = xcalloc(1, sizeof(*pv));
	pv->sides = xcalloc(2 * (cap ? cap : 1), sizeof(*pv->sides));
	r->priv = pv;
	struct fbuf fb = {NULL, 0, 0};
	struct pcache types[2];
	memset(types, 0, sizeof(types));
	struct rowlines rl = {NULL, NULL};
	int rc = 0;
	bool libgit2_up = false;
	for (uint32_t i = 0; i <= ref->nentries + gen->nentries && rc == 0; i++) {
		const struct ir_op *a = NULL, *b = NULL;
		if (i < ref->nentries) {
			a = ref->entries[i];
			if (gen_of[i] >= 0) {
				b = gen->entries[gen_of[i]];
				gen_used[gen_of[i]] = true;
			}
		} else if (i - ref->nentries < gen->nentries) {
			uint32_t j = i - ref->nentries;
			if (gen_used[j])
				continue;
			b = gen->entries[j];
		} else {
			break;
		}
		int ei = (int)r->nentries++;
		struct irdiff_entry *e = &r->entries[ei];
		struct nside *sa = &pv->sides[2 * ei], *sb = &pv->sides[2 * ei + 1];
		pv->n = r->nentries;
		e->ref = a;
		e->gen = b;
		e->ref_name = a ? ir_symbol_name(a) : NULL;
		e->gen_name = b ? ir_symbol_name(b) : NULL;
		if (a)
			irdiff_flatten(a, opt->keep_dead_constants, opt->texts, &types[0], sa);
		if (b)
			irdiff_flatten(b, opt->keep_dead_constants, opt->texts, &types[1], sb);
		rc = irdiff_align(sa, sb, e, &rl, opt->whole_entries, &libgit2_up, err);
		if (rc)
			break;
		if (a && b) {
			irdiff_rules(e, ei, sa, sb, &rl, types, &fb);
		} else {
			struct range x = {0, 0, 0}, y = {0, 0, 0};
			irdiff_op_lines(a, &x.first, &x.last);
			irdiff_op_lines(b, &y.first, &y.last);
			if (a)
				irdiff_add_ranges(&fb, "entry-missing", IRDIFF_CRITICAL, ei, x, y, -1,
						  xasprintf("entry @%s has no counterpart in the generated "
							    "module", e->ref_name));
			else
				irdiff_add_ranges(&fb, "entry-extra", IRDIFF_INFO, ei, x, y, -1,
						  xasprintf("entry @%s exists only in the generated module",
							    e->gen_name));
		}
		if (opt->drop_rows) {
			free(e->rows);
			e->rows = NULL;
		}
		/* the rows have what the lines held but their texts */
		if (!opt->texts) {
			irdiff_nside_free(sa);
			irdiff_nside_free(sb);
		}
	}
	if (libgit2_up)
		git_libgit2_shutdown();
	size_t nmyers = 0;
	for (size_t i = 0; i < r->nentries; i++)
		nmyers += r->entries[i].aligned_myers;
	r->alignment = pv->alignment =
		!nmyers ? xstrdup("libgit2 patience diff over normalised op lines")
		: nmyers == r->nentries
			? xstrdup("libgit2 Myers diff over normalised op lines (too few unique "
				  "lines for patience)")
			: xasprintf("libgit2 patience diff over normalised op lines (Myers for %zu "
				    "entr%s with too few unique lines)",
				    nmyers, nmyers == 1 ? "y" : "ies");
	irdiff_pcache_free(&types[0]);
	irdiff_pcache_free(&types[1]);
	free(rl.ref);
	free(rl.gen);
	free(gen_of);
	free(gen_used);
	if (!ref->nentries && !gen->nentries)
		irdiff_add(&fb, "no-entries", IRDIFF_INFO, -1, "neither module has an entry");
	/* findings are grouped by entry already: each entry's rules run in turn */
	r->findings = fb.v;
	r->nfindings = fb.n;
	for (size_t i = 0; i < fb.n; i++) {
		switch (fb.v[i].severity) {
		case IRDIFF_CRITICAL: r->ncritical++; break;
		case IRDIFF_WARN: r->nwarn++; break;
		case IRDIFF_INFO: r->ninfo++; break;
		case IRDIFF_NOTE: r->nnote++; break;
		}
	}
	r->verdict = r->ncritical ? IRDIFF_FAIL_FIXABLE
		     : r->nwarn  ? IRDIFF_PASS_WITH_NOTES
				 : IRDIFF_PASS;
	if (rc) {
		irdiff_free(r);
		return NULL;
	}
	return r;
}

void irdiff_free(struct irdiff_result *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nentries; i++) {
		free(r->entries[i].rows);
		free(r->entries[i].counts);
	}
	free(r->entries);
	for (size_t i = 0; i < r->nfindings; i++)
		free(r->findings[i].message);
	free(r->findings);
	struct priv *pv = r->priv;
	if (pv) {
		for (size_t i = 0; i < 2 * pv->n; i++)
			irdiff_nside_free(&pv->sides[i]);
		free(pv->alignment);
		free(pv->sides);
		free(pv);
	}
	free(r);
}

const struct irdiff_finding *irdiff_entry_findings(const struct irdiff_result *r, int entry,
						   size_t *n)
{
	/* ordered by entry (the whole module's, -1, last): the first of
	 * `entry` by bisection, the views and reports ask for each entry */
	size_t lo = 0, hi = r->nfindings;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int e = r->findings[mid].entry;
		if (e >= 0 && (entry < 0 || e < entry))
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t i = lo;
	if (i < r->nfindings && r->findings[i].entry != entry)
		i = r->nfindings;
	size_t k = i;
	while (k < r->nfindings && r->findings[k].entry == entry)
		k++;
	*n = k - i;
	return *n ? &r->findings[i] : NULL;
}

const char *irdiff_verdict_name(enum irdiff_verdict v)
{
	switch (v) {
	case IRDIFF_PASS: return "PASS";
	case IRDIFF_PASS_WITH_NOTES: return "PASS_WITH_NOTES";
	case IRDIFF_FAIL_FIXABLE: return "FAIL_FIXABLE";
	}
	return "?";
}

const char *irdiff_severity_name(enum irdiff_severity s)
{
	switch (s) {
	case IRDIFF_CRITICAL: return "CRITICAL";
	case IRDIFF_WARN: return "WARN";
	case IRDIFF_INFO: return "INFO";
	case IRDIFF_NOTE: return "NOTE";
	}
	return "?";
}

int irdiff_exit_code(enum irdiff_verdict v)
{
	return v == IRDIFF_PASS ? 0 : v == IRDIFF_PASS_WITH_NOTES ? 2 : 1;
}

char *irdiff_verdict_line(const struct irdiff_result *r)
{
	switch (r->verdict) {
	case IRDIFF_FAIL_FIXABLE:
		return xasprintf("VERDICT: FAIL_FIXABLE (%d critical diff(s))", r->ncritical);
	case IRDIFF_PASS_WITH_NOTES:
		return xasprintf("VERDICT: PASS_WITH_NOTES (%d note(s))", r->nwarn);
	default:
		return xstrdup("VERDICT: PASS");
	}
}
