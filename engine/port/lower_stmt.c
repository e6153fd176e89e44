/* Lowering statements: assignments (a name bound to a value, or written
 * into the variable a loop carries or a branch merges), tuple targets,
 * augmented assignments, `for` over ranges with loop-carried values,
 * inlined device functions. Branches are in lower_branch.c. */
#include "engine/port/lower.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
void lw_write_into(struct lw *lw, struct tblock *b, struct tval *dst, struct tval *v,
		       const struct py_node *at)
{
	struct tblock *save = lw->cur;
	lw->cur = b;
	if (dst->kind == TV_BLOCKPTR) {
		for (size_t i = 0; i < dst->nelems; i++)
			lw_write_into(lw, b, dst->elems[i], v->elems[i], at);
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

struct tval *lw_scalar_var(struct lw *lw, struct tval *v, struct tvar *var)
{
	struct tval *r = tv_new(lw->a, v->kind == TV_CINT   ? TV_INT
				       : v->kind == TV_CBOOL ? TV_BOOL
				       : v->kind == TV_CFLOAT ? TV_FLOAT
							      : v->kind);
	r->dt = v->kind == TV_CFLOAT ? DT_F32 : v->dt;
	r->weak = v->kind == TV_CFLOAT || v->weak;
	r->var = var;
	r->rs = var->name;
	return r;
}

/* A let for a scalar value under a Python name (a plain alias needs none). */
static struct tval *scalar_let(struct lw *lw, const char *name, struct tval *v,
			       const struct lw_var *skip, const struct py_node *at, bool mut)
{
	struct tvar *var = ta_alloc(lw->a, sizeof(*var));
	var->name = lw_bind_name(lw, name, skip);
	var->mut = mut;
	struct tval *r = lw_scalar_var(lw, v, var);
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
	struct lw_var *e = lw_env_find(&lw->env, name);
	if (e && e->carried) {
		if (!lw_same_type(e->v, v))
			lw_unsupported(lw, at,
				       "`%s` is carried by a loop but changes from a %s to a %s in it",
				       name, lw_describe(lw, e->v), lw_describe(lw, v));
		lw_write_into(lw, lw->cur, e->v, v, at);
		return;
	}
	if (v->kind == TV_TILE && v->var && v->var->temp) {
		v->var->temp = false;
		const char *r = lw_rust_ident(lw, name);
		if (!lw_name_held(lw, r, e)) {
			v->var->name = r;
			lw_take_name(lw, r);
		}
	} else if ((v->kind == TV_INT || v->kind == TV_FLOAT || v->kind == TV_BOOL) && !v->var &&
		   !simple_rs(v->rs)) {
		v = scalar_let(lw, name, v, e, at, false);
	} else if ((v->kind == TV_INT || v->kind == TV_FLOAT || v->kind == TV_BOOL) && v->var &&
		   v->var->temp) {
		v->var->temp = false;
		const char *r = lw_rust_ident(lw, name);
		if (!lw_name_held(lw, r, e)) {
			v->var->name = r;
			v->rs = r;
			lw_take_name(lw, r);
		}
	}
	lw_env_set(lw, &lw->env, name, v, 0);
}

/* Give a carried value its own mutable variable before a loop. */
static void carry(struct lw *lw, struct lw_var *e, const struct py_node *at)
{
	struct tval *v = e->v;
	struct tval *cv;
	switch (v->kind) {
	case TV_TILE:
		if (v->var && !v->var->temp && !lw_name_held(lw, v->var->name, e) && v->param < 0) {
			v->var->mut = true;
			cv = v;
		} else {
			struct tvar *var = ta_alloc(lw->a, sizeof(*var));
			var->name = lw_bind_name(lw, e->name, e);
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
		if (v->var && !v->var->temp && !lw_name_held(lw, v->var->name, e) && v->param < 0) {
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


void lw_push_frame(struct lw *lw, const struct py_node *block, bool loop, bool barrier)
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

void lw_lower_frame(struct lw *lw)
{
	struct lw_frame *f = &lw->frames[lw->nframes - 1];
	for (f->at = 0; f->at < f->n; f->at++)
		lw_lower_stmt(lw, f->stmts[f->at]);
}

void lw_lower_block(struct lw *lw, const struct py_node *block, bool loop)
{
	lw_push_frame(lw, block, loop, false);
	lw_lower_frame(lw);
	lw->nframes--;
}

void lw_assign_target(struct lw *lw, const struct py_node *t, struct tval *v,
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
			lw_assign_target(lw, t->kids[k], v->elems[k], at);
		return;
	}
	lw_unsupported(lw, t, "assignment to %s (kernels assign names only)",
		       t->kind == PY_SUBSCRIPT ? "a subscript" : t->kind == PY_ATTR ? "an attribute"
										: "this target");
}

const char *lw_target_name(const struct py_module *m, const struct py_node *t, struct lw *lw)
{
	(void)m;
	if (t->kind != PY_NAME)
		return NULL;
	return lw_name(lw, t);
}


static void lower_assign(struct lw *lw, const struct py_node *s)
{
	const struct py_node *value = s->kids[s->nkids - 1];
	const struct py_node *t0 = s->kids[0];
	/* x = a if C else b with C decided at compile time: a branch */
	if (value->kind == PY_IFEXP && s->nkids == 2 && t0->kind == PY_NAME) {
		lw->target = lw_target_name(&lw->m->py, t0, lw);
		struct tval *c = lw_expr(lw, value->kids[1]);
		if (c->kind == TV_CBOOL && !c->known) {
			lw_lower_if(lw, s, c, NULL, NULL, value->kids[0], value->kids[2], t0);
			lw->target = NULL;
			return;
		}
	}
	if (s->nkids == 2 && t0->kind == PY_NAME && lw_bounds_split(lw, s, value, t0))
		return;
	lw->target = s->nkids == 2 ? lw_target_name(&lw->m->py, t0, lw) : NULL;
	struct tval *v = lw_expr(lw, value);
	lw->target = NULL;
	for (size_t k = 0; k + 1 < s->nkids; k++)
		lw_assign_target(lw, s->kids[k], v, s);
}

static void lower_augassign(struct lw *lw, const struct py_node *s)
{
	const struct py_node *t = s->kids[0];
	if (t->kind != PY_NAME)
		lw_unsupported(lw, t, "augmented assignment to a non-name");
	lw->target = lw_target_name(&lw->m->py, t, lw);
	struct tval *old = lw_expr(lw, t);
	struct tval *v = lw->api->augassign ? lw->api->augassign(lw, old, s->op, s->kids[1]) : NULL;
	if (!v)
		v = lw_binop(lw, s->op, old, lw_expr(lw, s->kids[1]), s);
	lw->target = NULL;
	lw_assign_target(lw, t, v, s);
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
	const char *iv_name = lw_target_name(&lw->m->py, t, lw);
	/* values the loop carries: assigned in the body, known before it */
	const char **names = NULL;
	size_t nnames = 0, cap = 0;
	lw_assigned(lw, s->kids[2], &names, &nnames, &cap, 0);
	lw->loop_depth++;
	for (size_t i = 0; i < nnames; i++) {
		struct lw_var *e = lw_env_find(&lw->env, names[i]);
		if (!e || strcmp(names[i], iv_name) == 0)
			continue;
		bool live = lw_reads(s->kids[2], names[i], 0) || lw_live_after(lw, names[i]);
		if (live)
			carry(lw, e, s);
	}
	struct lw_env before = lw_env_copy(lw, &lw->env);
	struct top *op = top_new(lw->a, TOP_FOR, s->line, s->col);
	op->lo = lo_rs;
	op->hi = hi_rs;
	op->step = step_rs;
	op->body = ta_alloc(lw->a, sizeof(*op->body));
	op->inv = "for";
	struct tvar *ivv = ta_alloc(lw->a, sizeof(*ivv));
	ivv->name = lw_bind_name(lw, strcmp(iv_name, "_") == 0 ? "_i" : iv_name, NULL);
	op->text = ivv->name;
	struct tval *iv = tv_int(lw->a, ivv->name);
	iv->var = ivv;
	lw_env_set(lw, &lw->env, iv_name, iv, 0);
	struct tblock *outer = lw->cur;
	lw->cur = op->body;
	lw_push_frame(lw, s->kids[2], true, false);
	lw->frames[lw->nframes - 1].entry = &before;
	lw_lower_frame(lw);
	lw->nframes--;
	lw->cur = outer;
	tblock_add(lw->a, lw->cur, op);
	/* what the body defined does not leave it */
	for (size_t i = 0; i < lw->env.n; i++) {
		const char *n = lw->env.v[i].name;
		if (lw_env_find(&before, n) || !lw_live_after(lw, n))
			continue;
		lw_unsupported(lw, s, "`%s` is defined inside the loop and used after it", n);
	}
	struct lw_env after = before;
	for (size_t i = 0; i < after.n; i++) {
		struct lw_var *now = lw_env_find(&lw->env, after.v[i].name);
		if (now)
			after.v[i].v = now->v;
		if (after.v[i].carried == lw->loop_depth)
			after.v[i].carried = 0;
	}
	if (lw_live_after(lw, iv_name) && !lw_env_find(&before, iv_name))
		lw_unsupported(lw, t, "the loop variable `%s` is used after the loop", iv_name);
	lw_env_del(&after, iv_name);
	struct lw_var *old_iv = lw_env_find(&before, iv_name);
	if (old_iv)
		lw_env_set(lw, &after, iv_name, old_iv->v, old_iv->carried);
	lw->env = after;
	lw->loop_depth--;
}

void lw_lower_stmt(struct lw *lw, const struct py_node *s)
{
	lw->stmt = s;
	switch (s->kind) {
	case PY_EXPR_STMT:
		if (s->kids[0]->kind == PY_STR || s->kids[0]->kind == PY_CONST)
			return; /* docstrings and `...` */
		if (lw_bounds_split(lw, s, s->kids[0], NULL))
			return;
		lw_expr(lw, s->kids[0]);
		return;
	case PY_ASSIGN:
		lower_assign(lw, s);
		return;
	case PY_ANNASSIGN:
		if (!s->kids[2])
			return;
		lw->target = lw_target_name(&lw->m->py, s->kids[0], lw);
		{
			struct tval *v = lw_expr(lw, s->kids[2]);
			lw->target = NULL;
			lw_assign_target(lw, s->kids[0], v, s);
		}
		return;
	case PY_AUGASSIGN:
		lower_augassign(lw, s);
		return;
	case PY_FOR:
		lower_for(lw, s);
		return;
	case PY_IF:
		lw_lower_if_stmt(lw, s);
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
			lw_env_set(lw, &lw->env, " return", v, 0);
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
struct tval *lw_call_function(struct lw *lw, const struct pm_func *f, const struct pymod *mod,
				const struct py_node *call)
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
		lw_env_set(lw, &callee, pname, v, 0);
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
	/* a function of another module reads its names there */
	const struct pymod *caller_mod = lw->m;
	if (mod)
		lw->m = mod;
	lw_push_frame(lw, def->kids[3], false, true);
	lw_lower_frame(lw);
	lw->nframes--;
	lw->m = caller_mod;
	lw->target = target;
	lw->inline_depth--;
	struct lw_var *r = lw_env_find(&lw->env, " return");
	struct tval *result = r ? r->v : tv_new(lw->a, TV_NONE);
	lw->env = caller;
	return result;
}

