/* The graph of one side: an arena, the hash-consed node table, loops,
 * memory effects, and the names of types and paddings. */
#include "engine/sem/sem_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- arena ---- */

struct sachunk {
	struct sachunk *next;
	size_t used, cap;
	max_align_t data[];
};

struct sarena {
	struct sachunk *head;
};

struct sarena *sarena_new(void)
{
	return xcalloc(1, sizeof(struct sarena));
}

void sarena_free(struct sarena *a)
{
	if (!a)
		return;
	for (struct sachunk *c = a->head, *n; c; c = n) {
		n = c->next;
		free(c);
	}
	free(a);
}

void *sa_alloc(struct sarena *a, size_t n)
{
	n = (n + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
	if (!n)
		n = sizeof(max_align_t);
	struct sachunk *c = a->head;
	if (!c || c->cap - c->used < n) {
		size_t cap = n > 32768 ? n : 32768;
		c = xmalloc(sizeof(*c) + cap);
		c->used = 0;
		c->cap = cap;
		c->next = a->head;
		a->head = c;
	}
	void *p = (char *)c->data + c->used;
	c->used += n;
	memset(p, 0, n);
	return p;
}

const char *sa_strndup(struct sarena *a, const char *s, size_t n)
{
	char *p = sa_alloc(a, n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

const char *sa_printf(struct sarena *a, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = xvasprintf(fmt, ap);
	va_end(ap);
	const char *r = sa_strndup(a, s, strlen(s));
	free(s);
	return r;
}

/* ---- types ---- */

static const char *const dt_names[SDT__COUNT] = {
	[SDT_NONE] = "?",     [SDT_BOOL] = "bool",  [SDT_I8] = "i8",       [SDT_I16] = "i16",
	[SDT_I32] = "i32",    [SDT_I64] = "i64",    [SDT_U8] = "u8",       [SDT_U16] = "u16",
	[SDT_U32] = "u32",    [SDT_U64] = "u64",    [SDT_F16] = "f16",     [SDT_BF16] = "bf16",
	[SDT_F32] = "f32",    [SDT_F64] = "f64",    [SDT_TF32] = "tf32",   [SDT_F8E4M3] = "f8e4m3fn",
	[SDT_F8E5M2] = "f8e5m2", [SDT_E] = "E",     [SDT_PTR] = "ptr",
};

const char *sdt_name(int d)
{
	return d >= 0 && d < SDT__COUNT ? dt_names[d] : "?";
}

bool sdt_is_int(int d)
{
	return (d >= SDT_I8 && d <= SDT_U64) || d == SDT_BOOL;
}

bool sdt_is_float(int d)
{
	return (d >= SDT_F16 && d <= SDT_F8E5M2) || d == SDT_E;
}

int sdt_from_name(const char *s, size_t n)
{
	static const struct {
		const char *name;
		int dt;
	} names[] = {
		{"float32", SDT_F32}, {"fp32", SDT_F32},     {"f32", SDT_F32},      {"float", SDT_F32},
		{"float16", SDT_F16}, {"fp16", SDT_F16},     {"f16", SDT_F16},      {"half", SDT_F16},
		{"bfloat16", SDT_BF16}, {"bf16", SDT_BF16},  {"float64", SDT_F64},  {"fp64", SDT_F64},
		{"f64", SDT_F64},     {"double", SDT_F64},   {"tfloat32", SDT_TF32}, {"tf32", SDT_TF32},
		{"int8", SDT_I8},     {"i8", SDT_I8},        {"int16", SDT_I16},    {"i16", SDT_I16},
		{"int32", SDT_I32},   {"i32", SDT_I32},      {"int", SDT_I32},      {"int64", SDT_I64},
		{"i64", SDT_I64},     {"uint8", SDT_U8},     {"u8", SDT_U8},        {"uint16", SDT_U16},
		{"u16", SDT_U16},     {"uint32", SDT_U32},   {"u32", SDT_U32},      {"uint64", SDT_U64},
		{"u64", SDT_U64},     {"bool", SDT_BOOL},    {"int1", SDT_BOOL},    {"bool_", SDT_BOOL},
		{"float8_e4m3fn", SDT_F8E4M3}, {"f8e4m3fn", SDT_F8E4M3}, {"float8_e5m2", SDT_F8E5M2},
		{"f8e5m2", SDT_F8E5M2},
	};
	for (size_t i = 0; i < TP_ARRAY_LEN(names); i++)
		if (strlen(names[i].name) == n && memcmp(names[i].name, s, n) == 0)
			return names[i].dt;
	return SDT_NONE;
}

const char *spad_name(int p)
{
	static const char *const names[] = {"UNDETERMINED", "ZERO", "NEG_ZERO", "NAN", "POS_INF",
					    "NEG_INF"};
	return p >= 0 && p < (int)TP_ARRAY_LEN(names) ? names[p] : "?";
}

bool shint_eq(const struct shint *a, const struct shint *b)
{
	return a->latency == b->latency && a->tma == b->tma && a->ftz == b->ftz && a->rnd == b->rnd &&
	       a->nan == b->nan &&
	       (a->lat_sym == b->lat_sym || (a->lat_sym && b->lat_sym && !strcmp(a->lat_sym, b->lat_sym)));
}

/* ---- the node table ---- */

void sg_init(struct sgraph *g, int side)
{
	memset(g, 0, sizeof(*g));
	g->arena = sarena_new();
	g->side = side;
	g->cap = 256;
	g->n = xcalloc(g->cap, sizeof(*g->n));
	g->nn = 1; /* 0 is none */
	g->htcap = 1024;
	g->ht = xcalloc(g->htcap, sizeof(*g->ht));
}

void sg_free(struct sgraph *g)
{
	sarena_free(g->arena);
	free(g->n);
	free(g->ht);
	free(g->loops);
	free(g->eff);
	free(g->unused_loads);
	free(g->problem);
	memset(g, 0, sizeof(*g));
}

static uint32_t node_hash(const struct snode *p, const sid *args, size_t nargs)
{
	uint64_t h = 1469598103934665603ull;
#define MIX(v) (h = (h ^ (uint64_t)(v)) * 1099511628211ull)
	MIX(p->op);
	MIX(p->dt);
	MIX(p->rank);
	MIX(p->flags);
	MIX((uint16_t)p->attr);
	MIX(p->ival);
	uint64_t fb;
	memcpy(&fb, &p->fval, sizeof(fb));
	MIX(fb);
	for (int i = 0; i < p->rank; i++)
		MIX(p->dims[i]);
	for (size_t i = 0; i < nargs; i++)
		MIX(args[i]);
	MIX((uint16_t)p->h.latency);
	MIX((uint8_t)p->h.tma);
	MIX((uint8_t)p->h.ftz);
	MIX((uint8_t)p->h.rnd);
	MIX((uint8_t)p->h.nan);
	if (p->name)
		for (const char *s = p->name; *s; s++)
			MIX((unsigned char)*s);
	if (p->h.lat_sym)
		for (const char *s = p->h.lat_sym; *s; s++)
			MIX((unsigned char)*s);
#undef MIX
	return (uint32_t)(h ^ (h >> 32));
}

static bool node_same(const struct snode *a, const struct snode *p, const sid *args, size_t nargs)
{
	if (a->op != p->op || a->dt != p->dt || a->rank != p->rank || a->flags != p->flags ||
	    a->attr != p->attr || a->ival != p->ival || a->nargs != nargs)
		return false;
	if (memcmp(&a->fval, &p->fval, sizeof(double)) != 0)
		return false;
	if (memcmp(a->dims, p->dims, sizeof(sid) * a->rank) != 0)
		return false;
	if (nargs && memcmp(a->args, args, nargs * sizeof(sid)) != 0)
		return false;
	if (!shint_eq(&a->h, &p->h))
		return false;
	if ((a->name == NULL) != (p->name == NULL) || (a->name && strcmp(a->name, p->name) != 0))
		return false;
	return true;
}

static void rehash(struct sgraph *g)
{
	free(g->ht);
	g->htcap *= 2;
	g->ht = xcalloc(g->htcap, sizeof(*g->ht));
	for (sid i = 1; i < g->nn; i++) {
		size_t k = g->n[i].hash & (g->htcap - 1);
		while (g->ht[k])
			k = (k + 1) & (g->htcap - 1);
		g->ht[k] = i;
	}
}

sid sg_node(struct sgraph *g, const struct snode *proto, const sid *args, size_t nargs)
{
	uint32_t h = node_hash(proto, args, nargs);
	size_t k = h & (g->htcap - 1);
	for (sid i; (i = g->ht[k]); k = (k + 1) & (g->htcap - 1))
		if (g->n[i].hash == h && node_same(&g->n[i], proto, args, nargs))
			return i;
	if (g->nn == g->cap) {
		g->cap *= 2;
		g->n = xrealloc(g->n, g->cap * sizeof(*g->n));
	}
	sid id = (sid)g->nn++;
	struct snode *n = &g->n[id];
	*n = *proto;
	n->hash = h;
	n->nargs = (uint16_t)nargs;
	n->line = g->line;
	n->var = NULL;
	if (nargs) {
		n->args = sa_alloc(g->arena, nargs * sizeof(sid));
		memcpy(n->args, args, nargs * sizeof(sid));
	} else {
		n->args = NULL;
	}
	g->ht[k] = id;
	if (g->nn * 2 > g->htcap)
		rehash(g);
	return id;
}

static struct snode proto_of(int op, int dt)
{
	struct snode p;
	memset(&p, 0, sizeof(p));
	p.op = (uint8_t)op;
	p.dt = (uint8_t)dt;
	p.h = SHINT_NONE;
	return p;
}

sid sg_leaf(struct sgraph *g, int op, int64_t ival, int dt)
{
	struct snode p = proto_of(op, dt);
	p.ival = ival;
	return sg_node(g, &p, NULL, 0);
}

sid sg_int(struct sgraph *g, int64_t v)
{
	return sg_leaf(g, S_INT, v, SDT_I32);
}

sid sg_float(struct sgraph *g, double v, int dt)
{
	struct snode p = proto_of(S_FLOAT, dt);
	p.fval = v;
	return sg_node(g, &p, NULL, 0);
}

sid sg_bool(struct sgraph *g, bool v)
{
	return sg_leaf(g, S_BOOL, v, SDT_BOOL);
}

sid sg_undef(struct sgraph *g, int dt)
{
	return sg_leaf(g, S_UNDEF, 0, dt);
}

sid sg_param(struct sgraph *g, int index)
{
	const struct sparam *pm = &g->params[index];
	struct snode p = proto_of(S_PARAM, pm->kind == SPK_ARRAY ? SDT_PTR : pm->dt);
	p.ival = index;
	p.name = pm->name;
	return sg_node(g, &p, NULL, 0);
}

int sg_add_loop(struct sgraph *g, int parent, int line)
{
	g->loops = xgrow(g->loops, &g->caploops, g->nloops + 1, sizeof(*g->loops));
	struct sloop *l = &g->loops[g->nloops];
	memset(l, 0, sizeof(*l));
	l->parent = parent;
	l->line = line;
	return (int)g->nloops++;
}

void sg_add_effect(struct sgraph *g, const struct seffect *e)
{
	g->eff = xgrow(g->eff, &g->capeff, g->neff + 1, sizeof(*g->eff));
	g->eff[g->neff++] = *e;
}

void sg_problem(struct sgraph *g, int line, const char *fmt, ...)
{
	if (g->problem)
		return;
	va_list ap;
	va_start(ap, fmt);
	g->problem = xvasprintf(fmt, ap);
	va_end(ap);
	g->problem_line = line;
}

/* ---- shapes ---- */

bool sg_dims_eq(const sid *a, int ra, const sid *b, int rb)
{
	return ra == rb && memcmp(a, b, sizeof(sid) * (size_t)ra) == 0;
}

bool sg_same_shape(const struct sgraph *g, sid a, sid b)
{
	return sg_dims_eq(g->n[a].dims, g->n[a].rank, g->n[b].dims, g->n[b].rank);
}

bool sg_is_int_lit(const struct sgraph *g, sid x, int64_t *v)
{
	if (!x || g->n[x].op != S_INT)
		return false;
	if (v)
		*v = g->n[x].ival;
	return true;
}

bool sg_is_float_lit(const struct sgraph *g, sid x, double *v)
{
	if (!x || (g->n[x].op != S_FLOAT && g->n[x].op != S_INT))
		return false;
	if (v)
		*v = g->n[x].op == S_FLOAT ? g->n[x].fval : (double)g->n[x].ival;
	return true;
}

bool sg_bcast_shape(const struct sgraph *g, const sid *a, int ra, const sid *b, int rb, sid *out,
		    int *rout)
{
	int r = ra > rb ? ra : rb;
	if (r > SEM_MAX_RANK)
		return false;
	for (int i = 0; i < r; i++) {
		int ia = ra - r + i, ib = rb - r + i;
		sid da = ia >= 0 ? a[ia] : 0, db = ib >= 0 ? b[ib] : 0;
		int64_t va = 0, vb = 0;
		bool one_a = !da || (sg_is_int_lit(g, da, &va) && va == 1);
		bool one_b = !db || (sg_is_int_lit(g, db, &vb) && vb == 1);
		if (da == db || one_b)
			out[i] = da ? da : db;
		else if (one_a)
			out[i] = db;
		else
			return false;
	}
	*rout = r;
	return true;
}

int sg_dt(const struct sgraph *g, sid x)
{
	return x ? g->n[x].dt : SDT_NONE;
}

/* ---- constant conditions ---- */

int scase_atom(struct scase *c, const char *text, int side)
{
	for (size_t i = 0; i < c->natoms; i++)
		if (strcmp(c->atom[i], text) == 0) {
			c->side_has[i][side] = true;
			return (int)i;
		}
	if (c->natoms == SEM_MAX_ATOMS)
		return -1;
	c->atom[c->natoms] = xstrdup(text);
	c->side_has[c->natoms][0] = side == 0;
	c->side_has[c->natoms][1] = side == 1;
	return (int)c->natoms++;
}

bool scase_value(struct scase *c, int atom)
{
	if (atom < 0)
		return false;
	if (atom < 32)
		c->consulted |= 1u << atom;
	return (c->value >> atom) & 1u;
}
