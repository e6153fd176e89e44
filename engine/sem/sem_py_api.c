/* The cuTile Python and Triton APIs as the Python reader sees them: what
 * each call computes, in graph nodes, with its keyword arguments and
 * their defaults (ct.load pads UNDETERMINED and allows TMA; ct.gather and
 * ct.scatter check bounds, index < extent on each axis, and gather pads
 * with 0; tl.dot on f32 goes through tf32 unless asked for ieee). */
#include "engine/sem/sem_pyx.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static struct sval argv_(struct pctx *c, const struct py_node *call, size_t i, const char *name)
{
	const struct py_node *a = px_arg(call, i, name);
	return a ? px_expr(c, a) : sv_kind(SV_NONEV);
}

static sid argn(struct pctx *c, const struct py_node *call, size_t i, const char *name)
{
	const struct py_node *a = px_arg(call, i, name);
	if (!a) {
		px_problem(c, call, "a call without its argument %s", name);
		return sg_undef(c->g, SDT_NONE);
	}
	return px_node(c, px_expr(c, a), call);
}

static bool has(const struct py_node *call, size_t i, const char *name)
{
	return px_arg(call, i, name) != NULL;
}

static int bool_kw(struct pctx *c, const struct py_node *call, const char *name, int dflt)
{
	const struct py_node *a = py_call_kw(call, name);
	if (!a)
		return dflt;
	struct sval v = px_expr(c, a);
	int64_t x;
	if (v.k == SV_NODE && c->g->n[v.x].op == S_BOOL)
		return (int)c->g->n[v.x].ival;
	if (v.k == SV_NODE && sg_is_int_lit(c->g, v.x, &x))
		return x != 0;
	if (v.k == SV_NODE) {
		/* a flag the Constants decide (`check_bounds=TILE != N`): its
		 * value in the case being read, as the translation's `if` on the
		 * const generics has it */
		int known = sem_cond_value(c->g, c->b, v.x);
		if (known >= 0)
			return known;
	}
	return dflt;
}

static bool enum_is(struct sval v, const char *name)
{
	return v.k == SV_ENUM && v.name && !strcmp(v.name, name);
}

/* flush_to_zero= and rounding_mode= of a call */
static struct shint math_modes(struct pctx *c, const struct py_node *call)
{
	struct shint h = SHINT_NONE;
	int f = bool_kw(c, call, "flush_to_zero", -1);
	if (f >= 0)
		h.ftz = (int8_t)f;
	const struct py_node *r = py_call_kw(call, "rounding_mode");
	if (r) {
		struct sval v = px_expr(c, r);
		h.rnd = enum_is(v, "APPROX") ? RND_APPROX : enum_is(v, "FULL") ? RND_FULL
		      : enum_is(v, "RN") || enum_is(v, "NEAREST_EVEN") ? RND_NEAREST
		      : enum_is(v, "RZ") ? RND_ZERO : -1;
	}
	int nan = bool_kw(c, call, "propagate_nan", -1);
	if (nan >= 0)
		h.nan = (int8_t)nan;
	return h;
}

static int pad_mode(struct sval v)
{
	static const struct {
		const char *name;
		int pad;
	} p[] = {{"UNDETERMINED", SP_UNDETERMINED}, {"ZERO", SP_ZERO}, {"NEG_ZERO", SP_NEG_ZERO},
		 {"NAN", SP_NAN}, {"POS_INF", SP_POS_INF}, {"NEG_INF", SP_NEG_INF}};
	for (size_t i = 0; i < TP_ARRAY_LEN(p); i++)
		if (enum_is(v, p[i].name))
			return p[i].pad;
	return -1;
}

static bool is_array(struct pctx *c, struct sval v)
{
	return v.k == SV_NODE && c->g->n[v.x].op == S_PARAM && c->g->params[c->g->n[v.x].ival].kind == SPK_ARRAY;
}

static struct sparam *array_param(struct pctx *c, sid a)
{
	return &c->g->params[c->g->n[a].ival];
}

/* An index argument: a tuple of scalars, or one scalar. */
static bool index_list(struct pctx *c, struct sval v, sid *out, int *n)
{
	if (v.k == SV_NODE) {
		out[0] = v.x;
		*n = 1;
		return true;
	}
	return px_dims(c, v, out, n);
}

static sid shape_of(struct pctx *c, sid arr, int axis)
{
	struct snode p;
	memset(&p, 0, sizeof(p));
	p.op = S_SHAPE;
	p.dt = SDT_I32;
	p.ival = axis;
	p.h = SHINT_NONE;
	return sg_node(c->g, &p, &arr, 1);
}

static sid stride_of(struct pctx *c, sid arr, int axis)
{
	struct snode p;
	memset(&p, 0, sizeof(p));
	p.op = S_STRIDE;
	p.dt = SDT_I32;
	p.ival = axis;
	p.h = SHINT_NONE;
	return sg_node(c->g, &p, &arr, 1);
}

static void latency_hint(struct pctx *c, const struct py_node *call, struct shint *h)
{
	const struct py_node *a = py_call_kw(call, "latency");
	if (!a)
		return;
	struct sval v = px_expr(c, a);
	int64_t x;
	if (v.k == SV_NODE && sg_is_int_lit(c->g, v.x, &x)) {
		h->latency = (int16_t)x;
	} else if (v.k == SV_NODE && c->g->n[v.x].op == S_PARAM) {
		h->latency = -2;
		h->lat_sym = c->g->n[v.x].name;
	}
}

/* ---- memory ---- */

static struct sval ct_load(struct pctx *c, const struct py_node *call)
{
	struct sgraph *g = c->g;
	struct sval av = argv_(c, call, 0, "array");
	if (!is_array(c, av)) {
		px_problem(c, call, "ct.load of something other than a kernel array");
		return sv_kind(SV_UNKNOWN);
	}
	sid idx[SEM_MAX_RANK], dims[SEM_MAX_RANK];
	int ni, nd;
	if (!index_list(c, argv_(c, call, 1, "index"), idx, &ni) ||
	    !px_dims(c, argv_(c, call, 2, "shape"), dims, &nd)) {
		px_problem(c, call, "ct.load with an index or shape the check does not follow");
		return sv_kind(SV_UNKNOWN);
	}
	int pad = SP_UNDETERMINED;
	const struct py_node *pm = py_call_kw(call, "padding_mode");
	if (pm) {
		pad = pad_mode(px_expr(c, pm));
		if (pad < 0) {
			px_problem(c, call, "a padding_mode the check does not know");
			return sv_kind(SV_UNKNOWN);
		}
	}
	int order[SEM_MAX_RANK], no = 0;
	bool ordered = false;
	const struct py_node *o = py_call_kw(call, "order");
	if (o && !px_ints(c, px_expr(c, o), order, &no)) {
		px_problem(c, call, "an order that is not a tuple of constants");
		return sv_kind(SV_UNKNOWN);
	}
	ordered = o && no == nd;
	struct shint h = SHINT_NONE;
	latency_hint(c, call, &h);
	int tma = bool_kw(c, call, "allow_tma", -1);
	if (tma >= 0)
		h.tma = (int8_t)tma;
	struct sparam *p = array_param(c, av.x);
	if (p->rank < 0)
		p->rank = ni;
	return sv_node(sc_load(g, av.x, idx, ni, dims, nd, pad, ordered ? order : NULL, h, p->dt));
}

static struct sval ct_store(struct pctx *c, const struct py_node *call)
{
	struct sgraph *g = c->g;
	struct sval av = argv_(c, call, 0, "array");
	if (!is_array(c, av)) {
		px_problem(c, call, "ct.store to something other than a kernel array");
		return sv_kind(SV_UNKNOWN);
	}
	sid idx[SEM_MAX_RANK];
	int ni;
	if (!index_list(c, argv_(c, call, 1, "index"), idx, &ni)) {
		px_problem(c, call, "ct.store with an index the check does not follow");
		return sv_kind(SV_UNKNOWN);
	}
	sid tile = argn(c, call, 2, "tile");
	struct seffect e;
	memset(&e, 0, sizeof(e));
	e.kind = SE_STORE;
	e.array = av.x;
	e.idx = sa_alloc(g->arena, sizeof(sid) * (size_t)(ni ? ni : 1));
	memcpy(e.idx, idx, sizeof(sid) * (size_t)ni);
	e.nidx = (size_t)ni;
	const struct snode *t = &g->n[tile];
	e.rank = t->rank;
	memcpy(e.dims, t->dims, sizeof(sid) * t->rank);
	e.value = tile;
	e.h = SHINT_NONE;
	latency_hint(c, call, &e.h);
	int tma = bool_kw(c, call, "allow_tma", -1);
	if (tma >= 0)
		e.h.tma = (int8_t)tma;
	e.cond = c->cond;
	e.loop = c->loop;
	e.line = call->line;
	struct sparam *p = array_param(c, av.x);
	if (p->rank < 0)
		p->rank = ni;
	sg_add_effect(g, &e);
	return sv_kind(SV_VOID);
}

/* ct.gather / ct.scatter: the element offset, the bounds, the mask */
static bool pointer_access(struct pctx *c, const struct py_node *call, sid arr, sid *offset, sid *mask)
{
	struct sgraph *g = c->g;
	sid idx[SEM_MAX_RANK];
	int ni;
	if (!index_list(c, argv_(c, call, 1, "indices"), idx, &ni)) {
		px_problem(c, call, "an index tuple the check does not follow");
		return false;
	}
	struct sparam *p = array_param(c, arr);
	if (p->rank < 0)
		p->rank = ni;
	sid off = sg_int(g, 0);
	for (int d = 0; d < ni; d++)
		off = ic_add(g, off, ic_mul(g, idx[d], stride_of(c, arr, d)));
	sid m = 0;
	const struct py_node *mk = py_call_kw(call, "mask");
	if (mk) {
		struct sval mv = px_expr(c, mk);
		if (mv.k != SV_NONEV)
			m = px_node(c, mv, call);
	}
	if (bool_kw(c, call, "check_bounds", 1)) {
		for (int d = 0; d < ni; d++) {
			sid b = ic_cmp(g, '<', idx[d], shape_of(c, arr, d));
			m = m ? bc_and(g, m, b) : b;
		}
	}
	*offset = off;
	*mask = m;
	return true;
}

static struct sval ct_gather(struct pctx *c, const struct py_node *call)
{
	struct sgraph *g = c->g;
	struct sval av = argv_(c, call, 0, "array");
	if (!is_array(c, av)) {
		px_problem(c, call, "ct.gather from something other than a kernel array");
		return sv_kind(SV_UNKNOWN);
	}
	sid off, mask;
	if (!pointer_access(c, call, av.x, &off, &mask))
		return sv_kind(SV_UNKNOWN);
	int dt = array_param(c, av.x)->dt;
	sid pad = sg_float(g, 0.0, dt);
	const struct py_node *pv = py_call_kw(call, "padding_value");
	if (pv)
		pad = px_node(c, px_expr(c, pv), call);
	if (!sdt_is_float(dt) && dt != SDT_NONE)
		pad = sc_convert(g, pad, dt);
	struct shint h = SHINT_NONE;
	latency_hint(c, call, &h);
	return sv_node(sc_gather(g, av.x, off, mask, mask ? pad : 0, h, dt));
}

static struct sval ct_scatter(struct pctx *c, const struct py_node *call)
{
	struct sgraph *g = c->g;
	struct sval av = argv_(c, call, 0, "array");
	if (!is_array(c, av)) {
		px_problem(c, call, "ct.scatter to something other than a kernel array");
		return sv_kind(SV_UNKNOWN);
	}
	sid off, mask;
	if (!pointer_access(c, call, av.x, &off, &mask))
		return sv_kind(SV_UNKNOWN);
	struct seffect e;
	memset(&e, 0, sizeof(e));
	e.kind = SE_SCATTER;
	e.array = av.x;
	e.offset = off;
	e.value = argn(c, call, 2, "value");
	e.mask = mask;
	e.h = SHINT_NONE;
	latency_hint(c, call, &e.h);
	e.cond = c->cond;
	e.loop = c->loop;
	e.line = call->line;
	const struct snode *o = &g->n[off];
	e.rank = o->rank;
	memcpy(e.dims, o->dims, sizeof(sid) * o->rank);
	sg_add_effect(g, &e);
	return sv_kind(SV_VOID);
}

/* Triton loads and stores: through pointers or block pointers */
static struct sval tl_load(struct pctx *c, const struct py_node *call)
{
	struct sgraph *g = c->g;
	struct sval p = argv_(c, call, 0, "pointer");
	if (is_array(c, p)) {
		struct sval q = sv_kind(SV_PTR);
		q.arr = p.x;
		q.x = sg_int(g, 0);
		p = q;
	}
	struct shint h = SHINT_NONE;
	if (p.k == SV_BLOCKPTR) {
		int pad = SP_UNDETERMINED;
		const struct py_node *po = py_call_kw(call, "padding_option");
		if (po) {
			struct sval s = px_expr(c, po);
			pad = s.k == SV_STR && !strcmp(s.name, "zero") ? SP_ZERO
			    : s.k == SV_STR && !strcmp(s.name, "nan") ? SP_NAN : SP_UNDETERMINED;
		}
		sid idx[SEM_MAX_RANK];
		for (int d = 0; d < p.rank; d++)
			idx[d] = ic_floordiv(g, p.el[d].x, p.dims[d]);
		return sv_node(sc_load(g, p.arr, idx, p.rank, p.dims, p.rank, pad, NULL, h, array_param(c, p.arr)->dt));
	}
	if (p.k != SV_PTR) {
		px_problem(c, call, "tl.load of something other than a pointer");
		return sv_kind(SV_UNKNOWN);
	}
	sid mask = 0, other = 0;
	struct sval mv = argv_(c, call, 1, "mask");
	if (mv.k != SV_NONEV)
		mask = px_node(c, mv, call);
	struct sval ov = argv_(c, call, 2, "other");
	if (ov.k != SV_NONEV)
		other = px_node(c, ov, call);
	return sv_node(sc_gather(g, p.arr, p.x, mask, other, h, array_param(c, p.arr)->dt));
}

static struct sval tl_store(struct pctx *c, const struct py_node *call)
{
	struct sgraph *g = c->g;
	struct sval p = argv_(c, call, 0, "pointer");
	if (is_array(c, p)) {
		struct sval q = sv_kind(SV_PTR);
		q.arr = p.x;
		q.x = sg_int(g, 0);
		p = q;
	}
	sid value = argn(c, call, 1, "value");
	struct seffect e;
	memset(&e, 0, sizeof(e));
	e.value = value;
	e.h = SHINT_NONE;
	e.cond = c->cond;
	e.loop = c->loop;
	e.line = call->line;
	if (p.k == SV_BLOCKPTR) {
		e.kind = SE_STORE;
		e.array = p.arr;
		e.idx = sa_alloc(g->arena, sizeof(sid) * (size_t)(p.rank ? p.rank : 1));
		for (int d = 0; d < p.rank; d++)
			e.idx[d] = ic_floordiv(g, p.el[d].x, p.dims[d]);
		e.nidx = (size_t)p.rank;
		e.rank = p.rank;
		memcpy(e.dims, p.dims, sizeof(sid) * (size_t)p.rank);
		sg_add_effect(g, &e);
		return sv_kind(SV_VOID);
	}
	if (p.k != SV_PTR) {
		px_problem(c, call, "tl.store to something other than a pointer");
		return sv_kind(SV_UNKNOWN);
	}
	e.kind = SE_SCATTER;
	e.array = p.arr;
	e.offset = p.x;
	struct sval mv = argv_(c, call, 2, "mask");
	if (mv.k != SV_NONEV)
		e.mask = px_node(c, mv, call);
	const struct snode *o = &g->n[p.x];
	e.rank = o->rank;
	memcpy(e.dims, o->dims, sizeof(sid) * o->rank);
	sg_add_effect(g, &e);
	return sv_kind(SV_VOID);
}

static struct sval block_ptr(struct pctx *c, const struct py_node *call)
{
	struct sval base = argv_(c, call, 0, "base");
	if (!is_array(c, base)) {
		px_problem(c, call, "a block pointer over something other than a kernel array");
		return sv_kind(SV_UNKNOWN);
	}
	struct sval offs = argv_(c, call, 3, "offsets");
	sid dims[SEM_MAX_RANK];
	int nd;
	if (offs.k != SV_TUPLE || !px_dims(c, argv_(c, call, 4, "block_shape"), dims, &nd) ||
	    (int)offs.nel != nd) {
		px_problem(c, call, "a block pointer the check does not follow");
		return sv_kind(SV_UNKNOWN);
	}
	struct sval p = sv_kind(SV_BLOCKPTR);
	p.arr = base.x;
	p.rank = nd;
	memcpy(p.dims, dims, sizeof(sid) * (size_t)nd);
	p.el = sa_alloc(c->g->arena, sizeof(struct sval) * (size_t)nd);
	for (int d = 0; d < nd; d++)
		p.el[d] = sv_node(px_node(c, offs.el[d], call));
	p.nel = (size_t)nd;
	struct sparam *ap = array_param(c, base.x);
	if (ap->rank < 0)
		ap->rank = nd;
	return p;
}

/* ---- tiles ---- */

static struct sval reduction(struct pctx *c, const struct py_node *call, int kind, struct sval x, size_t argi)
{
	struct sgraph *g = c->g;
	sid t = px_node(c, x, call);
	int rank = g->n[t].rank;
	const struct py_node *ax = px_arg(call, argi, "axis");
	bool keep = bool_kw(c, call, "keepdims", 0) || bool_kw(c, call, "keep_dims", 0);
	int axes[SEM_MAX_RANK], na = 0;
	if (ax) {
		struct sval av = px_expr(c, ax);
		if (av.k == SV_NONEV) {
			for (int i = 0; i < rank; i++)
				axes[na++] = i;
		} else if (!px_ints(c, av, axes, &na)) {
			px_problem(c, call, "a reduction axis that is not a constant");
			return sv_kind(SV_UNKNOWN);
		}
	} else {
		for (int i = 0; i < rank; i++)
			axes[na++] = i;
	}
	for (int i = 0; i < na; i++)
		if (axes[i] < 0)
			axes[i] += rank;
	sid dims[SEM_MAX_RANK];
	memcpy(dims, g->n[t].dims, sizeof(sid) * (size_t)rank);
	/* from the last axis, so that the others keep their numbers */
	for (int k = na; k-- > 0;)
		t = sc_reduce(g, kind, t, axes[k]);
	if (keep) {
		for (int i = 0; i < na; i++)
			dims[axes[i]] = sg_int(g, 1);
		t = sc_reshape(g, t, dims, rank);
	}
	return sv_node(t);
}

/* ct.cumsum(x, axis=0, reverse=False), tl.cumsum(input, axis=0, reverse=False) */
static struct sval cumsum(struct pctx *c, const struct py_node *call, struct sval x)
{
	struct sgraph *g = c->g;
	sid t = px_node(c, x, call);
	int axis[1] = {0}, n = 1;
	const struct py_node *ax = px_arg(call, 1, "axis");
	if (ax && (!px_ints(c, px_expr(c, ax), axis, &n) || n != 1)) {
		px_problem(c, call, "a scan axis that is not a constant");
		return sv_kind(SV_UNKNOWN);
	}
	const struct py_node *rv = px_arg(call, 2, "reverse");
	struct sval r = rv ? px_expr(c, rv) : sv_kind(SV_NONEV);
	int64_t rev = 0;
	if (r.k == SV_NODE && !sg_is_int_lit(g, r.x, &rev) && g->n[r.x].op == S_BOOL)
		rev = g->n[r.x].ival;
	else if (r.k != SV_NONEV && !(r.k == SV_NODE && (g->n[r.x].op == S_BOOL || g->n[r.x].op == S_INT))) {
		px_problem(c, call, "a scan direction that is not a constant");
		return sv_kind(SV_UNKNOWN);
	}
	return sv_node(sc_scan_sum(g, t, axis[0], rev != 0));
}

/* ct.extract(x, index, shape): the sub-tile at index, in sub-tiles */
static struct sval extract(struct pctx *c, const struct py_node *call, struct sval x, size_t argi)
{
	struct sgraph *g = c->g;
	sid t = px_node(c, x, call);
	sid dims[SEM_MAX_RANK];
	int rank;
	struct sval ix = argv_(c, call, argi, "index");
	if (!px_dims(c, argv_(c, call, argi + 1, "shape"), dims, &rank) ||
	    (ix.k == SV_TUPLE ? (int)ix.nel : 1) != rank) {
		px_problem(c, call, "an extract the check does not follow");
		return sv_kind(SV_UNKNOWN);
	}
	sid idx[SEM_MAX_RANK];
	for (int i = 0; i < rank; i++)
		idx[i] = px_node(c, ix.k == SV_TUPLE ? ix.el[i] : ix, call);
	return sv_node(sc_extract(g, t, idx, rank, dims, rank));
}

static struct sval astype(struct pctx *c, const struct py_node *call, struct sval x, struct sval dt)
{
	int d = px_dtype_of(c, dt);
	if (dt.k != SV_DTYPE || d == SDT_NONE) {
		px_problem(c, call, "a dtype the check does not know");
		return sv_kind(SV_UNKNOWN);
	}
	return sv_node(sc_convert(c->g, px_node(c, x, call), d));
}

static struct sval reshape(struct pctx *c, const struct py_node *call, struct sval x, struct sval shape)
{
	sid dims[SEM_MAX_RANK];
	int r;
	if (shape.k == SV_TUPLE && shape.nel == 0) {
		r = 0;
	} else if (!px_dims(c, shape, dims, &r)) {
		px_problem(c, call, "a reshape to a shape the check does not follow");
		return sv_kind(SV_UNKNOWN);
	}
	return sv_node(sc_reshape(c->g, px_node(c, x, call), dims, r));
}

static struct sval permute(struct pctx *c, const struct py_node *call, struct sval x, struct sval axes)
{
	int perm[SEM_MAX_RANK], n;
	sid t = px_node(c, x, call);
	if (axes.k == SV_NONEV) {
		int r = c->g->n[t].rank;
		for (int i = 0; i < r; i++)
			perm[i] = r - 1 - i;
		n = r;
		if (r >= 2) { /* transpose: the last two */
			for (int i = 0; i < r; i++)
				perm[i] = i;
			perm[r - 2] = r - 1;
			perm[r - 1] = r - 2;
		}
	} else if (!px_ints(c, axes, perm, &n)) {
		px_problem(c, call, "a permutation that is not a tuple of constants");
		return sv_kind(SV_UNKNOWN);
	}
	return sv_node(sc_permute(c->g, t, perm, n));
}

/* cuTile's transpose(x, axis0=None, axis1=None): those two axes swapped
 * (none given: the last two); argi the position of axis0 */
static struct sval swap_axes(struct pctx *c, const struct py_node *call, struct sval x, size_t argi)
{
	const struct py_node *a0 = px_arg(call, argi, "axis0"), *a1 = px_arg(call, argi + 1, "axis1");
	if (!a0 && !a1)
		return permute(c, call, x, sv_kind(SV_NONEV));
	sid t = px_node(c, x, call);
	int r = c->g->n[t].rank, perm[SEM_MAX_RANK];
	int64_t i, j;
	if (!a0 || !a1 || !sg_is_int_lit(c->g, px_node(c, px_expr(c, a0), call), &i) ||
	    !sg_is_int_lit(c->g, px_node(c, px_expr(c, a1), call), &j) || i < -r || i >= r || j < -r || j >= r) {
		px_problem(c, call, "transposed axes that are not constants");
		return sv_kind(SV_UNKNOWN);
	}
	i = i < 0 ? i + r : i;
	j = j < 0 ? j + r : j;
	for (int k = 0; k < r; k++)
		perm[k] = k;
	perm[i] = (int)j;
	perm[j] = (int)i;
	return sv_node(sc_permute(c->g, t, perm, r));
}

static struct sval expand_dims(struct pctx *c, const struct py_node *call, struct sval x, struct sval axis)
{
	sid t = px_node(c, x, call);
	const struct snode *n = &c->g->n[t];
	int64_t a;
	if (axis.k != SV_NODE || !sg_is_int_lit(c->g, axis.x, &a)) {
		px_problem(c, call, "an axis that is not a constant");
		return sv_kind(SV_UNKNOWN);
	}
	if (a < 0)
		a += n->rank + 1;
	sid dims[SEM_MAX_RANK];
	int r = 0;
	for (int i = 0; i <= n->rank && r < SEM_MAX_RANK; i++) {
		if (i == a)
			dims[r++] = sg_int(c->g, 1);
		if (i < n->rank)
			dims[r++] = n->dims[i];
	}
	return sv_node(sc_reshape(c->g, t, dims, r));
}

static struct sval dot(struct pctx *c, const struct py_node *call)
{
	struct sgraph *g = c->g;
	sid a = argn(c, call, 0, "input"), b = argn(c, call, 1, "other");
	sid acc = 0;
	struct sval av = argv_(c, call, 2, "acc");
	if (av.k != SV_NONEV)
		acc = px_node(c, av, call);
	bool ieee = false;
	const struct py_node *ip = py_call_kw(call, "input_precision");
	if (ip) {
		struct sval s = px_expr(c, ip);
		ieee = s.k == SV_STR && !strcmp(s.name, "ieee");
	}
	if (bool_kw(c, call, "allow_tf32", 1) == 0)
		ieee = true;
	int dt = sg_dt(g, a);
	bool f32 = dt == SDT_F32;
	if (dt == SDT_E)
		f32 = sem_cond_value(g, c->b, sc_opaque(g, "dtype:E == f32", NULL, 0, SDT_BOOL)) == 1;
	if (f32 && !ieee) {
		a = sc_convert(g, a, SDT_TF32);
		b = sc_convert(g, b, SDT_TF32);
	}
	if (!acc) {
		sid dims[2] = {g->n[a].rank >= 2 ? g->n[a].dims[g->n[a].rank - 2] : 0,
			       g->n[b].rank >= 1 ? g->n[b].dims[g->n[b].rank - 1] : 0};
		acc = sc_full(g, sg_float(g, 0.0, SDT_F32), dims, 2);
	}
	return sv_node(sc_mma(g, a, b, acc));
}

static const struct {
	const char *name;
	int fn;
} math_fns[] = {{"exp", SM_EXP},     {"exp2", SM_EXP2},   {"log", SM_LOG},   {"log2", SM_LOG2},
		{"sqrt", SM_SQRT},   {"sqrt_rn", SM_SQRT}, {"rsqrt", SM_RSQRT}, {"sin", SM_SIN},
		{"cos", SM_COS},     {"tan", SM_TAN},     {"sinh", SM_SINH}, {"cosh", SM_COSH},
		{"tanh", SM_TANH},   {"floor", SM_FLOOR}, {"ceil", SM_CEIL}, {"abs", SM_ABS}};

/* the function part of "ct.exp", "tl.math.exp", "tl.extra.cuda.libdevice.exp" */
static const char *fn_part(const char *api, const char *prefix)
{
	if (!str_starts(api, prefix))
		return NULL;
	const char *dot = strrchr(api, '.');
	return dot ? dot + 1 : NULL;
}

static struct sval math_call(struct pctx *c, const struct py_node *call, const char *fn, bool *handled)
{
	struct sgraph *g = c->g;
	for (size_t i = 0; i < TP_ARRAY_LEN(math_fns); i++)
		if (!strcmp(fn, math_fns[i].name)) {
			sid x = argn(c, call, 0, "x");
			if (math_fns[i].fn == SM_ABS && !sdt_is_float(sg_dt(g, x)) && g->n[x].op != S_FLOAT)
				return sv_node(ic_minmax(g, true, x, ic_neg(g, x)));
			return sv_node(fc_math(g, math_fns[i].fn, x, math_modes(c, call)));
		}
	if (!strcmp(fn, "sigmoid")) {
		sid x = argn(c, call, 0, "x");
		sid one = sg_float(g, 1.0, SDT_NONE);
		return sv_node(fc_div(g, one, fc_add(g, one, fc_math(g, SM_EXP, fc_neg(g, x), SHINT_NONE), SHINT_NONE),
				      SHINT_NONE));
	}
	*handled = false;
	return sv_kind(SV_UNKNOWN);
}

static struct sval full(struct pctx *c, const struct py_node *call, sid v, struct sval shape, struct sval dt)
{
	sid dims[SEM_MAX_RANK];
	int r;
	if (shape.k == SV_TUPLE && shape.nel == 0)
		r = 0;
	else if (!px_dims(c, shape, dims, &r)) {
		px_problem(c, call, "a shape the check does not follow");
		return sv_kind(SV_UNKNOWN);
	}
	int d = dt.k == SV_DTYPE ? dt.dt : SDT_F32;
	return sv_node(sc_full(c->g, sc_convert(c->g, v, d), dims, r));
}

struct sval px_api(struct pctx *c, const struct py_node *call, const char *api, bool *handled)
{
	struct sgraph *g = c->g;
	*handled = true;
	const char *fn;
	/* grid */
	if (!strcmp(api, "ct.bid") || !strcmp(api, "tl.program_id") || !strcmp(api, "ct.num_blocks") ||
	    !strcmp(api, "tl.num_programs")) {
		sid a = argn(c, call, 0, "axis");
		int64_t ax;
		if (!sg_is_int_lit(g, a, &ax)) {
			px_problem(c, call, "a grid axis that is not a constant");
			return sv_kind(SV_UNKNOWN);
		}
		bool bid = !strcmp(api, "ct.bid") || !strcmp(api, "tl.program_id");
		return sv_node(sg_leaf(g, bid ? S_BID : S_NBLOCKS, ax, SDT_I32));
	}
	if (!strcmp(api, "ct.num_tiles")) {
		struct sval av = argv_(c, call, 0, "array");
		sid ax = argn(c, call, 1, "axis");
		sid dims[SEM_MAX_RANK];
		int r;
		int64_t a;
		if (!is_array(c, av) || !sg_is_int_lit(g, ax, &a) || !px_dims(c, argv_(c, call, 2, "shape"), dims, &r) ||
		    a < 0 || a >= r) {
			px_problem(c, call, "ct.num_tiles the check does not follow");
			return sv_kind(SV_UNKNOWN);
		}
		return sv_node(ic_cdiv(g, shape_of(c, av.x, (int)a), dims[a]));
	}
	if (!strcmp(api, "ct.cdiv") || !strcmp(api, "tl.cdiv") || !strcmp(api, "triton.cdiv"))
		return sv_node(ic_cdiv(g, argn(c, call, 0, "x"), argn(c, call, 1, "y")));
	/* memory */
	if (!strcmp(api, "ct.load"))
		return ct_load(c, call);
	if (!strcmp(api, "ct.store"))
		return ct_store(c, call);
	if (!strcmp(api, "ct.gather"))
		return ct_gather(c, call);
	if (!strcmp(api, "ct.scatter"))
		return ct_scatter(c, call);
	if (!strcmp(api, "tl.load"))
		return tl_load(c, call);
	if (!strcmp(api, "tl.store"))
		return tl_store(c, call);
	if (!strcmp(api, "tl.make_block_ptr"))
		return block_ptr(c, call);
	if (!strcmp(api, "tl.advance")) {
		struct sval p = argv_(c, call, 0, "base");
		struct sval o = argv_(c, call, 1, "offsets");
		if (p.k != SV_BLOCKPTR || o.k != SV_TUPLE || (int)o.nel != p.rank) {
			px_problem(c, call, "tl.advance the check does not follow");
			return sv_kind(SV_UNKNOWN);
		}
		struct sval q = p;
		q.el = sa_alloc(g->arena, sizeof(struct sval) * (size_t)p.rank);
		for (int d = 0; d < p.rank; d++)
			q.el[d] = sv_node(ic_add(g, p.el[d].x, px_node(c, o.el[d], call)));
		return q;
	}
	/* tile constructors */
	if (!strcmp(api, "ct.arange")) {
		sid n = argn(c, call, 0, "size");
		struct sval dt = argv_(c, call, 1, "dtype");
		return sv_node(sc_iota(g, n, dt.k == SV_DTYPE ? dt.dt : SDT_I32));
	}
	if (!strcmp(api, "tl.arange")) {
		sid lo = argn(c, call, 0, "start"), hi = argn(c, call, 1, "end");
		sid n = ic_sub(g, hi, lo);
		return sv_node(ic_add(g, lo, sc_iota(g, n, SDT_I32)));
	}
	if (!strcmp(api, "ct.full") || !strcmp(api, "tl.full"))
		return full(c, call, argn(c, call, 1, "fill_value"), argv_(c, call, 0, "shape"), argv_(c, call, 2, "dtype"));
	if (!strcmp(api, "ct.zeros") || !strcmp(api, "tl.zeros") || !strcmp(api, "ct.ones"))
		return full(c, call, sg_float(g, api[3] == 'o' ? 1.0 : 0.0, SDT_NONE), argv_(c, call, 0, "shape"),
			    argv_(c, call, 1, "dtype"));
	/* shapes and types */
	if (!strcmp(api, "ct.astype") || !strcmp(api, "tl.cast"))
		return astype(c, call, argv_(c, call, 0, "x"), argv_(c, call, 1, "dtype"));
	if (!strcmp(api, "ct.reshape") || !strcmp(api, "tl.reshape") || !strcmp(api, "tl.view"))
		return reshape(c, call, argv_(c, call, 0, "x"), argv_(c, call, 1, "shape"));
	if (!strcmp(api, "ct.permute") || !strcmp(api, "tl.permute"))
		return permute(c, call, argv_(c, call, 0, "x"), argv_(c, call, 1, "axes"));
	if (!strcmp(api, "ct.transpose"))
		return swap_axes(c, call, argv_(c, call, 0, "x"), 1);
	if (!strcmp(api, "tl.trans"))
		return permute(c, call, argv_(c, call, 0, "x"), has(call, 1, "dims") ? argv_(c, call, 1, "dims")
										       : sv_kind(SV_NONEV));
	if (!strcmp(api, "ct.expand_dims") || !strcmp(api, "tl.expand_dims"))
		return expand_dims(c, call, argv_(c, call, 0, "x"), argv_(c, call, 1, "axis"));
	if (!strcmp(api, "ct.broadcast_to") || !strcmp(api, "tl.broadcast_to")) {
		sid dims[SEM_MAX_RANK];
		int r;
		sid x = argn(c, call, 0, "x");
		if (!px_dims(c, argv_(c, call, 1, "shape"), dims, &r)) {
			px_problem(c, call, "a shape the check does not follow");
			return sv_kind(SV_UNKNOWN);
		}
		return sv_node(sc_broadcast(g, x, dims, r));
	}
	/* matrix products and reductions */
	if (!strcmp(api, "ct.mma")) {
		sid a = argn(c, call, 0, "x"), b = argn(c, call, 1, "y"), acc = argn(c, call, 2, "acc");
		return sv_node(sc_mma(g, a, b, acc));
	}
	if (!strcmp(api, "ct.matmul"))
		return sv_node(sc_mma(g, argn(c, call, 0, "x"), argn(c, call, 1, "y"), 0));
	if (!strcmp(api, "tl.dot"))
		return dot(c, call);
	if (!strcmp(api, "ct.cumsum") || !strcmp(api, "tl.cumsum"))
		return cumsum(c, call, argv_(c, call, 0, "x"));
	if (!strcmp(api, "ct.extract"))
		return extract(c, call, argv_(c, call, 0, "x"), 1);
	static const char *const reds[] = {"sum", "max", "min", "prod"};
	for (int k = 0; k < 4; k++)
		if ((fn = fn_part(api, "ct.")) && !strcmp(fn, reds[k]) && !strchr(api + 3, '.'))
			return reduction(c, call, k, argv_(c, call, 0, "x"), 1);
	for (int k = 0; k < 3; k++)
		if ((fn = fn_part(api, "tl.")) && !strcmp(fn, reds[k]) && !strchr(api + 3, '.'))
			return reduction(c, call, k, argv_(c, call, 0, "input"), 1);
	/* element-wise */
	if (!strcmp(api, "ct.where") || !strcmp(api, "tl.where")) {
		sid cnd = argn(c, call, 0, "condition");
		sid a = argn(c, call, 1, "x"), b = argn(c, call, 2, "y");
		/* literals on both sides: the default float type */
		if (g->n[a].op == S_FLOAT && g->n[a].dt == SDT_NONE)
			a = sg_float(g, g->n[a].fval, g->n[b].op == S_FLOAT ? SDT_F32 : sg_dt(g, b));
		if (g->n[b].op == S_FLOAT && g->n[b].dt == SDT_NONE)
			b = sg_float(g, g->n[b].fval, sg_dt(g, a) != SDT_NONE ? sg_dt(g, a) : SDT_F32);
		if (sdt_is_float(sg_dt(g, a)) && g->n[b].op == S_INT)
			b = sg_float(g, (double)g->n[b].ival, sg_dt(g, a));
		if (sdt_is_float(sg_dt(g, b)) && g->n[a].op == S_INT)
			a = sg_float(g, (double)g->n[a].ival, sg_dt(g, b));
		return sv_node(sc_select(g, cnd, a, b));
	}
	if (!strcmp(api, "ct.maximum") || !strcmp(api, "ct.minimum") || !strcmp(api, "tl.maximum") ||
	    !strcmp(api, "tl.minimum"))
		return sv_node(sc_minmax(g, strstr(api, "max") != NULL, argn(c, call, 0, "x"), argn(c, call, 1, "y"),
					 math_modes(c, call)));
	if (!strcmp(api, "min") || !strcmp(api, "max")) {
		size_t n = py_call_nargs(call);
		sid acc = argn(c, call, 0, "x");
		for (size_t i = 1; i < n; i++)
			acc = sc_minmax(g, api[1] == 'a', acc, argn(c, call, i, "y"), SHINT_NONE);
		return sv_node(acc);
	}
	if (!strcmp(api, "ct.truediv") || !strcmp(api, "tl.fdiv") || !strcmp(api, "tl.div_rn"))
		return sv_node(fc_div(g, argn(c, call, 0, "x"), argn(c, call, 1, "y"), math_modes(c, call)));
	if (!strcmp(api, "ct.add") || !strcmp(api, "ct.sub") || !strcmp(api, "ct.mul")) {
		int op = api[3] == 'a' ? '+' : api[3] == 's' ? '-' : '*';
		return sv_node(sc_arith(g, op, argn(c, call, 0, "x"), argn(c, call, 1, "y"), math_modes(c, call)));
	}
	if (!strcmp(api, "ct.negative")) {
		sid x = argn(c, call, 0, "x");
		return sv_node(sdt_is_float(sg_dt(g, x)) ? fc_neg(g, x) : ic_neg(g, x));
	}
	if (str_starts(api, "ct.bitwise_")) {
		/* the operators' codes of px_binop */
		static const struct {
			const char *name;
			int op;
		} bits[] = {{"and", '&'}, {"or", '|'}, {"xor", 'x'}, {"lshift", '<'}, {"rshift", '>'}};
		for (size_t i = 0; i < TP_ARRAY_LEN(bits); i++)
			if (!strcmp(api + 11, bits[i].name))
				return px_binop(c, bits[i].op, argv_(c, call, 0, "x"), argv_(c, call, 1, "y"), call);
	}
	if (!strcmp(api, "ct.pow"))
		return sv_node(fc_binary(g, S_POW, argn(c, call, 0, "x"), argn(c, call, 1, "y")));
	if ((fn = fn_part(api, "ct.")) || (fn = fn_part(api, "tl.")) || (fn = fn_part(api, "libdevice."))) {
		if (strncmp(api, "ct.", 3) || !strchr(api + 3, '.')) {
			struct sval r = math_call(c, call, fn, handled);
			if (*handled)
				return r;
			*handled = true;
		}
	}
	/* hints and assumptions */
	if (!strcmp(api, "ct.assume_divisible_by") || !strcmp(api, "tl.multiple_of")) {
		struct sval x = argv_(c, call, 0, "x");
		int64_t d;
		sid dv = argn(c, call, 1, "divisor");
		if (x.k == SV_NODE && g->n[x.x].op == S_PARAM && sg_is_int_lit(g, dv, &d))
			sside_assume(c->side, (int)g->n[x.x].ival, SA_DIV_BY, d, call->line);
		return x;
	}
	if (!strcmp(api, "tl.max_contiguous") || !strcmp(api, "tl.max_constancy"))
		return argv_(c, call, 0, "x");
	if (!strcmp(api, "ct.static_assert") || !strcmp(api, "tl.static_assert") || !strcmp(api, "print") ||
	    !strcmp(api, "tl.device_print") || !strcmp(api, "tl.static_print"))
		return sv_kind(SV_VOID);
	/* Python builtins and math on constants */
	if (!strcmp(api, "float") || !strcmp(api, "int")) {
		struct sval v = argv_(c, call, 0, "x");
		if (v.k == SV_STR) {
			const char *s = v.name;
			bool neg = s[0] == '-';
			if (!strcmp(s + neg, "inf") || !strcmp(s + neg, "infinity"))
				return sv_node(sg_float(g, neg ? -INFINITY : INFINITY, SDT_NONE));
			if (!strcmp(s, "nan"))
				return sv_node(sg_float(g, NAN, SDT_NONE));
		}
		sid x = px_node(c, v, call);
		if (api[0] == 'f')
			return sv_node(g->n[x].op == S_INT ? sg_float(g, (double)g->n[x].ival, SDT_NONE) : sc_convert(g, x, SDT_F32));
		return sv_node(sc_convert(g, x, SDT_I32));
	}
	if (!strcmp(api, "abs")) {
		sid x = argn(c, call, 0, "x");
		return sv_node(sdt_is_float(sg_dt(g, x)) || g->n[x].op == S_FLOAT ? fc_math(g, SM_ABS, x, SHINT_NONE)
										 : ic_minmax(g, true, x, ic_neg(g, x)));
	}
	if ((fn = fn_part(api, "math."))) {
		sid x = argn(c, call, 0, "x");
		double v;
		if (sg_is_float_lit(g, x, &v)) {
			double r = !strcmp(fn, "log") ? log(v) : !strcmp(fn, "log2") ? log2(v) : !strcmp(fn, "sqrt") ? sqrt(v)
				 : !strcmp(fn, "exp") ? exp(v) : NAN;
			if (!isnan(r))
				return sv_node(sg_float(g, r, SDT_NONE));
		}
		px_problem(c, call, "%s of a value that is not a constant", api);
		return sv_kind(SV_UNKNOWN);
	}
	*handled = false;
	return sv_kind(SV_UNKNOWN);
}

struct sval px_method(struct pctx *c, const struct py_node *call, struct sval recv, const char *name,
		      bool *handled)
{
	*handled = true;
	if (!strcmp(name, "astype") || !strcmp(name, "to"))
		return astype(c, call, recv, argv_(c, call, 0, "dtype"));
	if (!strcmp(name, "reshape") || !strcmp(name, "view")) {
		size_t n = py_call_nargs(call);
		if (n > 1) {
			/* x.reshape(a, b) */
			struct sval el[SEM_MAX_RANK];
			for (size_t i = 0; i < n && i < SEM_MAX_RANK; i++)
				el[i] = argv_(c, call, i, "shape");
			return reshape(c, call, recv, sv_tuple(c->g, el, n < SEM_MAX_RANK ? n : SEM_MAX_RANK));
		}
		return reshape(c, call, recv, argv_(c, call, 0, "shape"));
	}
	if (!strcmp(name, "permute"))
		return permute(c, call, recv, argv_(c, call, 0, "axes"));
	if (!strcmp(name, "transpose"))
		return swap_axes(c, call, recv, 0);
	if (!strcmp(name, "expand_dims"))
		return expand_dims(c, call, recv, argv_(c, call, 0, "axis"));
	if (!strcmp(name, "extract"))
		return extract(c, call, recv, 0);
	if (!strcmp(name, "item")) { /* the one element: a 0-d value */
		sid none[1] = {0};
		return sv_node(sc_reshape(c->g, px_node(c, recv, call), none, 0));
	}
	static const char *const reds[] = {"sum", "max", "min", "prod"};
	for (int k = 0; k < 4; k++)
		if (!strcmp(name, reds[k]))
			return reduction(c, call, k, recv, 0);
	*handled = false;
	return sv_kind(SV_UNKNOWN);
}
