/* Op alignment: libgit2's diff over the normalised lines of both sides,
 * then pairing inside each hunk (same op, same depth = a changed row).
 * libgit2 1.5 offers Myers (default), minimal and patience in its public
 * API, no histogram; patience is the closest to histogram (which extends
 * it) and anchors on unique lines, which suits IR where most lines are
 * unique once operands are named by their definitions. Where they are not
 * (a body repeated over and over: every copy normalises to the same
 * lines), patience finds almost nothing to anchor on and ends in a Myers
 * diff of the whole entry anyway, having kept a table of 96 bytes a line
 * for each level of its recursion; such an entry is given to Myers
 * directly (few_anchors). */
#include "engine/ir/irdiff_internal.h"

#include <git2.h>
#include <stdlib.h>
#include <string.h>

struct hunk {
	size_t os, on, ns, nn; /* 0-based start and length on each side */
};

struct hunks {
	struct hunk *v;
	size_t n, cap;
	size_t skip; /* lines before the ones given to libgit2 */
};

static int on_hunk(const git_diff_delta *delta, const git_diff_hunk *h, void *payload)
{
	(void)delta;
	struct hunks *hs = payload;
	if (hs->n == hs->cap) {
		hs->cap = hs->cap ? hs->cap * 2 : 32;
		hs->v = xrealloc(hs->v, hs->cap * sizeof(*hs->v));
	}
	/* git numbers lines from 1; an empty side names the line before */
	struct hunk *k = &hs->v[hs->n++];
	k->on = (size_t)h->old_lines;
	k->nn = (size_t)h->new_lines;
	k->os = hs->skip + (size_t)h->old_start - (h->old_lines ? 1 : 0);
	k->ns = hs->skip + (size_t)h->new_start - (h->new_lines ? 1 : 0);
	return 0;
}

/* libgit2 compares lines of text (and hashes every byte it is given, with
 * SHA-1 too): each line becomes its depth and 54 bits of its hash, 12
 * bytes, a sixth of the IR's size. Rows it calls equal are checked on all
 * 128 bits, so two lines that share those 54 bits cost at most an odd
 * pairing, never a wrong verdict. */
static char *join_lines(const struct nside *s, size_t from, size_t n, size_t *len)
{
	static const char digits[] =
		"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz+/";
	enum { W = 12 }; /* 2 depth (the parsers nest 256 deep at most), 9 hash, newline */
	char *buf = xmalloc(n * W + 1), *p = buf;
	for (size_t i = from; i < from + n; i++) {
		const struct nline *l = &s->lines[i];
		unsigned d = (unsigned)l->depth;
		*p++ = digits[(d >> 6) & 63];
		*p++ = digits[d & 63];
		uint64_t h = l->body[0];
		for (int k = 0; k < 9; k++, h >>= 6)
			*p++ = digits[h & 63];
		*p++ = '\n';
	}
	*p = '\0';
	*len = (size_t)(p - buf);
	return buf;
}

struct rows {
	struct irdiff_entry *e;
	struct rowlines *rl;
	size_t cap;
	const struct nside *ref, *gen;
};

static void side_of(struct irdiff_side *d, const struct nside *s, const struct nline *l)
{
	d->present = true;
	d->op = l->op;
	d->first = nline_first(l);
	d->last = nline_last(l);
	d->text = nline_text(s, l);
	d->depth = l->depth;
}

static void row(struct rows *r, enum irdiff_row_kind k, const struct nline *a, const struct nline *b)
{
	struct irdiff_entry *e = r->e;
	if (e->nrows == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 64;
		e->rows = xrealloc(e->rows, r->cap * sizeof(*e->rows));
		r->rl->ref = xrealloc(r->rl->ref, r->cap * sizeof(*r->rl->ref));
		r->rl->gen = xrealloc(r->rl->gen, r->cap * sizeof(*r->rl->gen));
	}
	r->rl->ref[e->nrows] = a;
	r->rl->gen[e->nrows] = b;
	struct irdiff_row *w = &e->rows[e->nrows++];
	memset(w, 0, sizeof(*w));
	w->kind = k;
	if (a)
		side_of(&w->ref, r->ref, a);
	if (b)
		side_of(&w->gen, r->gen, b);
	switch (k) {
	case IRDIFF_ROW_EQUAL: e->nequal++; break;
	case IRDIFF_ROW_CHANGED: e->nchanged++; break;
	case IRDIFF_ROW_REF_ONLY: e->nref_only++; break;
	case IRDIFF_ROW_GEN_ONLY: e->ngen_only++; break;
	}
}

static bool pairable(const struct nline *a, const struct nline *b)
{
	return a->depth == b->depth && strcmp(nline_name(a), nline_name(b)) == 0;
}

/* A hunk: pair ref lines with later gen lines of the same op in order. */
static void pair_hunk(struct rows *r, const struct nside *ref, size_t os, size_t on,
		      const struct nside *gen, size_t ns, size_t nn)
{
	size_t i = 0, j = 0;
	while (i < on || j < nn) {
		if (i == on) {
			row(r, IRDIFF_ROW_GEN_ONLY, NULL, &gen->lines[ns + j++]);
			continue;
		}
		const struct nline *a = &ref->lines[os + i];
		size_t k = j;
		while (k < nn && !pairable(a, &gen->lines[ns + k]))
			k++;
		if (k == nn) {
			row(r, IRDIFF_ROW_REF_ONLY, a, NULL);
			i++;
			continue;
		}
		while (j < k)
			row(r, IRDIFF_ROW_GEN_ONLY, NULL, &gen->lines[ns + j++]);
		const struct nline *g = &gen->lines[ns + j++];
		row(r, nline_same(a, g) ? IRDIFF_ROW_EQUAL : IRDIFF_ROW_CHANGED, a, g);
		i++;
	}
}

/* Lines that occur once on each side, counted by what libgit2 compares
 * (depth and the first 64 bits of the hash): patience's anchors. A table
 * of the distinct lines, so a repetitive entry needs little of it. */
struct anchor_slot {
	uint64_t key;
	uint32_t na, nb;
};

static uint64_t anchor_key(const struct nline *l)
{
	/* the 54 bits join_lines gives libgit2 */
	uint64_t k = (l->body[0] & ((UINT64_C(1) << 54) - 1)) ^
		     ((uint64_t)l->depth * 0x9e3779b97f4a7c15ULL);
	return k ? k : 1; /* 0 marks an empty slot */
}

struct keytab {
	struct anchor_slot *v;
	size_t cap, used;
};

static size_t kt_slot(size_t cap, uint64_t key)
{
	return (size_t)(key * 0xff51afd7ed558ccdULL >> 17) & (cap - 1);
}

static struct anchor_slot *kt_add(struct keytab *t, uint64_t key)
{
	if (2 * (t->used + 1) > t->cap) {
		size_t ncap = t->cap ? t->cap * 2 : 256;
		struct anchor_slot *nv = xcalloc(ncap, sizeof(*nv));
		for (size_t i = 0; i < t->cap; i++) {
			if (!t->v[i].key)
				continue;
			size_t j = kt_slot(ncap, t->v[i].key);
			while (nv[j].key)
				j = (j + 1) & (ncap - 1);
			nv[j] = t->v[i];
		}
		free(t->v);
		t->v = nv;
		t->cap = ncap;
	}
	size_t j = kt_slot(t->cap, key);
	while (t->v[j].key && t->v[j].key != key)
		j = (j + 1) & (t->cap - 1);
	if (!t->v[j].key) {
		t->v[j].key = key;
		t->used++;
	}
	return &t->v[j];
}

static bool kt_has(const struct keytab *t, uint64_t key)
{
	if (!t->cap)
		return false;
	for (size_t j = kt_slot(t->cap, key); t->v[j].key; j = (j + 1) & (t->cap - 1))
		if (t->v[j].key == key)
			return true;
	return false;
}

/* Fewer than 1 line in 64 of ref[a, a+n) and gen[b, b+m) is unique on
 * both sides. */
static bool few_anchors(const struct nside *ref, size_t a, size_t n, const struct nside *gen,
			size_t b, size_t m)
{
	if ((n < m ? n : m) < 64)
		return false;
	struct keytab t = {NULL, 0, 0};
	size_t anchors = 0;
	for (size_t i = 0; i < n; i++)
		kt_add(&t, anchor_key(&ref->lines[a + i]))->na++;
	for (size_t i = 0; i < m; i++)
		kt_add(&t, anchor_key(&gen->lines[b + i]))->nb++;
	for (size_t i = 0; i < t.cap; i++)
		anchors += t.v[i].na == 1 && t.v[i].nb == 1;
	free(t.v);
	return anchors * 64 < (n < m ? n : m);
}

/* Lines equal at both ends of an entry need no diff, and libgit2 would hash
 * every byte of them (SHA-1 and its own line hash) to find that out. For
 * patience, only ends whose lines occur nowhere in the middle are left out:
 * then what it counts in the middle (which lines are unique on both sides)
 * is what it would count in the whole entry, it anchors the same way, and
 * the rows are the same (docs/ir.md). Myers is given whole entries: xdiff
 * trims their ends itself, but weighs lines against the whole file. */
static void common_ends(const struct nside *ref, const struct nside *gen, size_t *pre,
			size_t *suf)
{
	size_t na = ref->n, nb = gen->n, p = 0, s = 0;
	while (p < na && p < nb && anchor_key(&ref->lines[p]) == anchor_key(&gen->lines[p]))
		p++;
	while (s < na - p && s < nb - p &&
	       anchor_key(&ref->lines[na - 1 - s]) == anchor_key(&gen->lines[nb - 1 - s]))
		s++;
	struct keytab mid = {NULL, 0, 0};
	if (p || s) {
		for (size_t i = p; i < na - s; i++)
			kt_add(&mid, anchor_key(&ref->lines[i]));
		for (size_t i = p; i < nb - s; i++)
			kt_add(&mid, anchor_key(&gen->lines[i]));
	}
	/* an end line that occurs in the middle goes back into it, with the
	 * lines between it and the middle; until no end line does */
	for (bool moved = p || s; moved;) {
		moved = false;
		for (size_t i = 0; i < p; i++)
			if (kt_has(&mid, anchor_key(&ref->lines[i]))) {
				for (size_t k = i; k < p; k++)
					kt_add(&mid, anchor_key(&ref->lines[k]));
				p = i;
				moved = true;
				break;
			}
		for (size_t i = 0; i < s; i++)
			if (kt_has(&mid, anchor_key(&ref->lines[na - 1 - i]))) {
				for (size_t k = i; k < s; k++)
					kt_add(&mid, anchor_key(&ref->lines[na - 1 - k]));
				s = i;
				moved = true;
				break;
			}
	}
	free(mid.v);
	*pre = p;
	*suf = s;
}

static bool same_sides(const struct nside *ref, const struct nside *gen)
{
	if (ref->n != gen->n)
		return false;
	for (size_t i = 0; i < ref->n; i++)
		if (!nline_same(&ref->lines[i], &gen->lines[i]))
			return false;
	return true;
}

/* libgit2's global state (it loads TLS certificates on init: slow) is set
 * up once per irdiff_modules call, not per entry, and only once an entry
 * needs a diff: identical entries are aligned one for one without it. */
int irdiff_align(const struct nside *ref, const struct nside *gen, struct irdiff_entry *e,
		 struct rowlines *rl, bool whole, bool *libgit2_up, struct tp_err *err)
{
	struct rows r = {e, rl, 0, ref, gen};
	if (same_sides(ref, gen)) {
		for (size_t i = 0; i < ref->n; i++)
			row(&r, IRDIFF_ROW_EQUAL, &ref->lines[i], &gen->lines[i]);
		if (e->nrows && e->nrows < r.cap)
			e->rows = xrealloc(e->rows, e->nrows * sizeof(*e->rows));
		return 0;
	}
	if (!*libgit2_up) {
		git_libgit2_init();
		*libgit2_up = true;
	}
	size_t pre = 0, suf = 0;
	e->aligned_myers = few_anchors(ref, 0, ref->n, gen, 0, gen->n);
	if (!e->aligned_myers && !whole)
		common_ends(ref, gen, &pre, &suf);
	size_t la, lb;
	char *a = join_lines(ref, pre, ref->n - pre - suf, &la),
	     *b = join_lines(gen, pre, gen->n - pre - suf, &lb);
	struct hunks hs = {NULL, 0, 0, pre};
	git_diff_options opts;
	git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
	opts.flags = (e->aligned_myers ? 0 : GIT_DIFF_PATIENCE) | GIT_DIFF_FORCE_TEXT;
	opts.context_lines = 0;
	opts.interhunk_lines = 0;
	int rc = git_diff_buffers(a, la, "ref", b, lb, "gen", &opts, NULL, NULL, on_hunk, NULL, &hs);
	if (rc < 0) {
		const git_error *ge = git_error_last();
		tp_err_set(err, TP_EXIT_ENV, "libgit2 diff failed: %s", ge ? ge->message : "?");
	}
	free(a);
	free(b);
	if (rc < 0) {
		free(hs.v);
		return -1;
	}
	size_t oi = 0, ni = 0;
	for (size_t h = 0; h <= hs.n; h++) {
		size_t os = h < hs.n ? hs.v[h].os : ref->n;
		size_t ns = h < hs.n ? hs.v[h].ns : gen->n;
		/* lines between hunks are equal, one for one */
		while (oi < os && ni < ns) {
			const struct nline *a = &ref->lines[oi++], *b = &gen->lines[ni++];
			row(&r, nline_same(a, b) ? IRDIFF_ROW_EQUAL : IRDIFF_ROW_CHANGED, a, b);
		}
		if (oi < os || ni < ns) /* cannot happen with a consistent diff */
			pair_hunk(&r, ref, oi, os - oi, gen, ni, ns - ni), oi = os, ni = ns;
		if (h == hs.n)
			break;
		pair_hunk(&r, ref, hs.v[h].os, hs.v[h].on, gen, hs.v[h].ns, hs.v[h].nn);
		oi = hs.v[h].os + hs.v[h].on;
		ni = hs.v[h].ns + hs.v[h].nn;
	}
	free(hs.v);
	/* the rows outlive the diff: give back the doubling's slack */
	if (e->nrows && e->nrows < r.cap)
		e->rows = xrealloc(e->rows, e->nrows * sizeof(*e->rows));
	return 0;
}
