/* Literal values of an operator's Python as JSON, for
 * reference/analysis.json (analysis.c): numbers, strings, bools, tuples and
 * lists, integer arithmetic, comprehensions over ranges and literal lists,
 * module constants, torch dtypes; and the configurations a tuner tries. */
#include "engine/port/analysis_int.h"

#include <cjson/cJSON.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* ---- literal values of the test file as JSON ---- */

/* A name a comprehension binds while its element is evaluated, or a
 * configurations function as it runs (value NULL: bound to something that
 * is not a literal, hiding a module constant of that name). */
struct lit_env {
	const char *name;
	const cJSON *value;
	const struct lit_env *up;
};

static cJSON *literal_in(const struct pymod *m, const struct py_node *n, int depth,
			 const struct lit_env *env);

cJSON *an_literal(const struct pymod *m, const struct py_node *n, int depth)
{
	return literal_in(m, n, depth, NULL);
}

static cJSON *module_value(const struct pymod *m, const struct py_node *name, int depth)
{
	char *s = py_str(name);
	const struct pm_const *c = pymod_const(m, s);
	free(s);
	return c && depth < 16 ? an_literal(m, c->value, depth + 1) : NULL;
}

char *an_dtype_short(const struct pymod *m, const struct py_node *n)
{
	char *c = pymod_canon(m, n);
	if (!c)
		return NULL;
	enum tdt d = str_starts(c, "torch.") ? tdt_from_name(c + 6) : DT_NONE;
	free(c);
	if (d == DT_NONE)
		return NULL;
	return xstrdup(tdt_ffi_str(d) ? tdt_ffi_str(d) : tdt_rust(d));
}

/* The values one `for` clause of a comprehension runs over: a range() of
 * literals, or a literal list or tuple (itself perhaps a comprehension). */
static cJSON *clause_values(const struct pymod *m, const struct py_node *it, int depth,
			    const struct lit_env *env)
{
	if (it->kind != PY_CALL || !py_is_name(it->kids[0], "range"))
		return literal_in(m, it, depth + 1, env);
	size_t na = py_call_nargs(it);
	long long r[3] = {0, 0, 1};
	for (size_t i = 0; i < na; i++) {
		cJSON *v = i < 3 ? literal_in(m, py_call_arg(it, i), depth + 1, env) : NULL;
		bool ok = cJSON_IsNumber(v);
		if (ok)
			r[na == 1 ? 1 : i] = (long long)v->valuedouble;
		cJSON_Delete(v);
		if (!ok)
			return NULL;
	}
	if (!na || na > 3 || r[2] == 0)
		return NULL;
	cJSON *a = cJSON_CreateArray();
	int count = 0;
	for (long long i = r[0]; r[2] > 0 ? i < r[1] : i > r[1]; i += r[2])
		if (++count > 256 || !cJSON_AddItemToArray(a, cJSON_CreateNumber((double)i)))
			break;
	return a;
}

/* Bind a clause's target (a name, or a tuple of names) to one value. */
static int bind(const struct py_node *t, const cJSON *v, const struct lit_env *up,
		struct lit_env *out, char **names, int cap)
{
	if (t->kind == PY_NAME && cap > 0) {
		names[0] = py_str(t);
		*out = (struct lit_env){names[0], v, up};
		return 1;
	}
	if (t->kind != PY_TUPLE || !cJSON_IsArray(v) || (size_t)cJSON_GetArraySize(v) != t->nkids)
		return -1;
	int n = 0;
	const struct lit_env *link = up;
	const cJSON *e = v->child;
	for (size_t k = 0; k < t->nkids; k++, e = e->next) {
		int got = bind(t->kids[k], e, link, &out[n], names + n, cap - n);
		if (got < 0)
			return -1;
		link = &out[n + got - 1];
		n += got;
	}
	return n;
}

static void free_names(char **names, int n)
{
	for (int i = 0; i < n; i++)
		free(names[i]);
}

/* The elements of `for` clauses k.. of a comprehension, appended to out. */
static bool expand(const struct pymod *m, const struct py_node *n, size_t k, int depth,
		   const struct lit_env *env, cJSON *out)
{
	if (k == n->nkids) {
		cJSON *v = cJSON_GetArraySize(out) < 256 ? literal_in(m, n->kids[0], depth + 1, env) : NULL;
		return v && cJSON_AddItemToArray(out, v);
	}
	const struct py_node *f = n->kids[k];
	if (f->kind != PY_COMPFOR || f->nkids != 2)
		return false; /* a condition: not evaluated */
	cJSON *vals = clause_values(m, f->kids[1], depth, env);
	bool ok = cJSON_IsArray(vals);
	for (const cJSON *v = ok ? vals->child : NULL; ok && v; v = v->next) {
		struct lit_env e[8];
		char *names[8];
		int nb = bind(f->kids[0], v, env, e, names, 8);
		ok = nb > 0 && expand(m, n, k + 1, depth, &e[nb - 1], out);
		free_names(names, nb > 0 ? nb : 0);
	}
	cJSON_Delete(vals);
	return ok;
}

/* Sizes written as a comprehension, as tests write sweeps
 * ([128 * 2**i for i in range(0, 8)], [(m, p) for m in [...] for p in
 * (0.5,)]): the `for` clauses over ranges and literal lists, their targets
 * names or tuples of names; at most 256 elements. */
static cJSON *comprehension(const struct pymod *m, const struct py_node *n, int depth,
			    const struct lit_env *env)
{
	if (n->nkids < 2 || (n->op != '[' && n->op != '('))
		return NULL;
	cJSON *a = cJSON_CreateArray();
	if (!expand(m, n, 1, depth, env, a)) {
		cJSON_Delete(a);
		return NULL;
	}
	return a;
}

static cJSON *literal_in(const struct pymod *m, const struct py_node *n, int depth,
			 const struct lit_env *env)
{
	if (!n || depth > 32)
		return NULL;
	long long iv;
	double d;
	switch (n->kind) {
	case PY_NUM:
	case PY_UNARY:
		if (py_int_value(n, &iv))
			return cJSON_CreateNumber((double)iv);
		if (py_float_value(n, &d))
			return cJSON_CreateNumber(d);
		return NULL;
	case PY_STR: {
		char *v = py_str_value(&m->py, n);
		cJSON *j = cJSON_CreateString(v);
		free(v);
		return j;
	}
	case PY_CONST:
		if (n->n == 4 && memcmp(n->s, "True", 4) == 0)
			return cJSON_CreateTrue();
		if (n->n == 5 && memcmp(n->s, "False", 5) == 0)
			return cJSON_CreateFalse();
		if (n->n == 4 && memcmp(n->s, "None", 4) == 0)
			return cJSON_CreateNull();
		return NULL;
	case PY_TUPLE:
	case PY_LIST: {
		cJSON *a = cJSON_CreateArray();
		for (size_t k = 0; k < n->nkids; k++) {
			cJSON *e = literal_in(m, n->kids[k], depth + 1, env);
			if (!e) {
				cJSON_Delete(a);
				return NULL;
			}
			cJSON_AddItemToArray(a, e);
		}
		return a;
	}
	case PY_NAME:
		for (const struct lit_env *e = env; e; e = e->up)
			if (n->n == strlen(e->name) && memcmp(n->s, e->name, n->n) == 0)
				return e->value ? cJSON_Duplicate(e->value, true) : NULL;
		return module_value(m, n, depth);
	case PY_COMP:
		return comprehension(m, n, depth, env);
	case PY_BINOP: {
		/* integer arithmetic of literals, as tests write sizes (1024 * 32) */
		cJSON *l = literal_in(m, n->kids[0], depth + 1, env), *r = literal_in(m, n->kids[1], depth + 1, env);
		cJSON *out = NULL;
		if (cJSON_IsNumber(l) && cJSON_IsNumber(r) && l->valuedouble == (double)(long long)l->valuedouble &&
		    r->valuedouble == (double)(long long)r->valuedouble) {
			long long a = (long long)l->valuedouble, b = (long long)r->valuedouble, v = 0;
			bool ok = true;
			switch (n->op) {
			case PYOP_ADD: ok = !__builtin_add_overflow(a, b, &v); break;
			case PYOP_SUB: ok = !__builtin_sub_overflow(a, b, &v); break;
			case PYOP_MUL: ok = !__builtin_mul_overflow(a, b, &v); break;
			case PYOP_FLOORDIV: ok = b > 0 && a >= 0; v = ok ? a / b : 0; break;
			case PYOP_LSHIFT: ok = b >= 0 && b < 62 && a >= 0 && a <= (LLONG_MAX >> b); v = ok ? a << b : 0; break;
			case PYOP_POW:
				ok = b >= 0 && b < 64;
				v = 1;
				for (long long i = 0; ok && i < b; i++)
					ok = !__builtin_mul_overflow(v, a, &v);
				break;
			default: ok = false;
			}
			if (ok && v > -(1LL << 53) && v < (1LL << 53))
				out = cJSON_CreateNumber((double)v);
		}
		cJSON_Delete(l);
		cJSON_Delete(r);
		return out;
	}
	case PY_ATTR: {
		char *dt = an_dtype_short(m, n);
		if (!dt)
			return NULL;
		cJSON *j = cJSON_CreateString(dt);
		free(dt);
		return j;
	}
	default:
		return NULL;
	}
}

/* ---- the tuner's configurations ---- */

/* At most this many configurations, and this many loop bodies walked: a
 * sweep written as loops is a few dozen; more is not a tuner's list. */
enum { TUNER_CONFIGS_MAX = 256, TUNER_BODIES_MAX = 4096 };

struct tuner_walk {
	const struct pymod *m;
	cJSON *out;
	int bodies_left;
};

/* Names a configurations function binds as it runs: literal values, or
 * NULL where the value is not one (a parameter, a call), which hides a
 * module constant of the same name. */
struct tuner_scope {
	const struct lit_env *top;
	struct tuner_local *owned;
};

struct tuner_local {
	struct lit_env env;
	char *name;
	cJSON *value;
	struct tuner_local *next;
};

static void scope_push(struct tuner_scope *sc, const struct py_node *name, const cJSON *v)
{
	struct tuner_local *l = xcalloc(1, sizeof(*l));
	l->name = py_str(name);
	l->value = v ? cJSON_Duplicate(v, true) : NULL;
	l->env = (struct lit_env){l->name, l->value, sc->top};
	l->next = sc->owned;
	sc->owned = l;
	sc->top = &l->env;
}

/* Bind the names of an assignment's target; a tuple target takes the
 * elements of a literal tuple of its length, anything else is unknown. */
static void scope_assign(struct tuner_scope *sc, const struct py_node *t, const cJSON *v)
{
	if (!t)
		return;
	if (t->kind == PY_NAME) {
		scope_push(sc, t, v);
		return;
	}
	if (t->kind == PY_STARRED) {
		scope_assign(sc, t->kids[0], NULL);
		return;
	}
	if (t->kind != PY_TUPLE && t->kind != PY_LIST)
		return; /* an attribute or an element: no name changes */
	bool split = cJSON_IsArray(v) && (size_t)cJSON_GetArraySize(v) == t->nkids;
	const cJSON *e = split ? v->child : NULL;
	for (size_t k = 0; k < t->nkids; k++, e = e ? e->next : NULL)
		scope_assign(sc, t->kids[k], e);
}

static void scope_end(struct tuner_scope *sc)
{
	while (sc->owned) {
		struct tuner_local *l = sc->owned;
		sc->owned = l->next;
		free(l->name);
		cJSON_Delete(l->value);
		free(l);
	}
}

/* After a compound statement, the names it may have assigned are unknown
 * (which arm ran, how often the loop did, is not followed). */
static void scope_forget(struct tuner_scope *sc, const struct py_node *n, int depth)
{
	if (!n || depth > 64 || n->kind == PY_DEF || n->kind == PY_CLASS || n->kind == PY_LAMBDA)
		return;
	switch (n->kind) {
	case PY_ASSIGN:
		for (size_t k = 0; k + 1 < n->nkids; k++)
			scope_assign(sc, n->kids[k], NULL);
		return;
	case PY_AUGASSIGN:
	case PY_ANNASSIGN:
	case PY_NAMED:
	case PY_FOR:
	case PY_WITHITEM:
		scope_assign(sc, n->kind == PY_WITHITEM ? n->kids[1] : n->kids[0], NULL);
		break;
	default:
		break;
	}
	for (size_t k = 0; k < n->nkids; k++)
		scope_forget(sc, n->kids[k], depth + 1);
}

static void tuner_block(struct tuner_walk *w, const struct py_node *b, const struct lit_env *env,
			int depth);

/* A `SimpleNamespace(KEY=literal, ...)` anywhere in an expression: one
 * configuration, unless a value is not a literal here. */
static void tuner_expr(struct tuner_walk *w, const struct py_node *n, const struct lit_env *env,
		       int depth)
{
	if (!n || depth > 64 || n->kind == PY_DEF || n->kind == PY_LAMBDA)
		return;
	const struct py_node *c = n->kind == PY_YIELD ? n->kids[0] : n;
	if (c && c->kind == PY_CALL && c->nkids > 1 && py_is_name(c->kids[0], "SimpleNamespace")) {
		cJSON *cfg = cJSON_CreateObject();
		for (size_t k = 1; cfg && k < c->nkids; k++) {
			const struct py_node *a = c->kids[k];
			cJSON *v = a->kind == PY_KEYWORD ? literal_in(w->m, a->kids[0], 0, env) : NULL;
			if (!v || cJSON_IsArray(v) || cJSON_IsObject(v)) {
				cJSON_Delete(v);
				cJSON_Delete(cfg);
				cfg = NULL;
				break;
			}
			char *name = xstrndup(a->s, a->n);
			cJSON_AddItemToObject(cfg, name, v);
			free(name);
		}
		bool seen = false;
		for (cJSON *e = w->out->child; cfg && e; e = e->next)
			seen |= cJSON_Compare(e, cfg, true);
		if (cfg && cfg->child && !seen && cJSON_GetArraySize(w->out) < TUNER_CONFIGS_MAX)
			cJSON_AddItemToArray(w->out, cfg);
		else
			cJSON_Delete(cfg);
		return;
	}
	for (size_t k = 0; k < n->nkids; k++)
		tuner_expr(w, n->kids[k], env, depth + 1);
}

/* A `for` over literal values (a tuple, a list, a range of literals, a
 * name bound to one) runs its body once per value; one over anything else
 * runs it once with the target unknown, so that only the configurations
 * that do not depend on it are read. */
static void tuner_for(struct tuner_walk *w, const struct py_node *s, const struct lit_env *env,
		      int depth)
{
	cJSON *vals = clause_values(w->m, s->kids[1], 0, env);
	bool ran = false;
	for (const cJSON *v = cJSON_IsArray(vals) ? vals->child : NULL; v; v = v->next) {
		if (w->bodies_left <= 0 || cJSON_GetArraySize(w->out) >= TUNER_CONFIGS_MAX)
			break;
		struct lit_env e[8];
		char *names[8];
		int nb = bind(s->kids[0], v, env, e, names, 8);
		if (nb > 0) {
			w->bodies_left--;
			tuner_block(w, s->kids[2], &e[nb - 1], depth + 1);
			ran = true;
		}
		free_names(names, nb > 0 ? nb : 0);
		if (nb <= 0)
			break;
	}
	cJSON_Delete(vals);
	if (!ran) {
		struct tuner_scope sc = {env, NULL};
		scope_assign(&sc, s->kids[0], NULL);
		tuner_block(w, s->kids[2], sc.top, depth + 1);
		scope_end(&sc);
	}
	tuner_block(w, s->kids[3], env, depth + 1);
}

static void tuner_stmt(struct tuner_walk *w, const struct py_node *s, struct tuner_scope *sc, int depth)
{
	switch (s->kind) {
	case PY_DEF:
		return;
	case PY_ASSIGN: {
		const struct py_node *value = s->kids[s->nkids - 1];
		tuner_expr(w, value, sc->top, depth + 1);
		/* a range() bound to a name is the list a loop over it runs */
		cJSON *v = clause_values(w->m, value, 0, sc->top);
		for (size_t k = 0; k + 1 < s->nkids; k++)
			scope_assign(sc, s->kids[k], v);
		cJSON_Delete(v);
		return;
	}
	case PY_FOR:
		tuner_for(w, s, sc->top, depth);
		scope_forget(sc, s, depth);
		return;
	case PY_IF:
	case PY_WHILE:
	case PY_TRY:
	case PY_EXCEPT:
	case PY_WITH:
	case PY_CLASS:
		for (size_t k = 0; k < s->nkids; k++) {
			const struct py_node *c = s->kids[k];
			if (c && c->kind == PY_BLOCK)
				tuner_block(w, c, sc->top, depth + 1);
			else if (c && c->kind == PY_EXCEPT)
				tuner_stmt(w, c, sc, depth + 1);
			else
				tuner_expr(w, c, sc->top, depth + 1);
		}
		scope_forget(sc, s, depth);
		return;
	default:
		tuner_expr(w, s, sc->top, depth + 1);
		scope_forget(sc, s, depth);
		return;
	}
}

static void tuner_block(struct tuner_walk *w, const struct py_node *b, const struct lit_env *env,
			int depth)
{
	if (!b || depth > 64)
		return;
	struct tuner_scope sc = {env, NULL};
	if (b->kind != PY_BLOCK)
		tuner_stmt(w, b, &sc, depth);
	for (size_t k = 0; b->kind == PY_BLOCK && k < b->nkids; k++)
		tuner_stmt(w, b->kids[k], &sc, depth);
	scope_end(&sc);
}

/* The configurations a tuner tries, where the operator writes them as
 * literals: each `SimpleNamespace(TILE_M=64, ...)` its functions named
 * *configs yield or return, every GPU's branch (the sm_90 list and the
 * sm_100 one are both configurations the kernel takes), each once. A
 * sweep written as nested `for` loops over literal tuples, ranges and
 * local names bound to them is run: one configuration per iteration.
 * Where those are computed (from the extents, the SM count), the literal
 * ones the host launches with when tuning is off are the configurations
 * there are to name. */
static void tuner_function(struct tuner_walk *w, const struct py_node *def)
{
	/* parameters hide module constants of their names */
	struct tuner_scope sc = {NULL, NULL};
	const struct py_node *ps = def->kids[1];
	for (size_t k = 0; ps && k < ps->nkids; k++)
		scope_push(&sc, ps->kids[k], NULL);
	tuner_block(w, def->kids[3], sc.top, 0);
	scope_end(&sc);
}

cJSON *an_tuner_configs(const struct pymod *m)
{
	cJSON *out = cJSON_CreateArray();
	struct tuner_walk w = {m, out, TUNER_BODIES_MAX};
	for (size_t i = 0; i < m->nfuncs; i++)
		if (str_ends(m->funcs[i].name, "configs") && m->funcs[i].role != PM_KERNEL)
			tuner_function(&w, m->funcs[i].def);
	for (size_t i = 0; i < m->nfuncs && !out->child; i++)
		if (m->funcs[i].role == PM_HOST)
			tuner_function(&w, m->funcs[i].def);
	return out;
}

