/* The reference diff_ir.sh rules (pipeline.md §6), applied per entry pair on
 * the parsed IR instead of on words: op-count families, launch hints, tile
 * shapes, reduce identities, rounding, block swizzle, pointer and scalar
 * `assume div_by`, flush_to_zero and approx per op, allow_tma and latency
 * hints, MMA accumulator types, bf16 use. Row-level checks and the layout
 * rules are in irdiff_checks.c. */
#include "engine/ir/irdiff_internal.h"
#include "engine/ir/ir_internal.h"

#include <stdio.h>

#include <stdlib.h>
#include <string.h>

/* ---- helpers over one side ---- */

void irdiff_range_add(struct range *r, const struct nline *l)
{
	uint32_t first = nline_first(l), last = nline_last(l);
	r->n++;
	if (first && (!r->first || first < r->first))
		r->first = first;
	if (last > r->last)
		r->last = last;
}

struct range irdiff_count_if(const struct nside *s, bool (*pred)(const struct ir_op *, const void *),
			     const void *ctx)
{
	struct range r = {0, 0, 0};
	for (size_t i = 0; s && i < s->n; i++)
		if (nline_counted(&s->lines[i]) && pred(s->lines[i].op, ctx))
			irdiff_range_add(&r, &s->lines[i]);
	return r;
}

int irdiff_find_row(const struct irdiff_entry *e, const char *name, bool unpaired_only)
{
	for (size_t i = 0; i < e->nrows; i++) {
		const struct irdiff_row *w = &e->rows[i];
		if (unpaired_only && w->kind == IRDIFF_ROW_EQUAL)
			continue;
		const struct ir_op *op = w->ref.op ? w->ref.op : w->gen.op;
		if (op && strcmp(irdiff_op_name(op), name) == 0)
			return (int)i;
	}
	return -1;
}

struct irdiff_finding *irdiff_add_ranges(struct fbuf *fb, const char *rule,
					 enum irdiff_severity sev, int entry, struct range a,
					 struct range b, int row, char *msg)
{
	struct irdiff_finding *f = irdiff_add(fb, rule, sev, entry, "%s", msg);
	f->ref_first = a.first;
	f->ref_last = a.last;
	f->gen_first = b.first;
	f->gen_last = b.last;
	f->row = row;
	free(msg);
	return f;
}

/* ---- op-count families ---- */

static const struct {
	const char *op, *family;
	const char *names[4];
} families[] = {
	{"load_ptr_tko", "critical", {"load_ptr_tko"}},
	{"store_ptr_tko", "critical", {"store_ptr_tko"}},
	{"load_view_tko", "critical", {"load_view_tko"}},
	{"store_view_tko", "critical", {"store_view_tko"}},
	{"reduce", "critical", {"reduce"}},
	{"exp", "critical", {"exp"}},
	{"exp2", "critical", {"exp2"}},
	{"rsqrt", "critical", {"rsqrt"}},
	{"fma", "critical", {"fma"}},
	{"mma", "critical", {"mmaf", "mmai", "mmaf_scaled"}},
	{"for", "critical", {"for"}},
	{"addf", "arith", {"addf"}},
	{"subf", "arith", {"subf"}},
	{"mulf", "arith", {"mulf"}},
	{"divf", "arith", {"divf"}},
	{"maxf", "arith", {"maxf"}},
	{"minf", "arith", {"minf"}},
	{"assert", "info", {"assert"}},
	{"select", "info", {"select"}},
	{"iota", "info", {"iota"}},
	{"cmpi", "info", {"cmpi"}},
	{"ftof", "info", {"ftof"}},
	{"itof", "info", {"itof"}},
	{"exti", "info", {"exti"}},
};

/* ---- exp and exp2(x * log2(e)) ----
 * cuTile lowers exp(x) to exp2 of x times log2(e); a Rust that writes exp
 * (or a reference dumped from a source that wrote exp2) computes the same.
 * An exp2 whose operand is a mulf by a constant within 1e-6 of log2(e)
 * counts as an exp. */

#define LOG2E 1.4426950408889634

static bool const_value(const struct ir_op *op, int depth, double *v)
{
	if (!op || depth > 3)
		return false;
	if ((op->code == IR_OP_BROADCAST || op->code == IR_OP_RESHAPE) && op->noperands)
		return const_value(ir_value_def(op->operands[0]), depth + 1, v);
	if (op->code != IR_OP_CONSTANT)
		return false;
	const struct ir_attr *a = ir_op_attr(op, "value");
	if (!a || a->kind != IR_ATTR_DENSE || a->n != 1 || !a->type || !a->type->inner)
		return false;
	const struct ir_type *el = a->type->inner;
	if (el->kind != IR_TY_ELEM)
		return false;
	if (el->elem == IR_F32) {
		uint32_t b = (uint32_t)a->vals[0];
		float f;
		memcpy(&f, &b, sizeof(f));
		*v = f;
		return true;
	}
	if (el->elem == IR_F64) {
		memcpy(v, &a->vals[0], sizeof(*v));
		return true;
	}
	return false;
}

static bool exp2_of_log2e(const struct ir_op *op)
{
	if (op->code != IR_OP_EXP2 || !op->noperands)
		return false;
	const struct ir_op *m = ir_value_def(op->operands[0]);
	if (!m || m->code != IR_OP_MULF || m->noperands < 2)
		return false;
	for (int i = 0; i < 2; i++) {
		double v;
		if (const_value(ir_value_def(m->operands[i]), 0, &v) && v > LOG2E - 1e-6 && v < LOG2E + 1e-6)
			return true;
	}
	return false;
}

struct expcount {
	int exp, exp2, scaled; /* scaled: exp2 of x * log2(e) */
};

static struct expcount count_exp(const struct nside *s)
{
	struct expcount c = {0, 0, 0};
	for (size_t i = 0; s && i < s->n; i++) {
		const struct ir_op *op = nline_counted(&s->lines[i]);
		if (!op)
			continue;
		c.exp += op->code == IR_OP_EXP;
		c.exp2 += op->code == IR_OP_EXP2;
		c.scaled += exp2_of_log2e(op);
	}
	return c;
}

/* v limited to the range between 0 and limit (either sign). */
static int clamp_toward(int v, int limit)
{
	if (limit >= 0)
		return v < 0 ? 0 : v > limit ? limit : v;
	return v > 0 ? 0 : v < limit ? limit : v;
}

static int count_code(const struct nside *s, int code)
{
	int n = 0;
	for (size_t i = 0; s && i < s->n; i++)
		n += nline_counted(&s->lines[i]) && s->lines[i].op->code == code;
	return n;
}

static void op_counts(struct irdiff_entry *e, int ei, const struct nside *ref,
		      const struct nside *gen, struct fbuf *fb)
{
	/* a * b + c fused into fma on one side, a mulf and an addf on the
	 * other (cuTile Python fuses; cuTile Rust writes what the source says) */
	int fr = count_code(ref, IR_OP_FMA), fg = count_code(gen, IR_OP_FMA);
	int fused = fr - fg; /* > 0: the reference fused more */
	int dmul = count_code(gen, IR_OP_MULF) - count_code(ref, IR_OP_MULF);
	/* a * b - c is an fma of a negated c: subf counts with addf */
	int dadd = count_code(gen, IR_OP_ADDF) + count_code(gen, IR_OP_SUBF) - count_code(ref, IR_OP_ADDF) -
		   count_code(ref, IR_OP_SUBF);
	int dsub = count_code(gen, IR_OP_SUBF) - count_code(ref, IR_OP_SUBF);
	bool fma_equiv = fused != 0 && (fused > 0 ? dmul >= fused && dadd >= fused
						  : dmul <= fused && dadd <= fused);
	/* exp written as exp2(x * log2(e)) on one side: the same computation */
	struct expcount xr = count_exp(ref), xg = count_exp(gen);
	bool exp_equiv = xr.exp != xg.exp && xr.exp + xr.scaled == xg.exp + xg.scaled &&
			 xr.exp2 - xr.scaled == xg.exp2 - xg.scaled;
	int moved_mulf = exp_equiv ? xg.scaled - xr.scaled : 0;
	e->ncounts = TP_ARRAY_LEN(families);
	e->counts = xcalloc(e->ncounts, sizeof(*e->counts));
	/* one pass per side: op code -> family row */
	int fam_of[IR_OP_COUNT + 1];
	for (int c = 0; c <= IR_OP_COUNT; c++)
		fam_of[c] = -1;
	for (size_t i = 0; i < TP_ARRAY_LEN(families); i++)
		for (int k = 0; k < 4 && families[i].names[k]; k++) {
			const struct ir_opdef *d =
				ir_opdef_by_name(families[i].names[k], strlen(families[i].names[k]));
			if (d)
				fam_of[d->code] = (int)i;
		}
	struct range ra[TP_ARRAY_LEN(families)], rb[TP_ARRAY_LEN(families)];
	memset(ra, 0, sizeof(ra));
	memset(rb, 0, sizeof(rb));
	for (int side = 0; side < 2; side++) {
		const struct nside *sd = side ? gen : ref;
		struct range *rr = side ? rb : ra;
		for (size_t i = 0; sd && i < sd->n; i++) {
			const struct ir_op *op = nline_counted(&sd->lines[i]);
			if (op && op->code <= IR_OP_COUNT && fam_of[op->code] >= 0)
				irdiff_range_add(&rr[fam_of[op->code]], &sd->lines[i]);
		}
	}
	for (size_t i = 0; i < TP_ARRAY_LEN(families); i++) {
		struct irdiff_count *c = &e->counts[i];
		struct range a = ra[i], b = rb[i];
		c->op = families[i].op;
		c->family = families[i].family;
		c->ref = a.n;
		c->gen = b.n;
		int d = b.n - a.n;
		snprintf(c->verdict, sizeof(c->verdict), "OK");
		if (exp_equiv && !strcmp(c->op, "mulf") && moved_mulf) {
			/* the multiplies by log2(e) */
			d -= moved_mulf;
			snprintf(c->verdict, sizeof(c->verdict), "EQUIV(%+d)", moved_mulf);
		}
		if (fma_equiv && (!strcmp(c->op, "mulf") || !strcmp(c->op, "addf") || !strcmp(c->op, "subf"))) {
			/* every fma is one multiply and one add or subtract */
			int sub_moved = clamp_toward(dsub, fused);
			int moved = !strcmp(c->op, "mulf")   ? fused
				    : !strcmp(c->op, "subf") ? sub_moved
							     : fused - sub_moved;
			d -= moved;
			if (moved)
				snprintf(c->verdict, sizeof(c->verdict), "EQUIV(%+d)", moved);
		}
		if (fma_equiv && !strcmp(c->op, "fma")) {
			snprintf(c->verdict, sizeof(c->verdict), "EQUIV(%+d)", d);
			irdiff_add_ranges(fb, "op-count-fma", IRDIFF_WARN, ei, a, b,
					  irdiff_find_row(e, "fma", true),
					  xasprintf("fma: %d in the reference, %d generated, with %d more mulf "
						    "and addf generated: a * b + c fused on one side only (the "
						    "same computation up to the rounding of the product)",
						    fr, fg, fused));
			continue;
		}
		if (!d)
			continue;
		int row = irdiff_find_row(e, families[i].names[0], true);
		const char *fam = families[i].family;
		if (exp_equiv && (!strcmp(c->op, "exp") || !strcmp(c->op, "exp2"))) {
			snprintf(c->verdict, sizeof(c->verdict), "EQUIV(%+d)", d);
			if (!strcmp(c->op, "exp"))
				irdiff_add_ranges(fb, "op-count-exp", IRDIFF_INFO, ei, a, b, row,
						  xasprintf("exp: %d in the reference, %d generated, and exp2 of x * "
							    "log2(e): %d and %d: the same computation (cuTile lowers "
							    "exp(x) to exp2(x * log2(e)))",
							    xr.exp, xg.exp, xr.scaled, xg.scaled));
			continue;
		}
		if (!strcmp(c->op, "assert")) {
			snprintf(c->verdict, sizeof(c->verdict), "INFO(%+d)", d);
			irdiff_add_ranges(fb, "op-count-assert", IRDIFF_INFO, ei, a, b, row,
					  xasprintf("assert: %d in the reference, %d generated: bounds checks "
						    "one side makes at run time (cuTile Rust checks partition "
						    "accesses unless the entry says unchecked_accesses = true)",
						    a.n, b.n));
			continue;
		}
		if (strcmp(fam, "info") == 0) {
			snprintf(c->verdict, sizeof(c->verdict), "INFO(%+d)", d);
			irdiff_add_ranges(fb, "op-count-info", IRDIFF_INFO, ei, a, b, row,
					  xasprintf("%s: %d in the reference, %d generated (info only)",
						    c->op, a.n, b.n));
		} else if (strcmp(fam, "arith") == 0 && abs(d) <= 2) {
			snprintf(c->verdict, sizeof(c->verdict), "WORKAROUND(%+d)", d);
			irdiff_add_ranges(fb, "op-count-arith", IRDIFF_WARN, ei, a, b, row,
					  xasprintf("%s: %d in the reference, %d generated (a difference of "
						    "2 or less is an accepted workaround)", c->op, a.n, b.n));
		} else {
			snprintf(c->verdict, sizeof(c->verdict), "CRITICAL_DIFF");
			irdiff_add_ranges(fb, strcmp(fam, "arith") == 0 ? "op-count-arith" : "op-count",
					  IRDIFF_CRITICAL, ei, a, b, row,
					  xasprintf("%s: %d in the reference, %d generated", c->op, a.n,
						    b.n));
		}
	}
}

/* ---- launch hints ---- */

static int64_t hint_value(const struct ir_op *entry, const char *arch, const char *key)
{
	const struct ir_attr *h = entry ? ir_op_attr(entry, "optimization_hints") : NULL;
	const struct ir_attr *v = ir_dict_get(ir_dict_get(h, arch), key);
	if (!v)
		v = ir_dict_get(ir_dict_get(h, "default"), key);
	return v && v->kind == IR_ATTR_INT ? v->i : 0;
}

static void collect_archs(const struct ir_op *entry, const char **archs, size_t *n, size_t cap)
{
	const struct ir_attr *h = entry ? ir_op_attr(entry, "optimization_hints") : NULL;
	for (uint32_t i = 0; h && h->kind == IR_ATTR_HINTS && i < h->n; i++) {
		bool seen = false;
		for (size_t k = 0; k < *n; k++)
			seen |= strcmp(archs[k], h->keys[i]) == 0;
		if (!seen && *n < cap)
			archs[(*n)++] = h->keys[i];
	}
}

/* "sm_89, sm_100": the architectures hinted for, "default" aside. */
static char *arch_list(const struct ir_op *entry)
{
	const char *v[64];
	size_t n = 0;
	collect_archs(entry, v, &n, 64);
	struct sbuf sb = SBUF_INIT;
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i], "default") != 0)
			sb_printf(&sb, "%s%s", sb.len ? ", " : "", v[i]);
	return sb_detach(&sb);
}

/* Hints for some targets and none under "default". */
static bool per_target_only(const struct ir_op *entry)
{
	const struct ir_attr *h = entry ? ir_op_attr(entry, "optimization_hints") : NULL;
	if (!h || h->kind != IR_ATTR_HINTS || !h->n)
		return false;
	for (uint32_t i = 0; i < h->n; i++)
		if (!strcmp(h->keys[i], "default"))
			return false;
	return true;
}

static void hints(struct irdiff_entry *e, int ei, struct fbuf *fb)
{
	static const char *const keys[] = {"occupancy", "num_cta_in_cga"};
	const char *archs[64];
	size_t na = 0;
	collect_archs(e->ref, archs, &na, 64);
	collect_archs(e->gen, archs, &na, 64);
	struct range a = {0, 0, 0}, b = {0, 0, 0};
	irdiff_op_lines(e->ref, &a.first, &a.last);
	irdiff_op_lines(e->gen, &b.first, &b.last);
	/* Hints for different GPUs compare nothing: the reference was dumped
	 * for one architecture and the translation targets another. */
	char *ra = arch_list(e->ref), *ga = arch_list(e->gen);
	if (*ra && *ga && strcmp(ra, ga) != 0)
		irdiff_add_ranges(fb, "hint-arch", IRDIFF_WARN, ei, a, b, 0,
				  xasprintf("optimization_hints are for %s in the reference, %s generated: "
					    "the two were made for different GPUs, so their hints do not "
					    "compare; dump the reference for the target", ra, ga));
	free(ra);
	free(ga);
	for (size_t k = 0; k < TP_ARRAY_LEN(keys); k++) {
		const char *rule = k ? "hint-num-cta-in-cga" : "hint-occupancy";
		for (size_t i = 0; i < na; i++) {
			/* a side that spells its hints per target (cutile-rs takes
			 * no "default") is compared on those targets, where the
			 * other side's default applies */
			if (!strcmp(archs[i], "default") &&
			    (per_target_only(e->ref) || per_target_only(e->gen)))
				continue;
			int64_t rv = hint_value(e->ref, archs[i], keys[k]);
			int64_t gv = hint_value(e->gen, archs[i], keys[k]);
			if (rv == gv)
				continue;
			if (rv && gv)
				irdiff_add_ranges(fb, rule, IRDIFF_CRITICAL, ei, a, b, 0,
						  xasprintf("%s for %s: %lld in the reference, %lld generated",
							    keys[k], archs[i], (long long)rv, (long long)gv));
			else if (rv)
				irdiff_add_ranges(fb, rule, IRDIFF_WARN, ei, a, b, 0,
						  xasprintf("MISSING_HINT: %s = %lld for %s in the reference, "
							    "not set in the generated entry",
							    keys[k], (long long)rv, archs[i]));
			else
				irdiff_add_ranges(fb, rule, IRDIFF_INFO, ei, a, b, 0,
						  xasprintf("%s = %lld for %s is set only in the generated entry "
							    "(the reference leaves it to the compiler)",
							    keys[k], (long long)gv, archs[i]));
		}
	}
}

/* ---- sets of strings (tile shapes, identities, accumulator types) ---- */

struct strset {
	char **v;
	size_t n, cap;
	const struct ir_type **types; /* types already added (interned: pointers compare) */
	size_t ntypes, captypes;
	const struct ir_type *seen[4]; /* the last few asked about: most are asked again */
	unsigned nseen;
	struct pcache *tc;            /* printed types of the side */
};

static void set_add(struct strset *s, const char *str)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->v[i], str) == 0)
			return;
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 16;
		s->v = xrealloc(s->v, s->cap * sizeof(*s->v));
	}
	s->v[s->n++] = xstrdup(str);
}

static bool set_has(const struct strset *s, const char *str)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->v[i], str) == 0)
			return true;
	return false;
}

static void set_free(struct strset *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	free(s->types);
}

/* "a, b, c (+N more)" of the members of x missing from y. */
static char *set_minus(const struct strset *x, const struct strset *y, int *count)
{
	struct sbuf sb = SBUF_INIT;
	int n = 0;
	for (size_t i = 0; i < x->n; i++)
		if (!set_has(y, x->v[i])) {
			if (n < 6)
				sb_printf(&sb, "%s%s", n ? ", " : "", x->v[i]);
			n++;
		}
	if (n > 6)
		sb_printf(&sb, " (+%d more)", n - 6);
	*count = n;
	return sb_detach(&sb);
}

typedef void (*collect_fn)(const struct ir_op *op, struct strset *s);

static void print_type(struct strset *s, struct sbuf *sb, const struct ir_type *t)
{
	if (s->tc)
		irdiff_cached_type(sb, s->tc, t);
	else
		ir_print_type(sb, t);
}

/* skip: lines whose `dead` has these bits are left out. An op nothing live
 * reads (cuTile Python's compiler drops those, cutile's keeps them: an
 * offset only a branch the specialisation removed reads makes no tile of
 * the kernel), and a branch a constant condition does not take. */
static void tile_shapes(const struct ir_op *op, struct strset *s);

static void collect(const struct nside *side, collect_fn fn, struct strset *s, int skip)
{
	for (size_t i = 0; side && i < side->n; i++)
		if (nline_counted(&side->lines[i]) && !(side->lines[i].dead & skip))
			fn(side->lines[i].op, s);
}

/* First line on a side whose op contributes a member missing from `other`. */
static struct range first_with(const struct nside *side, collect_fn fn, const struct strset *other,
			       struct pcache *tc, int skip)
{
	struct range r = {0, 0, 0};
	for (size_t i = 0; side && i < side->n; i++) {
		if (!nline_counted(&side->lines[i]) || (side->lines[i].dead & skip))
			continue;
		struct strset one = {0};
		one.tc = tc;
		fn(side->lines[i].op, &one);
		bool hit = false;
		for (size_t k = 0; k < one.n; k++)
			hit |= !set_has(other, one.v[k]);
		set_free(&one);
		if (hit) {
			irdiff_range_add(&r, &side->lines[i]);
			return r;
		}
	}
	return r;
}

static void compare_sets(struct irdiff_entry *e, int ei, const struct nside *ref,
			 const struct nside *gen, struct pcache *types, struct fbuf *fb,
			 collect_fn fn, const char *rule, const char *what, bool need_both)
{
	/* a, b: what each side's live lines have; ac, bc: what accounts for
	 * the other side's, which for tile shapes takes in the lines of a
	 * branch a constant condition does not take (cutile keeps the `if`
	 * such a comparison folded, cuTile Python drops it or keeps it as a
	 * test that never holds) */
	struct strset a = {0}, b = {0}, ac = {0}, bc = {0};
	a.tc = ac.tc = &types[0];
	b.tc = bc.tc = &types[1];
	bool shapes = fn == tile_shapes;
	int skip = shapes ? NLINE_DEAD | NLINE_UNTAKEN : 0;
	collect(ref, fn, &a, skip);
	collect(gen, fn, &b, skip);
	collect(ref, fn, &ac, shapes ? NLINE_DEAD : 0);
	collect(gen, fn, &bc, shapes ? NLINE_DEAD : 0);
	int na, nb;
	char *ra = set_minus(&a, &bc, &na), *rb = set_minus(&b, &ac, &nb);
	if ((na || nb) && (!need_both || (a.n && b.n))) {
		struct sbuf m = SBUF_INIT;
		sb_printf(&m, "%s differ", what);
		if (na)
			sb_printf(&m, "; only in the reference: %s", ra);
		if (nb)
			sb_printf(&m, "; only generated: %s", rb);
		struct range x = first_with(ref, fn, &bc, a.tc, skip),
			     y = first_with(gen, fn, &ac, b.tc, skip);
		irdiff_add_ranges(fb, rule, IRDIFF_CRITICAL, ei, x, y, -1, sb_detach(&m));
	}
	(void)e;
	free(ra);
	free(rb);
	set_free(&a);
	set_free(&b);
	set_free(&ac);
	set_free(&bc);
}

static void add_shaped(const struct ir_type *t, struct strset *s)
{
	for (unsigned i = 0; i < TP_ARRAY_LEN(s->seen); i++)
		if (s->seen[i] == t)
			return;
	s->seen[s->nseen++ % TP_ARRAY_LEN(s->seen)] = t;
	if (!t || t->kind != IR_TY_TILE || !t->rank || ir_type_is_ptr_tile(t))
		return;
	/* one element (tile<1xT>, tile<1x1xT>) is a scalar spelled as a tile:
	 * cuTile Python broadcasts a scalar through one, cuTile Rust splats it */
	bool one = true;
	for (uint32_t d = 0; d < t->rank; d++)
		one &= t->shape[d] == 1;
	if (one)
		return;
	/* printing is the cost; a kernel has few distinct types */
	for (size_t i = 0; i < s->ntypes; i++)
		if (s->types[i] == t)
			return;
	if (s->ntypes == s->captypes) {
		s->captypes = s->captypes ? s->captypes * 2 : 16;
		s->types = xrealloc(s->types, s->captypes * sizeof(*s->types));
	}
	s->types[s->ntypes++] = t;
	struct sbuf sb = SBUF_INIT;
	print_type(s, &sb, t);
	set_add(s, sb.buf);
	sb_free(&sb);
}

/* A literal written in another type and converted (cuTile Rust has no f16
 * literal for a generic E: constant f32 then ftof, where cuTile Python
 * writes the f16 constant) is the same value: a constant's type counts
 * where it is used, and not as the operand of such a conversion. */
static bool converted_literal(const struct ir_op *op, uint32_t operand)
{
	const struct ir_op *d = ir_value_def(op->operands[operand]);
	return op->code == IR_OP_FTOF && d && d->code == IR_OP_CONSTANT;
}

static void tile_shapes(const struct ir_op *op, struct strset *s)
{
	for (uint32_t i = 0; i < op->nresults && op->code != IR_OP_CONSTANT; i++)
		add_shaped(op->results[i]->type, s);
	for (uint32_t i = 0; i < op->noperands; i++)
		if (!converted_literal(op, i))
			add_shaped(op->operands[i]->type, s);
}

static void identities(const struct ir_op *op, struct strset *s)
{
	if (op->code != IR_OP_REDUCE && op->code != IR_OP_SCAN)
		return;
	const struct ir_attr *a = ir_op_attr(op, "identities");
	if (!a)
		return;
	struct sbuf sb = SBUF_INIT;
	ir_print_attr(&sb, a);
	set_add(s, sb.buf);
	sb_free(&sb);
}

static bool is_mma(const struct ir_op *op)
{
	return op->code == IR_OP_MMAF || op->code == IR_OP_MMAI || op->code == IR_OP_MMAF_SCALED;
}

static void mma_acc(const struct ir_op *op, struct strset *s)
{
	if (is_mma(op) && op->nresults)
		add_shaped(op->results[0]->type, s);
}

static void mma_operands(const struct ir_op *op, struct strset *s)
{
	if (!is_mma(op) || op->noperands < 2)
		return;
	struct sbuf sb = SBUF_INIT;
	print_type(s, &sb, op->operands[0]->type);
	sb_adds(&sb, " x ");
	print_type(s, &sb, op->operands[1]->type);
	set_add(s, sb.buf);
	sb_free(&sb);
}

static struct range split_copies(const struct nside *s)
{
	struct range r = {0, 0, 0};
	for (size_t i = 0; s && i < s->n; i++)
		if (s->lines[i].split_copy && s->lines[i].op && s->lines[i].op->code == IR_OP_FOR)
			irdiff_range_add(&r, &s->lines[i]);
	return r;
}

/* A loop one side's compiler split at the loop index (irdiff_norm.c) is
 * counted once; what differs is a branch per iteration the other side
 * keeps. */
static void loop_split(int ei, const struct nside *ref, const struct nside *gen, struct fbuf *fb)
{
	struct range a = split_copies(ref), b = split_copies(gen);
	if (a.n > b.n)
		irdiff_add_ranges(fb, "loop-split", IRDIFF_WARN, ei, a, b, -1,
				  xasprintf("%d loop(s) split in two in the reference (a first loop up to a "
					    "mini without the branch on the loop index, the rest after a "
					    "maxi with it), one loop generated: the same iterations, the "
					    "generated one tests the branch on every iteration",
					    a.n));
	else if (b.n > a.n)
		irdiff_add_ranges(fb, "loop-split", IRDIFF_INFO, ei, a, b, -1,
				  xasprintf("%d loop(s) split in two generated, not in the reference: the same "
					    "iterations",
					    b.n));
}

void irdiff_rules(struct irdiff_entry *e, int ei, const struct nside *ref, const struct nside *gen,
		  const struct rowlines *rl, struct pcache *types, struct fbuf *fb)
{
	op_counts(e, ei, ref, gen, fb);
	loop_split(ei, ref, gen, fb);
	hints(e, ei, fb);
	compare_sets(e, ei, ref, gen, types, fb, tile_shapes, "tile-shapes", "tile shapes", true);
	compare_sets(e, ei, ref, gen, types, fb, identities, "reduce-identities", "reduce identities",
		     false);
	compare_sets(e, ei, ref, gen, types, fb, mma_acc, "mma-acc-type", "MMA accumulator types",
		     true);
	compare_sets(e, ei, ref, gen, types, fb, mma_operands, "mma-operand-types",
		     "MMA operand types", true);
	irdiff_attr_rules(e, ei, ref, gen, fb);
	irdiff_layout_rules(e, ei, ref, gen, fb);
	irdiff_row_checks(e, ei, ref, gen, rl, fb);
}
