/* Canonical constructors, floats, conversions and memory: `a - b` is
 * `a + -b`, negations move out of products and quotients, `exp(x)` is
 * `exp2(x * log2(e))` and `fma(a, b, c)` is `a * b + c` (both flagged so
 * that the report can say why they are equal), both spellings of a
 * sigmoid are one node, a convert moves inside a reshape, broadcast or
 * permute, and a load with an order is a permute of a plain load. */
#include "engine/sem/sem_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define LOG2E 1.4426950408889634

static struct snode proto(int op, int dt)
{
	struct snode p;
	memset(&p, 0, sizeof(p));
	p.op = (uint8_t)op;
	p.dt = (uint8_t)dt;
	p.h = SHINT_NONE;
	return p;
}

static sid strip_bc(const struct sgraph *g, sid x)
{
	while (x && g->n[x].op == S_BROADCAST)
		x = g->n[x].args[0];
	return x;
}

static int cmp_sid(const void *a, const void *b)
{
	sid x = *(const sid *)a, y = *(const sid *)b;
	return x < y ? -1 : x > y;
}

/* The shape of the operation on the operands as written. */
static int want_shape(const struct sgraph *g, const sid *args, int n, sid *dims)
{
	int rank = 0;
	for (int i = 0; i < n; i++) {
		const struct snode *a = &g->n[args[i]];
		sid d[SEM_MAX_RANK];
		int r;
		if (!sg_bcast_shape(g, dims, rank, a->dims, a->rank, d, &r))
			return rank;
		memcpy(dims, d, sizeof(sid) * (size_t)r);
		rank = r;
	}
	return rank;
}

static sid finish(struct sgraph *g, sid x, const sid *dims, int rank)
{
	const struct snode *n = &g->n[x];
	if (sg_dims_eq(n->dims, n->rank, dims, rank))
		return x;
	return sc_broadcast(g, x, dims, rank);
}

/* A node over stripped operands, shaped by them. */
static sid node_over(struct sgraph *g, struct snode *p, sid *args, int n, bool sorted)
{
	if (sorted)
		qsort(args, (size_t)n, sizeof(sid), cmp_sid);
	p->rank = (uint8_t)want_shape(g, args, n, p->dims);
	return sg_node(g, p, args, (size_t)n);
}

static bool is_lit(const struct sgraph *g, sid x, double *v)
{
	x = strip_bc(g, x);
	return sg_is_float_lit(g, x, v) && g->n[x].rank == 0;
}

static bool lit_is(const struct sgraph *g, sid x, double want)
{
	double v;
	return is_lit(g, x, &v) && v == want;
}

static bool near_log2e(const struct sgraph *g, sid x)
{
	double v;
	return is_lit(g, x, &v) && fabs(v - LOG2E) < 1e-6;
}

/* A literal, or a float Constant (`SCALE: ct.Constant[float]`): cuTile
 * types both as literals, taking the other operand's float type, where a
 * run-time float is an f32 that f16 and bf16 promote to. */
static bool weak_float(const struct sgraph *g, sid x)
{
	if (is_lit(g, x, NULL))
		return true;
	x = strip_bc(g, x);
	const struct snode *n = &g->n[x];
	return n->op == S_PARAM && n->rank == 0 && n->ival >= 0 && (size_t)n->ival < g->nparams &&
	       g->params[n->ival].kind == SPK_CONST && sdt_is_float(g->params[n->ival].dt);
}

/* The float type two operands compute in. */
static int float_dt(const struct sgraph *g, sid a, sid b)
{
	bool la = weak_float(g, a), lb = weak_float(g, b);
	int da = sg_dt(g, a), db = sg_dt(g, b);
	if (la && !lb)
		return sdt_is_float(db) ? db : SDT_F32;
	if (lb && !la)
		return sdt_is_float(da) ? da : SDT_F32;
	if (la && lb)
		return sdt_is_float(da) ? da : sdt_is_float(db) ? db : SDT_NONE;
	if (da == db)
		return sdt_is_float(da) ? da : SDT_F32;
	if (da == SDT_F64 || db == SDT_F64)
		return SDT_F64;
	if (da == SDT_F32 || db == SDT_F32)
		return SDT_F32;
	return sdt_is_float(da) ? da : sdt_is_float(db) ? db : SDT_F32;
}

/* An operand in float type dt: literals take it, others convert. */
static sid as_float(struct sgraph *g, sid x, int dt)
{
	double v;
	if (is_lit(g, x, &v)) {
		const struct snode *n = &g->n[x];
		sid l = sg_float(g, v, dt);
		return n->rank ? sc_broadcast(g, l, n->dims, n->rank) : l;
	}
	if (dt == SDT_NONE || sg_dt(g, x) == dt)
		return x;
	return sc_convert(g, x, dt);
}

/* ---- arithmetic ---- */

static sid float_add(struct sgraph *g, sid a, sid b, struct shint h, int flags)
{
	int dt = float_dt(g, a, b);
	a = as_float(g, a, dt);
	b = as_float(g, b, dt);
	sid in[2] = {a, b}, dims[SEM_MAX_RANK];
	int rank = want_shape(g, in, 2, dims);
	double x, y;
	if (is_lit(g, a, &x) && is_lit(g, b, &y))
		return finish(g, sg_float(g, x + y, dt), dims, rank);
	if (lit_is(g, a, 0.0))
		return finish(g, strip_bc(g, b), dims, rank);
	if (lit_is(g, b, 0.0))
		return finish(g, strip_bc(g, a), dims, rank);
	sid args[2] = {strip_bc(g, a), strip_bc(g, b)};
	/* -a + -b is -(a + b) */
	if (g->n[args[0]].op == S_FNEG && g->n[args[1]].op == S_FNEG)
		return finish(g, fc_neg(g, float_add(g, g->n[args[0]].args[0], g->n[args[1]].args[0], h, flags)),
			      dims, rank);
	struct snode p = proto(S_FADD, dt);
	p.h = h;
	p.flags = (uint8_t)flags;
	return finish(g, node_over(g, &p, args, 2, true), dims, rank);
}

sid fc_add(struct sgraph *g, sid a, sid b, struct shint h)
{
	return float_add(g, a, b, h, 0);
}

sid fc_sub(struct sgraph *g, sid a, sid b, struct shint h)
{
	int dt = float_dt(g, a, b);
	return float_add(g, as_float(g, a, dt), fc_neg(g, as_float(g, b, dt)), h, 0);
}

sid fc_neg(struct sgraph *g, sid a)
{
	const struct snode *x = &g->n[a];
	sid dims[SEM_MAX_RANK];
	int rank = x->rank;
	memcpy(dims, x->dims, sizeof(sid) * (size_t)rank);
	sid s = strip_bc(g, a);
	const struct snode *n = &g->n[s];
	double v;
	if (is_lit(g, s, &v))
		return finish(g, sg_float(g, -v, sdt_is_float(n->dt) ? n->dt : SDT_NONE), dims, rank);
	if (n->op == S_FNEG)
		return finish(g, n->args[0], dims, rank);
	struct snode p = proto(S_FNEG, n->dt);
	return finish(g, node_over(g, &p, &s, 1, false), dims, rank);
}

/* Strip a negation, counting it. */
static sid unneg(const struct sgraph *g, sid x, int *negs)
{
	x = strip_bc(g, x);
	if (g->n[x].op == S_FNEG) {
		(*negs)++;
		return g->n[x].args[0];
	}
	return x;
}

sid fc_mul(struct sgraph *g, sid a, sid b, struct shint h)
{
	int dt = float_dt(g, a, b);
	a = as_float(g, a, dt);
	b = as_float(g, b, dt);
	sid in[2] = {a, b}, dims[SEM_MAX_RANK];
	int rank = want_shape(g, in, 2, dims);
	double x, y;
	if (is_lit(g, a, &x) && is_lit(g, b, &y))
		return finish(g, sg_float(g, x * y, dt), dims, rank);
	if (lit_is(g, a, 1.0))
		return finish(g, strip_bc(g, b), dims, rank);
	if (lit_is(g, b, 1.0))
		return finish(g, strip_bc(g, a), dims, rank);
	int negs = 0;
	sid args[2] = {unneg(g, a, &negs), unneg(g, b, &negs)};
	/* a negative literal factor: its negation moves out too */
	for (int i = 0; i < 2; i++)
		if (is_lit(g, args[i], &x) && x < 0) {
			args[i] = sg_float(g, -x, dt);
			negs++;
		}
	/* x * -1 is -x */
	struct snode p = proto(S_FMUL, dt);
	p.h = h;
	sid r = lit_is(g, args[0], 1.0)	  ? strip_bc(g, args[1])
		: lit_is(g, args[1], 1.0) ? strip_bc(g, args[0])
					  : node_over(g, &p, args, 2, true);
	if (negs & 1)
		r = fc_neg(g, r);
	return finish(g, r, dims, rank);
}

/* exp2(x * log2(e)) of some x: x, or 0. */
static sid exp_arg(const struct sgraph *g, sid e)
{
	e = strip_bc(g, e);
	const struct snode *n = &g->n[e];
	if (n->op != S_MATH || n->attr != SM_EXP2)
		return 0;
	const struct snode *m = &g->n[strip_bc(g, n->args[0])];
	int neg = 0;
	if (m->op == S_FNEG) {
		neg = 1;
		m = &g->n[strip_bc(g, m->args[0])];
	}
	if (m->op != S_FMUL)
		return 0;
	sid x = 0;
	if (near_log2e(g, m->args[0]))
		x = m->args[1];
	else if (near_log2e(g, m->args[1]))
		x = m->args[0];
	if (!x)
		return 0;
	return neg ? (sid)(x | 0x80000000u) : x; /* the high bit marks exp(-x) */
}

/* 1 + exp(-x) or exp(x) + 1: x (high bit for -x), or 0. */
static sid one_plus_exp(const struct sgraph *g, sid d)
{
	d = strip_bc(g, d);
	const struct snode *n = &g->n[d];
	if (n->op != S_FADD || n->nargs != 2)
		return 0;
	for (int i = 0; i < 2; i++)
		if (lit_is(g, n->args[i], 1.0))
			return exp_arg(g, n->args[1 - i]);
	return 0;
}

sid fc_div(struct sgraph *g, sid a, sid b, struct shint h)
{
	int dt = float_dt(g, a, b);
	a = as_float(g, a, dt);
	b = as_float(g, b, dt);
	sid in[2] = {a, b}, dims[SEM_MAX_RANK];
	int rank = want_shape(g, in, 2, dims);
	double x, y;
	if (is_lit(g, a, &x) && is_lit(g, b, &y) && y != 0)
		return finish(g, sg_float(g, x / y, dt), dims, rank);
	if (lit_is(g, b, 1.0))
		return finish(g, strip_bc(g, a), dims, rank);
	/* sigmoid: 1 / (1 + exp(-x)), and exp(x) / (1 + exp(x)) */
	sid e = one_plus_exp(g, b);
	if (e) {
		sid arg = e & 0x7fffffffu;
		bool neg = e & 0x80000000u;
		int flags = 0;
		bool sig = false;
		if (neg && lit_is(g, a, 1.0)) {
			sig = true;
		} else if (!neg) {
			sid num = exp_arg(g, a);
			if (num && num == arg) {
				sig = true;
				flags = SF_SIG_POS;
			}
		}
		if (sig) {
			struct snode p = proto(S_SIGMOID, dt);
			p.h = h;
			p.flags = (uint8_t)flags;
			const struct snode *en = &g->n[strip_bc(g, b)];
			for (int i = 0; i < en->nargs; i++)
				if (g->n[strip_bc(g, en->args[i])].flags & SF_FROM_EXP)
					p.flags |= SF_FROM_EXP;
			return finish(g, node_over(g, &p, &arg, 1, false), dims, rank);
		}
	}
	int negs = 0;
	sid args[2] = {unneg(g, a, &negs), unneg(g, b, &negs)};
	struct snode p = proto(S_FDIV, dt);
	p.h = h;
	sid r = node_over(g, &p, args, 2, false);
	if (negs & 1)
		r = fc_neg(g, r);
	return finish(g, r, dims, rank);
}

sid fc_fma(struct sgraph *g, sid a, sid b, sid c, struct shint h)
{
	return float_add(g, fc_mul(g, a, b, h), c, h, SF_FROM_FMA);
}

sid fc_minmax(struct sgraph *g, bool max, sid a, sid b, struct shint h)
{
	int dt = float_dt(g, a, b);
	a = as_float(g, a, dt);
	b = as_float(g, b, dt);
	sid in[2] = {a, b}, dims[SEM_MAX_RANK];
	int rank = want_shape(g, in, 2, dims);
	double x, y;
	if (is_lit(g, a, &x) && is_lit(g, b, &y))
		return finish(g, sg_float(g, max ? fmax(x, y) : fmin(x, y), dt), dims, rank);
	sid args[2] = {strip_bc(g, a), strip_bc(g, b)};
	if (args[0] == args[1])
		return finish(g, args[0], dims, rank);
	struct snode p = proto(max ? S_FMAX : S_FMIN, dt);
	p.h = h;
	return finish(g, node_over(g, &p, args, 2, true), dims, rank);
}

sid fc_cmp(struct sgraph *g, int op, sid a, sid b)
{
	int dt = float_dt(g, a, b);
	a = as_float(g, a, dt);
	b = as_float(g, b, dt);
	sid in[2] = {a, b}, dims[SEM_MAX_RANK];
	int rank = want_shape(g, in, 2, dims);
	sid args[2] = {strip_bc(g, a), strip_bc(g, b)};
	int pred = FC_LT;
	bool sorted = false;
	switch (op) {
	case '<':
		break;
	case 'l':
		pred = FC_LE;
		break;
	case '>': {
		sid t = args[0];
		args[0] = args[1];
		args[1] = t;
		break;
	}
	case 'g': {
		sid t = args[0];
		args[0] = args[1];
		args[1] = t;
		pred = FC_LE;
		break;
	}
	case '=':
		pred = FC_EQ;
		sorted = true;
		break;
	default:
		pred = FC_NE;
		sorted = true;
		break;
	}
	struct snode p = proto(S_FCMP, SDT_BOOL);
	p.attr = (int16_t)pred;
	return finish(g, node_over(g, &p, args, 2, sorted), dims, rank);
}

sid fc_math(struct sgraph *g, int fn, sid a, struct shint h)
{
	int dt = sdt_is_float(sg_dt(g, a)) ? sg_dt(g, a) : SDT_F32;
	a = as_float(g, a, dt);
	sid dims[SEM_MAX_RANK];
	int rank = want_shape(g, &a, 1, dims);
	int flags = 0;
	if (fn == SM_EXP) {
		a = fc_mul(g, a, sg_float(g, LOG2E, dt), SHINT_NONE);
		fn = SM_EXP2;
		flags = SF_FROM_EXP;
	}
	double v;
	sid s = strip_bc(g, a);
	if (is_lit(g, s, &v) && fn == SM_ABS)
		return finish(g, sg_float(g, fabs(v), dt), dims, rank);
	struct snode p = proto(S_MATH, dt);
	p.attr = (int16_t)fn;
	p.h = h;
	p.flags = (uint8_t)flags;
	return finish(g, node_over(g, &p, &s, 1, false), dims, rank);
}

sid fc_binary(struct sgraph *g, int op, sid a, sid b)
{
	int dt = float_dt(g, a, b);
	a = as_float(g, a, dt);
	b = as_float(g, b, dt);
	sid in[2] = {a, b}, dims[SEM_MAX_RANK];
	int rank = want_shape(g, in, 2, dims);
	sid args[2] = {strip_bc(g, a), strip_bc(g, b)};
	struct snode p = proto(op, dt);
	return finish(g, node_over(g, &p, args, 2, false), dims, rank);
}

/* ---- by element type ---- */

static bool float_ctx(const struct sgraph *g, sid a, sid b)
{
	return sdt_is_float(sg_dt(g, a)) || sdt_is_float(sg_dt(g, b)) ||
	       g->n[strip_bc(g, a)].op == S_FLOAT || g->n[strip_bc(g, b)].op == S_FLOAT;
}

sid sc_arith(struct sgraph *g, int op, sid a, sid b, struct shint h)
{
	if (float_ctx(g, a, b) || op == '/') {
		switch (op) {
		case '+':
			return fc_add(g, a, b, h);
		case '-':
			return fc_sub(g, a, b, h);
		case '*':
			return fc_mul(g, a, b, h);
		case '/':
			return fc_div(g, a, b, h);
		case 'd':
			return fc_math(g, SM_FLOOR, fc_div(g, a, b, h), SHINT_NONE);
		case '%':
			return fc_binary(g, S_FREM, a, b);
		case '^':
			return fc_binary(g, S_POW, a, b);
		}
		return 0;
	}
	switch (op) {
	case '+':
		return ic_add(g, a, b);
	case '-':
		return ic_sub(g, a, b);
	case '*':
		return ic_mul(g, a, b);
	case 'd':
		return ic_floordiv(g, a, b);
	case '%':
		return ic_mod(g, a, b);
	case '^':
		return fc_binary(g, S_POW, sc_convert(g, a, SDT_F32), sc_convert(g, b, SDT_F32));
	}
	return 0;
}

sid sc_cmp(struct sgraph *g, int op, sid a, sid b)
{
	if (float_ctx(g, a, b))
		return fc_cmp(g, op, a, b);
	if (sg_dt(g, a) == SDT_BOOL && sg_dt(g, b) == SDT_BOOL && (op == '=' || op == '!')) {
		sid x = bc_xor(g, a, b);
		return op == '!' ? x : bc_not(g, x);
	}
	return ic_cmp(g, op, a, b);
}

sid sc_minmax(struct sgraph *g, bool max, sid a, sid b, struct shint h)
{
	if (float_ctx(g, a, b))
		return fc_minmax(g, max, a, b, h);
	return ic_minmax(g, max, a, b);
}

/* ---- conversion ---- */

static bool same_type(const struct sgraph *g, int a, int b)
{
	if (a == b)
		return true;
	if (g->cs && g->cs->e_is_f32 &&
	    ((a == SDT_E && b == SDT_F32) || (a == SDT_F32 && b == SDT_E)))
		return true;
	return false;
}

sid sc_convert(struct sgraph *g, sid a, int dt)
{
	const struct snode *x = &g->n[a];
	if (dt == SDT_NONE || same_type(g, x->dt, dt))
		return a;
	/* index arithmetic is read without its widths */
	if (sdt_is_int(x->dt) && sdt_is_int(dt) && x->dt != SDT_BOOL && dt != SDT_BOOL)
		return a;
	if (x->op == S_INT || x->op == S_FLOAT) {
		double v = x->op == S_INT ? (double)x->ival : x->fval;
		if (sdt_is_float(dt))
			return sg_float(g, v, dt);
		if (dt == SDT_BOOL)
			return sg_bool(g, v != 0);
		if (sdt_is_int(dt))
			return sg_int(g, (int64_t)v);
	}
	if (x->op == S_BOOL && sdt_is_int(dt))
		return sg_int(g, x->ival);
	if (x->op == S_BROADCAST || x->op == S_RESHAPE || x->op == S_PERMUTE) {
		sid in = sc_convert(g, x->args[0], dt);
		x = &g->n[a];
		if (x->op == S_BROADCAST)
			return sc_broadcast(g, in, x->dims, x->rank);
		if (x->op == S_RESHAPE)
			return sc_reshape(g, in, x->dims, x->rank);
		int perm[SEM_MAX_RANK];
		for (int i = 0; i < x->rank; i++)
			perm[i] = (int)((x->ival >> (4 * i)) & 15);
		return sc_permute(g, in, perm, x->rank);
	}
	struct snode p = proto(S_CONVERT, dt);
	p.rank = x->rank;
	memcpy(p.dims, x->dims, sizeof(sid) * x->rank);
	return sg_node(g, &p, &a, 1);
}

/* ---- memory ---- */

sid sc_load(struct sgraph *g, sid array, const sid *idx, int nidx, const sid *dims, int rank,
	    int padding, const int *order, struct shint h, int dt)
{
	bool ident = true;
	for (int i = 0; order && i < rank; i++)
		ident &= order[i] == i;
	if (!ident && rank == nidx && rank <= SEM_MAX_RANK) {
		/* tile dim i is array dim order[i]: a plain load of the array's
		 * dims, permuted */
		sid d2[SEM_MAX_RANK], i2[SEM_MAX_RANK];
		for (int i = 0; i < rank; i++) {
			d2[order[i]] = dims[i];
			i2[order[i]] = idx[i];
		}
		sid plain = sc_load(g, array, i2, nidx, d2, rank, padding, NULL, h, dt);
		sid r = sc_permute(g, plain, order, rank);
		if (g->n[r].op == S_PERMUTE && !(g->n[r].flags & SF_FROM_ORDER)) {
			struct snode p = g->n[r];
			p.flags |= SF_FROM_ORDER;
			sid arg = p.args[0];
			r = sg_node(g, &p, &arg, 1);
		}
		return r;
	}
	sid args[1 + SEM_MAX_RANK];
	args[0] = array;
	for (int i = 0; i < nidx && i < SEM_MAX_RANK; i++)
		args[1 + i] = strip_bc(g, idx[i]);
	struct snode p = proto(S_LOAD, dt);
	p.attr = (int16_t)padding;
	p.h = h;
	p.rank = (uint8_t)rank;
	memcpy(p.dims, dims, sizeof(sid) * (size_t)rank);
	return sg_node(g, &p, args, 1 + (size_t)(nidx < SEM_MAX_RANK ? nidx : SEM_MAX_RANK));
}

sid sc_gather(struct sgraph *g, sid array, sid offset, sid mask, sid pad, struct shint h, int dt)
{
	sid in[2] = {offset, mask ? mask : offset}, dims[SEM_MAX_RANK];
	int rank = want_shape(g, in, 2, dims);
	sid args[4] = {array, strip_bc(g, offset), mask ? strip_bc(g, mask) : sg_bool(g, true),
		       pad ? as_float(g, strip_bc(g, pad), sdt_is_float(dt) ? dt : SDT_NONE)
			   : sg_undef(g, dt)};
	if (g->n[args[3]].op == S_INT && sdt_is_float(dt))
		args[3] = sg_float(g, (double)g->n[args[3]].ival, dt);
	struct snode p = proto(S_GATHER, dt);
	p.h = h;
	p.rank = (uint8_t)rank;
	memcpy(p.dims, dims, sizeof(sid) * (size_t)rank);
	return sg_node(g, &p, args, 4);
}
