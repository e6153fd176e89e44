/* An array read both through tile views and through pointers (a store
 * in one branch of a Constant test, a scatter in the other): it is a
 * pointer parameter, and its view accesses go through a tensor view the
 * entry builds from that pointer, as cutile's own entry builds one for a
 * &Tensor parameter (cutile-compiler kernel_entry_generator.rs): every
 * extent dynamic, every stride dynamic but the last, which is static 1.
 * That last stride is what cuTile Python's reference specialises a
 * contiguous array to, so the lowered layout stays comparable; the
 * translation takes such an array as contiguous in its last dimension
 * (docs/mech.md, Assumptions).
 *
 * Memory order: the view takes a fresh unordered token, as the entry's
 * views do, and pointer accesses take none, so nothing orders a view
 * access after a pointer access of the same array (cuTile Python chains
 * them through one token). Reads need no order,
 * and neither do accesses in the two arms of one branch (flash decode's
 * store or scatter as a Constant decides); an entry that writes the array
 * one way and touches it the other where both run is refused
 * (lw_check_view_order) rather than left to race with itself. */
#include "engine/port/lower.h"

#include <string.h>

enum { TACC_VIEW_READ = 1, TACC_VIEW_WRITE = 2, TACC_PTR_READ = 4, TACC_PTR_WRITE = 8 };

int lw_pointer_param(struct tval *p, enum tdt dt)
{
	for (int hop = 0; p && p->kind == TV_TILE && p->ptr_tile && p->def && hop < 16; hop++) {
		if (dt != DT_NONE)
			p->dt = dt;
		if (p->def->kind == TOP_PTR_BASE)
			return p->def->param;
		p = p->def->na > 0 ? p->def->a[0] : NULL;
	}
	return -1;
}

struct tparam *lw_array(struct lw *lw, struct tval *v, const struct py_node *at, bool ptr, int rank)
{
	if (!v || v->kind != TV_ARRAY)
		lw_unsupported(lw, at, "this operand is not a kernel array parameter");
	struct tparam *p = &lw->k->params[v->param];
	/* a pointer array read through views too is known before lowering
	 * (mark_arrays) and gets a tensor view (below); one the marking missed
	 * (Triton's) was already written as a &Tensor */
	if (ptr && p->view && !p->ptr)
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

static struct top *find_view(const struct tblock *b, int param)
{
	for (size_t i = 0; i < b->n && b->ops[i]->kind == TOP_TENSOR_VIEW; i++)
		if (b->ops[i]->param == param)
			return b->ops[i];
	return NULL;
}

const char *lw_tensor_view(struct lw *lw, int param, int rank, const struct py_node *at)
{
	const struct tparam *p = &lw->k->params[param];
	if (!p->ptr)
		return NULL;
	struct tblock *body = &lw->e->body;
	struct top *v = find_view(body, param);
	if (v) {
		if (v->shape.rank != rank)
			lw_unsupported(lw, at, "array `%s` is accessed with rank %d and rank %d",
				       p->name, v->shape.rank, rank);
		return v->v1;
	}
	if (rank < 1 || rank > TIR_MAX_RANK)
		lw_unsupported(lw, at, "a tile view of rank %d on the pointer array `%s`", rank,
			       p->name);
	v = top_new(lw->a, TOP_TENSOR_VIEW, at->line, at->col);
	v->param = param;
	v->shape.rank = rank;
	v->nidx = (size_t)(2 * rank - 1);
	v->idx = ta_alloc(lw->a, v->nidx * sizeof(*v->idx));
	for (int axis = 0; axis < rank; axis++)
		v->idx[axis] = lw_array_dim(lw, param, axis, false, at);
	for (int axis = 0; axis + 1 < rank; axis++)
		v->idx[rank + axis] = lw_array_dim(lw, param, axis, true, at);
	v->v1 = lw_fresh(lw, ta_printf(lw->a, "%s_view", p->rs));
	v->v2 = lw_fresh(lw, ta_printf(lw->a, "%s_base", p->rs));
	v->lo = lw_fresh(lw, ta_printf(lw->a, "%s_dims", p->rs));
	v->hi = lw_fresh(lw, ta_printf(lw->a, "%s_strides", p->rs));
	/* first in the entry, after the views made before it: it reads
	 * parameters alone and every access below it may use it */
	size_t at_i = 0;
	while (at_i < body->n && body->ops[at_i]->kind == TOP_TENSOR_VIEW)
		at_i++;
	tblock_add(lw->a, body, v);
	memmove(&body->ops[at_i + 1], &body->ops[at_i], (body->n - 1 - at_i) * sizeof(*body->ops));
	body->ops[at_i] = v;
	return v->v1;
}

/* An access of a pointer array, with the branches (IF op, arm) above it. */
#define MAX_NEST 32
struct access {
	const struct top *op;
	int param, what;
	int depth;
	const struct top *ifs[MAX_NEST];
	bool arm[MAX_NEST];
};

struct accesses {
	struct access *v;
	size_t n, cap;
};

static void collect(struct lw *lw, const struct tblock *b, struct access *path,
		    struct accesses *out)
{
	for (size_t i = 0; b && i < b->n; i++) {
		const struct top *op = b->ops[i];
		int param = -1, what = 0;
		switch (op->kind) {
		case TOP_LOAD: param = op->param; what = TACC_VIEW_READ; break;
		case TOP_STORE: param = op->param; what = TACC_VIEW_WRITE; break;
		case TOP_GATHER: param = lw_pointer_param(op->a[0], DT_NONE); what = TACC_PTR_READ; break;
		case TOP_SCATTER: param = lw_pointer_param(op->a[0], DT_NONE); what = TACC_PTR_WRITE; break;
		case TOP_FOR:
			collect(lw, op->body, path, out);
			break;
		case TOP_IF:
			if (path->depth >= MAX_NEST)
				lw_unsupported(lw, NULL, "branches nested more than %d deep", MAX_NEST);
			path->ifs[path->depth] = op;
			path->depth++;
			for (int arm = 0; arm < 2; arm++) {
				path->arm[path->depth - 1] = arm == 0;
				collect(lw, arm == 0 ? op->body : op->orelse, path, out);
			}
			path->depth--;
			break;
		default:
			break;
		}
		if (param < 0 || !lw->k->params[param].ptr || !lw->k->params[param].view)
			continue;
		out->v = lw_grow_arena(lw->a, out->v, &out->cap, out->n + 1, sizeof(*out->v));
		struct access *a = &out->v[out->n++];
		*a = *path;
		a->op = op;
		a->param = param;
		a->what = what;
	}
}

/* Can both run in one tile block? Not when they sit in the two arms of
 * one branch. */
static bool exclusive(const struct access *a, const struct access *b)
{
	for (int d = 0; d < a->depth && d < b->depth; d++) {
		if (a->ifs[d] != b->ifs[d])
			return false;
		if (a->arm[d] != b->arm[d])
			return true;
	}
	return false;
}

static bool is_view(int what)
{
	return what & (TACC_VIEW_READ | TACC_VIEW_WRITE);
}

void lw_check_view_order(struct lw *lw)
{
	struct access path = {0};
	struct accesses all = {0};
	collect(lw, &lw->e->body, &path, &all);
	for (size_t j = 0; j < all.n; j++)
		for (size_t i = 0; i < j; i++) {
			const struct access *a = &all.v[i], *b = &all.v[j];
			bool write = (a->what | b->what) & (TACC_VIEW_WRITE | TACC_PTR_WRITE);
			if (a->param != b->param || is_view(a->what) == is_view(b->what) || !write ||
			    exclusive(a, b))
				continue;
			struct py_node at = {.line = b->op->line, .col = b->op->col};
			bool view_w = (a->what | b->what) & TACC_VIEW_WRITE;
			lw_unsupported(lw, &at,
				       "array `%s` written through %s and accessed through %s where "
				       "both run (cutile orders a tile view and pointers by no common "
				       "token)",
				       lw->k->params[a->param].name, view_w ? "a tile view" : "pointers",
				       view_w ? "pointers" : "a tile view");
		}
}
