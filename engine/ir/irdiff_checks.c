/* Attribute rules (rounding, block swizzle, assumes, flush_to_zero/approx,
 * TMA and latency hints, bf16, tokens), the layout multiset and the
 * semantic-layout gate, and the row checks a word count cannot make: a
 * reduce on another axis, a padding value changed, a mask dropped, an op
 * moved out of (or into) a loop, a loop step changed. */
#include "engine/ir/irdiff_internal.h"
#include "engine/ir/ir_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The value attribute of the constant that defines v, or NULL. */
static const struct ir_attr *constant_of(const struct ir_value *v)
{
	const struct ir_op *d = ir_value_def(v);
	return d && d->code == IR_OP_CONSTANT ? ir_op_attr(d, "value") : NULL;
}

/* ---- predicates ---- */

/* The predicates run on every op of both sides: they look at the op's own
 * attributes first and at the registry only for the few that qualify. */
static bool nondefault_rounding(const struct ir_op *op, const void *ctx)
{
	(void)ctx;
	for (uint32_t i = 0; i < op->nattrs; i++) {
		const struct ir_attr *a = op->attrs[i].attr;
		if (a->kind != IR_ATTR_ENUM || a->ekind != IR_EN_ROUNDING)
			continue;
		const struct ir_attr_def *d = ir_opdef_attr(op->def, op->attrs[i].name);
		if (d && d->spec == IR_AK_ROUNDING && !ir_attr_is_default(d, a))
			return true;
	}
	return false;
}

static bool swizzle(const struct ir_op *op, const void *ctx)
{
	(void)ctx;
	if (op->code != IR_OP_DIVI && op->code != IR_OP_REMI)
		return false;
	for (uint32_t i = 0; i < op->noperands; i++) {
		const struct ir_value *v = irdiff_through_assume(op->operands[i]);
		const struct ir_op *d = ir_value_def(v);
		if (d && d->code == IR_OP_GET_TILE_BLOCK_ID)
			return true;
	}
	return false;
}

static bool div_by_on(const struct ir_op *op, bool ptr)
{
	if (op->code != IR_OP_ASSUME || !op->noperands)
		return false;
	const struct ir_attr *p = ir_op_attr(op, "predicate");
	if (!p || p->kind != IR_ATTR_DIV_BY)
		return false;
	const struct ir_type *t = op->operands[0]->type;
	if (ptr || ir_type_is_ptr_tile(t))
		return ptr && ir_type_is_ptr_tile(t); /* a tile<ptr<i32>> is no scalar */
	enum ir_elem e = ir_type_elem_of(t);
	return t && t->kind == IR_TY_TILE && t->rank == 0 && (e == IR_I32 || e == IR_I64);
}

static bool ptr_div_by(const struct ir_op *op, const void *ctx)
{
	(void)ctx;
	return div_by_on(op, true);
}

static bool scalar_div_by(const struct ir_op *op, const void *ctx)
{
	(void)ctx;
	return div_by_on(op, false);
}

/* The first row whose generated op satisfies pred, or -1. */
static int gen_row_if(const struct irdiff_entry *e, bool (*pred)(const struct ir_op *, const void *))
{
	for (size_t i = 0; i < e->nrows; i++)
		if (e->rows[i].gen.op && pred(e->rows[i].gen.op, NULL))
			return (int)i;
	return -1;
}

/* ctx: "allow_tma=true", "allow_tma=false" or "latency" */
static bool op_hint(const struct ir_op *op, const void *ctx)
{
	const struct ir_attr *h = NULL;
	for (uint32_t i = 0; i < op->nattrs && !h; i++)
		if (op->attrs[i].attr->kind == IR_ATTR_HINTS)
			h = op->attrs[i].attr;
	if (!h)
		return false;
	const char *want = ctx;
	for (uint32_t i = 0; i < h->n; i++) {
		if (strcmp(want, "latency") == 0) {
			if (ir_dict_get(h->elems[i], "latency"))
				return true;
			continue;
		}
		const struct ir_attr *v = ir_dict_get(h->elems[i], "allow_tma");
		bool on = v && (v->kind == IR_ATTR_BOOL ? v->b : v->kind == IR_ATTR_INT && v->i != 0);
		if (v && on == (strcmp(want, "allow_tma=true") == 0))
			return true;
	}
	return false;
}

static bool type_has_bf16(const struct ir_type *t)
{
	for (; t; t = t->inner) {
		if (t->kind == IR_TY_ELEM)
			return t->elem == IR_BF16;
		if (t->kind == IR_TY_FUNC || t->kind == IR_TY_OPAQUE || t->kind == IR_TY_TOKEN)
			return false;
	}
	return false;
}

static bool uses_bf16(const struct ir_op *op, const void *ctx)
{
	(void)ctx;
	for (uint32_t i = 0; i < op->nresults; i++)
		if (type_has_bf16(op->results[i]->type))
			return true;
	for (uint32_t i = 0; i < op->noperands; i++)
		if (type_has_bf16(op->operands[i]->type))
			return true;
	return false;
}

static bool entry_bf16(const struct ir_op *entry)
{
	const struct ir_block *b = entry ? ir_entry_body(entry) : NULL;
	for (uint32_t i = 0; b && i < b->nargs; i++)
		if (type_has_bf16(b->args[i]->type))
			return true;
	return false;
}

/* What the attribute rules count, one pass over each side for all. */
enum {
	T_ROUNDING, T_SWIZZLE, T_PTR_DIV_BY, T_SCALAR_DIV_BY, T_RAW_PTR, T_TMA_ON, T_TMA_OFF,
	T_LATENCY, T_BF16, T_MAKE_TOKEN, T_COUNT
};

/* Which of the counts an op is in: the predicates above, decided together
 * (most need only the op's code, and an op is asked once, not ten times). */
static unsigned tally_bits(const struct ir_op *op)
{
	unsigned m = 0;
	switch (op->code) {
	case IR_OP_DIVI:
	case IR_OP_REMI:
		m |= (unsigned)swizzle(op, NULL) << T_SWIZZLE;
		break;
	case IR_OP_ASSUME:
		m |= (unsigned)ptr_div_by(op, NULL) << T_PTR_DIV_BY;
		m |= (unsigned)scalar_div_by(op, NULL) << T_SCALAR_DIV_BY;
		break;
	case IR_OP_LOAD_PTR_TKO:
	case IR_OP_STORE_PTR_TKO:
		m |= 1u << T_RAW_PTR;
		break;
	case IR_OP_MAKE_TOKEN:
		m |= 1u << T_MAKE_TOKEN;
		break;
	default:
		break;
	}
	if (op->nattrs) {
		m |= (unsigned)nondefault_rounding(op, NULL) << T_ROUNDING;
		m |= (unsigned)op_hint(op, "allow_tma=true") << T_TMA_ON;
		m |= (unsigned)op_hint(op, "allow_tma=false") << T_TMA_OFF;
		m |= (unsigned)op_hint(op, "latency") << T_LATENCY;
	}
	m |= (unsigned)uses_bf16(op, NULL) << T_BF16;
	return m;
}

static void tally(const struct nside *s, struct range *t)
{
	memset(t, 0, T_COUNT * sizeof(*t));
	for (size_t i = 0; s && i < s->n; i++) {
		if (!nline_counted(&s->lines[i]))
			continue;
		for (unsigned m = tally_bits(s->lines[i].op); m; m &= m - 1)
			irdiff_range_add(&t[__builtin_ctz(m)], &s->lines[i]);
	}
}

void irdiff_attr_rules(struct irdiff_entry *e, int ei, const struct nside *ref,
		       const struct nside *gen, struct fbuf *fb)
{
	struct range tr[T_COUNT], tg[T_COUNT];
	tally(ref, tr);
	tally(gen, tg);
	struct range a, b;
	a = tr[T_ROUNDING];
	b = tg[T_ROUNDING];
	if (b.n > a.n)
		irdiff_add_ranges(fb, "rounding-count", IRDIFF_WARN, ei, a, b, -1,
				  xasprintf("%d op(s) with an explicit rounding mode generated, %d in "
					    "the reference", b.n, a.n));
	a = tr[T_SWIZZLE];
	b = tg[T_SWIZZLE];
	if (a.n && !b.n)
		irdiff_add_ranges(fb, "block-swizzle", IRDIFF_WARN, ei, a, b, -1,
				  xasprintf("the reference swizzles block ids (divi/remi on blockId, "
					    "L2 locality); the generated entry does not"));
	a = tr[T_PTR_DIV_BY];
	b = tg[T_PTR_DIV_BY];
	if (a.n > b.n) {
		bool raw = tg[T_RAW_PTR].n > 0;
		irdiff_add_ranges(fb, "assume-ptr-div-by", raw ? IRDIFF_CRITICAL : IRDIFF_WARN, ei, a,
				  b, irdiff_find_row(e, "assume", true),
				  xasprintf("pointer assume div_by: %d in the reference, %d generated%s",
					    a.n, b.n, raw ? " (raw pointer loads/stores need them)"
						       : " (view/TMA path)"));
	}
	/* cuTile Python's JIT sees a stride's value when it compiles; an
	 * ahead-of-time Rust kernel cannot, so any scalar divisibility assume it
	 * carries is a defect, whatever the reference has (coding rule R21) */
	a = tr[T_SCALAR_DIV_BY];
	b = tg[T_SCALAR_DIV_BY];
	if (b.n)
		irdiff_add_ranges(fb, "assume-scalar-div-by", IRDIFF_CRITICAL, ei, a, b,
				  gen_row_if(e, scalar_div_by),
				  xasprintf("scalar assume div_by generated (%d; %d in the reference): "
					    "deprecated, it can corrupt irregular shapes; assume "
					    "divisibility on pointers only", b.n, a.n));
	static const char *const fops[] = {"addf", "subf", "mulf", "divf", "exp", "exp2", "negf"};
	enum { NF = TP_ARRAY_LEN(fops) };
	/* one pass per side: [0] all ops of the name, [1] with ftz, [2] approx */
	struct range cnt[2][3][NF];
	memset(cnt, 0, sizeof(cnt));
	int code_of[NF];
	for (size_t i = 0; i < NF; i++)
		code_of[i] = ir_opdef_by_name(fops[i], strlen(fops[i]))->code;
	for (int side = 0; side < 2; side++) {
		const struct nside *sd = side ? gen : ref;
		for (size_t l = 0; sd && l < sd->n; l++) {
			const struct ir_op *op = nline_counted(&sd->lines[l]);
			for (size_t i = 0; op && i < NF; i++) {
				if (op->code != code_of[i])
					continue;
				irdiff_range_add(&cnt[side][0][i], &sd->lines[l]);
				if (ir_op_has(op, "flush_to_zero"))
					irdiff_range_add(&cnt[side][1][i], &sd->lines[l]);
				if (ir_op_attr_int(op, "rounding_mode", -1) == IR_RND_APPROX)
					irdiff_range_add(&cnt[side][2][i], &sd->lines[l]);
			}
		}
	}
	for (size_t i = 0; i < NF; i++) {
		/* the generated side points at its ops of that name, with or without */
		struct range all = cnt[1][0][i];
		a = cnt[0][1][i];
		b = cnt[1][1][i];
		if (a.n > b.n)
			irdiff_add_ranges(fb, "ftz", IRDIFF_CRITICAL, ei, a, all,
					  irdiff_find_row(e, fops[i], true),
					  xasprintf("flush_to_zero on %s: %d in the reference, %d generated",
						    fops[i], a.n, b.n));
		a = cnt[0][2][i];
		b = cnt[1][2][i];
		/* cuTile Rust 0.2.0's exp takes no rounding at all (NVIDIA's swiglu
		 * port drops its approx too): the generated exp is full precision,
		 * within the approximation's error, and slower; a cost, not a
		 * different result */
		bool exp_inexpressible = !strcmp(fops[i], "exp") && b.n == 0 && all.n >= a.n;
		if (a.n > b.n)
			irdiff_add_ranges(fb, "approx", exp_inexpressible ? IRDIFF_WARN : IRDIFF_CRITICAL,
					  ei, a, all, irdiff_find_row(e, fops[i], true),
					  exp_inexpressible
						  ? xasprintf("rounding<approx> on exp: %d in the reference, 0 "
							      "generated: cuTile Rust 0.2.0's exp takes no rounding, "
							      "so the generated exp is full precision (slower, not "
							      "less accurate)",
							      a.n)
						  : xasprintf("rounding<approx> on %s: %d in the reference, %d "
							      "generated",
							      fops[i], a.n, b.n));
	}
	a = tr[T_TMA_ON];
	b = tg[T_TMA_ON];
	if (a.n > b.n)
		irdiff_add_ranges(fb, "allow-tma", IRDIFF_CRITICAL, ei, a, b, -1,
				  xasprintf("allow_tma = true on %d op(s) in the reference, %d generated",
					    a.n, b.n));
	a = tr[T_TMA_OFF];
	b = tg[T_TMA_OFF];
	if (a.n != b.n)
		irdiff_add_ranges(fb, "allow-tma", IRDIFF_WARN, ei, a, b, -1,
				  xasprintf("allow_tma = false on %d op(s) in the reference, %d generated",
					    a.n, b.n));
	a = tr[T_LATENCY];
	b = tg[T_LATENCY];
	if (a.n != b.n)
		irdiff_add_ranges(fb, "latency", IRDIFF_WARN, ei, a, b, -1,
				  xasprintf("latency hints on %d op(s) in the reference, %d generated",
					    a.n, b.n));
	a = tr[T_BF16];
	b = tg[T_BF16];
	if ((a.n || entry_bf16(e->ref)) && !b.n && !entry_bf16(e->gen))
		irdiff_add_ranges(fb, "bf16", IRDIFF_WARN, ei, a, b, -1,
				  xasprintf("the reference uses bf16, the generated entry does not"));
	a = tr[T_MAKE_TOKEN];
	b = tg[T_MAKE_TOKEN];
	if (a.n != b.n)
		irdiff_add_ranges(fb, "token-count", IRDIFF_WARN, ei, a, b,
				  irdiff_find_row(e, "make_token", true),
				  xasprintf("make_token: %d in the reference, %d generated (usually one "
					    "shared token)", a.n, b.n));
}

/* ---- layout multiset and the semantic-layout gate ---- */

struct mset {
	char **v;
	size_t n, cap;
};

static void ms_add(struct mset *m, char *s)
{
	if (m->n == m->cap) {
		m->cap = m->cap ? m->cap * 2 : 16;
		m->v = xrealloc(m->v, m->cap * sizeof(*m->v));
	}
	m->v[m->n++] = s;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *list(const char *pre, const int64_t *v, uint32_t n, const char *sep, bool gate,
		  const char *post)
{
	struct sbuf sb = SBUF_INIT;
	sb_adds(&sb, pre);
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			sb_adds(&sb, sep);
		if (v[i] == IR_DYN || (gate && v[i] != 1))
			sb_addc(&sb, '?');
		else
			sb_add_int(&sb, v[i]);
	}
	sb_adds(&sb, post);
	return sb_detach(&sb);
}

static void layout_attrs(const struct nside *s, bool gate, struct mset *m)
{
	for (size_t i = 0; s && i < s->n; i++) {
		/* a view nothing live reads (cutile makes one per tensor
		 * parameter, the specialisation may leave it unused) lays out
		 * nothing */
		const struct ir_op *op = (s->lines[i].dead & NLINE_DEAD) ? NULL : nline_counted(&s->lines[i]);
		if (!op || !op->nresults)
			continue;
		const struct ir_type *t = op->results[0]->type;
		if (!t)
			continue;
		if (t->kind == IR_TY_TENSOR_VIEW && op->code == IR_OP_MAKE_TENSOR_VIEW)
			ms_add(m, list("strides=[", t->strides, t->nstrides, ",", gate, "]"));
		if (t->kind == IR_TY_PARTITION_VIEW || t->kind == IR_TY_STRIDED_VIEW ||
		    t->kind == IR_TY_GATHER_SCATTER_VIEW) {
			ms_add(m, list("tile=(", t->shape, t->rank, "x", false, ")"));
			if (t->ndim_map) {
				int64_t dm[64];
				uint32_t n = t->ndim_map < 64 ? t->ndim_map : 64;
				for (uint32_t k = 0; k < n; k++)
					dm[k] = t->dim_map[k];
				ms_add(m, list("dim_map=[", dm, n, ", ", false, "]"));
			}
		}
	}
	if (m->n)
		qsort(m->v, m->n, sizeof(*m->v), cmp_str);
}

/* Items of a not matched in b (both sorted), as "x, y (+n)". */
static char *ms_minus(const struct mset *a, const struct mset *b, int *count)
{
	struct sbuf sb = SBUF_INIT;
	size_t i = 0, j = 0;
	int n = 0;
	while (i < a->n) {
		int c = j < b->n ? strcmp(a->v[i], b->v[j]) : -1;
		if (c == 0) {
			i++, j++;
		} else if (c < 0) {
			if (n < 6)
				sb_printf(&sb, "%s%s", n ? ", " : "", a->v[i]);
			n++, i++;
		} else {
			j++;
		}
	}
	if (n > 6)
		sb_printf(&sb, " (+%d more)", n - 6);
	*count = n;
	return sb_detach(&sb);
}

static void ms_free(struct mset *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->v[i]);
	free(m->v);
}

static bool view_maker(const struct ir_op *op, const void *ctx)
{
	(void)ctx;
	return op->code == IR_OP_MAKE_TENSOR_VIEW || op->code == IR_OP_MAKE_PARTITION_VIEW ||
	       op->code == IR_OP_MAKE_STRIDED_VIEW || op->code == IR_OP_MAKE_GATHER_SCATTER_VIEW;
}

void irdiff_layout_rules(struct irdiff_entry *e, int ei, const struct nside *ref,
			 const struct nside *gen, struct fbuf *fb)
{
	(void)e;
	struct range a = irdiff_count_if(ref, view_maker, NULL);
	struct range b = irdiff_count_if(gen, view_maker, NULL);
	for (int gate = 0; gate < 2; gate++) {
		struct mset x = {0}, y = {0};
		layout_attrs(ref, gate, &x);
		layout_attrs(gen, gate, &y);
		int nx, ny;
		char *rx = ms_minus(&x, &y, &nx), *ry = ms_minus(&y, &x, &ny);
		if (nx || ny) {
			struct sbuf m = SBUF_INIT;
			sb_adds(&m, gate ? "SEMANTIC_LAYOUT_FAIL: strides (non-1 as ?), tile and dim_map "
					   "multisets differ"
					 : "layout attributes (strides, tile, dim_map) differ");
			if (nx)
				sb_printf(&m, "; only in the reference: %s", rx);
			if (ny)
				sb_printf(&m, "; only generated: %s", ry);
			irdiff_add_ranges(fb, gate ? "layout-gate" : "layout-multiset",
					  gate ? IRDIFF_CRITICAL : IRDIFF_WARN, ei, a, b, -1,
					  sb_detach(&m));
		}
		free(rx);
		free(ry);
		ms_free(&x);
		ms_free(&y);
	}
}

/* ---- row checks ---- */

static struct range side_range(const struct irdiff_side *s)
{
	struct range r = {s->text ? 1 : 0, s->first, s->last};
	return r;
}

static void row_finding(struct fbuf *fb, const char *rule, enum irdiff_severity sev, int ei,
			const struct irdiff_entry *e, size_t row, char *msg)
{
	const struct irdiff_row *w = &e->rows[row];
	irdiff_add_ranges(fb, rule, sev, ei, side_range(&w->ref), side_range(&w->gen), (int)row, msg);
}

static bool is_memory(const struct ir_op *op)
{
	switch (op->code) {
	case IR_OP_LOAD_PTR_TKO: case IR_OP_STORE_PTR_TKO: case IR_OP_LOAD_VIEW_TKO:
	case IR_OP_STORE_VIEW_TKO: case IR_OP_ATOMIC_RMW_TKO: case IR_OP_ATOMIC_CAS_TKO:
	case IR_OP_ATOMIC_RED_VIEW_TKO: case IR_OP_MMAF: case IR_OP_MMAI: case IR_OP_MMAF_SCALED:
		return true;
	default:
		return false;
	}
}

static const char *pad_name(int p)
{
	if (p == IR_PAD_MASKED)
		return "masked (value not given)";
	const char *k = p == IR_PAD_ABSENT ? NULL : ir_enum_keyword(IR_EN_PADDING, p);
	return k ? k : "none";
}

/* A `masked` view whose printer dropped the value against a view with a
 * value is no difference we can see: only a note that one side does not
 * say. Masked against no padding at all is a real difference. */
static void padding_value(struct irdiff_entry *e, int ei, size_t i, int pa, int pg,
			  struct fbuf *fb)
{
	if (pa == pg)
		return;
	if ((pa == IR_PAD_MASKED && pg >= 0) || (pg == IR_PAD_MASKED && pa >= 0))
		row_finding(fb, "padding-value", IRDIFF_NOTE, ei, e, i,
			    xasprintf("padding_value %s in the reference, %s generated: the masked "
				      "side's printer did not write the value", pad_name(pa),
				      pad_name(pg)));
	else
		row_finding(fb, "padding-value", IRDIFF_CRITICAL, ei, e, i,
			    xasprintf("padding_value %s in the reference, %s generated", pad_name(pa),
				      pad_name(pg)));
}

/* Whether a load on that side reads through the view `v` defines. */
static bool view_loaded(const struct irdiff_entry *e, const struct ir_op *v, bool ref)
{
	if (!v->nresults)
		return true;
	for (size_t j = 0; j < e->nrows; j++) {
		const struct ir_op *u = ref ? e->rows[j].ref.op : e->rows[j].gen.op;
		if (!u || (u->code != IR_OP_LOAD_VIEW_TKO && u->code != IR_OP_ATOMIC_RMW_TKO))
			continue;
		for (uint32_t k = 0; k < u->noperands; k++)
			if (u->operands[k] == v->results[0])
				return true;
	}
	return false;
}

static void changed_row(struct irdiff_entry *e, int ei, size_t i, struct fbuf *fb)
{
	const struct ir_op *a = e->rows[i].ref.op, *g = e->rows[i].gen.op;
	if (!a || !g || a->code != g->code)
		return;
	switch (a->code) {
	case IR_OP_REDUCE:
	case IR_OP_SCAN: {
		int64_t da = ir_op_attr_int(a, "dim", -1), dg = ir_op_attr_int(g, "dim", -1);
		if (da != dg)
			row_finding(fb, "reduce-axis", IRDIFF_CRITICAL, ei, e, i,
				    xasprintf("%s over dim %lld in the reference, dim %lld generated",
					      irdiff_op_name(a), (long long)da, (long long)dg));
		break;
	}
	case IR_OP_MAKE_PARTITION_VIEW:
	case IR_OP_MAKE_STRIDED_VIEW:
	case IR_OP_MAKE_GATHER_SCATTER_VIEW: {
		const struct ir_type *ta = a->nresults ? a->results[0]->type : NULL;
		const struct ir_type *tg = g->nresults ? g->results[0]->type : NULL;
		/* a view only stored through reads no padding: its value is moot
		 * (a row pairing a store's view with a load's is no difference) */
		if (ta && tg && view_loaded(e, a, true) && view_loaded(e, g, false))
			padding_value(e, ei, i, ta->padding, tg->padding, fb);
		break;
	}
	case IR_OP_LOAD_PTR_TKO:
	case IR_OP_STORE_PTR_TKO:
	case IR_OP_ATOMIC_RMW_TKO:
	case IR_OP_ATOMIC_CAS_TKO: {
		int mg = ir_opdef_group(a->def, "mask");
		uint32_t ma = ir_op_group_size(a, mg), mgn = ir_op_group_size(g, mg);
		if (ma && !mgn)
			row_finding(fb, "mask-dropped", IRDIFF_CRITICAL, ei, e, i,
				    xasprintf("%s is masked in the reference, not generated", irdiff_op_name(a)));
		else if (!ma && mgn)
			row_finding(fb, "mask-added", IRDIFF_WARN, ei, e, i,
				    xasprintf("%s is masked only in the generated entry", irdiff_op_name(a)));
		int pg = ir_opdef_group(a->def, "paddingValue");
		if (pg >= 0 && ir_op_group_size(a, pg) && !ir_op_group_size(g, pg))
			row_finding(fb, "padding-dropped", IRDIFF_WARN, ei, e, i,
				    xasprintf("load_ptr_tko has a padding value only in the reference"));
		break;
	}
	case IR_OP_FOR: {
		const struct ir_value *sa = irdiff_through_assume(a->operands[2]);
		const struct ir_value *sg = irdiff_through_assume(g->operands[2]);
		const struct ir_attr *ca = constant_of(sa), *cg = constant_of(sg);
		if (ca && cg && ca->kind == IR_ATTR_DENSE && cg->kind == IR_ATTR_DENSE && ca->n &&
		    cg->n && !ir_attr_equal(ca, cg))
			row_finding(fb, "for-step", IRDIFF_WARN, ei, e, i,
				    xasprintf("the loop step differs (%lld in the reference, %lld generated)",
					      (long long)ca->vals[0], (long long)cg->vals[0]));
		break;
	}
	default:
		break;
	}
}

static bool is_loop(const struct ir_op *op)
{
	return op && (op->code == IR_OP_FOR || op->code == IR_OP_LOOP);
}

/* Pointer set: loops aligned with one on the other side. */
struct pset {
	const void **v;
	size_t cap;
};

static size_t pslot(const struct pset *s, const void *p)
{
	uint64_t h = (uint64_t)(uintptr_t)p * 0x9e3779b97f4a7c15ULL;
	return (size_t)(h >> 17) & (s->cap - 1);
}

static void pset_add(struct pset *s, const void *p)
{
	size_t i = pslot(s, p);
	while (s->v[i] && s->v[i] != p)
		i = (i + 1) & (s->cap - 1);
	s->v[i] = p;
}

static bool pset_has(const struct pset *s, const void *p)
{
	for (size_t i = pslot(s, p); s->v[i]; i = (i + 1) & (s->cap - 1))
		if (s->v[i] == p)
			return true;
	return false;
}

/* The same normalised op, at whatever depth. */
static bool same_body(const struct nline *a, const struct nline *b)
{
	return a && b && a->body[0] == b->body[0] && a->body[1] == b->body[1];
}

/* An op directly in a loop body on one side, found unchanged at a shallower
 * loop depth on the other, while the loop itself is there on both sides:
 * hoisted out of the loop (or, the other way round, sunk into one). Rows
 * are indexed by their normalised op's hash so this stays linear. */
struct placed {
	const struct nside *s;
	const struct nline *l;
};

/* The for/loop ops around a row's op on one side, and the op holding it. */
static int loops_of(struct placed p)
{
	return p.s->loops[nline_index(p.s, p.l)];
}

static const struct ir_op *owner_of(struct placed p)
{
	return p.s->owner[nline_index(p.s, p.l)];
}

static void moved(struct irdiff_entry *e, int ei, const struct nside *ref, const struct nside *gen,
		  const struct rowlines *rl, struct fbuf *fb)
{
	size_t n = e->nrows;
	if (!n)
		return;
	struct pset loops = {NULL, 16};
	while (loops.cap < 2 * n)
		loops.cap *= 2;
	loops.v = xcalloc(loops.cap, sizeof(*loops.v));
	for (size_t i = 0; i < n; i++) {
		const struct irdiff_row *w = &e->rows[i];
		if ((w->kind == IRDIFF_ROW_EQUAL || w->kind == IRDIFF_ROW_CHANGED)) {
			if (is_loop(w->ref.op))
				pset_add(&loops, w->ref.op);
			if (is_loop(w->gen.op))
				pset_add(&loops, w->gen.op);
		}
	}
	/* buckets of one-sided rows by body hash */
	size_t nb = 16;
	while (nb < 2 * n)
		nb *= 2;
	int *head = xmalloc(nb * sizeof(int)), *next = xmalloc(n * sizeof(int));
	memset(head, 0xff, nb * sizeof(int));
	for (size_t i = 0; i < n; i++) {
		const struct irdiff_row *w = &e->rows[i];
		const struct nline *sd = w->kind == IRDIFF_ROW_REF_ONLY ? rl->ref[i]
					 : w->kind == IRDIFF_ROW_GEN_ONLY ? rl->gen[i] : NULL;
		next[i] = -1;
		if (!sd || !sd->op)
			continue;
		size_t h = (size_t)sd->body[0] & (nb - 1);
		next[i] = head[h];
		head[h] = (int)i;
	}
	bool *taken = xcalloc(n, sizeof(bool));
	for (int pass = 0; pass < 2; pass++) {
		bool out = pass == 0;
		for (size_t i = 0; i < n; i++) {
			const struct irdiff_row *w = &e->rows[i];
			const struct irdiff_side *in = out ? &w->ref : &w->gen;
			if (w->kind != (out ? IRDIFF_ROW_REF_ONLY : IRDIFF_ROW_GEN_ONLY) || !in->op ||
			    taken[i])
				continue;
			struct placed pin = {out ? ref : gen, out ? rl->ref[i] : rl->gen[i]};
			const struct ir_op *loop = owner_of(pin);
			if (!is_loop(loop) || !pset_has(&loops, loop))
				continue;
			int din = loops_of(pin);
			const struct nline *body = pin.l;
			for (int j = head[(size_t)body->body[0] & (nb - 1)]; j >= 0; j = next[j]) {
				const struct irdiff_row *v = &e->rows[j];
				const struct irdiff_side *other = out ? &v->gen : &v->ref;
				struct placed pother = {out ? gen : ref, out ? rl->gen[j] : rl->ref[j]};
				if (taken[j] ||
				    v->kind != (out ? IRDIFF_ROW_GEN_ONLY : IRDIFF_ROW_REF_ONLY) ||
				    !other->op || loops_of(pother) >= din || !same_body(body, pother.l))
					continue;
				taken[i] = taken[j] = true;
				const struct irdiff_side *rs = out ? in : other, *gs = out ? other : in;
				int dr = loops_of(out ? pin : pother), dg = loops_of(out ? pother : pin);
				irdiff_add_ranges(fb, out ? "loop-hoist" : "loop-sink",
						  out && is_memory(rs->op) ? IRDIFF_CRITICAL : IRDIFF_WARN,
						  ei, side_range(rs), side_range(gs), (int)(out ? i : (size_t)j),
						  xasprintf("%s is inside %d loop(s) in the reference, %d "
							    "generated (moved %s)", irdiff_op_name(rs->op), dr, dg,
							    out ? "out of a loop" : "into a loop"));
				break;
			}
		}
	}
	free(taken);
	free(head);
	free(next);
	free(loops.v);
}

void irdiff_row_checks(struct irdiff_entry *e, int ei, const struct nside *ref,
		       const struct nside *gen, const struct rowlines *rl, struct fbuf *fb)
{
	for (size_t i = 0; i < e->nrows; i++)
		if (e->rows[i].kind == IRDIFF_ROW_CHANGED)
			changed_row(e, ei, i, fb);
	moved(e, ei, ref, gen, rl, fb);
}
