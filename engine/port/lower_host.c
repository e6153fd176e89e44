/* What the host code tells the lowering: the kernel's parameters (arrays,
 * scalars, Constants, float or int from the host's arguments), the launch
 * site and the arguments it passes, the element types of the arrays. */
#include "engine/port/lower.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- parameters ---- */

/* The shape generics of cutile's own operator and method impls
 * (`impl<E, const D: [i32; N]> Div for Tile<E, D>`, `Tensor<E, S>`'s
 * methods, LoadTileLike's X): its compiler looks them up by name while it
 * instantiates one, and panics on a kernel's i32 const generic of the
 * same name (layer_norm_legacy's `D`). Such a Constant is NAME_ in the
 * Rust, the suffix the translator gives any name taken twice. */
static const char *crate_generic_safe(struct lw *lw, const char *name)
{
	static const char *const taken[] = {"D", "S", "X"};
	for (size_t i = 0; i < TP_ARRAY_LEN(taken); i++)
		if (strcmp(name, taken[i]) == 0)
			return ta_printf(lw->a, "%s_", name);
	return ta_strdup(lw->a, name);
}

void lw_make_params(struct lw *lw)
{
	const struct py_node *params = lw->f->def->kids[1];
	struct tkernel *k = lw->k;
	k->params = ta_alloc(lw->a, lw->param_cap * sizeof(*k->params));
	for (size_t i = 0; i < params->nkids; i++) {
		const struct py_node *p = params->kids[i];
		if (p->op != PYP_PLAIN)
			lw_unsupported(lw, p, "*args/**kwargs in a kernel signature");
		struct tparam *tp = &k->params[k->nparams++];
		tp->name = ta_strdup(lw->a, "");
		char *name = py_str(p);
		tp->name = ta_strdup(lw->a, name);
		free(name);
		tp->line = p->line;
		tp->col = p->col;
		tp->rank = -1;
		tp->source_index = (int)i;
		tp->kind = TP_SCALAR;
		tp->dt = DT_I32;
		const struct py_node *ann = p->kids[0];
		int c = ann ? lw->api->const_annotation(lw, ann) : 0;
		bool cfloat = c == 3;
		if (cfloat)
			c = 0;
		/* a const generic keeps its name (but one of cutile's own, NAME_);
		 * a runtime one is snake case */
		tp->rs = c ? (char *)crate_generic_safe(lw, tp->name)
			   : (char *)lw_param_ident(lw, tp->name);
		if (c) {
			tp->kind = TP_CONST;
			tp->dt = c == 2 ? DT_BOOL : DT_I32;
		} else if (cfloat || (ann && py_is_name(ann, "float"))) {
			tp->dt = DT_F32;
			tp->weak = cfloat;
		} else if (ann && py_is_name(ann, "bool")) {
			tp->dt = DT_BOOL;
		} else if (!ann && lw_host_float_arg(lw->m, lw->f, i)) {
			tp->dt = DT_F32;
		}
	}
	/* `X` and `x` would both be `x` now */
	for (size_t i = 0; i < k->nparams; i++)
		for (size_t j = 0; j < i; j++)
			if (strcmp(k->params[i].rs, k->params[j].rs) == 0)
				k->params[i].rs = ta_printf(lw->a, "%s_", k->params[i].rs);
	lw->api->mark_arrays(lw, lw->f->def);
}

static bool names_kernel(const struct pymod *m, const struct pm_func *h, const struct py_node *arg,
			 const char *kernel, int hops);

/* Does some function of the module store (..., kernel, ...) at position
 * `at` into the dict `cache` (`_cache[key] = (cfg, K.replace_hints(...))`)? */
static bool cached_kernel(const struct pymod *m, const struct py_node *n, const struct py_node *cache,
			  size_t at, const char *kernel, int hops, int depth)
{
	if (!n || depth > 64)
		return false;
	if (n->kind == PY_ASSIGN && n->nkids == 2 && n->kids[0]->kind == PY_SUBSCRIPT &&
	    n->kids[0]->kids[0]->kind == PY_NAME && n->kids[0]->kids[0]->n == cache->n &&
	    memcmp(n->kids[0]->kids[0]->s, cache->s, cache->n) == 0) {
		const struct py_node *v = n->kids[1];
		const struct pm_func *f = NULL;
		for (size_t i = 0; i < m->nfuncs && !f; i++)
			if (m->funcs[i].def->line <= n->line && n->line <= py_end_line(&m->py, m->funcs[i].def))
				f = &m->funcs[i];
		if (f && v->kind == PY_TUPLE && at < v->nkids && names_kernel(m, f, v->kids[at], kernel, hops + 1))
			return true;
	}
	for (size_t k = 0; k < n->nkids; k++)
		if (cached_kernel(m, n->kids[k], cache, at, kernel, hops, depth + 1))
			return true;
	return false;
}

/* Is `name` bound to `kernel` by some assignment in n (the branches of an
 * if may each bind it to their own kernel: each of them is launched; a
 * tuple read back from a tuner's cache, `cfg, kernel = _cache[key]`, holds
 * what was stored there)? */
static bool binds_kernel(const struct pymod *m, const struct pm_func *h, const struct py_node *n,
			 const struct py_node *name, const char *kernel, int hops, int depth)
{
	if (!n || depth > 64 || n->kind == PY_DEF || n->kind == PY_LAMBDA || n->kind == PY_CLASS)
		return false;
	if (n->kind == PY_ASSIGN && n->nkids == 2 && n->kids[0]->kind == PY_NAME &&
	    n->kids[0]->n == name->n && memcmp(n->kids[0]->s, name->s, name->n) == 0 &&
	    names_kernel(m, h, n->kids[1], kernel, hops + 1))
		return true;
	if (n->kind == PY_ASSIGN && n->nkids == 2 && n->kids[0]->kind == PY_TUPLE &&
	    n->kids[1]->kind == PY_SUBSCRIPT && n->kids[1]->kids[0]->kind == PY_NAME && hops < 8)
		for (size_t i = 0; i < n->kids[0]->nkids; i++) {
			const struct py_node *t = n->kids[0]->kids[i];
			if (t->kind == PY_NAME && t->n == name->n && memcmp(t->s, name->s, name->n) == 0 &&
			    cached_kernel(m, m->py.body, n->kids[1]->kids[0], i, kernel, hops + 1, 0))
				return true;
		}
	for (size_t k = 0; k < n->nkids; k++)
		if (binds_kernel(m, h, n->kids[k], name, kernel, hops, depth + 1))
			return true;
	return false;
}

/* Does some `return` of function f (not of the functions it defines)
 * give `kernel`? */
static bool returns_kernel(const struct pymod *m, const struct pm_func *f, const struct py_node *n,
			   const char *kernel, int hops, int depth)
{
	if (!n || depth > 64 || (depth > 0 && (n->kind == PY_DEF || n->kind == PY_LAMBDA ||
					       n->kind == PY_CLASS)))
		return false;
	if (n->kind == PY_RETURN && names_kernel(m, f, n->kids[0], kernel, hops + 1))
		return true;
	for (size_t k = 0; k < n->nkids; k++)
		if (returns_kernel(m, f, n->kids[k], kernel, hops, depth + 1))
			return true;
	return false;
}

bool lw_is_replace_hints(const struct py_node *call, const struct py_node **kernel)
{
	if (!call || call->kind != PY_CALL)
		return false;
	const struct py_node *c = call->kids[0];
	/* K.replace_hints(...) */
	if (c->kind == PY_ATTR && c->n == 13 && memcmp(c->s, "replace_hints", 13) == 0) {
		*kernel = c->kids[0];
		return true;
	}
	/* a helper that caches K.replace_hints(...): TileGym's
	 * cached_replace_hints(K, **hints) */
	const char *name = c->kind == PY_NAME || c->kind == PY_ATTR ? c->s : NULL;
	size_t n = name ? c->n : 0;
	if (n >= 13 && memcmp(name + n - 13, "replace_hints", 13) == 0 && py_call_arg(call, 0)) {
		*kernel = py_call_arg(call, 0);
		return true;
	}
	return false;
}

/* Does `arg`, in host function h, stand for kernel `kernel`: its name; a
 * local name bound to it (`fwd = _softmax_kernel_tma`, then
 * `ct.launch(..., fwd, ...)`); the kernel with other hints
 * (`K.replace_hints(occupancy=2)`); a call of a module function that
 * returns one of these (rope's `_select_rope_kernel`), through a few such
 * steps? */
static bool names_kernel(const struct pymod *m, const struct pm_func *h, const struct py_node *arg,
			 const char *kernel, int hops)
{
	if (!arg || hops > 8)
		return false;
	if (py_is_dotted(arg, kernel))
		return true;
	const struct py_node *k = NULL;
	if (lw_is_replace_hints(arg, &k))
		return names_kernel(m, h, k, kernel, hops + 1);
	if (arg->kind == PY_CALL && arg->kids[0]->kind == PY_NAME) {
		char *fn = py_str(arg->kids[0]);
		const struct pm_func *f = pymod_func(m, fn);
		free(fn);
		return f && f->role != PM_KERNEL && returns_kernel(m, f, f->def->kids[3], kernel, hops, 0);
	}
	return arg->kind == PY_NAME && binds_kernel(m, h, h->def->kids[3], arg, kernel, hops, 0);
}

bool lw_names_kernel(const struct pymod *m, const struct py_node *arg, const char *kernel)
{
	/* the innermost function holding arg: its bindings are arg's */
	const struct pm_func *h = NULL;
	for (size_t i = 0; arg && i < m->nfuncs; i++) {
		const struct py_node *d = m->funcs[i].def;
		if (d->line <= arg->line && arg->line <= py_end_line(&m->py, d) &&
		    (!h || d->line > h->def->line))
			h = &m->funcs[i];
	}
	return h ? names_kernel(m, h, arg, kernel, 0) : arg && py_is_dotted(arg, kernel);
}

const struct py_node *lw_launch_call(const struct pymod *m, const char *kernel,
				     const struct pm_func **host)
{
	for (size_t i = 0; i < m->nfuncs; i++) {
		const struct pm_func *h = &m->funcs[i];
		if (h->role != PM_HOST)
			continue;
		const struct py_node *stack[512];
		size_t sp = 0;
		stack[sp++] = h->def->kids[3];
		while (sp) {
			const struct py_node *n = stack[--sp];
			if (!n)
				continue;
			if (n->kind == PY_CALL && ((pymod_is(m, n->kids[0], "ct.launch") &&
						    names_kernel(m, h, py_call_arg(n, 2), kernel, 0)) ||
						   (n->kids[0]->kind == PY_SUBSCRIPT &&
						    names_kernel(m, h, n->kids[0]->kids[0], kernel, 0)))) {
				if (host)
					*host = h;
				return n;
			}
			for (size_t c = 0; c < n->nkids && sp < 512; c++)
				stack[sp++] = n->kids[c];
		}
	}
	if (host)
		*host = NULL;
	return NULL;
}

const struct py_node *lw_host_arg(const struct pymod *m, const struct pm_func *k, size_t index,
				  const struct pm_func **host)
{
	const struct py_node *n = lw_launch_call(m, k->name, host);
	if (!n)
		return NULL;
	if (n->kids[0]->kind != PY_SUBSCRIPT) {
		/* ct.launch(stream, grid, K, (args)) */
		const struct py_node *args = py_call_arg(n, 3);
		return args && (args->kind == PY_TUPLE || args->kind == PY_LIST) && index < args->nkids
			       ? args->kids[index]
			       : NULL;
	}
	/* K[grid](args), by position or by the parameter's name */
	if (index >= k->def->kids[1]->nkids)
		return NULL;
	char *pname = py_str(k->def->kids[1]->kids[index]);
	const struct py_node *arg = py_call_kw(n, pname);
	free(pname);
	return arg ? arg : py_call_arg(n, index);
}

/* The host parameter or the last assignment that gives a name its value. */
static const struct py_node *host_param(const struct pm_func *h, const struct py_node *name)
{
	const struct py_node *hp = h->def->kids[1];
	for (size_t q = 0; q < hp->nkids; q++) {
		const struct py_node *p = hp->kids[q];
		if (p->s && p->n == name->n && memcmp(p->s, name->s, p->n) == 0)
			return p;
	}
	return NULL;
}

const struct py_node *lw_host_assignment(const struct py_node *n, const struct py_node *name)
{
	const struct py_node *found = NULL;
	if (!n)
		return NULL;
	if (n->kind == PY_ASSIGN && n->nkids == 2 && n->kids[0]->kind == PY_NAME &&
	    n->kids[0]->n == name->n && memcmp(n->kids[0]->s, name->s, name->n) == 0 &&
	    n->line <= name->line)
		found = n->kids[1];
	if (n->kind == PY_DEF || n->kind == PY_LAMBDA || n->kind == PY_CLASS)
		return NULL;
	for (size_t k = 0; k < n->nkids; k++) {
		const struct py_node *f = lw_host_assignment(n->kids[k], name);
		if (f)
			found = f;
	}
	return found;
}

/* Is the host's launch argument for kernel parameter `index` a float (a
 * float literal, or a host parameter with a float default or annotation)? */
bool lw_host_float_arg(const struct pymod *m, const struct pm_func *k, size_t index)
{
	const struct pm_func *h = NULL;
	const struct py_node *arg = lw_host_arg(m, k, index, &h);
	if (!arg)
		return false;
	double d;
	long long iv;
	if (arg->kind == PY_NUM && !py_int_value(arg, &iv) && py_float_value(arg, &d))
		return true;
	if (arg->kind == PY_CALL && py_is_name(arg->kids[0], "float"))
		return true;
	if (arg->kind == PY_NAME) {
		const struct py_node *p = host_param(h, arg);
		if (p && p->kids[0] && py_is_name(p->kids[0], "float"))
			return true;
		if (p && p->kids[1] && p->kids[1]->kind == PY_NUM && !py_int_value(p->kids[1], &iv))
			return true;
		const struct py_node *v = lw_host_assignment(h->def->kids[3], arg);
		if (v && v->kind == PY_NUM && !py_int_value(v, &iv))
			return true;
		if (v && v->kind == PY_CALL && py_is_name(v->kids[0], "float"))
			return true;
	}
	return false;
}

static enum tdt torch_dtype(const struct pymod *m, const struct py_node *n)
{
	char *c = n ? pymod_canon(m, n) : NULL;
	enum tdt d = DT_NONE;
	if (c && str_starts(c, "torch."))
		d = tdt_from_name(c + strlen("torch."));
	free(c);
	return d;
}

void lw_array_dtypes(struct lw *lw)
{
	for (size_t i = 0; i < lw->k->nparams; i++) {
		struct tparam *p = &lw->k->params[i];
		if (p->kind != TP_ARRAY)
			continue;
		p->dt = lw_host_array_dtype(lw->m, lw->f, (size_t)p->source_index);
		if (p->dt == DT_NONE) {
			p->dt = DT_E;
			p->dt_default = true;
		}
	}
}

enum tdt lw_host_array_dtype(const struct pymod *m, const struct pm_func *k, size_t index)
{
	const struct pm_func *h = NULL;
	const struct py_node *arg = lw_host_arg(m, k, index, &h);
	/* a name's last assignment, or the argument itself (`idx.to(torch.int32)`) */
	const struct py_node *v = arg && arg->kind == PY_NAME ? lw_host_assignment(h->def->kids[3], arg)
							      : arg;
	/* through what changes only the shape (`cnts.reshape(-1)`, `x.contiguous()`) */
	static const char *const same[] = {"reshape", "view", "flatten", "contiguous", "squeeze",
					   "unsqueeze", "permute", "transpose", "clone", "t"};
	for (int hop = 0; hop < 8 && v && v->kind == PY_CALL && v->kids[0]->kind == PY_ATTR; hop++) {
		const struct py_node *callee = v->kids[0];
		bool shape_only = false;
		for (size_t i = 0; i < TP_ARRAY_LEN(same); i++)
			shape_only |= callee->n == strlen(same[i]) && memcmp(callee->s, same[i], callee->n) == 0;
		if (!shape_only)
			break;
		const struct py_node *base = callee->kids[0];
		v = base->kind == PY_NAME ? lw_host_assignment(h->def->kids[3], base) : base;
	}
	if (!v || v->kind != PY_CALL)
		return DT_NONE;
	enum tdt d = torch_dtype(m, py_call_kw(v, "dtype"));
	if (d == DT_NONE && v->kids[0]->kind == PY_ATTR) {
		const struct py_node *callee = v->kids[0];
		if (callee->n == 2 && memcmp(callee->s, "to", 2) == 0)
			d = torch_dtype(m, py_call_arg(v, 0));
		else if (callee->n == 5 && memcmp(callee->s, "float", 5) == 0)
			d = DT_F32;
		else if (callee->n == 4 && memcmp(callee->s, "long", 4) == 0)
			d = DT_I64;
		else if (callee->n == 3 && memcmp(callee->s, "int", 3) == 0)
			d = DT_I32;
	}
	return d == DT_NONE ? DT_E : d;
}

void lw_bind_params(struct lw *lw)
{
	struct tkernel *k = lw->k;
	for (size_t i = 0; i < k->nparams; i++) {
		struct tparam *p = &k->params[i];
		struct tval *v;
		if (p->kind == TP_ARRAY) {
			v = tv_new(lw->a, TV_ARRAY);
			v->dt = p->dt;
		} else if (p->kind == TP_CONST) {
			if (lw->has_fixed[i]) {
				v = p->dt == DT_BOOL ? tv_cbool(lw->a, lw->fixed[i] != 0)
						     : tv_cint(lw->a, lw->fixed[i]);
			} else if (p->dt == DT_BOOL) {
				v = lw_cbool_sym(lw, p->rs, ta_printf(lw->a, "(%s != 0)", p->rs), p->name,
						 false);
				v->cparam = (int)i;
			} else {
				v = tv_csym(lw->a, p->rs);
			}
		} else if (p->dt == DT_F32) {
			v = tv_new(lw->a, TV_FLOAT);
			v->dt = DT_F32;
			v->rs = p->rs;
			v->weak = p->weak;
		} else if (p->dt == DT_BOOL) {
			v = tv_new(lw->a, TV_BOOL);
			v->dt = DT_BOOL;
			v->rs = p->rs;
		} else {
			v = tv_int(lw->a, p->rs);
		}
		v->param = (int)i;
		lw_env_set(lw, &lw->env, p->name, v, 0);
		lw_take_name(lw, p->rs);
	}
}

