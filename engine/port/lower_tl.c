/* The Triton-TileIR front end (`import triton.language as tl`): program
 * ids, aranges, pointer arithmetic loads and stores with masks, block
 * pointers, dot, reductions, math, where, cdiv. Block pointers take the
 * strided-view conversion of ../shared/reference/pipeline.md §10: a
 * tl.make_block_ptr whose offsets are multiples of its block shape (and
 * tl.advance steps likewise) becomes a partition view indexed in blocks,
 * its base a &Tensor whose shape and strides come from the descriptor, so
 * the shape and stride arguments that only fed it leave the entry. */
#include "engine/port/lower.h"

#include <stdlib.h>
#include <string.h>



/* ---- which params are pointers ---- */

struct pscan {
	struct lw *lw;
	const struct py_node *body;
	const struct py_node *work[256];
	size_t nwork;
};

static void push(struct pscan *s, const struct py_node *n)
{
	if (n && s->nwork < TP_ARRAY_LEN(s->work))
		s->work[s->nwork++] = n;
}

/* Right-hand sides assigned to local `name` anywhere in the body. */
static void assignments_of(struct pscan *s, const struct py_node *n, const struct py_node *name,
			   int depth)
{
	if (!n || depth > 200)
		return;
	if ((n->kind == PY_ASSIGN || n->kind == PY_AUGASSIGN) && n->kids[0]->kind == PY_NAME &&
	    n->kids[0]->n == name->n && memcmp(n->kids[0]->s, name->s, name->n) == 0)
		push(s, n->kids[n->nkids - 1]);
	for (size_t k = 0; k < n->nkids; k++)
		assignments_of(s, n->kids[k], name, depth + 1);
}

static void mark_as(struct lw *lw, int p, bool view)
{
	struct tparam *tp = &lw->k->params[p];
	tp->kind = TP_ARRAY;
	if (view)
		tp->view = true;
	else
		tp->ptr = true;
}

/* Follow pointer expressions to the params they start from: the left
 * operand of pointer arithmetic, through local assignments. */
static void trace(struct pscan *s, bool view)
{
	size_t steps = 0;
	while (s->nwork && steps++ < 1024) {
		const struct py_node *n = s->work[--s->nwork];
		if (n->kind == PY_BINOP && (n->op == PYOP_ADD || n->op == PYOP_SUB)) {
			push(s, n->kids[0]);
			continue;
		}
		if (n->kind == PY_CALL && pymod_is(s->lw->m, n->kids[0], "tl.advance")) {
			push(s, py_call_arg(n, 0));
			continue;
		}
		if (n->kind == PY_CALL && (pymod_is(s->lw->m, n->kids[0], "tl.multiple_of") ||
					   pymod_is(s->lw->m, n->kids[0], "tl.max_contiguous"))) {
			push(s, py_call_arg(n, 0));
			continue;
		}
		if (n->kind != PY_NAME)
			continue;
		int p = lw_param_named(s->lw, n);
		if (p >= 0)
			mark_as(s->lw, p, view);
		else
			assignments_of(s, s->body, n, 0);
	}
}

static void mark(struct pscan *s, const struct py_node *n, int depth)
{
	if (!n || depth > 200)
		return;
	if (n->kind == PY_CALL) {
		struct lw *lw = s->lw;
		if (pymod_is(lw->m, n->kids[0], "tl.make_block_ptr")) {
			push(s, py_call_param(n, 0, "base"));
			trace(s, true);
		} else if (pymod_is(lw->m, n->kids[0], "tl.load") ||
			   pymod_is(lw->m, n->kids[0], "tl.store")) {
			const struct py_node *p = py_call_param(n, 0, "pointer");
			/* a block pointer made in place or held in a local */
			bool block = p && p->kind == PY_CALL &&
				     pymod_is(lw->m, p->kids[0], "tl.make_block_ptr");
			if (!block) {
				push(s, p);
				trace(s, false);
			}
		}
	}
	for (size_t k = 0; k < n->nkids; k++)
		mark(s, n->kids[k], depth + 1);
}

static void tl_mark_arrays(struct lw *lw, const struct py_node *def)
{
	struct pscan s = {.lw = lw, .body = def->kids[3]};
	/* block pointers first: a local holding one is not pointer arithmetic */
	mark(&s, def->kids[3], 0);
	for (size_t i = 0; i < lw->k->nparams; i++) {
		struct tparam *p = &lw->k->params[i];
		if (p->kind == TP_ARRAY && p->view && p->ptr)
			lw_unsupported(lw, def,
				       "`%s` is used both as a block-pointer base and in pointer arithmetic",
				       p->name);
	}
	lw_array_dtypes(lw);
}

static bool floatish(struct lw *lw, const struct py_node *body, const struct py_node *n, int depth);

/* A local name some assignment in body gives a float value. */
static bool float_local(struct lw *lw, const struct py_node *body, const struct py_node *at,
			const struct py_node *name, int depth)
{
	if (!at || depth > 200)
		return false;
	if ((at->kind == PY_ASSIGN || at->kind == PY_AUGASSIGN) && at->kids[0]->kind == PY_NAME &&
	    at->kids[0]->n == name->n && memcmp(at->kids[0]->s, name->s, name->n) == 0 &&
	    floatish(lw, body, at->kids[at->nkids - 1], depth + 16))
		return true;
	for (size_t k = 0; k < at->nkids; k++)
		if (float_local(lw, body, at->kids[k], name, depth + 1))
			return true;
	return false;
}

/* Is n a float however the host spells its arguments: a float literal, a
 * true division, Triton math, a conversion to a float type, a local
 * holding one? */
static bool floatish(struct lw *lw, const struct py_node *body, const struct py_node *n, int depth)
{
	double d;
	long long iv;
	if (depth > 120)
		return false;
	if (n->kind == PY_NUM)
		return !py_int_value(n, &iv) && py_float_value(n, &d);
	if (n->kind == PY_NAME)
		return float_local(lw, body, body, n, depth);
	if (n->kind == PY_BINOP)
		return n->op == PYOP_DIV || floatish(lw, body, n->kids[0], depth + 1) ||
		       floatish(lw, body, n->kids[1], depth + 1);
	if (n->kind != PY_CALL)
		return false;
	char *api = pymod_canon(lw->m, n->kids[0]);
	bool f = api && (str_starts(api, "tl.math.") || strcmp(api, "tl.sqrt") == 0 ||
			 strcmp(api, "tl.exp") == 0 || strcmp(api, "tl.log") == 0 ||
			 strcmp(api, "tl.sigmoid") == 0);
	free(api);
	if (!f && n->kids[0]->kind == PY_ATTR && n->kids[0]->n == 2 &&
	    memcmp(n->kids[0]->s, "to", 2) == 0) {
		const struct py_node *d0 = py_call_arg(n, 0);
		char *dn = d0 ? pymod_canon(lw->m, d0) : NULL;
		f = dn && str_starts(dn, "tl.float");
		free(dn);
	}
	return f;
}

/* A parameter combined by arithmetic with a float in the kernel body
 * (`... / N + eps`, `mean_sq + TINY`): a heuristic for a bare
 * tl.constexpr whose host value the translation cannot see. */
static bool used_as_float(struct lw *lw, const struct py_node *body, const struct py_node *n,
			  const struct py_node *param, int depth)
{
	if (!n || depth > 200)
		return false;
	/* not a divisor: `total / N` divides by an integer count as often */
	if (n->kind == PY_BINOP &&
	    (n->op == PYOP_ADD || n->op == PYOP_SUB || n->op == PYOP_MUL || n->op == PYOP_DIV))
		for (int side = 0; side < (n->op == PYOP_DIV ? 1 : 2); side++)
			if (n->kids[side]->kind == PY_NAME && n->kids[side]->n == param->n &&
			    memcmp(n->kids[side]->s, param->s, param->n) == 0 &&
			    floatish(lw, body, n->kids[1 - side], 0))
				return true;
	for (size_t k = 0; k < n->nkids; k++)
		if (used_as_float(lw, body, n->kids[k], param, depth + 1))
			return true;
	return false;
}

/* tl.constexpr: a bool when the host passes a bool (a literal, a
 * comparison, `x is not None`), else an int. */
static int tl_const_annotation(struct lw *lw, const struct py_node *ann)
{
	if (!pymod_is(lw->m, ann, "tl.constexpr"))
		return 0;
	const struct py_node *params = lw->f->def->kids[1];
	size_t index = 0;
	for (; index < params->nkids; index++)
		if (params->kids[index]->kids[0] == ann)
			break;
	const struct py_node *a = index < params->nkids ? lw_host_arg(lw->m, lw->f, index, NULL) : NULL;
	if (a && (a->kind == PY_COMPARE || (a->kind == PY_UNARY && a->op == PYOP_NOT) ||
		  (a->kind == PY_CONST && (a->n == 4 || a->n == 5) &&
		   (memcmp(a->s, "True", 4) == 0 || memcmp(a->s, "False", 5) == 0))))
		return 2;
	/* a float (`eps: tl.constexpr`): Rust has no float const generics,
	 * the value is a runtime f32 as ct.Constant[float]'s is */
	if (index < params->nkids &&
	    (lw_host_float_arg(lw->m, lw->f, index) ||
	     used_as_float(lw, lw->f->def->kids[3], lw->f->def->kids[3], params->kids[index], 0)))
		return 3;
	return 1;
}

static struct tval *tl_name(struct lw *lw, const char *api, const struct py_node *n)
{
	(void)n;
	if (!str_starts(api, "tl."))
		return NULL;
	enum tdt d = tdt_from_name(api + 3);
	if (d == DT_NONE)
		return NULL;
	struct tval *v = tv_new(lw->a, TV_DTYPE);
	v->dt = d;
	return v;
}

/* ---- block pointers ---- */

static bool dim_matches(const struct tdim *d, const struct tval *v)
{
	if (v->kind != TV_CINT)
		return false;
	if (d->sym)
		return !v->known && v->rs && strcmp(v->rs, d->sym) == 0;
	return v->known && v->ival == d->lit;
}

/* An element offset on an axis of block size d, as a block index: `X *
 * BLOCK` -> X, `0` -> 0, a known multiple -> its quotient. */
static struct tval *block_index(struct lw *lw, const struct py_node *n, const struct tdim *d)
{
	if (n->kind == PY_BINOP && n->op == PYOP_MUL) {
		for (int side = 0; side < 2; side++) {
			struct tval *f = lw_expr(lw, n->kids[side]);
			if (dim_matches(d, f))
				return lw_expr(lw, n->kids[1 - side]);
		}
	}
	struct tval *v = lw_expr(lw, n);
	if (dim_matches(d, v))
		return tv_cint(lw->a, 1);
	if (v->kind == TV_CINT && v->known) {
		if (v->ival == 0)
			return tv_cint(lw->a, 0);
		if (!d->sym && v->ival % d->lit == 0)
			return tv_cint(lw->a, v->ival / d->lit);
	}
	lw_unsupported(lw, n,
		       "a block-pointer offset that is not a multiple of its block size (the "
		       "strided view does not become a partition view; keep the pointer form)");
}

static struct tval *make_block_ptr(struct lw *lw, const struct py_node *call)
{
	struct tval *base = lw_required(lw, call, 0, "base");
	if (base->kind != TV_ARRAY)
		lw_unsupported(lw, call, "a block pointer whose base is not a kernel pointer argument");
	const struct py_node *shape_n = py_call_param(call, 1, "shape");
	const struct py_node *offs_n = py_call_param(call, 3, "offsets");
	const struct py_node *block_n = py_call_param(call, 4, "block_shape");
	const struct py_node *order_n = py_call_param(call, 5, "order");
	if (!shape_n || !offs_n || !block_n)
		lw_unsupported(lw, call, "tl.make_block_ptr without shape, offsets and block_shape");
	struct tshape s;
	lw_shape(lw, block_n, &s);
	if (shape_n->kind != PY_TUPLE || shape_n->nkids != (size_t)s.rank || offs_n->kind != PY_TUPLE ||
	    offs_n->nkids != (size_t)s.rank)
		lw_unsupported(lw, call, "shape, offsets and block_shape of different lengths");
	if (order_n) {
		struct tval *o = lw_expr(lw, order_n);
		bool row_major = o->kind == TV_TUPLE && o->nelems == (size_t)s.rank;
		for (size_t i = 0; row_major && i < o->nelems; i++)
			row_major = o->elems[i]->kind == TV_CINT && o->elems[i]->known &&
				    o->elems[i]->ival == (int64_t)(o->nelems - 1 - i);
		if (!row_major)
			lw_unsupported(lw, order_n, "a block pointer that is not row-major (order)");
	}
	lw_array(lw, base, call, false, s.rank);
	struct tval *bp = tv_new(lw->a, TV_BLOCKPTR);
	bp->param = base->param;
	bp->dt = base->dt;
	bp->shape = s;
	bp->elems = ta_alloc(lw->a, (size_t)s.rank * sizeof(*bp->elems));
	bp->nelems = (size_t)s.rank;
	for (int i = 0; i < s.rank; i++) {
		struct tval *ix = block_index(lw, offs_n->kids[i], &s.d[i]);
		if (ix->kind != TV_INT && ix->kind != TV_CINT)
			lw_unsupported(lw, offs_n->kids[i], "a block index that is not an integer");
		bp->elems[i] = ix;
	}
	return bp;
}

static struct tval *advance(struct lw *lw, const struct py_node *call)
{
	struct tval *bp = lw_required(lw, call, 0, "base");
	const struct py_node *offs = py_call_param(call, 1, "offsets");
	if (bp->kind != TV_BLOCKPTR)
		lw_unsupported(lw, call, "tl.advance of something other than a block pointer");
	if (!offs || offs->kind != PY_TUPLE || offs->nkids != bp->nelems)
		lw_unsupported(lw, call, "tl.advance offsets that are not a tuple of %zu", bp->nelems);
	struct tval *r = tv_new(lw->a, TV_BLOCKPTR);
	*r = *bp;
	r->var = NULL;
	r->elems = ta_alloc(lw->a, bp->nelems * sizeof(*r->elems));
	for (size_t i = 0; i < bp->nelems; i++) {
		struct tval *d = block_index(lw, offs->kids[i], &bp->shape.d[i]);
		r->elems[i] = d->kind == TV_CINT && d->known && d->ival == 0
				      ? bp->elems[i]
				      : lw_binop(lw, PYOP_ADD, bp->elems[i], d, call);
	}
	return r;
}

static enum tpad padding_option(struct lw *lw, const struct py_node *call)
{
	const struct py_node *bc = py_call_kw(call, "boundary_check");
	struct tval *b = bc ? lw_expr(lw, bc) : NULL;
	bool checked = b && b->kind == TV_TUPLE && b->nelems > 0;
	const struct py_node *po = py_call_kw(call, "padding_option");
	const char *p = po ? lw_enum(lw, po) : NULL;
	if (!checked)
		return PAD_UNDETERMINED;
	if (!p || !*p || strcmp(p, "zero") == 0)
		return PAD_ZERO;
	if (strcmp(p, "nan") == 0)
		return PAD_NAN;
	lw_unsupported(lw, po, "padding_option=\"%s\"", p);
}

static void no_cache_flags(struct lw *lw, const struct py_node *call)
{
	static const char *const flags[] = {"cache_modifier", "eviction_policy", "volatile"};
	for (size_t i = 0; i < TP_ARRAY_LEN(flags); i++) {
		const struct py_node *f = py_call_kw(call, flags[i]);
		if (!f)
			continue;
		struct tval *v = lw_expr(lw, f);
		if (v->kind == TV_STR && !*v->rs)
			continue;
		if ((v->kind == TV_CBOOL) && v->known && !v->ival)
			continue;
		lw_unsupported(lw, f, "%s= on a load or store", flags[i]);
	}
}

static struct tval *load(struct lw *lw, const struct py_node *call)
{
	struct tval *p = lw_required(lw, call, 0, "pointer");
	no_cache_flags(lw, call);
	if (p->kind == TV_BLOCKPTR) {
		if (py_call_kw(call, "mask"))
			lw_unsupported(lw, call, "a mask on a block-pointer load");
		struct tval arr = {.kind = TV_ARRAY, .param = p->param, .dt = p->dt};
		return lw_load_view(lw, &arr, p->elems, p->nelems, &p->shape, padding_option(lw, call),
				    NULL, -1, false, call);
	}
	if (p->kind == TV_ARRAY) {
		struct tval *z = tv_cint(lw->a, 0);
		struct tval *ptrs = lw_pointers(lw, p, z, call);
		return lw_gather(lw, ptrs, p->dt, NULL, NULL, -1, call);
	}
	if (p->kind != TV_PTRS)
		lw_unsupported(lw, call, "tl.load of something other than a pointer");
	const struct py_node *m = py_call_kw(call, "mask"), *o = py_call_kw(call, "other");
	struct tval *mask = m ? lw_expr(lw, m) : NULL;
	struct tval *other = o ? lw_expr(lw, o) : NULL;
	struct tval arr = {.kind = TV_ARRAY, .param = p->param, .dt = p->dt};
	struct tval *ptrs = lw_pointers(lw, &arr, p->elems[0], call);
	return lw_gather(lw, ptrs, p->dt, mask, other, -1, call);
}

/* Triton stores convert to the pointee type. */
static struct tval *stored(struct lw *lw, struct tval *v, enum tdt dt, const struct py_node *at)
{
	if (v->kind != TV_TILE || v->dt == dt)
		return v;
	struct tval *c = lw_convert(lw, v, dt, at);
	c->def->implicit = true;
	return c;
}

static struct tval *store(struct lw *lw, const struct py_node *call)
{
	struct tval *p = lw_required(lw, call, 0, "pointer");
	struct tval *v = lw_required(lw, call, 1, "value");
	no_cache_flags(lw, call);
	if (p->kind == TV_BLOCKPTR) {
		if (py_call_kw(call, "mask"))
			lw_unsupported(lw, call, "a mask on a block-pointer store");
		struct tval arr = {.kind = TV_ARRAY, .param = p->param, .dt = p->dt};
		struct tval *t = lw_is_tile(v) ? v : lw_to_tile(lw, v, p->dt, &p->shape, call);
		lw_store_view(lw, &arr, p->elems, p->nelems, stored(lw, t, p->dt, call), -1, false, call);
		return tv_new(lw->a, TV_NONE);
	}
	struct tval *off;
	if (p->kind == TV_ARRAY)
		off = tv_cint(lw->a, 0);
	else if (p->kind == TV_PTRS)
		off = p->elems[0];
	else
		lw_unsupported(lw, call, "tl.store to something other than a pointer");
	const struct py_node *m = py_call_kw(call, "mask");
	struct tval *mask = m ? lw_expr(lw, m) : NULL;
	struct tval *value = stored(lw, v, p->dt, call);
	struct tval arr = {.kind = TV_ARRAY, .param = p->param, .dt = p->dt};
	struct tval *ptrs = lw_pointers(lw, &arr, off, call);
	lw_scatter(lw, ptrs, value, mask, -1, call);
	return tv_new(lw->a, TV_NONE);
}

static struct tval *dot(struct lw *lw, const struct py_node *call, struct tval *acc)
{
	struct tval *a = lw_required(lw, call, 0, "input");
	struct tval *b = lw_required(lw, call, 1, "other");
	const struct py_node *an = py_call_param(call, 2, "acc");
	if (an && !acc) {
		acc = lw_expr(lw, an);
		if (acc->kind == TV_NONE)
			acc = NULL;
	}
	/* f32 inputs go through tf32 unless the precision says otherwise (rule 8) */
	const struct py_node *ip = py_call_kw(call, "input_precision");
	const struct py_node *tf = py_call_kw(call, "allow_tf32");
	const char *prec = ip ? lw_enum(lw, ip) : NULL;
	bool tf32 = prec ? strcmp(prec, "tf32") == 0 : lw_truthy(lw, tf, true);
	if (tf32 && a->kind == TV_TILE && a->dt == DT_F32) {
		a = lw_convert(lw, a, DT_TF32, call);
		b = lw_convert(lw, b, DT_TF32, call);
	}
	const struct py_node *od = py_call_kw(call, "out_dtype");
	enum tdt out = od ? lw_dtype(lw, od) : DT_F32;
	if (!acc && out != DT_F32 && out != DT_I32)
		lw_unsupported(lw, call, "tl.dot with out_dtype=%s", tdt_name(out));
	return lw_mma(lw, a, b, acc, call);
}

/* ---- tl.* calls by name: one handler per API function ---- */

typedef struct tval *(*tl_handler)(struct lw *lw, const char *name, const struct py_node *call);

static struct tval *call_program_id(struct lw *lw, const char *name, const struct py_node *call)
{
	return lw_block_id(lw, name[0] == 'n', py_call_param(call, 0, "axis"), call);
}

static struct tval *call_arange(struct lw *lw, const char *name, const struct py_node *call)
{
	(void)name;
	int64_t lo;
	const struct py_node *sn = py_call_param(call, 0, "start"), *en = py_call_param(call, 1, "end");
	if (!sn || !en || !lw_known_int(lw, sn, &lo))
		lw_unsupported(lw, call, "tl.arange with a start that is not a constant");
	struct tval *hi = lw_expr(lw, en);
	struct tdim d;
	if (hi->kind == TV_CINT && hi->known) {
		d = (struct tdim){hi->ival - lo, NULL};
		if (d.lit <= 0 || (d.lit & (d.lit - 1)))
			lw_unsupported(lw, call, "tl.arange of %lld elements (a power of two is needed)",
				       (long long)d.lit);
	} else if (hi->kind == TV_CINT && lo == 0) {
		struct tshape s;
		lw_shape_of(lw, hi, en, &s);
		d = s.d[0];
	} else {
		lw_unsupported(lw, call, "tl.arange whose length is not a compile-time constant");
	}
	return lw_iota(lw, &d, lo, 1, DT_I32, call);
}

/* zeros, full */
static struct tval *call_fill(struct lw *lw, const char *name, const struct py_node *call)
{
	struct tshape s;
	lw_shape(lw, py_call_param(call, 0, "shape"), &s);
	bool full = name[0] == 'f';
	struct tval *value = full ? lw_required(lw, call, 1, "value") : tv_cint(lw->a, 0);
	enum tdt d = lw_dtype(lw, py_call_param(call, full ? 2 : 1, "dtype"));
	return lw_full(lw, &s, value, d, call);
}

static struct tval *call_load(struct lw *lw, const char *name, const struct py_node *call)
{
	(void)name;
	return load(lw, call);
}

static struct tval *call_store(struct lw *lw, const char *name, const struct py_node *call)
{
	(void)name;
	return store(lw, call);
}

static struct tval *call_make_block_ptr(struct lw *lw, const char *name,
					const struct py_node *call)
{
	(void)name;
	return make_block_ptr(lw, call);
}

static struct tval *call_advance(struct lw *lw, const char *name, const struct py_node *call)
{
	(void)name;
	return advance(lw, call);
}

static struct tval *call_dot(struct lw *lw, const char *name, const struct py_node *call)
{
	(void)name;
	return dot(lw, call, NULL);
}

/* sum, max, min */
static struct tval *call_reduce(struct lw *lw, const char *name, const struct py_node *call)
{
	return lw_reduction(lw, name, lw_required(lw, call, 0, "input"), py_call_param(call, 1, "axis"),
			    py_call_kw(call, "keep_dims"), call);
}

static struct tval *call_exp(struct lw *lw, const char *name, const struct py_node *call)
{
	(void)name;
	return lw_exp(lw, lw_required(lw, call, 0, "x"), false, call);
}

static struct tval *call_sqrt_rn(struct lw *lw, const char *name, const struct py_node *call)
{
	(void)name;
	return lw_math1(lw, "sqrt", lw_required(lw, call, 0, "x"), "rounding::NearestEven", false, call);
}

static struct tval *call_abs(struct lw *lw, const char *name, const struct py_node *call)
{
	(void)name;
	struct tval *x = lw_required(lw, call, 0, "x");
	if (x->kind != TV_TILE)
		lw_unsupported(lw, call, "tl.abs of a scalar");
	return lw_tile_unary(lw, tdt_is_float(x->dt) ? "absf" : "absi", NULL, x, call, NULL);
}

static struct tval *call_sigmoid(struct lw *lw, const char *name, const struct py_node *call)
{
	(void)name;
	struct tval *x = lw_required(lw, call, 0, "x");
	struct tval *e = lw_exp(lw, lw_binop(lw, PYOP_SUB, tv_cint(lw->a, 0), x, call), false, call);
	struct tval *den = lw_binop(lw, PYOP_ADD, tv_cint(lw->a, 1), e, call);
	return lw_binop(lw, PYOP_DIV, tv_cint(lw->a, 1), den, call);
}

/* maximum, minimum */
static struct tval *call_minmax(struct lw *lw, const char *name, const struct py_node *call)
{
	const struct py_node *pn = py_call_kw(call, "propagate_nan");
	const char *prop = pn ? lw_enum(lw, pn) : NULL;
	struct tval *x = lw_required(lw, call, 0, "x");
	struct tval *y = lw_required(lw, call, 1, "y");
	return lw_minmax(lw, name[1] == 'i', x, y, prop && strcmp(prop, "ALL") == 0, false, call);
}

static struct tval *call_where(struct lw *lw, const char *name, const struct py_node *call)
{
	(void)name;
	struct tval *c = lw_required(lw, call, 0, "condition");
	struct tval *x = lw_required(lw, call, 1, "x");
	return lw_select(lw, c, x, lw_required(lw, call, 2, "y"), call);
}

static struct tval *call_cdiv(struct lw *lw, const char *name, const struct py_node *call)
{
	(void)name;
	struct tval *x = lw_required(lw, call, 0, "x");
	return lw_cdiv(lw, x, lw_required(lw, call, 1, "div"), call);
}

/* multiple_of, max_contiguous, max_constancy: compiler hints with no
 * cutile-rs form */
static struct tval *call_hint(struct lw *lw, const char *name, const struct py_node *call)
{
	(void)name;
	return lw_required(lw, call, 0, "input");
}

/* reshape, view */
static struct tval *call_reshape(struct lw *lw, const char *name, const struct py_node *call)
{
	(void)name;
	return lw_reshape_to(lw, lw_required(lw, call, 0, "input"), py_call_param(call, 1, "shape"),
			     call);
}

static struct tval *call_broadcast_to(struct lw *lw, const char *name, const struct py_node *call)
{
	(void)name;
	return lw_broadcast_to(lw, lw_required(lw, call, 0, "input"), py_call_param(call, 1, "shape"),
			       "tl.broadcast_to", call);
}

static struct tval *call_expand_dims(struct lw *lw, const char *name, const struct py_node *call)
{
	(void)name;
	return lw_expand_dims(lw, lw_required(lw, call, 0, "input"), py_call_param(call, 1, "axis"),
			      "tl.expand_dims", call);
}

/* trans, permute */
static struct tval *call_permute(struct lw *lw, const char *name, const struct py_node *call)
{
	struct tval *x = lw_required(lw, call, 0, "input");
	if (x->kind != TV_TILE)
		lw_unsupported(lw, call, "tl.%s of a scalar", name);
	int perm[TIR_MAX_RANK] = {1, 0};
	const struct py_node *dims = py_call_param(call, 1, "dims");
	if (dims)
		lw_permutation(lw, x, dims, "dims", perm);
	else if (x->shape.rank != 2)
		lw_unsupported(lw, call, "tl.%s of a rank-%d tile without dims", name, x->shape.rank);
	return lw_permute(lw, x, perm, call);
}

static struct tval *call_static_assert(struct lw *lw, const char *name, const struct py_node *call)
{
	(void)name;
	return lw_static_assert(lw, lw_required(lw, call, 0, "cond"), "tl", call);
}

static struct tval *call_cumsum(struct lw *lw, const char *name, const struct py_node *call)
{
	(void)name;
	struct tval *x = lw_required(lw, call, 0, "input");
	return lw_cumsum(lw, x, py_call_param(call, 1, "axis"),
			 lw_truthy(lw, py_call_param(call, 2, "reverse"), false), call);
}

static const struct {
	const char *name; /* after "tl." (and "math.") */
	tl_handler fn;
} tl_calls[] = {
	{"program_id", call_program_id}, {"num_programs", call_program_id},
	{"arange", call_arange},         {"zeros", call_fill},
	{"full", call_fill},             {"load", call_load},
	{"store", call_store},           {"make_block_ptr", call_make_block_ptr},
	{"advance", call_advance},       {"dot", call_dot},
	{"sum", call_reduce},            {"max", call_reduce},
	{"min", call_reduce},            {"exp", call_exp},
	{"sqrt_rn", call_sqrt_rn},       {"abs", call_abs},
	{"sigmoid", call_sigmoid},       {"maximum", call_minmax},
	{"minimum", call_minmax},        {"where", call_where},
	{"cdiv", call_cdiv},             {"multiple_of", call_hint},
	{"max_contiguous", call_hint},   {"max_constancy", call_hint},
	{"reshape", call_reshape},       {"view", call_reshape},
	{"broadcast_to", call_broadcast_to}, {"expand_dims", call_expand_dims},
	{"trans", call_permute},         {"permute", call_permute},
	{"static_assert", call_static_assert}, {"cumsum", call_cumsum},
};

static struct tval *tl_call(struct lw *lw, const char *api, const struct py_node *call)
{
	if (!str_starts(api, "tl."))
		return NULL;
	const char *name = api + 3;
	if (str_starts(name, "math."))
		name += 5;
	for (size_t i = 0; i < TP_ARRAY_LEN(tl_calls); i++)
		if (strcmp(name, tl_calls[i].name) == 0)
			return tl_calls[i].fn(lw, name, call);
	if (lw_math_fn(name))
		return lw_math1(lw, name, lw_required(lw, call, 0, "x"), NULL, false, call);
	return NULL;
}

/* x.to(dtype) of a scalar: a 0-d tile of that type (rule 46's
 * scalar_to_tile and convert_tile); the same integer type is the value */
static struct tval *scalar_to(struct lw *lw, struct tval *self, const struct py_node *call)
{
	enum tdt d = lw_dtype(lw, py_call_param(call, 0, "dtype"));
	if (tdt_is_int(d) && lw_is_int_scalar(self)) {
		if (d != DT_I32)
			lw_unsupported(lw, call, ".to(%s) of an integer (the translation's integer "
						 "scalars are i32)", tdt_name(d));
		return self;
	}
	if (!tdt_is_float(d) || d == DT_E)
		lw_unsupported(lw, call, ".to(%s) of a scalar", tdt_name(d));
	return lw_to_tile(lw, self, d, &(struct tshape){0}, call);
}

static struct tval *tl_method(struct lw *lw, struct tval *self, const char *meth,
			      const struct py_node *call)
{
	if (strcmp(meth, "to") == 0 && lw_is_scalar(self) && !py_call_kw(call, "bitcast"))
		return scalar_to(lw, self, call);
	if (self->kind != TV_TILE)
		return NULL;
	if (strcmp(meth, "to") == 0) {
		const struct py_node *d = py_call_param(call, 0, "dtype");
		if (py_call_kw(call, "bitcast") && lw_truthy(lw, py_call_kw(call, "bitcast"), false))
			lw_unsupported(lw, call, ".to(bitcast=True)");
		return lw_convert(lw, self, lw_dtype(lw, d), call);
	}
	if (strcmp(meth, "reshape") == 0) {
		struct tshape s;
		lw_shape(lw, py_call_param(call, 0, "shape"), &s);
		return lw_reshape(lw, self, &s, call);
	}
	if (strcmp(meth, "trans") == 0 && self->shape.rank == 2) {
		int perm[TIR_MAX_RANK] = {1, 0};
		return lw_permute(lw, self, perm, call);
	}
	return NULL;
}

/* acc += tl.dot(a, b): the accumulate form of mma. */
static struct tval *tl_augassign(struct lw *lw, struct tval *target, int op,
				 const struct py_node *value)
{
	if (op != PYOP_ADD || value->kind != PY_CALL || !pymod_is(lw->m, value->kids[0], "tl.dot") ||
	    target->kind != TV_TILE || py_call_param(value, 2, "acc"))
		return NULL;
	return dot(lw, value, target);
}

static bool tl_range(struct lw *lw, const char *api, const struct py_node *call,
		     const struct py_node **lo, const struct py_node **hi,
		     const struct py_node **step)
{
	(void)lw;
	if (strcmp(api, "tl.range") != 0 && strcmp(api, "tl.static_range") != 0)
		return false;
	size_t n = py_call_nargs(call);
	if (n == 1) {
		*hi = py_call_arg(call, 0);
	} else if (n >= 2) {
		*lo = py_call_arg(call, 0);
		*hi = py_call_arg(call, 1);
		*step = n >= 3 ? py_call_arg(call, 2) : NULL;
	} else {
		return false;
	}
	return true;
}

const struct lw_api lw_api_triton = {
	.lang = "Triton",
	.mark_arrays = tl_mark_arrays,
	.const_annotation = tl_const_annotation,
	.name = tl_name,
	.call = tl_call,
	.method = tl_method,
	.augassign = tl_augassign,
	.range = tl_range,
};
