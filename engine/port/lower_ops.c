/* Lowering operators with Python's semantics: arithmetic, bitwise and
 * comparison operators on compile-time values (folded), runtime scalars
 * (Rust expressions) and tiles (tile functions, broadcasting through
 * lower_tile.c), element-type tests (const generics), unary and boolean
 * operators, conditional expressions. */
#include "engine/port/lower.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- operators ---- */

static int64_t floordiv(int64_t a, int64_t b)
{
	int64_t q = a / b;
	if ((a % b != 0) && ((a < 0) != (b < 0)))
		q--;
	return q;
}

static int64_t pymod(int64_t a, int64_t b)
{
	int64_t r = a % b;
	if (r != 0 && ((r < 0) != (b < 0)))
		r += b;
	return r;
}

/* How each binary operator is written: on runtime integer scalars, on
 * integer and float tiles (NULL: not defined there), and its name in the
 * op inventory. */
static const struct binop_info {
	int op;
	const char *int_rs, *int_tile, *float_tile, *inv;
} binops[] = {
	{PYOP_ADD, "+", "+", "+", "add"},
	{PYOP_SUB, "-", "-", "-", "sub"},
	{PYOP_MUL, "*", "*", "*", "mul"},
	{PYOP_DIV, NULL, NULL, "true_div", "div"},
	{PYOP_FLOORDIV, "/", "/", NULL, "floordiv"},
	/* `%` on integer tiles: cutile 0.2.0's remi() writes no signedness and
	 * its bytecode writer refuses the op; the operator carries it */
	{PYOP_MOD, "%", "%", "remf", "rem"},
	{PYOP_POW, NULL, NULL, "pow", "pow"},
	{PYOP_LSHIFT, "<<", "shli", NULL, "shl"},
	{PYOP_RSHIFT, ">>", "shri", NULL, "shr"},
	{PYOP_BITAND, "&", "andi", NULL, "and"},
	{PYOP_BITOR, "|", "ori", NULL, "or"},
	{PYOP_BITXOR, "^", "xori", NULL, "xor"},
};

static const struct binop_info *binop_of(int op)
{
	for (size_t i = 0; i < TP_ARRAY_LEN(binops); i++)
		if (binops[i].op == op)
			return &binops[i];
	return NULL;
}

static const char *int_op(int op)
{
	const struct binop_info *b = binop_of(op);
	return b ? b->int_rs : NULL;
}

bool lw_known_num(const struct tval *v)
{
	return v->known && (v->kind == TV_CINT || v->kind == TV_CFLOAT || v->kind == TV_CBOOL);
}

double lw_num(const struct tval *v)
{
	return v->kind == TV_CFLOAT ? v->fval : (double)v->ival;
}

static struct tval *fold(struct lw *lw, int op, struct tval *a, struct tval *b,
			 const struct py_node *at)
{
	bool ints = a->kind != TV_CFLOAT && b->kind != TV_CFLOAT;
	if (ints && op != PYOP_DIV) {
		int64_t x = a->ival, y = b->ival, r;
		switch (op) {
		case PYOP_ADD:
			r = x + y;
			break;
		case PYOP_SUB:
			r = x - y;
			break;
		case PYOP_MUL:
			r = x * y;
			break;
		case PYOP_FLOORDIV:
		case PYOP_MOD:
			if (y == 0)
				lw_unsupported(lw, at, "division by zero");
			r = op == PYOP_FLOORDIV ? floordiv(x, y) : pymod(x, y);
			break;
		case PYOP_POW:
			if (y < 0)
				return lw_cfloat(lw, pow((double)x, (double)y));
			r = 1;
			for (int64_t i = 0; i < y && i < 64; i++)
				r *= x;
			break;
		case PYOP_LSHIFT:
			r = (y >= 0 && y < 63) ? x << y : 0;
			break;
		case PYOP_RSHIFT:
			r = (y >= 0 && y < 63) ? x >> y : 0;
			break;
		case PYOP_BITAND:
			r = x & y;
			break;
		case PYOP_BITOR:
			r = x | y;
			break;
		case PYOP_BITXOR:
			r = x ^ y;
			break;
		default:
			lw_unsupported(lw, at, "the operator %s on integers", py_op_text(op));
		}
		return tv_cint(lw->a, r);
	}
	double x = lw_num(a), y = lw_num(b), r;
	switch (op) {
	case PYOP_ADD:
		r = x + y;
		break;
	case PYOP_SUB:
		r = x - y;
		break;
	case PYOP_MUL:
		r = x * y;
		break;
	case PYOP_DIV:
		if (y == 0)
			lw_unsupported(lw, at, "division by zero");
		r = x / y;
		break;
	case PYOP_POW:
		r = pow(x, y);
		break;
	case PYOP_FLOORDIV:
		if (y == 0)
			lw_unsupported(lw, at, "division by zero");
		r = floor(x / y);
		break;
	default:
		lw_unsupported(lw, at, "the operator %s on floats", py_op_text(op));
	}
	return lw_cfloat(lw, r);
}

/* A float literal as Rust (no exponent: coding rule 2). */
const char *lw_float_rs(struct lw *lw, double d, enum tdt dt)
{
	const char *suffix = dt == DT_F64 ? "f64" : "f32";
	if (isinf(d)) {
		/* rule 2 forbids f32::INFINITY: the largest finite value stands in */
		return ta_printf(lw->a, "%s340282346638528859811704183484516925440.0%s", d < 0 ? "-" : "",
				 suffix);
	}
	char buf[400];
	for (int prec = 1; prec < 60; prec++) {
		snprintf(buf, sizeof(buf), "%.*f", prec, d);
		double back = strtod(buf, NULL);
		if (dt == DT_F64 ? back == d : (float)back == (float)d)
			break;
	}
	/* trim trailing zeros but keep one digit after the point */
	size_t n = strlen(buf);
	char *dot = strchr(buf, '.');
	while (dot && n > (size_t)(dot - buf) + 2 && buf[n - 1] == '0')
		buf[--n] = '\0';
	return ta_printf(lw->a, "%s%s", buf, suffix);
}

static const char *scalar_rs(struct lw *lw, struct tval *v)
{
	if (v->kind == TV_CFLOAT)
		return lw_float_rs(lw, v->fval, DT_F32);
	return tv_rs(v);
}

bool lw_is_int_scalar(const struct tval *v)
{
	return v->kind == TV_INT || v->kind == TV_CINT || (v->kind == TV_CBOOL && v->known);
}

bool lw_is_float_scalar(const struct tval *v)
{
	return v->kind == TV_FLOAT || v->kind == TV_CFLOAT;
}

/* A rank-0 float tile from an integer scalar (coding rule 46: no `as f32`). */
static struct tval *int_to_float_tile(struct lw *lw, struct tval *v, const struct py_node *at)
{
	struct tshape s0 = {0};
	return lw_to_tile(lw, v, DT_F32, &s0, at);
}

static const char *tile_op_fn(int op, enum tdt dt)
{
	const struct binop_info *b = binop_of(op);
	/* bool tiles have the bitwise operators, not arithmetic */
	if (!b || (dt == DT_BOOL && (op == PYOP_ADD || op == PYOP_SUB || op == PYOP_MUL)))
		return NULL;
	return tdt_is_float(dt) ? b->float_tile : b->int_tile;
}

static const char *inv_of(int op)
{
	const struct binop_info *b = binop_of(op);
	return b ? b->inv : "op";
}

struct tval *lw_binop(struct lw *lw, int op, struct tval *a, struct tval *b,
		      const struct py_node *at)
{
	/* pointer arithmetic (Triton): array + offsets */
	if (op == PYOP_ADD && (a->kind == TV_ARRAY || a->kind == TV_PTRS ||
			       b->kind == TV_ARRAY || b->kind == TV_PTRS)) {
		struct tval *p = (a->kind == TV_ARRAY || a->kind == TV_PTRS) ? a : b;
		struct tval *o = p == a ? b : a;
		lw_want_int(lw, o);
		if (o->kind == TV_ARRAY || o->kind == TV_PTRS)
			lw_unsupported(lw, at, "adding two pointers");
		if (!(lw_is_int_scalar(o) || (o->kind == TV_TILE && tdt_is_int(o->dt))))
			lw_unsupported(lw, at, "pointer arithmetic with a %s", lw_kind(o));
		struct tval *r = tv_new(lw->a, TV_PTRS);
		r->param = p->param;
		r->dt = p->dt;
		r->elems = ta_alloc(lw->a, sizeof(*r->elems));
		r->nelems = 1;
		r->elems[0] = p->kind == TV_PTRS ? lw_binop(lw, PYOP_ADD, p->elems[0], o, at) : o;
		return r;
	}
	if (a->kind == TV_TILE || b->kind == TV_TILE) {
		if (op == PYOP_MATMUL) /* a @ b is ct.matmul: the inputs' type */
			return lw_convert(lw, lw_mma(lw, a, b, NULL, at), a->dt, at);
		if (op == PYOP_FLOORDIV || op == PYOP_MOD || op == PYOP_BITAND || op == PYOP_BITOR ||
		    op == PYOP_BITXOR || op == PYOP_LSHIFT || op == PYOP_RSHIFT) {
			/* integer arithmetic on what an array of unknown element
			 * type holds (`token_ids // TOP_K`): it holds int32 */
			if (lw_is_int_scalar(b) || (b->kind == TV_TILE && tdt_is_int(b->dt)))
				lw_want_int(lw, a);
			if (lw_is_int_scalar(a) || (a->kind == TV_TILE && tdt_is_int(a->dt)))
				lw_want_int(lw, b);
		}
		if (op == PYOP_LSHIFT && a->kind == TV_TILE && tdt_is_int(a->dt)) {
			/* Python's shifts wrap, and shli's overflow::None is the mode
			 * that says so, but cutile 0.2.0 writes no overflow attribute
			 * for it and its bytecode writer then refuses the op; a
			 * multiplication by 2^k wraps the same */
			if (!(b->kind == TV_CINT && b->known && b->ival >= 0 && b->ival <= 30))
				lw_unsupported(lw, at, "a left shift of a tile by %s (cutile 0.2.0 cannot "
						       "write shli with overflow::None; only a constant "
						       "shift of 0 to 30 becomes a multiplication)",
					       lw_describe(lw, b));
			return lw_binop(lw, PYOP_MUL, a, tv_cint(lw->a, (int64_t)1 << b->ival), at);
		}
		enum tdt dt = a->kind == TV_TILE ? a->dt : b->dt;
		if (a->kind == TV_TILE && b->kind == TV_TILE && a->dt != b->dt) {
			if (tdt_is_float(a->dt) && !tdt_is_float(b->dt))
				dt = a->dt;
			else if (tdt_is_float(b->dt) && !tdt_is_float(a->dt))
				dt = b->dt;
			else if ((a->dt == DT_E && (b->dt == DT_F32 || b->dt == DT_F64)) ||
				 (b->dt == DT_E && (a->dt == DT_F32 || a->dt == DT_F64)))
				/* E (f16, bf16 or f32) with f32 is f32, as cuTile
				 * promotes: not the left operand's type */
				dt = a->dt == DT_E ? b->dt : a->dt;
		}
		/* a float scalar with an integer tile, or a true division of
		 * integers: the tiles become f32 */
		struct tval *other = a->kind == TV_TILE ? b : a;
		/* a run-time f32 (a `float` parameter) is no literal: f16 and
		 * bf16 tiles promote to it, as cuTile types them */
		if (other->kind == TV_FLOAT && !other->weak && other->dt == DT_F32 &&
		    (dt == DT_E || dt == DT_F16 || dt == DT_BF16))
			dt = DT_F32;
		if (!tdt_is_float(dt) && (lw_is_float_scalar(other) || op == PYOP_DIV ||
					  (other->kind == TV_TILE && tdt_is_float(other->dt))))
			dt = DT_F32;
		const char *fn = tile_op_fn(op, dt);
		if (!fn)
			lw_unsupported(lw, at, "the operator %s on %s tiles", py_op_text(op),
				       tdt_name(dt));
		struct tval *x = a->kind == TV_TILE ? lw_convert(lw, a, dt, at) : a;
		struct tval *y = b->kind == TV_TILE ? lw_convert(lw, b, dt, at) : b;
		return lw_tile_binary(lw, fn, NULL, x, y, false, at, inv_of(op));
	}
	if (lw_known_num(a) && lw_known_num(b))
		return fold(lw, op, a, b, at);
	if (lw_is_int_scalar(a) && lw_is_int_scalar(b) && op != PYOP_DIV && op != PYOP_POW) {
		const char *o = int_op(op);
		if (!o)
			lw_unsupported(lw, at, "the operator %s on integers", py_op_text(op));
		const char *rs = ta_printf(lw->a, "(%s %s %s)", lw_int_rs(lw, a, at), o,
					   lw_int_rs(lw, b, at));
		if (a->kind != TV_INT && b->kind != TV_INT)
			return tv_csym(lw->a, rs);
		return tv_int(lw->a, rs);
	}
	bool fa = lw_is_float_scalar(a), fb = lw_is_float_scalar(b);
	if ((fa || fb) && (fa || lw_known_num(a)) && (fb || lw_known_num(b)) &&
	    (op == PYOP_ADD || op == PYOP_SUB || op == PYOP_MUL || op == PYOP_DIV)) {
		struct tval *r = tv_new(lw->a, TV_FLOAT);
		r->dt = DT_F32;
		r->weak = (!fa || a->kind == TV_CFLOAT || a->weak) && (!fb || b->kind == TV_CFLOAT || b->weak);
		const char *x = a->kind == TV_CINT ? lw_float_rs(lw, (double)a->ival, DT_F32) : scalar_rs(lw, a);
		const char *y = b->kind == TV_CINT ? lw_float_rs(lw, (double)b->ival, DT_F32) : scalar_rs(lw, b);
		r->rs = ta_printf(lw->a, "(%s %s %s)", x, int_op(op) ? int_op(op) : "/", y);
		return r;
	}
	if ((lw_is_int_scalar(a) || lw_is_float_scalar(a)) && (lw_is_int_scalar(b) || lw_is_float_scalar(b))) {
		/* mixed runtime int/float arithmetic: on rank-0 f32 tiles */
		struct tval *x = lw_is_int_scalar(a) && !lw_known_num(a) ? int_to_float_tile(lw, a, at) : a;
		struct tval *y = lw_is_int_scalar(b) && !lw_known_num(b) ? int_to_float_tile(lw, b, at) : b;
		if (x->kind != TV_TILE && y->kind != TV_TILE)
			x = int_to_float_tile(lw, a, at);
		return lw_binop(lw, op, x, y, at);
	}
	lw_unsupported(lw, at, "the operator %s between a %s and a %s", py_op_text(op), lw_kind(a),
		       lw_kind(b));
}

static bool cmp_fold(int op, double x, double y)
{
	switch (op) {
	case PYOP_LT:
		return x < y;
	case PYOP_LE:
		return x <= y;
	case PYOP_GT:
		return x > y;
	case PYOP_GE:
		return x >= y;
	case PYOP_EQ:
		return x == y;
	default:
		return x != y;
	}
}

static const char *cmp_rs(int op)
{
	switch (op) {
	case PYOP_LT:
		return "<";
	case PYOP_LE:
		return "<=";
	case PYOP_GT:
		return ">";
	case PYOP_GE:
		return ">=";
	case PYOP_EQ:
		return "==";
	default:
		return "!=";
	}
}

static const char *cmp_tile_fn(int op)
{
	switch (op) {
	case PYOP_LT:
		return "lt_tile";
	case PYOP_LE:
		return "le_tile";
	case PYOP_GT:
		return "gt_tile";
	case PYOP_GE:
		return "ge_tile";
	case PYOP_EQ:
		return "eq_tile";
	default:
		return "ne_tile";
	}
}

static struct tval *dtype_compare(struct lw *lw, int op, struct tval *a, struct tval *b,
				  const struct py_node *at)
{
	bool eq = op == PYOP_EQ || op == PYOP_IS;
	if (a->dt == b->dt)
		return tv_cbool(lw->a, eq);
	if (a->dt != DT_E && b->dt != DT_E)
		return tv_cbool(lw->a, !eq);
	enum tdt concrete = a->dt == DT_E ? b->dt : a->dt;
	if (tdt_ffi_code(concrete) < 0 || concrete == DT_I32 || concrete == DT_I64)
		return tv_cbool(lw->a, !eq); /* E is a float type the FFI dispatches */
	(void)at;
	return lw_dtype_pred(lw, concrete, eq);
}

struct tval *lw_compare(struct lw *lw, int op, struct tval *a, struct tval *b,
			const struct py_node *at)
{
	if (op == PYOP_IS || op == PYOP_IS_NOT) {
		if (a->kind == TV_DTYPE && b->kind == TV_DTYPE)
			return dtype_compare(lw, op, a, b, at);
		bool same = (a->kind == TV_NONE) == (b->kind == TV_NONE) &&
			    (a->kind == TV_NONE || a == b);
		if (a->kind != TV_NONE && b->kind != TV_NONE && a != b)
			lw_unsupported(lw, at, "`is` between two values that are not None");
		return tv_cbool(lw->a, op == PYOP_IS ? same : !same);
	}
	if (op == PYOP_IN || op == PYOP_NOT_IN) {
		if (b->kind != TV_TUPLE)
			lw_unsupported(lw, at, "`in` on a %s", lw_kind(b));
		bool found = false;
		for (size_t i = 0; i < b->nelems && !found; i++) {
			struct tval *c = lw_compare(lw, PYOP_EQ, a, b->elems[i], at);
			if (c->kind != TV_CBOOL || !c->known)
				lw_unsupported(lw, at, "`in` that cannot be decided at compile time");
			found = c->ival != 0;
		}
		return tv_cbool(lw->a, op == PYOP_IN ? found : !found);
	}
	if (a->kind == TV_DTYPE && b->kind == TV_DTYPE) {
		if (op != PYOP_EQ && op != PYOP_NE)
			lw_unsupported(lw, at, "ordering dtypes");
		return dtype_compare(lw, op, a, b, at);
	}
	if (a->kind == TV_TILE || b->kind == TV_TILE) {
		enum tdt dt = a->kind == TV_TILE ? a->dt : b->dt;
		if (a->kind == TV_TILE && b->kind == TV_TILE && a->dt != b->dt)
			lw_unsupported(lw, at, "comparing %s and %s tiles", tdt_name(a->dt),
				       tdt_name(b->dt));
		(void)dt;
		return lw_tile_binary(lw, cmp_tile_fn(op), NULL, a, b, true, at, "cmp");
	}
	if (lw_known_num(a) && lw_known_num(b))
		return tv_cbool(lw->a, cmp_fold(op, lw_num(a), lw_num(b)));
	if (a->kind == TV_ENUM && b->kind == TV_ENUM)
		return tv_cbool(lw->a, (strcmp(a->rs, b->rs) == 0) == (op == PYOP_EQ));
	bool ca = a->kind == TV_CINT || a->kind == TV_CBOOL, cb = b->kind == TV_CINT || b->kind == TV_CBOOL;
	if (ca && cb) {
		const char *rs = ta_printf(lw->a, "(%s %s %s)", a->rs, cmp_rs(op), b->rs);
		const char *py = ta_printf(lw->a, "%s %s %s", a->py ? a->py : a->rs, cmp_rs(op),
					   b->py ? b->py : b->rs);
		struct tval *v = lw_cbool_sym(lw, rs, rs, py, false);
		/* a Constant against a literal: the split can fix the Constant */
		struct tval *p = a->known ? b : a, *lit = a->known ? a : b;
		if (v->kind == TV_CBOOL && !v->known && lit->known && p->param >= 0 &&
		    lw->k->params[p->param].kind == TP_CONST) {
			v->cparam = p->param;
			v->cop = p == a ? op
					: (op == PYOP_LT   ? PYOP_GT
					   : op == PYOP_GT ? PYOP_LT
					   : op == PYOP_LE ? PYOP_GE
					   : op == PYOP_GE ? PYOP_LE
							   : op);
			v->cval = lit->ival;
		}
		return v;
	}
	if ((lw_is_int_scalar(a) || lw_is_float_scalar(a) || a->kind == TV_BOOL) &&
	    (lw_is_int_scalar(b) || lw_is_float_scalar(b) || b->kind == TV_BOOL)) {
		struct tval *v = tv_new(lw->a, TV_BOOL);
		v->dt = DT_BOOL;
		v->rs = ta_printf(lw->a, "(%s %s %s)", scalar_rs(lw, a), cmp_rs(op), scalar_rs(lw, b));
		return v;
	}
	lw_unsupported(lw, at, "comparing a %s with a %s", lw_kind(a), lw_kind(b));
}

struct tval *lw_compare_expr(struct lw *lw, const struct py_node *n)
{
	struct tval *left = lw_expr(lw, n->kids[0]);
	struct tval *result = NULL;
	for (size_t k = 1; k + 1 < n->nkids; k += 2) {
		struct tval *right = lw_expr(lw, n->kids[k + 1]);
		struct tval *c = lw_compare(lw, n->kids[k]->op, left, right, n);
		if (!result) {
			result = c;
		} else {
			if (!(c->kind == TV_CBOOL && c->known && result->kind == TV_CBOOL && result->known))
				lw_unsupported(lw, n, "a chained comparison at run time");
			result = tv_cbool(lw->a, result->ival && c->ival);
		}
		left = right;
	}
	return result;
}

struct tval *lw_unary_expr(struct lw *lw, const struct py_node *n)
{
	struct tval *v = lw_expr(lw, n->kids[0]);
	switch (n->op) {
	case PYOP_POS:
		return v;
	case PYOP_NOT:
		if (v->kind == TV_NONE)
			return tv_cbool(lw->a, true);
		if ((v->kind == TV_CBOOL || v->kind == TV_CINT) && v->known)
			return tv_cbool(lw->a, v->ival == 0);
		if (v->kind == TV_CBOOL) {
			/* cuTile's compiler lowers no unary `!`: `x == false` */
			struct tval *r = lw_cbool_sym(lw, ta_printf(lw->a, "(%s == false)", v->rs),
						      ta_printf(lw->a, "!%s", v->ffi),
						      ta_printf(lw->a, "not %s", v->py), v->pred_dtype);
			if (r->kind == TV_CBOOL && !r->known) {
				r->cparam = v->cparam;
				r->cop = v->cop;
				r->cval = v->cval;
				r->cneg = !v->cneg;
			}
			return r;
		}
		if (v->kind == TV_BOOL) {
			struct tval *r = tv_new(lw->a, TV_BOOL);
			r->dt = DT_BOOL;
			r->rs = ta_printf(lw->a, "(%s == false)", v->rs);
			return r;
		}
		lw_unsupported(lw, n, "`not` on a %s", lw_kind(v));
	case PYOP_NEG:
		if (v->kind == TV_CINT && v->known)
			return tv_cint(lw->a, -v->ival);
		if (v->kind == TV_CFLOAT)
			return lw_cfloat(lw, -v->fval);
		/* cutile lowers a unary minus on a literal only: an integer
		 * is subtracted from zero (the same bits), a float multiplied
		 * by -1 (exact, and -0.0 stays the negation of 0.0) */
		if (v->kind == TV_CINT)
			return tv_csym(lw->a, ta_printf(lw->a, "(0i32 - %s)", v->rs));
		if (v->kind == TV_INT)
			return tv_int(lw->a, ta_printf(lw->a, "(0i32 - %s)", v->rs));
		if (v->kind == TV_FLOAT && (v->dt == DT_F32 || v->dt == DT_F64)) {
			struct tval *r = tv_new(lw->a, TV_FLOAT);
			r->dt = v->dt;
			r->rs = ta_printf(lw->a, "(%s * -1.0%s)", v->rs, tdt_rust(v->dt));
			r->weak = v->weak;
			return r;
		}
		if (v->kind == TV_TILE)
			return lw_tile_unary(lw, tdt_is_float(v->dt) ? "negf" : "negi", NULL, v, n, "neg");
		break;
	case PYOP_INVERT:
		if (v->kind == TV_CINT && v->known)
			return tv_cint(lw->a, ~v->ival);
		if (v->kind == TV_INT)
			return tv_int(lw->a, ta_printf(lw->a, "(%s ^ -1i32)", v->rs));
		if (v->kind == TV_TILE && !tdt_is_float(v->dt))
			return lw_tile_unary(lw, "noti", NULL, v, n, "not");
		break;
	default:
		break;
	}
	lw_unsupported(lw, n, "the operator %s on a %s", py_op_text(n->op), lw_kind(v));
}

struct tval *lw_boolop_expr(struct lw *lw, const struct py_node *n)
{
	bool is_and = n->op == PYOP_AND;
	struct tval *acc = NULL;
	for (size_t k = 0; k < n->nkids; k++) {
		struct tval *v = lw_expr(lw, n->kids[k]);
		if (v->kind == TV_NONE)
			v = tv_cbool(lw->a, false);
		if ((v->kind == TV_CINT) && v->known)
			v = tv_cbool(lw->a, v->ival != 0);
		if (v->kind != TV_CBOOL && v->kind != TV_BOOL)
			lw_unsupported(lw, n->kids[k], "`%s` on a %s (tiles combine with & and |)",
				       is_and ? "and" : "or", lw_kind(v));
		if (v->kind == TV_CBOOL && v->known) {
			if (v->ival != is_and)
				return tv_cbool(lw->a, !is_and); /* short-circuit */
			continue;
		}
		if (!acc) {
			acc = v;
			continue;
		}
		const char *o = is_and ? "&&" : "||";
		if (acc->kind == TV_CBOOL && v->kind == TV_CBOOL) {
			acc = lw_cbool_sym(lw, ta_printf(lw->a, "(%s %s %s)", acc->rs, o, v->rs),
					   ta_printf(lw->a, "(%s %s %s)", acc->ffi, o, v->ffi),
					   ta_printf(lw->a, "(%s %s %s)", acc->py, is_and ? "and" : "or",
						     v->py),
					   acc->pred_dtype || v->pred_dtype);
		} else {
			struct tval *r = tv_new(lw->a, TV_BOOL);
			r->dt = DT_BOOL;
			r->rs = ta_printf(lw->a, "(%s %s %s)", acc->rs, o, v->rs);
			acc = r;
		}
	}
	return acc ? acc : tv_cbool(lw->a, is_and);
}

/* A scalar chosen at run time, in a let of its own: `if c { a } else { b }`
 * (rule 25 keeps tiles out of such expressions; scalars are fine). */
struct tval *lw_scalar_if(struct lw *lw, const char *cond, const struct tval *a,
			      const struct tval *b, const struct py_node *at)
{
	bool fl = a->kind == TV_FLOAT || a->kind == TV_CFLOAT;
	struct top *op = lw_op(lw, TOP_SCALAR, at);
	op->fn = "if";
	op->text = cond;
	op->lo = fl && a->kind == TV_CFLOAT ? lw_float_rs(lw, a->fval, DT_F32) : tv_rs(a);
	op->hi = fl && b->kind == TV_CFLOAT ? lw_float_rs(lw, b->fval, DT_F32) : tv_rs(b);
	struct tvar *var = lw_var_new(lw, lw_hint(lw, "sel"));
	struct tval *r = tv_new(lw->a, fl ? TV_FLOAT : TV_INT);
	r->dt = fl ? DT_F32 : DT_I32;
	r->var = var;
	r->rs = var->name;
	r->def = op;
	op->res = r;
	return r;
}

struct tval *lw_ifexp(struct lw *lw, const struct py_node *n)
{
	struct tval *c = lw_expr(lw, n->kids[1]);
	if (c->kind == TV_NONE)
		c = tv_cbool(lw->a, false);
	if ((c->kind == TV_CBOOL || c->kind == TV_CINT) && c->known)
		return lw_expr(lw, c->ival ? n->kids[0] : n->kids[2]);
	if (c->kind != TV_CBOOL && c->kind != TV_BOOL)
		lw_unsupported(lw, n->kids[1], "a conditional expression on a %s", lw_kind(c));
	struct tval *a = lw_expr(lw, n->kids[0]);
	struct tval *b = lw_expr(lw, n->kids[2]);
	bool ia = lw_is_int_scalar(a), ib = lw_is_int_scalar(b);
	bool fa = lw_is_float_scalar(a), fb = lw_is_float_scalar(b);
	if ((ia && ib) || (fa && fb))
		return lw_scalar_if(lw, tv_rs(c), a, b, n);
	if (a->kind == TV_TILE || b->kind == TV_TILE)
		lw_unsupported(lw, n, "a conditional expression over tiles (use where)");
	lw_unsupported(lw, n, "a conditional expression choosing between a %s and a %s at run time",
		       lw_kind(a), lw_kind(b));
}
