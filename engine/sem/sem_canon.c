/* Canonical constructors, integers and booleans: index arithmetic as
 * polynomials over atoms (so that `(m + BM - 1) / BM` and `ct.cdiv(M,
 * TILE_M)` are one node, and `row * s0 + cols` does not depend on the
 * order it was written in), comparisons as `p < 0`, `p == 0`, `p != 0`,
 * conjunctions flattened and sorted, `select(a < b, a, b)` as a minimum.
 * Broadcasts inside element-wise operations are dropped: the result keeps
 * its shape, the operands their own (numpy broadcasting). */
#include "engine/sem/sem_int.h"

#include <stdlib.h>
#include <string.h>

/* ---- element-wise operands ---- */

static sid strip_bc(const struct sgraph *g, sid x)
{
	while (x && g->n[x].op == S_BROADCAST)
		x = g->n[x].args[0];
	return x;
}

/* The shape an element-wise operation on (a, b) has, and its operands
 * with their broadcasts dropped. false: the shapes do not broadcast. */
struct ew {
	sid dims[SEM_MAX_RANK];
	int rank;
};

static bool ew_shape(const struct sgraph *g, const sid *args, int n, struct ew *out)
{
	out->rank = 0;
	for (int i = 0; i < n; i++) {
		if (!args[i])
			continue;
		const struct snode *a = &g->n[args[i]];
		sid d[SEM_MAX_RANK];
		int r;
		if (!sg_bcast_shape(g, out->dims, out->rank, a->dims, a->rank, d, &r))
			return false;
		memcpy(out->dims, d, sizeof(sid) * (size_t)r);
		out->rank = r;
	}
	return true;
}

/* Give node x (natural shape) the shape the operation asked for. */
static sid ew_finish(struct sgraph *g, sid x, const struct ew *want)
{
	const struct snode *n = &g->n[x];
	if (sg_dims_eq(n->dims, n->rank, want->dims, want->rank))
		return x;
	return sc_broadcast(g, x, want->dims, want->rank);
}

static struct snode proto(int op, int dt)
{
	struct snode p;
	memset(&p, 0, sizeof(p));
	p.op = (uint8_t)op;
	p.dt = (uint8_t)dt;
	p.h = SHINT_NONE;
	return p;
}

static int cmp_sid(const void *a, const void *b)
{
	sid x = *(const sid *)a, y = *(const sid *)b;
	return x < y ? -1 : x > y;
}

/* A node over element-wise operands (already stripped), shaped by them. */
static sid ew_node(struct sgraph *g, struct snode *p, sid *args, int n, bool sorted)
{
	if (sorted)
		qsort(args, (size_t)n, sizeof(sid), cmp_sid);
	struct ew nat;
	if (!ew_shape(g, args, n, &nat))
		nat.rank = 0;
	p->rank = (uint8_t)nat.rank;
	memcpy(p->dims, nat.dims, sizeof(sid) * (size_t)nat.rank);
	return sg_node(g, p, args, (size_t)n);
}

/* ---- polynomials ---- */

#define PT_ATOMS 8
#define PT_TERMS 48

struct pterm {
	int64_t c;
	int na;
	sid a[PT_ATOMS];
};

struct poly {
	int n;
	bool bad; /* too big: the operation stays a node of its own */
	struct pterm t[PT_TERMS];
};

static void poly_of(const struct sgraph *g, sid x, struct poly *p)
{
	x = strip_bc(g, x);
	const struct snode *n = &g->n[x];
	p->n = 0;
	p->bad = false;
	if (n->op == S_INT) {
		p->t[0] = (struct pterm){.c = n->ival};
		p->n = 1;
	} else if (n->op == S_POLY) {
		for (int i = 0; i < n->nargs && i < PT_TERMS; i++) {
			const struct snode *m = &g->n[n->args[i]];
			struct pterm *t = &p->t[p->n++];
			t->c = m->ival;
			t->na = m->nargs < PT_ATOMS ? m->nargs : PT_ATOMS;
			if (t->na)
				memcpy(t->a, m->args, sizeof(sid) * (size_t)t->na);
		}
	} else {
		p->t[0] = (struct pterm){.c = 1, .na = 1, .a = {x}};
		p->n = 1;
	}
}

static int term_cmp(const void *x, const void *y)
{
	const struct pterm *a = x, *b = y;
	if (a->na != b->na)
		return a->na < b->na ? -1 : 1;
	for (int i = 0; i < a->na; i++)
		if (a->a[i] != b->a[i])
			return a->a[i] < b->a[i] ? -1 : 1;
	return 0;
}

static void poly_norm(struct poly *p)
{
	for (int i = 0; i < p->n; i++)
		qsort(p->t[i].a, (size_t)p->t[i].na, sizeof(sid), cmp_sid);
	qsort(p->t, (size_t)p->n, sizeof(p->t[0]), term_cmp);
	int w = 0;
	for (int i = 0; i < p->n; i++) {
		if (w && term_cmp(&p->t[w - 1], &p->t[i]) == 0) {
			if (__builtin_add_overflow(p->t[w - 1].c, p->t[i].c, &p->t[w - 1].c))
				p->bad = true;
			continue;
		}
		p->t[w++] = p->t[i];
	}
	int k = 0;
	for (int i = 0; i < w; i++)
		if (p->t[i].c)
			p->t[k++] = p->t[i];
	p->n = k;
}

static void poly_add(struct poly *p, const struct poly *q, int64_t sign)
{
	for (int i = 0; i < q->n; i++) {
		if (p->n == PT_TERMS) {
			p->bad = true;
			return;
		}
		p->t[p->n] = q->t[i];
		if (__builtin_mul_overflow(p->t[p->n].c, sign, &p->t[p->n].c))
			p->bad = true;
		p->n++;
	}
	p->bad |= q->bad;
	poly_norm(p);
}

static void poly_mul(struct poly *out, const struct poly *p, const struct poly *q)
{
	out->n = 0;
	out->bad = p->bad || q->bad;
	for (int i = 0; i < p->n; i++)
		for (int j = 0; j < q->n; j++) {
			if (out->n == PT_TERMS || p->t[i].na + q->t[j].na > PT_ATOMS) {
				out->bad = true;
				return;
			}
			struct pterm *t = &out->t[out->n++];
			if (__builtin_mul_overflow(p->t[i].c, q->t[j].c, &t->c))
				out->bad = true;
			t->na = p->t[i].na + q->t[j].na;
			memcpy(t->a, p->t[i].a, sizeof(sid) * (size_t)p->t[i].na);
			memcpy(t->a + p->t[i].na, q->t[j].a, sizeof(sid) * (size_t)q->t[j].na);
		}
	poly_norm(out);
}

static int int_dt(const struct sgraph *g, const struct poly *p)
{
	for (int i = 0; i < p->n; i++)
		for (int k = 0; k < p->t[i].na; k++)
			if (g->n[p->t[i].a[k]].dt == SDT_I64)
				return SDT_I64;
	return SDT_I32;
}

static sid poly_build(struct sgraph *g, const struct poly *p)
{
	if (p->n == 0)
		return sg_int(g, 0);
	if (p->n == 1 && p->t[0].na == 0)
		return sg_int(g, p->t[0].c);
	if (p->n == 1 && p->t[0].na == 1 && p->t[0].c == 1)
		return p->t[0].a[0];
	int dt = int_dt(g, p);
	sid monos[PT_TERMS];
	for (int i = 0; i < p->n; i++) {
		struct snode m = proto(S_MONO, dt);
		m.ival = p->t[i].c;
		monos[i] = ew_node(g, &m, (sid *)p->t[i].a, p->t[i].na, false);
	}
	struct snode s = proto(S_POLY, dt);
	return ew_node(g, &s, monos, p->n, false);
}

/* The operation as a node of its own, when the polynomial grew too big. */
static sid int_opaque(struct sgraph *g, int op, sid a, sid b)
{
	sid args[2] = {strip_bc(g, a), strip_bc(g, b)};
	struct snode p = proto(op, SDT_I32);
	p.attr = 0;
	return ew_node(g, &p, args, 2, false);
}

static sid ic_combine(struct sgraph *g, sid a, sid b, int64_t sign, bool mul)
{
	struct ew want;
	sid ab[2] = {a, b};
	if (!ew_shape(g, ab, 2, &want))
		want.rank = 0;
	struct poly *p = xmalloc(sizeof(*p)), *q = xmalloc(sizeof(*q));
	poly_of(g, a, p);
	poly_of(g, b, q);
	sid r;
	if (mul) {
		struct poly *o = xmalloc(sizeof(*o));
		poly_mul(o, p, q);
		sid ab2[2] = {strip_bc(g, a), strip_bc(g, b)};
		r = o->bad ? sc_opaque(g, "imul", ab2, 2, SDT_I32) : poly_build(g, o);
		free(o);
	} else {
		poly_add(p, q, sign);
		sid ab2[2] = {strip_bc(g, a), strip_bc(g, b)};
		r = p->bad ? sc_opaque(g, sign > 0 ? "iadd" : "isub", ab2, 2, SDT_I32) : poly_build(g, p);
	}
	free(p);
	free(q);
	return ew_finish(g, r, &want);
}

sid ic_add(struct sgraph *g, sid a, sid b)
{
	return ic_combine(g, a, b, 1, false);
}

sid ic_sub(struct sgraph *g, sid a, sid b)
{
	return ic_combine(g, a, b, -1, false);
}

sid ic_mul(struct sgraph *g, sid a, sid b)
{
	return ic_combine(g, a, b, 1, true);
}

sid ic_neg(struct sgraph *g, sid a)
{
	return ic_combine(g, sg_int(g, 0), a, -1, false);
}

static int64_t floordiv64(int64_t a, int64_t b)
{
	int64_t q = a / b;
	return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/* p divided by b exactly (every term a multiple), or false. */
static bool poly_div_exact(const struct sgraph *g, const struct poly *p, sid b, struct poly *out)
{
	int64_t c;
	*out = *p;
	if (sg_is_int_lit(g, b, &c)) {
		if (!c)
			return false;
		for (int i = 0; i < out->n; i++) {
			if (out->t[i].c % c)
				return false;
			out->t[i].c /= c;
		}
		return true;
	}
	b = strip_bc(g, b);
	if (g->n[b].op == S_POLY || g->n[b].op == S_MONO)
		return false;
	for (int i = 0; i < out->n; i++) {
		int k = 0;
		while (k < out->t[i].na && out->t[i].a[k] != b)
			k++;
		if (k == out->t[i].na)
			return false;
		memmove(&out->t[i].a[k], &out->t[i].a[k + 1], sizeof(sid) * (size_t)(out->t[i].na - k - 1));
		out->t[i].na--;
	}
	poly_norm(out);
	return true;
}

sid ic_floordiv(struct sgraph *g, sid a, sid b)
{
	int64_t x, y;
	if (sg_is_int_lit(g, a, &x) && sg_is_int_lit(g, b, &y) && y)
		return sg_int(g, floordiv64(x, y));
	if (sg_is_int_lit(g, b, &y) && y == 1)
		return a;
	if (sg_is_int_lit(g, a, &x) && x == 0)
		return a;
	struct ew want;
	sid ab[2] = {a, b};
	if (!ew_shape(g, ab, 2, &want))
		want.rank = 0;
	struct poly *p = xmalloc(sizeof(*p)), *q = xmalloc(sizeof(*q));
	poly_of(g, a, p);
	sid r;
	if (!p->bad && poly_div_exact(g, p, b, q))
		r = poly_build(g, q);
	else
		r = int_opaque(g, S_FLOORDIV, a, b);
	free(p);
	free(q);
	return ew_finish(g, r, &want);
}

sid ic_mod(struct sgraph *g, sid a, sid b)
{
	int64_t x, y;
	if (sg_is_int_lit(g, a, &x) && sg_is_int_lit(g, b, &y) && y)
		return sg_int(g, x - floordiv64(x, y) * y);
	if (sg_is_int_lit(g, b, &y) && y == 1)
		return sg_int(g, 0);
	struct poly *p = xmalloc(sizeof(*p)), *q = xmalloc(sizeof(*q));
	poly_of(g, a, p);
	bool zero = !p->bad && sg_is_int_lit(g, b, &y) && poly_div_exact(g, p, b, q);
	free(p);
	free(q);
	if (zero)
		return sg_int(g, 0);
	struct ew want;
	sid ab[2] = {a, b};
	if (!ew_shape(g, ab, 2, &want))
		want.rank = 0;
	return ew_finish(g, int_opaque(g, S_MOD, a, b), &want);
}

sid ic_cdiv(struct sgraph *g, sid a, sid b)
{
	return ic_floordiv(g, ic_sub(g, ic_add(g, a, b), sg_int(g, 1)), b);
}

sid ic_minmax(struct sgraph *g, bool max, sid a, sid b)
{
	int64_t x, y;
	if (sg_is_int_lit(g, a, &x) && sg_is_int_lit(g, b, &y))
		return sg_int(g, max ? (x > y ? x : y) : (x < y ? x : y));
	struct ew want;
	sid ab[2] = {a, b};
	if (!ew_shape(g, ab, 2, &want))
		want.rank = 0;
	sid args[2] = {strip_bc(g, a), strip_bc(g, b)};
	if (args[0] == args[1])
		return ew_finish(g, args[0], &want);
	struct snode p = proto(max ? S_IMAX : S_IMIN, SDT_I32);
	return ew_finish(g, ew_node(g, &p, args, 2, true), &want);
}

/* The polynomial of a comparison's difference, negated and shifted. */
static sid poly_affine(struct sgraph *g, sid d, int64_t sign, int64_t add)
{
	struct poly *p = xmalloc(sizeof(*p)), *k = xmalloc(sizeof(*k));
	poly_of(g, d, p);
	struct poly *q = xmalloc(sizeof(*q));
	q->n = 0;
	q->bad = false;
	poly_add(q, p, sign);
	k->n = 1;
	k->bad = false;
	k->t[0] = (struct pterm){.c = add};
	poly_add(q, k, 1);
	sid r = q->bad ? d : poly_build(g, q);
	free(p);
	free(k);
	free(q);
	return r;
}

sid ic_cmp(struct sgraph *g, int op, sid a, sid b)
{
	struct ew want;
	sid ab[2] = {a, b};
	if (!ew_shape(g, ab, 2, &want))
		want.rank = 0;
	sid d = ic_sub(g, a, b);
	int rel = IC_LT0;
	switch (op) {
	case '<':
		break;
	case 'l': /* a <= b: a - b - 1 < 0 */
		d = poly_affine(g, d, 1, -1);
		break;
	case '>': /* b - a < 0 */
		d = poly_affine(g, d, -1, 0);
		break;
	case 'g': /* a >= b: b - a - 1 < 0 */
		d = poly_affine(g, d, -1, -1);
		break;
	case '=':
		rel = IC_EQ0;
		break;
	default:
		rel = IC_NE0;
		break;
	}
	d = strip_bc(g, d);
	int64_t v;
	if (sg_is_int_lit(g, d, &v)) {
		bool t = rel == IC_LT0 ? v < 0 : rel == IC_EQ0 ? v == 0 : v != 0;
		return ew_finish(g, sg_bool(g, t), &want);
	}
	struct snode p = proto(S_ICMP, SDT_BOOL);
	p.attr = (int16_t)rel;
	return ew_finish(g, ew_node(g, &p, &d, 1, false), &want);
}

sid ic_bit(struct sgraph *g, int op, sid a, sid b)
{
	struct ew want;
	sid ab[2] = {a, b};
	if (!ew_shape(g, ab, b ? 2 : 1, &want))
		want.rank = 0;
	sid args[2] = {strip_bc(g, a), b ? strip_bc(g, b) : 0};
	int64_t x, y;
	if (b && sg_is_int_lit(g, args[0], &x) && sg_is_int_lit(g, args[1], &y)) {
		int64_t r = op == '&' ? (x & y) : op == '|' ? (x | y) : op == '^' ? (x ^ y)
			  : op == '<' ? (int64_t)((uint64_t)x << (y & 63)) : (x >> (y & 63));
		return sg_int(g, r);
	}
	/* x << k is x * 2^k (both wrap alike): one form for either spelling */
	if (op == '<' && b && sg_is_int_lit(g, args[1], &y) && y >= 0 && y <= 30)
		return ic_mul(g, a, sg_int(g, (int64_t)1 << y));
	struct snode p = proto(S_IBIT, sg_dt(g, args[0]));
	p.attr = (int16_t)op;
	bool comm = op == '&' || op == '|' || op == '^';
	return ew_finish(g, ew_node(g, &p, args, b ? 2 : 1, comm), &want);
}

/* ---- booleans ---- */

static sid bool_nary(struct sgraph *g, int op, sid a, sid b)
{
	struct ew want;
	sid ab[2] = {a, b};
	if (!ew_shape(g, ab, 2, &want))
		want.rank = 0;
	sid in[2] = {strip_bc(g, a), strip_bc(g, b)};
	sid args[SEM_MAX_ARGS];
	int n = 0;
	bool flip = false; /* an xor with true: the negation of the rest */
	for (int i = 0; i < 2; i++) {
		const struct snode *x = &g->n[in[i]];
		if (x->op == S_BOOL) {
			if (op == S_AND && !x->ival)
				return ew_finish(g, in[i], &want);
			if (op == S_OR && x->ival)
				return ew_finish(g, in[i], &want);
			/* x ^ false is x, x ^ true is not x (`x == false` in Rust) */
			flip ^= op == S_XOR && x->ival;
			continue;
		}
		if (x->op == op && op != S_XOR) {
			for (int k = 0; k < x->nargs && n < SEM_MAX_ARGS; k++)
				args[n++] = x->args[k];
		} else if (n < SEM_MAX_ARGS) {
			args[n++] = in[i];
		}
	}
	if (n == 0)
		return ew_finish(g, sg_bool(g, op == S_XOR ? flip : op == S_AND), &want);
	qsort(args, (size_t)n, sizeof(sid), cmp_sid);
	int w = 0;
	for (int i = 0; i < n; i++)
		if (!w || args[w - 1] != args[i] || op == S_XOR)
			args[w++] = args[i];
	sid r;
	if (w == 1) {
		r = args[0];
	} else {
		struct snode p = proto(op, SDT_BOOL);
		r = ew_node(g, &p, args, w, false);
	}
	return ew_finish(g, flip ? bc_not(g, r) : r, &want);
}

sid bc_and(struct sgraph *g, sid a, sid b)
{
	return bool_nary(g, S_AND, a, b);
}

sid bc_or(struct sgraph *g, sid a, sid b)
{
	return bool_nary(g, S_OR, a, b);
}

sid bc_xor(struct sgraph *g, sid a, sid b)
{
	return bool_nary(g, S_XOR, a, b);
}

sid bc_not(struct sgraph *g, sid a)
{
	const struct snode *x = &g->n[a];
	struct ew want = {.rank = x->rank};
	memcpy(want.dims, x->dims, sizeof(sid) * x->rank);
	sid s = strip_bc(g, a);
	x = &g->n[s];
	sid r;
	if (x->op == S_BOOL) {
		r = sg_bool(g, !x->ival);
	} else if (x->op == S_NOT) {
		r = x->args[0];
	} else if (x->op == S_ICMP) {
		/* !(p < 0) is -p - 1 < 0; != and == swap */
		sid p = x->args[0];
		if (x->attr == IC_LT0) {
			p = poly_affine(g, p, -1, -1);
			struct snode q = proto(S_ICMP, SDT_BOOL);
			q.attr = IC_LT0;
			r = ew_node(g, &q, &p, 1, false);
		} else {
			struct snode q = proto(S_ICMP, SDT_BOOL);
			q.attr = x->attr == IC_EQ0 ? IC_NE0 : IC_EQ0;
			r = ew_node(g, &q, &p, 1, false);
		}
	} else {
		struct snode q = proto(S_NOT, SDT_BOOL);
		r = ew_node(g, &q, &s, 1, false);
	}
	return ew_finish(g, r, &want);
}

/* ---- selection ---- */

sid sc_select(struct sgraph *g, sid c, sid a, sid b)
{
	struct ew want;
	sid all[3] = {c, a, b};
	if (!ew_shape(g, all, 3, &want))
		want.rank = 0;
	sid sc = strip_bc(g, c), sa = strip_bc(g, a), sb = strip_bc(g, b);
	const struct snode *cn = &g->n[sc];
	if (cn->op == S_BOOL)
		return ew_finish(g, cn->ival ? sa : sb, &want);
	if (sa == sb)
		return ew_finish(g, sa, &want);
	/* select(a < b, a, b) is min(a, b) on integers */
	if (cn->op == S_ICMP && cn->attr == IC_LT0 && sdt_is_int(sg_dt(g, sa)) &&
	    sdt_is_int(sg_dt(g, sb)) && sg_dt(g, sa) != SDT_BOOL) {
		sid p = cn->args[0];
		if (strip_bc(g, ic_sub(g, sa, sb)) == p)
			return ew_finish(g, ic_minmax(g, false, sa, sb), &want);
		if (strip_bc(g, ic_sub(g, sb, sa)) == p)
			return ew_finish(g, ic_minmax(g, true, sa, sb), &want);
	}
	/* a gather without padding, then a select of its padding on the same
	 * mask: the gather with that padding (the translator's spelling) */
	const struct snode *an = &g->n[sa];
	/* the same with a conversion between: the constant converts alike */
	if (an->op == S_CONVERT && (g->n[sb].op == S_FLOAT || g->n[sb].op == S_INT)) {
		const struct snode *gn = &g->n[an->args[0]];
		if (gn->op == S_GATHER && gn->args[2] == sc && g->n[gn->args[3]].op == S_UNDEF) {
			int to = an->dt;
			sid gat = sc_gather(g, gn->args[0], gn->args[1], sc, sb, gn->h, gn->dt);
			return ew_finish(g, sc_convert(g, gat, to), &want);
		}
	}
	if (an->op == S_GATHER && an->args[2] == sc && g->n[an->args[3]].op == S_UNDEF) {
		sid pad = sb;
		const struct snode *pn = &g->n[pad];
		if (pn->op == S_CONVERT && (g->n[pn->args[0]].op == S_FLOAT || g->n[pn->args[0]].op == S_INT))
			pad = pn->args[0];
		return ew_finish(g, sc_gather(g, an->args[0], an->args[1], sc, pad, an->h, an->dt), &want);
	}
	int dt = sg_dt(g, sa) != SDT_NONE && g->n[sa].op != S_FLOAT && g->n[sa].op != S_INT
			 ? sg_dt(g, sa)
			 : sg_dt(g, sb);
	struct snode p = proto(S_SELECT, dt);
	sid args[3] = {sc, sa, sb};
	return ew_finish(g, ew_node(g, &p, args, 3, false), &want);
}

/* ---- shapes ---- */

static bool all_ones(const struct sgraph *g, const sid *d, int n)
{
	for (int i = 0; i < n; i++) {
		int64_t v;
		if (!sg_is_int_lit(g, d[i], &v) || v != 1)
			return false;
	}
	return true;
}

sid sc_broadcast(struct sgraph *g, sid a, const sid *dims, int rank)
{
	const struct snode *x = &g->n[a];
	if (sg_dims_eq(x->dims, x->rank, dims, rank))
		return a;
	if (x->op == S_BROADCAST)
		a = x->args[0];
	struct snode p = proto(S_BROADCAST, g->n[a].dt);
	p.rank = (uint8_t)rank;
	memcpy(p.dims, dims, sizeof(sid) * (size_t)rank);
	return sg_node(g, &p, &a, 1);
}

sid sc_full(struct sgraph *g, sid v, const sid *dims, int rank)
{
	return sc_broadcast(g, v, dims, rank);
}

/* x of shape s, seen with leading unit dims dropped. */
static int core_rank(const struct sgraph *g, const sid *d, int r)
{
	int k = 0;
	while (k < r && all_ones(g, &d[k], 1))
		k++;
	return k;
}

sid sc_reshape(struct sgraph *g, sid a, const sid *dims, int rank)
{
	const struct snode *x = &g->n[a];
	if (sg_dims_eq(x->dims, x->rank, dims, rank))
		return a;
	if (x->op == S_RESHAPE)
		return sc_reshape(g, x->args[0], dims, rank);
	if (x->op == S_BROADCAST) {
		const struct snode *in = &g->n[x->args[0]];
		/* a splat reshaped is a splat */
		if (in->rank == 0 || all_ones(g, in->dims, in->rank))
			return sc_broadcast(g, x->args[0], dims, rank);
		/* a broadcast that only added leading unit dims is a reshape */
		int k = x->rank - in->rank;
		if (k >= 0 && all_ones(g, x->dims, k) &&
		    sg_dims_eq(x->dims + k, in->rank, in->dims, in->rank))
			return sc_reshape(g, x->args[0], dims, rank);
	}
	/* adding leading unit dims is a broadcast; dropping them returns the core */
	int kx = core_rank(g, x->dims, x->rank), kd = core_rank(g, dims, rank);
	if (sg_dims_eq(x->dims + kx, x->rank - kx, dims + kd, rank - kd)) {
		if (rank >= x->rank)
			return sc_broadcast(g, a, dims, rank);
	}
	struct snode p = proto(S_RESHAPE, x->dt);
	p.rank = (uint8_t)rank;
	memcpy(p.dims, dims, sizeof(sid) * (size_t)rank);
	return sg_node(g, &p, &a, 1);
}

static int64_t pack_perm(const int *perm, int rank)
{
	int64_t v = 0;
	for (int i = 0; i < rank; i++)
		v |= (int64_t)(perm[i] & 15) << (4 * i);
	return v;
}

sid sc_permute(struct sgraph *g, sid a, const int *perm, int rank)
{
	const struct snode *x = &g->n[a];
	bool ident = true;
	for (int i = 0; i < rank; i++)
		ident &= perm[i] == i;
	if (ident || rank != x->rank)
		return a;
	sid dims[SEM_MAX_RANK];
	for (int i = 0; i < rank; i++)
		dims[i] = x->dims[perm[i]];
	if (x->op == S_PERMUTE) {
		int q[SEM_MAX_RANK];
		for (int i = 0; i < rank; i++)
			q[i] = (int)((x->ival >> (4 * perm[i])) & 15);
		return sc_permute(g, x->args[0], q, rank);
	}
	if (x->op == S_BROADCAST && (g->n[x->args[0]].rank == 0))
		return sc_broadcast(g, x->args[0], dims, rank);
	struct snode p = proto(S_PERMUTE, x->dt);
	p.rank = (uint8_t)rank;
	memcpy(p.dims, dims, sizeof(sid) * (size_t)rank);
	p.ival = pack_perm(perm, rank);
	return sg_node(g, &p, &a, 1);
}

sid sc_reduce(struct sgraph *g, int kind, sid a, int axis)
{
	const struct snode *x = &g->n[a];
	if (axis < 0)
		axis += x->rank;
	struct snode p = proto(S_REDUCE, x->dt);
	p.attr = (int16_t)kind;
	p.ival = axis;
	int r = 0;
	for (int i = 0; i < x->rank; i++)
		if (i != axis)
			p.dims[r++] = x->dims[i];
	p.rank = (uint8_t)r;
	return sg_node(g, &p, &a, 1);
}

sid sc_mma(struct sgraph *g, sid a, sid b, sid acc)
{
	const struct snode *x = &g->n[a], *y = &g->n[b];
	struct snode p = proto(S_MMA, acc ? g->n[acc].dt : SDT_F32);
	p.rank = 2;
	p.dims[0] = x->rank >= 2 ? x->dims[x->rank - 2] : 0;
	p.dims[1] = y->rank >= 1 ? y->dims[y->rank - 1] : 0;
	sid args[3] = {a, b, acc};
	return sg_node(g, &p, args, acc ? 3 : 2);
}

sid sc_iota(struct sgraph *g, sid n, int dt)
{
	struct snode p = proto(S_IOTA, sdt_is_int(dt) ? SDT_I32 : dt);
	p.rank = 1;
	p.dims[0] = n;
	return sg_node(g, &p, NULL, 0);
}

sid sc_opaque(struct sgraph *g, const char *name, const sid *args, size_t n, int dt)
{
	struct snode p = proto(S_OPAQUE, dt);
	p.name = name;
	return sg_node(g, &p, args, n);
}

/* A tile-valued call the graph has no operation of its own for, with the
 * shape it gives: compared by name and operands. */
static sid opaque_tile(struct sgraph *g, const char *name, const sid *args, size_t n, int dt,
		       const sid *dims, int rank)
{
	struct snode p = proto(S_OPAQUE, dt);
	p.name = name;
	p.rank = (uint8_t)rank;
	memcpy(p.dims, dims, sizeof(sid) * (size_t)rank);
	return sg_node(g, &p, args, n);
}

sid sc_scan_sum(struct sgraph *g, sid a, int axis, bool reverse)
{
	const struct snode *x = &g->n[a];
	if (axis < 0)
		axis += x->rank;
	if (x->rank == 0)
		return a;
	if (axis > 0 && axis < x->rank) {
		/* a scan on another axis is one on axis 0 between two
		 * transpositions: the form cutile 0.2.0's scan_sum computes, which
		 * ignores its dim and scans axis 0 */
		int perm[SEM_MAX_RANK];
		for (int i = 0; i < x->rank; i++)
			perm[i] = i;
		perm[0] = axis;
		perm[axis] = 0;
		sid t = sc_permute(g, a, perm, x->rank);
		return sc_permute(g, sc_scan_sum(g, t, 0, reverse), perm, x->rank);
	}
	return opaque_tile(g, reverse ? "cumsum_reverse" : "cumsum", &a, 1, x->dt, x->dims, x->rank);
}

sid sc_extract(struct sgraph *g, sid a, const sid *idx, int nidx, const sid *dims, int rank)
{
	sid args[1 + SEM_MAX_RANK];
	args[0] = a;
	for (int i = 0; i < nidx && i < SEM_MAX_RANK; i++)
		args[1 + i] = idx[i];
	return opaque_tile(g, "extract", args, 1 + (size_t)(nidx < SEM_MAX_RANK ? nidx : SEM_MAX_RANK),
			   g->n[a].dt, dims, rank);
}
