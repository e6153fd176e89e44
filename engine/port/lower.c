/* Lowering a kernel: errors, Rust names, the environment of Python names,
 * the ops an entry accumulates, liveness, and the driver that lowers one
 * entry per structural variant. A branch on a compile-time condition whose
 * two sides leave values of different types behind is resolved two ways
 * (lower_branch.c): a Constant condition splits the kernel into one entry
 * per truth value (as Python's JIT prunes the untaken side); an
 * element-type test keeps one entry and repeats the statements that follow
 * in each branch until the types agree again. Statements are in
 * lower_stmt.c, what the host code says in lower_host.c. */
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

void *lw_grow_arena(struct tarena *a, void *p, size_t *cap, size_t need, size_t size)
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

void lw_take_name(struct lw *lw, const char *name)
{
	lw->names = xgrow_arena(lw, lw->names, &lw->capnames, lw->nnames + 1);
	lw->names[lw->nnames++] = name;
}

/* Rust names of values are snake case (rustc warns on `X`, `Out_part`);
 * only const generics keep the source's capitals. */
static void snake(char *s)
{
	for (; *s; s++)
		if (*s >= 'A' && *s <= 'Z')
			*s = (char)(*s - 'A' + 'a');
}

const char *lw_rust_ident(struct lw *lw, const char *name)
{
	char *r = is_rust_keyword(name) ? ta_printf(lw->a, "%s_", name) : ta_strdup(lw->a, name);
	snake(r);
	return is_rust_keyword(r) ? ta_printf(lw->a, "%s_", r) : r;
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
	snake(clean);
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
		lw_take_name(lw, s);
		return s;
	}
}

const char *lw_param_ident(struct lw *lw, const char *name)
{
	const char *r = lw_rust_ident(lw, name);
	if (strcmp(r, name) == 0)
		return r;
	/* `Y` became `y`: unless the source has a `y` of its own */
	if (in_list(lw->reserved, lw->nreserved, r) || in_list(lw->names, lw->nnames, r))
		return lw_fresh(lw, ta_printf(lw->a, "%s_p", r));
	lw_take_name(lw, r);
	return r;
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

struct lw_var *lw_env_find(struct lw_env *env, const char *name)
{
	for (size_t i = env->n; i-- > 0;)
		if (strcmp(env->v[i].name, name) == 0)
			return &env->v[i];
	return NULL;
}

void lw_env_set(struct lw *lw, struct lw_env *env, const char *name, struct tval *v,
		    int carried)
{
	struct lw_var *e = lw_env_find(env, name);
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

void lw_env_del(struct lw_env *env, const char *name)
{
	struct lw_var *e = lw_env_find(env, name);
	if (e) {
		size_t i = (size_t)(e - env->v);
		memmove(e, e + 1, (env->n - i - 1) * sizeof(*e));
		env->n--;
	}
}

struct lw_env lw_env_copy(struct lw *lw, const struct lw_env *env)
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
	struct lw_var *e = lw_env_find(&lw->env, name);
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

bool lw_name_held(struct lw *lw, const char *rust, const struct lw_var *skip)
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
const char *lw_bind_name(struct lw *lw, const char *name, const struct lw_var *skip)
{
	const char *r = lw_rust_ident(lw, name);
	if (!lw_name_held(lw, r, skip)) {
		lw_take_name(lw, r);
		return r;
	}
	return lw_fresh(lw, name);
}

bool lw_same_type(const struct tval *a, const struct tval *b)
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
bool lw_mergeable(const struct tval *v)
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

/* ---- liveness ---- */


static bool reads_kids(const struct py_node *n, size_t from, const char *name, int depth)
{
	for (size_t k = from; k < n->nkids; k++)
		if (lw_reads(n->kids[k], name, depth + 1))
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
	return lw_reads(t, name, depth + 1);
}

bool lw_reads(const struct py_node *n, const char *name, int depth)
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
		return lw_reads(n->kids[n->nkids - 1], name, depth + 1);
	case PY_ANNASSIGN:
		return target_reads(n->kids[0], name, depth) || lw_reads(n->kids[2], name, depth + 1);
	case PY_FOR:
		return target_reads(n->kids[0], name, depth) || reads_kids(n, 1, name, depth);
	case PY_COMPFOR:
		return target_reads(n->kids[0], name, depth) || reads_kids(n, 1, name, depth);
	case PY_NAMED:
		return lw_reads(n->kids[1], name, depth + 1);
	default:
		return reads_kids(n, 0, name, depth);
	}
}

/* Is Python `name` read after the statement being lowered? */
enum use { USE_NONE, USE_READ, USE_KILLED };

static enum use seq_use(struct py_node *const *stmts, size_t from, size_t n, const char *name,
			int depth);

static enum use block_use(const struct py_node *b, const char *name, int depth)
{
	if (!b)
		return USE_NONE;
	if (b->kind != PY_BLOCK)
		return lw_reads(b, name, depth) ? USE_READ : USE_NONE;
	return seq_use(b->kids, 0, b->nkids, name, depth);
}

/* What one statement does to `name`, in the order it runs: read first,
 * rebound on every path before any read (its old value dies), or
 * neither. A loop may run no time, so it never kills; a loop over
 * `name` itself reads it only in its iterable. */
static enum use stmt_use(const struct py_node *s, const char *name, int depth)
{
	if (!s || depth > 200)
		return USE_NONE;
	switch (s->kind) {
	case PY_ASSIGN:
		if (lw_reads(s, name, depth))
			return USE_READ;
		for (size_t k = 0; k + 1 < s->nkids; k++)
			if (py_is_name(s->kids[k], name))
				return USE_KILLED;
		return USE_NONE;
	case PY_FOR:
		if (s->kids[3] || lw_reads(s->kids[1], name, depth + 1) ||
		    target_reads(s->kids[0], name, depth))
			return USE_READ;
		if (py_is_name(s->kids[0], name))
			return USE_NONE;
		return block_use(s->kids[2], name, depth + 1) == USE_READ ? USE_READ : USE_NONE;
	case PY_IF: {
		if (lw_reads(s->kids[0], name, depth + 1))
			return USE_READ;
		enum use t = block_use(s->kids[1], name, depth + 1);
		enum use f = block_use(s->kids[2], name, depth + 1);
		if (t == USE_READ || f == USE_READ)
			return USE_READ;
		return t == USE_KILLED && f == USE_KILLED ? USE_KILLED : USE_NONE;
	}
	default:
		return lw_reads(s, name, depth) ? USE_READ : USE_NONE;
	}
}

/* Has `s` a statement that leaves a straight run of statements early? */
static bool jumps(const struct py_node *s, int depth)
{
	if (!s || depth > 200)
		return false;
	if (s->kind == PY_BREAK || s->kind == PY_CONTINUE || s->kind == PY_RETURN ||
	    s->kind == PY_RAISE)
		return true;
	if (s->kind == PY_DEF || s->kind == PY_CLASS || s->kind == PY_LAMBDA)
		return false;
	for (size_t k = 0; k < s->nkids; k++)
		if (jumps(s->kids[k], depth + 1))
			return true;
	return false;
}

static enum use seq_use(struct py_node *const *stmts, size_t from, size_t n, const char *name,
			int depth)
{
	for (size_t i = from; i < n; i++) {
		enum use u = stmt_use(stmts[i], name, depth);
		if (u != USE_NONE)
			return u;
		if (jumps(stmts[i], depth))
			return USE_NONE; /* what follows may not run: no kill counts */
	}
	return USE_NONE;
}

bool lw_live_after(struct lw *lw, const char *name)
{
	for (int f = lw->nframes - 1; f >= 0; f--) {
		const struct lw_frame *fr = &lw->frames[f];
		/* the rest of the frame runs on every path: a rebinding there
		 * before any read ends the current value */
		enum use u = seq_use(fr->stmts, fr->at + 1, fr->n, name, 0);
		if (u == USE_READ)
			return true;
		if (u == USE_KILLED)
			return false;
		/* a loop body runs again: what it reads before the current
		 * statement is live too, for a name the loop found defined (a
		 * name first set inside the body is set before it is read) */
		bool again = fr->loop && fr->entry && lw_env_find((struct lw_env *)fr->entry, name);
		if (again && seq_use(fr->stmts, 0, fr->at + 1, name, 0) == USE_READ)
			return true;
		if (fr->barrier)
			return false;
	}
	return false;
}

/* Names a statement list assigns (nested blocks included). */
void lw_assigned(struct lw *lw, const struct py_node *n, const char ***out, size_t *nout,
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
		lw_assigned(lw, n->kids[k], out, nout, cap, depth + 1);
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
	lw_bind_params(lw);
	lw_push_frame(lw, lw->f->def->kids[3], false, true);
	lw_lower_frame(lw);
	lw->nframes--;
	lw_check_view_order(lw);
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
	e->generics = ta_alloc(lw->a, (k->nparams + e->nderived + 1) * sizeof(*e->generics));
	for (size_t i = 0; i < k->nparams; i++)
		if (k->params[i].kind == TP_CONST && !sp->has_fixed[i] && e->param_used[i])
			e->generics[e->ngenerics++] = k->params[i].rs;
	for (size_t i = 0; i < e->nderived; i++)
		e->generics[e->ngenerics++] = (char *)e->derived[i].name;
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
	lw_make_params(lw);
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
			} else if (s.param >= 0 && ((s.cop == PYOP_EQ && base) || (s.cop == PYOP_NE && !base))) {
				/* the side where the Constant equals the literal */
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
