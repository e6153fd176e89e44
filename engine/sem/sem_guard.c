/* Memory accesses compared for what they touch, not only how they are
 * spelled: element offsets (a Rust that takes an array's last stride as 1
 * computes the offsets of a contiguous array: a NOTE), masks as sets of
 * conditions (a bound checked against another array's extent of the same
 * index is a NOTE, against the wrong axis of the same array CRITICAL; an
 * index left unguarded is CRITICAL unless it is a block id the grid
 * bounds), and paddings, which matter only where a padded lane can reach
 * memory or another lane (a reduction, a matrix product, a permute). */
#include "engine/sem/sem_cmp.h"

#include <stdlib.h>
#include <string.h>

/* ---- users ---- */

static void each_use(const struct sgraph *g, void (*fn)(void *, sid used, uint32_t user), void *ud)
{
	for (sid i = 1; i < g->nn; i++) {
		const struct snode *n = &g->n[i];
		for (int k = 0; k < n->nargs; k++)
			if (n->args[k])
				fn(ud, n->args[k], i);
	}
	for (size_t e = 0; e < g->neff; e++) {
		const struct seffect *f = &g->eff[e];
		uint32_t u = (uint32_t)(g->nn + e);
		fn(ud, f->value, u);
		if (f->mask)
			fn(ud, f->mask, u);
		if (f->offset)
			fn(ud, f->offset, u);
		if (f->cond)
			fn(ud, f->cond, u);
		for (size_t k = 0; k < f->nidx; k++)
			fn(ud, f->idx[k], u);
	}
}

struct ucount {
	struct susers *u;
	uint32_t *fill;
};

static void count_use(void *ud, sid used, uint32_t user)
{
	struct ucount *c = ud;
	(void)user;
	c->u->start[used + 1]++;
}

static void fill_use(void *ud, sid used, uint32_t user)
{
	struct ucount *c = ud;
	c->u->list[c->u->start[used] + c->fill[used]++] = user;
}

void susers_build(const struct sgraph *g, struct susers *u)
{
	u->n = g->nn;
	u->start = xcalloc(g->nn + 2, sizeof(uint32_t));
	u->flags = xcalloc(g->nn + 1, 1);
	struct ucount c = {u, NULL};
	each_use(g, count_use, &c);
	for (size_t i = 1; i <= g->nn; i++)
		u->start[i] += u->start[i - 1];
	u->list = xmalloc((u->start[g->nn] + 1) * sizeof(uint32_t));
	c.fill = xcalloc(g->nn + 1, sizeof(uint32_t));
	each_use(g, fill_use, &c);
	free(c.fill);
	for (size_t l = 0; l < g->nloops; l++)
		for (size_t k = 0; k < g->loops[l].nslots; k++) {
			if (g->loops[l].init && g->loops[l].init[k])
				u->flags[g->loops[l].init[k]] |= SU_LOOP;
			if (g->loops[l].update && g->loops[l].update[k])
				u->flags[g->loops[l].update[k]] |= SU_LOOP;
		}
}

void susers_free(struct susers *u)
{
	free(u->start);
	free(u->list);
	free(u->flags);
	memset(u, 0, sizeof(*u));
}

/* ---- conditions as sets ---- */

static int conjuncts(const struct sgraph *g, sid m, sid *out, int max)
{
	while (m && g->n[m].op == S_BROADCAST)
		m = g->n[m].args[0];
	if (!m || (g->n[m].op == S_BOOL && g->n[m].ival))
		return 0;
	if (g->n[m].op != S_AND) {
		out[0] = m;
		return 1;
	}
	int n = 0;
	for (int i = 0; i < g->n[m].nargs && n < max; i++)
		out[n++] = g->n[m].args[i];
	return n;
}

/* An atom `I < X`: I the terms with positive coefficients (the lane
 * terms among them), X the others, negated. */
struct bound {
	bool ok;
	sid index, lanes, extent; /* polynomials in the atom's graph */
	sid shape_arr;             /* X is arr.shape[axis] alone */
	int axis;
};

static bool is_lane(const struct sgraph *g, sid a)
{
	return g->n[a].rank > 0;
}

static struct bound bound_of(struct sgraph *g, sid atom)
{
	struct bound b;
	memset(&b, 0, sizeof(b));
	const struct snode *n = &g->n[atom];
	if (n->op != S_ICMP || n->attr != IC_LT0)
		return b;
	const struct snode *p = &g->n[n->args[0]];
	if (p->op != S_POLY)
		return b;
	sid idx = sg_int(g, 0), lanes = sg_int(g, 0), ext = sg_int(g, 0);
	bool any_neg = false, lane_neg = false;
	p = &g->n[n->args[0]];
	int nargs = p->nargs;
	sid monos[64];
	for (int i = 0; i < nargs && i < 64; i++)
		monos[i] = g->n[n->args[0]].args[i];
	for (int i = 0; i < nargs && i < 64; i++) {
		const struct snode *m = &g->n[monos[i]];
		bool lane = false;
		for (int k = 0; k < m->nargs; k++)
			lane |= is_lane(g, m->args[k]);
		int64_t c = m->ival;
		sid term = sg_int(g, c < 0 ? -c : c);
		int na = m->nargs;
		sid atoms[16];
		for (int k = 0; k < na && k < 16; k++)
			atoms[k] = g->n[monos[i]].args[k];
		for (int k = 0; k < na && k < 16; k++)
			term = ic_mul(g, term, atoms[k]);
		if (c > 0) {
			idx = ic_add(g, idx, term);
			if (lane)
				lanes = ic_add(g, lanes, term);
		} else {
			ext = ic_add(g, ext, term);
			any_neg = true;
			lane_neg |= lane;
		}
	}
	if (!any_neg || lane_neg)
		return b;
	b.ok = true;
	b.index = idx;
	b.lanes = lanes;
	b.extent = ext;
	const struct snode *x = &g->n[ext];
	if (x->op == S_SHAPE && g->n[x->args[0]].op == S_PARAM) {
		b.shape_arr = x->args[0];
		b.axis = (int)x->ival;
	}
	return b;
}

static bool grid_only(const struct sgraph *g, sid lanes)
{
	int64_t v;
	return sg_is_int_lit(g, lanes, &v) && v == 0;
}

bool sg_cmp_mask(struct scmp *c, sid pm, sid rm, int pl, int rl, const char *what)
{
	if (scmp_eq(c, pm ? pm : sg_bool(c->p, true), rm ? rm : sg_bool(c->r, true)))
		return true;
	scmp_clear_diff(c);
	sid pa[SEM_MAX_ARGS], ra[SEM_MAX_ARGS];
	int np = conjuncts(c->p, pm, pa, SEM_MAX_ARGS), nr = conjuncts(c->r, rm, ra, SEM_MAX_ARGS);
	bool pdone[SEM_MAX_ARGS] = {0}, rdone[SEM_MAX_ARGS] = {0};
	/* the same conditions */
	for (int i = 0; i < np; i++)
		for (int j = 0; j < nr; j++)
			if (!rdone[j] && scmp_eq(c, pa[i], ra[j])) {
				pdone[i] = rdone[j] = true;
				break;
			}
	scmp_clear_diff(c);
	/* bounds of the same index */
	for (int i = 0; i < np; i++) {
		if (pdone[i])
			continue;
		struct bound bp = bound_of(c->p, pa[i]);
		if (!bp.ok)
			continue;
		for (int j = 0; j < nr; j++) {
			if (rdone[j])
				continue;
			struct bound br = bound_of(c->r, ra[j]);
			if (!br.ok)
				continue;
			bool same = grid_only(c->p, bp.lanes) ? scmp_eq(c, bp.index, br.index)
							      : scmp_eq(c, bp.lanes, br.lanes);
			scmp_clear_diff(c);
			if (!same)
				continue;
			pdone[i] = rdone[j] = true;
			if (bp.shape_arr && br.shape_arr && bp.axis != br.axis && scmp_eq(c, bp.shape_arr, br.shape_arr)) {
				scmp_clear_diff(c);
				scmp_diff(c, pa[i], ra[j], "bounds check");
				return false;
			}
			scmp_clear_diff(c);
			char *a = scmp_render(c, 0, pa[i]), *b = scmp_render(c, 1, ra[j]);
			sf_add(c->out, SEM_NOTE, "sem.bounds", pl, rl, NULL, NULL,
			       "%s: the source checks %s, the Rust %s (the same index against another extent: equal "
			       "where the launch makes the extents agree)",
			       what, a, b);
			free(a);
			free(b);
			break;
		}
	}
	/* what the Rust does not check */
	int rest_r = -1;
	for (int j = 0; j < nr; j++)
		if (!rdone[j] && !bound_of(c->r, ra[j]).ok) {
			rest_r = j;
			break;
		}
	for (int i = 0; i < np; i++) {
		if (pdone[i])
			continue;
		struct bound bp = bound_of(c->p, pa[i]);
		if (bp.ok && grid_only(c->p, bp.lanes)) {
			char *a = scmp_render(c, 0, pa[i]);
			sf_add(c->out, SEM_NOTE, "sem.bounds", pl, rl, NULL, NULL,
			       "%s: the Rust does not check %s, an index of the launch grid (the grid bounds it)", what,
			       a);
			free(a);
			pdone[i] = true;
			continue;
		}
		scmp_diff(c, pa[i], rest_r >= 0 ? ra[rest_r] : (rm ? rm : sg_bool(c->r, true)),
			  rest_r >= 0 ? "mask condition" : "unguarded");
		return false;
	}
	/* what the Rust checks besides */
	for (int j = 0; j < nr; j++) {
		if (rdone[j])
			continue;
		struct bound br = bound_of(c->r, ra[j]);
		if (br.ok) {
			char *b = scmp_render(c, 1, ra[j]);
			sf_add(c->out, SEM_NOTE, "sem.bounds", pl, rl, NULL, NULL,
			       "%s: the Rust also checks %s (a bound the source does not check)", what, b);
			free(b);
			continue;
		}
		scmp_diff(c, pm ? pm : sg_bool(c->p, true), ra[j], "mask condition");
		return false;
	}
	return true;
}

/* ---- offsets ---- */

/* x with arr.stride[axis] taken as 1 (polynomials only). */
static sid unit_stride(struct sgraph *g, sid x, sid arr, int axis)
{
	const struct snode *n = &g->n[x];
	if (n->op == S_STRIDE && n->args[0] == arr && n->ival == axis)
		return sg_int(g, 1);
	if (n->op == S_BROADCAST) {
		sid in = unit_stride(g, n->args[0], arr, axis);
		n = &g->n[x];
		return in == n->args[0] ? x : sc_broadcast(g, in, n->dims, n->rank);
	}
	if (n->op != S_POLY)
		return x;
	int na = n->nargs;
	sid monos[64];
	for (int i = 0; i < na && i < 64; i++)
		monos[i] = n->args[i];
	sid sum = sg_int(g, 0);
	bool changed = false;
	for (int i = 0; i < na && i < 64; i++) {
		const struct snode *m = &g->n[monos[i]];
		sid term = sg_int(g, m->ival);
		int ma = m->nargs;
		sid atoms[16];
		for (int k = 0; k < ma && k < 16; k++)
			atoms[k] = g->n[monos[i]].args[k];
		for (int k = 0; k < ma && k < 16; k++) {
			sid a = unit_stride(g, atoms[k], arr, axis);
			changed |= a != atoms[k];
			term = ic_mul(g, term, a);
		}
		sum = ic_add(g, sum, term);
	}
	return changed ? sum : x;
}

bool sg_cmp_offset(struct scmp *c, sid arr_p, sid po, sid ro, int rank, int pl, int rl, const char *what)
{
	if (scmp_eq(c, po, ro))
		return true;
	sid dp = c->dp, dr = c->dr;
	const char *dw = c->dwhat;
	if (rank > 0) {
		int pidx = (int)c->p->n[arr_p].ival;
		int ridx = c->b->rs_of_py[pidx];
		sid arr_r = ridx >= 0 ? sg_param(c->r, ridx) : 0;
		sid po1 = unit_stride(c->p, po, arr_p, rank - 1);
		sid ro1 = arr_r ? unit_stride(c->r, ro, arr_r, rank - 1) : ro;
		const char *name = c->p->params[pidx].name;
		if ((po1 != po || ro1 != ro)) {
			scmp_clear_diff(c);
			if (scmp_eq(c, po1, ro1)) {
				bool rust = po1 != po;
				sf_add(c->out, SEM_NOTE, "sem.stride", pl, rl, NULL, NULL,
				       "%s: %s takes %s's stride on its last axis as 1, where %s multiplies by it: "
				       "the same offsets for a contiguous last axis",
				       what, rust ? "the Rust" : "the source", name, rust ? "the source" : "the Rust");
				return true;
			}
		}
	}
	c->dp = dp;
	c->dr = dr;
	c->dwhat = dw;
	if (!c->dp && !c->dr)
		scmp_diff(c, po, ro, "offset");
	return false;
}

/* ---- paddings ---- */

static bool lanewise(int op)
{
	switch (op) {
	case S_FADD: case S_FMUL: case S_FNEG: case S_FDIV: case S_FREM: case S_FMAX: case S_FMIN:
	case S_FCMP: case S_MATH: case S_POW: case S_ATAN2: case S_SIGMOID: case S_SELECT:
	case S_CONVERT: case S_POLY: case S_MONO: case S_ICMP: case S_IBIT: case S_AND: case S_OR:
	case S_XOR: case S_NOT: case S_FLOORDIV: case S_MOD: case S_IMIN: case S_IMAX:
		return true;
	}
	return false;
}

/* the lane parts of a mask's bounds, to check another mask covers them */
static bool covers(struct sgraph *g, sid store_mask, sid load_mask)
{
	sid la[SEM_MAX_ARGS], sa[SEM_MAX_ARGS];
	int nl = conjuncts(g, load_mask, la, SEM_MAX_ARGS), ns = conjuncts(g, store_mask, sa, SEM_MAX_ARGS);
	for (int i = 0; i < nl; i++) {
		bool ok = false;
		struct bound bl = bound_of(g, la[i]);
		for (int j = 0; j < ns && !ok; j++) {
			if (sa[j] == la[i]) {
				ok = true;
				break;
			}
			struct bound bs = bound_of(g, sa[j]);
			if (bl.ok && bs.ok)
				ok = grid_only(g, bl.lanes) ? bl.index == bs.index : bl.lanes == bs.lanes;
		}
		if (!ok && !(bl.ok && grid_only(g, bl.lanes)))
			return false;
	}
	return true;
}

static bool reach_dead(struct sgraph *g, const struct susers *u, sid from, sid mask, bool view, uint8_t *seen)
{
	if (from >= u->n)
		return false; /* made after the users were listed: not in the program */
	if (seen[from])
		return true;
	seen[from] = 1;
	if (u->flags[from] & SU_LOOP)
		return false;
	for (uint32_t k = u->start[from]; k < u->start[from + 1]; k++) {
		uint32_t user = u->list[k];
		if (user >= u->n) {
			/* an effect (the node count when the users were listed) */
			const struct seffect *e = &g->eff[user - u->n];
			if (e->value != from)
				return false;
			if (view ? e->kind != SE_STORE : !covers(g, e->mask, mask))
				return false;
			continue;
		}
		const struct snode *n = &g->n[user];
		if (n->op == S_GATHER && n->args[3] == from)
			continue; /* the padding of another gather */
		if (!lanewise(n->op))
			return false;
		/* a select on the same mask puts the padded lanes away */
		if (!view && n->op == S_SELECT && n->args[0] == mask && n->args[1] == from)
			continue;
		if (!reach_dead(g, u, user, mask, view, seen))
			return false;
	}
	return true;
}

bool sg_pad_dead(const struct sgraph *g, const struct susers *u, sid gather)
{
	uint8_t *seen = xcalloc(g->nn + 1, 1);
	bool ok = reach_dead((struct sgraph *)g, u, gather, g->n[gather].args[2], false, seen);
	free(seen);
	return ok;
}

bool sg_view_pad_dead(const struct sgraph *g, const struct susers *u, sid load)
{
	uint8_t *seen = xcalloc(g->nn + 1, 1);
	bool ok = reach_dead((struct sgraph *)g, u, load, 0, true, seen);
	free(seen);
	return ok;
}

static char *pad_text(const struct sgraph *g, sid x)
{
	const struct snode *n = &g->n[x];
	if (n->op == S_LOAD)
		return xstrdup(spad_name(n->attr));
	return sg_render_str(g, n->args[3], 2);
}

bool sem_pad_eq(struct scmp *c, sid p, sid r)
{
	const struct snode *x = &c->p->n[p], *y = &c->r->n[r];
	bool view = x->op == S_LOAD;
	if (view ? x->attr == y->attr : scmp_eq(c, x->args[3], y->args[3]))
		return true;
	scmp_clear_diff(c);
	if (!view && c->p->n[x->args[2]].op == S_BOOL && c->r->n[y->args[2]].op == S_BOOL)
		return true; /* no lane is masked: no padding is read */
	char *a = pad_text(c->p, p), *b = pad_text(c->r, r);
	bool ok = false;
	if (view && x->attr == SP_UNDETERMINED) {
		sf_add(c->out, SEM_NOTE, "sem.padding", x->line, y->line, NULL, NULL,
		       "padding of the load: undetermined in the source, %s in the Rust (the Rust defines what "
		       "the source leaves open)",
		       b);
		ok = true;
	} else if (c->up && c->ur &&
		   (view ? sg_view_pad_dead(c->p, c->up, p) && sg_view_pad_dead(c->r, c->ur, r)
			 : sg_pad_dead(c->p, c->up, p) && sg_pad_dead(c->r, c->ur, r))) {
		sf_add(c->out, SEM_NOTE, "sem.padding", x->line, y->line, NULL, NULL,
		       "padding of the load: %s in the source, %s in the Rust, but no padded lane reaches memory "
		       "(only element-wise operations lead to stores that mask the same indices)",
		       a, b);
		ok = true;
	} else {
		scmp_diff(c, p, r, "padding");
	}
	free(a);
	free(b);
	return ok;
}
