/* The parameters of both sides of a pair and which stand for which: by
 * name, by what the launcher passes, by position among the arrays (the
 * comparator binds the rest); the Rust scalars that carry an array's
 * shape or stride. */
#include "engine/sem/sem_pair.h"
#include "engine/sem/sem_pyx.h"
#include "engine/sem/sem_rsx.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

void sem_pair_params(const struct spair *p, struct sarena *a, struct sparam **py, size_t *npy,
		     struct sparam **rs, size_t *nrs, struct sbind *b)
{
	*npy = py_params(p, a, py);
	*nrs = rs_params(p, a, rs);
	derive(p, a, *rs, *nrs);
	bind_params(p, *py, *npy, *rs, *nrs, b);
}
