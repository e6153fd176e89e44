/* The arguments a ct.launch passes a kernel, when the host does not write
 * them as one literal tuple: local names bound to tuples, `+` of them and
 * `*x` inside a tuple, with the bindings that reach the launch through
 * the host's ifs, loops and withs (structured code: the definitions that
 * reach a statement are found by walking back through its blocks).
 *
 * Where several bindings reach it (`args = common + (T,)` in one arm of
 * an if, `common + (cfg.TILE_V,)` in the other, one kernel launched from
 * each arm through the same name), each kernel gets the tuple that fits
 * its parameters: as many arguments; no argument that names another of
 * its parameters (`cfg.TILE_V` where it has a TILE_V elsewhere); of those,
 * the one whose arguments name the most of its parameters at their place
 * (`T` for `T`, `cfg.TILE_V` for `TILE_V`, case aside). Two tuples that
 * fit equally and differ are refused with both places: the wrapper would
 * still launch what the Python launches (it calls the kernel's launch
 * function with the host's own tuple), but which parameter an argument is
 * cannot be told. */
#include "engine/port/port_impl.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CANDS 64

/* One tuple the launch may pass: its elements, and the assignment that
 * gave it (NULL: written at the launch). */
struct cand {
	const struct py_node **v;
	size_t n;
	const struct py_node *from;
};

struct cands {
	struct cand *v;
	size_t n, cap;
};

/* One binding of a name that reaches a use: `name = value`, or
 * `name += value` (aug: the earlier bindings, then value); value NULL
 * when the name is bound to something that is no expression of its own
 * (a loop target, `a, b = f()`). */
struct def {
	const struct py_node *value;
	const struct py_node *stmt;
	bool aug;
};

struct defs {
	struct def *v;
	size_t n, cap;
};

struct rctx {
	const struct port_op *op;
	const struct pm_func *host;
	struct tp_err *err;
	bool failed;
};

static void refuse(struct rctx *r, const struct py_node *at, const char *fmt, ...) TP_PRINTF(3, 4);
static void refuse(struct rctx *r, const struct py_node *at, const char *fmt, ...)
{
	if (r->failed)
		return;
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	tp_err_set(r->err, TP_EXIT_FAILED, "%s:%d:%d: unsupported: %s", r->op->path, at->line, at->col,
		   msg);
	r->failed = true;
}

static void cands_free(struct cands *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->v[i].v);
	free(c->v);
	*c = (struct cands){0};
}

static void cands_add(struct cands *c, const struct py_node **v, size_t n, const struct py_node *from)
{
	c->v = xgrow(c->v, &c->cap, c->n + 1, sizeof(*c->v));
	const struct py_node **copy = xcalloc(n + 1, sizeof(*copy));
	if (n)
		memcpy(copy, v, n * sizeof(*v));
	c->v[c->n++] = (struct cand){copy, n, from};
}

/* Every a followed by every b (a `+` of tuples). */
static int product(struct rctx *r, const struct py_node *at, const struct cands *a,
		   const struct cands *b, struct cands *out)
{
	if (a->n * b->n > MAX_CANDS) {
		refuse(r, at, "launch arguments built in more than %d ways", MAX_CANDS);
		return -1;
	}
	for (size_t i = 0; i < a->n; i++)
		for (size_t j = 0; j < b->n; j++) {
			size_t n = a->v[i].n + b->v[j].n;
			if (n > PORT_LAUNCH_MAX_ARGS) {
				refuse(r, at, "a launch of more than %d arguments", PORT_LAUNCH_MAX_ARGS);
				return -1;
			}
			const struct py_node *v[PORT_LAUNCH_MAX_ARGS];
			memcpy(v, a->v[i].v, a->v[i].n * sizeof(*v));
			memcpy(v + a->v[i].n, b->v[j].v, b->v[j].n * sizeof(*v));
			/* the place named is where the tuples differ */
			const struct py_node *from = b->n > 1 ? b->v[j].from
						     : a->n > 1 ? a->v[i].from
						     : b->v[j].from ? b->v[j].from
								    : a->v[i].from;
			cands_add(out, v, n, from);
		}
	return 0;
}

/* ---- the bindings that reach a use ---- */

static bool is_name(const struct py_node *n, const struct py_node *name)
{
	return n && n->kind == PY_NAME && n->n == name->n && memcmp(n->s, name->s, n->n) == 0;
}

static bool holds(const struct py_node *outer, const struct py_node *n)
{
	return outer && n->tb >= outer->tb && n->tb < outer->te;
}

static void def_add(struct defs *d, const struct py_node *value, const struct py_node *stmt, bool aug)
{
	d->v = xgrow(d->v, &d->cap, d->n + 1, sizeof(*d->v));
	d->v[d->n++] = (struct def){value, stmt, aug};
}

static bool block_defs(const struct py_node *b, size_t upto, const struct py_node *name, struct defs *d);

/* A target binding name: `name`, or `name` inside a tuple target, whose
 * value is the matching element when the value is a tuple of as many. */
static bool target_defs(const struct py_node *t, const struct py_node *value, const struct py_node *s,
			const struct py_node *name, struct defs *d)
{
	if (is_name(t, name)) {
		def_add(d, value, s, false);
		return true;
	}
	if (!t || (t->kind != PY_TUPLE && t->kind != PY_LIST))
		return false;
	bool hit = false;
	for (size_t i = 0; i < t->nkids; i++) {
		const struct py_node *v = value && (value->kind == PY_TUPLE || value->kind == PY_LIST) &&
						  value->nkids == t->nkids
					  ? value->kids[i]
					  : NULL;
		hit |= target_defs(t->kids[i], v, s, name, d);
	}
	return hit;
}

/* The bindings of name statement s leaves; true when every path through
 * s binds it (what came before s no longer reaches past it). */
static bool stmt_defs(const struct py_node *s, const struct py_node *name, struct defs *d)
{
	bool hit = false;
	switch (s->kind) {
	case PY_ASSIGN:
		for (size_t i = 0; i + 1 < s->nkids; i++)
			hit |= target_defs(s->kids[i], s->kids[s->nkids - 1], s, name, d);
		return hit;
	case PY_ANNASSIGN:
		if (s->kids[2] && is_name(s->kids[0], name)) {
			def_add(d, s->kids[2], s, false);
			return true;
		}
		return false;
	case PY_AUGASSIGN:
		if (!is_name(s->kids[0], name))
			return false;
		def_add(d, s->op == PYOP_ADD ? s->kids[1] : NULL, s, s->op == PYOP_ADD);
		return true;
	case PY_IF: {
		bool body = block_defs(s->kids[1], s->kids[1]->nkids, name, d);
		bool other = s->kids[2] && block_defs(s->kids[2], s->kids[2]->nkids, name, d);
		return body && other;
	}
	case PY_FOR:
		if (target_defs(s->kids[0], NULL, s, name, d))
			return false;
		block_defs(s->kids[2], s->kids[2]->nkids, name, d);
		if (s->kids[3])
			block_defs(s->kids[3], s->kids[3]->nkids, name, d);
		return false; /* the loop may not run */
	case PY_WHILE:
		block_defs(s->kids[1], s->kids[1]->nkids, name, d);
		if (s->kids[2])
			block_defs(s->kids[2], s->kids[2]->nkids, name, d);
		return false;
	case PY_WITH:
		for (size_t i = 1; i < s->nkids; i++)
			if (target_defs(s->kids[i]->kids[1], NULL, s, name, d))
				return true;
		return block_defs(s->kids[0], s->kids[0]->nkids, name, d);
	case PY_TRY:
		/* any part may be cut short by an exception */
		for (size_t i = 0; i < s->nkids; i++) {
			const struct py_node *b = i < 3 ? s->kids[i] : s->kids[i]->kids[1];
			if (b)
				block_defs(b, b->nkids, name, d);
		}
		return false;
	default:
		return false;
	}
}

static bool block_defs(const struct py_node *b, size_t upto, const struct py_node *name, struct defs *d)
{
	for (size_t i = upto; i-- > 0;)
		if (stmt_defs(b->kids[i], name, d))
			return true;
	return false;
}

/* The block of compound statement s that holds use, or NULL. */
static const struct py_node *inner_block(const struct py_node *s, const struct py_node *use)
{
	const struct py_node *cand[8] = {0};
	size_t n = 0;
	switch (s->kind) {
	case PY_IF:
	case PY_WHILE:
		cand[n++] = s->kids[1];
		cand[n++] = s->kids[2];
		break;
	case PY_FOR:
		cand[n++] = s->kids[2];
		cand[n++] = s->kids[3];
		break;
	case PY_WITH:
		cand[n++] = s->kids[0];
		break;
	case PY_TRY:
		for (size_t i = 0; i < s->nkids; i++) {
			const struct py_node *b = i < 3 ? s->kids[i] : s->kids[i]->kids[1];
			if (holds(b, use))
				return b;
		}
		return NULL;
	case PY_DEF:
		cand[n++] = s->kids[3];
		break;
	case PY_CLASS:
		cand[n++] = s->kids[2];
		break;
	default:
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		if (holds(cand[i], use))
			return cand[i];
	return NULL;
}

/* The bindings of name that reach use inside block b: those of the
 * statements before it in its own block, then in the blocks around (an
 * arm of an if is not reached from the arms beside it). */
static bool reach(const struct py_node *b, const struct py_node *use, const struct py_node *name,
		  struct defs *d)
{
	size_t i = 0;
	while (i < b->nkids && !holds(b->kids[i], use))
		i++;
	if (i == b->nkids)
		return false;
	const struct py_node *inner = b->kids[i] == use ? NULL : inner_block(b->kids[i], use);
	if (inner && reach(inner, use, name, d))
		return true;
	return block_defs(b, i, name, d);
}

/* ---- the tuples an expression may be ---- */

static int resolve(struct rctx *r, const struct py_node *e, struct cands *out, int depth);

/* The tuples the bindings of name that reach use give it. */
static int resolve_name(struct rctx *r, const struct py_node *name, const struct py_node *use,
			struct cands *out, int depth)
{
	struct defs d = {0};
	reach(r->host->def->kids[3], use, name, &d);
	char *nm = py_str(name);
	int rc = 0;
	if (!d.n) {
		refuse(r, name, "ct.launch arguments `%s` bound to no tuple in `%s` before the launch", nm,
		       r->host->name);
		rc = -1;
	}
	for (size_t i = 0; i < d.n && rc == 0; i++) {
		const struct def *df = &d.v[i];
		if (!df->value) {
			refuse(r, df->stmt,
			       "ct.launch arguments `%s` bound here to something other than a tuple, a "
			       "local name bound to one or a `+` of these",
			       nm);
			rc = -1;
			break;
		}
		struct cands got = {0};
		if (df->aug) {
			struct cands before = {0}, added = {0};
			rc = resolve_name(r, name, df->stmt, &before, depth + 1);
			if (rc == 0)
				rc = resolve(r, df->value, &added, depth + 1);
			if (rc == 0)
				rc = product(r, df->stmt, &before, &added, &got);
			cands_free(&before);
			cands_free(&added);
		} else {
			rc = resolve(r, df->value, &got, depth + 1);
		}
		for (size_t j = 0; j < got.n && rc == 0; j++)
			cands_add(out, got.v[j].v, got.v[j].n, df->stmt);
		cands_free(&got);
		if (out->n > MAX_CANDS) {
			refuse(r, name, "launch arguments built in more than %d ways", MAX_CANDS);
			rc = -1;
		}
	}
	free(nm);
	free(d.v);
	return rc;
}

/* The def of a function the host calls by name: one nested in the host
 * (`def args_fn(cfg): return (...)`), else one of the module. */
static const struct py_node *called_def(struct rctx *r, const struct py_node *callee)
{
	const struct py_node *stack[256];
	size_t sp = 0;
	stack[sp++] = r->host->def->kids[3];
	while (sp) {
		const struct py_node *n = stack[--sp];
		if (!n)
			continue;
		if (n->kind == PY_DEF && n->n == callee->n && !memcmp(n->s, callee->s, n->n))
			return n;
		if (n->kind == PY_DEF || n->kind == PY_CLASS || n->kind == PY_LAMBDA)
			continue;
		for (size_t c = 0; c < n->nkids && sp < 256; c++)
			stack[sp++] = n->kids[c];
	}
	char *nm = py_str(callee);
	const struct pm_func *f = pymod_func(&r->op->m, nm);
	free(nm);
	return f && f->role != PM_KERNEL ? f->def : NULL;
}

/* The tuples a function's returns give (`return (x, y, cfg.BLOCK_N)`);
 * its own locals are only read as the arguments' text. */
static int resolve_returns(struct rctx *r, const struct py_node *n, struct cands *out, int depth,
			   int *found)
{
	if (!n || n->kind == PY_DEF || n->kind == PY_CLASS || n->kind == PY_LAMBDA)
		return 0;
	if (n->kind == PY_RETURN && n->kids[0]) {
		++*found;
		return resolve(r, n->kids[0], out, depth + 1);
	}
	for (size_t k = 0; k < n->nkids; k++)
		if (resolve_returns(r, n->kids[k], out, depth, found) < 0)
			return -1;
	return 0;
}

static int resolve(struct rctx *r, const struct py_node *e, struct cands *out, int depth)
{
	if (depth > 32) {
		refuse(r, e, "launch arguments bound through more than 32 names");
		return -1;
	}
	if (e->kind == PY_TUPLE || e->kind == PY_LIST) {
		struct cands acc = {0};
		cands_add(&acc, NULL, 0, NULL);
		int rc = 0;
		for (size_t i = 0; i < e->nkids && rc == 0; i++) {
			struct cands part = {0}, next = {0};
			if (e->kids[i]->kind == PY_STARRED)
				rc = resolve(r, e->kids[i]->kids[0], &part, depth + 1);
			else
				cands_add(&part, (const struct py_node **)&e->kids[i], 1, NULL);
			if (rc == 0)
				rc = product(r, e, &acc, &part, &next);
			cands_free(&part);
			cands_free(&acc);
			acc = next;
		}
		if (rc == 0)
			for (size_t j = 0; j < acc.n; j++)
				cands_add(out, acc.v[j].v, acc.v[j].n, acc.v[j].from);
		cands_free(&acc);
		return rc;
	}
	if (e->kind == PY_BINOP && e->op == PYOP_ADD) {
		struct cands a = {0}, b = {0};
		int rc = resolve(r, e->kids[0], &a, depth + 1);
		if (rc == 0)
			rc = resolve(r, e->kids[1], &b, depth + 1);
		if (rc == 0)
			rc = product(r, e, &a, &b, out);
		cands_free(&a);
		cands_free(&b);
		return rc;
	}
	if (e->kind == PY_NAME)
		return resolve_name(r, e, e, out, depth);
	/* a function that builds them (the tuner's `args_fn(cfg)`) */
	const struct py_node *def =
		e->kind == PY_CALL && e->kids[0]->kind == PY_NAME ? called_def(r, e->kids[0]) : NULL;
	if (def) {
		int found = 0;
		int rc = resolve_returns(r, def->kids[3], out, depth, &found);
		if (rc == 0 && !found) {
			char *fn = py_str(e->kids[0]);
			refuse(r, e, "ct.launch arguments from `%s`, which returns nothing", fn);
			free(fn);
			rc = -1;
		}
		return rc;
	}
	char *t = py_node_text(&r->op->m.py, e);
	refuse(r, e,
	       "ct.launch arguments `%s` that are not a tuple, a local name bound to one, a `+` of "
	       "these or the return of a function",
	       t);
	free(t);
	return -1;
}

/* ---- which tuple a kernel gets ---- */

/* The parameter name an argument spells: `T`, `cfg.T`; NULL for others. */
static const struct py_node *arg_name(const struct py_node *a)
{
	return a->kind == PY_NAME || a->kind == PY_ATTR ? a : NULL;
}

static bool names_param(const struct py_node *a, const char *param)
{
	if (!a || strlen(param) != a->n)
		return false;
	for (size_t i = 0; i < a->n; i++) {
		char x = a->s[i], y = param[i];
		x = (char)(x >= 'A' && x <= 'Z' ? x - 'A' + 'a' : x);
		y = (char)(y >= 'A' && y <= 'Z' ? y - 'A' + 'a' : y);
		if (x != y)
			return false;
	}
	return true;
}

/* How well tuple c fits the kernel's source parameters p[0..np): -1 not
 * at all, else how many arguments name their own parameter. */
static int fit(const struct cand *c, const struct tparam *const *p, size_t np)
{
	if (c->n != np)
		return -1;
	int agree = 0;
	for (size_t i = 0; i < np; i++) {
		const struct py_node *a = arg_name(c->v[i]);
		if (!a)
			continue;
		if (names_param(a, p[i]->name)) {
			agree++;
			continue;
		}
		for (size_t j = 0; j < np; j++)
			if (j != i && names_param(a, p[j]->name))
				return -1;
	}
	return agree;
}

static bool same_text(const struct port_op *op, const struct cand *a, const struct cand *b)
{
	if (a->n != b->n)
		return false;
	bool same = true;
	for (size_t i = 0; i < a->n && same; i++) {
		char *x = py_node_text(&op->m.py, a->v[i]), *y = py_node_text(&op->m.py, b->v[i]);
		same = strcmp(x, y) == 0;
		free(x);
		free(y);
	}
	return same;
}

int port_launch_args(const struct port_op *op, const struct tkernel *k, struct port_launch *l,
		     struct tp_err *err)
{
	struct rctx r = {.op = op, .host = l->host, .err = err};
	struct cands all = {0};
	l->nargs = 0;
	if (resolve(&r, l->args_expr, &all, 0) < 0) {
		cands_free(&all);
		return -1;
	}
	const struct tparam *p[PORT_LAUNCH_MAX_ARGS];
	size_t np = 0;
	for (int si = 0; (size_t)si < k->nparams && np < PORT_LAUNCH_MAX_ARGS; si++)
		for (size_t i = 0; i < k->nparams; i++)
			if (k->params[i].source_index == si)
				p[np++] = &k->params[i];
	/* every tuple is the kernel's own where it alone is launched here:
	 * the best fit is the one the contract shows, and nothing is refused
	 * (the Python passes each of them, and so does the wrapper) */
	size_t shared = 0;
	for (size_t i = 0; i < op->nk; i++)
		shared += lw_launch_call(&op->m, op->k[i]->name, NULL) == l->call;
	size_t best = 0;
	if (all.n > 1) {
		int score = -1;
		size_t ties = 0;
		for (size_t i = 0; i < all.n; i++) {
			int s = fit(&all.v[i], p, np);
			if (s > score) {
				score = s;
				best = i;
				ties = 0;
			} else if (s == score && s >= 0 && !same_text(op, &all.v[best], &all.v[i])) {
				ties++;
			}
		}
		const struct py_node *at = l->args_expr;
		char *t = py_node_text(&op->m.py, at);
		if (shared <= 1) {
			/* the best fit, or the first where none fits */
		} else if (score < 0) {
			refuse(&r, at,
			       "none of the %zu tuples the launch arguments `%s` may be fits `%s` (%zu "
			       "parameters)",
			       all.n, t, k->name, np);
		} else if (ties) {
			/* two kernels through one launch, and this one could take
			 * either tuple */
			struct sbuf where = SBUF_INIT;
			for (size_t i = 0; i < all.n; i++) {
				const struct py_node *f = all.v[i].from;
				bool named = false;
				for (size_t j = 0; j < i && f; j++)
					named |= all.v[j].from == f && fit(&all.v[j], p, np) == score;
				if (f && !named && fit(&all.v[i], p, np) == score)
					sb_printf(&where, "%s%d:%d", where.len ? " and " : "", f->line, f->col);
			}
			refuse(&r, at,
			       "ambiguous launch arguments `%s` for `%s`: the tuples bound at %s fit its %zu "
			       "parameters equally (name the arguments as its parameters, or launch it with "
			       "a tuple of its own)",
			       t, k->name, where.len ? sb_str(&where) : "this launch", np);
			sb_free(&where);
		}
		free(t);
	}
	if (!r.failed) {
		l->nargs = all.v[best].n;
		l->args_from = all.v[best].from;
		memcpy(l->args, all.v[best].v, l->nargs * sizeof(*l->args));
	}
	cands_free(&all);
	return r.failed ? -1 : 0;
}
