/* A Rust entry read into the graph: its parameters, its statements (let
 * with patterns, assignments, loops with their carried variables,
 * branches on constants decided by the case and branches on runtime
 * values merged into selections) and its expressions. The calls of the
 * cuTile Rust API are in sem_rs_call.c. */
#include "engine/sem/sem_rsx.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool rx_name_is(const struct rnode *n, const char *s)
{
	return rn_is(n, s);
}

void rx_problem(struct rctx *c, const struct rnode *at, const char *fmt, ...)
{
	if (c->g->problem)
		return;
	va_list ap;
	va_start(ap, fmt);
	char *m = xvasprintf(fmt, ap);
	va_end(ap);
	sg_problem(c->g, at ? at->line : c->g->line, "%s", m);
	free(m);
}

sid rx_node(struct rctx *c, struct sval v, const struct rnode *at)
{
	if (v.k == SV_NODE && v.x)
		return v.x;
	if (v.k == SV_SOME && v.nel)
		return rx_node(c, v.el[0], at);
	if (v.k == SV_TUPLE && v.nel == 2 && v.el[0].k == SV_NODE && v.el[1].k == SV_TOKEN)
		return v.el[0].x;
	rx_problem(c, at, "a value the check does not follow is used as a tile or scalar");
	return sg_undef(c->g, SDT_NONE);
}

int rx_type_dt(const struct rnode *t)
{
	if (!t || t->kind != RN_TYPE)
		return SDT_NONE;
	if (t->op == '(' )
		return t->nkids ? rx_type_dt(t->kids[0]) : SDT_NONE;
	if (t->op == '&' || t->op == '*')
		return t->nkids ? rx_type_dt(t->kids[0]) : SDT_NONE;
	if (!t->s)
		return SDT_NONE;
	if (rn_is(t, "Tile") || rn_is(t, "PointerTile") || rn_is(t, "Tensor") || rn_is(t, "Partition") ||
	    rn_is(t, "PartitionMut"))
		return t->nkids ? rx_type_dt(t->kids[0]) : SDT_NONE;
	int d = sdt_from_name(t->s, t->n);
	if (d != SDT_NONE)
		return d;
	/* a type parameter: the generic element type */
	if (t->n <= 2 && t->s[0] >= 'A' && t->s[0] <= 'Z')
		return SDT_E;
	return SDT_NONE;
}

/* ---- patterns ---- */

static void bind(struct rctx *c, const struct rnode *pat, struct sval v)
{
	if (!pat)
		return;
	if (pat->kind == RN_PIDENT) {
		senv_set(c->g, &c->env, pat->s, pat->n, v);
	} else if (pat->kind == RN_PTUPLE) {
		if (v.k == SV_TUPLE) {
			for (size_t i = 0; i < pat->nkids && i < v.nel; i++)
				bind(c, pat->kids[i], v.el[i]);
		} else if (v.k == SV_NODE && pat->nkids == 2) {
			/* (tile, token) of a view load */
			bind(c, pat->kids[0], v);
			bind(c, pat->kids[1], sv_kind(SV_TOKEN));
		} else {
			rx_problem(c, pat, "a tuple pattern over a value that is not a tuple");
		}
	}
}

/* ---- statements ---- */

static struct sval block(struct rctx *c, const struct rnode *b);

static void stmt(struct rctx *c, const struct rnode *s)
{
	if (c->g->problem)
		return;
	c->g->line = s->line;
	switch (s->kind) {
	case RN_LET: {
		int save = c->want_dt;
		const struct rnode *save_type = c->want_type;
		c->want_dt = rx_type_dt(s->kids[1]);
		c->want_type = s->kids[1];
		struct sval v = s->kids[2] ? rx_expr(c, s->kids[2]) : sv_kind(SV_VOID);
		c->want_dt = save;
		c->want_type = save_type;
		bind(c, s->kids[0], v);
		break;
	}
	case RN_ASSIGN: {
		const struct rnode *place = s->kids[0];
		if (place->kind != RN_PATH) {
			rx_problem(c, s, "an assignment to something other than a variable");
			return;
		}
		struct svar *var = senv_find(&c->env, place->s, place->n);
		if (!var) {
			rx_problem(c, s, "an assignment to %.*s, which is not declared", (int)place->n, place->s);
			return;
		}
		int save = c->want_dt;
		c->want_dt = var->v.k == SV_NODE ? sg_dt(c->g, var->v.x) : SDT_NONE;
		struct sval v = rx_expr(c, s->kids[1]);
		c->want_dt = save;
		if (s->op != '=') {
			sid a = rx_node(c, var->v, s), b = rx_node(c, v, s);
			int op = s->op == '/' && sdt_is_int(sg_dt(c->g, a)) ? 'd' : s->op;
			if (op == '&' || op == '|' || op == '^')
				v = sv_node(sg_dt(c->g, a) == SDT_BOOL
						    ? (op == '&' ? bc_and(c->g, a, b) : op == '|' ? bc_or(c->g, a, b) : bc_xor(c->g, a, b))
						    : ic_bit(c->g, op, a, b));
			else
				v = sv_node(sc_arith(c->g, op, a, b, SHINT_NONE));
		}
		senv_assign(c->g, &c->env, place->s, place->n, v);
		break;
	}
	case RN_EXPR:
		rx_expr(c, s->kids[0]);
		break;
	default:
		break;
	}
}

static struct sval block(struct rctx *c, const struct rnode *b)
{
	if (b->kind != RN_BLOCK)
		return rx_expr(c, b);
	senv_push(&c->env);
	struct sval v = sv_kind(SV_VOID);
	for (size_t i = 0; i < b->nkids && !c->g->problem; i++) {
		const struct rnode *s = b->kids[i];
		if (i + 1 == b->nkids && b->flag && s->kind == RN_EXPR) {
			c->g->line = s->line;
			v = rx_expr(c, s->kids[0]);
		} else {
			stmt(c, s);
		}
	}
	senv_pop(&c->env);
	return v;
}

/* ---- branches ---- */

static struct sval merge(struct rctx *c, sid cond, struct sval t, struct sval e, const struct rnode *at)
{
	if (t.k == SV_VOID)
		return e;
	if (e.k == SV_VOID || sv_same(&t, &e))
		return t;
	if (t.k == SV_NODE && e.k == SV_NODE)
		return t.x == e.x ? t : sv_node(sc_select(c->g, cond, t.x, e.x));
	if (t.k == SV_TOKEN && e.k == SV_TOKEN)
		return t;
	if (t.k == e.k && t.k == SV_PART && t.arr == e.arr && sg_dims_eq(t.dims, t.rank, e.dims, e.rank))
		return t;
	rx_problem(c, at, "branches on a runtime value that set something other than a tile or scalar");
	return t;
}

static struct sval eval_if(struct rctx *c, const struct rnode *n)
{
	struct sval cv = rx_expr(c, n->kids[0]);
	sid cond = rx_node(c, cv, n);
	int known = sem_cond_value(c->g, c->b, cond);
	if (known == 1)
		return block(c, n->kids[1]);
	if (known == 0)
		return n->kids[2] ? block(c, n->kids[2]) : sv_kind(SV_VOID);
	/* a runtime condition: both arms, merged */
	struct senv before = senv_copy(&c->env);
	sid outer = c->cond;
	c->cond = outer ? bc_and(c->g, outer, cond) : cond;
	struct sval tv = block(c, n->kids[1]);
	struct senv after_then = senv_copy(&c->env);
	senv_free(&c->env);
	c->env = senv_copy(&before);
	sid notc = bc_not(c->g, cond);
	c->cond = outer ? bc_and(c->g, outer, notc) : notc;
	struct sval ev = n->kids[2] ? block(c, n->kids[2]) : sv_kind(SV_VOID);
	c->cond = outer;
	for (size_t i = 0; i < before.n && i < c->env.n && i < after_then.n; i++) {
		struct sval a = after_then.v[i].v, b = c->env.v[i].v;
		if (sv_same(&a, &b))
			continue;
		c->env.v[i].v = merge(c, cond, a, b, n);
	}
	senv_free(&before);
	senv_free(&after_then);
	if (n->kids[2] && tv.k != SV_VOID && ev.k != SV_VOID)
		return merge(c, cond, tv, ev, n);
	return sv_kind(SV_VOID);
}

/* ---- loops ---- */

static void assigned(const struct rnode *n, const char **names, uint32_t *lens, size_t *k, size_t max)
{
	if (!n)
		return;
	if (n->kind == RN_CLOSURE)
		return;
	if (n->kind == RN_ASSIGN && n->kids[0]->kind == RN_PATH) {
		for (size_t i = 0; i < *k; i++)
			if (lens[i] == n->kids[0]->n && memcmp(names[i], n->kids[0]->s, lens[i]) == 0)
				goto kids;
		if (*k < max) {
			names[*k] = n->kids[0]->s;
			lens[(*k)++] = n->kids[0]->n;
		}
	}
kids:
	for (size_t i = 0; i < n->nkids; i++)
		assigned(n->kids[i], names, lens, k, max);
}

struct rs_body {
	struct rctx *c;
	const struct rnode *body;
};

static void rs_loop_body(void *ud, int loop)
{
	struct rs_body *b = ud;
	int outer = b->c->loop;
	b->c->loop = loop;
	block(b->c, b->body);
	b->c->loop = outer;
}

static struct sval eval_for(struct rctx *c, const struct rnode *n)
{
	struct sval it = rx_expr(c, n->kids[1]);
	if (it.k != SV_RANGE) {
		rx_problem(c, n, "a for loop over something other than a range");
		return sv_kind(SV_VOID);
	}
	const char *names[64];
	uint32_t lens32[64];
	size_t nc = 0, lens[64];
	assigned(n->kids[2], names, lens32, &nc, 64);
	for (size_t i = 0; i < nc; i++)
		lens[i] = lens32[i];
	const struct rnode *pat = n->kids[0];
	const char *iv = pat->kind == RN_PIDENT ? pat->s : "_";
	size_t ivn = pat->kind == RN_PIDENT ? pat->n : 1;
	struct rs_body b = {c, n->kids[2]};
	struct sloop_in in = {it.lo, it.hi, it.step, c->loop, n->line, iv, ivn, names, lens, nc, true,
			      rs_loop_body, &b};
	char *problem = NULL;
	if (sem_loop(c->g, &c->env, &in, &problem) < 0 && problem) {
		rx_problem(c, n, "%s", problem);
		free(problem);
	}
	return sv_kind(SV_VOID);
}

/* ---- expressions ---- */

static struct sval binary(struct rctx *c, const struct rnode *n)
{
	struct sgraph *g = c->g;
	struct sval lv = rx_expr(c, n->kids[0]);
	int save = c->want_dt;
	if (lv.k == SV_NODE && sdt_is_float(sg_dt(g, lv.x)))
		c->want_dt = sg_dt(g, lv.x);
	struct sval rv = rx_expr(c, n->kids[1]);
	c->want_dt = save;
	if (lv.k == SV_PTR && (n->op == '+' || n->op == '-')) {
		/* pointer arithmetic on a pointer tile */
		sid off = rx_node(c, rv, n);
		lv.x = n->op == '+' ? ic_add(g, lv.x, off) : ic_sub(g, lv.x, off);
		return lv;
	}
	sid a = rx_node(c, lv, n), b = rx_node(c, rv, n);
	g->line = n->line;
	bool isbool = sg_dt(g, a) == SDT_BOOL && sg_dt(g, b) == SDT_BOOL;
	switch (n->op) {
	case RB_ADD:
	case RB_SUB:
	case RB_MUL:
	case RB_REM:
		return sv_node(sc_arith(g, n->op, a, b, SHINT_NONE));
	case RB_DIV:
		return sv_node(sc_arith(g, sdt_is_int(sg_dt(g, a)) && sdt_is_int(sg_dt(g, b)) ? 'd' : '/', a, b,
					SHINT_NONE));
	case RB_LT:
	case RB_LE:
	case RB_GT:
	case RB_GE:
	case RB_EQ:
	case RB_NE:
		return sv_node(sc_cmp(g, n->op, a, b));
	case RB_LAND:
		return sv_node(bc_and(g, a, b));
	case RB_LOR:
		return sv_node(bc_or(g, a, b));
	case RB_AND:
		return sv_node(isbool ? bc_and(g, a, b) : ic_bit(g, '&', a, b));
	case RB_OR:
		return sv_node(isbool ? bc_or(g, a, b) : ic_bit(g, '|', a, b));
	case RB_XOR:
		return sv_node(isbool ? bc_xor(g, a, b) : ic_bit(g, '^', a, b));
	case RB_SHL:
		return sv_node(ic_bit(g, '<', a, b));
	case RB_SHR:
		return sv_node(ic_bit(g, '>', a, b));
	}
	return sv_kind(SV_UNKNOWN);
}

static struct sval path(struct rctx *c, const struct rnode *n)
{
	struct sgraph *g = c->g;
	struct svar *v = senv_find(&c->env, n->s, n->n);
	if (v)
		return v->v;
	if (rn_is(n, "None"))
		return sv_kind(SV_NONEV);
	int dt = sdt_is_float(c->want_dt) ? c->want_dt : SDT_F32;
	if (rn_is(n, "INFINITY"))
		return sv_node(sg_float(g, __builtin_inf(), dt));
	if (rn_is(n, "NEG_INFINITY"))
		return sv_node(sg_float(g, -__builtin_inf(), dt));
	if (rn_is(n, "MAX"))
		return sv_node(sg_float(g, 3.4028234663852886e38, dt));
	if (rn_is(n, "MIN"))
		return sv_node(sg_float(g, -3.4028234663852886e38, dt));
	if (rn_is(n, "NAN"))
		return sv_node(sg_float(g, __builtin_nan(""), dt));
	/* an API enum member or function name */
	struct sval e = sv_kind(SV_ENUM);
	e.name = sa_strndup(g->arena, n->s, n->n);
	e.ref = n;
	return e;
}

static struct sval inline_fn(struct rctx *c, const struct rnode *call, const struct rfn *fn)
{
	if (c->depth > 16) {
		rx_problem(c, call, "functions call each other too deeply");
		return sv_kind(SV_UNKNOWN);
	}
	struct sval args[32];
	size_t na = call->nkids - 1;
	if (na > 32 || na != fn->nparams) {
		rx_problem(c, call, "a call of %.*s with %zu arguments", (int)fn->n, fn->name, na);
		return sv_kind(SV_UNKNOWN);
	}
	for (size_t i = 0; i < na; i++)
		args[i] = rx_expr(c, call->kids[1 + i]);
	struct senv saved = c->env;
	struct senv local = {0};
	/* a device function sees its parameters and the entry's constants */
	for (size_t i = 0; i < saved.n; i++)
		if (saved.v[i].scope == 0)
			senv_set(c->g, &local, saved.v[i].name, saved.v[i].n, saved.v[i].v);
	for (size_t i = 0; i < na; i++)
		senv_set(c->g, &local, fn->params[i].name, fn->params[i].n, args[i]);
	c->env = local;
	c->depth++;
	struct sval r = block(c, fn->body);
	c->depth--;
	senv_free(&c->env);
	c->env = saved;
	return r;
}

struct sval rx_expr(struct rctx *c, const struct rnode *n)
{
	struct sgraph *g = c->g;
	if (!n || g->problem)
		return sv_kind(SV_UNKNOWN);
	switch (n->kind) {
	case RN_INT:
		if (n->s && n->s[0] == 'f')
			return sv_node(sg_float(g, (double)n->ival, sdt_from_name(n->s, n->n)));
		return sv_node(sg_int(g, n->ival));
	case RN_FLOAT: {
		int dt = n->s ? sdt_from_name(n->s, n->n) : sdt_is_float(c->want_dt) ? c->want_dt : SDT_NONE;
		return sv_node(sg_float(g, n->fval, dt));
	}
	case RN_BOOL:
		return sv_node(sg_bool(g, n->ival));
	case RN_STR: {
		struct sval s = sv_kind(SV_STR);
		return s;
	}
	case RN_PATH:
		return path(c, n);
	case RN_CALL: {
		const struct rnode *callee = n->kids[0];
		g->line = n->line;
		if (callee->kind != RN_PATH) {
			rx_problem(c, n, "a call of something other than a named function");
			return sv_kind(SV_UNKNOWN);
		}
		if (rn_is(callee, "Some") && n->nkids == 2) {
			struct sval s = sv_kind(SV_SOME);
			struct sval in = rx_expr(c, n->kids[1]);
			s.el = sa_alloc(g->arena, sizeof(in));
			s.el[0] = in;
			s.nel = 1;
			return s;
		}
		for (size_t i = 0; i < c->f->nfns; i++) {
			const struct rfn *fn = &c->f->fns[i];
			if (!fn->entry && fn->n == callee->n && memcmp(fn->name, callee->s, fn->n) == 0)
				return inline_fn(c, n, fn);
		}
		bool handled = false;
		char name[64];
		snprintf(name, sizeof(name), "%.*s", (int)callee->n, callee->s);
		struct sval r = rx_call(c, n, name, &handled);
		if (!handled)
			rx_problem(c, n, "a call of %s, which the check does not know", name);
		return r;
	}
	case RN_METHOD: {
		struct sval recv = rx_expr(c, n->kids[0]);
		g->line = n->line;
		bool handled = false;
		struct sval r = rx_method(c, n, recv, &handled);
		if (!handled)
			rx_problem(c, n, "a method %.*s the check does not know", (int)n->n, n->s);
		return r;
	}
	case RN_FIELD: {
		struct sval o = rx_expr(c, n->kids[0]);
		if (o.k == SV_TUPLE && n->s[0] >= '0' && n->s[0] <= '9') {
			size_t i = (size_t)strtoul(n->s, NULL, 10);
			if (i < o.nel)
				return o.el[i];
		}
		rx_problem(c, n, "a field .%.*s the check does not follow", (int)n->n, n->s);
		return sv_kind(SV_UNKNOWN);
	}
	case RN_INDEX: {
		struct sval o = rx_expr(c, n->kids[0]);
		struct sval iv = rx_expr(c, n->kids[1]);
		int64_t i;
		if (iv.k != SV_NODE || !sg_is_int_lit(g, iv.x, &i)) {
			rx_problem(c, n, "an index that is not a constant");
			return sv_kind(SV_UNKNOWN);
		}
		if (o.k == SV_TUPLE && i >= 0 && (size_t)i < o.nel)
			return o.el[i];
		if (o.k == SV_SHAPEV) {
			struct snode p;
			memset(&p, 0, sizeof(p));
			p.op = S_SHAPE;
			p.dt = SDT_I32;
			p.ival = i;
			p.h = SHINT_NONE;
			return sv_node(sg_node(g, &p, &o.arr, 1));
		}
		rx_problem(c, n, "an index into something the check does not follow");
		return sv_kind(SV_UNKNOWN);
	}
	case RN_UNARY: {
		struct sval v = rx_expr(c, n->kids[0]);
		if (n->op == '&' || n->op == 'm' || n->op == '*')
			return v;
		sid x = rx_node(c, v, n);
		if (n->op == '-')
			return sv_node(sdt_is_float(sg_dt(g, x)) || g->n[x].op == S_FLOAT ? fc_neg(g, x) : ic_neg(g, x));
		return sv_node(sg_dt(g, x) == SDT_BOOL ? bc_not(g, x) : ic_bit(g, '~', x, 0));
	}
	case RN_BINARY:
		return binary(c, n);
	case RN_CAST: {
		struct sval v = rx_expr(c, n->kids[0]);
		int dt = rx_type_dt(n->kids[1]);
		if (v.k != SV_NODE)
			return v;
		if (sdt_is_float(dt) && !sdt_is_float(sg_dt(g, v.x)))
			return sv_node(sc_convert(g, v.x, dt));
		return v;
	}
	case RN_RANGE: {
		struct sval r = sv_kind(SV_RANGE);
		r.lo = n->kids[0] ? rx_node(c, rx_expr(c, n->kids[0]), n) : sg_int(g, 0);
		r.hi = n->kids[1] ? rx_node(c, rx_expr(c, n->kids[1]), n) : 0;
		if (n->op == '=' && r.hi)
			r.hi = ic_add(g, r.hi, sg_int(g, 1));
		r.step = sg_int(g, 1);
		if (!r.hi)
			rx_problem(c, n, "a range with no end");
		return r;
	}
	case RN_TUPLE:
	case RN_ARRAY: {
		struct sval el[SEM_MAX_ARGS];
		size_t k = 0;
		for (size_t i = 0; i < n->nkids && k < SEM_MAX_ARGS; i++)
			el[k++] = rx_expr(c, n->kids[i]);
		return sv_tuple(g, el, k);
	}
	case RN_REPEAT: {
		struct sval v = rx_expr(c, n->kids[0]);
		struct sval cnt = rx_expr(c, n->kids[1]);
		int64_t k;
		if (cnt.k != SV_NODE || !sg_is_int_lit(g, cnt.x, &k) || k < 0 || k > SEM_MAX_ARGS) {
			rx_problem(c, n, "an array repeat the check does not follow");
			return sv_kind(SV_UNKNOWN);
		}
		struct sval el[SEM_MAX_ARGS];
		for (int64_t i = 0; i < k; i++)
			el[i] = v;
		return sv_tuple(g, el, (size_t)k);
	}
	case RN_BLOCK:
		return block(c, n);
	case RN_IF:
		return eval_if(c, n);
	case RN_FOR:
		return eval_for(c, n);
	case RN_WHILE:
	case RN_LOOP:
		rx_problem(c, n, "a %s loop (the check follows for loops over ranges)",
			   n->kind == RN_WHILE ? "while" : "loop");
		return sv_kind(SV_UNKNOWN);
	case RN_MACRO: {
		if (rn_is(n, "const_shape") || rn_is(n, "const_array") || rn_is(n, "vec")) {
			struct sval el[SEM_MAX_ARGS];
			size_t k = 0;
			for (size_t i = 0; i < n->nkids && k < SEM_MAX_ARGS; i++)
				el[k++] = rx_expr(c, n->kids[i]);
			return sv_tuple(g, el, k);
		}
		/* assert!, debug_assert!, eprintln! ...: no value the kernel computes */
		return sv_kind(SV_VOID);
	}
	case RN_CLOSURE:
		rx_problem(c, n, "a closure");
		return sv_kind(SV_UNKNOWN);
	case RN_OTHER:
		/* a struct literal's value (a tensor view's Shape and Array) is
		 * followed where it is used, make_tensor_view reading none */
		if (n->s && rn_is(n, "struct literal"))
			return sv_kind(SV_UNKNOWN);
		rx_problem(c, n, "%s", n->s ? n->s : "syntax the check does not follow");
		return sv_kind(SV_UNKNOWN);
	default:
		return sv_kind(SV_VOID);
	}
}

/* ---- an entry ---- */

/* A generic the launcher computes from the others (N_TIMES_N is `N * N`):
 * the entry reads that computation wherever it names the generic. */
static void derived_generic(struct rctx *c, const struct sparam *p)
{
	char *src = xasprintf("fn derived() { %s }", p->derived_expr);
	struct rfile df;
	memset(&df, 0, sizeof(df));
	rs_parse(&df, src, strlen(src));
	const struct rnode *body = !df.error && df.nfns == 1 ? df.fns[0].body : NULL;
	const struct rnode *x = body && body->nkids == 1 ? body->kids[0] : NULL;
	if (x && x->kind == RN_EXPR && x->nkids)
		x = x->kids[0];
	struct sval v = x ? rx_expr(c, x) : sv_kind(SV_UNKNOWN);
	if (v.k == SV_NODE)
		senv_set(c->g, &c->env, p->name, strlen(p->name), v);
	rs_file_free(&df);
	free(src);
}

void sem_rs_read(struct sgraph *g, struct sside *side, const struct rfile *f, const struct rfn *fn,
		 const struct sbind *b)
{
	struct rctx c = {.g = g, .side = side, .b = b, .f = f, .fn = fn, .loop = -1};
	side->first_line = fn->line;
	side->last_line = fn->end_line;
	side->name = sa_strndup(g->arena, fn->name, fn->n);
	/* parameters are in g->params (the driver read them): in scope 0 */
	for (size_t i = 0; i < g->nparams; i++) {
		const struct sparam *p = &g->params[i];
		sid x;
		if (p->derived) {
			struct snode q;
			memset(&q, 0, sizeof(q));
			q.op = (uint8_t)p->derived;
			q.dt = SDT_I32;
			q.ival = p->derived_axis;
			q.h = SHINT_NONE;
			sid arr = sg_param(g, p->derived_of);
			x = sg_node(g, &q, &arr, 1);
		} else if (p->kind == SPK_CONST && p->dt == SDT_BOOL && p->name &&
			   str_starts(p->name, "E_IS_")) {
			/* the translator's test of the element type */
			const char *dt = p->name + 5;
			char lower[16];
			size_t k = 0;
			for (; dt[k] && k < sizeof(lower) - 1; k++)
				lower[k] = (char)(dt[k] >= 'A' && dt[k] <= 'Z' ? dt[k] - 'A' + 'a' : dt[k]);
			lower[k] = '\0';
			x = sc_opaque(g, sa_printf(g->arena, "dtype:E == %s", lower), NULL, 0, SDT_BOOL);
		} else {
			x = sg_param(g, (int)i);
		}
		senv_set(g, &c.env, p->name, strlen(p->name), sv_node(x));
	}
	for (size_t i = 0; i < g->nparams; i++)
		if (g->params[i].derived_expr)
			derived_generic(&c, &g->params[i]);
	block(&c, fn->body);
	senv_free(&c.env);
}
