/* One Rust entry against its source kernel: the parameters of both
 * sides (sem_params.c), the cases of the constant conditions (every assignment of the atoms either
 * side branches on is read and compared), and from those cases the
 * report: a Rust-only condition is matched with the source condition it
 * must stand for (a launcher's CAST_TF32 for `E == f32`), and a source
 * Constant the Rust does not have tells which specialisation the Rust
 * implements. Kernel hints and assumptions are compared here too. */
#include "engine/sem/sem_pair.h"
#include "engine/sem/sem_pyx.h"
#include "engine/sem/sem_rsx.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CASE_ATOMS 8

/* ---- cases ---- */

struct sres {
	bool done;
	struct sfinds finds;
	struct slinks links;
	int ncrit, nwarn;
};

/* A side read for one case, kept for every later case that agrees with
 * it on the atoms the read asked for: cases mostly differ in atoms only
 * the other side branches on (a source's TRANSPOSE_A the Rust has no
 * counterpart of), and reading is most of what a case costs. */
struct sread {
	unsigned value, mask;
	bool e_is_f32;
	int gen;
	struct sgraph g;
	struct sside s;
};
#define MAX_READS 32

struct pstate {
	struct spair *pair;
	struct sarena *arena;
	struct sparam *py, *rs;
	size_t npy, nrs;
	struct sbind b;
	struct sunify *uni, *uni_r;
	struct scase cs;
	struct sres res[1u << MAX_CASE_ATOMS];
	struct sread reads[2][MAX_READS];
	size_t nreads[2], next_evict[2];
	int gen; /* bumped when a read teaches the parameters something (a rank) */
	struct sassume *assumes;
	size_t nassumes;
	bool have_assumes;
};

static void sread_free(struct sread *r)
{
	sg_free(&r->g);
	free(r->s.assumes);
}

/* The side (0 the source, 1 the Rust) read in the current case. */
static struct sread *side_read(struct pstate *st, int side)
{
	struct scase *cs = &st->cs;
	for (size_t i = 0; i < st->nreads[side]; i++) {
		struct sread *r = &st->reads[side][i];
		if (r->gen == st->gen && r->e_is_f32 == cs->e_is_f32 && !((r->value ^ cs->value) & r->mask))
			return r;
	}
	struct sread *r;
	if (st->nreads[side] < MAX_READS) {
		r = &st->reads[side][st->nreads[side]++];
	} else {
		r = &st->reads[side][st->next_evict[side]++ % MAX_READS];
		sread_free(r);
	}
	memset(r, 0, sizeof(*r));
	struct spair *p = st->pair;
	const struct sparam *params = side ? st->rs : st->py;
	size_t np = side ? st->nrs : st->npy;
	sg_init(&r->g, side);
	r->g.params = sa_alloc(r->g.arena, (np + 1) * sizeof(struct sparam));
	memcpy(r->g.params, params, np * sizeof(struct sparam));
	r->g.nparams = np;
	r->g.cs = cs;
	cs->consulted = 0;
	if (side)
		sem_rs_read(&r->g, &r->s, p->f, p->fn, &st->b);
	else
		sem_py_read(&r->g, &r->s, p->m, p->k, &st->b);
	r->value = cs->value;
	r->mask = cs->consulted;
	r->e_is_f32 = cs->e_is_f32;
	r->gen = st->gen;
	return r;
}

static struct sassume *copy_assumes(const struct sside *s)
{
	struct sassume *a = xmalloc((s->nassumes + 1) * sizeof(*a));
	if (s->nassumes)
		memcpy(a, s->assumes, s->nassumes * sizeof(*a));
	return a;
}

static void run_case(struct pstate *st, unsigned value)
{
	struct sres *res = &st->res[value];
	if (res->done)
		return;
	res->done = true;
	struct spair *p = st->pair;
	struct scase *cs = &st->cs;
	cs->value = value;
	cs->e_is_f32 = false;
	for (size_t a = 0; a < cs->natoms; a++)
		if (!strcmp(cs->atom[a], "E == f32"))
			cs->e_is_f32 = (value >> a) & 1u;
	struct sread *rp = side_read(st, 0);
	/* ranks the source learned from its accesses */
	for (size_t i = 0; i < st->npy; i++)
		if (st->py[i].rank < 0 && rp->g.params[i].rank >= 0) {
			st->py[i].rank = rp->g.params[i].rank;
			st->gen++;
		}
	struct sread *rr = side_read(st, 1);
	struct sgraph *gp = &rp->g, *gr = &rr->g;
	if (getenv("TILEPORT_SEM_DUMP")) {
		fprintf(stderr, "=== case %u\n", value);
		sg_dump(gp, stderr);
		sg_dump(gr, stderr);
	}
	if (gp->problem || gr->problem) {
		if (gp->problem)
			sf_add(&res->finds, SEM_CRITICAL, "sem.unread", gp->problem_line, 0, NULL, NULL,
			       "the check cannot follow the source here: %s", gp->problem);
		if (gr->problem)
			sf_add(&res->finds, SEM_CRITICAL, "sem.unread", 0, gr->problem_line, NULL, NULL,
			       "the check cannot follow the Rust here: %s", gr->problem);
	} else {
		struct scase_in in = {gp, gr, &rp->s, &rr->s, &st->b, st->uni, st->uni_r, p};
		sem_case_compare(&in, &res->finds, &res->links);
	}
	if (!st->have_assumes && !gr->problem) {
		st->have_assumes = true;
		st->assumes = copy_assumes(&rr->s);
		st->nassumes = rr->s.nassumes;
		/* the source's: after the Rust's, marked by a negative param */
		for (size_t i = 0; i < rp->s.nassumes; i++) {
			st->assumes = xrealloc(st->assumes, (st->nassumes + 1) * sizeof(*st->assumes));
			struct sassume a = rp->s.assumes[i];
			a.param = -1 - a.param;
			st->assumes[st->nassumes++] = a;
		}
	}
	for (size_t i = 0; i < res->finds.n; i++) {
		res->ncrit += res->finds.v[i].sev == SEM_CRITICAL;
		res->nwarn += res->finds.v[i].sev == SEM_WARN;
	}
}

static bool is_py_atom(const struct scase *cs, size_t a)
{
	return cs->side_has[a][0];
}

/* the value bits of an assignment of the source's atoms extended by the
 * binding of the Rust-only atoms: beta[r] 0 false, 1 true, 2+2k atom k,
 * 3+2k its negation */
static unsigned extend(const struct scase *cs, unsigned pi, const int *ronly, size_t nr, const int *beta)
{
	unsigned v = pi;
	for (size_t i = 0; i < nr; i++) {
		int bv = beta[i];
		bool t = bv == 1 || (bv >= 2 && (((pi >> ((bv - 2) / 2)) & 1u) != (unsigned)((bv - 2) % 2)));
		if (t)
			v |= 1u << ronly[i];
	}
	(void)cs;
	return v;
}

static char *describe(const struct scase *cs, unsigned v, unsigned which)
{
	struct sbuf sb = SBUF_INIT;
	for (size_t a = 0; a < cs->natoms; a++) {
		if (!((which >> a) & 1u))
			continue;
		if (sb.len)
			sb_adds(&sb, ", ");
		bool t = (v >> a) & 1u;
		if (!strcmp(cs->atom[a], "E == f32"))
			sb_adds(&sb, t ? "E is f32" : "E is not f32");
		else
			sb_printf(&sb, t ? "%s" : strchr(cs->atom[a], ' ') ? "not (%s)" : "not %s", cs->atom[a]);
	}
	return sb_detach(&sb);
}

static void merge_findings(struct pstate *st, const unsigned *set, size_t nset, unsigned mask_atoms)
{
	struct spair *p = st->pair;
	for (size_t s = 0; s < nset; s++) {
		struct sres *r = &st->res[set[s]];
		for (size_t i = 0; i < r->finds.n; i++) {
			struct sfind *f = &r->finds.v[i];
			bool dup = false;
			for (size_t k = 0; k < p->finds.n && !dup; k++) {
				struct sfind *g = &p->finds.v[k];
				dup = g->sev == f->sev && g->pl == f->pl && g->rl == f->rl && !strcmp(g->rule, f->rule) &&
				      !strncmp(g->msg, f->msg, strlen(f->msg));
			}
			if (dup)
				continue;
			/* the assignments it appears in, and what they share */
			unsigned all1 = ~0u, all0 = ~0u;
			size_t count = 0;
			for (size_t t = 0; t < nset; t++) {
				struct sres *q = &st->res[set[t]];
				bool has = false;
				for (size_t k = 0; k < q->finds.n && !has; k++)
					has = q->finds.v[k].sev == f->sev && q->finds.v[k].pl == f->pl &&
					      q->finds.v[k].rl == f->rl && !strcmp(q->finds.v[k].msg, f->msg);
				if (has) {
					count++;
					all1 &= set[t];
					all0 &= ~set[t];
				}
			}
			char *msg = xstrdup(f->msg);
			if (count < nset && strcmp(f->rule, "sem.param")) {
				unsigned fixed = (all1 | all0) & mask_atoms;
				char *when = describe(&st->cs, all1, fixed);
				if (*when) {
					char *m2 = xasprintf("%s (when %s)", msg, when);
					free(msg);
					msg = m2;
				}
				free(when);
			}
			sf_add(&p->finds, f->sev, f->rule, f->pl, f->rl, f->pv ? xstrdup(f->pv) : NULL,
			       f->rv ? xstrdup(f->rv) : NULL, "%s", msg);
			free(msg);
		}
		for (size_t i = 0; i < r->links.n; i++)
			sl_add(&p->links, r->links.v[i].pl, r->links.v[i].rl, r->links.v[i].differs);
	}
}

static void choose(struct pstate *st)
{
	struct scase *cs = &st->cs;
	struct spair *p = st->pair;
	size_t na = cs->natoms < MAX_CASE_ATOMS ? cs->natoms : MAX_CASE_ATOMS;
	int ronly[MAX_CASE_ATOMS], pyat[MAX_CASE_ATOMS], ponly[MAX_CASE_ATOMS];
	size_t nr = 0, np = 0, npo = 0;
	for (size_t a = 0; a < na; a++) {
		if (is_py_atom(cs, a))
			pyat[np++] = (int)a;
		else
			ronly[nr++] = (int)a;
		if (cs->side_has[a][0] && !cs->side_has[a][1])
			ponly[npo++] = (int)a;
	}
	/* the variant a translator entry is named after */
	int fixed_atom = -1;
	if (p->variant_param)
		for (size_t a = 0; a < na; a++)
			if (!strcasecmp(cs->atom[a], p->variant_param))
				fixed_atom = (int)a;
	/* the source's assignments */
	unsigned pis[1u << MAX_CASE_ATOMS];
	size_t npi = 0;
	for (unsigned m = 0; m < (1u << np); m++) {
		unsigned v = 0;
		for (size_t k = 0; k < np; k++)
			if ((m >> k) & 1u)
				v |= 1u << pyat[k];
		if (fixed_atom >= 0 && ((v >> fixed_atom) & 1u) != (unsigned)p->variant_value)
			continue;
		pis[npi++] = v;
	}
	/* the Rust-only atoms: the source condition each stands for, the
	 * binding that fits best. Never a constant while the source has
	 * conditions: a constant would let a wrong branch pass as dead code.
	 * With none, every value is compared. */
	int beta[MAX_CASE_ATOMS] = {0}, best_beta[MAX_CASE_ATOMS] = {0};
	long best_cost = -1;
	size_t ncand = np ? 2 * np : 1;
	size_t combos = 1;
	for (size_t i = 0; i < nr && combos < 4096; i++)
		combos *= ncand;
	for (size_t comb = 0; comb < combos; comb++) {
		size_t x = comb;
		for (size_t i = 0; i < nr; i++) {
			size_t cnd = x % ncand;
			x /= ncand;
			beta[i] = np ? 2 + 2 * pyat[cnd / 2] + (int)(cnd % 2) : 0;
		}
		long cost = 0;
		for (size_t i = 0; i < npi; i++) {
			unsigned v = extend(cs, pis[i], ronly, nr, beta);
			run_case(st, v);
			cost += st->res[v].ncrit;
		}
		if (best_cost < 0 || cost < best_cost) {
			best_cost = cost;
			memcpy(best_beta, beta, sizeof(beta));
		}
	}
	/* the source-only atoms: which of their assignments the Rust implements
	 * (an atom a Rust-only condition was bound to is not source-only) */
	unsigned po_mask = 0;
	for (size_t k = 0; k < npo; k++)
		po_mask |= 1u << ponly[k];
	for (size_t i = 0; i < nr; i++)
		if (best_beta[i] >= 2)
			po_mask &= ~(1u << ((best_beta[i] - 2) / 2));
	/* the element type is no specialisation: an entry generic over E must
	 * compute the source for every E */
	for (size_t a = 0; a < na; a++)
		if (!strcmp(cs->atom[a], "E == f32"))
			po_mask &= ~(1u << a);
	if (fixed_atom >= 0)
		po_mask &= ~(1u << fixed_atom);
	unsigned set[1u << MAX_CASE_ATOMS];
	size_t nset = 0;
	unsigned good_po[1u << MAX_CASE_ATOMS];
	size_t ngood = 0, npo_vals = 0;
	long best_tot = -1, best_warn = -1;
	unsigned best_po = 0;
	for (unsigned o = 0; o <= po_mask; o++) {
		if ((o & ~po_mask) != 0)
			continue;
		npo_vals++;
		long tot = 0, warn = 0;
		for (size_t i = 0; i < npi; i++)
			if ((pis[i] & po_mask) == o) {
				unsigned v = extend(cs, pis[i], ronly, nr, best_beta);
				tot += st->res[v].ncrit;
				warn += st->res[v].nwarn;
			}
		/* with no critical difference, the fewest warnings: the specialisation */
		if (tot == 0 && (best_warn < 0 || warn <= best_warn)) {
			if (best_warn >= 0 && warn < best_warn)
				ngood = 0;
			best_warn = warn;
			good_po[ngood++] = o;
		}
		if (best_tot < 0 || tot < best_tot) {
			best_tot = tot;
			best_po = o;
		}
	}
	for (size_t i = 0; i < npi; i++) {
		unsigned o = pis[i] & po_mask;
		bool take = false;
		if (ngood) {
			for (size_t k = 0; k < ngood; k++)
				take |= good_po[k] == o;
		} else {
			take = o == best_po;
		}
		if (!take)
			continue;
		if (np || !nr) {
			set[nset++] = extend(cs, pis[i], ronly, nr, best_beta);
			continue;
		}
		for (unsigned rv = 0; rv < (1u << nr); rv++) {
			unsigned v = pis[i];
			for (size_t k = 0; k < nr; k++)
				if ((rv >> k) & 1u)
					v |= 1u << ronly[k];
			run_case(st, v);
			set[nset++] = v;
		}
	}
	if (po_mask && (ngood ? ngood < npo_vals : npo_vals > 1)) {
		/* the atoms fixed across what the Rust implements */
		unsigned ones = ~0u, zeros = ~0u;
		size_t show = ngood ? ngood : 1;
		for (size_t k = 0; k < show; k++) {
			unsigned o = ngood ? good_po[k] : best_po;
			ones &= o;
			zeros &= ~o;
		}
		p->covers = describe(cs, ones, (ones | zeros) & po_mask);
		if (ngood)
			sf_add(&p->finds, SEM_NOTE, "sem.covers", p->py_first, p->rs_first, NULL, NULL,
			       "the Rust implements the source where %s (it has no counterpart of the rest)",
			       p->covers);
	}
	/* the Rust-only atoms bound to source conditions */
	for (size_t i = 0; i < nr && np; i++) {
		int bv = best_beta[i];
		const char *what = bv == 0 ? "false" : bv == 1 ? "true" : cs->atom[(bv - 2) / 2];
		sf_add(&p->finds, SEM_NOTE, "sem.param", 0, p->rs_first, NULL, NULL,
		       "the Rust's condition %s is taken as %s%s of the source (the launcher decides it)",
		       cs->atom[ronly[i]] + (str_starts(cs->atom[ronly[i]], "rs:") ? 3 : 0),
		       bv >= 2 && (bv - 2) % 2 ? "not " : "", what);
	}
	unsigned all_atoms = (1u << na) - 1;
	merge_findings(st, set, nset, all_atoms);
}

/* ---- kernel hints and assumptions ---- */

struct khint {
	char target[24];
	char key[24];
	long long value;
};

static size_t py_khints(const struct spair *p, struct khint *out, size_t max)
{
	const struct py_node *d = p->k->deco;
	size_t n = 0;
	if (!d || d->kind != PY_CALL)
		return 0;
	for (size_t i = 1; i < d->nkids && n < max; i++) {
		const struct py_node *kw = d->kids[i];
		if (kw->kind != PY_KEYWORD)
			continue;
		char key[24];
		snprintf(key, sizeof(key), "%.*s", (int)kw->n, kw->s);
		if (!strcmp(key, "num_ctas"))
			snprintf(key, sizeof(key), "num_cta_in_cga");
		const struct py_node *v = kw->kids[0];
		long long x;
		if (v->kind == PY_NAME) {
			/* a module constant (occupancy=OCCUPANCY) */
			char *nm = py_str(v);
			const struct pm_const *k = pymod_const(p->m, nm);
			free(nm);
			if (k)
				v = k->value;
		}
		if (py_int_value(v, &x)) {
			out[n] = (struct khint){"", "", x};
			snprintf(out[n].key, sizeof(out[n].key), "%s", key);
			n++;
		} else if (v->kind == PY_CALL) {
			for (size_t k = 1; k < v->nkids && n < max; k++) {
				const struct py_node *t = v->kids[k];
				if (t->kind != PY_KEYWORD || !py_int_value(t->kids[0], &x))
					continue;
				out[n] = (struct khint){"", "", x};
				snprintf(out[n].target, sizeof(out[n].target), "%.*s", (int)t->n, t->s);
				if (!strcmp(out[n].target, "default"))
					out[n].target[0] = '\0';
				snprintf(out[n].key, sizeof(out[n].key), "%s", key);
				n++;
			}
		}
	}
	return n;
}

static size_t rs_khints(const struct spair *p, struct khint *out, size_t max)
{
	const struct rtok *t = p->fn->attr;
	size_t nt = p->fn->nattr, n = 0;
	char target[24] = "";
	int depth = 0, tdepth = -1;
	for (size_t i = 0; t && i + 2 < nt && n < max; i++) {
		if (rt_is(&t[i], "("))
			depth++;
		else if (rt_is(&t[i], ")")) {
			if (depth == tdepth)
				target[0] = '\0', tdepth = -1;
			depth--;
		}
		if (t[i].kind == RT_IDENT && rt_is(&t[i + 1], "=") && rt_is(&t[i + 2], "(") &&
		    !rt_is(&t[i], "optimization_hints")) {
			snprintf(target, sizeof(target), "%.*s", (int)t[i].n, t[i].s);
			if (!strcmp(target, "default"))
				target[0] = '\0';
			tdepth = depth + 1;
		}
		if (t[i].kind == RT_IDENT && rt_is(&t[i + 1], "=") && t[i + 2].kind == RT_INT && tdepth >= 0) {
			out[n] = (struct khint){"", "", strtoll(t[i + 2].s, NULL, 10)};
			snprintf(out[n].target, sizeof(out[n].target), "%s", target);
			snprintf(out[n].key, sizeof(out[n].key), "%.*s", (int)t[i].n, t[i].s);
			n++;
		}
	}
	return n;
}

static void compare_khints(struct spair *p)
{
	struct khint a[16], b[16];
	size_t na = py_khints(p, a, 16), nb = rs_khints(p, b, 16);
	/* an untargeted source hint written once per target in the Rust (cutile
	 * 0.2.0 takes entry hints per target only): one note naming them all */
	struct sbuf per[16];
	for (size_t i = 0; i < na; i++)
		per[i] = (struct sbuf)SBUF_INIT;
	for (size_t j = 0; j < nb; j++) {
		bool found = false;
		for (size_t i = 0; i < na && !found; i++) {
			if (strcmp(a[i].key, b[j].key) || (a[i].target[0] && strcmp(a[i].target, b[j].target)))
				continue;
			found = true;
			if (a[i].value != b[j].value)
				sf_add(&p->finds, SEM_WARN, "sem.hint", p->py_first, p->rs_first, NULL, NULL,
				       "kernel hint %s: %lld in the source, %lld in the Rust%s%s", b[j].key, a[i].value,
				       b[j].value, b[j].target[0] ? " for " : "", b[j].target);
			else if (!a[i].target[0] && b[j].target[0])
				sb_printf(&per[i], "%s%s", per[i].len ? ", " : "", b[j].target);
		}
		if (!found)
			sf_add(&p->finds, SEM_NOTE, "sem.hint", p->py_first, p->rs_first, NULL, NULL,
			       "kernel hint %s=%lld%s%s in the Rust; the source's kernel does not set it (its launch may)",
			       b[j].key, b[j].value, b[j].target[0] ? " for " : "", b[j].target);
	}
	for (size_t i = 0; i < na; i++) {
		if (per[i].len)
			sf_add(&p->finds, SEM_NOTE, "sem.hint", p->py_first, p->rs_first, NULL, NULL,
			       "kernel hint %s=%lld: for every target in the source, per target in the Rust (%s)",
			       a[i].key, a[i].value, sb_str(&per[i]));
		sb_free(&per[i]);
		bool found = false;
		for (size_t j = 0; j < nb && !found; j++)
			found = !strcmp(a[i].key, b[j].key);
		if (!found)
			sf_add(&p->finds, SEM_WARN, "sem.hint", p->py_first, p->rs_first, NULL, NULL,
			       "kernel hint %s=%lld%s%s in the source is not in the Rust", a[i].key, a[i].value,
			       a[i].target[0] ? " for " : "", a[i].target);
	}
}

static void compare_assumes(struct pstate *st)
{
	struct spair *p = st->pair;
	for (size_t i = 0; i < st->nassumes; i++) {
		const struct sassume *a = &st->assumes[i];
		if (a->param < 0)
			continue;
		const struct sparam *rp = &st->rs[a->param];
		int py = st->b.py_of_rs[a->param];
		bool matched = false;
		for (size_t k = 0; k < st->nassumes && !matched; k++) {
			const struct sassume *q = &st->assumes[k];
			matched = q->param < 0 && -1 - q->param == py && q->kind == a->kind && q->value == a->value;
		}
		if (matched)
			continue;
		bool size_like = rp->kind != SPK_ARRAY;
		if (a->kind == SA_DIV_BY && rp->kind == SPK_ARRAY && a->value == 16)
			sf_add(&p->finds, SEM_NOTE, "sem.assume", 0, a->line, NULL, NULL,
			       "the Rust assumes %s is 16-byte aligned, as cuTile Python assumes of the arrays it is given",
			       rp->name);
		else if (a->kind == SA_BOUNDS_LOWER && a->value == 0 && size_like)
			sf_add(&p->finds, SEM_NOTE, "sem.assume", 0, a->line, NULL, NULL,
			       "the Rust assumes %s >= 0 (a size, stride or index)", rp->name);
		else
			sf_add(&p->finds, SEM_WARN, "sem.assume", 0, a->line, NULL, NULL,
			       "the Rust assumes %s %s %lld, which the source does not", rp->name,
			       a->kind == SA_DIV_BY ? "is divisible by" : a->kind == SA_BOUNDS_LOWER ? ">=" : "<=", a->value);
	}
	for (size_t i = 0; i < st->nassumes; i++) {
		const struct sassume *a = &st->assumes[i];
		if (a->param >= 0)
			continue;
		int py = -1 - a->param;
		int rs = st->b.rs_of_py[py];
		bool matched = false;
		for (size_t k = 0; k < st->nassumes && !matched; k++)
			matched = st->assumes[k].param == rs && rs >= 0 && st->assumes[k].kind == a->kind &&
				  st->assumes[k].value == a->value;
		if (!matched)
			sf_add(&p->finds, SEM_WARN, "sem.assume", a->line, 0, NULL, NULL,
			       "the source assumes %s is divisible by %lld; the Rust does not", st->py[py].name, a->value);
	}
}

/* ---- the pair ---- */

void sem_pair_run(struct spair *p)
{
	struct pstate *st = xcalloc(1, sizeof(*st));
	st->pair = p;
	st->arena = sarena_new();
	p->py_first = p->k->def->line;
	p->py_last = py_end_line(&p->m->py, p->k->def);
	p->rs_first = p->fn->line;
	p->rs_last = p->fn->end_line;
	sem_pair_params(p, st->arena, &st->py, &st->npy, &st->rs, &st->nrs, &st->b);
	for (size_t i = 0; p->variant_eq_param && i < st->npy; i++)
		if (!strcasecmp(st->py[i].name, p->variant_eq_param)) {
			st->py[i].fixed = true;
			st->py[i].fixed_value = p->variant_eq_value;
		}
	st->uni = xcalloc(st->npy + 1, sizeof(*st->uni));
	st->uni_r = xcalloc(st->nrs + 1, sizeof(*st->uni_r));
	/* find the atoms: read every assignment until no new atom appears */
	for (int round = 0; round < 4; round++) {
		size_t n = st->cs.natoms < MAX_CASE_ATOMS ? st->cs.natoms : MAX_CASE_ATOMS;
		for (unsigned v = 0; v < (1u << n); v++)
			run_case(st, v);
		if (st->cs.natoms == n || n == MAX_CASE_ATOMS)
			break;
	}
	choose(st);
	compare_khints(p);
	compare_assumes(st);
	for (unsigned v = 0; v < (1u << MAX_CASE_ATOMS); v++) {
		sf_free(&st->res[v].finds);
		free(st->res[v].links.v);
	}
	for (int side = 0; side < 2; side++)
		for (size_t i = 0; i < st->nreads[side]; i++)
			sread_free(&st->reads[side][i]);
	for (size_t a = 0; a < st->cs.natoms; a++)
		free((char *)st->cs.atom[a]);
	free(st->assumes);
	free(st->b.rs_of_py);
	free(st->b.py_of_rs);
	free(st->b.rs_bool_int);
	free(st->uni);
	free(st->uni_r);
	sarena_free(st->arena);
	free(st);
}

void sem_pair_free(struct spair *p)
{
	sf_free(&p->finds);
	free(p->links.v);
	free(p->covers);
}
