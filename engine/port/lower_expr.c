/* Lowering expressions: names (the environment, module constants),
 * literals, attributes (dtype, shape), subscripts, compile-time helpers,
 * calls (the front end's API, methods, builtins, device functions); the
 * operators are in lower_ops.c. */
#include "engine/port/lower.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tval *lw_required(struct lw *lw, const struct py_node *call, size_t i, const char *name)
{
	const struct py_node *a = py_call_param(call, i, name);
	if (!a)
		lw_unsupported(lw, call, "a call without its `%s` argument", name);
	return lw_expr(lw, a);
}

struct tval *lw_static_assert(struct lw *lw, const struct tval *c, const char *front,
			      const struct py_node *call)
{
	if ((c->kind == TV_CBOOL || c->kind == TV_CINT) && c->known && !c->ival)
		lw_unsupported(lw, call, "a %s.static_assert that fails", front);
	return tv_new(lw->a, TV_NONE);
}

int lw_param_named(struct lw *lw, const struct py_node *n)
{
	if (!n || n->kind != PY_NAME)
		return -1;
	for (size_t i = 0; i < lw->k->nparams; i++)
		if (lw->k->params[i].source_index >= 0 && py_is_name(n, lw->k->params[i].name))
			return (int)i;
	return -1;
}

const char *lw_kind(const struct tval *v)
{
	switch (v->kind) {
	case TV_TILE:
		return "tile";
	case TV_INT:
	case TV_CINT:
		return "integer";
	case TV_FLOAT:
	case TV_CFLOAT:
		return "float";
	case TV_BOOL:
	case TV_CBOOL:
		return "bool";
	case TV_ARRAY:
		return "array";
	case TV_DTYPE:
		return "dtype";
	case TV_TUPLE:
		return "tuple";
	case TV_NONE:
		return "None";
	case TV_ENUM:
		return "enum member";
	case TV_STR:
		return "string";
	case TV_BLOCKPTR:
		return "block pointer";
	case TV_PTRS:
		return "pointer tile";
	default:
		return "value";
	}
}

static char *upper(struct lw *lw, const char *s)
{
	char *r = ta_strdup(lw->a, s);
	for (char *p = r; *p; p++)
		if (*p >= 'a' && *p <= 'z')
			*p = (char)(*p - 'a' + 'A');
	return r;
}

/* ---- literals ---- */

struct tval *lw_cfloat(struct lw *lw, double d)
{
	struct tval *v = tv_new(lw->a, TV_CFLOAT);
	v->dt = DT_F32;
	v->known = true;
	v->fval = d;
	return v;
}

static struct tval *number(struct lw *lw, const struct py_node *n)
{
	long long iv;
	double d;
	if (py_int_value(n, &iv))
		return tv_cint(lw->a, iv);
	if (n->n && (n->s[n->n - 1] == 'j' || n->s[n->n - 1] == 'J'))
		lw_unsupported(lw, n, "complex numbers");
	if (!py_float_value(n, &d))
		lw_unsupported(lw, n, "the number literal %.*s", (int)n->n, n->s);
	return lw_cfloat(lw, d);
}

/* ---- names ---- */

static struct tval *module_const(struct lw *lw, const struct pm_const *c, const struct py_node *at)
{
	if (lw->inline_depth >= LW_MAX_INLINE)
		lw_unsupported(lw, at, "module constants defined in terms of themselves");
	lw->inline_depth++;
	struct tval *v = lw_expr(lw, c->value);
	lw->inline_depth--;
	if (v->kind == TV_TILE || v->kind == TV_INT || v->kind == TV_FLOAT || v->kind == TV_BOOL)
		lw_unsupported(lw, at, "the module value `%s` is not a compile-time constant", c->name);
	return v;
}

/* A dotted API name whose first part is not a local variable. */
static const char *api_name(struct lw *lw, const struct py_node *n)
{
	const struct py_node *head = n;
	while (head->kind == PY_ATTR)
		head = head->kids[0];
	if (head->kind != PY_NAME || lw_lookup(lw, lw_name(lw, head)))
		return NULL;
	const char *c = lw_canon(lw, n);
	if (!c)
		return NULL;
	static const char *const prefixes[] = {"ct.", "tl.", "triton.", "math.", "torch.", "np."};
	for (size_t i = 0; i < TP_ARRAY_LEN(prefixes); i++)
		if (str_starts(c, prefixes[i]))
			return c;
	/* a name imported from one of those modules */
	if (n->kind == PY_NAME && strchr(c, '.'))
		return c;
	return NULL;
}

static struct tval *math_name(struct lw *lw, const char *api, const struct py_node *n)
{
	static const struct {
		const char *name;
		double v;
	} consts[] = {
		{"math.pi", 3.14159265358979323846}, {"math.e", 2.71828182845904523536},
		{"math.inf", INFINITY},              {"math.tau", 6.28318530717958647692},
	};
	for (size_t i = 0; i < TP_ARRAY_LEN(consts); i++)
		if (strcmp(api, consts[i].name) == 0)
			return lw_cfloat(lw, consts[i].v);
	if (strcmp(api, "math.nan") == 0)
		lw_unsupported(lw, n, "NaN constants");
	return NULL;
}

/* A dtype spelled the host's way inside a kernel (`torch.int32`,
 * `np.float32`), as cuTile Python accepts it; NULL for other names. */
static struct tval *host_dtype_name(struct lw *lw, const char *api)
{
	static const char *const mods[] = {"torch.", "numpy.", "np."};
	for (size_t i = 0; i < TP_ARRAY_LEN(mods); i++) {
		if (!str_starts(api, mods[i]))
			continue;
		enum tdt d = tdt_from_name(api + strlen(mods[i]));
		if (d == DT_NONE || d == DT_TF32)
			return NULL;
		struct tval *v = tv_new(lw->a, TV_DTYPE);
		v->dt = d;
		return v;
	}
	return NULL;
}

/* A name of the front end's API (ct.*, tl.*) or of math: its value, or the
 * construct is unsupported. */
static struct tval *api_value(struct lw *lw, const char *api, const struct py_node *n)
{
	struct tval *r = lw->api->name(lw, api, n);
	if (!r)
		r = math_name(lw, api, n);
	if (!r)
		r = host_dtype_name(lw, api);
	if (!r)
		lw_unsupported(lw, n, "%s", api);
	return r;
}

static struct tval *name_value(struct lw *lw, const struct py_node *n)
{
	const char *name = lw_name(lw, n);
	struct tval *v = lw_lookup(lw, name);
	if (v)
		return v;
	const struct pm_const *c = pymod_const(lw->m, name);
	if (c)
		return module_const(lw, c, n);
	const char *api = api_name(lw, n);
	if (api) {
		return api_value(lw, api, n);
	}
	if (pymod_func(lw->m, name))
		lw_unsupported(lw, n, "the function `%s` used as a value", name);
	lw_unsupported(lw, n, "the name `%s` (not a parameter, local or module constant)", name);
}

/* ---- attributes and subscripts ---- */

/* The extent of array p on an axis: the tensor's shape, or for a raw
 * pointer array a parameter the FFI fills in from the descriptor. */
struct tval *lw_array_dim(struct lw *lw, int param, int axis, bool stride,
			  const struct py_node *at)
{
	struct tkernel *k = lw->k;
	struct tparam *p = &k->params[param];
	lw_use_param(lw, param);
	if (!p->ptr && !stride) {
		struct tval *v = tv_int(lw->a, ta_printf(lw->a, "%s.shape()[%d]", p->rs, axis));
		return v;
	}
	if (!p->ptr)
		lw_unsupported(lw, at, "the strides of the tensor `%s`", p->name);
	enum tparam_kind kind = stride ? TP_STRIDE : TP_SHAPE;
	for (size_t i = 0; i < k->nparams; i++)
		if (k->params[i].kind == kind && k->params[i].of == param && k->params[i].axis == axis) {
			lw_use_param(lw, (int)i);
			return tv_int(lw->a, k->params[i].rs);
		}
	if (k->nparams >= lw->param_cap)
		lw_unsupported(lw, at, "too many array extents");
	struct tparam *q = &k->params[k->nparams];
	memset(q, 0, sizeof(*q));
	q->kind = kind;
	q->dt = DT_I32;
	q->of = param;
	q->axis = axis;
	q->name = ta_printf(lw->a, "%s_%s%d", p->name, stride ? "stride" : "shape", axis);
	q->rs = (char *)lw_fresh(lw, q->name);
	q->source_index = -1;
	q->rank = -1;
	int idx = (int)k->nparams++;
	lw_use_param(lw, idx);
	return tv_int(lw->a, q->rs);
}

static struct tval *attribute(struct lw *lw, const struct py_node *n)
{
	const char *api = api_name(lw, n);
	if (api) {
		return api_value(lw, api, n);
	}
	struct tval *base = lw_expr(lw, n->kids[0]);
	const char *a = lw_name(lw, n);
	if (strcmp(a, "dtype") == 0 &&
	    (base->kind == TV_ARRAY || base->kind == TV_TILE || base->kind == TV_PTRS)) {
		/* a Triton pointer (`Y += row * stride` then Y.dtype.element_ty):
		 * the type of what it points to */
		struct tval *d = tv_new(lw->a, TV_DTYPE);
		d->dt = base->dt;
		if (base->kind == TV_ARRAY || base->kind == TV_PTRS)
			lw_use_param(lw, base->param);
		return d;
	}
	if (strcmp(a, "element_ty") == 0 && base->kind == TV_DTYPE)
		return base;
	if ((strcmp(a, "shape") == 0 || strcmp(a, "ndim") == 0) && base->kind == TV_TILE) {
		if (a[0] == 'n')
			return tv_cint(lw->a, base->shape.rank);
		struct tval *t = tv_tuple(lw->a, (size_t)base->shape.rank);
		for (int i = 0; i < base->shape.rank; i++)
			t->elems[i] = base->shape.d[i].sym ? tv_csym(lw->a, base->shape.d[i].sym)
							   : tv_cint(lw->a, base->shape.d[i].lit);
		return t;
	}
	if ((strcmp(a, "shape") == 0 || strcmp(a, "ndim") == 0) && base->kind == TV_ARRAY) {
		struct tparam *p = &lw->k->params[base->param];
		int rank = lw->e->param_rank[base->param];
		if (rank <= 0)
			lw_unsupported(lw, n, "`%s.%s` before any access shows the array's rank", p->name,
				       a);
		if (a[0] == 'n')
			return tv_cint(lw->a, rank);
		struct tval *t = tv_tuple(lw->a, (size_t)rank);
		for (int i = 0; i < rank; i++)
			t->elems[i] = lw_array_dim(lw, base->param, i, false, n);
		return t;
	}
	if (strcmp(a, "T") == 0 && base->kind == TV_TILE && base->shape.rank == 2) {
		int perm[TIR_MAX_RANK] = {1, 0};
		return lw_permute(lw, base, perm, n);
	}
	lw_unsupported(lw, n, "the attribute `.%s` of a %s", a, lw_kind(base));
}

static struct tval *subscript(struct lw *lw, const struct py_node *n)
{
	struct tval *base = lw_expr(lw, n->kids[0]);
	const struct py_node *ix = n->kids[1];
	if (base->kind == TV_TUPLE) {
		if (ix->kind == PY_SLICE) {
			int64_t lo = 0, hi = (int64_t)base->nelems;
			if (ix->kids[0] && !lw_known_int(lw, ix->kids[0], &lo))
				lw_unsupported(lw, ix, "a tuple slice with a runtime bound");
			if (ix->kids[1] && !lw_known_int(lw, ix->kids[1], &hi))
				lw_unsupported(lw, ix, "a tuple slice with a runtime bound");
			if (ix->kids[2])
				lw_unsupported(lw, ix, "a tuple slice with a step");
			int64_t len = (int64_t)base->nelems;
			if (lo < 0)
				lo += len;
			if (hi < 0)
				hi += len;
			lo = lo < 0 ? 0 : lo > len ? len : lo;
			hi = hi < lo ? lo : hi > len ? len : hi;
			struct tval *t = tv_tuple(lw->a, (size_t)(hi - lo));
			for (int64_t i = lo; i < hi; i++)
				t->elems[i - lo] = base->elems[i];
			return t;
		}
		int64_t i;
		if (!lw_known_int(lw, ix, &i))
			lw_unsupported(lw, ix, "a tuple index that is not a compile-time integer");
		if (i < 0)
			i += (int64_t)base->nelems;
		if (i < 0 || (size_t)i >= base->nelems)
			lw_unsupported(lw, ix, "tuple index %lld out of range", (long long)i);
		return base->elems[i];
	}
	if (base->kind == TV_TILE) {
		/* x[:, None] / x[None, :]: new axes of extent 1 */
		struct py_node *const *items = ix->kind == PY_TUPLE ? ix->kids : (struct py_node *const *)&ix;
		size_t nitems = ix->kind == PY_TUPLE ? ix->nkids : 1;
		struct tshape s = {0};
		int src = 0;
		for (size_t k = 0; k < nitems; k++) {
			const struct py_node *it = items[k];
			bool full = it->kind == PY_SLICE && !it->kids[0] && !it->kids[1] && !it->kids[2];
			bool none = it->kind == PY_CONST && it->n == 4 && memcmp(it->s, "None", 4) == 0;
			if (!full && !none)
				lw_unsupported(lw, it, "indexing a tile (only `:` and None are read)");
			if (s.rank >= TIR_MAX_RANK)
				lw_unsupported(lw, it, "a tile of rank above %d", TIR_MAX_RANK);
			if (none) {
				s.d[s.rank++] = (struct tdim){1, NULL};
			} else {
				if (src >= base->shape.rank)
					lw_unsupported(lw, it, "more `:` than the tile has axes");
				s.d[s.rank++] = base->shape.d[src++];
			}
		}
		while (src < base->shape.rank && s.rank < TIR_MAX_RANK)
			s.d[s.rank++] = base->shape.d[src++];
		return lw_reshape(lw, base, &s, n);
	}
	if (base->kind == TV_ARRAY)
		lw_unsupported(lw, n, "indexing an array directly (load a tile instead)");
	lw_unsupported(lw, n, "indexing a %s", lw_kind(base));
}

/* ---- compile-time helpers ---- */

bool lw_known_int(struct lw *lw, const struct py_node *n, int64_t *v)
{
	struct tval *t = lw_expr(lw, n);
	if ((t->kind == TV_CINT || t->kind == TV_CBOOL) && t->known) {
		*v = t->ival;
		return true;
	}
	return false;
}

static bool is_ident(const char *s)
{
	if (!s || !*s || (*s >= '0' && *s <= '9'))
		return false;
	for (const char *p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		      *p == '_'))
			return false;
	return true;
}

static void dim_of(struct lw *lw, struct tval *v, const struct py_node *at, struct tdim *d)
{
	if (v->kind == TV_CINT && v->known) {
		if (v->ival <= 0 || (v->ival & (v->ival - 1)) != 0)
			lw_unsupported(lw, at, "a tile dimension of %lld (tiles are powers of two)",
				       (long long)v->ival);
		*d = (struct tdim){v->ival, NULL};
		return;
	}
	if (v->kind == TV_CINT && is_ident(v->rs)) {
		*d = (struct tdim){0, v->rs};
		return;
	}
	const char *derived = v->kind == TV_CINT ? lw_derived_generic(lw, v->rs, at) : NULL;
	if (derived) {
		*d = (struct tdim){0, derived};
		return;
	}
	if (v->kind == TV_CINT)
		lw_unsupported(lw, at,
			       "const arithmetic in a tile shape beyond + - * / %% << >> of int Constants "
			       "(`%s`; coding rule 6): give it its own Constant",
			       v->rs);
	lw_unsupported(lw, at, "a tile dimension that is not a compile-time constant (a %s)",
		       lw_kind(v));
}

void lw_shape_of(struct lw *lw, struct tval *v, const struct py_node *at, struct tshape *out)
{
	memset(out, 0, sizeof(*out));
	if (v->kind != TV_TUPLE) {
		out->rank = 1;
		dim_of(lw, v, at, &out->d[0]);
		return;
	}
	if (v->nelems > TIR_MAX_RANK)
		lw_unsupported(lw, at, "a tile of rank %zu (at most %d)", v->nelems, TIR_MAX_RANK);
	out->rank = (int)v->nelems;
	for (size_t i = 0; i < v->nelems; i++)
		dim_of(lw, v->elems[i], at, &out->d[i]);
}

void lw_shape(struct lw *lw, const struct py_node *n, struct tshape *out)
{
	lw_shape_of(lw, lw_expr(lw, n), n, out);
}

enum tdt lw_dtype(struct lw *lw, const struct py_node *n)
{
	struct tval *v = lw_expr(lw, n);
	if (v->kind != TV_DTYPE)
		lw_unsupported(lw, n, "a dtype argument that is a %s", lw_kind(v));
	return v->dt;
}

int lw_axis(struct lw *lw, const struct py_node *n, int rank)
{
	int64_t a;
	if (!lw_known_int(lw, n, &a))
		lw_unsupported(lw, n, "an axis that is not a compile-time integer");
	if (a < 0)
		a += rank;
	if (a < 0 || a >= rank)
		lw_unsupported(lw, n, "axis %lld of a rank-%d tile", (long long)a, rank);
	return (int)a;
}

bool lw_truthy(struct lw *lw, const struct py_node *n, bool dflt)
{
	if (!n)
		return dflt;
	struct tval *v = lw_expr(lw, n);
	if ((v->kind == TV_CBOOL || v->kind == TV_CINT) && v->known)
		return v->ival != 0;
	if (v->kind == TV_NONE)
		return false;
	lw_unsupported(lw, n, "a flag that is not a compile-time True/False");
}

bool lw_flag(struct lw *lw, const struct py_node *n, bool dflt, bool symbolic)
{
	if (!n)
		return dflt;
	struct tval *v = lw_expr(lw, n);
	if (v->kind == TV_CBOOL && !v->known && !v->pred_dtype)
		return symbolic;
	return lw_truthy(lw, n, dflt);
}

const char *lw_enum(struct lw *lw, const struct py_node *n)
{
	if (!n)
		return NULL;
	struct tval *v = lw_expr(lw, n);
	if (v->kind == TV_NONE)
		return NULL;
	if (v->kind != TV_ENUM && v->kind != TV_STR)
		lw_unsupported(lw, n, "expected an enum member, got a %s", lw_kind(v));
	return v->rs;
}

const char *lw_int_rs(struct lw *lw, struct tval *v, const struct py_node *at)
{
	if (v->kind == TV_INT || v->kind == TV_CINT)
		return tv_rs(v);
	if (v->kind == TV_CBOOL && v->known)
		return v->ival ? "1" : "0";
	if (v->kind == TV_TILE && v->shape.rank == 0 && !v->ptr_tile)
		lw_want_int(lw, v); /* read from an array nobody typed: int32 */
	if (v->kind == TV_TILE && v->shape.rank == 0 && !v->ptr_tile && v->dt == DT_I32) {
		/* a 0-d tile where a scalar is needed (a loop bound from a loaded
		 * value): the crate's own conversion */
		struct top *op = lw_op(lw, TOP_SCALAR, at);
		struct tvar *var = lw_var_new(lw, ta_printf(lw->a, "%s_s", tv_rs(v)));
		struct tval *r = tv_int(lw->a, var->name);
		r->var = var;
		r->def = op;
		op->res = r;
		op->a[0] = v;
		op->na = 1;
		op->text = ta_printf(lw->a, "tile_to_scalar(%s)", tv_rs(v));
		return var->name;
	}
	lw_unsupported(lw, at, "expected an integer, got a %s", lw_kind(v));
}

struct tval *lw_cbool_sym(struct lw *lw, const char *rs, const char *ffi, const char *py,
			  bool pred_dtype)
{
	for (size_t i = 0; i < lw->nbinds; i++)
		if (strcmp(lw->binds[i].py, py) == 0)
			return tv_cbool(lw->a, lw->binds[i].value);
	struct tval *v = tv_new(lw->a, TV_CBOOL);
	v->dt = DT_BOOL;
	v->rs = rs;
	v->ffi = ffi;
	v->py = py;
	v->pred_dtype = pred_dtype;
	return v;
}

struct tval *lw_dtype_pred(struct lw *lw, enum tdt d, bool equal)
{
	const char *ffi_s = tdt_ffi_str(d);
	const char *name = ta_printf(lw->a, "E_IS_%s", upper(lw, tdt_rust(d)));
	struct tentry *e = lw->e;
	bool have = false;
	for (size_t i = 0; i < e->npreds; i++)
		have |= strcmp(e->preds[i], name) == 0;
	if (!have) {
		char **np = ta_alloc(lw->a, (e->npreds + 1) * sizeof(*np));
		enum tdt *nd = ta_alloc(lw->a, (e->npreds + 1) * sizeof(*nd));
		if (e->npreds) {
			memcpy(np, e->preds, e->npreds * sizeof(*np));
			memcpy(nd, e->pred_dt, e->npreds * sizeof(*nd));
		}
		np[e->npreds] = (char *)name;
		nd[e->npreds] = d;
		e->preds = np;
		e->pred_dt = nd;
		e->npreds++;
	}
	const char *ffi = ta_printf(lw->a, "(dtype %s \"%s\")", equal ? "==" : "!=",
				    ffi_s ? ffi_s : tdt_rust(d));
	const char *py = ta_printf(lw->a, "E %s %s", equal ? "==" : "!=", tdt_name(d));
	struct tval *v =
		lw_cbool_sym(lw, equal ? name : ta_printf(lw->a, "(%s == false)", name), ffi, py, true);
	return v;
}

/* ---- calls ---- */

static struct tval *math_call(struct lw *lw, const char *api, const struct py_node *call)
{
	static const struct {
		const char *name;
		double (*fn)(double);
	} fns[] = {
		{"math.log2", log2}, {"math.log", log},   {"math.exp", exp},  {"math.sqrt", sqrt},
		{"math.exp2", exp2}, {"math.log10", log10}, {"math.floor", floor}, {"math.ceil", ceil},
	};
	for (size_t i = 0; i < TP_ARRAY_LEN(fns); i++) {
		if (strcmp(api, fns[i].name) != 0)
			continue;
		struct tval *v = py_call_nargs(call) == 1 ? lw_expr(lw, py_call_arg(call, 0)) : NULL;
		if (!v || !lw_known_num(v))
			lw_unsupported(lw, call, "%s() on a value known only at run time", api);
		double r = fns[i].fn(lw_num(v));
		if (strcmp(api, "math.floor") == 0 || strcmp(api, "math.ceil") == 0)
			return tv_cint(lw->a, (int64_t)r);
		return lw_cfloat(lw, r);
	}
	return NULL;
}

static struct tval *builtin(struct lw *lw, const char *name, const struct py_node *call)
{
	size_t n = py_call_nargs(call);
	if ((strcmp(name, "min") == 0 || strcmp(name, "max") == 0) && n >= 2) {
		bool is_min = name[1] == 'i';
		struct tval *acc = lw_expr(lw, py_call_arg(call, 0));
		for (size_t i = 1; i < n; i++) {
			struct tval *v = lw_expr(lw, py_call_arg(call, i));
			if (lw_known_num(acc) && lw_known_num(v)) {
				bool first = is_min ? lw_num(acc) <= lw_num(v) : lw_num(acc) >= lw_num(v);
				acc = first ? acc : v;
			} else if (lw_is_int_scalar(acc) && lw_is_int_scalar(v)) {
				const char *cond = ta_printf(lw->a, "%s %s %s", tv_rs(acc),
							     is_min ? "<" : ">", tv_rs(v));
				acc = lw_scalar_if(lw, cond, acc, v, call);
			} else if (acc->kind == TV_TILE || v->kind == TV_TILE) {
				struct tval *t = acc->kind == TV_TILE ? acc : v;
				bool fl = tdt_is_float(t->dt);
				acc = lw_tile_binary(lw,
						     fl ? (is_min ? "minf" : "maxf")
							: (is_min ? "min_tile" : "max_tile"),
						     fl ? "nan::Disabled, ftz::Disabled" : NULL, acc, v,
						     false, call, is_min ? "min" : "max");
			} else {
				lw_unsupported(lw, call, "%s() of a %s and a %s", name, lw_kind(acc),
					       lw_kind(v));
			}
		}
		return acc;
	}
	if (n != 1)
		return NULL;
	struct tval *v = NULL;
	if (strcmp(name, "int") == 0 || strcmp(name, "float") == 0 || strcmp(name, "bool") == 0 ||
	    strcmp(name, "abs") == 0 || strcmp(name, "len") == 0)
		v = lw_expr(lw, py_call_arg(call, 0));
	else
		return NULL;
	if (strcmp(name, "len") == 0) {
		if (v->kind != TV_TUPLE)
			lw_unsupported(lw, call, "len() of a %s", lw_kind(v));
		return tv_cint(lw->a, (int64_t)v->nelems);
	}
	if (strcmp(name, "abs") == 0) {
		if (lw_known_num(v))
			return v->kind == TV_CFLOAT ? lw_cfloat(lw, fabs(v->fval))
						    : tv_cint(lw->a, v->ival < 0 ? -v->ival : v->ival);
		if (v->kind == TV_TILE)
			return lw_tile_unary(lw, tdt_is_float(v->dt) ? "absf" : "absi", NULL, v, call,
					     "abs");
		lw_unsupported(lw, call, "abs() of a runtime %s", lw_kind(v));
	}
	if (v->kind == TV_STR && strcmp(name, "float") == 0) {
		double d = strcmp(v->rs, "inf") == 0 || strcmp(v->rs, "+inf") == 0 ? INFINITY
			   : strcmp(v->rs, "-inf") == 0				? -INFINITY
										: 0;
		if (d == 0)
			lw_unsupported(lw, call, "float(\"%s\")", v->rs);
		return lw_cfloat(lw, d);
	}
	if (!lw_known_num(v)) {
		if (strcmp(name, "int") == 0 && lw_is_int_scalar(v))
			return v;
		if (strcmp(name, "float") == 0 && lw_is_float_scalar(v))
			return v;
		lw_unsupported(lw, call, "%s() of a value known only at run time", name);
	}
	if (name[0] == 'i')
		return tv_cint(lw->a, (int64_t)lw_num(v));
	if (name[0] == 'f')
		return lw_cfloat(lw, lw_num(v));
	return tv_cbool(lw->a, lw_num(v) != 0);
}

static struct tval *call(struct lw *lw, const struct py_node *n)
{
	const struct py_node *callee = n->kids[0];
	if (callee->kind == PY_NAME) {
		const char *name = lw_name(lw, callee);
		bool local = lw_lookup(lw, name) != NULL;
		const struct pm_func *f = local ? NULL : pymod_func(lw->m, name);
		if (f)
			return lw_call_function(lw, f, NULL, n);
		/* a device function of a sibling module (`from .gelu import f`) */
		const struct pymod *owner = NULL;
		f = local ? NULL : pymod_imported_func(lw->m, name, &owner);
		if (f && f->role != PM_KERNEL)
			return lw_call_function(lw, f, owner, n);
		struct tval *b = local ? NULL : builtin(lw, name, n);
		if (b)
			return b;
	}
	const char *api = api_name(lw, callee);
	if (api) {
		struct tval *r = lw->api->call(lw, api, n);
		if (!r)
			r = math_call(lw, api, n);
		if (!r)
			lw_unsupported(lw, n, "%s()", api);
		return r;
	}
	if (callee->kind == PY_ATTR) {
		struct tval *self = lw_expr(lw, callee->kids[0]);
		const char *m = lw_name(lw, callee);
		struct tval *r = lw->api->method(lw, self, m, n);
		if (!r)
			lw_unsupported(lw, n, "the method .%s() of a %s", m, lw_kind(self));
		return r;
	}
	if (callee->kind == PY_NAME && !lw_lookup(lw, lw_name(lw, callee)))
		lw_unsupported(lw, n, "%s()", lw_name(lw, callee));
	lw_unsupported(lw, n, "calling a %s", lw_kind(lw_expr(lw, callee)));
}

struct tval *lw_expr(struct lw *lw, const struct py_node *n)
{
	if (!n) /* an argument a call needs is not there */
		lw_unsupported(lw, lw->stmt, "a call without an argument it needs");
	switch (n->kind) {
	case PY_NAME:
		return name_value(lw, n);
	case PY_NUM:
		return number(lw, n);
	case PY_STR: {
		struct tval *v = tv_new(lw->a, TV_STR);
		char *s = py_str_value(&lw->m->py, n);
		v->rs = ta_strdup(lw->a, s);
		free(s);
		return v;
	}
	case PY_CONST:
		if (n->n == 4 && memcmp(n->s, "True", 4) == 0)
			return tv_cbool(lw->a, true);
		if (n->n == 5 && memcmp(n->s, "False", 5) == 0)
			return tv_cbool(lw->a, false);
		if (n->n == 4 && memcmp(n->s, "None", 4) == 0)
			return tv_new(lw->a, TV_NONE);
		lw_unsupported(lw, n, "`%.*s`", (int)n->n, n->s);
	case PY_TUPLE:
	case PY_LIST: {
		struct tval *t = tv_tuple(lw->a, n->nkids);
		for (size_t k = 0; k < n->nkids; k++) {
			if (n->kids[k]->kind == PY_STARRED)
				lw_unsupported(lw, n->kids[k], "*unpacking in a tuple");
			t->elems[k] = lw_expr(lw, n->kids[k]);
		}
		return t;
	}
	case PY_ATTR:
		return attribute(lw, n);
	case PY_SUBSCRIPT:
		return subscript(lw, n);
	case PY_BINOP: {
		struct tval *a = lw_expr(lw, n->kids[0]);
		struct tval *b = lw_expr(lw, n->kids[1]);
		return lw_binop(lw, n->op, a, b, n);
	}
	case PY_UNARY:
		return lw_unary_expr(lw, n);
	case PY_BOOLOP:
		return lw_boolop_expr(lw, n);
	case PY_COMPARE:
		return lw_compare_expr(lw, n);
	case PY_IFEXP:
		return lw_ifexp(lw, n);
	case PY_CALL:
		return call(lw, n);
	case PY_LAMBDA:
		lw_unsupported(lw, n, "lambda in a kernel");
	case PY_COMP:
		lw_unsupported(lw, n, "a comprehension in a kernel");
	case PY_DICT:
	case PY_SET:
		lw_unsupported(lw, n, "a dict or set in a kernel");
	case PY_NAMED:
		lw_unsupported(lw, n, "the := operator");
	case PY_SLICE:
		lw_unsupported(lw, n, "a slice outside a subscript");
	case PY_YIELD:
		lw_unsupported(lw, n, "yield in a kernel");
	case PY_AWAIT:
		lw_unsupported(lw, n, "await in a kernel");
	case PY_STARRED:
	case PY_DSTAR:
		lw_unsupported(lw, n, "unpacking with * or ** here");
	default:
		lw_unsupported(lw, n, "this expression");
	}
}
