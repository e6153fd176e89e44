/* A cuTile Python or Triton kernel read into the graph: its statements
 * (assignments and unpacking, loops over ranges with their carried
 * variables, branches on constants decided by the case, branches on
 * runtime values merged into selections, device functions inlined with
 * their return value) and its expressions with Python's meaning. The
 * APIs are in sem_py_api.c. */
#include "engine/sem/sem_pyx.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void px_problem(struct pctx *c, const struct py_node *at, const char *fmt, ...)
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

/* An integer as a condition is its `!= 0` (`if STAGE & 1:`), as the Rust
 * has to spell it. */
sid px_truth(struct pctx *c, sid x)
{
	return x && sg_dt(c->g, x) != SDT_BOOL && sdt_is_int(sg_dt(c->g, x)) ? ic_cmp(c->g, '!', x, sg_int(c->g, 0)) : x;
}

sid px_node(struct pctx *c, struct sval v, const struct py_node *at)
{
	if (v.k == SV_NODE && v.x)
		return v.x;
	if (v.k == SV_PTR || v.k == SV_BLOCKPTR) {
		px_problem(c, at, "a pointer used as a value");
		return sg_undef(c->g, SDT_NONE);
	}
	px_problem(c, at, "a value the check does not follow is used as a tile or scalar");
	return sg_undef(c->g, SDT_NONE);
}

const struct py_node *px_arg(const struct py_node *call, size_t i, const char *name)
{
	return py_call_param(call, i, name);
}

int px_dtype_of(struct pctx *c, struct sval v)
{
	if (v.k == SV_DTYPE)
		return v.dt;
	if (v.k == SV_NODE)
		return sg_dt(c->g, v.x);
	return SDT_NONE;
}

bool px_dims(struct pctx *c, struct sval v, sid *dims, int *rank)
{
	if (v.k == SV_NODE) {
		dims[0] = v.x;
		*rank = 1;
		return true;
	}
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

bool px_ints(struct pctx *c, struct sval v, int *out, int *n)
{
	sid d[SEM_MAX_RANK];
	int r;
	if (!px_dims(c, v, d, &r))
		return false;
	for (int i = 0; i < r; i++) {
		int64_t x;
		if (!sg_is_int_lit(c->g, d[i], &x))
			return false;
		out[i] = (int)x;
	}
	*n = r;
	return true;
}

/* ---- names ---- */

static struct sval module_const(struct pctx *c, const struct pm_const *k)
{
	/* a module constant: read in an empty environment */
	if (c->depth > 32)
		return sv_kind(SV_UNKNOWN);
	struct senv saved = c->env;
	memset(&c->env, 0, sizeof(c->env));
	c->depth++;
	struct sval v = px_expr(c, k->value);
	c->depth--;
	senv_free(&c->env);
	c->env = saved;
	return v;
}

static bool is_api_root(const char *canon)
{
	static const char *const roots[] = {"ct.", "tl.", "triton.", "math.", "np.", "torch.", "libdevice."};
	for (size_t i = 0; i < TP_ARRAY_LEN(roots); i++)
		if (str_starts(canon, roots[i]))
			return true;
	return !strcmp(canon, "ct") || !strcmp(canon, "tl") || !strcmp(canon, "math") ||
	       !strcmp(canon, "np") || !strcmp(canon, "torch") || !strcmp(canon, "triton");
}

/* An API name's value: a dtype, an enum member, a constant, a function. */
static struct sval api_value(struct pctx *c, const char *canon)
{
	struct sgraph *g = c->g;
	const char *dot = strrchr(canon, '.');
	const char *last = dot ? dot + 1 : canon;
	int dt = sdt_from_name(last, strlen(last));
	if (dt != SDT_NONE && strcmp(last, "float") && strcmp(last, "int") && strcmp(last, "bool")) {
		struct sval v = sv_kind(SV_DTYPE);
		v.dt = dt;
		return v;
	}
	if (strstr(canon, "PaddingMode.") || strstr(canon, "RoundingMode.")) {
		struct sval v = sv_kind(SV_ENUM);
		v.name = sa_strndup(g->arena, last, strlen(last));
		return v;
	}
	if (!strcmp(canon, "math.pi"))
		return sv_node(sg_float(g, M_PI, SDT_NONE));
	if (!strcmp(canon, "math.e"))
		return sv_node(sg_float(g, M_E, SDT_NONE));
	if (!strcmp(canon, "math.inf") || !strcmp(canon, "np.inf"))
		return sv_node(sg_float(g, INFINITY, SDT_NONE));
	struct sval f = sv_kind(SV_FUNC);
	f.name = sa_strndup(g->arena, canon, strlen(canon));
	return f;
}

static struct sval name(struct pctx *c, const struct py_node *n)
{
	struct svar *v = senv_find(&c->env, n->s, n->n);
	if (v)
		return v->v;
	char *nm = py_str(n);
	struct sval r = sv_kind(SV_UNKNOWN);
	const struct pm_func *fn = pymod_func(c->m, nm);
	const struct pm_const *k = pymod_const(c->m, nm);
	char *canon = pymod_canon(c->m, n);
	const struct pymod *owner = NULL;
	if (!fn && !k)
		fn = pymod_imported_func(c->m, nm, &owner); /* `from .gelu import f` */
	if (fn && fn->role != PM_KERNEL) {
		r = sv_kind(SV_FUNC);
		r.name = sa_strndup(c->g->arena, nm, strlen(nm));
		r.ref = fn;
		r.mod = owner;
	} else if (k) {
		r = module_const(c, k);
	} else if (canon && strcmp(canon, nm) && is_api_root(canon)) {
		r = api_value(c, canon);
	} else {
		static const char *const builtins[] = {"min", "max", "range", "float", "int", "abs", "len",
						       "bool", "print", "isinstance", "tuple", "list"};
		for (size_t i = 0; i < TP_ARRAY_LEN(builtins); i++)
			if (!strcmp(nm, builtins[i])) {
				r = sv_kind(SV_FUNC);
				r.name = builtins[i];
			}
		if (r.k == SV_UNKNOWN && is_api_root(nm))
			r = api_value(c, nm);
		if (r.k == SV_UNKNOWN)
			px_problem(c, n, "%s, which is not defined", nm);
	}
	free(canon);
	free(nm);
	return r;
}

static struct sval attribute(struct pctx *c, const struct py_node *n)
{
	char *canon = pymod_canon(c->m, n);
	if (canon && is_api_root(canon)) {
		/* an API name, unless its root is a local variable */
		const struct py_node *root = n;
		while (root->kind == PY_ATTR)
			root = root->kids[0];
		if (root->kind != PY_NAME || !senv_find(&c->env, root->s, root->n)) {
			struct sval v = api_value(c, canon);
			free(canon);
			return v;
		}
	}
	free(canon);
	struct sval o = px_expr(c, n->kids[0]);
	struct sgraph *g = c->g;
	char *a = py_str(n);
	struct sval r = sv_kind(SV_UNKNOWN);
	bool array = o.k == SV_NODE && g->n[o.x].op == S_PARAM && g->params[g->n[o.x].ival].kind == SPK_ARRAY;
	if (o.k == SV_DTYPE && !strcmp(a, "element_ty")) {
		r = o;
	} else if (array && !strcmp(a, "dtype")) {
		r = sv_kind(SV_DTYPE);
		r.dt = g->params[g->n[o.x].ival].dt;
	} else if (o.k == SV_PTR && o.arr && g->n[o.arr].op == S_PARAM && !strcmp(a, "dtype")) {
		/* an advanced Triton pointer (`Y += row * stride`): its pointee */
		r = sv_kind(SV_DTYPE);
		r.dt = g->params[g->n[o.arr].ival].dt;
	} else if (array && !strcmp(a, "shape")) {
		r = sv_kind(SV_SHAPEV);
		r.arr = o.x;
	} else if (o.k == SV_NODE && !strcmp(a, "dtype")) {
		r = sv_kind(SV_DTYPE);
		r.dt = sg_dt(g, o.x);
	} else if (o.k == SV_NODE && !strcmp(a, "T")) {
		int perm[2] = {1, 0};
		r = sv_node(sc_permute(g, o.x, perm, 2));
	} else if (o.k == SV_NODE && !strcmp(a, "shape")) {
		struct sval el[SEM_MAX_RANK];
		const struct snode *x = &g->n[o.x];
		for (int i = 0; i < x->rank; i++)
			el[i] = sv_node(x->dims[i]);
		r = sv_tuple(g, el, x->rank);
	} else if (o.k != SV_UNKNOWN) {
		/* a bound method */
		r = sv_kind(SV_FUNC);
		r.name = sa_strndup(g->arena, a, strlen(a));
		r.el = sa_alloc(g->arena, sizeof(o));
		r.el[0] = o;
		r.nel = 1;
	}
	free(a);
	return r;
}

/* ---- operators ---- */

static sid as_node(struct pctx *c, struct sval v, const struct py_node *at)
{
	return px_node(c, v, at);
}

struct sval px_binop(struct pctx *c, int op, struct sval a, struct sval b, const struct py_node *at)
{
	struct sgraph *g = c->g;
	if (a.k == SV_PTR && (op == '+' || op == '-')) {
		sid off = as_node(c, b, at);
		a.x = op == '+' ? ic_add(g, a.x, off) : ic_sub(g, a.x, off);
		return a;
	}
	if (b.k == SV_PTR && op == '+') {
		b.x = ic_add(g, b.x, as_node(c, a, at));
		return b;
	}
	if (a.k == SV_NODE && g->n[a.x].op == S_PARAM && g->params[g->n[a.x].ival].kind == SPK_ARRAY &&
	    (op == '+' || op == '-')) {
		/* Triton: an array parameter is a pointer */
		struct sval p = sv_kind(SV_PTR);
		p.arr = a.x;
		p.x = sg_int(g, 0);
		return px_binop(c, op, p, b, at);
	}
	if (a.k == SV_TUPLE && b.k == SV_TUPLE && op == '+') {
		struct sval el[SEM_MAX_ARGS];
		size_t n = 0;
		for (size_t i = 0; i < a.nel && n < SEM_MAX_ARGS; i++)
			el[n++] = a.el[i];
		for (size_t i = 0; i < b.nel && n < SEM_MAX_ARGS; i++)
			el[n++] = b.el[i];
		return sv_tuple(g, el, n);
	}
	sid x = as_node(c, a, at), y = as_node(c, b, at);
	bool isbool = sg_dt(g, x) == SDT_BOOL && sg_dt(g, y) == SDT_BOOL;
	switch (op) {
	case '+': {
		/* acc + dot(a, b): the dot accumulating into acc (Triton's `acc += tl.dot(a, b)`) */
		sid xs = x, ys = y;
		for (int k = 0; k < 2 && c->triton; k++) {
			const struct snode *m = &g->n[k ? xs : ys];
			if (m->op == S_MMA && m->nargs == 3) {
				const struct snode *acc = &g->n[m->args[2]];
				sid accin = acc->op == S_BROADCAST ? acc->args[0] : m->args[2];
				double zero;
				if (sg_is_float_lit(g, accin, &zero) && zero == 0)
					return sv_node(sc_mma(g, m->args[0], m->args[1], k ? ys : xs));
			}
		}
		return sv_node(sc_arith(g, '+', x, y, SHINT_NONE));
	}
	case '-':
	case '*':
	case '%':
	case '^':
		return sv_node(sc_arith(g, op, x, y, SHINT_NONE));
	case '/':
		return sv_node(fc_div(g, x, y, SHINT_NONE));
	case 'd':
		return sv_node(sc_arith(g, 'd', x, y, SHINT_NONE));
	case '@':
		return sv_node(sc_mma(g, x, y, 0));
	case '&':
		return sv_node(isbool ? bc_and(g, x, y) : ic_bit(g, '&', x, y));
	case '|':
		return sv_node(isbool ? bc_or(g, x, y) : ic_bit(g, '|', x, y));
	case 'x':
		return sv_node(isbool ? bc_xor(g, x, y) : ic_bit(g, '^', x, y));
	case '<':
	case '>':
		return sv_node(ic_bit(g, op, x, y));
	}
	px_problem(c, at, "an operator the check does not follow");
	return sv_kind(SV_UNKNOWN);
}

static int binop_code(int op)
{
	switch (op) {
	case PYOP_ADD: return '+';
	case PYOP_SUB: return '-';
	case PYOP_MUL: return '*';
	case PYOP_DIV: return '/';
	case PYOP_FLOORDIV: return 'd';
	case PYOP_MOD: return '%';
	case PYOP_POW: return '^';
	case PYOP_MATMUL: return '@';
	case PYOP_BITAND: return '&';
	case PYOP_BITOR: return '|';
	case PYOP_BITXOR: return 'x';
	case PYOP_LSHIFT: return '<';
	case PYOP_RSHIFT: return '>';
	}
	return 0;
}

static int cmp_code(int op)
{
	switch (op) {
	case PYOP_LT: return '<';
	case PYOP_LE: return 'l';
	case PYOP_GT: return '>';
	case PYOP_GE: return 'g';
	case PYOP_EQ: return '=';
	case PYOP_NE: return '!';
	}
	return 0;
}

static struct sval compare(struct pctx *c, const struct py_node *n)
{
	struct sgraph *g = c->g;
	struct sval left = px_expr(c, n->kids[0]);
	sid acc = 0;
	for (size_t i = 1; i + 1 < n->nkids; i += 2) {
		int op = cmp_code(n->kids[i]->op);
		struct sval right = px_expr(c, n->kids[i + 1]);
		if (!op) {
			px_problem(c, n, "a comparison the check does not follow");
			return sv_kind(SV_UNKNOWN);
		}
		sid r;
		if (left.k == SV_DTYPE || right.k == SV_DTYPE) {
			/* a test of the element type */
			int a = px_dtype_of(c, left), b = px_dtype_of(c, right);
			if (op != '=' && op != '!') {
				px_problem(c, n, "an ordering of dtypes");
				return sv_kind(SV_UNKNOWN);
			}
			if (a == b)
				r = sg_bool(g, op == '=');
			else if ((a == SDT_E && sdt_is_float(b) && b != SDT_E) || (b == SDT_E && sdt_is_float(a))) {
				int other = a == SDT_E ? b : a;
				r = sc_opaque(g, sa_printf(g->arena, "dtype:E == %s", sdt_name(other)), NULL, 0, SDT_BOOL);
				if (op == '!')
					r = bc_not(g, r);
			} else {
				r = sg_bool(g, op == '!');
			}
		} else {
			r = sc_cmp(g, op, px_node(c, left, n), px_node(c, right, n));
		}
		acc = acc ? bc_and(g, acc, r) : r;
		left = right;
	}
	return sv_node(acc);
}

static struct sval subscript(struct pctx *c, const struct py_node *n)
{
	struct sgraph *g = c->g;
	struct sval o = px_expr(c, n->kids[0]);
	const struct py_node *ix = n->kids[1];
	if (o.k == SV_FUNC) /* ct.Constant[int] and other annotations */
		return o;
	if (o.k == SV_NODE && (ix->kind == PY_TUPLE || ix->kind == PY_SLICE || ix->kind == PY_CONST)) {
		/* x[:, None]: unit dims where None is */
		const struct snode *x = &g->n[o.x];
		size_t ni = ix->kind == PY_TUPLE ? ix->nkids : 1;
		sid dims[SEM_MAX_RANK];
		int r = 0, src = 0;
		for (size_t i = 0; i < ni; i++) {
			const struct py_node *e = ix->kind == PY_TUPLE ? ix->kids[i] : ix;
			if (r >= SEM_MAX_RANK)
				break;
			if (e->kind == PY_CONST && e->n == 4 && !memcmp(e->s, "None", 4)) {
				dims[r++] = sg_int(g, 1);
			} else if (e->kind == PY_SLICE && !e->kids[0] && !e->kids[1] && !e->kids[2] && src < x->rank) {
				dims[r++] = x->dims[src++];
			} else {
				px_problem(c, n, "indexing a tile (tiles are not indexable in cuTile Rust)");
				return sv_kind(SV_UNKNOWN);
			}
		}
		while (src < x->rank && r < SEM_MAX_RANK)
			dims[r++] = x->dims[src++];
		return sv_node(sc_reshape(g, o.x, dims, r));
	}
	struct sval iv = px_expr(c, ix);
	int64_t i;
	if (iv.k != SV_NODE || !sg_is_int_lit(g, iv.x, &i)) {
		px_problem(c, n, "an index that is not a constant");
		return sv_kind(SV_UNKNOWN);
	}
	if (o.k == SV_SHAPEV) {
		const struct sparam *p = &g->params[g->n[o.arr].ival];
		if (i < 0 && p->rank > 0)
			i += p->rank;
		struct snode q;
		memset(&q, 0, sizeof(q));
		q.op = S_SHAPE;
		q.dt = SDT_I32;
		q.ival = i;
		q.h = SHINT_NONE;
		return sv_node(sg_node(g, &q, &o.arr, 1));
	}
	if (o.k == SV_TUPLE) {
		if (i < 0)
			i += (int64_t)o.nel;
		if (i >= 0 && (size_t)i < o.nel)
			return o.el[i];
	}
	px_problem(c, n, "an index into something the check does not follow");
	return sv_kind(SV_UNKNOWN);
}

static struct sval inline_fn(struct pctx *c, const struct py_node *call, const struct pm_func *fn,
			     const struct pymod *mod);

static struct sval call(struct pctx *c, const struct py_node *n)
{
	struct sval f = px_expr(c, n->kids[0]);
	c->g->line = n->line;
	if (f.k != SV_FUNC) {
		px_problem(c, n, "a call of something the check does not follow");
		return sv_kind(SV_UNKNOWN);
	}
	if (f.ref)
		return inline_fn(c, n, f.ref, f.mod);
	bool handled = false;
	struct sval r = f.nel ? px_method(c, n, f.el[0], f.name, &handled) : px_api(c, n, f.name, &handled);
	if (!handled)
		px_problem(c, n, "a call of %s, which the check does not know", f.name);
	return r;
}

struct sval px_expr(struct pctx *c, const struct py_node *n)
{
	struct sgraph *g = c->g;
	if (!n || g->problem)
		return sv_kind(SV_UNKNOWN);
	switch (n->kind) {
	case PY_NAME:
		return name(c, n);
	case PY_NUM: {
		long long v;
		double d;
		if (py_int_value(n, &v))
			return sv_node(sg_int(g, v));
		if (py_float_value(n, &d))
			return sv_node(sg_float(g, d, SDT_NONE));
		px_problem(c, n, "a number the check does not read");
		return sv_kind(SV_UNKNOWN);
	}
	case PY_CONST:
		if (n->n == 4 && !memcmp(n->s, "True", 4))
			return sv_node(sg_bool(g, true));
		if (n->n == 5 && !memcmp(n->s, "False", 5))
			return sv_node(sg_bool(g, false));
		return sv_kind(SV_NONEV);
	case PY_STR: {
		struct sval s = sv_kind(SV_STR);
		char *v = py_str_value(&c->m->py, n);
		s.name = v ? sa_strndup(g->arena, v, strlen(v)) : "";
		free(v);
		return s;
	}
	case PY_ATTR:
		return attribute(c, n);
	case PY_CALL:
		return call(c, n);
	case PY_SUBSCRIPT:
		return subscript(c, n);
	case PY_TUPLE:
	case PY_LIST: {
		struct sval el[SEM_MAX_ARGS];
		size_t k = 0;
		for (size_t i = 0; i < n->nkids && k < SEM_MAX_ARGS; i++)
			el[k++] = px_expr(c, n->kids[i]);
		return sv_tuple(g, el, k);
	}
	case PY_BINOP: {
		struct sval a = px_expr(c, n->kids[0]), b = px_expr(c, n->kids[1]);
		g->line = n->line;
		return px_binop(c, binop_code(n->op), a, b, n);
	}
	case PY_UNARY: {
		struct sval v = px_expr(c, n->kids[0]);
		if (n->op == PYOP_POS)
			return v;
		sid x = px_node(c, v, n);
		if (n->op == PYOP_NEG)
			return sv_node(sdt_is_float(sg_dt(g, x)) || g->n[x].op == S_FLOAT ? fc_neg(g, x) : ic_neg(g, x));
		if (n->op == PYOP_NOT || sg_dt(g, x) == SDT_BOOL)
			return sv_node(bc_not(g, x));
		return sv_node(ic_bit(g, '~', x, 0));
	}
	case PY_BOOLOP: {
		sid acc = 0;
		for (size_t i = 0; i < n->nkids; i++) {
			sid x = px_node(c, px_expr(c, n->kids[i]), n);
			acc = !acc ? x : n->op == PYOP_AND ? bc_and(g, acc, x) : bc_or(g, acc, x);
		}
		return sv_node(acc);
	}
	case PY_COMPARE:
		return compare(c, n);
	case PY_IFEXP: {
		struct sval cv = px_expr(c, n->kids[1]);
		sid cond = px_truth(c, px_node(c, cv, n));
		int known = sem_cond_value(g, c->b, cond);
		if (known == 1)
			return px_expr(c, n->kids[0]);
		if (known == 0)
			return px_expr(c, n->kids[2]);
		struct sval a = px_expr(c, n->kids[0]), b = px_expr(c, n->kids[2]);
		if (a.k == SV_DTYPE && b.k == SV_DTYPE && a.dt == b.dt)
			return a;
		return sv_node(sc_select(g, cond, px_node(c, a, n), px_node(c, b, n)));
	}
	case PY_SLICE:
		return sv_kind(SV_SLICE);
	default:
		px_problem(c, n, "an expression the check does not follow");
		return sv_kind(SV_UNKNOWN);
	}
}

/* ---- statements ---- */

static void block(struct pctx *c, const struct py_node *b);

static void assign(struct pctx *c, const struct py_node *target, struct sval v)
{
	if (target->kind == PY_NAME) {
		senv_set(c->g, &c->env, target->s, target->n, v);
		return;
	}
	if (target->kind == PY_TUPLE || target->kind == PY_LIST) {
		if (v.k != SV_TUPLE || v.nel != target->nkids) {
			px_problem(c, target, "unpacking something that is not a tuple of this length");
			return;
		}
		for (size_t i = 0; i < target->nkids; i++)
			assign(c, target->kids[i], v.el[i]);
		return;
	}
	px_problem(c, target, "an assignment to something other than a name");
}

static void target_names(const struct py_node *t, const char **names, size_t *lens, size_t *k, size_t max)
{
	if (t->kind == PY_TUPLE || t->kind == PY_LIST) {
		for (size_t i = 0; i < t->nkids; i++)
			target_names(t->kids[i], names, lens, k, max);
		return;
	}
	if (t->kind != PY_NAME)
		return;
	for (size_t i = 0; i < *k; i++)
		if (lens[i] == t->n && !memcmp(names[i], t->s, t->n))
			return;
	if (*k < max) {
		names[*k] = t->s;
		lens[(*k)++] = t->n;
	}
}

/* The names a block of statements assigns. */
static void names_assigned(const struct py_node *n, const char **names, size_t *lens, size_t *k, size_t max)
{
	if (!n)
		return;
	switch (n->kind) {
	case PY_BLOCK:
		for (size_t i = 0; i < n->nkids; i++)
			names_assigned(n->kids[i], names, lens, k, max);
		break;
	case PY_IF:
		names_assigned(n->kids[1], names, lens, k, max);
		names_assigned(n->kids[2], names, lens, k, max);
		break;
	case PY_FOR:
		target_names(n->kids[0], names, lens, k, max);
		names_assigned(n->kids[2], names, lens, k, max);
		break;
	case PY_ASSIGN:
		for (size_t i = 0; i + 1 < n->nkids; i++)
			target_names(n->kids[i], names, lens, k, max);
		break;
	case PY_AUGASSIGN:
	case PY_ANNASSIGN:
		target_names(n->kids[0], names, lens, k, max);
		break;
	default:
		break;
	}
}

static struct sval merge(struct pctx *c, sid cond, struct sval t, struct sval e, const struct py_node *at)
{
	if (t.k == SV_VOID || t.k == SV_UNKNOWN)
		return e;
	if (e.k == SV_VOID || e.k == SV_UNKNOWN || sv_same(&t, &e))
		return t;
	if (t.k == SV_NODE && e.k == SV_NODE)
		return t.x == e.x ? t : sv_node(sc_select(c->g, cond, t.x, e.x));
	if (t.k == e.k && (t.k == SV_DTYPE || t.k == SV_ENUM || t.k == SV_FUNC))
		return t;
	px_problem(c, at, "branches on a runtime value that set something other than a tile or scalar");
	return t;
}

static void stmt_if(struct pctx *c, const struct py_node *n)
{
	sid cond = px_truth(c, px_node(c, px_expr(c, n->kids[0]), n));
	int known = sem_cond_value(c->g, c->b, cond);
	if (known == 1) {
		block(c, n->kids[1]);
		return;
	}
	if (known == 0) {
		if (n->kids[2])
			block(c, n->kids[2]);
		return;
	}
	struct senv before = senv_copy(&c->env);
	sid outer = c->cond;
	c->cond = outer ? bc_and(c->g, outer, cond) : cond;
	block(c, n->kids[1]);
	if (c->returned) {
		px_problem(c, n, "a return inside a branch on a runtime value");
		senv_free(&before);
		return;
	}
	struct senv then_env = senv_copy(&c->env);
	senv_free(&c->env);
	c->env = senv_copy(&before);
	sid notc = bc_not(c->g, cond);
	c->cond = outer ? bc_and(c->g, outer, notc) : notc;
	if (n->kids[2])
		block(c, n->kids[2]);
	c->cond = outer;
	/* names bound in either arm: merged (Python has no block scopes). An
	 * assignment appends a binding, so a name assigned twice has older
	 * bindings under its live one: only the live binding of each arm is
	 * what the name holds after the branch (merging the older ones too
	 * would nest the name's earlier values into its selection). */
	for (size_t i = 0; i < then_env.n; i++) {
		struct svar *tv = &then_env.v[i];
		if (senv_find(&then_env, tv->name, tv->n) != tv)
			continue; /* shadowed in the then arm */
		struct svar *ev = senv_find(&c->env, tv->name, tv->n);
		struct svar *bv = senv_find(&before, tv->name, tv->n);
		if (bv && bv->v.k == tv->v.k && tv->v.k == SV_NODE && bv->v.x == tv->v.x && ev &&
		    ev->v.k == SV_NODE && ev->v.x == bv->v.x)
			continue;
		if (ev && !(ev->v.k == SV_NODE && tv->v.k == SV_NODE && ev->v.x == tv->v.x))
			ev->v = merge(c, cond, tv->v, ev->v, n);
		else if (!ev)
			senv_set(c->g, &c->env, tv->name, tv->n, tv->v);
	}
	senv_free(&before);
	senv_free(&then_env);
}

static bool range_args(struct pctx *c, const struct py_node *it, struct sval *r)
{
	if (it->kind != PY_CALL)
		return false;
	char *canon = pymod_canon(c->m, it->kids[0]);
	bool ok = canon && (!strcmp(canon, "range") || !strcmp(canon, "ct.range") ||
			    !strcmp(canon, "tl.range") || !strcmp(canon, "tl.static_range"));
	free(canon);
	if (!ok)
		return false;
	size_t na = py_call_nargs(it);
	sid a[3] = {0, 0, 0};
	for (size_t i = 0; i < na && i < 3; i++)
		a[i] = px_node(c, px_expr(c, py_call_arg(it, i)), it);
	*r = sv_kind(SV_RANGE);
	if (na == 1) {
		r->lo = sg_int(c->g, 0);
		r->hi = a[0];
		r->step = sg_int(c->g, 1);
	} else {
		r->lo = a[0];
		r->hi = a[1];
		r->step = na >= 3 ? a[2] : sg_int(c->g, 1);
	}
	const struct py_node *st = py_call_kw(it, "step");
	if (st)
		r->step = px_node(c, px_expr(c, st), it);
	return na >= 1;
}

struct py_body {
	struct pctx *c;
	const struct py_node *body;
};

static void py_loop_body(void *ud, int loop)
{
	struct py_body *b = ud;
	int outer = b->c->loop;
	b->c->loop = loop;
	block(b->c, b->body);
	b->c->loop = outer;
}

static void stmt_for(struct pctx *c, const struct py_node *n)
{
	struct sval r;
	if (!range_args(c, n->kids[1], &r)) {
		px_problem(c, n, "a for loop over something other than range()");
		return;
	}
	const struct py_node *target = n->kids[0];
	if (target->kind != PY_NAME) {
		px_problem(c, n, "a loop target that is not a name");
		return;
	}
	const char *names[64];
	size_t lens[64], nn = 0;
	names_assigned(n->kids[2], names, lens, &nn, 64);
	struct py_body b = {c, n->kids[2]};
	struct sloop_in in = {r.lo, r.hi, r.step, c->loop, n->line, target->s, target->n, names, lens, nn, false,
			      py_loop_body, &b};
	char *problem = NULL;
	if (sem_loop(c->g, &c->env, &in, &problem) < 0 && problem) {
		px_problem(c, n, "%s", problem);
		free(problem);
	}
}

static void stmt(struct pctx *c, const struct py_node *s)
{
	struct sgraph *g = c->g;
	if (g->problem || c->returned)
		return;
	g->line = s->line;
	switch (s->kind) {
	case PY_EXPR_STMT:
		if (s->kids[0]->kind != PY_STR)
			px_expr(c, s->kids[0]);
		break;
	case PY_ASSIGN: {
		struct sval v = px_expr(c, s->kids[s->nkids - 1]);
		for (size_t i = 0; i + 1 < s->nkids; i++)
			assign(c, s->kids[i], v);
		break;
	}
	case PY_ANNASSIGN:
		if (s->kids[2])
			assign(c, s->kids[0], px_expr(c, s->kids[2]));
		break;
	case PY_AUGASSIGN: {
		struct sval old = px_expr(c, s->kids[0]);
		struct sval v = px_expr(c, s->kids[1]);
		g->line = s->line;
		assign(c, s->kids[0], px_binop(c, binop_code(s->op), old, v, s));
		break;
	}
	case PY_IF:
		stmt_if(c, s);
		break;
	case PY_FOR:
		stmt_for(c, s);
		break;
	case PY_RETURN:
		c->ret = s->kids[0] ? px_expr(c, s->kids[0]) : sv_kind(SV_VOID);
		c->returned = true;
		break;
	case PY_PASS:
	case PY_ASSERT:
	case PY_IMPORT:
	case PY_FROM:
		break;
	case PY_BLOCK:
		block(c, s);
		break;
	case PY_WHILE:
	case PY_BREAK:
	case PY_CONTINUE:
		px_problem(c, s, "%s (the check follows for loops over ranges)",
			   s->kind == PY_WHILE ? "a while loop" : s->kind == PY_BREAK ? "break" : "continue");
		break;
	default:
		px_problem(c, s, "a statement the check does not follow");
	}
}

static void block(struct pctx *c, const struct py_node *b)
{
	if (!b)
		return;
	if (b->kind != PY_BLOCK) {
		stmt(c, b);
		return;
	}
	for (size_t i = 0; i < b->nkids && !c->g->problem && !c->returned; i++)
		stmt(c, b->kids[i]);
}

static struct sval inline_fn(struct pctx *c, const struct py_node *call, const struct pm_func *fn,
			     const struct pymod *mod)
{
	if (c->depth > 16) {
		px_problem(c, call, "device functions call each other too deeply");
		return sv_kind(SV_UNKNOWN);
	}
	const struct py_node *params = fn->def->kids[1];
	struct senv local = {0};
	size_t pos = 0;
	for (size_t i = 0; params && i < params->nkids; i++) {
		const struct py_node *p = params->kids[i];
		if (p->op != PYP_PLAIN)
			continue;
		const struct py_node *a = py_call_arg(call, pos);
		if (!a) {
			char *nm = py_str(p);
			a = py_call_kw(call, nm);
			free(nm);
		}
		struct sval v = a ? px_expr(c, a) : p->kids[1] ? px_expr(c, p->kids[1]) : sv_kind(SV_UNKNOWN);
		if (v.k == SV_UNKNOWN && !a && !p->kids[1])
			px_problem(c, call, "a call of %s without its argument %.*s", fn->name, (int)p->n, p->s);
		senv_set(c->g, &local, p->s, p->n, v);
		pos++;
	}
	struct senv saved = c->env;
	c->env = local;
	bool sret = c->returned;
	struct sval sv = c->ret;
	c->returned = false;
	c->ret = sv_kind(SV_VOID);
	c->depth++;
	/* a function of another module reads its names there */
	const struct pymod *caller = c->m;
	if (mod)
		c->m = mod;
	block(c, fn->def->kids[3]);
	c->m = caller;
	c->depth--;
	struct sval r = c->ret;
	c->returned = sret;
	c->ret = sv;
	senv_free(&c->env);
	c->env = saved;
	return r;
}

void sem_py_read(struct sgraph *g, struct sside *side, const struct pymod *m, const struct pm_func *k,
		 const struct sbind *b)
{
	struct pctx c = {.g = g, .side = side, .b = b, .m = m, .kernel = k, .loop = -1,
			 .triton = k->fe == FE_TRITON};
	side->first_line = k->def->line;
	side->last_line = py_end_line(&m->py, k->def);
	side->name = k->name;
	for (size_t i = 0; i < g->nparams; i++)
		senv_set(g, &c.env, g->params[i].name, strlen(g->params[i].name),
			 sv_node(g->params[i].fixed ? sg_int(g, g->params[i].fixed_value) : sg_param(g, (int)i)));
	block(&c, k->def->kids[3]);
	senv_free(&c.env);
}
