/* Tile ops shared by the front ends: turning scalars into tiles (literals
 * through `constant`, runtime scalars through `broadcast_scalar`, integers
 * that meet floats through `scalar_to_tile` + `convert_tile`, coding rules
 * 18 and 46), numpy-style broadcasting made explicit (`reshape` then
 * `broadcast`), element-wise ops, reductions that drop an axis and get it
 * back for keepdims (rule 5), mma with an f32 accumulator (rule 8); the
 * memory ops are in lower_mem.c. */
#include "engine/port/inv.h"
#include "engine/port/lower.h"

#include <stdlib.h>
#include <string.h>

static struct tval *float_tile(struct lw *lw, struct tval *x, const struct py_node *at);

const char *lw_hint(struct lw *lw, const char *suffix)
{
	if (!lw->target)
		return suffix;
	return ta_printf(lw->a, "%s_%s", lw->target, suffix);
}

bool lw_is_tile(const struct tval *v)
{
	return v && v->kind == TV_TILE;
}

bool lw_is_scalar(const struct tval *v)
{
	switch (v->kind) {
	case TV_INT:
	case TV_FLOAT:
	case TV_BOOL:
	case TV_CINT:
	case TV_CFLOAT:
	case TV_CBOOL:
		return true;
	default:
		return false;
	}
}

static void set_inv(struct top *op, const char *fn)
{
	const char *attr = NULL;
	op->inv = fn ? inv_name_for_fn(fn, &attr) : NULL;
	op->inv_attr = attr;
}

const char *lw_shape_text(struct lw *lw, const struct tshape *s)
{
	struct sbuf sb = SBUF_INIT;
	sb_adds(&sb, "(");
	tshape_list(s, &sb);
	sb_adds(&sb, s->rank == 1 ? ",)" : ")");
	const char *r = ta_strdup(lw->a, sb_str(&sb));
	sb_free(&sb);
	return r;
}

const char *lw_describe(struct lw *lw, const struct tval *v)
{
	if (v->kind == TV_TILE || v->kind == TV_PTRS)
		return ta_printf(lw->a, "%s %s of %s", v->kind == TV_TILE ? "tile" : "pointer tile",
				 lw_shape_text(lw, &v->shape), tdt_name(v->dt));
	return lw_kind(v);
}

static struct tval *reshape_op(struct lw *lw, struct tval *x, const struct tshape *s,
			       const struct py_node *at, const char *hint)
{
	struct top *op = lw_op(lw, TOP_RESHAPE, at);
	op->a[0] = x;
	op->na = 1;
	op->shape = *s;
	struct tval *r = lw_tile_res(lw, op, x->dt, s, lw_hint(lw, hint));
	r->ptr_tile = x->ptr_tile;
	return r;
}

static struct tval *broadcast_op(struct lw *lw, struct tval *x, const struct tshape *s,
				 const struct py_node *at)
{
	struct top *op = lw_op(lw, TOP_BROADCAST, at);
	op->a[0] = x;
	op->na = 1;
	op->shape = *s;
	struct tval *r = lw_tile_res(lw, op, x->dt, s, lw_hint(lw, "b"));
	r->ptr_tile = x->ptr_tile;
	return r;
}

static bool dim_eq(const struct tdim *a, const struct tdim *b)
{
	if ((a->sym == NULL) != (b->sym == NULL))
		return false;
	return a->sym ? strcmp(a->sym, b->sym) == 0 : a->lit == b->lit;
}

static bool dim_one(const struct tdim *d)
{
	return !d->sym && d->lit == 1;
}

void lw_common_shape(struct lw *lw, const struct tshape *a, const struct tshape *b,
		     struct tshape *out, const struct py_node *at)
{
	int r = a->rank > b->rank ? a->rank : b->rank;
	memset(out, 0, sizeof(*out));
	out->rank = r;
	for (int i = 0; i < r; i++) {
		const struct tdim *x = i < r - a->rank ? NULL : &a->d[i - (r - a->rank)];
		const struct tdim *y = i < r - b->rank ? NULL : &b->d[i - (r - b->rank)];
		if (!x)
			out->d[i] = *y;
		else if (!y)
			out->d[i] = *x;
		else if (dim_eq(x, y) || dim_one(y))
			out->d[i] = *x;
		else if (dim_one(x))
			out->d[i] = *y;
		else
			lw_unsupported(lw, at, "tiles of shapes %s and %s do not broadcast",
				       lw_shape_text(lw, a), lw_shape_text(lw, b));
	}
}

struct tval *lw_broadcast(struct lw *lw, struct tval *v, const struct tshape *s,
			  const struct py_node *at)
{
	if (tshape_eq(&v->shape, s))
		return v;
	if (v->shape.rank > s->rank)
		lw_unsupported(lw, at, "a tile of shape %s where %s is needed",
			       lw_shape_text(lw, &v->shape), lw_shape_text(lw, s));
	struct tval *x = v;
	if (v->shape.rank < s->rank) {
		struct tshape r = {0};
		r.rank = s->rank;
		int pad = s->rank - v->shape.rank;
		for (int i = 0; i < s->rank; i++)
			r.d[i] = i < pad ? (struct tdim){1, NULL} : v->shape.d[i - pad];
		x = reshape_op(lw, v, &r, at, "r");
	}
	if (tshape_eq(&x->shape, s))
		return x;
	for (int i = 0; i < s->rank; i++)
		if (!dim_eq(&x->shape.d[i], &s->d[i]) && !dim_one(&x->shape.d[i]))
			lw_unsupported(lw, at, "a tile of shape %s does not broadcast to %s",
				       lw_shape_text(lw, &v->shape), lw_shape_text(lw, s));
	return broadcast_op(lw, x, s, at);
}

struct tval *lw_convert(struct lw *lw, struct tval *v, enum tdt dt, const struct py_node *at)
{
	if (v->kind != TV_TILE)
		return v;
	if (v->dt == dt)
		return v;
	if (v->ptr_tile)
		lw_unsupported(lw, at, "converting a pointer tile");
	struct top *op = lw_op(lw, TOP_CONVERT, at);
	op->a[0] = v;
	op->na = 1;
	op->inv = "convert";
	op->inv_attr = tdt_rust(dt);
	const char *hint = ta_printf(lw->a, "%s_%s", v->var->name, tdt_rust(dt));
	for (char *p = (char *)hint; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
	return lw_tile_res(lw, op, dt, &v->shape, hint);
}

/* A literal tile: `constant` takes a typed literal; element types without
 * a Rust literal (E, f16, bf16, tf32) get an f32 constant converted. */
static struct tval *const_tile(struct lw *lw, double value, bool is_int, enum tdt dt,
			       const struct tshape *s, const struct py_node *at)
{
	enum tdt lit_dt = dt;
	const char *lit;
	if (dt == DT_BOOL) {
		lit = value != 0 ? "true" : "false";
	} else if (tdt_is_int(dt)) {
		lit = ta_printf(lw->a, "%lld%s", (long long)value, tdt_rust(dt));
	} else {
		if (dt != DT_F32 && dt != DT_F64)
			lit_dt = DT_F32;
		lit = lw_float_rs(lw, value, lit_dt);
	}
	struct top *op = lw_op(lw, TOP_CONSTANT, at);
	op->text = lit;
	op->int_literal = is_int && dt != DT_BOOL;
	op->shape = *s;
	struct tval *r = lw_tile_res(lw, op, lit_dt, s, lw_hint(lw, "c"));
	return lw_convert(lw, r, dt, at);
}

static struct tval *splat(struct lw *lw, const char *rs, enum tdt dt, const struct tshape *s,
			  const struct py_node *at)
{
	struct top *op = lw_op(lw, TOP_SPLAT, at);
	op->text = rs;
	op->shape = *s;
	return lw_tile_res(lw, op, dt, s, lw_hint(lw, "s"));
}

struct tval *lw_to_tile(struct lw *lw, struct tval *v, enum tdt dt, const struct tshape *s,
			const struct py_node *at)
{
	switch (v->kind) {
	case TV_TILE:
		return lw_broadcast(lw, lw_convert(lw, v, dt, at), s, at);
	case TV_CFLOAT:
		if (!tdt_is_float(dt))
			lw_unsupported(lw, at, "a float literal with a %s tile", tdt_name(dt));
		return const_tile(lw, v->fval, false, dt, s, at);
	case TV_CINT:
	case TV_CBOOL:
		if (v->known)
			return const_tile(lw, (double)v->ival, true, dt, s, at);
		/* a const generic: the same as a runtime integer */
		/* fall through */
	case TV_INT: {
		const char *rs = tv_rs(v);
		if (v->kind == TV_CBOOL || dt == DT_BOOL) {
			if (v->kind != TV_CBOOL || dt != DT_BOOL)
				lw_unsupported(lw, at, "mixing bool and integer values in a tile op");
			return splat(lw, rs, DT_BOOL, s, at);
		}
		if (tdt_is_int(dt)) {
			struct tval *t = splat(lw, rs, DT_I32, s, at);
			return lw_convert(lw, t, dt, at);
		}
		/* an integer meeting floats: scalar_to_tile + convert_tile (rule 46) */
		struct tshape s0 = {0};
		struct top *op = lw_op(lw, TOP_TO_TILE, at);
		op->text = rs;
		struct tval *t = lw_tile_res(lw, op, DT_I32, &s0, lw_hint(lw, "t"));
		struct tval *f = lw_convert(lw, t, dt, at);
		return lw_broadcast(lw, f, s, at);
	}
	case TV_FLOAT: {
		struct tval *t = splat(lw, tv_rs(v), v->dt ? v->dt : DT_F32, s, at);
		return lw_convert(lw, t, dt, at);
	}
	case TV_BOOL:
		if (dt != DT_BOOL)
			lw_unsupported(lw, at, "a runtime bool in a %s tile op", tdt_name(dt));
		return splat(lw, tv_rs(v), DT_BOOL, s, at);
	default:
		lw_unsupported(lw, at, "this value in a tile op");
	}
}

/* The element type two operands meet in. */
static enum tdt meet(struct lw *lw, const struct tval *a, const struct tval *b,
		     const struct py_node *at)
{
	if (a->kind == TV_TILE && b->kind == TV_TILE) {
		if (a->dt == b->dt)
			return a->dt;
		bool fa = tdt_is_float(a->dt), fb = tdt_is_float(b->dt);
		if (fa != fb)
			return fa ? a->dt : b->dt;
		/* E (f16, bf16 or f32) with f32 is f32, as cuTile promotes */
		if ((a->dt == DT_E && b->dt == DT_F32) || (a->dt == DT_F32 && b->dt == DT_E))
			return DT_F32;
		if (a->dt == DT_E || b->dt == DT_E)
			lw_unsupported(lw, at,
				       "tiles of %s and %s meet in one op (convert one with astype)",
				       tdt_name(a->dt), tdt_name(b->dt));
		/* two concrete types of one family: the wider wins */
		return a->dt > b->dt ? a->dt : b->dt;
	}
	const struct tval *t = a->kind == TV_TILE ? a : b;
	const struct tval *o = t == a ? b : a;
	if (!tdt_is_float(t->dt) && (o->kind == TV_FLOAT || o->kind == TV_CFLOAT))
		return DT_F32;
	return t->dt;
}

void lw_shape_or_scalar(const struct tval *v, struct tshape *s)
{
	if (v->kind == TV_TILE)
		*s = v->shape;
	else
		memset(s, 0, sizeof(*s));
}

struct tval *lw_tile_binary(struct lw *lw, const char *fn, const char *modes, struct tval *a,
			    struct tval *b, bool result_bool, const struct py_node *at,
			    const char *inv)
{
	(void)inv;
	if (a->kind != TV_TILE && b->kind != TV_TILE)
		a = lw_to_tile(lw, a, a->kind == TV_FLOAT || a->kind == TV_CFLOAT ? DT_F32 : DT_I32,
			       &(struct tshape){0}, at);
	enum tdt dt = meet(lw, a, b, at);
	struct tshape sa, sb, s;
	lw_shape_or_scalar(a, &sa);
	lw_shape_or_scalar(b, &sb);
	lw_common_shape(lw, &sa, &sb, &s, at);
	struct tval *x = lw_to_tile(lw, a, dt, &s, at);
	struct tval *y = lw_to_tile(lw, b, dt, &s, at);
	struct top *op = lw_op(lw, TOP_BINARY, at);
	op->fn = fn;
	op->modes = modes;
	op->a[0] = x;
	op->a[1] = y;
	op->na = 2;
	set_inv(op, fn);
	return lw_tile_res(lw, op, result_bool ? DT_BOOL : dt, &s, lw_hint(lw, "r"));
}

struct tval *lw_tile_unary(struct lw *lw, const char *fn, const char *modes, struct tval *x,
			   const struct py_node *at, const char *inv)
{
	(void)inv;
	if (x->kind != TV_TILE)
		x = lw_to_tile(lw, x, x->kind == TV_FLOAT || x->kind == TV_CFLOAT ? DT_F32 : DT_I32,
			       &(struct tshape){0}, at);
	struct top *op = lw_op(lw, TOP_UNARY, at);
	op->fn = fn;
	op->modes = modes;
	op->a[0] = x;
	op->na = 1;
	set_inv(op, fn);
	return lw_tile_res(lw, op, x->dt, &x->shape, lw_hint(lw, "r"));
}

struct tval *lw_exp(struct lw *lw, struct tval *x, bool ftz, const struct py_node *at)
{
	x = float_tile(lw, x, at);
	/* cuTile Python 1.7 keeps exp as exp, in the input's own type; cutile's
	 * exp takes no flush_to_zero, so that one is written exp2(x * log2(e)),
	 * as older cuTile lowered every exp */
	if (!ftz)
		return lw_tile_unary(lw, "exp", NULL, x, at, "exp");
	struct tval *log2e = const_tile(lw, 1.4426950408889634, false, x->dt, &x->shape, at);
	const char *m = ftz ? "rounding::NearestEven, ftz::Enabled" : "rounding::NearestEven, ftz::Disabled";
	struct tval *scaled = lw_tile_binary(lw, "mulf", m, x, log2e, false, at, "mul");
	scaled->def->implicit = true;
	struct tval *r = lw_tile_unary(lw, "exp2", ftz ? "ftz::Enabled" : "ftz::Disabled", scaled, at,
				       "exp2");
	r->def->note = "exp";
	return r;
}

struct tval *lw_select(struct lw *lw, struct tval *c, struct tval *a, struct tval *b,
		       const struct py_node *at)
{
	enum tdt dt = (a->kind == TV_TILE || b->kind == TV_TILE) ? meet(lw, a, b, at)
		      : (a->kind == TV_FLOAT || a->kind == TV_CFLOAT || b->kind == TV_FLOAT ||
			 b->kind == TV_CFLOAT)
			  ? DT_F32
			  : DT_I32;
	struct tshape sc, sa, sb, s1, s;
	lw_shape_or_scalar(c, &sc);
	lw_shape_or_scalar(a, &sa);
	lw_shape_or_scalar(b, &sb);
	lw_common_shape(lw, &sc, &sa, &s1, at);
	lw_common_shape(lw, &s1, &sb, &s, at);
	if (c->kind == TV_TILE && c->dt != DT_BOOL)
		lw_unsupported(lw, at, "a where() condition of %s elements", tdt_name(c->dt));
	struct tval *cc = lw_to_tile(lw, c, DT_BOOL, &s, at);
	struct tval *x = lw_to_tile(lw, a, dt, &s, at);
	struct tval *y = lw_to_tile(lw, b, dt, &s, at);
	struct top *op = lw_op(lw, TOP_SELECT, at);
	op->fn = "select";
	op->a[0] = cc;
	op->a[1] = x;
	op->a[2] = y;
	op->na = 3;
	set_inv(op, "select");
	return lw_tile_res(lw, op, dt, &s, lw_hint(lw, "r"));
}

static struct tval *reduce_axis(struct lw *lw, const char *kind, struct tval *x, int axis,
				const struct py_node *at)
{
	struct tshape s = {0};
	for (int i = 0; i < x->shape.rank; i++)
		if (i != axis)
			s.d[s.rank++] = x->shape.d[i];
	struct top *op = lw_op(lw, TOP_REDUCE, at);
	op->fn = ta_printf(lw->a, "reduce_%s", kind);
	op->axis = axis;
	op->a[0] = x;
	op->na = 1;
	op->inv = "reduce";
	op->inv_attr = ta_printf(lw->a, "%s axis=%d", kind, axis);
	return lw_tile_res(lw, op, x->dt, &s, lw_hint(lw, "red"));
}

struct tval *lw_reduce(struct lw *lw, const char *kind, struct tval *x, int axis, bool keepdims,
		       const struct py_node *at)
{
	if (x->kind != TV_TILE)
		lw_unsupported(lw, at, "a reduction of a scalar");
	if (x->shape.rank == 0)
		return x;
	struct tshape kept = x->shape;
	struct tval *r = x;
	if (axis < 0) {
		for (int i = x->shape.rank - 1; i >= 0; i--)
			r = reduce_axis(lw, kind, r, i, at);
		for (int i = 0; i < kept.rank; i++)
			kept.d[i] = (struct tdim){1, NULL};
	} else {
		r = reduce_axis(lw, kind, r, axis, at);
		kept.d[axis] = (struct tdim){1, NULL};
	}
	if (!keepdims)
		return r;
	/* the reduce dropped the axis; keepdims wants it back (rule 5) */
	return reshape_op(lw, r, &kept, at, "k");
}

static void need_shape(struct lw *lw, const struct tval *v, int rank, const struct py_node *at,
		       const char *what)
{
	if (v->kind != TV_TILE)
		lw_unsupported(lw, at, "%s must be a tile", what);
	if (v->shape.rank != rank && !(rank == 2 && v->shape.rank == 3))
		lw_unsupported(lw, at, "%s of rank %d (mma takes rank 2 or 3)", what, v->shape.rank);
}

struct tval *lw_mma(struct lw *lw, struct tval *a, struct tval *b, struct tval *acc,
		    const struct py_node *at)
{
	need_shape(lw, a, 2, at, "the left operand of mma");
	need_shape(lw, b, 2, at, "the right operand of mma");
	int r = a->shape.rank;
	if (b->shape.rank != r)
		lw_unsupported(lw, at, "mma operands of ranks %d and %d", r, b->shape.rank);
	if (!dim_eq(&a->shape.d[r - 1], &b->shape.d[r - 2]))
		lw_unsupported(lw, at, "mma operands whose inner dimensions differ (%s x %s)",
			       lw_shape_text(lw, &a->shape), lw_shape_text(lw, &b->shape));
	if (a->dt != b->dt)
		lw_unsupported(lw, at, "mma operands of %s and %s", tdt_name(a->dt), tdt_name(b->dt));
	bool integer = tdt_is_int(a->dt);
	struct tshape s = a->shape;
	s.d[r - 1] = b->shape.d[r - 1];
	if (!acc) {
		/* an f32 accumulator (rule 8), i32 for integer inputs */
		acc = const_tile(lw, 0, integer, integer ? DT_I32 : DT_F32, &s, at);
	} else if (acc->kind != TV_TILE || !tshape_eq(&acc->shape, &s)) {
		lw_unsupported(lw, at, "an mma accumulator that is not a %s tile", lw_shape_text(lw, &s));
	}
	struct top *op = lw_op(lw, TOP_MMA, at);
	op->fn = integer ? "mmai" : "mmaf";
	op->a[0] = a;
	op->a[1] = b;
	op->a[2] = acc;
	op->na = 3;
	op->inv = "mma";
	op->inv_attr = ta_printf(lw->a, "acc=%s", tdt_rust(acc->dt));
	return lw_tile_res(lw, op, acc->dt, &s, lw_hint(lw, "acc"));
}

struct tval *lw_iota(struct lw *lw, const struct tdim *n, int64_t start, int64_t step,
		     enum tdt dt, const struct py_node *at)
{
	struct tshape s = {0};
	s.rank = 1;
	s.d[0] = *n;
	struct top *op = lw_op(lw, TOP_IOTA, at);
	op->shape = s;
	op->inv = "iota";
	struct tval *r = lw_tile_res(lw, op, DT_I32, &s, lw_hint(lw, "iota"));
	if (step != 1)
		r = lw_tile_binary(lw, "*", NULL, r, tv_cint(lw->a, step), false, at, NULL);
	if (start != 0)
		r = lw_tile_binary(lw, "+", NULL, r, tv_cint(lw->a, start), false, at, NULL);
	return lw_convert(lw, r, dt, at);
}

struct tval *lw_full(struct lw *lw, const struct tshape *s, struct tval *value, enum tdt dt,
		     const struct py_node *at)
{
	/* a scalar the lowering holds as a 0-d tile (`N * 1.0` of a Constant
	 * int: scalar_to_tile + convert) broadcasts as the scalar would */
	bool tile0 = value->kind == TV_TILE && value->shape.rank == 0 && !value->ptr_tile;
	if (!lw_is_scalar(value) && !tile0)
		lw_unsupported(lw, at, "a fill value that is not a scalar");
	return lw_to_tile(lw, value, dt, s, at);
}

/* Do two shapes provably hold different element counts? Symbolic
 * dimensions (Constants, all positive) cancel when both sides have the
 * same ones; otherwise nothing is known until the JIT binds them. */
static bool counts_differ(const struct tshape *a, const struct tshape *b)
{
	int64_t ca = 1, cb = 1;
	const char *syms[2 * TIR_MAX_RANK];
	size_t ns = 0;
	for (int i = 0; i < a->rank; i++) {
		if (a->d[i].sym)
			syms[ns++] = a->d[i].sym;
		else
			ca *= a->d[i].lit;
	}
	for (int i = 0; i < b->rank; i++) {
		if (!b->d[i].sym) {
			cb *= b->d[i].lit;
			continue;
		}
		size_t j = 0;
		while (j < ns && strcmp(syms[j], b->d[i].sym) != 0)
			j++;
		if (j == ns)
			return false;
		syms[j] = syms[--ns];
	}
	return ns == 0 && ca != cb;
}

struct tval *lw_reshape(struct lw *lw, struct tval *x, const struct tshape *s,
			const struct py_node *at)
{
	if (x->kind != TV_TILE)
		lw_unsupported(lw, at, "reshaping a scalar");
	if (tshape_eq(&x->shape, s))
		return x;
	if (counts_differ(&x->shape, s))
		lw_unsupported(lw, at, "reshaping %s to %s", lw_shape_text(lw, &x->shape),
			       lw_shape_text(lw, s));
	return reshape_op(lw, x, s, at, "r");
}

struct tval *lw_reshape_to(struct lw *lw, struct tval *x, const struct py_node *shape,
			   const struct py_node *at)
{
	struct tshape s;
	lw_shape(lw, shape, &s);
	return lw_reshape(lw, x, &s, at);
}

struct tval *lw_broadcast_to(struct lw *lw, struct tval *x, const struct py_node *shape,
			     const char *fn, const struct py_node *at)
{
	struct tshape s;
	lw_shape(lw, shape, &s);
	if (x->kind != TV_TILE)
		lw_unsupported(lw, at, "%s of a scalar (use full)", fn);
	return lw_broadcast(lw, x, &s, at);
}

struct tval *lw_expand_dims(struct lw *lw, struct tval *x, const struct py_node *axis,
			    const char *fn, const struct py_node *at)
{
	if (x->kind != TV_TILE)
		lw_unsupported(lw, at, "%s of a scalar", fn);
	int ax = lw_axis(lw, axis, x->shape.rank + 1);
	struct tshape s = {0};
	for (int i = 0, j = 0; i <= x->shape.rank; i++)
		s.d[s.rank++] = i == ax ? (struct tdim){1, NULL} : x->shape.d[j++];
	return lw_reshape(lw, x, &s, at);
}

void lw_permutation(struct lw *lw, const struct tval *x, const struct py_node *axes,
		    const char *word, int *perm)
{
	struct tval *v = lw_expr(lw, axes);
	if (v->kind != TV_TUPLE || v->nelems != (size_t)x->shape.rank)
		lw_unsupported(lw, axes, "%s that are not a tuple of %d", word, x->shape.rank);
	for (size_t i = 0; i < v->nelems; i++) {
		if (v->elems[i]->kind != TV_CINT || !v->elems[i]->known)
			lw_unsupported(lw, axes, "%s that are not compile-time", word);
		perm[i] = (int)v->elems[i]->ival;
	}
}

struct tval *lw_permute(struct lw *lw, struct tval *x, const int *perm, const struct py_node *at)
{
	if (x->kind != TV_TILE)
		lw_unsupported(lw, at, "permuting a scalar");
	struct tshape s = {0};
	s.rank = x->shape.rank;
	bool seen[TIR_MAX_RANK] = {0};
	for (int i = 0; i < s.rank; i++) {
		if (perm[i] < 0 || perm[i] >= s.rank || seen[perm[i]])
			lw_unsupported(lw, at, "an axis permutation that is not one");
		seen[perm[i]] = true;
		s.d[i] = x->shape.d[perm[i]];
	}
	struct top *op = lw_op(lw, TOP_PERMUTE, at);
	op->a[0] = x;
	op->na = 1;
	memcpy(op->order, perm, sizeof(op->order));
	op->inv = "permute";
	return lw_tile_res(lw, op, x->dt, &s, lw_hint(lw, "t"));
}

/* ---- helpers both front ends call ---- */

static const struct {
	const char *name;
	bool rounding, ftz; /* which mode arguments the Rust function takes */
} math_fns[] = {
	{"exp2", false, true}, {"log", false, false},  {"log2", false, false},
	{"sqrt", true, true},  {"rsqrt", false, true}, {"sin", false, false},
	{"cos", false, false}, {"tan", false, false},  {"sinh", false, false},
	{"cosh", false, false}, {"tanh", false, false}, {"floor", false, false},
	{"ceil", false, false},
};

bool lw_math_fn(const char *name)
{
	for (size_t i = 0; i < TP_ARRAY_LEN(math_fns); i++)
		if (strcmp(name, math_fns[i].name) == 0)
			return true;
	return false;
}

static struct tval *float_tile(struct lw *lw, struct tval *x, const struct py_node *at)
{
	if (x->kind != TV_TILE)
		return lw_to_tile(lw, x, DT_F32, &(struct tshape){0}, at);
	if (!tdt_is_float(x->dt))
		return lw_convert(lw, x, DT_F32, at);
	return x;
}

struct tval *lw_math1(struct lw *lw, const char *name, struct tval *x, const char *rounding,
		      bool ftz, const struct py_node *at)
{
	for (size_t i = 0; i < TP_ARRAY_LEN(math_fns); i++) {
		if (strcmp(name, math_fns[i].name) != 0)
			continue;
		const char *f = ftz ? "ftz::Enabled" : "ftz::Disabled";
		const char *modes = NULL;
		if (math_fns[i].rounding)
			modes = ta_printf(lw->a, "%s, %s", rounding ? rounding : "rounding::NearestEven", f);
		else if (math_fns[i].ftz)
			modes = f;
		return lw_tile_unary(lw, math_fns[i].name, modes, float_tile(lw, x, at), at, NULL);
	}
	return NULL;
}

struct tval *lw_minmax(struct lw *lw, bool is_min, struct tval *a, struct tval *b, bool nan,
		       bool ftz, const struct py_node *at)
{
	struct tval *t = lw_is_tile(a) ? a : b;
	if (!lw_is_tile(t)) {
		/* scalars (a group's size in a swizzled grid): Rust's own if */
		if (lw_known_num(a) && lw_known_num(b))
			return (is_min ? lw_num(a) <= lw_num(b) : lw_num(a) >= lw_num(b)) ? a : b;
		if (lw_is_int_scalar(a) && lw_is_int_scalar(b))
			return lw_scalar_if(lw,
					    ta_printf(lw->a, "%s %s %s", tv_rs(a), is_min ? "<" : ">",
						      tv_rs(b)),
					    a, b, at);
		lw_unsupported(lw, at, "%s of two float scalars", is_min ? "minimum" : "maximum");
	}
	if (tdt_is_float(t->dt)) {
		const char *modes = ta_printf(lw->a, "%s, %s", nan ? "nan::Enabled" : "nan::Disabled",
					      ftz ? "ftz::Enabled" : "ftz::Disabled");
		return lw_tile_binary(lw, is_min ? "minf" : "maxf", modes, a, b, false, at, NULL);
	}
	return lw_tile_binary(lw, is_min ? "min_tile" : "max_tile", NULL, a, b, false, at, NULL);
}

struct tval *lw_reduction(struct lw *lw, const char *kind, struct tval *x,
			  const struct py_node *axis_n, const struct py_node *keep,
			  const struct py_node *at)
{
	if (x->kind != TV_TILE)
		lw_unsupported(lw, at, "a reduction of a %s", x->kind == TV_TUPLE ? "tuple" : "scalar");
	int axis = -1;
	if (axis_n) {
		struct tval *a = lw_expr(lw, axis_n);
		if (a->kind == TV_TUPLE)
			lw_unsupported(lw, axis_n, "a reduction over several axes");
		if (a->kind != TV_NONE)
			axis = lw_axis(lw, axis_n, x->shape.rank);
	}
	return lw_reduce(lw, kind, x, axis, lw_truthy(lw, keep, false), at);
}

struct tval *lw_cdiv(struct lw *lw, struct tval *a, struct tval *b, const struct py_node *at)
{
	if (a->kind == TV_CINT && b->kind == TV_CINT && a->known && b->known) {
		if (b->ival == 0)
			lw_unsupported(lw, at, "cdiv by zero");
		return tv_cint(lw->a, (a->ival + b->ival - 1) / b->ival);
	}
	/* (a + b - 1) / b, as op-mapping writes it */
	const char *x = lw_int_rs(lw, a, at), *y = lw_int_rs(lw, b, at);
	const char *rs = ta_printf(lw->a, "((%s + %s - 1) / %s)", x, y, y);
	if (a->kind == TV_CINT && b->kind == TV_CINT)
		return tv_csym(lw->a, rs);
	return tv_int(lw->a, rs);
}

struct tval *lw_block_id(struct lw *lw, bool num_blocks, const struct py_node *axis_n,
			 const struct py_node *at)
{
	int64_t axis;
	if (!axis_n || !lw_known_int(lw, axis_n, &axis) || axis < 0 || axis > 2)
		lw_unsupported(lw, at, "a block id axis other than 0, 1 or 2");
	struct top *op = lw_op(lw, num_blocks ? TOP_NUM_BLOCKS : TOP_BID, at);
	op->axis = (int)axis;
	op->inv = num_blocks ? "num_blocks" : "bid";
	op->inv_attr = ta_printf(lw->a, "axis=%d", (int)axis);
	struct tvar *var = lw_var_new(lw, lw_hint(lw, num_blocks ? "num_blocks" : "bid"));
	struct tval *v = tv_int(lw->a, var->name);
	v->var = var;
	v->def = op;
	op->res = v;
	return v;
}
