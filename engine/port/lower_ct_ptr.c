/* cuTile Python's ct.gather and ct.scatter: element offsets and bounds
 * computed as cuTile Python computes them (64-bit, the index tuple
 * broadcast first, one unsigned compare), user masks, the padding, and a
 * check_bounds flag the Constants decide (lower_branch.c's
 * lw_bounds_split). The pointer tiles and the loads are lower_mem.c's. */
#include "engine/port/lower.h"

#include <string.h>

static struct tval *combine(struct lw *lw, struct tval *a, struct tval *b, const struct py_node *at)
{
	if (!a || a->kind == TV_NONE)
		return b;
	if (!b)
		return a;
	if (a->kind == TV_TILE || b->kind == TV_TILE) {
		struct tval *r = lw_and_mask(lw, a, b, at);
		if (r->kind == TV_TILE)
			r->def->implicit = true;
		return r;
	}
	struct tval *r = tv_new(lw->a, TV_BOOL);
	r->dt = DT_BOOL;
	r->rs = ta_printf(lw->a, "(%s && %s)", tv_rs(a), tv_rs(b));
	return r;
}

/* An index, extent or stride of a gather as cuTile Python computes with
 * it: a 64-bit tile (offsets past 2^31 elements stay right), a scalar
 * made a 0-d tile and widened before it is broadcast. u64 rather than i64
 * because cutile's compare infers its signedness from the element type:
 * the bounds check is one unsigned compare, as in cuTile Python, so a
 * negative index is out of bounds too; the IR is the same i64. */
static struct tval *gather_i64(struct lw *lw, struct tval *v, const struct py_node *at)
{
	struct tshape s0 = {0};
	if (v->kind == TV_TILE && (v->dt == DT_U64 || v->dt == DT_I64))
		return v;
	if ((v->kind == TV_CINT && v->known) || (v->kind == TV_TILE && !tdt_is_int(v->dt)))
		return lw_to_tile(lw, v, DT_U64, v->kind == TV_TILE ? &v->shape : &s0, at);
	if (v->kind != TV_TILE) {
		struct top *op = lw_op(lw, TOP_TO_TILE, at);
		op->text = tv_rs(v);
		v = lw_tile_res(lw, op, DT_I32, &s0, lw_hint(lw, "t"));
	}
	struct top *op = lw_op(lw, TOP_UNARY, at);
	op->fn = "exti";
	op->a[0] = v;
	op->na = 1;
	op->inv = "convert";
	op->inv_attr = "u64";
	struct tval *r = lw_tile_res(lw, op, DT_U64, &v->shape, ta_printf(lw->a, "%s_64", v->var->name));
	r->def->implicit = true;
	return r;
}

/* Element offsets and the bounds mask of a gather/scatter index tuple:
 * the index on each axis times the array's stride there, and (with
 * check_bounds) index < extent on each axis, all in 64 bits. */
static struct tval *gather_offsets(struct lw *lw, struct tval *arr, const struct py_node *ixn,
				   bool check_bounds, struct tval **bounds,
				   const struct py_node *at)
{
	struct tval **idx;
	size_t n = lw_ct_index_list(lw, ixn, &idx);
	if (!n)
		lw_unsupported(lw, at, "a gather or scatter with an empty index tuple");
	lw_array(lw, arr, at, true, (int)n);
	struct tval *off = NULL;
	*bounds = NULL;
	/* every index is broadcast to the tuple's common shape first, as cuTile
	 * Python does: the bounds check and the offsets are full tiles */
	struct tshape all = {0};
	for (size_t d = 0; d < n; d++)
		if (idx[d]->kind == TV_TILE) {
			struct tshape prev = all;
			lw_common_shape(lw, &prev, &idx[d]->shape, &all, at);
		}
	for (size_t d = 0; d < n; d++) {
		struct tval *i = idx[d];
		lw_want_int(lw, i);
		if (!(i->kind == TV_INT || i->kind == TV_CINT || (i->kind == TV_TILE && tdt_is_int(i->dt))))
			lw_unsupported(lw, at, "a gather index that is not an integer");
		i = lw_broadcast(lw, gather_i64(lw, i, at), &all, at);
		struct tval *stride = gather_i64(lw, lw_array_dim(lw, arr->param, (int)d, true, at), at);
		struct tval *term = lw_binop(lw, PYOP_MUL, i, stride, at);
		off = off ? lw_binop(lw, PYOP_ADD, off, term, at) : term;
		if (check_bounds) {
			struct tval *dim = gather_i64(lw, lw_array_dim(lw, arr->param, (int)d, false, at), at);
			struct tval *in = lw_compare(lw, PYOP_LT, i, dim, at);
			if (in->kind == TV_TILE)
				in->def->implicit = true;
			*bounds = combine(lw, *bounds, in, at);
		}
	}
	return off;
}

static struct tval *user_mask(struct lw *lw, const struct py_node *call)
{
	const struct py_node *m = py_call_kw(call, "mask");
	return m ? lw_expr(lw, m) : NULL;
}

struct tval *lw_ct_gather(struct lw *lw, const struct py_node *call)
{
	struct tval *arr = lw_required(lw, call, 0, "array");
	const struct py_node *ix = py_call_param(call, 1, "indices");
	if (!ix)
		lw_unsupported(lw, call, "ct.gather without indices");
	/* a flag the Constants decide (`TILE != N`) keeps the check: where it
	 * is False the source promises the lanes in bounds, and the mask
	 * then changes nothing */
	const struct py_node *cbn = py_call_kw(call, "check_bounds");
	bool cb = cbn && cbn == lw->bounds_flag ? lw->bounds_flag_value : lw_flag(lw, cbn, true, true);
	struct tval *bounds;
	struct tval *off = gather_offsets(lw, arr, ix, cb, &bounds, call);
	struct tval *mask = combine(lw, user_mask(lw, call), bounds, call);
	struct tval *ptrs = lw_pointers(lw, arr, off, call);
	const struct py_node *pv = py_call_kw(call, "padding_value");
	/* ct.gather's padding_value defaults to 0 */
	struct tval *pad = pv ? lw_expr(lw, pv) : tv_cint(lw->a, 0);
	return lw_gather(lw, ptrs, lw->k->params[arr->param].dt, mask, pad, lw_ct_latency(lw, call), call);
}

struct tval *lw_ct_scatter(struct lw *lw, const struct py_node *call)
{
	struct tval *arr = lw_required(lw, call, 0, "array");
	const struct py_node *ix = py_call_param(call, 1, "indices");
	if (!ix)
		lw_unsupported(lw, call, "ct.scatter without indices");
	struct tval *value = lw_required(lw, call, 2, "value");
	if (value->kind == TV_TILE)
		lw_adopt_stored_dtype(lw, arr, value->dt);
	if (arr->kind == TV_ARRAY && lw_is_scalar(value)) {
		/* a scalar is stored as the array's element type; an integer
		 * into an array nobody typed says it holds int32 */
		if (lw_is_int_scalar(value))
			lw_adopt_stored_dtype(lw, arr, DT_I32);
		value = lw_to_tile(lw, value, lw->k->params[arr->param].dt, &(struct tshape){0}, call);
	}
	/* a flag the Constants decide (`TILE != N`) keeps the check: where it
	 * is False the source promises the lanes in bounds, and the mask
	 * then changes nothing */
	const struct py_node *cbn = py_call_kw(call, "check_bounds");
	bool cb = cbn && cbn == lw->bounds_flag ? lw->bounds_flag_value : lw_flag(lw, cbn, true, true);
	struct tval *bounds;
	struct tval *off = gather_offsets(lw, arr, ix, cb, &bounds, call);
	struct tval *mask = combine(lw, user_mask(lw, call), bounds, call);
	struct tval *ptrs = lw_pointers(lw, arr, off, call);
	lw_scatter(lw, ptrs, value, mask, lw_ct_latency(lw, call), call);
	return tv_new(lw->a, TV_NONE);
}
