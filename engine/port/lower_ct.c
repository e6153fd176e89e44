/* The cuTile Python front end (`import cuda.tile as ct`; the API names of
 * ../shared/reference/tile-ir.md §3): block ids, view loads and stores with
 * padding and order (gather and scatter: lower_ct_ptr.c), astype, creation, element-wise math with its rounding and flush-to-zero
 * flags, where, reductions, shape ops, mma, cdiv, assumptions. */
#include "engine/port/lower.h"

#include <stdlib.h>
#include <string.h>



/* Inside a device function the kernel's arrays go by its parameter names:
 * alias[i] is the kernel param the function's parameter i stands for
 * (-1 none); NULL in the kernel's own body. */
struct mark_scope {
	const struct py_node *params; /* the device function's PY_PARAMS */
	const int *alias;
};

static int param_of(struct lw *lw, const struct mark_scope *sc, const struct py_node *n)
{
	if (!sc)
		return lw_param_named(lw, n);
	if (!n || n->kind != PY_NAME)
		return -1;
	for (size_t i = 0; i < sc->params->nkids; i++)
		if (sc->params->kids[i]->s && n->n == sc->params->kids[i]->n &&
		    memcmp(n->s, sc->params->kids[i]->s, n->n) == 0)
			return sc->alias[i];
	return -1;
}

static void mark(struct lw *lw, const struct py_node *n, const struct mark_scope *sc, int depth);

/* A device function called with kernel arrays: its uses of them count. */
static void mark_callee(struct lw *lw, const struct py_node *call, const struct mark_scope *sc,
			int depth)
{
	if (call->kids[0]->kind != PY_NAME || depth > 16 * 8)
		return;
	char *name = py_str(call->kids[0]);
	const struct pm_func *f = lw->m ? pymod_func(lw->m, name) : NULL;
	free(name);
	if (!f || (f->role != PM_DEVICE && f->role != PM_OTHER))
		return;
	const struct py_node *ps = f->def->kids[1];
	int *alias = ta_alloc(lw->a, (ps->nkids + 1) * sizeof(int));
	bool any = false;
	for (size_t i = 0, pos = 0; i < ps->nkids; i++) {
		char *pn = py_str(ps->kids[i]);
		const struct py_node *arg = py_call_kw(call, pn);
		free(pn);
		if (!arg)
			arg = py_call_arg(call, pos++);
		alias[i] = param_of(lw, sc, arg);
		any |= alias[i] >= 0;
	}
	if (any)
		mark(lw, f->def->kids[3], &(struct mark_scope){ps, alias}, depth + 8);
}

static void mark(struct lw *lw, const struct py_node *n, const struct mark_scope *sc, int depth)
{
	if (!n || depth > 200)
		return;
	if (n->kind == PY_CALL) {
		char *api = pymod_canon(lw->m, n->kids[0]);
		if (api) {
			bool view = strcmp(api, "ct.load") == 0 || strcmp(api, "ct.store") == 0 ||
				    strcmp(api, "ct.num_tiles") == 0;
			bool ptr = strcmp(api, "ct.gather") == 0 || strcmp(api, "ct.scatter") == 0 ||
				   str_starts(api, "ct.atomic_");
			int p = (view || ptr) ? param_of(lw, sc, py_call_param(n, 0, "array")) : -1;
			if (p >= 0) {
				struct tparam *tp = &lw->k->params[p];
				tp->kind = TP_ARRAY;
				if (view)
					tp->view = true;
				else
					tp->ptr = true;
				/* the rank an access spells out: its index (or shape) tuple */
				const struct py_node *ix = strcmp(api, "ct.num_tiles") == 0
								   ? py_call_param(n, 2, "shape")
								   : py_call_param(n, 1, ptr ? "indices" : "index");
				int rank = ix && ix->kind == PY_TUPLE ? (int)ix->nkids : ix ? 1 : 0;
				if (rank > 0)
					tp->rank = tp->rank < 0 ? rank : tp->rank == rank ? rank : 0;
			}
			free(api);
		}
		mark_callee(lw, n, sc, depth);
	}
	if (n->kind == PY_ATTR && n->kids[0]->kind == PY_NAME &&
	    ((n->n == 5 && memcmp(n->s, "dtype", 5) == 0) || (n->n == 5 && memcmp(n->s, "shape", 5) == 0))) {
		int p = param_of(lw, sc, n->kids[0]);
		if (p >= 0)
			lw->k->params[p].kind = TP_ARRAY;
	}
	for (size_t k = 0; k < n->nkids; k++)
		mark(lw, n->kids[k], sc, depth + 1);
}

static void ct_mark_arrays(struct lw *lw, const struct py_node *def)
{
	/* an array with views and pointers both is a pointer, its views built
	 * in the entry (lower_view.c) */
	mark(lw, def->kids[3], NULL, 0);
	lw_array_dtypes(lw);
}

/* ct.Constant, ct.Constant[int], ct.Constant[bool], ct.Constant[float],
 * and module aliases of them (`ConstInt = ct.Constant[int]`). */
static int ct_const_annotation(struct lw *lw, const struct py_node *ann)
{
	for (int depth = 0; ann && depth < 8; depth++) {
		if (ann->kind == PY_NAME) {
			char *n = py_str(ann);
			const struct pm_const *c = lw->m ? pymod_const(lw->m, n) : NULL;
			free(n);
			if (c) {
				ann = c->value;
				continue;
			}
		}
		if (pymod_is(lw->m, ann, "ct.Constant"))
			return 1;
		if (ann->kind == PY_SUBSCRIPT && pymod_is(lw->m, ann->kids[0], "ct.Constant")) {
			const struct py_node *t = ann->kids[1];
			if (py_is_name(t, "int"))
				return 1;
			if (py_is_name(t, "bool"))
				return 2;
			/* stable Rust has no float const generics: the real ports
			 * pass such a value (an epsilon, a scale) at run time */
			if (py_is_name(t, "float"))
				return 3;
			lw_unsupported(lw, ann, "this ct.Constant[...] annotation");
		}
		return 0;
	}
	return 0;
}

static void hint(struct lw *lw, const char *target, const char *key, const struct py_node *v)
{
	int64_t value;
	if (!lw_known_int(lw, v, &value))
		lw_unsupported(lw, v, "a kernel hint that is not a compile-time integer");
	struct tkernel *k = lw->k;
	struct thint *h = ta_alloc(lw->a, (k->nhints + 1) * sizeof(*h));
	if (k->nhints)
		memcpy(h, k->hints, k->nhints * sizeof(*h));
	h[k->nhints] = (struct thint){ta_strdup(lw->a, target), ta_strdup(lw->a, key), value};
	k->hints = h;
	k->nhints++;
}

static void ct_hints(struct lw *lw, const struct py_node *deco)
{
	if (deco->kind != PY_CALL)
		return;
	static const struct {
		const char *py, *ir;
	} keys[] = {
		{"occupancy", "occupancy"},
		{"num_ctas", "num_cta_in_cga"},
	};
	const struct py_node *ww = py_call_kw(deco, "num_worker_warps");
	if (ww && !(ww->kind == PY_CONST && ww->n == 4 && memcmp(ww->s, "None", 4) == 0))
		lw_unsupported(lw, ww, "num_worker_warps (cutile 0.2.0 has no such entry hint)");
	for (size_t k = 0; k < TP_ARRAY_LEN(keys); k++) {
		const struct py_node *v = py_call_kw(deco, keys[k].py);
		if (!v || (v->kind == PY_CONST && v->n == 4 && memcmp(v->s, "None", 4) == 0))
			continue;
		if (v->kind == PY_CALL && pymod_is(lw->m, v->kids[0], "ct.ByTarget")) {
			for (size_t i = 1; i < v->nkids; i++) {
				const struct py_node *kw = v->kids[i];
				if (kw->kind != PY_KEYWORD)
					lw_unsupported(lw, kw, "a ct.ByTarget entry without a target name");
				const char *t = lw_name(lw, kw);
				hint(lw, strcmp(t, "default") == 0 || str_starts(t, "sm_") ? t : "?", keys[k].ir,
				     kw->kids[0]);
				if (strcmp(t, "default") != 0 && !str_starts(t, "sm_"))
					lw_unsupported(lw, kw, "a ct.ByTarget target that is not sm_NN or default");
			}
			continue;
		}
		hint(lw, "default", keys[k].ir, v);
	}
}

static struct tval *enum_val(struct lw *lw, const char *member)
{
	struct tval *v = tv_new(lw->a, TV_ENUM);
	v->rs = ta_strdup(lw->a, member);
	return v;
}

static struct tval *ct_name(struct lw *lw, const char *api, const struct py_node *n)
{
	(void)n;
	if (!str_starts(api, "ct."))
		return NULL;
	const char *rest = api + 3;
	static const char *const enums[] = {"PaddingMode.", "RoundingMode.", "MemoryOrder.",
					    "MemoryScope."};
	for (size_t i = 0; i < TP_ARRAY_LEN(enums); i++)
		if (str_starts(rest, enums[i]))
			return enum_val(lw, rest + strlen(enums[i]));
	enum tdt d = tdt_from_name(rest);
	if (d != DT_NONE) {
		struct tval *v = tv_new(lw->a, TV_DTYPE);
		v->dt = d;
		return v;
	}
	return NULL;
}

/* ---- pieces of calls ---- */

static enum tpad padding(struct lw *lw, const struct py_node *n)
{
	const char *m = lw_enum(lw, n);
	if (!m || strcmp(m, "UNDETERMINED") == 0)
		return PAD_UNDETERMINED;
	static const struct {
		const char *s;
		enum tpad p;
	} pads[] = {{"ZERO", PAD_ZERO},       {"NEG_ZERO", PAD_NEG_ZERO}, {"NAN", PAD_NAN},
		    {"POS_INF", PAD_POS_INF}, {"NEG_INF", PAD_NEG_INF}};
	for (size_t i = 0; i < TP_ARRAY_LEN(pads); i++)
		if (strcmp(m, pads[i].s) == 0)
			return pads[i].p;
	lw_unsupported(lw, n, "the padding mode %s", m);
}

int lw_ct_latency(struct lw *lw, const struct py_node *call)
{
	const struct py_node *l = py_call_kw(call, "latency");
	if (!l)
		return -1;
	struct tval *v = lw_expr(lw, l);
	if (v->kind == TV_NONE)
		return -1;
	if (v->kind != TV_CINT || !v->known)
		lw_unsupported(lw, l, "a latency that is not a compile-time integer");
	return (int)v->ival;
}

static void no_memory_flags(struct lw *lw, const struct py_node *call)
{
	const struct py_node *o = py_call_kw(call, "memory_order");
	const char *m = lw_enum(lw, o);
	if (m && strcmp(m, "WEAK") != 0)
		lw_unsupported(lw, o, "memory_order=%s", m);
	const struct py_node *s = py_call_kw(call, "memory_scope");
	m = lw_enum(lw, s);
	if (m && strcmp(m, "NONE") != 0)
		lw_unsupported(lw, s, "memory_scope=%s", m);
}

/* An index tuple (or one scalar) as a list of values. */
size_t lw_ct_index_list(struct lw *lw, const struct py_node *n, struct tval ***out)
{
	struct tval *v = lw_expr(lw, n);
	if (v->kind == TV_TUPLE) {
		*out = v->elems;
		return v->nelems;
	}
	*out = ta_alloc(lw->a, sizeof(**out));
	(*out)[0] = v;
	return 1;
}

/* order=(1, 0): the dim_map; NULL for the identity. */
static const int *order(struct lw *lw, const struct py_node *n, int rank, int *buf)
{
	if (!n)
		return NULL;
	struct tval *v = lw_expr(lw, n);
	if (v->kind == TV_STR) {
		if (strcmp(v->rs, "C") == 0)
			return NULL;
		lw_unsupported(lw, n, "order=\"%s\"", v->rs);
	}
	if (v->kind != TV_TUPLE || v->nelems != (size_t)rank)
		lw_unsupported(lw, n, "an order that is not a tuple of %d axes", rank);
	bool identity = true;
	for (int i = 0; i < rank; i++) {
		if (v->elems[i]->kind != TV_CINT || !v->elems[i]->known)
			lw_unsupported(lw, n, "an order that is not compile-time");
		buf[i] = (int)v->elems[i]->ival;
		identity &= buf[i] == i;
	}
	return identity ? NULL : buf;
}

static bool no_tma(struct lw *lw, const struct py_node *call)
{
	const struct py_node *t = py_call_kw(call, "allow_tma");
	if (!t)
		return false;
	struct tval *v = lw_expr(lw, t);
	if (v->kind == TV_NONE)
		return false;
	/* a flag the Constants decide only forbids TMA where the compiler
	 * would otherwise choose it (a performance choice, the same values):
	 * allowed, one entry, rather than an entry per value */
	return !lw_flag(lw, t, true, true);
}

static struct tval *load(struct lw *lw, const struct py_node *call)
{
	struct tval *arr = lw_required(lw, call, 0, "array");
	const struct py_node *ix = py_call_param(call, 1, "index");
	if (!ix)
		lw_unsupported(lw, call, "ct.load without an index");
	struct tval **idx;
	size_t n = lw_ct_index_list(lw, ix, &idx);
	struct tshape s;
	const struct py_node *sh = py_call_param(call, 2, "shape");
	if (!sh)
		lw_unsupported(lw, call, "ct.load without a shape");
	lw_shape(lw, sh, &s);
	no_memory_flags(lw, call);
	int buf[TIR_MAX_RANK];
	const int *ord = order(lw, py_call_kw(call, "order"), s.rank, buf);
	return lw_load_view(lw, arr, idx, n, &s, padding(lw, py_call_kw(call, "padding_mode")), ord,
			    lw_ct_latency(lw, call), no_tma(lw, call), call);
}

static struct tval *store(struct lw *lw, const struct py_node *call)
{
	struct tval *arr = lw_required(lw, call, 0, "array");
	const struct py_node *ix = py_call_param(call, 1, "index");
	if (!ix)
		lw_unsupported(lw, call, "ct.store without an index");
	struct tval **idx;
	size_t n = lw_ct_index_list(lw, ix, &idx);
	struct tval *tile = lw_required(lw, call, 2, "tile");
	no_memory_flags(lw, call);
	int buf[TIR_MAX_RANK];
	if (tile->kind == TV_TILE && order(lw, py_call_kw(call, "order"), tile->shape.rank, buf))
		lw_unsupported(lw, call, "ct.store with a permuted order");
	lw_store_view(lw, arr, idx, n, tile, lw_ct_latency(lw, call), no_tma(lw, call), call);
	return tv_new(lw->a, TV_NONE);
}

/* ---- ct.* calls by name: one handler per API function ---- */

typedef struct tval *(*ct_handler)(struct lw *lw, const char *name, const struct py_node *call);

static struct tval *call_block_id(struct lw *lw, const char *name, const struct py_node *call)
{
	return lw_block_id(lw, name[0] == 'n', py_call_param(call, 0, "axis"), call);
}

static struct tval *call_num_tiles(struct lw *lw, const char *name, const struct py_node *call)
{
	(void)name;
	struct tval *arr = lw_required(lw, call, 0, "array");
	struct tshape s;
	lw_shape(lw, py_call_param(call, 2, "shape"), &s);
	lw_array(lw, arr, call, false, s.rank);
	int axis = lw_axis(lw, py_call_param(call, 1, "axis"), s.rank);
	int buf[TIR_MAX_RANK];
	if (order(lw, py_call_kw(call, "order"), s.rank, buf))
		lw_unsupported(lw, call, "ct.num_tiles with a permuted order");
	struct top *op = lw_op(lw, TOP_NUM_TILES, call);
	op->param = arr->param;
	op->view = lw_tensor_view(lw, arr->param, s.rank, call);
	op->axis = axis;
	op->shape = s;
	op->inv = "num_tiles";
	op->inv_attr = ta_printf(lw->a, "axis=%d", axis);
	op->v1 = lw_fresh(lw, ta_printf(lw->a, "%s_tiles", lw->k->params[arr->param].rs));
	struct tvar *var = lw_var_new(lw, lw_hint(lw, "num_tiles"));
	struct tval *v = tv_int(lw->a, var->name);
	v->var = var;
	v->def = op;
	op->res = v;
	return v;
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

static struct tval *call_gather(struct lw *lw, const char *name, const struct py_node *call)
{
	(void)name;
	return lw_ct_gather(lw, call);
}

static struct tval *call_scatter(struct lw *lw, const char *name, const struct py_node *call)
{
	(void)name;
	return lw_ct_scatter(lw, call);
}

static struct tval *call_astype(struct lw *lw, const char *name, const struct py_node *call)
{
	(void)name;
	struct tval *x = lw_required(lw, call, 0, "x");
	enum tdt d = lw_dtype(lw, py_call_param(call, 1, "dtype"));
	if (x->kind != TV_TILE)
		lw_unsupported(lw, call, "ct.astype of a scalar");
	return lw_convert(lw, x, d, call);
}

static struct tval *call_arange(struct lw *lw, const char *name, const struct py_node *call)
{
	(void)name;
	struct tshape s;
	lw_shape(lw, py_call_param(call, 0, "size"), &s);
	const struct py_node *dn = py_call_kw(call, "dtype");
	enum tdt d = dn ? lw_dtype(lw, dn) : DT_I32;
	int64_t start = 0, step = 1;
	const struct py_node *sn = py_call_kw(call, "start"), *tn = py_call_kw(call, "step");
	if ((sn && !lw_known_int(lw, sn, &start)) || (tn && !lw_known_int(lw, tn, &step)))
		lw_unsupported(lw, call, "ct.arange with a runtime start or step");
	return lw_iota(lw, &s.d[0], start, step, d, call);
}

/* full, zeros, ones */
static struct tval *call_fill(struct lw *lw, const char *name, const struct py_node *call)
{
	struct tshape s;
	lw_shape(lw, py_call_param(call, 0, "shape"), &s);
	bool full = name[0] == 'f';
	struct tval *value = full ? lw_required(lw, call, 1, "fill_value")
				  : tv_cint(lw->a, name[0] == 'o' ? 1 : 0);
	const struct py_node *dn = py_call_param(call, full ? 2 : 1, "dtype");
	enum tdt d = dn ? lw_dtype(lw, dn) : DT_F32;
	return lw_full(lw, &s, value, d, call);
}

static struct tval *call_exp(struct lw *lw, const char *name, const struct py_node *call)
{
	(void)name;
	struct tval *x = lw_required(lw, call, 0, "x");
	return lw_exp(lw, x, lw_truthy(lw, py_call_kw(call, "flush_to_zero"), false), call);
}

/* abs, negative */
static struct tval *call_sign(struct lw *lw, const char *name, const struct py_node *call)
{
	struct tval *x = lw_required(lw, call, 0, "x");
	if (x->kind != TV_TILE)
		lw_unsupported(lw, call, "ct.%s of a scalar", name);
	bool fl = tdt_is_float(x->dt);
	const char *fn = name[0] == 'a' ? (fl ? "absf" : "absi") : (fl ? "negf" : "negi");
	return lw_tile_unary(lw, fn, NULL, x, call, NULL);
}

static struct tval *call_where(struct lw *lw, const char *name, const struct py_node *call)
{
	(void)name;
	struct tval *c = lw_required(lw, call, 0, "cond");
	struct tval *x = lw_required(lw, call, 1, "x");
	return lw_select(lw, c, x, lw_required(lw, call, 2, "y"), call);
}

/* sum, max, min, prod */
static struct tval *call_reduce(struct lw *lw, const char *name, const struct py_node *call)
{
	return lw_reduction(lw, name, lw_required(lw, call, 0, "x"), py_call_param(call, 1, "axis"),
			    py_call_kw(call, "keepdims"), call);
}

static struct tval *call_reshape(struct lw *lw, const char *name, const struct py_node *call)
{
	(void)name;
	return lw_reshape_to(lw, lw_required(lw, call, 0, "x"), py_call_param(call, 1, "shape"), call);
}

static struct tval *call_broadcast_to(struct lw *lw, const char *name, const struct py_node *call)
{
	(void)name;
	return lw_broadcast_to(lw, lw_required(lw, call, 0, "x"), py_call_param(call, 1, "shape"),
			       "ct.broadcast_to", call);
}

static struct tval *call_expand_dims(struct lw *lw, const char *name, const struct py_node *call)
{
	(void)name;
	return lw_expand_dims(lw, lw_required(lw, call, 0, "x"), py_call_param(call, 1, "axis"),
			      "ct.expand_dims", call);
}

/* transpose(x, axis0=None, axis1=None) swaps two axes (both absent: the
 * two of a rank-2 tile); permute(x, axes) takes the whole order */
static struct tval *transpose(struct lw *lw, struct tval *x, const struct py_node *a0,
			      const struct py_node *a1, const struct py_node *call)
{
	if (x->kind != TV_TILE)
		lw_unsupported(lw, call, "ct.transpose of a scalar");
	int r = x->shape.rank;
	int perm[TIR_MAX_RANK];
	for (int i = 0; i < r; i++)
		perm[i] = i;
	if (!a0 && !a1) {
		if (r != 2)
			lw_unsupported(lw, call, "ct.transpose of a rank-%d tile without axis0 and axis1",
				       r);
		perm[0] = 1;
		perm[1] = 0;
	} else {
		if (!a0 || !a1)
			lw_unsupported(lw, call, "ct.transpose with one of axis0 and axis1");
		int i = lw_axis(lw, a0, r), j = lw_axis(lw, a1, r);
		perm[i] = j;
		perm[j] = i;
	}
	return lw_permute(lw, x, perm, call);
}

static struct tval *call_transpose(struct lw *lw, const char *name, const struct py_node *call)
{
	(void)name;
	struct tval *x = lw_required(lw, call, 0, "x");
	return transpose(lw, x, py_call_param(call, 1, "axis0"), py_call_param(call, 2, "axis1"), call);
}

static struct tval *call_permute(struct lw *lw, const char *name, const struct py_node *call)
{
	(void)name;
	struct tval *x = lw_required(lw, call, 0, "x");
	if (x->kind != TV_TILE)
		lw_unsupported(lw, call, "ct.permute of a scalar");
	const struct py_node *axes = py_call_param(call, 1, "axes");
	if (!axes)
		lw_unsupported(lw, call, "ct.permute without axes");
	int perm[TIR_MAX_RANK];
	lw_permutation(lw, x, axes, "axes", perm);
	return lw_permute(lw, x, perm, call);
}

static struct tval *call_mma(struct lw *lw, const char *name, const struct py_node *call)
{
	(void)name;
	struct tval *x = lw_required(lw, call, 0, "x");
	struct tval *y = lw_required(lw, call, 1, "y");
	return lw_mma(lw, x, y, lw_required(lw, call, 2, "acc"), call);
}

static struct tval *call_matmul(struct lw *lw, const char *name, const struct py_node *call)
{
	(void)name;
	struct tval *a = lw_required(lw, call, 0, "x");
	struct tval *acc = lw_mma(lw, a, lw_required(lw, call, 1, "y"), NULL, call);
	return lw_convert(lw, acc, a->dt, call);
}

static struct tval *call_cdiv(struct lw *lw, const char *name, const struct py_node *call)
{
	(void)name;
	struct tval *x = lw_required(lw, call, 0, "x");
	return lw_cdiv(lw, x, lw_required(lw, call, 1, "y"), call);
}

static struct tval *call_assume_div(struct lw *lw, const char *name, const struct py_node *call)
{
	(void)name;
	struct tval *x = lw_required(lw, call, 0, "x");
	int64_t d;
	if (!lw_known_int(lw, py_call_param(call, 1, "divisor"), &d) || d <= 0 || (d & (d - 1)))
		lw_unsupported(lw, call, "a divisor that is not a power of two");
	bool ptr = x->kind == TV_ARRAY && lw->k->params[x->param].ptr;
	struct top *op = lw_op(lw, ptr ? TOP_ASSUME : TOP_COMMENT, call);
	if (ptr) {
		op->param = x->param;
		op->axis = (int)d;
		op->inv = "assume";
	} else {
		/* rule 21: assume_div_by goes on pointers only */
		op->text = ta_printf(lw->a, "R21: the source's assume_divisible_by(%lld) on a "
					    "non-pointer is not repeated",
				     (long long)d);
	}
	return x;
}

static struct tval *call_static_assert(struct lw *lw, const char *name, const struct py_node *call)
{
	(void)name;
	return lw_static_assert(lw, lw_required(lw, call, 0, "condition"), "ct", call);
}

static struct tval *call_cumsum(struct lw *lw, const char *name, const struct py_node *call)
{
	(void)name;
	if (py_call_kw(call, "rounding_mode") || py_call_kw(call, "flush_to_zero"))
		lw_unsupported(lw, call, "ct.cumsum with rounding or flush-to-zero (cutile-rs's "
					 "scan_sum takes no modes)");
	struct tval *x = lw_required(lw, call, 0, "x");
	return lw_cumsum(lw, x, py_call_param(call, 1, "axis"),
			 lw_truthy(lw, py_call_kw(call, "reverse"), false), call);
}

static struct tval *call_extract(struct lw *lw, const char *name, const struct py_node *call)
{
	(void)name;
	struct tval *x = lw_required(lw, call, 0, "x");
	return lw_extract(lw, x, py_call_param(call, 1, "index"), py_call_param(call, 2, "shape"),
			  call);
}

static const struct {
	const char *name; /* after "ct." */
	ct_handler fn;
} ct_calls[] = {
	{"bid", call_block_id},       {"num_blocks", call_block_id},
	{"num_tiles", call_num_tiles}, {"load", call_load},
	{"store", call_store},        {"gather", call_gather},
	{"scatter", call_scatter},    {"astype", call_astype},
	{"arange", call_arange},      {"full", call_fill},
	{"zeros", call_fill},         {"ones", call_fill},
	{"exp", call_exp},            {"abs", call_sign},
	{"negative", call_sign},      {"where", call_where},
	{"sum", call_reduce},         {"max", call_reduce},
	{"min", call_reduce},         {"prod", call_reduce},
	{"reshape", call_reshape},    {"broadcast_to", call_broadcast_to},
	{"expand_dims", call_expand_dims}, {"permute", call_permute},
	{"transpose", call_transpose},  {"mma", call_mma},
	{"matmul", call_matmul},      {"cdiv", call_cdiv},
	{"assume_divisible_by", call_assume_div}, {"static_assert", call_static_assert},
	{"cumsum", call_cumsum},      {"extract", call_extract},
};

static struct tval *ct_call(struct lw *lw, const char *api, const struct py_node *call)
{
	if (!str_starts(api, "ct."))
		return NULL;
	const char *name = api + 3;
	for (size_t i = 0; i < TP_ARRAY_LEN(ct_calls); i++)
		if (strcmp(name, ct_calls[i].name) == 0)
			return ct_calls[i].fn(lw, name, call);
	/* the element-wise families have tables of their own */
	return lw_ct_elementwise(lw, name, call);
}

static struct tval *ct_method(struct lw *lw, struct tval *self, const char *meth,
			      const struct py_node *call)
{
	if (self->kind != TV_TILE)
		return NULL;
	if (strcmp(meth, "astype") == 0)
		return lw_convert(lw, self, lw_dtype(lw, py_call_param(call, 0, "dtype")), call);
	if (strcmp(meth, "reshape") == 0) {
		struct tshape s;
		if (py_call_nargs(call) > 1) {
			struct tval *t = tv_tuple(lw->a, py_call_nargs(call));
			for (size_t i = 0; i < t->nelems; i++)
				t->elems[i] = lw_expr(lw, py_call_arg(call, i));
			lw_shape_of(lw, t, call, &s);
		} else {
			lw_shape(lw, py_call_param(call, 0, "shape"), &s);
		}
		return lw_reshape(lw, self, &s, call);
	}
	if (strcmp(meth, "transpose") == 0)
		return transpose(lw, self, py_call_param(call, 0, "axis0"),
				 py_call_param(call, 1, "axis1"), call);
	if (strcmp(meth, "permute") == 0) {
		int perm[TIR_MAX_RANK];
		const struct py_node *axes = py_call_param(call, 0, "axes");
		if (!axes)
			lw_unsupported(lw, call, ".permute() without axes");
		lw_permutation(lw, self, axes, "axes", perm);
		return lw_permute(lw, self, perm, call);
	}
	if (strcmp(meth, "sum") == 0 || strcmp(meth, "max") == 0 || strcmp(meth, "min") == 0)
		return lw_reduction(lw, meth, self, py_call_param(call, 0, "axis"), py_call_kw(call, "keepdims"),
				 call);
	if (strcmp(meth, "item") == 0) {
		/* a one-element tile's value: a 0-d tile, and an i32 scalar by the
		 * crate's tile_to_scalar when it is an integer (an index, a bound) */
		struct tshape s0 = {0};
		struct tval *t = lw_reshape(lw, self, &s0, call);
		if (t->dt != DT_I32)
			return t;
		return tv_int(lw->a, lw_int_rs(lw, t, call));
	}
	if (strcmp(meth, "extract") == 0)
		return lw_extract(lw, self, py_call_param(call, 0, "index"),
				  py_call_param(call, 1, "shape"), call);
	return NULL;
}

const struct lw_api lw_api_cutile = {
	.lang = "cuTile Python",
	.mark_arrays = ct_mark_arrays,
	.const_annotation = ct_const_annotation,
	.hints = ct_hints,
	.name = ct_name,
	.call = ct_call,
	.method = ct_method,
};
