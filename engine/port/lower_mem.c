/* Lowering memory access: view loads and stores of array tiles at block
 * indices, pointer tiles (base + element offsets), gathers and scatters
 * with masks, the padding selected in after a masked load (rule 14). */
#include "engine/port/lower.h"

#include <stdlib.h>
#include <string.h>

static struct tval **index_scalars(struct lw *lw, struct tval **idx, size_t n,
				   const struct py_node *at)
{
	struct tval **v = ta_alloc(lw->a, (n ? n : 1) * sizeof(*v));
	for (size_t i = 0; i < n; i++) {
		if (idx[i]->kind == TV_TILE && idx[i]->shape.rank == 0 && !idx[i]->ptr_tile) {
			/* a value read from an array (`ids[bid].item()`): an int32
			 * scalar by the crate's tile_to_scalar */
			lw_want_int(lw, idx[i]);
			if (idx[i]->dt == DT_I32) {
				v[i] = tv_int(lw->a, lw_int_rs(lw, idx[i], at));
				continue;
			}
		}
		if (idx[i]->kind != TV_INT && idx[i]->kind != TV_CINT)
			lw_unsupported(lw, at, "a tile index that is not an integer scalar");
		v[i] = idx[i];
	}
	return v;
}

struct tval *lw_load_view(struct lw *lw, struct tval *arr, struct tval **idx, size_t nidx,
			  const struct tshape *s, enum tpad pad, const int *order, int latency,
			  bool no_tma, const struct py_node *at)
{
	struct tparam *p = lw_array(lw, arr, at, false, s->rank);
	if (nidx != (size_t)s->rank)
		lw_unsupported(lw, at, "a load index of %zu values for a rank-%d tile", nidx, s->rank);
	/* the indices first: one read from a tile is converted before the load */
	struct tval **scalars = index_scalars(lw, idx, nidx, at);
	struct top *op = lw_op(lw, TOP_LOAD, at);
	op->param = arr->param;
	op->view = lw_tensor_view(lw, arr->param, s->rank, at);
	bool identity = true;
	for (int i = 0; order && order[0] >= 0 && i < s->rank; i++)
		identity &= order[i] == i;
	if (op->view && pad != PAD_ZERO && !(pad == PAD_UNDETERMINED && identity))
		lw_unsupported(lw, at,
			       "a view load of the pointer array `%s` with %s padding%s (cutile 0.2.0 "
			       "partitions a tensor view it builds with zero padding, or none in order)",
			       p->name, tpad_name(pad), identity ? "" : " and an order");
	op->idx = scalars;
	op->nidx = nidx;
	op->shape = *s;
	op->padding = pad;
	op->latency = latency;
	op->no_tma = no_tma;
	if (order)
		memcpy(op->order, order, sizeof(op->order));
	op->inv = "load";
	op->inv_attr = ta_printf(lw->a, "padding=%s", tpad_name(pad));
	struct tval *r = lw_tile_res(lw, op, p->dt, s, lw_hint(lw, "tile"));
	const char *base = lw->target ? lw->target : p->rs;
	op->v1 = lw_fresh(lw, ta_printf(lw->a, "%s_part", base));
	op->v2 = lw_fresh(lw, ta_printf(lw->a, "%s_tok", base));
	return r;
}

bool lw_adopt_stored_dtype(struct lw *lw, const struct tval *arr, enum tdt dt)
{
	if (!arr || arr->kind != TV_ARRAY || arr->param < 0 || dt == DT_E || dt == DT_BOOL ||
	    dt == DT_NONE)
		return false;
	struct tparam *p = &lw->k->params[arr->param];
	if (!p->dt_default || p->dt != DT_E || lw->e->param_used[arr->param])
		return false;
	p->dt = dt;
	p->dt_default = false;
	return true;
}

void lw_store_view(struct lw *lw, struct tval *arr, struct tval **idx, size_t nidx,
		   struct tval *tile, int latency, bool no_tma, const struct py_node *at)
{
	if (tile->kind != TV_TILE)
		lw_unsupported(lw, at, "storing a scalar (store a tile)");
	lw_adopt_stored_dtype(lw, arr, tile->dt);
	struct tparam *p = lw_array(lw, arr, at, false, tile->shape.rank);
	if (tile->dt != p->dt)
		lw_unsupported(lw, at,
			       "storing a %s tile into `%s` of %s elements (convert it with astype)",
			       tdt_name(tile->dt), p->name, tdt_name(p->dt));
	if (nidx != (size_t)tile->shape.rank)
		lw_unsupported(lw, at, "a store index of %zu values for a rank-%d tile", nidx,
			       tile->shape.rank);
	struct tval **scalars = index_scalars(lw, idx, nidx, at);
	struct top *op = lw_op(lw, TOP_STORE, at);
	op->param = arr->param;
	op->view = lw_tensor_view(lw, arr->param, tile->shape.rank, at);
	op->idx = scalars;
	op->nidx = nidx;
	op->shape = tile->shape;
	op->a[0] = tile;
	op->na = 1;
	op->latency = latency;
	op->no_tma = no_tma;
	op->inv = "store";
	op->v1 = lw_fresh(lw, ta_printf(lw->a, "%s_part", p->rs));
	op->v2 = lw_fresh(lw, ta_printf(lw->a, "%s_tok", p->rs));
}

static int elem_bytes(enum tdt dt)
{
	switch (dt) {
	case DT_I64: case DT_U64: case DT_F64: return 8;
	case DT_I32: case DT_U32: case DT_F32: return 4;
	case DT_I16: case DT_U16: case DT_F16: case DT_BF16: return 2;
	default: return 0; /* E, bool, fp8: unknown or byte-sized */
	}
}

struct tval *lw_pointers(struct lw *lw, struct tval *arr, struct tval *offsets,
			 const struct py_node *at)
{
	struct tparam *p = lw_array(lw, arr, at, true, -1);
	if (offsets->kind != TV_TILE && !(offsets->kind == TV_INT || offsets->kind == TV_CINT))
		lw_unsupported(lw, at, "pointer offsets that are not integers");
	if (offsets->kind == TV_TILE && !tdt_is_int(offsets->dt))
		lw_unsupported(lw, at, "pointer offsets of %s elements", tdt_name(offsets->dt));
	struct tshape s;
	lw_shape_or_scalar(offsets, &s);
	/* cuTile's gathers hand over 64-bit offsets; Triton's stay in the
	 * source's i32 */
	bool wide = offsets->kind == TV_TILE && (offsets->dt == DT_U64 || offsets->dt == DT_I64);
	struct tval *off = lw_to_tile(lw, offsets, wide ? offsets->dt : DT_I32, &s, at);
	struct tshape s0 = {0};
	struct top *op = lw_op(lw, TOP_PTR_BASE, at);
	op->param = arr->param;
	struct tval *base = lw_tile_res(lw, op, p->dt, &s0, ta_printf(lw->a, "%s_base", p->rs));
	base->ptr_tile = true;
	struct tval *b = lw_broadcast(lw, base, &s, at);
	struct top *o = lw_op(lw, TOP_PTR_OFFSET, at);
	o->a[0] = b;
	o->a[1] = off;
	o->na = 2;
	struct tval *r = lw_tile_res(lw, o, p->dt, &s, ta_printf(lw->a, "%s_ptrs", p->rs));
	r->ptr_tile = true;
	int align = elem_bytes(p->dt);
	bool one = true; /* one element: the base reshaped, never broadcast */
	for (int i = 0; i < s.rank; i++)
		one &= !s.d[i].sym && s.d[i].lit == 1;
	if (wide && one && align > 1) {
		/* cuTile Python tells the compiler a single element's pointer is
		 * aligned to the element (its divisibility survives a reshape of
		 * the base, not a broadcast); only a concrete type has a known
		 * size */
		struct top *a = lw_op(lw, TOP_ASSUME, at);
		a->a[0] = r;
		a->na = 1;
		a->axis = align;
		r = lw_tile_res(lw, a, p->dt, &s, ta_printf(lw->a, "%s_ptr", p->rs));
		r->ptr_tile = true;
	}
	return r;
}

struct tval *lw_and_mask(struct lw *lw, struct tval *a, struct tval *b, const struct py_node *at)
{
	if (!a)
		return b;
	if (!b)
		return a;
	struct tval *r = lw_tile_binary(lw, "andi", NULL, a, b, true, at, "and");
	return r;
}

static struct tval *mask_tile(struct lw *lw, struct tval *mask, const struct tshape *s,
			      const struct py_node *at)
{
	if (!mask || mask->kind == TV_NONE)
		return NULL;
	if (mask->kind == TV_TILE && mask->dt != DT_BOOL)
		lw_unsupported(lw, at, "a mask of %s elements", tdt_name(mask->dt));
	return lw_to_tile(lw, mask, DT_BOOL, s, at);
}

/* A scalar padding goes into the load itself, as cuTile Python puts it
 * (load_ptr_tko's padding operand, broadcast by cutile): the same IR as
 * the reference and no select after the load. It is a scalar of the
 * element type: a literal of that type, or one converted with
 * convert_scalar (never an associated const such as E::ZERO, rule 14). */
static bool pad_operand(struct lw *lw, struct top *op, struct tval *pad, enum tdt dt)
{
	const char *text;
	enum tdt lit; /* the type the text has */
	switch (pad->kind) {
	case TV_CFLOAT:
		text = lw_float_rs(lw, pad->fval, DT_F32);
		lit = DT_F32;
		break;
	case TV_FLOAT:
		text = tv_rs(pad);
		lit = DT_F32;
		break;
	case TV_CINT:
		if (!pad->known)
			return false;
		if (tdt_is_float(dt)) {
			text = lw_float_rs(lw, (double)pad->ival, DT_F32);
			lit = DT_F32;
		} else {
			text = ta_printf(lw->a, "%lld%s", (long long)pad->ival, tdt_rust(dt));
			lit = dt;
		}
		break;
	case TV_INT:
		text = tv_rs(pad);
		lit = DT_I32;
		break;
	default:
		return false;
	}
	op->text = text;
	op->fn = lit == dt ? NULL : "convert_scalar";
	const char *base = lw->target ? lw->target : op->res->var->name;
	op->v1 = op->fn ? lw_fresh(lw, ta_printf(lw->a, "%s_pad", base)) : NULL;
	return true;
}

struct tval *lw_gather(struct lw *lw, struct tval *ptrs, enum tdt dt, struct tval *mask,
		       struct tval *pad, int latency, const struct py_node *at)
{
	struct tval *m = mask_tile(lw, mask, &ptrs->shape, at);
	struct top *op = lw_op(lw, TOP_GATHER, at);
	op->a[0] = ptrs;
	op->a[1] = m;
	op->na = 2;
	op->latency = latency;
	op->inv = "gather";
	op->inv_attr = m ? "mask" : "";
	struct tval *r = lw_tile_res(lw, op, dt, &ptrs->shape, lw_hint(lw, "g"));
	op->v2 = lw_fresh(lw, ta_printf(lw->a, "%s_tok", lw->target ? lw->target : r->var->name));
	/* with or without a mask: cuTile Python hands a gather's padding to
	 * every load (an unchecked one included) */
	if (pad && pad_operand(lw, op, pad, dt))
		return r;
	if (pad && pad->kind != TV_NONE && m) {
		/* the masked-off lanes of load_ptr_tko hold no defined value, and
		 * rule 14 keeps the padding out of the load: select it in */
		struct tval *s = lw_select(lw, m, r, pad, at);
		s->def->implicit = true;
		return s;
	}
	return r;
}

void lw_scatter(struct lw *lw, struct tval *ptrs, struct tval *value, struct tval *mask,
		int latency, const struct py_node *at)
{
	enum tdt dt = value->kind == TV_TILE ? value->dt : DT_NONE;
	struct tval *v = lw_to_tile(lw, value, dt != DT_NONE ? dt : DT_F32, &ptrs->shape, at);
	if (v->dt != ptrs->dt)
		lw_unsupported(lw, at, "scattering %s values into %s elements (convert with astype)",
			       tdt_name(v->dt), tdt_name(ptrs->dt));
	struct tval *m = mask_tile(lw, mask, &ptrs->shape, at);
	struct top *op = lw_op(lw, TOP_SCATTER, at);
	op->a[0] = ptrs;
	op->a[1] = v;
	op->a[2] = m;
	op->na = 3;
	op->latency = latency;
	op->inv = "scatter";
	op->inv_attr = m ? "mask" : "";
	op->v2 = lw_fresh(lw, "scatter_tok");
}
