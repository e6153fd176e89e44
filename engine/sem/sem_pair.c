/* One Rust entry against its source kernel: the parameters of both
 * sides and which stand for which (by name, by what the launcher passes,
 * by position among the arrays; the comparator binds the rest), the
 * cases of the constant conditions (every assignment of the atoms either
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

/* ---- parameters ---- */

static int const_dt(const struct pymod *m, const struct py_node *ann, int depth)
{
	if (!ann || depth > 4)
		return -1;
	if (ann->kind == PY_SUBSCRIPT) {
		char *base = pymod_canon(m, ann->kids[0]);
		int r = -1;
		if (base && (!strcmp(base, "ct.Constant") || !strcmp(base, "tl.constexpr"))) {
			const struct py_node *t = ann->kids[1];
			r = py_is_name(t, "bool") ? SDT_BOOL : py_is_name(t, "float") ? SDT_F32 : SDT_I32;
		}
		free(base);
		return r;
	}
	char *c = pymod_canon(m, ann);
	int r = -1;
	/* a bare tl.constexpr says no type: the host's value has one (an int,
	 * or a float the translation passes at run time); settled with the Rust */
	if (c && !strcmp(c, "tl.constexpr"))
		r = SDT_NONE;
	else if (c && !strcmp(c, "ct.Constant"))
		r = SDT_I32;
	else if (ann->kind == PY_NAME) {
		char *nm = py_str(ann);
		const struct pm_const *k = pymod_const(m, nm);
		free(nm);
		if (k)
			r = const_dt(m, k->value, depth + 1);
	}
	free(c);
	return r;
}

static size_t py_params(const struct spair *p, struct sarena *a, struct sparam **out)
{
	const struct py_node *ps = p->k->def->kids[1];
	size_t n = 0;
	*out = sa_alloc(a, (ps ? ps->nkids + 1 : 1) * sizeof(**out));
	for (size_t i = 0; ps && i < ps->nkids; i++) {
		const struct py_node *q = ps->kids[i];
		if (q->op != PYP_PLAIN)
			continue;
		struct sparam *s = &(*out)[n++];
		s->name = sa_strndup(a, q->s, q->n);
		s->line = q->line;
		s->rank = -1;
		s->kind = SPK_UNKNOWN;
		s->dt = SDT_I32;
		const struct py_node *ann = q->kids[0];
		int cd = const_dt(p->m, ann, 0);
		if (cd >= 0) {
			s->kind = SPK_CONST;
			s->dt = cd;
			if (q->kids[1] && q->kids[1]->kind == PY_CONST && (cd == SDT_I32 || cd == SDT_NONE))
				s->dt = SDT_BOOL;
		} else if (py_is_name(ann, "int")) {
			s->kind = SPK_SCALAR;
		} else if (py_is_name(ann, "float")) {
			s->kind = SPK_SCALAR;
			s->dt = SDT_F32;
		} else if (py_is_name(ann, "bool")) {
			s->kind = SPK_SCALAR;
			s->dt = SDT_BOOL;
		}
	}
	return n;
}

static size_t rs_params(const struct spair *p, struct sarena *a, struct sparam **out)
{
	const struct rfn *fn = p->fn;
	*out = sa_alloc(a, (fn->ngenerics + fn->nparams + 1) * sizeof(**out));
	size_t n = 0;
	for (size_t i = 0; i < fn->ngenerics; i++) {
		const struct rgeneric *g = &fn->generics[i];
		if (!g->is_const)
			continue;
		struct sparam *s = &(*out)[n++];
		s->name = sa_strndup(a, g->name, g->n);
		s->kind = SPK_CONST;
		s->dt = rx_type_dt(g->type) == SDT_BOOL ? SDT_BOOL : SDT_I32;
		s->rank = -1;
		s->line = fn->line;
	}
	for (size_t i = 0; i < fn->nparams; i++) {
		const struct rparam *q = &fn->params[i];
		struct sparam *s = &(*out)[n++];
		s->name = sa_strndup(a, q->name, q->n);
		s->line = q->line;
		s->rank = -1;
		const struct rnode *t = q->type;
		if (t && (t->op == '&' || t->op == '*') && t->nkids) {
			const struct rnode *in = t->kids[0];
			s->kind = SPK_ARRAY;
			s->ptr = t->op == '*';
			s->dt = rx_type_dt(in);
			if (s->dt == SDT_NONE)
				s->dt = SDT_E;
			/* Tensor<E, { [-1, -1] }>: the rank */
			if (in->nkids >= 2 && in->kids[1]->kind == RN_BLOCK && in->kids[1]->nkids &&
			    in->kids[1]->kids[0]->kind == RN_EXPR && in->kids[1]->kids[0]->kids[0]->kind == RN_ARRAY)
				s->rank = (int)in->kids[1]->kids[0]->kids[0]->nkids;
		} else {
			s->kind = SPK_SCALAR;
			s->dt = rx_type_dt(t);
			if (s->dt == SDT_NONE || s->dt == SDT_E)
				s->dt = SDT_I32;
		}
	}
	return n;
}

static void lower_norm(const char *s, char *out, size_t max)
{
	size_t k = 0;
	while (*s == '_')
		s++;
	if (!strncmp(s, "rt_", 3))
		s += 3;
	for (; *s && k < max - 1; s++)
		out[k++] = (char)tolower((unsigned char)*s);
	out[k] = '\0';
	size_t n = k;
	/* the translator's NAME_ for a name taken twice or by cutile's own
	 * generics (a Constant `D` is `D_`) */
	while (n > 1 && out[n - 1] == '_')
		out[--n] = '\0';
	/* `_p`: the translator's own, for a parameter whose snake-case name a
	 * local of the kernel holds (`V` is `v_p` beside a local `v`) */
	static const char *const sfx[] = {"_ptr", "_t", "_tensor", "_desc", "_p"};
	for (size_t i = 0; i < TP_ARRAY_LEN(sfx); i++) {
		size_t l = strlen(sfx[i]);
		if (n > l && !strcmp(out + n - l, sfx[i]))
			out[n - l] = '\0';
	}
}

static bool fits(const struct sparam *py, const struct sparam *rs)
{
	if (rs->kind == SPK_ARRAY)
		return py->kind == SPK_ARRAY || py->kind == SPK_UNKNOWN;
	return py->kind != SPK_ARRAY;
}

static bool used_as_array(const struct pymod *m, const struct py_node *n, const char *name, int depth);

/* A device function called with `name` (flash decode's kernel hands its
 * arrays to an _impl function): does the function use it as an array? */
static bool passes_array(const struct pymod *m, const struct py_node *call, const char *name, int depth)
{
	char *fname = py_str(call->kids[0]);
	const struct pm_func *f = pymod_func(m, fname);
	free(fname);
	if (!f || depth > 150)
		return false;
	const struct py_node *ps = f->def->kids[1];
	for (size_t i = 0, pos = 0; i < ps->nkids; i++) {
		char *pn = py_str(ps->kids[i]);
		const struct py_node *a = py_call_kw(call, pn);
		if (!a)
			a = py_call_arg(call, pos++);
		bool hit = a && py_is_name(a, name) && used_as_array(m, f->def->kids[3], pn, depth + 50);
		free(pn);
		if (hit)
			return true;
	}
	return false;
}

/* Does the kernel use param `name` as an array? */
static bool used_as_array(const struct pymod *m, const struct py_node *n, const char *name, int depth)
{
	if (!n || depth > 200)
		return false;
	/* tl.load(W + cols): the pointer argument's leftmost operand */
	const struct py_node *ptr = n->kind == PY_CALL && n->nkids > 1 ? n->kids[1] : NULL;
	while (ptr && ptr->kind == PY_BINOP && ptr->op == PYOP_ADD)
		ptr = ptr->kids[0];
	if (ptr && ptr != n->kids[1] && py_is_name(ptr, name)) {
		char *c = pymod_canon(m, n->kids[0]);
		bool hit = c && (!strcmp(c, "tl.load") || !strcmp(c, "tl.store"));
		free(c);
		if (hit)
			return true;
	}
	if (n->kind == PY_CALL && n->nkids > 1 && py_is_name(n->kids[1], name)) {
		char *c = pymod_canon(m, n->kids[0]);
		static const char *const apis[] = {"ct.load", "ct.store", "ct.gather", "ct.scatter", "ct.num_tiles",
						   "tl.make_block_ptr", "tl.load", "tl.store"};
		bool hit = false;
		for (size_t i = 0; c && i < TP_ARRAY_LEN(apis); i++)
			hit |= !strcmp(c, apis[i]);
		free(c);
		if (hit)
			return true;
	}
	if (n->kind == PY_KEYWORD && n->n == 4 && !memcmp(n->s, "base", 4) && py_is_name(n->kids[0], name))
		return true;
	if (n->kind == PY_ATTR && py_is_name(n->kids[0], name) &&
	    ((n->n == 5 && !memcmp(n->s, "shape", 5)) || (n->n == 5 && !memcmp(n->s, "dtype", 5))))
		return true;
	if (n->kind == PY_BINOP && n->op == PYOP_ADD && py_is_name(n->kids[0], name) && strstr(name, "ptr"))
		return true;
	if (n->kind == PY_CALL && n->kids[0]->kind == PY_NAME && passes_array(m, n, name, depth))
		return true;
	for (size_t i = 0; i < n->nkids; i++)
		if (used_as_array(m, n->kids[i], name, depth + 1))
			return true;
	return false;
}

static void bind_params(const struct spair *p, struct sparam *py, size_t npy, struct sparam *rs, size_t nrs,
			struct sbind *b)
{
	b->npy = npy;
	b->nrs = nrs;
	b->py = py;
	b->rs = rs;
	b->rs_of_py = xmalloc((npy + 1) * sizeof(int));
	b->py_of_rs = xmalloc((nrs + 1) * sizeof(int));
	b->rs_bool_int = xcalloc(nrs + 1, sizeof(bool));
	for (size_t i = 0; i < npy; i++)
		b->rs_of_py[i] = -1;
	for (size_t j = 0; j < nrs; j++)
		b->py_of_rs[j] = -1;
	/* by name: exactly, then without case, then without decoration */
	for (int pass = 0; pass < 3; pass++)
		for (size_t i = 0; i < npy; i++) {
			if (b->rs_of_py[i] >= 0)
				continue;
			for (size_t j = 0; j < nrs; j++) {
				if (b->py_of_rs[j] >= 0 || !fits(&py[i], &rs[j]) || rs[j].derived ||
				    rs[j].derived_expr)
					continue;
				bool same;
				if (pass == 0) {
					same = !strcmp(py[i].name, rs[j].name);
				} else if (pass == 1) {
					same = !strcasecmp(py[i].name, rs[j].name);
				} else {
					char a[64], c[64];
					lower_norm(py[i].name, a, sizeof(a));
					lower_norm(rs[j].name, c, sizeof(c));
					same = !strcmp(a, c);
				}
				if (same) {
					b->rs_of_py[i] = (int)j;
					b->py_of_rs[j] = (int)i;
					break;
				}
			}
		}
	/* arrays: by a common start of the names ("out_ptr" and "output"), then in order */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < npy; i++) {
			if (b->rs_of_py[i] >= 0)
				continue;
			bool arr = py[i].kind == SPK_ARRAY ||
				   (py[i].kind == SPK_UNKNOWN && used_as_array(p->m, p->k->def->kids[3], py[i].name, 0));
			if (!arr)
				continue;
			int best = -1;
			size_t best_len = 0;
			for (size_t j = 0; j < nrs; j++) {
				if (b->py_of_rs[j] >= 0 || rs[j].kind != SPK_ARRAY)
					continue;
				char a[64], c[64];
				lower_norm(py[i].name, a, sizeof(a));
				lower_norm(rs[j].name, c, sizeof(c));
				size_t l = 0;
				while (a[l] && a[l] == c[l])
					l++;
				if (pass == 1 && best < 0) {
					best = (int)j;
					break;
				}
				if (pass == 0 && l >= 2 && l > best_len) {
					best = (int)j;
					best_len = l;
				}
			}
			if (best >= 0) {
				b->rs_of_py[i] = best;
				b->py_of_rs[best] = (int)i;
			}
		}
	/* kinds and types from the Rust */
	for (size_t i = 0; i < npy; i++) {
		int j = b->rs_of_py[i];
		if (py[i].kind == SPK_CONST && py[i].dt == SDT_NONE)
			py[i].dt = j >= 0 && rs[j].kind != SPK_ARRAY &&
					   (rs[j].dt == SDT_F32 || rs[j].dt == SDT_BOOL)
				   ? rs[j].dt
				   : SDT_I32;
		if (j >= 0) {
			if (rs[j].kind == SPK_ARRAY) {
				py[i].kind = SPK_ARRAY;
				py[i].dt = rs[j].dt;
				if (py[i].rank < 0)
					py[i].rank = rs[j].rank;
			} else {
				if (py[i].kind == SPK_UNKNOWN) {
					py[i].kind = SPK_SCALAR;
					py[i].dt = rs[j].dt;
				}
				if (rs[j].kind == SPK_CONST && rs[j].dt == SDT_I32 && py[i].kind == SPK_CONST &&
				    py[i].dt == SDT_BOOL)
					b->rs_bool_int[j] = true;
			}
		} else if (py[i].kind == SPK_UNKNOWN) {
			bool arr = used_as_array(p->m, p->k->def->kids[3], py[i].name, 0);
			py[i].kind = arr ? SPK_ARRAY : SPK_SCALAR;
			py[i].dt = arr ? SDT_E : SDT_I32;
		} else if (py[i].kind == SPK_ARRAY) {
			py[i].dt = SDT_E;
		}
	}
}

/* Rust scalars that carry a shape or stride: the launcher says so, or
 * their names do (`a_shape0`, `x_stride1`). */
static void derive(const struct spair *p, struct sarena *a, struct sparam *rs, size_t nrs)
{
	const struct rfn *fn = p->fn;
	size_t first = nrs - fn->nparams; /* fn params follow the const generics */
	/* generics the launcher computes from the others */
	char *ge[64] = {NULL};
	size_t ng = p->ffi ? sem_ffi_generics(p->ffi, fn, ge, TP_ARRAY_LEN(ge)) : 0;
	for (size_t g = 0, j = 0; g < ng; g++) {
		if (fn->generics[g].is_const && j < first) {
			if (ge[g])
				rs[j].derived_expr = sa_strndup(a, ge[g], strlen(ge[g]));
			j++;
		}
		free(ge[g]);
	}
	struct sffi_arg args[64];
	size_t na = p->ffi ? sem_ffi_args(p->ffi, fn->name, fn->n, args, 64) : 0;
	if (na == fn->nparams) {
		for (size_t k = 0; k < na; k++) {
			if (args[k].kind != SFFI_SHAPE && args[k].kind != SFFI_STRIDE)
				continue;
			for (size_t q = 0; q < na; q++)
				if (args[q].kind == SFFI_ARRAY && args[q].ndesc == args[k].ndesc &&
				    !memcmp(args[q].desc, args[k].desc, args[k].ndesc)) {
					struct sparam *s = &rs[first + k];
					s->derived = args[k].kind == SFFI_SHAPE ? S_SHAPE : S_STRIDE;
					s->derived_of = (int)(first + q);
					s->derived_axis = args[k].axis;
				}
		}
		return;
	}
	for (size_t j = 0; j < nrs; j++) {
		const char *n = rs[j].name;
		const char *u = strrchr(n, '_');
		if (rs[j].kind != SPK_SCALAR || !u)
			continue;
		int kind = 0;
		const char *d = NULL;
		if (!strncmp(u + 1, "shape", 5)) {
			kind = S_SHAPE;
			d = u + 6;
		} else if (!strncmp(u + 1, "stride", 6)) {
			kind = S_STRIDE;
			d = u + 7;
		}
		if (!kind || !isdigit((unsigned char)*d))
			continue;
		size_t base = (size_t)(u - n);
		for (size_t q = 0; q < nrs; q++) {
			if (rs[q].kind != SPK_ARRAY)
				continue;
			size_t l = strlen(rs[q].name);
			bool same = (l == base && !strncmp(rs[q].name, n, base)) ||
				    (l == base + 4 && !strncmp(rs[q].name, n, base) && !strcmp(rs[q].name + base, "_ptr"));
			if (same) {
				rs[j].derived = kind;
				rs[j].derived_of = (int)q;
				rs[j].derived_axis = atoi(d);
			}
		}
	}
}

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
	st->npy = py_params(p, st->arena, &st->py);
	st->nrs = rs_params(p, st->arena, &st->rs);
	derive(p, st->arena, st->rs, st->nrs);
	bind_params(p, st->py, st->npy, st->rs, st->nrs, &st->b);
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
