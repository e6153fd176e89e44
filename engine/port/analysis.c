/* reference/analysis.json (pipeline.md §4.1) from an op's source and its
 * test file: the kernels and their structural variants with dispatch
 * conditions (from the translation), Constants with the values the host
 * passes, the grid, dtype gates, the ops used, the test_perf configs, the
 * correctness reference and tolerances. What only the toolchain can give
 * (reference IR, measured baselines) is marked deferred. */
#include "engine/port/port_impl.h"

#include "engine/base/operator.h"

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

static cJSON *literal(const struct pymod *m, const struct py_node *n, int depth)
{
	return literal_in(m, n, depth, NULL);
}

static cJSON *module_value(const struct pymod *m, const struct py_node *name, int depth)
{
	char *s = py_str(name);
	const struct pm_const *c = pymod_const(m, s);
	free(s);
	return c && depth < 16 ? literal(m, c->value, depth + 1) : NULL;
}

static char *dtype_short(const struct pymod *m, const struct py_node *n)
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
		char *dt = dtype_short(m, n);
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

static cJSON *tuner_configs(const struct pymod *m)
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

/* ---- the test file ---- */

static const struct py_node *find_def(const struct py_node *block, const char *prefix,
				      const struct py_node **cls)
{
	for (size_t k = 0; k < block->nkids; k++) {
		const struct py_node *s = block->kids[k];
		if (s->kind == PY_CLASS) {
			const struct py_node *d = find_def(s->kids[2], prefix, NULL);
			if (d) {
				if (cls)
					*cls = s;
				return d;
			}
		}
		if (s->kind == PY_DEF && s->n >= strlen(prefix) && memcmp(s->s, prefix, strlen(prefix)) == 0)
			return s;
	}
	return NULL;
}

/* test_perf's parametrisation: one config per parametrize of shapes. */
static cJSON *perf_configs(const struct pymod *m, const struct py_node *perf, cJSON **dtypes)
{
	cJSON *cfg = cJSON_CreateObject();
	*dtypes = NULL;
	const struct py_node *decos = perf ? perf->kids[0] : NULL;
	for (size_t k = 0; decos && k < decos->nkids; k++) {
		const struct py_node *d = decos->kids[k];
		if (d->kind != PY_CALL || !py_is_dotted(d->kids[0], "pytest.mark.parametrize"))
			continue;
		const struct py_node *names = py_call_arg(d, 0);
		char *ns = names && names->kind == PY_STR ? py_str_value(&m->py, names) : NULL;
		if (!ns)
			continue;
		cJSON *values = literal(m, py_call_arg(d, 1), 0);
		if (strstr(ns, "backend") || !values) {
			free(ns);
			cJSON_Delete(values);
			continue;
		}
		if (strcmp(ns, "dtype") == 0) {
			cJSON_Delete(*dtypes);
			*dtypes = values;
			free(ns);
			continue;
		}
		/* "M, N" -> "M_N" */
		char *key = xmalloc(strlen(ns) + 1), *w = key;
		for (const char *p = ns; *p; p++)
			if (*p == ',')
				*w++ = '_';
			else if (*p != ' ')
				*w++ = *p;
		*w = '\0';
		cJSON *c = cJSON_CreateObject();
		cJSON_AddItemToObject(c, "shapes", values);
		cJSON_AddItemToObject(cfg, key, c);
		free(key);
		free(ns);
	}
	if (*dtypes)
		for (cJSON *c = cfg->child; c; c = c->next)
			cJSON_AddItemToObject(c, "dtypes", cJSON_Duplicate(*dtypes, true));
	return cfg;
}

/* The function test_op compares against: a module-level (or class) def
 * it calls inside its assertion. */
static const struct py_node *reference_call(const struct pymod *m, const struct py_node *n,
					    const struct py_node *cls, const struct py_node **def)
{
	if (!n)
		return NULL;
	if (n->kind == PY_CALL && n->kids[0]->kind == PY_NAME) {
		char *name = py_str(n->kids[0]);
		const struct pm_func *f = pymod_func(m, name);
		free(name);
		if (f) {
			*def = f->def;
			return n;
		}
	}
	if (n->kind == PY_CALL && n->kids[0]->kind == PY_ATTR && cls &&
	    py_is_name(n->kids[0]->kids[0], "self")) {
		char *name = py_str(n->kids[0]);
		for (size_t k = 0; k < cls->kids[2]->nkids; k++) {
			const struct py_node *s = cls->kids[2]->kids[k];
			if (s->kind == PY_DEF && s->n == strlen(name) && memcmp(s->s, name, s->n) == 0)
				*def = s;
		}
		free(name);
		if (*def)
			return n;
	}
	for (size_t k = 0; k < n->nkids; k++) {
		const struct py_node *r = reference_call(m, n->kids[k], cls, def);
		if (r)
			return r;
	}
	return NULL;
}

static const struct py_node *assertion(const struct py_node *n)
{
	if (!n)
		return NULL;
	if (n->kind == PY_CALL) {
		char *d = py_dotted(n->kids[0]);
		bool hit = d && (str_ends(d, "assert_close") || str_ends(d, "allclose") ||
				 str_ends(d, "assert_allclose"));
		free(d);
		if (hit)
			return n;
	}
	if (n->kind == PY_ASSERT)
		return n;
	for (size_t k = 0; k < n->nkids; k++) {
		const struct py_node *r = assertion(n->kids[k]);
		if (r)
			return r;
	}
	return NULL;
}

static void add_tol(cJSON *tol, const char *dtype, double atol, double rtol)
{
	cJSON *e = cJSON_CreateObject();
	cJSON_AddNumberToObject(e, "atol", atol);
	cJSON_AddNumberToObject(e, "rtol", rtol);
	cJSON_AddItemToObject(tol, dtype, e);
}

/* atol/rtol of a dict(atol=.., rtol=..) or {"atol": .., "rtol": ..}. */
static bool tol_pair(const struct py_node *v, double *atol, double *rtol)
{
	bool a = false, r = false;
	if (v->kind == PY_CALL && py_is_name(v->kids[0], "dict")) {
		a = py_float_value(py_call_kw(v, "atol"), atol);
		r = py_float_value(py_call_kw(v, "rtol"), rtol);
	} else if (v->kind == PY_DICT) {
		for (size_t k = 0; k + 1 < v->nkids; k += 2) {
			const struct py_node *key = v->kids[k];
			if (!key || key->kind != PY_STR)
				continue;
			if (key->n >= 6 && memmem(key->s, key->n, "atol", 4))
				a = py_float_value(v->kids[k + 1], atol);
			if (key->n >= 6 && memmem(key->s, key->n, "rtol", 4))
				r = py_float_value(v->kids[k + 1], rtol);
		}
	}
	return a && r;
}

static cJSON *tolerances(const struct pymod *m, const struct py_node *assert_call,
			 const char *test_rel)
{
	cJSON *tol = cJSON_CreateObject();
	/* a module dict keyed by torch dtypes */
	for (size_t i = 0; i < m->nconsts && !tol->child; i++) {
		const struct py_node *v = m->consts[i].value;
		if (v->kind != PY_DICT)
			continue;
		for (size_t k = 0; k + 1 < v->nkids; k += 2) {
			char *dt = v->kids[k] ? dtype_short(m, v->kids[k]) : NULL;
			double a, r;
			if (dt && tol_pair(v->kids[k + 1], &a, &r))
				add_tol(tol, dt, a, r);
			free(dt);
		}
	}
	/* or literal atol=/rtol= on the assertion */
	double a, r;
	if (!tol->child && assert_call && assert_call->kind == PY_CALL &&
	    py_float_value(py_call_kw(assert_call, "atol"), &a) &&
	    py_float_value(py_call_kw(assert_call, "rtol"), &r)) {
		add_tol(tol, "f16", a, r);
		add_tol(tol, "bf16", a, r);
		add_tol(tol, "f32", a, r);
		cJSON_AddStringToObject(tol, "notes", "the same atol/rtol for every dtype (assert_close)");
	}
	if (!tol->child) {
		/* torch.testing.assert_close's own defaults */
		add_tol(tol, "f16", 1e-5, 1e-3);
		add_tol(tol, "bf16", 1e-5, 1.6e-2);
		add_tol(tol, "f32", 1e-5, 1.3e-6);
		cJSON_AddStringToObject(tol, "notes", "torch.testing.assert_close defaults: the test "
						       "gives no tolerance");
	}
	cJSON_AddStringToObject(tol, "source", test_rel);
	return tol;
}

/* ---- the source ---- */

static void add_unique(cJSON *arr, const char *s)
{
	for (cJSON *c = arr->child; c; c = c->next)
		if (strcmp(c->valuestring, s) == 0)
			return;
	cJSON_AddItemToArray(arr, cJSON_CreateString(s));
}

static void ops_used(const struct pymod *m, const struct py_node *n, cJSON *out, int depth)
{
	if (!n || depth > 200)
		return;
	if (n->kind == PY_ATTR || n->kind == PY_NAME) {
		char *c = pymod_canon(m, n);
		if (c && (str_starts(c, "ct.") || str_starts(c, "tl.") || str_starts(c, "triton."))) {
			if (str_starts(c, "ct.PaddingMode.")) {
				char *p = xasprintf("padding_mode=%s", c + strlen("ct.PaddingMode."));
				add_unique(out, p);
				free(p);
			} else if (strcmp(c, "ct.kernel") != 0 && strcmp(c, "ct.Constant") != 0 &&
				   strcmp(c, "triton.jit") != 0 && strcmp(c, "tl.constexpr") != 0 &&
				   !str_starts(c, "ct.float") && !str_starts(c, "ct.int") &&
				   !str_starts(c, "tl.float") && !str_starts(c, "tl.int") &&
				   !str_starts(c, "ct.bfloat") && !str_starts(c, "tl.bfloat")) {
				add_unique(out, c);
			}
			free(c);
			return;
		}
		free(c);
		if (n->kind == PY_NAME && py_is_name(n, "next_power_of_2"))
			add_unique(out, "next_power_of_2");
	}
	if (n->kind == PY_KEYWORD && n->n == 12 && memcmp(n->s, "check_bounds", 12) == 0)
		add_unique(out, "check_bounds");
	for (size_t k = 0; k < n->nkids; k++)
		ops_used(m, n->kids[k], out, depth + 1);
}

static char *text(const struct pymod *m, const struct py_node *n)
{
	return n ? py_node_text(&m->py, n) : xstrdup("");
}

/* An argument of the host's launch as text; a name is followed to its
 * assignment ("tile_m = max(1, 4096 // tile_n)"). */
static char *host_value(const struct pymod *m, const struct pm_func *h, const struct py_node *a)
{
	char *t = text(m, a);
	const struct py_node *v = a && h && a->kind == PY_NAME ? lw_host_assignment(h->def->kids[3], a)
							     : NULL;
	if (!v)
		return t;
	char *vt = text(m, v);
	char *r = xasprintf("%s = %s", t, vt);
	free(t);
	free(vt);
	return r;
}

/* The call of host function h that passes its parameter `name`, in
 * another function of the module: the argument, and the caller. */
static const struct py_node *caller_arg(const struct pymod *m, const struct pm_func *h,
					const struct py_node *name, const struct pm_func **caller)
{
	const struct py_node *hp = h->def->kids[1];
	size_t index = hp->nkids;
	for (size_t q = 0; q < hp->nkids; q++)
		if (hp->kids[q]->s && hp->kids[q]->n == name->n &&
		    memcmp(hp->kids[q]->s, name->s, name->n) == 0)
			index = q;
	if (index == hp->nkids)
		return NULL;
	char *pname = py_str(name);
	const struct py_node *found = NULL;
	for (size_t i = 0; i < m->nfuncs && !found; i++) {
		const struct py_node *stack[512];
		size_t sp = 0;
		if (&m->funcs[i] == h || m->funcs[i].role == PM_KERNEL)
			continue;
		stack[sp++] = m->funcs[i].def->kids[3];
		while (sp && !found) {
			const struct py_node *n = stack[--sp];
			if (!n)
				continue;
			if (n->kind == PY_CALL && py_is_name(n->kids[0], h->name)) {
				found = py_call_param(n, index, pname);
				*caller = &m->funcs[i];
			}
			for (size_t c = 0; c < n->nkids && sp < 512; c++)
				stack[sp++] = n->kids[c];
		}
	}
	free(pname);
	return found;
}

/* A literal the host passes for a Constant whose launch argument is not
 * one: a name followed to its assignment, a host parameter to the value
 * the module's caller passes, and a conditional to its first value (`3 if
 * is_causal else 1`: 3, a specialisation the host does launch). This is
 * the value the reference and the translation are both specialised for
 * where nobody gave one, in place of refir's 64, which may take no branch
 * the kernel has (`if STAGE & 1`). */
static cJSON *host_literal(const struct pymod *m, const struct pm_func *h, const struct py_node *a,
			   int hops)
{
	if (!a || hops > 8)
		return NULL;
	long long iv;
	if (a->kind == PY_NUM || a->kind == PY_UNARY)
		return py_int_value(a, &iv) ? cJSON_CreateNumber((double)iv) : NULL;
	if (a->kind == PY_CONST && a->n == 4 && memcmp(a->s, "True", 4) == 0)
		return cJSON_CreateTrue();
	if (a->kind == PY_CONST && a->n == 5 && memcmp(a->s, "False", 5) == 0)
		return cJSON_CreateFalse();
	if (a->kind == PY_IFEXP)
		return host_literal(m, h, a->kids[0], hops + 1);
	if (a->kind != PY_NAME || !h)
		return NULL;
	const struct py_node *v = lw_host_assignment(h->def->kids[3], a);
	if (v)
		return host_literal(m, h, v, hops + 1);
	const struct pm_func *caller = NULL;
	v = caller_arg(m, h, a, &caller);
	return v ? host_literal(m, caller, v, hops + 1) : NULL;
}

/* The host's value for each Constant of a kernel. */
static cJSON *constants(const struct port_op *op, const struct tkernel *k,
			const struct tentry *e)
{
	cJSON *arr = cJSON_CreateArray();
	for (size_t i = 0; i < k->nparams; i++) {
		const struct tparam *p = &k->params[i];
		if (p->kind != TP_CONST)
			continue;
		const struct pm_func *kf = pymod_func(&op->m, k->name), *h = NULL;
		const struct py_node *a = kf ? lw_host_arg(&op->m, kf, (size_t)p->source_index, &h) : NULL;
		cJSON *c = cJSON_CreateObject();
		cJSON_AddStringToObject(c, "name", p->name);
		char *v = host_value(&op->m, h, a);
		cJSON_AddStringToObject(c, "value", *v ? v : "?");
		free(v);
		cJSON *lit = a && a->kind != PY_NUM && a->kind != PY_CONST ? host_literal(&op->m, h, a, 0) : NULL;
		if (lit)
			cJSON_AddItemToObject(c, "literal", lit);
		bool generic = false;
		for (size_t g = 0; g < e->ngenerics; g++)
			generic |= strcmp(e->generics[g], p->rs) == 0;
		cJSON_AddStringToObject(c, "rust", generic ? "const generic" : "fixed by the variant");
		cJSON_AddItemToArray(arr, c);
	}
	/* a tile dimension computed from the Constants: the entry's own
	 * generic, which the launcher (and tileport compile) computes */
	for (size_t d = 0; d < e->nderived; d++) {
		cJSON *c = cJSON_CreateObject();
		cJSON_AddStringToObject(c, "name", e->derived[d].name);
		cJSON_AddStringToObject(c, "value", e->derived[d].expr);
		cJSON_AddStringToObject(c, "derived", e->derived[d].expr);
		cJSON_AddStringToObject(c, "rust", "const generic the launcher computes");
		cJSON_AddItemToArray(arr, c);
	}
	return arr;
}

static void add_null(cJSON *o, const char *k)
{
	cJSON_AddItemToObject(o, k, cJSON_CreateNull());
}

int port_analysis_json(const struct port_analysis_in *in, char **out, struct tp_err *err)
{
	*out = NULL;
	const char *src_rel = in->cutile_rel ? in->cutile_rel : in->triton_rel;
	if (!src_rel) {
		tp_err_set(err, TP_EXIT_USAGE, "%s: no src/tilegym/ops/cutile/%s.py or ops/triton/%s.py",
			   in->workspace, in->op, in->op);
		return -1;
	}
	struct port_op *op;
	/* per kernel: a refused kernel is listed (untranslated_kernels) and
	 * counted among the variants' names, the others analysed */
	if (port_open_in_partial(in->workspace, src_rel, in->op, &op, err) < 0)
		return -1;
	const struct port_refusal *refused;
	size_t nrefused = port_refused(op, &refused);
	struct pymod test = {0};
	char *test_path = path_join(in->workspace, in->test_rel);
	if (pymod_load(&test, test_path, err) < 0) {
		free(test_path);
		pymod_free(&test);
		port_close(op);
		return -1;
	}
	free(test_path);
	const char *backend = port_op_backend(op);
	cJSON *root = cJSON_CreateObject();
	cJSON_AddStringToObject(root, "kernel_name", in->op);
	cJSON_AddStringToObject(root, "source", src_rel);
	cJSON_AddStringToObject(root, "source_file", src_rel);
	if (in->cutile_rel && in->triton_rel)
		cJSON_AddStringToObject(root, "triton_source", in->triton_rel);
	size_t nentries = 0;
	for (size_t i = 0; i < op->nk; i++)
		nentries += op->k[i]->nentries;
	nentries += nrefused;
	size_t nkernels = op->nk + nrefused;
	bool autotune = false;
	struct port_launch l0;
	struct tp_err lerr = {0};
	bool have_launch = port_launch_of(op, op->k[0], &l0, &lerr) == 0;
	if (have_launch) {
		char *h = text(&op->m, l0.host->def);
		autotune = strstr(h, "autotune") != NULL;
		free(h);
	}
	cJSON_AddStringToObject(root, "launch_path", autotune ? "autotune" : "direct");
	cJSON *tuned = autotune ? tuner_configs(&op->m) : NULL;
	if (tuned && tuned->child)
		cJSON_AddItemToObject(root, "autotune_configs", tuned);
	else
		cJSON_Delete(tuned);
	cJSON_AddStringToObject(root, "pattern", nentries > 1 ? "multi_variant" : "single");
	cJSON *used = cJSON_AddArrayToObject(root, "ops_used");
	for (size_t i = 0; i < op->m.nfuncs; i++)
		if (op->m.funcs[i].role != PM_OTHER)
			ops_used(&op->m, op->m.funcs[i].def, used, 0);
	/* tests */
	const struct py_node *cls = NULL;
	const struct py_node *perf = find_def(test.py.body, "test_perf", &cls);
	const struct py_node *opcls = NULL;
	const struct py_node *top = find_def(test.py.body, "test_op", &opcls);
	cJSON *dtypes;
	/* a test without test_perf (TileGym's activations, softmax): the shapes
	 * its correctness test runs are the ones there are to benchmark */
	cJSON *configs = perf_configs(&test, perf ? perf : top, &dtypes);
	bool from_op = !perf && top;
	if (perf && top && !configs->child) {
		/* a test_perf whose sizes are not literals: test_op's are sizes
		 * the operator is tested at */
		cJSON_Delete(configs);
		cJSON_Delete(dtypes);
		configs = perf_configs(&test, top, &dtypes);
		from_op = true;
	}
	cJSON_AddItemToObject(root, "test_perf_configs", configs);
	if (from_op && !perf)
		cJSON_AddStringToObject(root, "test_perf_configs_from",
					"test_op's parametrisation (the test has no test_perf)");
	else if (from_op)
		cJSON_AddStringToObject(root, "test_perf_configs_from",
					"test_op's parametrisation (test_perf's sizes are not literals)");
	cJSON_Delete(dtypes);
	const struct py_node *assert_call = top ? assertion(top->kids[3]) : NULL;
	const struct py_node *refdef = NULL;
	if (assert_call)
		reference_call(&test, assert_call, opcls, &refdef);
	cJSON *cr = cJSON_AddObjectToObject(root, "correctness_reference");
	if (refdef) {
		char *rn = py_str(refdef);
		bool method = opcls && refdef->line > opcls->line && refdef->line <= py_end_line(&test.py, opcls);
		char *cn = method ? py_str(opcls) : NULL;
		char *fn = method ? xasprintf("%s::%s::%s", in->test_rel, cn, rn)
				  : xasprintf("%s::%s", in->test_rel, rn);
		cJSON_AddStringToObject(cr, "function", fn);
		char *rt = text(&test, refdef);
		cJSON_AddStringToObject(cr, "source", rt);
		free(rt);
		free(fn);
		free(cn);
		free(rn);
	} else {
		char *fn = xasprintf("%s::%s", in->test_rel, top ? "test_op" : "?");
		cJSON_AddStringToObject(cr, "function", fn);
		cJSON_AddStringToObject(cr, "source", "the comparison inside test_op");
		free(fn);
	}
	cJSON_AddItemToObject(root, "correctness_tolerance",
			      tolerances(&test, assert_call, in->test_rel));
	if (cls) {
		char *cn = py_str(cls);
		cJSON_AddStringToObject(root, "test_class", cn);
		free(cn);
	}
	/* the reference backend: measured online; offline the source's */
	cJSON_AddStringToObject(root, "reference_backend", backend);
	cJSON *sel = cJSON_AddObjectToObject(root, "reference_backend_selection");
	cJSON_AddStringToObject(sel, "method", in->toolchain ? "CUPTI geomean over test_perf configs"
							     : "deferred: no GPU");
	add_null(sel, "cutile_geo_mean_ms");
	add_null(sel, "triton_tileir_geo_mean_ms");
	cJSON_AddStringToObject(sel, "winner", backend);
	if (nentries > 1) {
		cJSON *pv = cJSON_AddObjectToObject(sel, "per_variant");
		for (size_t i = 0; i < op->nk; i++)
			for (size_t e = 0; e < op->k[i]->nentries; e++) {
				const struct tentry *en = &op->k[i]->entries[e];
				cJSON *v = cJSON_AddObjectToObject(pv, nkernels > 1 ? en->name : en->variant);
				cJSON_AddStringToObject(v, "winner", backend);
			}
	}
	/* variants */
	cJSON *vars = cJSON_AddArrayToObject(root, "kernel_variants");
	cJSON *c2v = cJSON_AddObjectToObject(root, "config_to_variant");
	for (size_t i = 0; i < op->nk; i++) {
		const struct tkernel *k = op->k[i];
		for (size_t e = 0; e < k->nentries; e++) {
			const struct tentry *en = &k->entries[e];
			const char *vn = nentries == 1 ? "default" : nkernels > 1 ? en->name : en->variant;
			cJSON *v = cJSON_CreateObject();
			cJSON_AddStringToObject(v, "variant_name", vn);
			cJSON_AddStringToObject(v, "variant_type", nentries == 1 ? "single" : "structural");
			cJSON_AddStringToObject(v, "kernel_function", k->name);
			cJSON_AddStringToObject(v, "dispatch_condition", en->dispatch_py);
			char *ir = nentries == 1 ? xstrdup("reference/reference.mlir")
						 : xasprintf("reference/reference_%s.mlir", vn);
			cJSON_AddStringToObject(v, "reference_ir", ir);
			free(ir);
			add_null(v, "reference_ir_f32_supplement");
			cJSON_AddItemToObject(v, "constants", constants(op, k, en));
			/* arrays whose element type is not the op's (f32 statistics,
			 * int32 indices), so that the reference compiles with them */
			cJSON *adt = cJSON_AddObjectToObject(v, "array_dtypes");
			for (size_t pi = 0; pi < k->nparams; pi++) {
				const struct tparam *p = &k->params[pi];
				const char *dn = p->kind == TP_ARRAY && p->dt != DT_E ? tdt_ffi_str(p->dt) : NULL;
				if (dn)
					cJSON_AddStringToObject(adt, p->name, dn);
			}
			cJSON_AddStringToObject(v, "reference_backend", backend);
			add_null(v, "autotune_configs");
			cJSON_AddStringToObject(v, "rust_entry", en->name);
			cJSON_AddStringToObject(v, "entry_pattern", port_entry_pattern(k, en));
			cJSON_AddItemToArray(vars, v);
		}
	}
	/* which perf config runs which variant needs the host's values; with
	 * one variant every config runs it */
	if (nentries == 1) {
		cJSON *cfg = cJSON_GetObjectItemCaseSensitive(root, "test_perf_configs");
		for (cJSON *c = cfg ? cfg->child : NULL; c; c = c->next)
			cJSON_AddStringToObject(c2v, c->string, "default");
	}
	if (have_launch) {
		cJSON *launch = cJSON_AddObjectToObject(root, "launch");
		char *hn = py_str(l0.host->def);
		cJSON_AddStringToObject(launch, "host_function", hn);
		free(hn);
		char *g = host_value(&op->m, l0.host, l0.grid);
		cJSON_AddStringToObject(launch, "grid", g);
		free(g);
		enum tdt dts[DT__COUNT];
		size_t nd = port_host_dtypes(op, l0.host, dts, TP_ARRAY_LEN(dts));
		cJSON *dg = cJSON_AddArrayToObject(launch, "dtypes");
		for (size_t i = 0; i < nd; i++)
			cJSON_AddItemToArray(dg, cJSON_CreateString(tdt_ffi_str(dts[i])));
	}
	for (size_t i = 0; i < op->nk; i++)
		for (size_t h = 0; h < op->k[i]->nhints; h++) {
			cJSON *hints = cJSON_GetObjectItemCaseSensitive(root, "hints");
			if (!hints)
				hints = cJSON_AddArrayToObject(root, "hints");
			cJSON *j = cJSON_CreateObject();
			cJSON_AddStringToObject(j, "kernel", op->k[i]->name);
			cJSON_AddStringToObject(j, "target", op->k[i]->hints[h].target);
			cJSON_AddNumberToObject(j, op->k[i]->hints[h].key, (double)op->k[i]->hints[h].value);
			cJSON_AddItemToArray(hints, j);
		}
	cJSON *esp = cJSON_AddObjectToObject(root, "entry_symbol_policy");
	cJSON_AddBoolToObject(esp, "reference_entry_contains_kernel_name",
			      strstr(op->k[0]->name, in->op) != NULL);
	cJSON_AddBoolToObject(esp, "alias_used", false);
	cJSON_AddStringToObject(esp, "real_kernel_function", op->k[0]->name);
	cJSON_AddArrayToObject(root, "known_gaps");
	if (nrefused) {
		cJSON *u = cJSON_AddArrayToObject(root, "untranslated_kernels");
		for (size_t i = 0; i < nrefused; i++) {
			cJSON *j = cJSON_CreateObject();
			cJSON_AddStringToObject(j, "kernel_function", refused[i].kernel);
			cJSON_AddStringToObject(j, "where", refused[i].where);
			cJSON_AddStringToObject(j, "construct", refused[i].construct);
			cJSON_AddItemToArray(u, j);
		}
	}
	if (!in->toolchain) {
		cJSON *d = cJSON_AddArrayToObject(root, "deferred");
		cJSON_AddItemToArray(d, cJSON_CreateString("reference-ir"));
		cJSON_AddItemToArray(d, cJSON_CreateString("perf-log"));
	}
	char *s = cJSON_Print(root);
	*out = xasprintf("%s\n", s);
	cJSON_free(s);
	cJSON_Delete(root);
	pymod_free(&test);
	port_close(op);
	return 0;
}

char *port_source_of(const char *workspace, const char *op)
{
	struct ws_operator o;
	if (operator_find(workspace, op, &o, NULL) < 0)
		return NULL;
	char *rel = xstrdup(operator_source(&o));
	operator_free(&o);
	return rel;
}

char *port_test_of(const char *workspace, const char *op)
{
	struct ws_operator o;
	if (operator_find(workspace, op, &o, NULL) < 0)
		return xasprintf("tests/ops/test_%s.py", op);
	char *rel = xstrdup(o.test_rel);
	operator_free(&o);
	return rel;
}

int port_analyze_workspace(const char *workspace, const char *op, bool toolchain, char **out,
			   struct tp_err *err)
{
	/* the operator's files where TileGym keeps them, subfolders included */
	struct ws_operator o;
	if (operator_find(workspace, op, &o, err) < 0)
		return -1;
	struct port_analysis_in in = {
		.op = o.name,
		.workspace = workspace,
		.cutile_rel = o.cutile_rel,
		.triton_rel = o.triton_rel,
		.test_rel = o.test_rel,
		.toolchain = toolchain,
	};
	int rc;
	if (!o.test_found) {
		char *tep = path_join(workspace, o.test_rel);
		tp_err_set(err, TP_EXIT_USAGE, "%s: no test file", tep);
		free(tep);
		rc = -1;
	} else {
		rc = port_analysis_json(&in, out, err);
	}
	operator_free(&o);
	return rc;
}
