/* Lowering a kernel: parameters, the environment of Python names, Rust
 * names, statements (assignments, for loops over ranges with loop-carried
 * values, branches), and the structural variants. A branch on a
 * compile-time condition whose two sides leave values of different types
 * behind is resolved two ways: a Constant condition splits the kernel into
 * one entry per truth value (as Python's JIT prunes the untaken side); an
 * element-type test keeps one entry and repeats the statements that follow
 * in each branch until the types agree again. */
#include "engine/port/lower.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- errors ---- */

void lw_unsupported(struct lw *lw, const struct py_node *at, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	int line = at ? at->line : lw->f->def->line, col = at ? at->col : lw->f->def->col;
	tp_err_set(lw->err, TP_EXIT_FAILED, "%s:%d:%d: unsupported: %s", lw->m->py.path, line, col,
		   msg);
	lw->status = LW_UNSUPPORTED;
	longjmp(lw->jb, 1);
}

/* Arrays of the lowering grow inside the arena. */
static void *grow_arena(struct tarena *a, void *p, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return p;
	size_t nc = *cap ? *cap * 2 : 8;
	while (nc < need)
		nc *= 2;
	void *q = ta_alloc(a, nc * size);
	if (*cap)
		memcpy(q, p, *cap * size);
	*cap = nc;
	return q;
}
#define xgrow_arena(lw, p, cap, need) grow_arena((lw)->a, (p), (cap), (need), sizeof(*(p)))

/* ---- names ---- */

const char *lw_name(struct lw *lw, const struct py_node *n)
{
	char *h = py_str(n);
	const char *r = ta_strdup(lw->a, h);
	free(h);
	return r;
}

const char *lw_canon(struct lw *lw, const struct py_node *n)
{
	char *h = pymod_canon(lw->m, n);
	const char *r = h ? ta_strdup(lw->a, h) : NULL;
	free(h);
	return r;
}

static const char *const rust_keywords[] = {
	"as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum",
	"extern", "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move",
	"mut", "pub", "ref", "return", "self", "Self", "static", "struct", "super", "trait",
	"true", "type", "unsafe", "use", "where", "while", "abstract", "become", "box", "do",
	"final", "macro", "override", "priv", "typeof", "unsized", "virtual", "yield", "try",
	"gen", "union",
	/* names of the cutile prelude a kernel must not shadow */
	"E", "Tile", "Tensor", "Token", "PointerTile",
};

static bool is_rust_keyword(const char *s)
{
	for (size_t i = 0; i < TP_ARRAY_LEN(rust_keywords); i++)
		if (strcmp(s, rust_keywords[i]) == 0)
			return true;
	return false;
}

static bool in_list(const char *const *v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i], s) == 0)
			return true;
	return false;
}

static void take(struct lw *lw, const char *name)
{
	lw->names = xgrow_arena(lw, lw->names, &lw->capnames, lw->nnames + 1);
	lw->names[lw->nnames++] = name;
}

const char *lw_rust_ident(struct lw *lw, const char *name)
{
	return is_rust_keyword(name) ? ta_printf(lw->a, "%s_", name) : ta_strdup(lw->a, name);
}

const char *lw_fresh(struct lw *lw, const char *base)
{
	char clean[64];
	size_t n = 0;
	for (const char *p = base; *p && n < sizeof(clean) - 1; p++)
		clean[n++] = (char)((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
					    (*p >= '0' && *p <= '9') || *p == '_'
				    ? *p
				    : '_');
	clean[n] = '\0';
	if (!n || (clean[0] >= '0' && clean[0] <= '9'))
		snprintf(clean, sizeof(clean), "v%s", n ? base : "");
	for (int k = 0;; k++) {
		char cand[80];
		if (k == 0)
			snprintf(cand, sizeof(cand), "%s", clean);
		else
			snprintf(cand, sizeof(cand), "%s_%d", clean, k);
		if (is_rust_keyword(cand) || in_list(lw->names, lw->nnames, cand) ||
		    in_list(lw->reserved, lw->nreserved, cand))
			continue;
		const char *s = ta_strdup(lw->a, cand);
		take(lw, s);
		return s;
	}
}

struct tvar *lw_var_new(struct lw *lw, const char *base)
{
	struct tvar *v = ta_alloc(lw->a, sizeof(*v));
	v->name = lw_fresh(lw, base);
	v->temp = true;
	return v;
}

/* Every identifier of a function (and the device functions it calls), so
 * that temporaries never take a name the source uses. */
static void reserve_names(struct lw *lw, const struct py_node *n, int depth)
{
	if (!n || depth > 64)
		return;
	if ((n->kind == PY_NAME || n->kind == PY_PARAM) && n->s) {
		char *s = xstrndup(n->s, n->n);
		if (!in_list(lw->reserved, lw->nreserved, s)) {
			lw->reserved = xgrow_arena(lw, lw->reserved, &lw->capreserved, lw->nreserved + 1);
			lw->reserved[lw->nreserved++] = ta_strdup(lw->a, s);
		}
		free(s);
	}
	for (size_t k = 0; k < n->nkids; k++)
		reserve_names(lw, n->kids[k], depth + 1);
}

/* ---- the environment ---- */

static struct lw_var *find(struct lw_env *env, const char *name)
{
	for (size_t i = env->n; i-- > 0;)
		if (strcmp(env->v[i].name, name) == 0)
			return &env->v[i];
	return NULL;
}

static void env_set(struct lw *lw, struct lw_env *env, const char *name, struct tval *v,
		    int carried)
{
	struct lw_var *e = find(env, name);
	if (!e) {
		if (env->n == env->cap) {
			size_t cap = env->cap ? env->cap * 2 : 16;
			struct lw_var *nv = ta_alloc(lw->a, cap * sizeof(*nv));
			if (env->n)
				memcpy(nv, env->v, env->n * sizeof(*nv));
			env->v = nv;
			env->cap = cap;
		}
		e = &env->v[env->n++];
		e->name = ta_strdup(lw->a, name);
	}
	e->v = v;
	e->carried = carried;
}

static void env_del(struct lw_env *env, const char *name)
{
	struct lw_var *e = find(env, name);
	if (e) {
		size_t i = (size_t)(e - env->v);
		memmove(e, e + 1, (env->n - i - 1) * sizeof(*e));
		env->n--;
	}
}

static struct lw_env env_copy(struct lw *lw, const struct lw_env *env)
{
	struct lw_env c = {0};
	c.cap = env->n ? env->n : 1;
	c.v = ta_alloc(lw->a, c.cap * sizeof(*c.v));
	memcpy(c.v, env->v, env->n * sizeof(*c.v));
	c.n = env->n;
	return c;
}

struct tval *lw_lookup(struct lw *lw, const char *name)
{
	struct lw_var *e = find(&lw->env, name);
	if (!e)
		return NULL;
	if (e->v->param >= 0 && e->v->kind != TV_ARRAY)
		lw_use_param(lw, e->v->param);
	return e->v;
}

/* Does any value held by the environment (other than `skip`) live in a
 * Rust variable named `name`? */
static bool uses_var_name(const struct tval *v, const char *name, int depth)
{
	if (!v || depth > 16)
		return false;
	if (v->var && strcmp(v->var->name, name) == 0)
		return true;
	if (v->rs && strcmp(v->rs, name) == 0 && v->kind != TV_CINT && v->kind != TV_CBOOL)
		return true;
	for (size_t i = 0; i < v->nelems; i++)
		if (uses_var_name(v->elems[i], name, depth + 1))
			return true;
	return false;
}

static bool name_held(struct lw *lw, const char *rust, const struct lw_var *skip)
{
	for (size_t i = 0; i < lw->env.n; i++)
		if (&lw->env.v[i] != skip && uses_var_name(lw->env.v[i].v, rust, 0))
			return true;
	/* while inlining, the callers' values are in use too */
	for (int d = 0; d < lw->inline_depth; d++)
		for (size_t i = 0; i < lw->outer[d]->n; i++)
			if (uses_var_name(lw->outer[d]->v[i].v, rust, 0))
				return true;
	return false;
}

/* The Rust name for a value bound to Python `name`: the name itself unless
 * shadowing it would hide a value still in use. */
static const char *bind_name(struct lw *lw, const char *name, const struct lw_var *skip)
{
	const char *r = lw_rust_ident(lw, name);
	if (!name_held(lw, r, skip)) {
		take(lw, r);
		return r;
	}
	return lw_fresh(lw, name);
}

static bool same_type(const struct tval *a, const struct tval *b)
{
	if (!a || !b)
		return false;
	bool ia = a->kind == TV_INT || a->kind == TV_CINT, ib = b->kind == TV_INT || b->kind == TV_CINT;
	if (ia || ib)
		return ia && ib;
	bool ba = a->kind == TV_BOOL || a->kind == TV_CBOOL, bb = b->kind == TV_BOOL || b->kind == TV_CBOOL;
	if (ba || bb)
		return ba && bb;
	if (a->kind == TV_FLOAT || a->kind == TV_CFLOAT)
		return b->kind == TV_FLOAT || b->kind == TV_CFLOAT;
	if (a->kind != b->kind)
		return false;
	switch (a->kind) {
	case TV_TILE:
		return a->dt == b->dt && a->ptr_tile == b->ptr_tile && tshape_eq(&a->shape, &b->shape);
	case TV_BLOCKPTR:
		return a->param == b->param && a->padding == b->padding &&
		       tshape_eq(&a->shape, &b->shape) && a->nelems == b->nelems;
	default:
		return false;
	}
}

/* Can `v` be held in one Rust variable (tiles and runtime scalars)? */
static bool mergeable(const struct tval *v)
{
	return v->kind == TV_TILE || v->kind == TV_INT || v->kind == TV_CINT ||
	       v->kind == TV_FLOAT || v->kind == TV_CFLOAT || v->kind == TV_BOOL ||
	       v->kind == TV_CBOOL;
}

/* ---- emitting ---- */

struct top *lw_op(struct lw *lw, enum top_kind kind, const struct py_node *at)
{
	struct top *op = top_new(lw->a, kind, at ? at->line : 0, at ? at->col : 0);
	tblock_add(lw->a, lw->cur, op);
	return op;
}

struct tval *lw_tile_res(struct lw *lw, struct top *op, enum tdt dt, const struct tshape *s,
			 const char *hint)
{
	struct tval *v = tv_new(lw->a, TV_TILE);
	v->dt = dt;
	if (s)
		v->shape = *s;
	v->var = lw_var_new(lw, hint);
	v->def = op;
	op->res = v;
	return v;
}

void lw_use_param(struct lw *lw, int param)
{
	if (param >= 0 && (size_t)param < lw->k->nparams)
		lw->e->param_used[param] = true;
}

void lw_want_int(struct lw *lw, struct tval *v)
{
	if (!v || v->kind != TV_TILE || v->dt != DT_E || !v->def ||
	    (v->def->kind != TOP_LOAD && v->def->kind != TOP_GATHER))
		return;
	int param = v->def->kind == TOP_LOAD ? v->def->param : v->def->a[0]->param;
	if (param < 0)
		return;
	struct tparam *p = &lw->k->params[param];
	if (!p->dt_default)
		return;
	/* an array of unknown type whose elements index others holds int32 */
	p->dt = DT_I32;
	v->dt = DT_I32;
	if (v->def->kind == TOP_GATHER)
		v->def->a[0]->dt = DT_I32;
}

struct tparam *lw_array(struct lw *lw, struct tval *v, const struct py_node *at, bool ptr, int rank)
{
	if (!v || v->kind != TV_ARRAY)
		lw_unsupported(lw, at, "this operand is not a kernel array parameter");
	struct tparam *p = &lw->k->params[v->param];
	if (ptr ? p->view : p->ptr)
		lw_unsupported(lw, at,
			       "array `%s` is read both through tile views and through pointers",
			       p->name);
	if (ptr)
		p->ptr = true;
	else
		p->view = true;
	if (rank > 0) {
		int *r = &lw->e->param_rank[v->param];
		if (*r > 0 && *r != rank)
			lw_unsupported(lw, at, "array `%s` is accessed with rank %d and rank %d",
				       p->name, *r, rank);
		*r = rank;
	}
	lw_use_param(lw, v->param);
	return p;
}

/* ---- liveness ---- */

static bool reads(const struct py_node *n, const char *name, int depth);

static bool reads_kids(const struct py_node *n, size_t from, const char *name, int depth)
{
	for (size_t k = from; k < n->nkids; k++)
		if (reads(n->kids[k], name, depth + 1))
			return true;
	return false;
}

/* A target's reads: subscripts and attributes read their base. */
static bool target_reads(const struct py_node *t, const char *name, int depth)
{
	if (!t)
		return false;
	if (t->kind == PY_TUPLE || t->kind == PY_LIST) {
		for (size_t k = 0; k < t->nkids; k++)
			if (target_reads(t->kids[k], name, depth + 1))
				return true;
		return false;
	}
	if (t->kind == PY_STARRED)
		return target_reads(t->kids[0], name, depth + 1);
	if (t->kind == PY_NAME)
		return false;
	return reads(t, name, depth + 1);
}

static bool reads(const struct py_node *n, const char *name, int depth)
{
	if (!n || depth > 200)
		return false;
	switch (n->kind) {
	case PY_NAME:
		return py_is_name(n, name);
	case PY_ASSIGN:
		for (size_t k = 0; k + 1 < n->nkids; k++)
			if (target_reads(n->kids[k], name, depth))
				return true;
		return reads(n->kids[n->nkids - 1], name, depth + 1);
	case PY_ANNASSIGN:
		return target_reads(n->kids[0], name, depth) || reads(n->kids[2], name, depth + 1);
	case PY_FOR:
		return target_reads(n->kids[0], name, depth) || reads_kids(n, 1, name, depth);
	case PY_COMPFOR:
		return target_reads(n->kids[0], name, depth) || reads_kids(n, 1, name, depth);
	case PY_NAMED:
		return reads(n->kids[1], name, depth + 1);
	default:
		return reads_kids(n, 0, name, depth);
	}
}

/* Is Python `name` read after the statement being lowered? */
static bool live_after(struct lw *lw, const char *name)
{
	for (int f = lw->nframes - 1; f >= 0; f--) {
		const struct lw_frame *fr = &lw->frames[f];
		/* a loop body runs again: what it reads before the current
		 * statement is live too, for a name the loop found defined (a
		 * name first set inside the body is set before it is read) */
		bool again = fr->loop && fr->entry && find((struct lw_env *)fr->entry, name);
		for (size_t i = again ? 0 : fr->at + 1; i < fr->n; i++)
			if (reads(fr->stmts[i], name, 0))
				return true;
		if (fr->barrier)
			return false;
	}
	return false;
}

/* Names a statement list assigns (nested blocks included). */
static void assigned(struct lw *lw, const struct py_node *n, const char ***out, size_t *nout,
		     size_t *cap, int depth)
{
	if (!n || depth > 200)
		return;
	const struct py_node *targets[64];
	size_t nt = 0;
	switch (n->kind) {
	case PY_ASSIGN:
		for (size_t k = 0; k + 1 < n->nkids && nt < 64; k++)
			targets[nt++] = n->kids[k];
		break;
	case PY_AUGASSIGN:
	case PY_ANNASSIGN:
	case PY_FOR:
		targets[nt++] = n->kids[0];
		break;
	case PY_DEF:
	case PY_CLASS:
	case PY_LAMBDA:
		return;
	default:
		break;
	}
	while (nt) {
		const struct py_node *t = targets[--nt];
		if (t->kind == PY_NAME) {
			char *s = xstrndup(t->s, t->n);
			if (!in_list(*out, *nout, s)) {
				*out = xgrow_arena(lw, *out, cap, *nout + 1);
				(*out)[(*nout)++] = ta_strdup(lw->a, s);
			}
			free(s);
		} else if (t->kind == PY_TUPLE || t->kind == PY_LIST) {
			for (size_t k = 0; k < t->nkids && nt < 64; k++)
				targets[nt++] = t->kids[k];
		} else if (t->kind == PY_STARRED) {
			targets[nt++] = t->kids[0];
		}
	}
	for (size_t k = 0; k < n->nkids; k++)
		assigned(lw, n->kids[k], out, nout, cap, depth + 1);
}

/* ---- assignment ---- */

static bool retargetable(const struct top *op)
{
	switch (op->kind) {
	case TOP_LOAD:
	case TOP_GATHER:
	case TOP_STORE:
	case TOP_SCATTER:
	case TOP_FOR:
	case TOP_IF:
	case TOP_COMMENT:
	case TOP_ASSUME:
		return false;
	default:
		return true;
	}
}

/* Write v into the variable of `dst` (a carried or declared value) at the
 * end of block b. */
static void write_into(struct lw *lw, struct tblock *b, struct tval *dst, struct tval *v,
		       const struct py_node *at)
{
	struct tblock *save = lw->cur;
	lw->cur = b;
	if (dst->kind == TV_BLOCKPTR) {
		for (size_t i = 0; i < dst->nelems; i++)
			write_into(lw, b, dst->elems[i], v->elems[i], at);
		lw->cur = save;
		return;
	}
	if (dst->kind == TV_TILE) {
		if (v->var && v->var->temp && v->def && b->n && b->ops[b->n - 1] == v->def &&
		    retargetable(v->def)) {
			v->def->assign = true;
			v->def->res = dst;
		} else {
			struct top *op = lw_op(lw, TOP_LET, at);
			op->res = dst;
			op->assign = true;
			op->a[0] = v;
			op->na = 1;
		}
	} else if (!dst->var || strcmp(tv_rs(v), dst->var->name) != 0) {
		struct top *op = lw_op(lw, TOP_SCALAR, at);
		op->res = dst;
		op->assign = true;
		op->text = tv_rs(v);
	}
	lw->cur = save;
}

static struct tval *scalar_var(struct lw *lw, struct tval *v, struct tvar *var)
{
	struct tval *r = tv_new(lw->a, v->kind == TV_CINT   ? TV_INT
				       : v->kind == TV_CBOOL ? TV_BOOL
				       : v->kind == TV_CFLOAT ? TV_FLOAT
							      : v->kind);
	r->dt = v->kind == TV_CFLOAT ? DT_F32 : v->dt;
	r->var = var;
	r->rs = var->name;
	return r;
}

/* A let for a scalar value under a Python name (a plain alias needs none). */
static struct tval *scalar_let(struct lw *lw, const char *name, struct tval *v,
			       const struct lw_var *skip, const struct py_node *at, bool mut)
{
	struct tvar *var = ta_alloc(lw->a, sizeof(*var));
	var->name = bind_name(lw, name, skip);
	var->mut = mut;
	struct tval *r = scalar_var(lw, v, var);
	struct top *op = lw_op(lw, TOP_SCALAR, at);
	op->res = r;
	op->text = v->kind == TV_CFLOAT ? ta_printf(lw->a, "%s", v->rs ? v->rs : "0.0") : v->rs;
	r->def = op;
	return r;
}

static bool simple_rs(const char *rs)
{
	if (!rs || !*rs)
		return false;
	for (const char *p = rs; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		      *p == '_' || *p == '.'))
			return false;
	return true;
}

void lw_assign(struct lw *lw, const char *name, struct tval *v, const struct py_node *at)
{
	struct lw_var *e = find(&lw->env, name);
	if (e && e->carried) {
		if (!same_type(e->v, v))
			lw_unsupported(lw, at,
				       "`%s` is carried by a loop but changes from a %s to a %s in it",
				       name, lw_describe(lw, e->v), lw_describe(lw, v));
		write_into(lw, lw->cur, e->v, v, at);
		return;
	}
	if (v->kind == TV_TILE && v->var && v->var->temp) {
		v->var->temp = false;
		const char *r = lw_rust_ident(lw, name);
		if (!name_held(lw, r, e)) {
			v->var->name = r;
			take(lw, r);
		}
	} else if ((v->kind == TV_INT || v->kind == TV_FLOAT || v->kind == TV_BOOL) && !v->var &&
		   !simple_rs(v->rs)) {
		v = scalar_let(lw, name, v, e, at, false);
	} else if ((v->kind == TV_INT || v->kind == TV_FLOAT || v->kind == TV_BOOL) && v->var &&
		   v->var->temp) {
		v->var->temp = false;
		const char *r = lw_rust_ident(lw, name);
		if (!name_held(lw, r, e)) {
			v->var->name = r;
			v->rs = r;
			take(lw, r);
		}
	}
	env_set(lw, &lw->env, name, v, 0);
}

/* Give a carried value its own mutable variable before a loop. */
static void carry(struct lw *lw, struct lw_var *e, const struct py_node *at)
{
	struct tval *v = e->v;
	struct tval *cv;
	switch (v->kind) {
	case TV_TILE:
		if (v->var && !v->var->temp && !name_held(lw, v->var->name, e) && v->param < 0) {
			v->var->mut = true;
			cv = v;
		} else {
			struct tvar *var = ta_alloc(lw->a, sizeof(*var));
			var->name = bind_name(lw, e->name, e);
			var->mut = true;
			cv = tv_new(lw->a, TV_TILE);
			*cv = *v;
			cv->var = var;
			struct top *op = lw_op(lw, TOP_LET, at);
			op->res = cv;
			op->a[0] = v;
			op->na = 1;
			cv->def = op;
		}
		break;
	case TV_INT:
	case TV_FLOAT:
	case TV_BOOL:
		if (v->var && !v->var->temp && !name_held(lw, v->var->name, e) && v->param < 0) {
			v->var->mut = true;
			cv = v;
			break;
		}
		/* fall through */
	case TV_CINT:
	case TV_CBOOL:
	case TV_CFLOAT:
		cv = scalar_let(lw, e->name, v, e, at, true);
		break;
	case TV_BLOCKPTR: {
		cv = tv_new(lw->a, TV_BLOCKPTR);
		*cv = *v;
		cv->elems = ta_alloc(lw->a, v->nelems * sizeof(*cv->elems));
		for (size_t i = 0; i < v->nelems; i++) {
			const char *n = ta_printf(lw->a, "%s_i%zu", e->name, i);
			cv->elems[i] = scalar_let(lw, n, v->elems[i], e, at, true);
		}
		break;
	}
	default:
		lw_unsupported(lw, at, "`%s` (a %s) is reassigned in a loop", e->name, lw_kind(v));
	}
	e->v = cv;
	e->carried = lw->loop_depth;
}

/* ---- statements ---- */

static void lower_stmt(struct lw *lw, const struct py_node *s);

static void push_frame(struct lw *lw, const struct py_node *block, bool loop, bool barrier)
{
	if (lw->nframes >= LW_MAX_FRAMES)
		lw_unsupported(lw, block, "blocks nested too deeply");
	struct lw_frame *f = &lw->frames[lw->nframes++];
	f->stmts = block->kids;
	f->n = block->nkids;
	f->at = 0;
	f->loop = loop;
	f->barrier = barrier;
	f->entry = NULL;
}

static void lower_frame(struct lw *lw)
{
	struct lw_frame *f = &lw->frames[lw->nframes - 1];
	for (f->at = 0; f->at < f->n; f->at++)
		lower_stmt(lw, f->stmts[f->at]);
}

static void lower_block(struct lw *lw, const struct py_node *block, bool loop)
{
	push_frame(lw, block, loop, false);
	lower_frame(lw);
	lw->nframes--;
}

static void assign_target(struct lw *lw, const struct py_node *t, struct tval *v,
			  const struct py_node *at)
{
	if (t->kind == PY_NAME) {
		lw_assign(lw, lw_name(lw, t), v, at);
		return;
	}
	if (t->kind == PY_TUPLE || t->kind == PY_LIST) {
		if (v->kind != TV_TUPLE || v->nelems != t->nkids)
			lw_unsupported(lw, t, "unpacking a %s into %zu names", lw_kind(v), t->nkids);
		for (size_t k = 0; k < t->nkids; k++)
			assign_target(lw, t->kids[k], v->elems[k], at);
		return;
	}
	lw_unsupported(lw, t, "assignment to %s (kernels assign names only)",
		       t->kind == PY_SUBSCRIPT ? "a subscript" : t->kind == PY_ATTR ? "an attribute"
										: "this target");
}

static const char *target_name(const struct py_module *m, const struct py_node *t, struct lw *lw)
{
	(void)m;
	if (t->kind != PY_NAME)
		return NULL;
	return lw_name(lw, t);
}

static void lower_if(struct lw *lw, const struct py_node *s, struct tval *cond,
		     const struct py_node *then_b, const struct py_node *else_b,
		     const struct py_node *value_t, const struct py_node *value_f,
		     const struct py_node *target);

static void lower_assign(struct lw *lw, const struct py_node *s)
{
	const struct py_node *value = s->kids[s->nkids - 1];
	const struct py_node *t0 = s->kids[0];
	/* x = a if C else b with C decided at compile time: a branch */
	if (value->kind == PY_IFEXP && s->nkids == 2 && t0->kind == PY_NAME) {
		lw->target = target_name(&lw->m->py, t0, lw);
		struct tval *c = lw_expr(lw, value->kids[1]);
		if (c->kind == TV_CBOOL && !c->known) {
			lower_if(lw, s, c, NULL, NULL, value->kids[0], value->kids[2], t0);
			lw->target = NULL;
			return;
		}
	}
	lw->target = s->nkids == 2 ? target_name(&lw->m->py, t0, lw) : NULL;
	struct tval *v = lw_expr(lw, value);
	lw->target = NULL;
	for (size_t k = 0; k + 1 < s->nkids; k++)
		assign_target(lw, s->kids[k], v, s);
}

static void lower_augassign(struct lw *lw, const struct py_node *s)
{
	const struct py_node *t = s->kids[0];
	if (t->kind != PY_NAME)
		lw_unsupported(lw, t, "augmented assignment to a non-name");
	lw->target = target_name(&lw->m->py, t, lw);
	struct tval *old = lw_expr(lw, t);
	struct tval *v = lw->api->augassign ? lw->api->augassign(lw, old, s->op, s->kids[1]) : NULL;
	if (!v)
		v = lw_binop(lw, s->op, old, lw_expr(lw, s->kids[1]), s);
	lw->target = NULL;
	assign_target(lw, t, v, s);
}

static void range_args(struct lw *lw, const struct py_node *iter, const struct py_node **lo,
		       const struct py_node **hi, const struct py_node **step)
{
	*lo = *hi = *step = NULL;
	if (iter->kind == PY_CALL) {
		if (py_is_name(iter->kids[0], "range") && !lw_lookup(lw, "range")) {
			size_t n = py_call_nargs(iter);
			if (n < 1 || n > 3 || iter->nkids != n + 1)
				lw_unsupported(lw, iter, "range() with %zu arguments", n);
			if (n == 1) {
				*hi = py_call_arg(iter, 0);
			} else {
				*lo = py_call_arg(iter, 0);
				*hi = py_call_arg(iter, 1);
				*step = n == 3 ? py_call_arg(iter, 2) : NULL;
			}
			return;
		}
		const char *api = lw_canon(lw, iter->kids[0]);
		if (api && lw->api->range && lw->api->range(lw, api, iter, lo, hi, step))
			return;
	}
	lw_unsupported(lw, iter, "a for loop over something other than range()");
}

static void lower_for(struct lw *lw, const struct py_node *s)
{
	if (s->is_async)
		lw_unsupported(lw, s, "async for");
	if (s->kids[3])
		lw_unsupported(lw, s->kids[3], "for ... else");
	const struct py_node *t = s->kids[0];
	if (t->kind != PY_NAME)
		lw_unsupported(lw, t, "a for loop target other than one name");
	const struct py_node *lo, *hi, *step;
	range_args(lw, s->kids[1], &lo, &hi, &step);
	const char *lo_rs = lo ? lw_int_rs(lw, lw_expr(lw, lo), lo) : "0";
	const char *hi_rs = lw_int_rs(lw, lw_expr(lw, hi), hi);
	const char *step_rs = NULL;
	if (step) {
		struct tval *sv = lw_expr(lw, step);
		if (sv->kind == TV_CINT && sv->known) {
			if (sv->ival <= 0)
				lw_unsupported(lw, step, "a range() step that is not positive");
			if (sv->ival != 1)
				step_rs = sv->rs;
		} else {
			step_rs = lw_int_rs(lw, sv, step);
		}
	}
	const char *iv_name = target_name(&lw->m->py, t, lw);
	/* values the loop carries: assigned in the body, known before it */
	const char **names = NULL;
	size_t nnames = 0, cap = 0;
	assigned(lw, s->kids[2], &names, &nnames, &cap, 0);
	lw->loop_depth++;
	for (size_t i = 0; i < nnames; i++) {
		struct lw_var *e = find(&lw->env, names[i]);
		if (!e || strcmp(names[i], iv_name) == 0)
			continue;
		bool live = reads(s->kids[2], names[i], 0) || live_after(lw, names[i]);
		if (live)
			carry(lw, e, s);
	}
	struct lw_env before = env_copy(lw, &lw->env);
	struct top *op = top_new(lw->a, TOP_FOR, s->line, s->col);
	op->lo = lo_rs;
	op->hi = hi_rs;
	op->step = step_rs;
	op->body = ta_alloc(lw->a, sizeof(*op->body));
	op->inv = "for";
	struct tvar *ivv = ta_alloc(lw->a, sizeof(*ivv));
	ivv->name = bind_name(lw, strcmp(iv_name, "_") == 0 ? "_i" : iv_name, NULL);
	op->text = ivv->name;
	struct tval *iv = tv_int(lw->a, ivv->name);
	iv->var = ivv;
	env_set(lw, &lw->env, iv_name, iv, 0);
	struct tblock *outer = lw->cur;
	lw->cur = op->body;
	push_frame(lw, s->kids[2], true, false);
	lw->frames[lw->nframes - 1].entry = &before;
	lower_frame(lw);
	lw->nframes--;
	lw->cur = outer;
	tblock_add(lw->a, lw->cur, op);
	/* what the body defined does not leave it */
	for (size_t i = 0; i < lw->env.n; i++) {
		const char *n = lw->env.v[i].name;
		if (find(&before, n) || !live_after(lw, n))
			continue;
		lw_unsupported(lw, s, "`%s` is defined inside the loop and used after it", n);
	}
	struct lw_env after = before;
	for (size_t i = 0; i < after.n; i++) {
		struct lw_var *now = find(&lw->env, after.v[i].name);
		if (now)
			after.v[i].v = now->v;
		if (after.v[i].carried == lw->loop_depth)
			after.v[i].carried = 0;
	}
	if (live_after(lw, iv_name) && !find(&before, iv_name))
		lw_unsupported(lw, t, "the loop variable `%s` is used after the loop", iv_name);
	env_del(&after, iv_name);
	struct lw_var *old_iv = find(&before, iv_name);
	if (old_iv)
		env_set(lw, &after, iv_name, old_iv->v, old_iv->carried);
	lw->env = after;
	lw->loop_depth--;
}

/* ---- branches ---- */

struct merge {
	const char *name;
	struct tval *t, *f;
};

/* Compare the two sides; returns the name that cannot be merged, or NULL. */
static const char *plan_merges(struct lw *lw, const struct lw_env *base, const struct lw_env *et,
			       const struct lw_env *ef, struct merge **out, size_t *nout)
{
	*out = NULL;
	*nout = 0;
	size_t cap = 0;
	const struct lw_env *sides[2] = {et, ef};
	for (int s = 0; s < 2; s++) {
		for (size_t i = 0; i < sides[s]->n; i++) {
			const char *name = sides[s]->v[i].name;
			struct lw_var *vt = find((struct lw_env *)et, name);
			struct lw_var *vf = find((struct lw_env *)ef, name);
			if (s == 1 && vt)
				continue; /* seen from the then side */
			if (vt && vf && vt->v == vf->v)
				continue;
			if (!live_after(lw, name))
				continue;
			if (!vt || !vf) {
				/* only one side defines it: the other keeps the old value */
				struct lw_var *old = find((struct lw_env *)base, name);
				if (!old)
					return name;
				if (!vt)
					vt = old;
				else
					vf = old;
				if (vt->v == vf->v)
					continue;
			}
			if (!same_type(vt->v, vf->v) || !mergeable(vt->v) || !mergeable(vf->v))
				return name;
			if ((vt->v->kind == TV_CINT && vf->v->kind == TV_CINT && vt->v->known &&
			     vf->v->known && vt->v->ival == vf->v->ival) ||
			    (vt->v->kind == TV_CBOOL && vf->v->kind == TV_CBOOL && vt->v->known &&
			     vf->v->known && vt->v->ival == vf->v->ival))
				continue;
			if ((vt->v->kind == TV_CINT && vf->v->kind == TV_CINT) ||
			    (vt->v->kind == TV_CBOOL && vf->v->kind == TV_CBOOL) ||
			    (vt->v->kind == TV_CFLOAT && vf->v->kind == TV_CFLOAT))
				return name; /* compile-time values that differ: structural */
			*out = xgrow_arena(lw, *out, &cap, *nout + 1);
			(*out)[(*nout)++] = (struct merge){name, vt->v, vf->v};
		}
	}
	return NULL;
}

/* The ranks after a branch: what either side showed; NULL, or the name of
 * an array the two sides access with different ranks. */
static const char *merge_ranks(struct lw *lw, const int *rt, const int *rf, int *out)
{
	for (size_t i = 0; i < lw->k->nparams; i++) {
		if (rt[i] > 0 && rf[i] > 0 && rt[i] != rf[i])
			return ta_printf(lw->a, "the rank of %s", lw->k->params[i].name);
		out[i] = rt[i] > 0 ? rt[i] : rf[i];
	}
	return NULL;
}

static void lower_side(struct lw *lw, struct tblock *b, struct lw_env *env,
		       const struct py_node *block, const struct py_node *value,
		       const struct py_node *target)
{
	struct tblock *save = lw->cur;
	lw->cur = b;
	lw->env = *env;
	if (block) {
		lower_block(lw, block, false);
	} else {
		lw->target = target_name(&lw->m->py, target, lw);
		struct tval *v = lw_expr(lw, value);
		lw->target = NULL;
		assign_target(lw, target, v, value);
	}
	*env = lw->env;
	lw->cur = save;
}

static void lower_if(struct lw *lw, const struct py_node *s, struct tval *cond,
		     const struct py_node *then_b, const struct py_node *else_b,
		     const struct py_node *value_t, const struct py_node *value_f,
		     const struct py_node *target)
{
	struct lw_env base = env_copy(lw, &lw->env);
	struct lw_env et = env_copy(lw, &base), ef = env_copy(lw, &base);
	struct top *op = top_new(lw->a, TOP_IF, s->line, s->col);
	op->text = cond->rs;
	op->body = ta_alloc(lw->a, sizeof(*op->body));
	op->orelse = ta_alloc(lw->a, sizeof(*op->orelse));
	op->inv = "if";
	/* array ranks are per side too: a Constant branch may change them */
	size_t pc = lw->param_cap;
	int *rank = lw->e->param_rank;
	int *r0 = ta_alloc(lw->a, pc * sizeof(int)), *rt = ta_alloc(lw->a, pc * sizeof(int));
	int *rf = ta_alloc(lw->a, pc * sizeof(int));
	memcpy(r0, rank, pc * sizeof(int));
	lower_side(lw, op->body, &et, then_b, value_t, target);
	memcpy(rt, rank, pc * sizeof(int));
	memcpy(rank, r0, pc * sizeof(int));
	if (else_b || value_f)
		lower_side(lw, op->orelse, &ef, else_b, value_f, target);
	memcpy(rf, rank, pc * sizeof(int));
	lw->env = base;
	struct merge *m;
	size_t nm;
	const char *bad = plan_merges(lw, &base, &et, &ef, &m, &nm);
	if (!bad)
		bad = merge_ranks(lw, rt, rf, rank);
	struct lw_frame *fr = &lw->frames[lw->nframes - 1];
	while (bad && cond->kind == TV_CBOOL && cond->pred_dtype && fr->at + 1 < fr->n) {
		/* the element type decides: repeat what follows in each branch */
		fr->at++;
		const struct py_node *next = fr->stmts[fr->at];
		struct tblock *save = lw->cur;
		lw->cur = op->body;
		lw->env = et;
		memcpy(rank, rt, pc * sizeof(int));
		lower_stmt(lw, next);
		memcpy(rt, rank, pc * sizeof(int));
		et = lw->env;
		lw->cur = op->orelse;
		lw->env = ef;
		memcpy(rank, rf, pc * sizeof(int));
		lower_stmt(lw, next);
		memcpy(rf, rank, pc * sizeof(int));
		ef = lw->env;
		lw->cur = save;
		lw->env = base;
		bad = plan_merges(lw, &base, &et, &ef, &m, &nm);
		if (!bad)
			bad = merge_ranks(lw, rt, rf, rank);
	}
	if (bad) {
		if (cond->kind != TV_CBOOL)
			lw_unsupported(lw, s,
				       "`%s` has a different type (or exists) on one side only of a "
				       "runtime branch",
				       bad);
		if (cond->pred_dtype)
			lw_unsupported(lw, s,
				       "`%s` depends on the element type past the end of its block", bad);
		lw->split.py = cond->py;
		lw->split.ffi = cond->ffi;
		lw->split.param = cond->cparam;
		lw->split.cop = cond->cop;
		lw->split.cval = cond->cval;
		lw->split.cneg = cond->cneg;
		const char *pname = cond->cparam >= 0 ? lw->k->params[cond->cparam].name : NULL;
		char low[64];
		size_t n = 0;
		for (const char *p = pname ? pname : "v"; *p && n < sizeof(low) - 1; p++)
			low[n++] = (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
		low[n] = '\0';
		const char *bt, *bf;
		if (pname && cond->cop == 0) {
			bt = ta_printf(lw->a, "%s_true", low);
			bf = ta_printf(lw->a, "%s_false", low);
		} else if (pname) {
			static const struct {
				int op;
				const char *t, *f;
			} ops[] = {{PYOP_EQ, "eq", "ne"}, {PYOP_NE, "ne", "eq"}, {PYOP_LT, "lt", "ge"},
				   {PYOP_LE, "le", "gt"}, {PYOP_GT, "gt", "le"}, {PYOP_GE, "ge", "lt"}};
			const char *tn = "eq", *fn = "ne";
			for (size_t i = 0; i < TP_ARRAY_LEN(ops); i++)
				if (ops[i].op == cond->cop) {
					tn = ops[i].t;
					fn = ops[i].f;
				}
			bt = ta_printf(lw->a, "%s_%s_%lld", low, tn, (long long)cond->cval);
			bf = ta_printf(lw->a, "%s_%s_%lld", low, fn, (long long)cond->cval);
		} else {
			bt = ta_printf(lw->a, "v%d_true", s->line);
			bf = ta_printf(lw->a, "v%d_false", s->line);
		}
		lw->split.name_true = cond->cneg ? bf : bt;
		lw->split.name_false = cond->cneg ? bt : bf;
		lw->status = LW_SPLIT;
		longjmp(lw->jb, 1);
	}
	/* what both sides left alone or carried stays; values that differ
	 * live on in variables declared before the branch */
	struct lw_env merged = env_copy(lw, &base);
	const struct lw_env *sides[2] = {&et, &ef};
	for (int sd = 0; sd < 2; sd++)
		for (size_t i = 0; i < sides[sd]->n; i++) {
			struct lw_var *vt = find(&et, sides[sd]->v[i].name);
			struct lw_var *vf = find(&ef, sides[sd]->v[i].name);
			if (vt && vf && vt->v == vf->v)
				env_set(lw, &merged, vt->name, vt->v, vt->carried);
		}
	op->decls = nm ? ta_alloc(lw->a, nm * sizeof(*op->decls)) : NULL;
	for (size_t i = 0; i < nm; i++) {
		struct tval *t = m[i].t, *f = m[i].f;
		struct tvar *var = ta_alloc(lw->a, sizeof(*var));
		var->name = lw_fresh(lw, m[i].name);
		struct tval *d;
		if (t->kind == TV_TILE) {
			d = tv_new(lw->a, TV_TILE);
			d->dt = t->dt;
			d->shape = t->shape;
			d->ptr_tile = t->ptr_tile;
			d->var = var;
		} else {
			d = scalar_var(lw, t, var);
		}
		op->decls[op->ndecls++] = d;
		write_into(lw, op->body, d, t, s);
		write_into(lw, op->orelse, d, f, s);
		env_set(lw, &merged, m[i].name, d, 0);
	}
	lw->env = merged;
	tblock_add(lw->a, lw->cur, op);
}

static void lower_if_stmt(struct lw *lw, const struct py_node *s)
{
	struct tval *c = lw_expr(lw, s->kids[0]);
	switch (c->kind) {
	case TV_CBOOL:
	case TV_BOOL:
		break;
	case TV_NONE:
		c = tv_cbool(lw->a, false);
		break;
	case TV_CINT:
		if (c->known) {
			c = tv_cbool(lw->a, c->ival != 0);
			break;
		}
		/* fall through */
	case TV_INT: {
		struct tval *b = tv_new(lw->a, c->kind == TV_CINT ? TV_CBOOL : TV_BOOL);
		b->rs = ta_printf(lw->a, "(%s != 0)", c->rs);
		b->ffi = b->rs;
		b->py = b->rs;
		b->dt = DT_BOOL;
		c = b;
		break;
	}
	default:
		lw_unsupported(lw, s->kids[0], "a branch on a %s", lw_kind(c));
	}
	if (c->kind == TV_CBOOL && c->known) {
		const struct py_node *taken = c->ival ? s->kids[1] : s->kids[2];
		if (taken)
			lower_block(lw, taken, false);
		return;
	}
	lower_if(lw, s, c, s->kids[1], s->kids[2], NULL, NULL, NULL);
}

static void lower_stmt(struct lw *lw, const struct py_node *s)
{
	lw->stmt = s;
	switch (s->kind) {
	case PY_EXPR_STMT:
		if (s->kids[0]->kind == PY_STR || s->kids[0]->kind == PY_CONST)
			return; /* docstrings and `...` */
		lw_expr(lw, s->kids[0]);
		return;
	case PY_ASSIGN:
		lower_assign(lw, s);
		return;
	case PY_ANNASSIGN:
		if (!s->kids[2])
			return;
		lw->target = target_name(&lw->m->py, s->kids[0], lw);
		{
			struct tval *v = lw_expr(lw, s->kids[2]);
			lw->target = NULL;
			assign_target(lw, s->kids[0], v, s);
		}
		return;
	case PY_AUGASSIGN:
		lower_augassign(lw, s);
		return;
	case PY_FOR:
		lower_for(lw, s);
		return;
	case PY_IF:
		lower_if_stmt(lw, s);
		return;
	case PY_PASS:
		return;
	case PY_RETURN: {
		const struct lw_frame *f = &lw->frames[lw->nframes - 1];
		if (!f->barrier || f->at + 1 != f->n)
			lw_unsupported(lw, s, "return before the end of the function");
		if (s->kids[0]) {
			if (lw->inline_depth == 0)
				lw_unsupported(lw, s, "a kernel that returns a value");
			struct tval *v = lw_expr(lw, s->kids[0]);
			env_set(lw, &lw->env, " return", v, 0);
		}
		return;
	}
	case PY_WHILE:
		lw_unsupported(lw, s, "while loop");
	case PY_BREAK:
		lw_unsupported(lw, s, "break");
	case PY_CONTINUE:
		lw_unsupported(lw, s, "continue");
	case PY_ASSERT:
		lw_unsupported(lw, s, "assert in a kernel (use ct.static_assert)");
	case PY_TRY:
		lw_unsupported(lw, s, "try statement");
	case PY_WITH:
		lw_unsupported(lw, s, "with statement");
	case PY_DEF:
		lw_unsupported(lw, s, "a function defined inside a kernel");
	case PY_CLASS:
		lw_unsupported(lw, s, "a class defined inside a kernel");
	case PY_IMPORT:
	case PY_FROM:
		lw_unsupported(lw, s, "import inside a kernel");
	case PY_GLOBAL:
		lw_unsupported(lw, s, "global/nonlocal");
	case PY_DEL:
		lw_unsupported(lw, s, "del");
	case PY_RAISE:
		lw_unsupported(lw, s, "raise in a kernel");
	default:
		lw_unsupported(lw, s, "this statement");
	}
}

/* Inline a device function: its parameters bound to the arguments, its
 * body lowered in a scope of its own, its return value handed back. */
struct tval *lw_call_function(struct lw *lw, const struct pm_func *f, const struct py_node *call)
{
	if (f->role == PM_KERNEL)
		lw_unsupported(lw, call, "calling the kernel `%s` from a kernel", f->name);
	if (lw->inline_depth >= LW_MAX_INLINE)
		lw_unsupported(lw, call, "device functions nested more than %d deep", LW_MAX_INLINE);
	const struct py_node *def = f->def;
	const struct py_node *params = def->kids[1];
	struct lw_env callee = {0};
	size_t pos = 0;
	for (size_t i = 0; i < params->nkids; i++) {
		const struct py_node *p = params->kids[i];
		if (p->op != PYP_PLAIN)
			lw_unsupported(lw, p, "*args/**kwargs in a device function");
		const char *pname = lw_name(lw, p);
		const struct py_node *arg = py_call_kw(call, pname);
		if (!arg)
			arg = py_call_arg(call, pos++);
		if (!arg)
			arg = p->kids[1];
		if (!arg)
			lw_unsupported(lw, call, "no argument for `%s` of %s()", pname, f->name);
		struct tval *v = lw_expr(lw, arg);
		env_set(lw, &callee, pname, v, 0);
	}
	for (size_t k = 1; k < call->nkids; k++)
		if (call->kids[k]->kind == PY_STARRED || call->kids[k]->kind == PY_DSTAR)
			lw_unsupported(lw, call->kids[k], "*args/**kwargs in a call");
	struct lw_env caller = lw->env;
	lw->outer[lw->inline_depth] = &caller;
	lw->env = callee;
	lw->inline_depth++;
	const char *target = lw->target;
	lw->target = NULL;
	push_frame(lw, def->kids[3], false, true);
	lower_frame(lw);
	lw->nframes--;
	lw->target = target;
	lw->inline_depth--;
	struct lw_var *r = find(&lw->env, " return");
	struct tval *result = r ? r->v : tv_new(lw->a, TV_NONE);
	lw->env = caller;
	return result;
}

/* ---- parameters ---- */

static bool host_float_arg(const struct pymod *m, const struct pm_func *k, size_t index);

static void make_params(struct lw *lw)
{
	const struct py_node *params = lw->f->def->kids[1];
	struct tkernel *k = lw->k;
	k->params = ta_alloc(lw->a, lw->param_cap * sizeof(*k->params));
	for (size_t i = 0; i < params->nkids; i++) {
		const struct py_node *p = params->kids[i];
		if (p->op != PYP_PLAIN)
			lw_unsupported(lw, p, "*args/**kwargs in a kernel signature");
		struct tparam *tp = &k->params[k->nparams++];
		tp->name = ta_strdup(lw->a, "");
		char *name = py_str(p);
		tp->name = ta_strdup(lw->a, name);
		free(name);
		tp->rs = (char *)lw_rust_ident(lw, tp->name);
		tp->line = p->line;
		tp->col = p->col;
		tp->rank = -1;
		tp->source_index = (int)i;
		tp->kind = TP_SCALAR;
		tp->dt = DT_I32;
		const struct py_node *ann = p->kids[0];
		int c = ann ? lw->api->const_annotation(lw, ann) : 0;
		if (c) {
			tp->kind = TP_CONST;
			tp->dt = c == 2 ? DT_BOOL : DT_I32;
		} else if (ann && py_is_name(ann, "float")) {
			tp->dt = DT_F32;
		} else if (ann && py_is_name(ann, "bool")) {
			tp->dt = DT_BOOL;
		} else if (!ann && host_float_arg(lw->m, lw->f, i)) {
			tp->dt = DT_F32;
		}
	}
	lw->api->mark_arrays(lw, lw->f->def);
}

const struct py_node *lw_launch_call(const struct pymod *m, const char *kernel,
				     const struct pm_func **host)
{
	for (size_t i = 0; i < m->nfuncs; i++) {
		const struct pm_func *h = &m->funcs[i];
		if (h->role != PM_HOST)
			continue;
		const struct py_node *stack[512];
		size_t sp = 0;
		stack[sp++] = h->def->kids[3];
		while (sp) {
			const struct py_node *n = stack[--sp];
			if (!n)
				continue;
			if (n->kind == PY_CALL && ((pymod_is(m, n->kids[0], "ct.launch") &&
						    py_is_dotted(py_call_arg(n, 2), kernel)) ||
						   (n->kids[0]->kind == PY_SUBSCRIPT &&
						    py_is_name(n->kids[0]->kids[0], kernel)))) {
				if (host)
					*host = h;
				return n;
			}
			for (size_t c = 0; c < n->nkids && sp < 512; c++)
				stack[sp++] = n->kids[c];
		}
	}
	if (host)
		*host = NULL;
	return NULL;
}

const struct py_node *lw_host_arg(const struct pymod *m, const struct pm_func *k, size_t index,
				  const struct pm_func **host)
{
	const struct py_node *n = lw_launch_call(m, k->name, host);
	if (!n)
		return NULL;
	if (n->kids[0]->kind != PY_SUBSCRIPT) {
		/* ct.launch(stream, grid, K, (args)) */
		const struct py_node *args = py_call_arg(n, 3);
		return args && (args->kind == PY_TUPLE || args->kind == PY_LIST) && index < args->nkids
			       ? args->kids[index]
			       : NULL;
	}
	/* K[grid](args), by position or by the parameter's name */
	if (index >= k->def->kids[1]->nkids)
		return NULL;
	char *pname = py_str(k->def->kids[1]->kids[index]);
	const struct py_node *arg = py_call_kw(n, pname);
	free(pname);
	return arg ? arg : py_call_arg(n, index);
}

/* The host parameter or the last assignment that gives a name its value. */
static const struct py_node *host_param(const struct pm_func *h, const struct py_node *name)
{
	const struct py_node *hp = h->def->kids[1];
	for (size_t q = 0; q < hp->nkids; q++) {
		const struct py_node *p = hp->kids[q];
		if (p->s && p->n == name->n && memcmp(p->s, name->s, p->n) == 0)
			return p;
	}
	return NULL;
}

const struct py_node *lw_host_assignment(const struct py_node *n, const struct py_node *name)
{
	const struct py_node *found = NULL;
	if (!n)
		return NULL;
	if (n->kind == PY_ASSIGN && n->nkids == 2 && n->kids[0]->kind == PY_NAME &&
	    n->kids[0]->n == name->n && memcmp(n->kids[0]->s, name->s, name->n) == 0 &&
	    n->line <= name->line)
		found = n->kids[1];
	if (n->kind == PY_DEF || n->kind == PY_LAMBDA || n->kind == PY_CLASS)
		return NULL;
	for (size_t k = 0; k < n->nkids; k++) {
		const struct py_node *f = lw_host_assignment(n->kids[k], name);
		if (f)
			found = f;
	}
	return found;
}

/* Is the host's launch argument for kernel parameter `index` a float (a
 * float literal, or a host parameter with a float default or annotation)? */
static bool host_float_arg(const struct pymod *m, const struct pm_func *k, size_t index)
{
	const struct pm_func *h = NULL;
	const struct py_node *arg = lw_host_arg(m, k, index, &h);
	if (!arg)
		return false;
	double d;
	long long iv;
	if (arg->kind == PY_NUM && !py_int_value(arg, &iv) && py_float_value(arg, &d))
		return true;
	if (arg->kind == PY_CALL && py_is_name(arg->kids[0], "float"))
		return true;
	if (arg->kind == PY_NAME) {
		const struct py_node *p = host_param(h, arg);
		if (p && p->kids[0] && py_is_name(p->kids[0], "float"))
			return true;
		if (p && p->kids[1] && p->kids[1]->kind == PY_NUM && !py_int_value(p->kids[1], &iv))
			return true;
		const struct py_node *v = lw_host_assignment(h->def->kids[3], arg);
		if (v && v->kind == PY_NUM && !py_int_value(v, &iv))
			return true;
		if (v && v->kind == PY_CALL && py_is_name(v->kids[0], "float"))
			return true;
	}
	return false;
}

static enum tdt torch_dtype(const struct pymod *m, const struct py_node *n)
{
	char *c = n ? pymod_canon(m, n) : NULL;
	enum tdt d = DT_NONE;
	if (c && str_starts(c, "torch."))
		d = tdt_from_name(c + strlen("torch."));
	free(c);
	return d;
}

void lw_array_dtypes(struct lw *lw)
{
	for (size_t i = 0; i < lw->k->nparams; i++) {
		struct tparam *p = &lw->k->params[i];
		if (p->kind != TP_ARRAY)
			continue;
		p->dt = lw_host_array_dtype(lw->m, lw->f, (size_t)p->source_index);
		if (p->dt == DT_NONE) {
			p->dt = DT_E;
			p->dt_default = true;
		}
	}
}

enum tdt lw_host_array_dtype(const struct pymod *m, const struct pm_func *k, size_t index)
{
	const struct pm_func *h = NULL;
	const struct py_node *arg = lw_host_arg(m, k, index, &h);
	const struct py_node *v = arg && arg->kind == PY_NAME ? lw_host_assignment(h->def->kids[3], arg)
							      : NULL;
	if (!v || v->kind != PY_CALL)
		return DT_NONE;
	enum tdt d = torch_dtype(m, py_call_kw(v, "dtype"));
	if (d == DT_NONE && v->kids[0]->kind == PY_ATTR) {
		const struct py_node *callee = v->kids[0];
		if (callee->n == 2 && memcmp(callee->s, "to", 2) == 0)
			d = torch_dtype(m, py_call_arg(v, 0));
		else if (callee->n == 5 && memcmp(callee->s, "float", 5) == 0)
			d = DT_F32;
		else if (callee->n == 4 && memcmp(callee->s, "long", 4) == 0)
			d = DT_I64;
		else if (callee->n == 3 && memcmp(callee->s, "int", 3) == 0)
			d = DT_I32;
	}
	return d == DT_NONE ? DT_E : d;
}

static void bind_params(struct lw *lw)
{
	struct tkernel *k = lw->k;
	for (size_t i = 0; i < k->nparams; i++) {
		struct tparam *p = &k->params[i];
		struct tval *v;
		if (p->kind == TP_ARRAY) {
			v = tv_new(lw->a, TV_ARRAY);
			v->dt = p->dt;
		} else if (p->kind == TP_CONST) {
			if (lw->has_fixed[i]) {
				v = p->dt == DT_BOOL ? tv_cbool(lw->a, lw->fixed[i] != 0)
						     : tv_cint(lw->a, lw->fixed[i]);
			} else if (p->dt == DT_BOOL) {
				v = lw_cbool_sym(lw, p->rs, ta_printf(lw->a, "(%s != 0)", p->rs), p->name,
						 false);
				v->cparam = (int)i;
			} else {
				v = tv_csym(lw->a, p->rs);
			}
		} else if (p->dt == DT_F32) {
			v = tv_new(lw->a, TV_FLOAT);
			v->dt = DT_F32;
			v->rs = p->rs;
		} else if (p->dt == DT_BOOL) {
			v = tv_new(lw->a, TV_BOOL);
			v->dt = DT_BOOL;
			v->rs = p->rs;
		} else {
			v = tv_int(lw->a, p->rs);
		}
		v->param = (int)i;
		env_set(lw, &lw->env, p->name, v, 0);
		take(lw, p->rs);
	}
}

/* ---- entries ---- */

struct spec {
	struct lw_bind *binds;
	size_t n;
	int64_t *fixed;
	bool *has_fixed;
	const char *name;
	const char *py, *ffi;
};

static enum lw_status lower_entry(struct lw *lw, const struct spec *sp)
{
	lw->binds = sp->binds;
	lw->nbinds = sp->n;
	lw->fixed = sp->fixed;
	lw->has_fixed = sp->has_fixed;
	lw->env = (struct lw_env){0};
	lw->nframes = 0;
	lw->loop_depth = 0;
	lw->inline_depth = 0;
	lw->nnames = 0;
	lw->target = NULL;
	lw->status = LW_OK;
	struct tentry *e = ta_alloc(lw->a, sizeof(*e));
	e->param_used = ta_alloc(lw->a, lw->param_cap * sizeof(bool));
	e->param_rank = ta_alloc(lw->a, lw->param_cap * sizeof(int));
	/* the rank the front end read off the accesses, when they agree */
	for (size_t i = 0; i < lw->param_cap; i++)
		e->param_rank[i] = i < lw->k->nparams && lw->k->params[i].rank > 0 ? lw->k->params[i].rank : -1;
	lw->e = e;
	lw->cur = &e->body;
	if (setjmp(lw->jb))
		return lw->status;
	bind_params(lw);
	push_frame(lw, lw->f->def->kids[3], false, true);
	lower_frame(lw);
	lw->nframes--;
	return LW_OK;
}

static void finish_entry(struct lw *lw, const struct spec *sp)
{
	struct tkernel *k = lw->k;
	struct tentry *e = lw->e;
	e->variant = ta_strdup(lw->a, sp->name ? sp->name : "");
	e->name = sp->name ? ta_printf(lw->a, "%s_%s", k->name, sp->name) : ta_strdup(lw->a, k->name);
	e->dispatch_py = ta_strdup(lw->a, sp->py ? sp->py : "always");
	e->dispatch_ffi = sp->ffi ? ta_strdup(lw->a, sp->ffi) : NULL;
	e->uses_e = true;
	e->generics = ta_alloc(lw->a, (k->nparams + 1) * sizeof(*e->generics));
	for (size_t i = 0; i < k->nparams; i++)
		if (k->params[i].kind == TP_CONST && !sp->has_fixed[i] && e->param_used[i])
			e->generics[e->ngenerics++] = k->params[i].rs;
	k->entries[k->nentries++] = *e;
}

/* "!X" for a parenthesised or plain X, else "!(X)" ("not ..." alike). */
static const char *negate(struct tarena *a, const char *x, const char *not)
{
	size_t n = strlen(x);
	bool plain = true;
	for (size_t i = 0; i < n && plain; i++)
		plain = x[i] != ' ';
	bool wrapped = n > 1 && x[0] == '(' && x[n - 1] == ')';
	for (size_t i = 1, d = 1; wrapped && i + 1 < n; i++) {
		d += x[i] == '(' ? 1 : x[i] == ')' ? (size_t)-1 : 0;
		wrapped = d > 0;
	}
	if (plain || wrapped)
		return ta_printf(a, "%s%s", not, x);
	return ta_printf(a, "%s(%s)", not, x);
}

#define MAX_SPECS 16
#define MAX_ENTRIES 8

int lower_kernel(const struct pymod *m, const struct pm_func *f, const char *op,
		 struct tkernel **out, struct tp_err *err)
{
	*out = NULL;
	struct tarena *a = tarena_new();
	struct tkernel *k = ta_alloc(a, sizeof(*k));
	k->arena = a;
	k->name = ta_strdup(a, f->name);
	k->module = ta_printf(a, "%s_module", op);
	k->fe = f->fe;
	k->line = f->def->line;
	k->entries = ta_alloc(a, MAX_ENTRIES * sizeof(*k->entries));
	struct lw *lw = ta_alloc(a, sizeof(*lw));
	lw->a = a;
	lw->m = m;
	lw->f = f;
	lw->k = k;
	lw->err = err;
	lw->api = f->fe == FE_TRITON ? &lw_api_triton : &lw_api_cutile;
	reserve_names(lw, f->def, 0);
	for (size_t i = 0; i < m->nfuncs; i++)
		if (m->funcs[i].role == PM_DEVICE || m->funcs[i].role == PM_OTHER)
			reserve_names(lw, m->funcs[i].def, 0);
	/* parameters and hints can be refused too */
	struct tentry scratch = {0};
	lw->param_cap = f->def->kids[1]->nkids + 4 * TIR_MAX_RANK * 4 + 1;
	scratch.param_used = ta_alloc(a, lw->param_cap * sizeof(bool));
	scratch.param_rank = ta_alloc(a, lw->param_cap * sizeof(int));
	lw->e = &scratch;
	lw->cur = &scratch.body;
	if (setjmp(lw->jb)) {
		tarena_free(a);
		return -1;
	}
	make_params(lw);
	if (lw->api->hints && f->deco)
		lw->api->hints(lw, f->deco);
	struct spec *specs = ta_alloc(a, MAX_SPECS * sizeof(*specs));
	size_t nspecs = 1, done = 0;
	specs[0].fixed = ta_alloc(a, lw->param_cap * sizeof(int64_t));
	specs[0].has_fixed = ta_alloc(a, lw->param_cap * sizeof(bool));
	while (done < nspecs) {
		struct spec *sp = &specs[done++];
		enum lw_status st = lower_entry(lw, sp);
		if (st == LW_UNSUPPORTED) {
			tarena_free(a);
			return -1;
		}
		if (st == LW_OK) {
			if (k->nentries >= MAX_ENTRIES) {
				tp_err_set(err, TP_EXIT_FAILED,
					   "%s:%d:%d: unsupported: more than %d structural variants",
					   m->py.path, f->def->line, f->def->col, MAX_ENTRIES);
				tarena_free(a);
				return -1;
			}
			finish_entry(lw, sp);
			continue;
		}
		if (nspecs + 2 > MAX_SPECS) {
			tp_err_set(err, TP_EXIT_FAILED,
				   "%s:%d:%d: unsupported: more than %d structural variants",
				   m->py.path, f->def->line, f->def->col, MAX_ENTRIES);
			tarena_free(a);
			return -1;
		}
		struct lw_split s = lw->split;
		for (int v = 1; v >= 0; v--) {
			struct spec *c = &specs[nspecs++];
			c->n = sp->n + 1;
			c->binds = ta_alloc(a, c->n * sizeof(*c->binds));
			if (sp->n)
				memcpy(c->binds, sp->binds, sp->n * sizeof(*c->binds));
			c->binds[sp->n] = (struct lw_bind){s.py, v != 0};
			c->fixed = ta_alloc(a, lw->param_cap * sizeof(int64_t));
			c->has_fixed = ta_alloc(a, lw->param_cap * sizeof(bool));
			memcpy(c->fixed, sp->fixed, lw->param_cap * sizeof(int64_t));
			memcpy(c->has_fixed, sp->has_fixed, lw->param_cap * sizeof(bool));
			bool base = (v != 0) != s.cneg; /* the value of the un-negated test */
			if (s.param >= 0 && s.cop == 0) {
				c->has_fixed[s.param] = true;
				c->fixed[s.param] = base;
			} else if (s.param >= 0 && s.cop == PYOP_EQ && base) {
				c->has_fixed[s.param] = true;
				c->fixed[s.param] = s.cval;
			}
			const char *nm = v ? s.name_true : s.name_false;
			c->name = sp->name ? ta_printf(a, "%s_%s", sp->name, nm) : nm;
			const char *py = v ? s.py : negate(a, s.py, "not ");
			const char *ffi = v ? s.ffi : negate(a, s.ffi, "!");
			c->py = sp->py ? ta_printf(a, "%s and %s", sp->py, py) : py;
			c->ffi = sp->ffi ? ta_printf(a, "%s && %s", sp->ffi, ffi) : ffi;
		}
	}
	*out = k;
	return 0;
}

void tkernel_free(struct tkernel *k)
{
	if (k)
		tarena_free(k->arena);
}
