/* Tile ops that move elements within a tile, shared by both front ends:
 * prefix sums along an axis (ct.cumsum, tl.cumsum: the crate's
 * `scan_sum`) and a sub-tile taken out of a tile (ct.extract: the
 * crate's `extract`, indexed in sub-tiles like a view load). */
#include "engine/port/lower.h"

#include <string.h>

/* The additive identity of dt as the crate's scan takes it: a literal of
 * the element type, or the generic's own ZERO. */
static const char *zero_of(struct lw *lw, enum tdt dt, const struct py_node *at)
{
	if (dt == DT_E)
		return "E::ZERO";
	if (tdt_is_int(dt))
		return ta_printf(lw->a, "0%s", tdt_rust(dt));
	if (dt == DT_F32 || dt == DT_F64)
		return lw_float_rs(lw, 0.0, dt);
	lw_unsupported(lw, at, "a prefix sum of %s (cutile-rs's scan_sum takes E, integer, f32 or "
			       "f64 tiles)", tdt_name(dt));
}

static struct tval *cumsum_axis0(struct lw *lw, struct tval *x, bool reverse, int axis,
				 const struct py_node *at);

struct tval *lw_cumsum(struct lw *lw, struct tval *x, const struct py_node *axis_n, bool reverse,
		       const struct py_node *at)
{
	if (!lw_is_tile(x))
		lw_unsupported(lw, at, "a prefix sum of a scalar");
	if (x->shape.rank == 0)
		return x;
	int axis = axis_n ? lw_axis(lw, axis_n, x->shape.rank) : 0;
	if (x->dt == DT_BOOL)
		lw_unsupported(lw, at, "a prefix sum of a bool tile");
	if (axis != 0) {
		/* cutile 0.2.0's scan_sum scans axis 0 whatever its dim says (its
		 * compile_scan_op writes dim=0): another axis goes through a
		 * transposition there and back */
		int perm[TIR_MAX_RANK];
		for (int i = 0; i < x->shape.rank; i++)
			perm[i] = i;
		perm[0] = axis;
		perm[axis] = 0;
		struct tval *t = lw_permute(lw, x, perm, at);
		return lw_permute(lw, cumsum_axis0(lw, t, reverse, axis, at), perm, at);
	}
	return cumsum_axis0(lw, x, reverse, 0, at);
}

/* The scan itself, on axis 0 (`axis`: the source's, for the inventory). */
static struct tval *cumsum_axis0(struct lw *lw, struct tval *x, bool reverse, int axis,
				 const struct py_node *at)
{
	struct top *op = lw_op(lw, TOP_UNARY, at);
	op->fn = "scan_sum";
	op->modes = ta_printf(lw->a, "0i32, %s, %s",
			      reverse ? "reverse::Reverse" : "reverse::Forward",
			      zero_of(lw, x->dt, at));
	op->a[0] = x;
	op->na = 1;
	op->inv = "scan";
	op->inv_attr = ta_printf(lw->a, "sum axis=%d%s", axis, reverse ? " reverse" : "");
	return lw_tile_res(lw, op, x->dt, &x->shape, lw_hint(lw, "scan"));
}

struct tval *lw_extract(struct lw *lw, struct tval *x, const struct py_node *index_n,
			const struct py_node *shape_n, const struct py_node *at)
{
	if (!lw_is_tile(x))
		lw_unsupported(lw, at, "extract from a scalar");
	if (!index_n || !shape_n)
		lw_unsupported(lw, at, "extract without an index and a shape");
	struct tshape s;
	lw_shape(lw, shape_n, &s);
	if (s.rank != x->shape.rank)
		lw_unsupported(lw, at, "extract of a rank-%d sub-tile from a rank-%d tile", s.rank,
			       x->shape.rank);
	struct tval *ix = lw_expr(lw, index_n);
	size_t n = ix->kind == TV_TUPLE ? ix->nelems : 1;
	if (n != (size_t)s.rank)
		lw_unsupported(lw, index_n, "an extract index of %zu values for a rank-%d tile", n,
			       s.rank);
	/* the crate takes the sub-tile indices as 0-d i32 tiles (names kept
	 * in the arena: lw_int_rs can jump out) */
	const char *list = "";
	for (size_t i = 0; i < n; i++) {
		struct tval *v = ix->kind == TV_TUPLE ? ix->elems[i] : ix;
		struct tval *t = v;
		if (!(v->kind == TV_TILE && v->shape.rank == 0 && v->dt == DT_I32)) {
			const char *rs = lw_int_rs(lw, v, index_n);
			struct top *op = lw_op(lw, TOP_TO_TILE, at);
			op->text = v->kind == TV_CINT && v->known ? ta_printf(lw->a, "%si32", rs) : rs;
			t = lw_tile_res(lw, op, DT_I32, &(struct tshape){0}, lw_hint(lw, "at"));
		}
		list = ta_printf(lw->a, "%s%s%s", list, i ? ", " : "", tv_rs(t));
	}
	struct top *op = lw_op(lw, TOP_UNARY, at);
	op->fn = "extract";
	op->modes = ta_printf(lw->a, "[%s]", list);
	op->a[0] = x;
	op->na = 1;
	op->inv = "extract";
	return lw_tile_res(lw, op, x->dt, &s, lw_hint(lw, "sub"));
}
