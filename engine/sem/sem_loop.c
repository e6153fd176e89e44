/* A loop read into the graph, for both readers. The variables the body
 * assigns that live before it are carried: each becomes slots (a tile or
 * scalar is one slot, a pointer tile its offset, a Triton block pointer
 * its offsets) read as S_CARRY leaves while the body is read. A slot that
 * only counts — its update is itself plus something the loop does not
 * change, like `tl.advance(bp, (0, BK))` or `off += BK` — is an induction
 * variable: the body is read a second time with it as its closed form,
 * init + step * (i - lo) / step_i, so that a source that advances a block
 * pointer and a Rust that indexes by the loop index meet. */
#include "engine/sem/sem_eval.h"

#include <stdlib.h>
#include <string.h>

#define MAX_SLOTS 64

struct layout {
	enum svk k;  /* SV_NODE, SV_PTR, SV_BLOCKPTR */
	int first;   /* its first slot */
	int n;       /* its slots */
};

static int slots_of(const struct sval *v)
{
	switch (v->k) {
	case SV_NODE:
	case SV_PTR:
		return 1;
	case SV_BLOCKPTR:
		return v->rank;
	default:
		return 0;
	}
}

static sid slot_value(const struct sval *v, int i)
{
	if (v->k == SV_BLOCKPTR)
		return i < (int)v->nel && v->el[i].k == SV_NODE ? v->el[i].x : 0;
	return v->x;
}

static struct sval with_slots(struct sgraph *g, struct sval v, const sid *vals)
{
	if (v.k == SV_BLOCKPTR) {
		struct sval *el = sa_alloc(g->arena, sizeof(*el) * (size_t)(v.rank ? v.rank : 1));
		for (int i = 0; i < v.rank; i++)
			el[i] = sv_node(vals[i]);
		v.el = el;
		v.nel = (size_t)v.rank;
		return v;
	}
	v.x = vals[0];
	return v;
}

static sid leaf(struct sgraph *g, int op, sid like, int l, int slot, const char *name)
{
	struct snode p;
	memset(&p, 0, sizeof(p));
	p.op = (uint8_t)op;
	p.dt = g->n[like].dt;
	p.rank = g->n[like].rank;
	memcpy(p.dims, g->n[like].dims, sizeof(p.dims));
	p.ival = l;
	p.attr = (int16_t)slot;
	p.h = SHINT_NONE;
	sid x = sg_node(g, &p, NULL, 0);
	if (!g->n[x].var)
		g->n[x].var = name;
	return x;
}

/* Does x depend on loop l or a loop inside it? */
static bool varies(const struct sgraph *g, sid x, int l, int depth)
{
	if (!x || depth > 200)
		return depth > 200;
	const struct snode *n = &g->n[x];
	if ((n->op == S_IV || n->op == S_CARRY || n->op == S_LOOPRES) && n->ival >= l)
		return true;
	for (int i = 0; i < n->nargs; i++)
		if (varies(g, n->args[i], l, depth + 1))
			return true;
	return false;
}

int sem_loop(struct sgraph *g, struct senv *env, const struct sloop_in *in, char **problem)
{
	struct senv before = senv_copy(env);
	size_t neff = g->neff;
	uint64_t affine = 0;
	sid diff[MAX_SLOTS];
	sid init[MAX_SLOTS];
	int l = -1;
	for (int pass = 0; pass < 2; pass++) {
		l = sg_add_loop(g, in->parent, in->line);
		g->loops[l].lo = in->lo;
		g->loops[l].hi = in->hi;
		g->loops[l].step = in->step;
		g->loops[l].iv_name = sa_strndup(g->arena, in->iv, in->iv_len);
		struct snode ivp;
		memset(&ivp, 0, sizeof(ivp));
		ivp.op = S_IV;
		ivp.dt = SDT_I32;
		ivp.ival = l;
		ivp.h = SHINT_NONE;
		sid iv = sg_node(g, &ivp, NULL, 0);
		/* (i - lo) / step: the iteration count so far */
		sid count = ic_floordiv(g, ic_sub(g, iv, in->lo), in->step);
		struct layout lay[64];
		const char **slot_name = sa_alloc(g->arena, MAX_SLOTS * sizeof(char *));
		sid *inits = sa_alloc(g->arena, MAX_SLOTS * sizeof(sid));
		int ns = 0;
		size_t nv = in->nnames < 64 ? in->nnames : 64;
		for (size_t i = 0; i < nv; i++) {
			lay[i].k = SV_VOID;
			struct svar *v = senv_find(env, in->names[i], in->lens[i]);
			if (!v || (in->lens[i] == in->iv_len && !memcmp(in->names[i], in->iv, in->iv_len)))
				continue;
			int k = slots_of(&v->v);
			if (!k) {
				if (v->v.k == SV_DTYPE || v->v.k == SV_ENUM || v->v.k == SV_FUNC || v->v.k == SV_TOKEN ||
				    v->v.k == SV_PART)
					continue; /* set to the same again in the body, or checked after */
				*problem = xasprintf("a loop carries %.*s, which is not a tile, scalar or pointer",
						     (int)in->lens[i], in->names[i]);
				senv_free(&before);
				return -1;
			}
			if (ns + k > MAX_SLOTS) {
				*problem = xstrdup("a loop carries more values than the check follows");
				senv_free(&before);
				return -1;
			}
			lay[i] = (struct layout){v->v.k, ns, k};
			sid vals[SEM_MAX_RANK + 1];
			for (int s = 0; s < k; s++) {
				sid x = slot_value(&v->v, s);
				if (!x) {
					*problem = xstrdup("a carried block pointer whose offsets the check does not follow");
					senv_free(&before);
					return -1;
				}
				int si = ns + s;
				inits[si] = x;
				init[si] = x;
				slot_name[si] = sa_strndup(g->arena, in->names[i], in->lens[i]);
				if ((affine >> si) & 1u)
					vals[s] = ic_add(g, x, ic_mul(g, diff[si], count));
				else
					vals[s] = leaf(g, S_CARRY, x, l, si, slot_name[si]);
			}
			ns += k;
			v->v = with_slots(g, v->v, vals);
		}
		g->loops[l].init = inits;
		g->loops[l].slot_name = slot_name;
		g->loops[l].nslots = (size_t)ns;
		if (in->scoped)
			senv_push(env);
		senv_set(g, env, in->iv, in->iv_len, sv_node(iv));
		in->body(in->ud, l);
		if (g->problem) {
			senv_free(&before);
			return -1;
		}
		if (in->scoped)
			senv_pop(env);
		sid *upd = sa_alloc(g->arena, (size_t)(ns + 1) * sizeof(sid));
		for (size_t i = 0; i < nv; i++) {
			if (lay[i].k == SV_VOID)
				continue;
			struct svar *v = senv_find(env, in->names[i], in->lens[i]);
			if (!v || v->v.k != lay[i].k || slots_of(&v->v) != lay[i].n) {
				*problem = xasprintf("%.*s changes kind in the loop", (int)in->lens[i], in->names[i]);
				senv_free(&before);
				return -1;
			}
			for (int s = 0; s < lay[i].n; s++)
				upd[lay[i].first + s] = slot_value(&v->v, s);
		}
		g->loops[l].update = upd;
		if (pass == 0) {
			/* the slots that only count */
			for (int s = 0; s < ns; s++) {
				const struct snode *x = &g->n[init[s]];
				if (!sdt_is_int(x->dt) || x->dt == SDT_BOOL || x->rank || !upd[s])
					continue;
				sid carry = leaf(g, S_CARRY, init[s], l, s, slot_name[s]);
				sid d = ic_sub(g, upd[s], carry);
				if (!varies(g, d, l, 0)) {
					diff[s] = d;
					affine |= 1ull << s;
				}
			}
			if (!affine)
				pass = 1; /* no second reading */
			else {
				/* read it again from where it started */
				g->loops[l].orphan = true;
				senv_free(env);
				*env = senv_copy(&before);
				g->neff = neff;
				continue;
			}
		}
		/* after the loop: what it leaves */
		for (size_t i = 0; i < nv; i++) {
			if (lay[i].k == SV_VOID)
				continue;
			struct svar *v = senv_find(env, in->names[i], in->lens[i]);
			if (!v)
				continue;
			sid vals[SEM_MAX_RANK + 1];
			for (int s = 0; s < lay[i].n; s++) {
				int si = lay[i].first + s;
				vals[s] = leaf(g, S_LOOPRES, inits[si], l, si, slot_name[si]);
			}
			v->v = with_slots(g, v->v, vals);
		}
	}
	senv_free(&before);
	return l;
}
