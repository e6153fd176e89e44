/* cuTile Python's element-wise families (ct.exp2, ct.add, ct.minimum,
 * ct.less ...): math with its rounding and flush-to-zero flags,
 * arithmetic with modes, min/max, comparisons. Reached from lower_ct.c's
 * call table for the names it does not list. */
#include "engine/port/lower.h"

#include <string.h>

static const char *rounding(struct lw *lw, const struct py_node *n)
{
	const char *m = lw_enum(lw, n);
	if (!m)
		return NULL;
	static const struct {
		const char *py, *rs;
	} modes[] = {{"RN", "rounding::NearestEven"}, {"RZ", "rounding::Zero"},
		     {"RM", "rounding::NegativeInf"}, {"RP", "rounding::PositiveInf"},
		     {"FULL", "rounding::Full"},      {"APPROX", "rounding::Approx"}};
	for (size_t i = 0; i < TP_ARRAY_LEN(modes); i++)
		if (strcmp(m, modes[i].py) == 0)
			return modes[i].rs;
	lw_unsupported(lw, n, "rounding_mode=%s (no cutile-rs rounding marker)", m);
}

static const char *ftz_of(struct lw *lw, const struct py_node *call)
{
	return lw_truthy(lw, py_call_kw(call, "flush_to_zero"), false) ? "ftz::Enabled"
									: "ftz::Disabled";
}

static struct tval *math1(struct lw *lw, const char *name, const struct py_node *call)
{
	if (!lw_math_fn(name))
		return NULL;
	struct tval *x = lw_required(lw, call, 0, "x");
	return lw_math1(lw, name, x, rounding(lw, py_call_kw(call, "rounding_mode")),
			lw_truthy(lw, py_call_kw(call, "flush_to_zero"), false), call);
}

static struct tval *arith(struct lw *lw, const char *name, const struct py_node *call)
{
	static const struct {
		const char *name;
		int op;
		const char *modal; /* the Rust function when modes are given */
	} ops[] = {
		{"add", PYOP_ADD, "addf"},      {"sub", PYOP_SUB, "subf"},
		{"mul", PYOP_MUL, "mulf"},      {"truediv", PYOP_DIV, NULL},
		{"floordiv", PYOP_FLOORDIV, NULL}, {"mod", PYOP_MOD, NULL},
		{"pow", PYOP_POW, NULL},        {"bitwise_and", PYOP_BITAND, NULL},
		{"bitwise_or", PYOP_BITOR, NULL}, {"bitwise_xor", PYOP_BITXOR, NULL},
		{"bitwise_lshift", PYOP_LSHIFT, NULL}, {"bitwise_rshift", PYOP_RSHIFT, NULL},
	};
	for (size_t i = 0; i < TP_ARRAY_LEN(ops); i++) {
		if (strcmp(name, ops[i].name) != 0)
			continue;
		struct tval *a = lw_required(lw, call, 0, "x"), *b = lw_required(lw, call, 1, "y");
		const struct py_node *rm = py_call_kw(call, "rounding_mode");
		const struct py_node *fz = py_call_kw(call, "flush_to_zero");
		if (ops[i].modal && (rm || fz) && (lw_is_tile(a) || lw_is_tile(b))) {
			const char *r = rounding(lw, rm);
			const char *modes = ta_printf(lw->a, "%s, %s", r ? r : "rounding::NearestEven",
						      ftz_of(lw, call));
			struct tval *x = lw_is_tile(a) ? a : b;
			if (!tdt_is_float(x->dt))
				lw_unsupported(lw, call, "ct.%s with modes on integer tiles", name);
			return lw_tile_binary(lw, ops[i].modal, modes, a, b, false, call, NULL);
		}
		/* truediv takes no modes in cutile-rs: true_div (op-mapping) */
		(void)fz;
		return lw_binop(lw, ops[i].op, a, b, call);
	}
	if (strcmp(name, "minimum") == 0 || strcmp(name, "maximum") == 0) {
		struct tval *x = lw_required(lw, call, 0, "x");
		struct tval *y = lw_required(lw, call, 1, "y");
		bool nan = lw_truthy(lw, py_call_kw(call, "propagate_nan"), false);
		bool ftz = lw_truthy(lw, py_call_kw(call, "flush_to_zero"), false);
		return lw_minmax(lw, name[1] == 'i', x, y, nan, ftz, call);
	}
	static const struct {
		const char *name;
		int op;
	} cmps[] = {{"equal", PYOP_EQ}, {"not_equal", PYOP_NE},   {"less", PYOP_LT},
		    {"less_equal", PYOP_LE}, {"greater", PYOP_GT}, {"greater_equal", PYOP_GE}};
	for (size_t i = 0; i < TP_ARRAY_LEN(cmps); i++)
		if (strcmp(name, cmps[i].name) == 0) {
			struct tval *x = lw_required(lw, call, 0, "x");
			struct tval *y = lw_required(lw, call, 1, "y");
			return lw_compare(lw, cmps[i].op, x, y, call);
		}
	return NULL;
}

/* ct.sigmoid (cuTile Python past 1.7.0): 1 / (1 + exp(-x)), as Triton's
 * tl.sigmoid is written (lower_tl.c) and cutile 0.2.0 has no op of its own */
static struct tval *sigmoid(struct lw *lw, const struct py_node *call)
{
	struct tval *x = lw_required(lw, call, 0, "x");
	struct tval *e = lw_exp(lw, lw_binop(lw, PYOP_SUB, tv_cint(lw->a, 0), x, call), false, call);
	struct tval *den = lw_binop(lw, PYOP_ADD, tv_cint(lw->a, 1), e, call);
	return lw_binop(lw, PYOP_DIV, tv_cint(lw->a, 1), den, call);
}

struct tval *lw_ct_elementwise(struct lw *lw, const char *name, const struct py_node *call)
{
	if (strcmp(name, "sigmoid") == 0)
		return sigmoid(lw, call);
	struct tval *r = math1(lw, name, call);
	return r ? r : arith(lw, name, call);
}
