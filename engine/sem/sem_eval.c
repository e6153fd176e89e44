/* What both readers share: tuples, the variable environment, and the
 * constant conditions of a case (a condition on constants becomes an
 * atom named in the source's terms, so that `BANDWIDTH > 0i32` in the
 * Rust and `BANDWIDTH > 0` in the source are one atom, and `TRANSPOSE_A
 * == 1i32` over an i32 stands for the source's bool). */
#include "engine/sem/sem_eval.h"

#include <stdlib.h>
#include <string.h>

struct sval sv_tuple(struct sgraph *g, const struct sval *el, size_t n)
{
	struct sval v = sv_kind(SV_TUPLE);
	v.el = sa_alloc(g->arena, (n ? n : 1) * sizeof(*el));
	if (n)
		memcpy(v.el, el, n * sizeof(*el));
	v.nel = n;
	return v;
}

bool sv_same(const struct sval *a, const struct sval *b)
{
	if (a->k != b->k || a->x != b->x || a->arr != b->arr || a->pad != b->pad || a->rank != b->rank ||
	    a->nel != b->nel || a->dt != b->dt || a->lo != b->lo || a->hi != b->hi || a->step != b->step ||
	    a->has_order != b->has_order || a->ref != b->ref)
		return false;
	if (memcmp(a->dims, b->dims, sizeof(sid) * (size_t)(a->rank > 0 ? a->rank : 0)))
		return false;
	if ((a->name == NULL) != (b->name == NULL) || (a->name && strcmp(a->name, b->name)))
		return false;
	for (size_t i = 0; i < a->nel; i++)
		if (a->el != b->el && !sv_same(&a->el[i], &b->el[i]))
			return false;
	return true;
}

/* ---- environment ---- */

struct svar *senv_find(struct senv *e, const char *name, size_t n)
{
	for (size_t i = e->n; i-- > 0;)
		if (e->v[i].n == n && memcmp(e->v[i].name, name, n) == 0)
			return &e->v[i];
	return NULL;
}

static void name_node(struct sgraph *g, struct sval v, const char *name, size_t n)
{
	if (v.k != SV_NODE || !v.x || g->n[v.x].var)
		return;
	const struct snode *x = &g->n[v.x];
	if (x->op == S_INT || x->op == S_FLOAT || x->op == S_BOOL || x->op == S_PARAM)
		return;
	if (n == 1 && name[0] == '_')
		return;
	g->n[v.x].var = sa_strndup(g->arena, name, n);
}

void senv_set(struct sgraph *g, struct senv *e, const char *name, size_t n, struct sval v)
{
	name_node(g, v, name, n);
	e->v = xgrow(e->v, &e->cap, e->n + 1, sizeof(*e->v));
	e->v[e->n++] = (struct svar){name, (uint32_t)n, v, e->scope};
}

bool senv_assign(struct sgraph *g, struct senv *e, const char *name, size_t n, struct sval v)
{
	struct svar *x = senv_find(e, name, n);
	if (!x)
		return false;
	name_node(g, v, name, n);
	x->v = v;
	return true;
}

void senv_push(struct senv *e)
{
	e->scope++;
}

void senv_pop(struct senv *e)
{
	while (e->n && e->v[e->n - 1].scope >= e->scope)
		e->n--;
	e->scope--;
}

struct senv senv_copy(const struct senv *e)
{
	struct senv c = *e;
	c.cap = e->n ? e->n : 1;
	c.v = xmalloc(c.cap * sizeof(*c.v));
	if (e->n)
		memcpy(c.v, e->v, e->n * sizeof(*c.v));
	return c;
}

void senv_free(struct senv *e)
{
	free(e->v);
	memset(e, 0, sizeof(*e));
}

void sside_assume(struct sside *s, int param, int kind, long long value, int line)
{
	s->assumes = xgrow(s->assumes, &s->capassumes, s->nassumes + 1, sizeof(*s->assumes));
	s->assumes[s->nassumes++] = (struct sassume){param, kind, value, line};
}

/* ---- conditions on constants ---- */

static bool const_only(const struct sgraph *g, sid x, int depth)
{
	if (!x || depth > 64)
		return false;
	const struct snode *n = &g->n[x];
	switch (n->op) {
	case S_INT:
	case S_BOOL:
	case S_FLOAT:
		return true;
	case S_PARAM:
		return g->params[n->ival].kind == SPK_CONST;
	case S_OPAQUE:
		if (n->name && str_starts(n->name, "dtype:"))
			return true;
		break;
	case S_BROADCAST:
	case S_POLY:
	case S_MONO:
	case S_FLOORDIV:
	case S_MOD:
	case S_IMIN:
	case S_IMAX:
	case S_ICMP:
	case S_AND:
	case S_OR:
	case S_XOR:
	case S_NOT:
	case S_IBIT:
		break;
	default:
		return false;
	}
	for (int i = 0; i < n->nargs; i++)
		if (!const_only(g, n->args[i], depth + 1))
			return false;
	return true;
}

static const char *pname(const struct sgraph *g, const struct sbind *b, int idx)
{
	const struct sparam *p = &g->params[idx];
	if (g->side == 0 || !b)
		return p->name;
	if ((size_t)idx < b->nrs && b->py_of_rs[idx] >= 0)
		return b->py[b->py_of_rs[idx]].name;
	return NULL; /* the caller prefixes rs: */
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void atom_text(const struct sgraph *g, const struct sbind *b, sid x, struct sbuf *o);

/* The terms of a polynomial of one sign, sorted as text. */
static void poly_half(const struct sgraph *g, const struct sbind *b, const struct snode *p, int sign,
		      struct sbuf *o)
{
	char *terms[64];
	size_t nt = 0;
	int64_t cst = 0;
	for (int i = 0; i < p->nargs && nt < 64; i++) {
		const struct snode *m = &g->n[p->args[i]];
		int64_t c = m->ival * sign;
		if (c <= 0)
			continue;
		if (!m->nargs) {
			cst = c;
			continue;
		}
		struct sbuf t = SBUF_INIT;
		if (c != 1)
			sb_printf(&t, "%lld*", (long long)c);
		for (int k = 0; k < m->nargs; k++) {
			if (k)
				sb_addc(&t, '*');
			atom_text(g, b, m->args[k], &t);
		}
		terms[nt++] = sb_detach(&t);
	}
	qsort(terms, nt, sizeof(*terms), cmp_str);
	for (size_t i = 0; i < nt; i++) {
		if (i)
			sb_adds(o, " + ");
		sb_adds(o, terms[i]);
		free(terms[i]);
	}
	if (cst || !nt) {
		if (nt)
			sb_adds(o, " + ");
		sb_printf(o, "%lld", (long long)cst);
	}
}

static void atom_text(const struct sgraph *g, const struct sbind *b, sid x, struct sbuf *o)
{
	const struct snode *n = &g->n[x];
	switch (n->op) {
	case S_INT:
		sb_printf(o, "%lld", (long long)n->ival);
		return;
	case S_BOOL:
		sb_adds(o, n->ival ? "true" : "false");
		return;
	case S_PARAM: {
		const char *s = pname(g, b, (int)n->ival);
		if (s)
			sb_adds(o, s);
		else
			sb_printf(o, "rs:%s", n->name);
		return;
	}
	case S_OPAQUE:
		sb_adds(o, n->name + (str_starts(n->name, "dtype:") ? 6 : 0));
		return;
	case S_BROADCAST:
		atom_text(g, b, n->args[0], o);
		return;
	case S_POLY: {
		struct snode p = *n;
		sb_addc(o, '(');
		poly_half(g, b, &p, 1, o);
		sb_adds(o, " - ");
		poly_half(g, b, &p, -1, o);
		sb_addc(o, ')');
		return;
	}
	case S_ICMP: {
		const struct snode *p = &g->n[n->args[0]];
		struct snode one;
		sid self = n->args[0];
		if (p->op != S_POLY) {
			/* a single atom, coefficient 1: wrap it */
			memset(&one, 0, sizeof(one));
			one.op = S_POLY;
			one.nargs = 0;
			struct sbuf t = SBUF_INIT;
			atom_text(g, b, self, &t);
			sb_printf(o, "%s %s 0", sb_str(&t), n->attr == IC_LT0 ? "<" : n->attr == IC_EQ0 ? "==" : "!=");
			sb_free(&t);
			return;
		}
		poly_half(g, b, p, 1, o);
		sb_adds(o, n->attr == IC_LT0 ? " < " : n->attr == IC_EQ0 ? " == " : " != ");
		poly_half(g, b, p, -1, o);
		return;
	}
	case S_NOT:
		sb_adds(o, "!(");
		atom_text(g, b, n->args[0], o);
		sb_addc(o, ')');
		return;
	default: {
		char *parts[SEM_MAX_ARGS];
		size_t np = 0;
		for (int i = 0; i < n->nargs && np < SEM_MAX_ARGS; i++) {
			struct sbuf t = SBUF_INIT;
			atom_text(g, b, n->args[i], &t);
			parts[np++] = sb_detach(&t);
		}
		bool comm = n->op == S_AND || n->op == S_OR || n->op == S_XOR || n->op == S_IMIN ||
			    n->op == S_IMAX;
		if (comm)
			qsort(parts, np, sizeof(*parts), cmp_str);
		sb_printf(o, "%s(", sem_op_name(n->op));
		for (size_t i = 0; i < np; i++) {
			sb_printf(o, "%s%s", i ? ", " : "", parts[i]);
			free(parts[i]);
		}
		sb_addc(o, ')');
	}
	}
}

/* A Rust `X == 1` / `X != 0` over an i32 standing for a source bool. */
static bool int_bool(const struct sgraph *g, const struct sbind *b, sid cond, int *param, bool *neg)
{
	const struct snode *n = &g->n[cond];
	if (g->side != 1 || !b || n->op != S_ICMP || n->attr == IC_LT0)
		return false;
	const struct snode *p = &g->n[n->args[0]];
	sid atom = 0;
	int64_t coef = 1, cst = 0;
	if (p->op == S_PARAM) {
		atom = n->args[0];
	} else if (p->op == S_POLY && p->nargs == 2) {
		for (int i = 0; i < 2; i++) {
			const struct snode *m = &g->n[p->args[i]];
			if (!m->nargs) {
				cst = m->ival;
			} else if (m->nargs == 1 && (m->ival == 1 || m->ival == -1) &&
				   g->n[m->args[0]].op == S_PARAM) {
				atom = m->args[0];
				coef = m->ival;
			}
		}
	}
	if (!atom)
		return false;
	int idx = (int)g->n[atom].ival;
	if ((size_t)idx >= b->nrs || !b->rs_bool_int || !b->rs_bool_int[idx])
		return false;
	int64_t value = -cst * coef; /* coef*X + cst == 0 */
	if (value != 0 && value != 1)
		return false;
	*param = idx;
	bool eq = n->attr == IC_EQ0;
	*neg = (value == 1) != eq;
	return true;
}

int sem_cond_atom(struct sgraph *g, const struct sbind *b, sid cond, bool *neg)
{
	*neg = false;
	if (!g->cs)
		return -1;
	while (g->n[cond].op == S_BROADCAST)
		cond = g->n[cond].args[0];
	if (!const_only(g, cond, 0))
		return -1;
	struct scase *cs = g->cs;
	if (g->n[cond].op == S_NOT) {
		int a = sem_cond_atom(g, b, g->n[cond].args[0], neg);
		*neg = !*neg;
		return a;
	}
	int ip;
	bool ineg;
	if (int_bool(g, b, cond, &ip, &ineg)) {
		*neg = ineg;
		return scase_atom(cs, pname(g, b, ip), g->side);
	}
	struct sbuf t = SBUF_INIT;
	atom_text(g, b, cond, &t);
	const struct snode *n = &g->n[cond];
	if (n->op == S_ICMP) {
		/* one atom for a condition and its negation: the smaller text */
		sid other = bc_not(g, cond);
		struct sbuf u = SBUF_INIT;
		atom_text(g, b, other, &u);
		bool swap = n->attr == IC_NE0 || (n->attr == IC_LT0 && strcmp(sb_str(&u), sb_str(&t)) < 0);
		if (swap) {
			*neg = true;
			sb_free(&t);
			t = u;
		} else {
			sb_free(&u);
		}
	}
	int a = scase_atom(cs, sb_str(&t), g->side);
	sb_free(&t);
	return a;
}

int sem_cond_value(struct sgraph *g, const struct sbind *b, sid cond)
{
	sid c = cond;
	while (g->n[c].op == S_BROADCAST)
		c = g->n[c].args[0];
	if (g->n[c].op == S_BOOL)
		return g->n[c].ival != 0;
	bool neg;
	int a = sem_cond_atom(g, b, c, &neg);
	if (a < 0)
		return -1;
	return scase_value(g->cs, a) != neg;
}
