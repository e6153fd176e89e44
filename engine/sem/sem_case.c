/* One case of a pair compared from the stores backwards: the source's
 * writes to memory and the Rust's are paired by array and order, and each
 * pair by its loops, its condition, its index or offsets and mask, and
 * the value it writes. A difference is a CRITICAL finding with both lines
 * and both values; what matched gives the line pairs the source view
 * lights together. */
#include "engine/sem/sem_pair.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sl_add(struct slinks *l, int pl, int rl, bool differs)
{
	if (pl <= 0 || rl <= 0)
		return;
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].pl == pl && l->v[i].rl == rl) {
			l->v[i].differs |= differs;
			return;
		}
	l->v = xgrow(l->v, &l->cap, l->n + 1, sizeof(*l->v));
	l->v[l->n++] = (struct slink){pl, rl, differs};
}

static char *tuple_text(const struct sgraph *g, const sid *v, size_t n)
{
	struct sbuf sb = SBUF_INIT;
	sb_addc(&sb, '(');
	for (size_t i = 0; i < n; i++) {
		if (i)
			sb_adds(&sb, ", ");
		char *s = sg_render_str(g, v[i], 3);
		sb_adds(&sb, s);
		free(s);
	}
	sb_addc(&sb, ')');
	return sb_detach(&sb);
}

static int line_or(const struct sgraph *g, sid x, int dflt)
{
	return x && g->n[x].line > 0 ? g->n[x].line : dflt;
}

static char *loop_text(const struct sgraph *g, int l)
{
	const struct sloop *lp = &g->loops[l];
	char *a = sg_render_str(g, lp->lo, 3), *b = sg_render_str(g, lp->hi, 3), *s = sg_render_str(g, lp->step, 3);
	char *r = xasprintf("range(%s, %s, %s)", a, b, s);
	free(a);
	free(b);
	free(s);
	return r;
}

/* The recorded difference as a CRITICAL finding. */
static void diff_finding(struct scmp *c, struct sfinds *out, const char *role, int pl, int rl)
{
	sid dp = c->dp, dr = c->dr;
	const char *what = c->dwhat ? c->dwhat : "value";
	char *pv, *rv;
	if (!strcmp(what, "loop bounds")) {
		pv = loop_text(c->p, c->dlp);
		rv = loop_text(c->r, c->dlr);
		sf_add(out, SEM_CRITICAL, "sem.loop", c->p->loops[c->dlp].line, c->r->loops[c->dlr].line, pv, rv,
		       "%s: loop bounds differ: %s in the source, %s in the Rust", role, pv, rv);
		scmp_clear_diff(c);
		return;
	}
	if (!strcmp(what, "tile shape") && dp && dr) {
		const struct snode *x = &c->p->n[dp], *y = &c->r->n[dr];
		pv = tuple_text(c->p, x->dims, x->rank);
		rv = tuple_text(c->r, y->dims, y->rank);
	} else if (!strcmp(what, "padding") && dp && dr) {
		const struct snode *x = &c->p->n[dp], *y = &c->r->n[dr];
		pv = x->op == S_LOAD ? xstrdup(spad_name(x->attr)) : sg_render_str(c->p, x->args[3], 2);
		rv = y->op == S_LOAD ? xstrdup(spad_name(y->attr)) : sg_render_str(c->r, y->args[3], 2);
	} else {
		pv = dp ? scmp_render(c, 0, dp) : xstrdup("nothing");
		rv = dr ? scmp_render(c, 1, dr) : xstrdup("nothing");
	}
	int l1 = line_or(c->p, dp, pl), l2 = line_or(c->r, dr, rl);
	if (!strcmp(what, "unguarded"))
		sf_add(out, SEM_CRITICAL, "sem.mask", l1, l2, pv, rv,
		       "%s: the Rust does not check %s: lanes past the bound are read or written (mask %s)", role, pv, rv);
	else if (!strcmp(what, "operand order") || !strcmp(what, "index order"))
		sf_add(out, SEM_CRITICAL, "sem.value", l1, l2, pv, rv, "%s: %s differs: %s in the source, %s in the Rust",
		       role, what, pv, rv);
	else
		sf_add(out, SEM_CRITICAL, !strcmp(what, "bounds check") || !strcmp(what, "mask condition") ? "sem.mask"
				       : !strcmp(what, "padding")					  ? "sem.padding"
													  : "sem.value",
		       l1, l2, pv, rv, "%s: %s differs: %s in the source, %s in the Rust", role, what, pv, rv);
	scmp_clear_diff(c);
}

static void effect_hints(struct sfinds *out, const char *role, const struct seffect *a, const struct seffect *b)
{
	if (a->h.latency != b->h.latency) {
		char la[48], lb[48];
		if (a->h.latency == -2)
			snprintf(la, sizeof(la), "%s", a->h.lat_sym ? a->h.lat_sym : "a Constant");
		else if (a->h.latency < 0)
			snprintf(la, sizeof(la), "none");
		else
			snprintf(la, sizeof(la), "%d", a->h.latency);
		if (b->h.latency < 0)
			snprintf(lb, sizeof(lb), "none");
		else
			snprintf(lb, sizeof(lb), "%d", b->h.latency);
		if (a->h.latency == -1)
			sf_add(out, SEM_NOTE, "sem.hint", a->line, b->line, NULL, NULL,
			       "%s: latency hint %s in the Rust, where the source leaves it to the compiler", role, lb);
		else
			sf_add(out, SEM_WARN, "sem.hint", a->line, b->line, NULL, NULL,
			       "%s: latency hint %s in the source, %s in the Rust", role, la, lb);
	}
	int ta = a->h.tma < 0 ? 1 : a->h.tma, tb = b->h.tma < 0 ? 1 : b->h.tma;
	if (ta != tb)
		sf_add(out, SEM_WARN, "sem.hint", a->line, b->line, NULL, NULL,
		       "%s: TMA %s in the source, %s in the Rust", role, ta ? "allowed" : "disabled",
		       tb ? "allowed" : "disabled");
}

/* Every independent difference inside a value that differs (up to
 * *budget): where both sides apply the same operation, the operands that
 * differ are looked into one by one; elsewhere the first place they
 * differ is the finding. */
static bool descend(const struct snode *x, const struct snode *y)
{
	if (x->op != y->op || x->nargs != y->nargs || !x->nargs || x->nargs > 16 || x->attr != y->attr ||
	    x->rank != y->rank)
		return false;
	switch (x->op) {
	case S_LOAD: case S_GATHER: case S_ICMP: case S_POLY: case S_MONO: case S_CARRY: case S_LOOPRES:
	case S_SHAPE: case S_STRIDE: case S_OPAQUE:
		return false;
	case S_REDUCE: case S_PERMUTE:
		return x->ival == y->ival;
	default:
		return true;
	}
}

static bool comm_op(const struct snode *x)
{
	return x->op == S_FADD || x->op == S_FMUL || x->op == S_FMAX || x->op == S_FMIN || x->op == S_AND ||
	       x->op == S_OR || x->op == S_XOR || x->op == S_IMIN || x->op == S_IMAX;
}

static void collect(struct scmp *c, sid p, sid r, struct sfinds *out, const char *role, int pl, int rl,
		    int *budget)
{
	if (*budget <= 0)
		return;
	scmp_clear_diff(c);
	if (scmp_eq(c, p, r))
		return;
	const struct snode *x = &c->p->n[p], *y = &c->r->n[r];
	if (descend(x, y)) {
		int n = x->nargs;
		sid xa[16], ya[16];
		memcpy(xa, x->args, sizeof(sid) * (size_t)n);
		memcpy(ya, y->args, sizeof(sid) * (size_t)n);
		bool pu[16] = {0}, ru[16] = {0};
		/* the operands that are the same, in any order for a commutative operation */
		for (int i = 0; i < n; i++)
			for (int j = comm_op(x) ? 0 : i; j < (comm_op(x) ? n : i + 1); j++) {
				if (ru[j])
					continue;
				scmp_clear_diff(c);
				if (scmp_eq(c, xa[i], ya[j])) {
					pu[i] = ru[j] = true;
					break;
				}
			}
		int left = 0;
		for (int i = 0; i < n; i++)
			left += !pu[i];
		if (left && left < n) {
			/* the rest, paired in order */
			int j = 0;
			for (int i = 0; i < n; i++) {
				if (pu[i])
					continue;
				while (j < n && ru[j])
					j++;
				if (j < n)
					collect(c, xa[i], ya[j++], out, role, pl, rl, budget);
			}
			return;
		}
		if (left == n && (!comm_op(x) || n == 1)) {
			for (int i = 0; i < n; i++)
				collect(c, xa[i], ya[i], out, role, pl, rl, budget);
			return;
		}
	}
	scmp_clear_diff(c);
	scmp_eq(c, p, r);
	diff_finding(c, out, role, pl, rl);
	(*budget)--;
}

static bool cmp_effect(struct scmp *c, const struct seffect *a, const struct seffect *b, struct sfinds *out)
{
	const char *an = c->p->n[a->array].name;
	char role[160];
	snprintf(role, sizeof(role), "%s to %s", a->kind == SE_STORE ? "store" : "scatter", an ? an : "?");
	bool ok = true;
	scmp_clear_diff(c);
	/* the loops around it */
	int lp = a->loop, lr = b->loop;
	while (lp >= 0 || lr >= 0) {
		if (lp < 0 || lr < 0) {
			int dp = 0, dr = 0;
			for (int l = a->loop; l >= 0; l = c->p->loops[l].parent)
				dp++;
			for (int l = b->loop; l >= 0; l = c->r->loops[l].parent)
				dr++;
			sf_add(out, SEM_CRITICAL, "sem.loop", a->line, b->line, NULL, NULL,
			       "%s: inside %d loop(s) in the source, %d in the Rust", role, dp, dr);
			return false;
		}
		if (!scmp_loops(c, lp, lr)) {
			char *pv = loop_text(c->p, lp), *rv = loop_text(c->r, lr);
			sf_add(out, SEM_CRITICAL, "sem.loop", c->p->loops[lp].line, c->r->loops[lr].line, pv, rv,
			       "%s: loop bounds differ: %s in the source, %s in the Rust", role, pv, rv);
			scmp_clear_diff(c);
			return false;
		}
		lp = c->p->loops[lp].parent;
		lr = c->r->loops[lr].parent;
	}
	if ((a->cond || b->cond) &&
	    !scmp_eq(c, a->cond ? a->cond : sg_bool(c->p, true), b->cond ? b->cond : sg_bool(c->r, true))) {
		diff_finding(c, out, role, a->line, b->line);
		ok = false;
	}
	if (a->kind != b->kind) {
		sf_add(out, SEM_CRITICAL, "sem.store", a->line, b->line, NULL, NULL,
		       "%s: a %s in the source, a %s in the Rust", role, a->kind == SE_STORE ? "tiled store" : "pointer store",
		       b->kind == SE_STORE ? "tiled store" : "pointer store");
		return false;
	}
	if (a->kind == SE_STORE) {
		bool shape = a->rank == b->rank;
		for (int i = 0; shape && i < a->rank; i++)
			shape = scmp_eq(c, a->dims[i], b->dims[i]);
		if (!shape) {
			char *pv = tuple_text(c->p, a->dims, (size_t)a->rank), *rv = tuple_text(c->r, b->dims, (size_t)b->rank);
			sf_add(out, SEM_CRITICAL, "sem.store", a->line, b->line, pv, rv,
			       "%s: tile shape differs: %s in the source, %s in the Rust", role, pv, rv);
			scmp_clear_diff(c);
			ok = false;
		}
		bool idx = a->nidx == b->nidx;
		struct smark m = scmp_mark(c);
		for (size_t i = 0; idx && i < a->nidx; i++)
			idx = scmp_eq(c, a->idx[i], b->idx[i]);
		if (!idx) {
			scmp_undo(c, m);
			scmp_clear_diff(c);
			char *pv = tuple_text(c->p, a->idx, a->nidx), *rv = tuple_text(c->r, b->idx, b->nidx);
			sf_add(out, SEM_CRITICAL, "sem.store", a->line, b->line, pv, rv,
			       "%s: store index differs: %s in the source, %s in the Rust", role, pv, rv);
			ok = false;
		}
	} else {
		char what[180];
		snprintf(what, sizeof(what), "%s", role);
		int rank = c->p->params[c->p->n[a->array].ival].rank;
		if (!sg_cmp_offset(c, a->array, a->offset, b->offset, rank, a->line, b->line, what)) {
			diff_finding(c, out, role, a->line, b->line);
			ok = false;
		}
		scmp_clear_diff(c);
		if (!sg_cmp_mask(c, a->mask, b->mask, a->line, b->line, what)) {
			diff_finding(c, out, role, a->line, b->line);
			ok = false;
		}
	}
	scmp_clear_diff(c);
	if (!scmp_eq(c, a->value, b->value)) {
		char vrole[200];
		snprintf(vrole, sizeof(vrole), "value of the %s", role);
		int budget = 6;
		collect(c, a->value, b->value, out, vrole, a->line, b->line, &budget);
		ok = false;
	}
	effect_hints(out, role, a, b);
	return ok;
}

/* ---- what the Rust computes and never uses ---- */

static void mark_reach(const struct sgraph *g, sid x, uint8_t *seen, uint8_t *loops)
{
	if (!x || seen[x])
		return;
	seen[x] = 1;
	const struct snode *n = &g->n[x];
	for (int i = 0; i < n->nargs; i++)
		mark_reach(g, n->args[i], seen, loops);
	for (int i = 0; i < n->rank; i++)
		mark_reach(g, n->dims[i], seen, loops);
	if (n->op == S_LOOPRES || n->op == S_CARRY || n->op == S_IV) {
		const struct sloop *l = &g->loops[n->ival];
		if (n->op != S_IV && (size_t)n->attr < l->nslots && !(loops[n->ival] & 2)) {
			mark_reach(g, l->init[n->attr], seen, loops);
			mark_reach(g, l->update[n->attr], seen, loops);
		}
		if (!(loops[n->ival] & 1)) {
			loops[n->ival] |= 1;
			mark_reach(g, l->lo, seen, loops);
			mark_reach(g, l->hi, seen, loops);
			mark_reach(g, l->step, seen, loops);
		}
	}
}

/* Does x belong to a first reading of a loop that was read again? */
static bool of_orphan(const struct sgraph *g, sid x, int depth)
{
	if (!x || depth > 100)
		return false;
	const struct snode *n = &g->n[x];
	if ((n->op == S_IV || n->op == S_CARRY) && g->loops[n->ival].orphan)
		return true;
	for (int i = 0; i < n->nargs; i++)
		if (of_orphan(g, n->args[i], depth + 1))
			return true;
	return false;
}

static void unused_loads(const struct sgraph *g, struct sfinds *out)
{
	uint8_t *seen = xcalloc(g->nn + 1, 1), *loops = xcalloc(g->nloops + 1, 1);
	for (size_t e = 0; e < g->neff; e++) {
		const struct seffect *f = &g->eff[e];
		mark_reach(g, f->value, seen, loops);
		mark_reach(g, f->mask, seen, loops);
		mark_reach(g, f->offset, seen, loops);
		mark_reach(g, f->cond, seen, loops);
		for (size_t k = 0; k < f->nidx; k++)
			mark_reach(g, f->idx[k], seen, loops);
		for (int l = f->loop; l >= 0; l = g->loops[l].parent) {
			mark_reach(g, g->loops[l].lo, seen, loops);
			mark_reach(g, g->loops[l].hi, seen, loops);
			mark_reach(g, g->loops[l].step, seen, loops);
		}
	}
	for (sid i = 1; i < g->nn; i++) {
		const struct snode *n = &g->n[i];
		if ((n->op == S_LOAD || n->op == S_GATHER) && !seen[i] && n->line > 0) {
			/* a gather whose padding was put in by a select is used as that */
			bool absorbed = false;
			for (sid k = 1; k < g->nn && n->op == S_GATHER && !absorbed; k++)
				absorbed = seen[k] && g->n[k].op == S_GATHER && k != i &&
					   !memcmp(g->n[k].args, n->args, 3 * sizeof(sid));
			if (absorbed || of_orphan(g, i, 0))
				continue;
			char *s = sg_render_str(g, i, 3);
			sf_add(out, SEM_NOTE, "sem.unused", 0, n->line, NULL, NULL,
			       "the Rust loads %s and never uses it (a wasted read)", s);
			free(s);
		}
	}
	free(seen);
	free(loops);
}

/* ---- links ---- */

static bool linkable(int op)
{
	switch (op) {
	case S_LOAD: case S_GATHER: case S_MMA: case S_REDUCE: case S_MATH: case S_SIGMOID: case S_CONVERT:
	case S_FDIV: case S_FADD: case S_FMUL: case S_SELECT: case S_PERMUTE: case S_RESHAPE: case S_IOTA:
	case S_BID: case S_NBLOCKS: case S_FMAX: case S_FMIN: case S_ICMP: case S_FCMP: case S_AND: case S_OR:
	case S_FLOORDIV: case S_MOD: case S_IMIN: case S_IMAX: case S_POLY: case S_FNEG:
		return true;
	}
	return false;
}

static void memo_links(const struct scmp *c, struct slinks *links)
{
	for (size_t k = 0; k < c->mcap; k++) {
		if (!c->mkey[k] || c->mval[k] != 1)
			continue;
		sid p = (sid)(c->mkey[k] >> 32), r = (sid)(c->mkey[k] & 0xffffffffu);
		const struct snode *x = &c->p->n[p], *y = &c->r->n[r];
		if (linkable(x->op) && linkable(y->op))
			sl_add(links, x->line, y->line, false);
	}
	for (size_t l = 0; l < c->p->nloops; l++)
		if (c->loop_r[l] >= 0)
			sl_add(links, c->p->loops[l].line, c->r->loops[c->loop_r[l]].line, false);
}

/* ---- the case ---- */

void sem_case_compare(const struct scase_in *in, struct sfinds *out, struct slinks *links)
{
	struct sgraph *gp = in->gp, *gr = in->gr;
	struct susers up, ur;
	susers_build(gp, &up);
	susers_build(gr, &ur);
	struct scmp c;
	scmp_init(&c, gp, gr, in->b, in->uni, in->uni_r, out);
	c.up = &up;
	c.ur = &ur;
	size_t first = out->n;
	bool *used = xcalloc(gr->neff + 1, sizeof(bool));
	for (size_t i = 0; i < gp->neff; i++) {
		const struct seffect *a = &gp->eff[i];
		size_t j = 0;
		for (; j < gr->neff; j++) {
			if (used[j])
				continue;
			struct smark m = scmp_mark(&c);
			bool same = scmp_eq(&c, a->array, gr->eff[j].array);
			scmp_clear_diff(&c);
			if (same)
				break;
			scmp_undo(&c, m);
		}
		if (j == gr->neff) {
			const char *an = gp->n[a->array].name;
			sf_add(out, SEM_CRITICAL, "sem.store", a->line, 0, NULL, NULL,
			       "the %s to %s has no counterpart in the Rust", a->kind == SE_STORE ? "store" : "scatter",
			       an ? an : "?");
			continue;
		}
		used[j] = true;
		bool ok = cmp_effect(&c, a, &gr->eff[j], out);
		sl_add(links, a->line, gr->eff[j].line, !ok);
	}
	for (size_t j = 0; j < gr->neff; j++)
		if (!used[j]) {
			const char *an = gr->n[gr->eff[j].array].name;
			sf_add(out, SEM_CRITICAL, "sem.store", 0, gr->eff[j].line, NULL, NULL,
			       "the Rust stores to %s, which the source does not", an ? an : "?");
		}
	/* what differs is still what corresponds: its lines are linked */
	for (size_t i = first; i < out->n; i++)
		if (out->v[i].sev == SEM_CRITICAL)
			sl_add(links, out->v[i].pl, out->v[i].rl, true);
	unused_loads(gr, out);
	memo_links(&c, links);
	free(used);
	scmp_free(&c);
	susers_free(&up);
	susers_free(&ur);
}
