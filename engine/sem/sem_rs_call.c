/* The cuTile Rust API as the Rust reader sees it: what each function and
 * method of cutile::core computes, in graph nodes, with the modes its
 * arguments give (rounding, flush-to-zero, NaN propagation, latency, TMA,
 * padding, ordering). The semantics follow the cutile 0.2.0 crate
 * (cutile/src/_core.rs and cutile-compiler): `true_div` is an approximate,
 * flush-to-zero division on f32, `Tensor::partition` pads with zero,
 * `Partition::load` has no latency and allows TMA. */
#include "engine/sem/sem_rsx.h"

#include <stdlib.h>
#include <string.h>

static struct sval arg(struct rctx *c, const struct rnode *call, size_t i)
{
	/* a call's kids: the callee, then the arguments; a method's: the
	 * receiver, then the arguments */
	if (1 + i >= call->nkids)
		return sv_kind(SV_NONEV);
	return rx_expr(c, call->kids[1 + i]);
}

static sid arg_node(struct rctx *c, const struct rnode *call, size_t i)
{
	return rx_node(c, arg(c, call, i), call);
}

static size_t nargs(const struct rnode *call)
{
	return call->nkids - 1;
}

bool rx_dims(struct rctx *c, struct sval v, sid *dims, int *rank)
{
	if (v.k != SV_TUPLE || v.nel > SEM_MAX_RANK)
		return false;
	for (size_t i = 0; i < v.nel; i++) {
		if (v.el[i].k != SV_NODE)
			return false;
		dims[i] = v.el[i].x;
	}
	*rank = (int)v.nel;
	(void)c;
	return true;
}

static bool shape_arg(struct rctx *c, const struct rnode *call, size_t i, sid *dims, int *rank)
{
	if (!rx_dims(c, arg(c, call, i), dims, rank)) {
		rx_problem(c, call, "a shape that is not const_shape![...]");
		return false;
	}
	return true;
}

static bool int_list(struct rctx *c, struct sval v, int *out, int *n)
{
	if (v.k != SV_TUPLE || v.nel > SEM_MAX_RANK)
		return false;
	for (size_t i = 0; i < v.nel; i++) {
		int64_t x;
		if (v.el[i].k != SV_NODE || !sg_is_int_lit(c->g, v.el[i].x, &x))
			return false;
		out[i] = (int)x;
	}
	*n = (int)v.nel;
	return true;
}

static bool enum_is(struct sval v, const char *name)
{
	return v.k == SV_ENUM && v.name && strcmp(v.name, name) == 0;
}

/* ---- modes ---- */

static int ftz_of(struct sval v)
{
	return enum_is(v, "Enabled") ? 1 : enum_is(v, "Disabled") ? 0 : -1;
}

static int rnd_of(struct sval v)
{
	static const struct {
		const char *name;
		int rnd;
	} r[] = {{"NearestEven", RND_NEAREST}, {"Approx", RND_APPROX}, {"Full", RND_FULL},
		 {"Zero", RND_ZERO},           {"NegativeInf", RND_NEG_INF}, {"PositiveInf", RND_POS_INF},
		 {"NearestIntToZero", RND_ZERO}};
	for (size_t i = 0; i < TP_ARRAY_LEN(r); i++)
		if (enum_is(v, r[i].name))
			return r[i].rnd;
	return -1;
}

static int pad_of(struct sval v)
{
	static const struct {
		const char *name;
		int pad;
	} p[] = {{"None", SP_UNDETERMINED}, {"Zero", SP_ZERO},     {"NegZero", SP_NEG_ZERO},
		 {"Nan", SP_NAN},           {"PosInf", SP_POS_INF}, {"NegInf", SP_NEG_INF}};
	if (v.k == SV_NONEV)
		return SP_UNDETERMINED;
	for (size_t i = 0; i < TP_ARRAY_LEN(p); i++)
		if (enum_is(v, p[i].name))
			return p[i].pad;
	return -1;
}

/* Some(n) / None, or Latency::<N> */
static int latency_of(struct rctx *c, struct sval v)
{
	int64_t x;
	if (v.k == SV_SOME && v.nel && v.el[0].k == SV_NODE && sg_is_int_lit(c->g, v.el[0].x, &x))
		return (int)x;
	if (v.k == SV_ENUM && v.ref) {
		const struct rnode *p = v.ref;
		if (p->gen && p->gen->nkids && p->gen->kids[0]->kind == RN_INT)
			return p->gen->kids[0]->ival > 0 ? (int)p->gen->kids[0]->ival : -1;
	}
	return -1;
}

/* The element type of a partition or pointer's array. */
static int arr_dt(struct rctx *c, sid arr)
{
	const struct snode *n = &c->g->n[arr];
	if (n->op == S_PARAM)
		return c->g->params[n->ival].dt;
	return SDT_E;
}

static struct sval part(struct rctx *c, sid arr, const sid *dims, int rank, int pad, const int *order)
{
	struct sval p = sv_kind(SV_PART);
	p.arr = arr;
	p.rank = rank;
	memcpy(p.dims, dims, sizeof(sid) * (size_t)rank);
	p.pad = pad;
	if (order) {
		memcpy(p.order, order, sizeof(int) * (size_t)rank);
		p.has_order = true;
	}
	(void)c;
	return p;
}

static sid view_load(struct rctx *c, const struct rnode *call, struct sval pv, struct sval idx,
		     struct shint h)
{
	if (pv.k != SV_PART) {
		rx_problem(c, call, "a load from something other than a partition view");
		return sg_undef(c->g, SDT_NONE);
	}
	sid ix[SEM_MAX_RANK];
	int n;
	if (!rx_dims(c, idx, ix, &n)) {
		rx_problem(c, call, "a load index that is not a list of scalars");
		return sg_undef(c->g, SDT_NONE);
	}
	return sc_load(c->g, pv.arr, ix, n, pv.dims, pv.rank, pv.pad, pv.has_order ? pv.order : NULL, h,
		       arr_dt(c, pv.arr));
}

static void view_store(struct rctx *c, const struct rnode *call, struct sval pv, sid tile, struct sval idx,
		       struct shint h)
{
	if (pv.k != SV_PART) {
		rx_problem(c, call, "a store to something other than a partition view");
		return;
	}
	struct seffect e;
	memset(&e, 0, sizeof(e));
	e.kind = SE_STORE;
	e.array = pv.arr;
	sid ix[SEM_MAX_RANK];
	int n;
	if (!rx_dims(c, idx, ix, &n)) {
		rx_problem(c, call, "a store index that is not a list of scalars");
		return;
	}
	e.idx = sa_alloc(c->g->arena, sizeof(sid) * (size_t)(n ? n : 1));
	memcpy(e.idx, ix, sizeof(sid) * (size_t)n);
	e.nidx = (size_t)n;
	e.rank = pv.rank;
	memcpy(e.dims, pv.dims, sizeof(sid) * (size_t)pv.rank);
	e.value = tile;
	e.cond = c->cond;
	e.loop = c->loop;
	e.h = h;
	e.line = call->line;
	sg_add_effect(c->g, &e);
}

static sid ptr_offset(struct rctx *c, struct sval p)
{
	sid off = p.x ? p.x : sg_int(c->g, 0);
	const struct snode *o = &c->g->n[off];
	if (p.rank && !sg_dims_eq(o->dims, o->rank, p.dims, p.rank))
		off = sc_broadcast(c->g, off, p.dims, p.rank);
	return off;
}

static sid some_node(struct rctx *c, struct sval v, const struct rnode *at)
{
	if (v.k == SV_NONEV)
		return 0;
	return rx_node(c, v, at);
}

/* the turbofish constant of `assume_div_by::<_, 16>` */
static long long turbofish_int(const struct rnode *call, size_t k)
{
	const struct rnode *callee = call->kids[0];
	if (!callee->gen || callee->gen->nkids <= k)
		return -1;
	const struct rnode *a = callee->gen->kids[k];
	if (a->kind == RN_INT)
		return a->ival;
	if (a->kind == RN_UNARY && a->op == '-' && a->kids[0]->kind == RN_INT)
		return -a->kids[0]->ival;
	return -1;
}

static struct sval assume(struct rctx *c, const struct rnode *call, int kind)
{
	struct sval v = arg(c, call, 0);
	if (v.k == SV_NODE && c->g->n[v.x].op == S_PARAM)
		sside_assume(c->side, (int)c->g->n[v.x].ival, kind, turbofish_int(call, kind == SA_BOUNDS_UPPER ? 1 : 1),
			     call->line);
	return v;
}

static const struct {
	const char *name;
	int fn;
} math_fns[] = {{"exp", SM_EXP},   {"exp2", SM_EXP2}, {"log", SM_LOG},   {"log2", SM_LOG2},
		{"sqrt", SM_SQRT}, {"rsqrt", SM_RSQRT}, {"sin", SM_SIN}, {"cos", SM_COS},
		{"tan", SM_TAN},   {"sinh", SM_SINH}, {"cosh", SM_COSH}, {"tanh", SM_TANH},
		{"ceil", SM_CEIL}, {"floor", SM_FLOOR}, {"absf", SM_ABS}, {"absi", SM_ABS}};

static const struct {
	const char *name;
	int op;
} cmp_fns[] = {{"eq_tile", '='}, {"ne_tile", '!'}, {"gt_tile", '>'},
	       {"ge_tile", 'g'}, {"lt_tile", '<'}, {"le_tile", 'l'}};

static int predicate(struct sval v)
{
	static const struct {
		const char *name;
		int op;
	} p[] = {{"Equal", '='},        {"NotEqual", '!'}, {"LessThan", '<'},
		 {"LessThanOrEqual", 'l'}, {"GreaterThan", '>'}, {"GreaterThanOrEqual", 'g'}};
	for (size_t i = 0; i < TP_ARRAY_LEN(p); i++)
		if (enum_is(v, p[i].name))
			return p[i].op;
	return 0;
}

static struct sval convert(struct rctx *c, const struct rnode *call)
{
	sid x = arg_node(c, call, 0);
	int dt = c->want_dt;
	return sv_node(dt == SDT_NONE ? x : sc_convert(c->g, x, dt));
}

struct sval rx_call(struct rctx *c, const struct rnode *call, const char *name, bool *handled)
{
	struct sgraph *g = c->g;
	*handled = true;
	size_t na = nargs(call);
	sid dims[SEM_MAX_RANK];
	int rank;
	/* block ids */
	if (!strcmp(name, "get_tile_block_id") || !strcmp(name, "get_num_tile_blocks")) {
		struct sval el[3];
		for (int i = 0; i < 3; i++)
			el[i] = sv_node(sg_leaf(g, name[4] == 't' ? S_BID : S_NBLOCKS, i, SDT_I32));
		return sv_tuple(g, el, 3);
	}
	if (!strcmp(name, "scalar_to_tile") || !strcmp(name, "tile_to_scalar"))
		return arg(c, call, 0);
	if (!strcmp(name, "convert_tile") || !strcmp(name, "convert_scalar") || !strcmp(name, "exti") ||
	    !strcmp(name, "trunci") || !strcmp(name, "ftof") || !strcmp(name, "itof") ||
	    !strcmp(name, "ftoi"))
		return convert(c, call);
	if (!strcmp(name, "iota")) {
		if (!shape_arg(c, call, 0, dims, &rank) || rank != 1)
			return sv_kind(SV_UNKNOWN);
		return sv_node(sc_iota(g, dims[0], c->want_dt ? c->want_dt : SDT_I32));
	}
	if (!strcmp(name, "constant") || !strcmp(name, "broadcast_scalar")) {
		sid v = arg_node(c, call, 0);
		if (!shape_arg(c, call, 1, dims, &rank))
			return sv_kind(SV_UNKNOWN);
		if (c->want_dt && (g->n[v].op == S_FLOAT || g->n[v].op == S_INT))
			v = sc_convert(g, v, c->want_dt);
		return sv_node(sc_full(g, v, dims, rank));
	}
	if (!strcmp(name, "broadcast") || !strcmp(name, "reshape")) {
		sid v = arg_node(c, call, 0);
		if (!shape_arg(c, call, 1, dims, &rank))
			return sv_kind(SV_UNKNOWN);
		return sv_node(name[0] == 'b' ? sc_broadcast(g, v, dims, rank) : sc_reshape(g, v, dims, rank));
	}
	if (!strcmp(name, "permute")) {
		sid v = arg_node(c, call, 0);
		int perm[SEM_MAX_RANK], n;
		if (!int_list(c, arg(c, call, 1), perm, &n)) {
			rx_problem(c, call, "a permutation that is not const_array![...]");
			return sv_kind(SV_UNKNOWN);
		}
		return sv_node(sc_permute(g, v, perm, n));
	}
	if (!strcmp(name, "select"))
		return sv_node(sc_select(g, arg_node(c, call, 0), arg_node(c, call, 1), arg_node(c, call, 2)));
	if (str_starts(name, "reduce_")) {
		static const char *const kinds[] = {"sum", "max", "min", "prod"};
		for (int k = 0; k < 4; k++)
			if (!strcmp(name + 7, kinds[k])) {
				sid x = arg_node(c, call, 0);
				int64_t axis;
				sid a = arg_node(c, call, 1);
				if (!sg_is_int_lit(g, a, &axis)) {
					rx_problem(c, call, "a reduction axis that is not a constant");
					return sv_kind(SV_UNKNOWN);
				}
				return sv_node(sc_reduce(g, k, x, (int)axis));
			}
	}
	if (!strcmp(name, "scan_sum")) {
		/* cutile 0.2.0 scans axis 0 whatever its dim argument says (its
		 * compile_scan_op writes dim=0) */
		sid x = arg_node(c, call, 0);
		return sv_node(sc_scan_sum(g, x, 0, enum_is(arg(c, call, 2), "Reverse")));
	}
	if (!strcmp(name, "extract")) {
		sid x = arg_node(c, call, 0);
		struct sval ix = arg(c, call, 1);
		/* the sub-tile's shape is the declared one: `let s: Tile<E, { [1, H] }>` */
		const struct rnode *t = c->want_type;
		bool ok = ix.k == SV_TUPLE && ix.nel <= SEM_MAX_RANK && t && t->kind == RN_TYPE &&
			  rx_name_is(t, "Tile") && t->nkids >= 2 && t->kids[1]->kind == RN_BLOCK &&
			  t->kids[1]->nkids && t->kids[1]->kids[0]->kind == RN_EXPR &&
			  t->kids[1]->kids[0]->nkids && t->kids[1]->kids[0]->kids[0]->kind == RN_ARRAY;
		if (ok)
			ok = rx_dims(c, rx_expr(c, t->kids[1]->kids[0]->kids[0]), dims, &rank) &&
			     (size_t)rank == ix.nel;
		if (!ok) {
			rx_problem(c, call, "an extract whose sub-tile shape the check does not see");
			return sv_kind(SV_UNKNOWN);
		}
		sid idx[SEM_MAX_RANK];
		for (int i = 0; i < rank; i++)
			idx[i] = rx_node(c, ix.el[i], call);
		return sv_node(sc_extract(g, x, idx, rank, dims, rank));
	}
	if (!strcmp(name, "mmaf") || !strcmp(name, "mmai") || !strcmp(name, "mma"))
		return sv_node(sc_mma(g, arg_node(c, call, 0), arg_node(c, call, 1), arg_node(c, call, 2)));
	/* arithmetic with modes */
	if (!strcmp(name, "addf") || !strcmp(name, "subf") || !strcmp(name, "mulf") || !strcmp(name, "divf")) {
		sid a = arg_node(c, call, 0), b = arg_node(c, call, 1);
		struct shint h = SHINT_NONE;
		if (na >= 3)
			h.rnd = (int8_t)rnd_of(arg(c, call, 2));
		if (na >= 4)
			h.ftz = (int8_t)ftz_of(arg(c, call, 3));
		int op = name[0] == 'a' ? '+' : name[0] == 's' ? '-' : name[0] == 'm' ? '*' : '/';
		return sv_node(sc_arith(g, op, a, b, h));
	}
	if (!strcmp(name, "addi") || !strcmp(name, "subi") || !strcmp(name, "muli") || !strcmp(name, "divi") ||
	    !strcmp(name, "remi") || !strcmp(name, "remf")) {
		sid a = arg_node(c, call, 0), b = arg_node(c, call, 1);
		int op = name[0] == 'a' ? '+' : name[0] == 's' ? '-' : name[0] == 'm' ? '*' : name[0] == 'd' ? 'd' : '%';
		return sv_node(sc_arith(g, op, a, b, SHINT_NONE));
	}
	if (!strcmp(name, "true_div")) {
		sid a = arg_node(c, call, 0), b = arg_node(c, call, 1);
		struct shint h = SHINT_NONE;
		h.rnd = RND_APPROX;
		int dt = sg_dt(g, a);
		if (dt == SDT_F32 || (dt == SDT_E && g->cs && g->cs->e_is_f32))
			h.ftz = 1;
		return sv_node(fc_div(g, a, b, h));
	}
	if (!strcmp(name, "ceil_div"))
		return sv_node(ic_cdiv(g, arg_node(c, call, 0), arg_node(c, call, 1)));
	if (!strcmp(name, "negf") || !strcmp(name, "negi")) {
		sid a = arg_node(c, call, 0);
		return sv_node(sdt_is_float(sg_dt(g, a)) ? fc_neg(g, a) : ic_neg(g, a));
	}
	if (!strcmp(name, "maxf") || !strcmp(name, "minf") || !strcmp(name, "maxi") || !strcmp(name, "mini") ||
	    !strcmp(name, "max_tile") || !strcmp(name, "min_tile") || !strcmp(name, "max") || !strcmp(name, "min")) {
		sid a = arg_node(c, call, 0), b = arg_node(c, call, 1);
		struct shint h = SHINT_NONE;
		if (na >= 3)
			h.nan = (int8_t)ftz_of(arg(c, call, 2));
		if (na >= 4)
			h.ftz = (int8_t)ftz_of(arg(c, call, 3));
		return sv_node(sc_minmax(g, name[1] == 'a', a, b, h));
	}
	if (!strcmp(name, "fma")) {
		sid a = arg_node(c, call, 0), b = arg_node(c, call, 1), d = arg_node(c, call, 2);
		struct shint h = SHINT_NONE;
		if (na >= 4)
			h.rnd = (int8_t)rnd_of(arg(c, call, 3));
		if (na >= 5)
			h.ftz = (int8_t)ftz_of(arg(c, call, 4));
		return sv_node(fc_fma(g, a, b, d, h));
	}
	if (!strcmp(name, "pow"))
		return sv_node(fc_binary(g, S_POW, arg_node(c, call, 0), arg_node(c, call, 1)));
	if (!strcmp(name, "atan2"))
		return sv_node(fc_binary(g, S_ATAN2, arg_node(c, call, 0), arg_node(c, call, 1)));
	for (size_t i = 0; i < TP_ARRAY_LEN(math_fns); i++)
		if (!strcmp(name, math_fns[i].name)) {
			sid a = arg_node(c, call, 0);
			struct shint h = SHINT_NONE;
			if (math_fns[i].fn == SM_SQRT && na >= 3) {
				h.rnd = (int8_t)rnd_of(arg(c, call, 1));
				h.ftz = (int8_t)ftz_of(arg(c, call, 2));
			} else if (na >= 2) {
				h.ftz = (int8_t)ftz_of(arg(c, call, 1));
			}
			if (math_fns[i].fn == SM_ABS && !sdt_is_float(sg_dt(g, a)))
				return sv_node(ic_minmax(g, true, a, ic_neg(g, a)));
			return sv_node(fc_math(g, math_fns[i].fn, a, h));
		}
	/* comparisons and logic */
	if (!strcmp(name, "cmpi") || !strcmp(name, "cmpf")) {
		sid a = arg_node(c, call, 0), b = arg_node(c, call, 1);
		int op = predicate(arg(c, call, 2));
		if (!op) {
			rx_problem(c, call, "a comparison predicate the check does not know");
			return sv_kind(SV_UNKNOWN);
		}
		return sv_node(sc_cmp(g, op, a, b));
	}
	for (size_t i = 0; i < TP_ARRAY_LEN(cmp_fns); i++)
		if (!strcmp(name, cmp_fns[i].name))
			return sv_node(sc_cmp(g, cmp_fns[i].op, arg_node(c, call, 0), arg_node(c, call, 1)));
	if (!strcmp(name, "andi") || !strcmp(name, "ori") || !strcmp(name, "xori")) {
		sid a = arg_node(c, call, 0), b = arg_node(c, call, 1);
		if (sg_dt(g, a) == SDT_BOOL)
			return sv_node(name[0] == 'a' ? bc_and(g, a, b) : name[0] == 'o' ? bc_or(g, a, b) : bc_xor(g, a, b));
		return sv_node(ic_bit(g, name[0] == 'a' ? '&' : name[0] == 'o' ? '|' : '^', a, b));
	}
	if (!strcmp(name, "noti")) {
		sid a = arg_node(c, call, 0);
		return sv_node(sg_dt(g, a) == SDT_BOOL ? bc_not(g, a) : ic_bit(g, '~', a, 0));
	}
	if (!strcmp(name, "shli") || !strcmp(name, "shri"))
		return sv_node(ic_bit(g, name[2] == 'l' ? '<' : '>', arg_node(c, call, 0), arg_node(c, call, 1)));
	/* memory */
	if (!strcmp(name, "make_partition_view") || !strcmp(name, "make_partition_view_mut")) {
		sid arr = arg_node(c, call, 0);
		if (!shape_arg(c, call, 1, dims, &rank))
			return sv_kind(SV_UNKNOWN);
		int pad = pad_of(arg(c, call, 2));
		int order[SEM_MAX_RANK], n = 0;
		/* the mutable form has no dim map */
		bool mut = !strcmp(name, "make_partition_view_mut");
		struct sval dm = mut ? sv_kind(SV_ENUM) : arg(c, call, 3);
		bool has = int_list(c, dm, order, &n) && n == rank;
		return part(c, arr, dims, rank, pad < 0 ? SP_UNDETERMINED : pad, has ? order : NULL);
	}
	if (!strcmp(name, "load_view_tko") || !strcmp(name, "load_view_tko_mut")) {
		struct sval pv = arg(c, call, 0);
		struct shint h = SHINT_NONE;
		h.latency = (int16_t)latency_of(c, arg(c, call, 4));
		h.tma = (int8_t)ftz_of(arg(c, call, 5));
		return sv_node(view_load(c, call, pv, arg(c, call, 1), h));
	}
	if (!strcmp(name, "store_view_tko_mut") || !strcmp(name, "store_view_tko")) {
		struct sval pv = arg(c, call, 0);
		sid tile = arg_node(c, call, 1);
		struct shint h = SHINT_NONE;
		h.latency = (int16_t)latency_of(c, arg(c, call, 5));
		h.tma = (int8_t)ftz_of(arg(c, call, 6));
		view_store(c, call, pv, tile, arg(c, call, 2), h);
		return sv_kind(SV_TOKEN);
	}
	if (!strcmp(name, "load_tile")) {
		sid arr = arg_node(c, call, 0);
		if (!shape_arg(c, call, 1, dims, &rank))
			return sv_kind(SV_UNKNOWN);
		return sv_node(view_load(c, call, part(c, arr, dims, rank, SP_ZERO, NULL), arg(c, call, 2), SHINT_NONE));
	}
	if (!strcmp(name, "get_index_space_shape")) {
		struct sval pv = arg(c, call, 0);
		if (pv.k != SV_PART) {
			rx_problem(c, call, "get_index_space_shape of something other than a partition view");
			return sv_kind(SV_UNKNOWN);
		}
		struct sval el[SEM_MAX_RANK];
		for (int i = 0; i < pv.rank; i++) {
			struct snode p;
			memset(&p, 0, sizeof(p));
			p.op = S_SHAPE;
			p.dt = SDT_I32;
			p.ival = pv.has_order ? pv.order[i] : i;
			p.h = SHINT_NONE;
			sid ext = sg_node(g, &p, &pv.arr, 1);
			el[i] = sv_node(ic_cdiv(g, ext, pv.dims[i]));
		}
		return sv_tuple(g, el, (size_t)pv.rank);
	}
	if (!strcmp(name, "get_tensor_shape") || !strcmp(name, "get_tensor_shape_meta")) {
		struct sval s = sv_kind(SV_SHAPEV);
		s.arr = arg_node(c, call, 0);
		return s;
	}
	if (!strcmp(name, "num_tiles")) {
		struct sval pv = arg(c, call, 0);
		int64_t ax;
		if (pv.k != SV_PART || !sg_is_int_lit(g, arg_node(c, call, 1), &ax) || ax < 0 || ax >= pv.rank) {
			rx_problem(c, call, "num_tiles the check does not follow");
			return sv_kind(SV_UNKNOWN);
		}
		struct snode p;
		memset(&p, 0, sizeof(p));
		p.op = S_SHAPE;
		p.dt = SDT_I32;
		p.ival = pv.has_order ? pv.order[ax] : ax;
		p.h = SHINT_NONE;
		return sv_node(ic_cdiv(g, sg_node(g, &p, &pv.arr, 1), pv.dims[ax]));
	}
	if (!strcmp(name, "get_tensor_token") || !strcmp(name, "new_token_unordered") ||
	    !strcmp(name, "join_tokens") || !strcmp(name, "get_partition_token") ||
	    !strcmp(name, "get_partition_token_mut"))
		return sv_kind(SV_TOKEN);
	if (!strcmp(name, "check_partition_access"))
		return sv_kind(SV_VOID);
	if (!strcmp(name, "pointer_to_tile")) {
		struct sval p = sv_kind(SV_PTR);
		p.arr = arg_node(c, call, 0);
		p.x = sg_int(g, 0);
		return p;
	}
	if (!strcmp(name, "make_tensor_view")) {
		/* a view of a pointer parameter built as cutile's entry builds
		 * one for a &Tensor: the array itself */
		struct sval p = arg(c, call, 0);
		int64_t off;
		if (p.k != SV_PTR || !sg_is_int_lit(g, p.x, &off) || off != 0) {
			rx_problem(c, call, "a tensor view of something other than a pointer parameter");
			return sv_kind(SV_UNKNOWN);
		}
		return sv_node(p.arr);
	}
	if (!strcmp(name, "load_ptr_tko")) {
		struct sval p = arg(c, call, 0);
		if (p.k != SV_PTR) {
			rx_problem(c, call, "a pointer load from something other than a pointer tile");
			return sv_kind(SV_UNKNOWN);
		}
		sid mask = some_node(c, arg(c, call, 3), call);
		sid pad = some_node(c, arg(c, call, 4), call);
		struct shint h = SHINT_NONE;
		h.latency = (int16_t)latency_of(c, arg(c, call, 6));
		struct sval el[2] = {sv_node(sc_gather(g, p.arr, ptr_offset(c, p), mask, pad, h, arr_dt(c, p.arr))),
				     sv_kind(SV_TOKEN)};
		return sv_tuple(g, el, 2);
	}
	if (!strcmp(name, "store_ptr_tko")) {
		struct sval p = arg(c, call, 0);
		if (p.k != SV_PTR) {
			rx_problem(c, call, "a pointer store to something other than a pointer tile");
			return sv_kind(SV_UNKNOWN);
		}
		struct seffect e;
		memset(&e, 0, sizeof(e));
		e.kind = SE_SCATTER;
		e.array = p.arr;
		e.offset = ptr_offset(c, p);
		e.value = arg_node(c, call, 1);
		e.mask = some_node(c, arg(c, call, 4), call);
		e.h = SHINT_NONE;
		e.h.latency = (int16_t)latency_of(c, arg(c, call, 6));
		e.cond = c->cond;
		e.loop = c->loop;
		e.line = call->line;
		e.rank = p.rank;
		memcpy(e.dims, p.dims, sizeof(sid) * (size_t)p.rank);
		sg_add_effect(g, &e);
		return sv_kind(SV_TOKEN);
	}
	if (!strcmp(name, "addptr") || !strcmp(name, "addptr_tile")) {
		struct sval p = arg(c, call, 0);
		if (p.k == SV_PTR)
			p.x = ic_add(g, p.x, arg_node(c, call, 1));
		return p;
	}
	if (!strcmp(name, "assume_div_by"))
		return assume(c, call, SA_DIV_BY);
	if (!strcmp(name, "assume_bounds_lower"))
		return assume(c, call, SA_BOUNDS_LOWER);
	if (!strcmp(name, "assume_bounds_upper"))
		return assume(c, call, SA_BOUNDS_UPPER);
	if (!strcmp(name, "assume_bounds") || str_starts(name, "assume_"))
		return arg(c, call, 0);
	*handled = false;
	return sv_kind(SV_UNKNOWN);
}

struct sval rx_method(struct rctx *c, const struct rnode *m, struct sval recv, bool *handled)
{
	struct sgraph *g = c->g;
	*handled = true;
	sid dims[SEM_MAX_RANK];
	int rank;
	if (rn_is(m, "step_by") && recv.k == SV_RANGE) {
		recv.step = rx_node(c, rx_expr(c, m->kids[1]), m);
		return recv;
	}
	if (recv.k == SV_PTR) {
		if (rn_is(m, "offset_tile") || rn_is(m, "offset")) {
			recv.x = ic_add(g, recv.x, rx_node(c, rx_expr(c, m->kids[1]), m));
			const struct snode *o = &g->n[recv.x];
			if (o->rank > recv.rank) {
				recv.rank = o->rank;
				memcpy(recv.dims, o->dims, sizeof(sid) * o->rank);
			}
			return recv;
		}
		if (rn_is(m, "broadcast") || rn_is(m, "reshape")) {
			if (!rx_dims(c, rx_expr(c, m->kids[1]), dims, &rank)) {
				rx_problem(c, m, "a shape that is not const_shape![...]");
				return recv;
			}
			const struct snode *o = &g->n[recv.x];
			if (o->rank && rn_is(m, "reshape"))
				recv.x = sc_reshape(g, recv.x, dims, rank);
			recv.rank = rank;
			memcpy(recv.dims, dims, sizeof(sid) * (size_t)rank);
			return recv;
		}
	}
	if (recv.k == SV_PART) {
		if (rn_is(m, "load"))
			return sv_node(view_load(c, m, recv, rx_expr(c, m->kids[1]), SHINT_NONE));
		if (rn_is(m, "store")) {
			sid tile = rx_node(c, rx_expr(c, m->kids[1]), m);
			view_store(c, m, recv, tile, rx_expr(c, m->kids[2]), SHINT_NONE);
			return sv_kind(SV_TOKEN);
		}
	}
	if (recv.k == SV_NODE) {
		const struct snode *x = &g->n[recv.x];
		bool array = x->op == S_PARAM && g->params[x->ival].kind == SPK_ARRAY;
		if (array && (rn_is(m, "partition") || rn_is(m, "partition_permuted") ||
			      rn_is(m, "partition_full_mut") || rn_is(m, "partition_mut"))) {
			if (!rx_dims(c, rx_expr(c, m->kids[1]), dims, &rank)) {
				rx_problem(c, m, "a partition shape that is not const_shape![...]");
				return sv_kind(SV_UNKNOWN);
			}
			int order[SEM_MAX_RANK], n = 0;
			bool has = false;
			if (rn_is(m, "partition_permuted")) {
				has = int_list(c, rx_expr(c, m->kids[2]), order, &n) && n == rank;
				if (!has)
					rx_problem(c, m, "a dim map that is not const_array![...]");
			}
			if (rn_is(m, "partition_mut"))
				rx_problem(c, m, "partition_mut (its accesses are offset by the block id)");
			bool out = m->n > 10; /* partition_full_mut: no padding */
			return part(c, recv.x, dims, rank, out ? SP_UNDETERMINED : SP_ZERO, has ? order : NULL);
		}
		if (array && rn_is(m, "shape")) {
			struct sval s = sv_kind(SV_SHAPEV);
			s.arr = recv.x;
			return s;
		}
		if (array && rn_is(m, "load_tile")) {
			if (!rx_dims(c, rx_expr(c, m->kids[1]), dims, &rank))
				return sv_kind(SV_UNKNOWN);
			return sv_node(view_load(c, m, part(c, recv.x, dims, rank, SP_ZERO, NULL),
						 rx_expr(c, m->kids[2]), SHINT_NONE));
		}
		if (rn_is(m, "reshape") || rn_is(m, "broadcast")) {
			if (!rx_dims(c, rx_expr(c, m->kids[1]), dims, &rank)) {
				rx_problem(c, m, "a shape that is not const_shape![...]");
				return sv_kind(SV_UNKNOWN);
			}
			return sv_node(rn_is(m, "reshape") ? sc_reshape(g, recv.x, dims, rank)
							   : sc_broadcast(g, recv.x, dims, rank));
		}
		if (rn_is(m, "transpose") && x->rank == 2) {
			int perm[2] = {1, 0};
			return sv_node(sc_permute(g, recv.x, perm, 2));
		}
		if ((rn_is(m, "max") || rn_is(m, "min")) && m->nkids == 2)
			return sv_node(sc_minmax(g, m->s[1] == 'a', recv.x, rx_node(c, rx_expr(c, m->kids[1]), m),
						 SHINT_NONE));
		if (rn_is(m, "abs"))
			return sv_node(ic_minmax(g, true, recv.x, ic_neg(g, recv.x)));
		if (rn_is(m, "into") || rn_is(m, "clone") || rn_is(m, "to_owned"))
			return recv;
	}
	if (recv.k == SV_SHAPEV && rn_is(m, "shape"))
		return recv;
	*handled = false;
	return sv_kind(SV_UNKNOWN);
}
