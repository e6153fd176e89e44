/* Lowering `if`: a runtime condition with the values both sides assign
 * merged into variables declared before it (rule 22); a compile-time one
 * folded, or, when its sides leave different types behind, the kernel
 * split into structural variants (a Constant) or the statements after it
 * repeated in each side (an element-type test). */
#include "engine/port/lower.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
			struct lw_var *vt = lw_env_find((struct lw_env *)et, name);
			struct lw_var *vf = lw_env_find((struct lw_env *)ef, name);
			if (s == 1 && vt)
				continue; /* seen from the then side */
			if (vt && vf && vt->v == vf->v)
				continue;
			if (!lw_live_after(lw, name))
				continue;
			if (!vt || !vf) {
				/* only one side defines it: the other keeps the old value */
				struct lw_var *old = lw_env_find((struct lw_env *)base, name);
				if (!old)
					return name;
				if (!vt)
					vt = old;
				else
					vf = old;
				if (vt->v == vf->v)
					continue;
			}
			if (!lw_same_type(vt->v, vf->v) || !lw_mergeable(vt->v) || !lw_mergeable(vf->v))
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
		lw_lower_block(lw, block, false);
	} else if (!target) {
		lw_expr(lw, value); /* an expression statement (a scatter) */
	} else {
		lw->target = lw_target_name(&lw->m->py, target, lw);
		struct tval *v = lw_expr(lw, value);
		lw->target = NULL;
		lw_assign_target(lw, target, v, value);
	}
	*env = lw->env;
	lw->cur = save;
}

/* The check_bounds= of a gather or scatter in the expression whose flag
 * the Constants decide but the translation cannot (`TILE != N`). */
static const struct py_node *symbolic_bounds(struct lw *lw, const struct py_node *n,
					     struct tval **cond, int depth)
{
	if (!n || depth > 64 || n->kind == PY_LAMBDA)
		return NULL;
	if (n->kind == PY_CALL) {
		const char *api = lw_canon(lw, n->kids[0]);
		const struct py_node *kw = api && (!strcmp(api, "ct.gather") || !strcmp(api, "ct.scatter"))
						   ? py_call_kw(n, "check_bounds")
						   : NULL;
		if (kw) {
			struct tval *v = lw_expr(lw, kw);
			if (v->kind == TV_CBOOL && !v->known && !v->pred_dtype) {
				*cond = v;
				return kw;
			}
		}
	}
	for (size_t k = 0; k < n->nkids; k++) {
		const struct py_node *r = symbolic_bounds(lw, n->kids[k], cond, depth + 1);
		if (r)
			return r;
	}
	return NULL;
}

/* A statement whose gather or scatter checks bounds where a flag of the
 * Constants says (`check_bounds=TILE != N`): as cuTile Python specialises
 * it, the check is there only where the flag holds; cutile folds an `if` on
 * const generics, so `if FLAG { checked } else { unchecked }` lowers to
 * exactly one of them. Returns false where there is no such flag. */
bool lw_bounds_split(struct lw *lw, const struct py_node *s, const struct py_node *value,
		     const struct py_node *target)
{
	struct tval *cond = NULL;
	if (lw->bounds_flag)
		return false; /* already inside one */
	const struct py_node *kw = symbolic_bounds(lw, value, &cond, 0);
	if (!kw)
		return false;
	lw->bounds_flag = kw;
	lw_lower_if(lw, s, cond, NULL, NULL, value, value, target);
	return true;
}

void lw_lower_if(struct lw *lw, const struct py_node *s, struct tval *cond,
		 const struct py_node *then_b, const struct py_node *else_b,
		 const struct py_node *value_t, const struct py_node *value_f,
		 const struct py_node *target)
{
	struct lw_env base = lw_env_copy(lw, &lw->env);
	struct lw_env et = lw_env_copy(lw, &base), ef = lw_env_copy(lw, &base);
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
	/* lw_bounds_split: the same statement on both sides, the flag as each
	 * side says */
	bool bounds = lw->bounds_flag && value_t && value_t == value_f;
	lw->bounds_flag_value = true;
	lower_side(lw, op->body, &et, then_b, value_t, target);
	memcpy(rt, rank, pc * sizeof(int));
	memcpy(rank, r0, pc * sizeof(int));
	lw->bounds_flag_value = false;
	if (else_b || value_f)
		lower_side(lw, op->orelse, &ef, else_b, value_f, target);
	if (bounds)
		lw->bounds_flag = NULL;
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
		lw_lower_stmt(lw, next);
		memcpy(rt, rank, pc * sizeof(int));
		et = lw->env;
		lw->cur = op->orelse;
		lw->env = ef;
		memcpy(rank, rf, pc * sizeof(int));
		lw_lower_stmt(lw, next);
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
	struct lw_env merged = lw_env_copy(lw, &base);
	const struct lw_env *sides[2] = {&et, &ef};
	for (int sd = 0; sd < 2; sd++)
		for (size_t i = 0; i < sides[sd]->n; i++) {
			struct lw_var *vt = lw_env_find(&et, sides[sd]->v[i].name);
			struct lw_var *vf = lw_env_find(&ef, sides[sd]->v[i].name);
			if (vt && vf && vt->v == vf->v)
				lw_env_set(lw, &merged, vt->name, vt->v, vt->carried);
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
			d = lw_scalar_var(lw, t, var);
		}
		op->decls[op->ndecls++] = d;
		lw_write_into(lw, op->body, d, t, s);
		lw_write_into(lw, op->orelse, d, f, s);
		lw_env_set(lw, &merged, m[i].name, d, 0);
	}
	lw->env = merged;
	tblock_add(lw->a, lw->cur, op);
}

/* A 0-d bool tile where a scalar condition is needed (`if norm < 1.0:`
 * after a full reduction): the crate's own conversion. */
static struct tval *tile_to_bool(struct lw *lw, struct tval *t, const struct py_node *at)
{
	struct top *op = lw_op(lw, TOP_SCALAR, at);
	struct tvar *var = lw_var_new(lw, ta_printf(lw->a, "%s_s", tv_rs(t)));
	struct tval *r = tv_new(lw->a, TV_BOOL);
	r->rs = var->name;
	r->ffi = r->rs;
	r->py = r->rs;
	r->dt = DT_BOOL;
	r->var = var;
	r->def = op;
	op->res = r;
	op->a[0] = t;
	op->na = 1;
	op->text = ta_printf(lw->a, "tile_to_scalar(%s)", tv_rs(t));
	return r;
}

void lw_lower_if_stmt(struct lw *lw, const struct py_node *s)
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
	case TV_TILE:
		if (c->shape.rank == 0 && !c->ptr_tile && c->dt == DT_BOOL) {
			c = tile_to_bool(lw, c, s->kids[0]);
			break;
		}
		/* fall through */
	default:
		lw_unsupported(lw, s->kids[0], "a branch on a %s", lw_kind(c));
	}
	if (c->kind == TV_CBOOL && c->known) {
		const struct py_node *taken = c->ival ? s->kids[1] : s->kids[2];
		if (taken)
			lw_lower_block(lw, taken, false);
		return;
	}
	lw_lower_if(lw, s, c, s->kids[1], s->kids[2], NULL, NULL, NULL);
}

