/* reference/analysis.json (pipeline.md §4.1) from an op's source and its
 * test file: the kernels and their structural variants with dispatch
 * conditions (from the translation), Constants with the values the host
 * passes, the grid, dtype gates, the ops used, the test_perf configs, the
 * correctness reference and tolerances. What only the toolchain can give
 * (reference IR, measured baselines) is marked deferred. */
#include "engine/port/port_impl.h"
#include "engine/port/analysis_int.h"

#include "engine/base/operator.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

/* ---- the test file ---- */

static const struct py_node *find_def(const struct py_node *block, const char *prefix,
				      const struct py_node **cls)
{
	for (size_t k = 0; k < block->nkids; k++) {
		const struct py_node *s = block->kids[k];
		if (s->kind == PY_CLASS) {
			const struct py_node *d = find_def(s->kids[2], prefix, NULL);
			if (d) {
				if (cls)
					*cls = s;
				return d;
			}
		}
		if (s->kind == PY_DEF && s->n >= strlen(prefix) && memcmp(s->s, prefix, strlen(prefix)) == 0)
			return s;
	}
	return NULL;
}

/* test_perf's parametrisation: one config per parametrize of shapes. */
static cJSON *perf_configs(const struct pymod *m, const struct py_node *perf, cJSON **dtypes)
{
	cJSON *cfg = cJSON_CreateObject();
	*dtypes = NULL;
	const struct py_node *decos = perf ? perf->kids[0] : NULL;
	for (size_t k = 0; decos && k < decos->nkids; k++) {
		const struct py_node *d = decos->kids[k];
		if (d->kind != PY_CALL || !py_is_dotted(d->kids[0], "pytest.mark.parametrize"))
			continue;
		const struct py_node *names = py_call_arg(d, 0);
		char *ns = names && names->kind == PY_STR ? py_str_value(&m->py, names) : NULL;
		if (!ns)
			continue;
		cJSON *values = an_literal(m, py_call_arg(d, 1), 0);
		if (strstr(ns, "backend") || !values) {
			free(ns);
			cJSON_Delete(values);
			continue;
		}
		if (strcmp(ns, "dtype") == 0) {
			cJSON_Delete(*dtypes);
			*dtypes = values;
			free(ns);
			continue;
		}
		/* "M, N" -> "M_N" */
		char *key = xmalloc(strlen(ns) + 1), *w = key;
		for (const char *p = ns; *p; p++)
			if (*p == ',')
				*w++ = '_';
			else if (*p != ' ')
				*w++ = *p;
		*w = '\0';
		cJSON *c = cJSON_CreateObject();
		cJSON_AddItemToObject(c, "shapes", values);
		cJSON_AddItemToObject(cfg, key, c);
		free(key);
		free(ns);
	}
	if (*dtypes)
		for (cJSON *c = cfg->child; c; c = c->next)
			cJSON_AddItemToObject(c, "dtypes", cJSON_Duplicate(*dtypes, true));
	return cfg;
}

/* The function test_op compares against: a module-level (or class) def
 * it calls inside its assertion. */
static const struct py_node *reference_call(const struct pymod *m, const struct py_node *n,
					    const struct py_node *cls, const struct py_node **def)
{
	if (!n)
		return NULL;
	if (n->kind == PY_CALL && n->kids[0]->kind == PY_NAME) {
		char *name = py_str(n->kids[0]);
		const struct pm_func *f = pymod_func(m, name);
		free(name);
		if (f) {
			*def = f->def;
			return n;
		}
	}
	if (n->kind == PY_CALL && n->kids[0]->kind == PY_ATTR && cls &&
	    py_is_name(n->kids[0]->kids[0], "self")) {
		char *name = py_str(n->kids[0]);
		for (size_t k = 0; k < cls->kids[2]->nkids; k++) {
			const struct py_node *s = cls->kids[2]->kids[k];
			if (s->kind == PY_DEF && s->n == strlen(name) && memcmp(s->s, name, s->n) == 0)
				*def = s;
		}
		free(name);
		if (*def)
			return n;
	}
	for (size_t k = 0; k < n->nkids; k++) {
		const struct py_node *r = reference_call(m, n->kids[k], cls, def);
		if (r)
			return r;
	}
	return NULL;
}

static const struct py_node *assertion(const struct py_node *n)
{
	if (!n)
		return NULL;
	if (n->kind == PY_CALL) {
		char *d = py_dotted(n->kids[0]);
		bool hit = d && (str_ends(d, "assert_close") || str_ends(d, "allclose") ||
				 str_ends(d, "assert_allclose"));
		free(d);
		if (hit)
			return n;
	}
	if (n->kind == PY_ASSERT)
		return n;
	for (size_t k = 0; k < n->nkids; k++) {
		const struct py_node *r = assertion(n->kids[k]);
		if (r)
			return r;
	}
	return NULL;
}

static void add_tol(cJSON *tol, const char *dtype, double atol, double rtol)
{
	cJSON *e = cJSON_CreateObject();
	cJSON_AddNumberToObject(e, "atol", atol);
	cJSON_AddNumberToObject(e, "rtol", rtol);
	cJSON_AddItemToObject(tol, dtype, e);
}

/* atol/rtol of a dict(atol=.., rtol=..) or {"atol": .., "rtol": ..}. */
static bool tol_pair(const struct py_node *v, double *atol, double *rtol)
{
	bool a = false, r = false;
	if (v->kind == PY_CALL && py_is_name(v->kids[0], "dict")) {
		a = py_float_value(py_call_kw(v, "atol"), atol);
		r = py_float_value(py_call_kw(v, "rtol"), rtol);
	} else if (v->kind == PY_DICT) {
		for (size_t k = 0; k + 1 < v->nkids; k += 2) {
			const struct py_node *key = v->kids[k];
			if (!key || key->kind != PY_STR)
				continue;
			if (key->n >= 6 && memmem(key->s, key->n, "atol", 4))
				a = py_float_value(v->kids[k + 1], atol);
			if (key->n >= 6 && memmem(key->s, key->n, "rtol", 4))
				r = py_float_value(v->kids[k + 1], rtol);
		}
	}
	return a && r;
}

static cJSON *tolerances(const struct pymod *m, const struct py_node *assert_call,
			 const char *test_rel)
{
	cJSON *tol = cJSON_CreateObject();
	/* a module dict keyed by torch dtypes */
	for (size_t i = 0; i < m->nconsts && !tol->child; i++) {
		const struct py_node *v = m->consts[i].value;
		if (v->kind != PY_DICT)
			continue;
		for (size_t k = 0; k + 1 < v->nkids; k += 2) {
			char *dt = v->kids[k] ? an_dtype_short(m, v->kids[k]) : NULL;
			double a, r;
			if (dt && tol_pair(v->kids[k + 1], &a, &r))
				add_tol(tol, dt, a, r);
			free(dt);
		}
	}
	/* or literal atol=/rtol= on the assertion */
	double a, r;
	if (!tol->child && assert_call && assert_call->kind == PY_CALL &&
	    py_float_value(py_call_kw(assert_call, "atol"), &a) &&
	    py_float_value(py_call_kw(assert_call, "rtol"), &r)) {
		add_tol(tol, "f16", a, r);
		add_tol(tol, "bf16", a, r);
		add_tol(tol, "f32", a, r);
		cJSON_AddStringToObject(tol, "notes", "the same atol/rtol for every dtype (assert_close)");
	}
	if (!tol->child) {
		/* torch.testing.assert_close's own defaults */
		add_tol(tol, "f16", 1e-5, 1e-3);
		add_tol(tol, "bf16", 1e-5, 1.6e-2);
		add_tol(tol, "f32", 1e-5, 1.3e-6);
		cJSON_AddStringToObject(tol, "notes", "torch.testing.assert_close defaults: the test "
						       "gives no tolerance");
	}
	cJSON_AddStringToObject(tol, "source", test_rel);
	return tol;
}

/* ---- the source ---- */

static void add_unique(cJSON *arr, const char *s)
{
	for (cJSON *c = arr->child; c; c = c->next)
		if (strcmp(c->valuestring, s) == 0)
			return;
	cJSON_AddItemToArray(arr, cJSON_CreateString(s));
}

static void ops_used(const struct pymod *m, const struct py_node *n, cJSON *out, int depth)
{
	if (!n || depth > 200)
		return;
	if (n->kind == PY_ATTR || n->kind == PY_NAME) {
		char *c = pymod_canon(m, n);
		if (c && (str_starts(c, "ct.") || str_starts(c, "tl.") || str_starts(c, "triton."))) {
			if (str_starts(c, "ct.PaddingMode.")) {
				char *p = xasprintf("padding_mode=%s", c + strlen("ct.PaddingMode."));
				add_unique(out, p);
				free(p);
			} else if (strcmp(c, "ct.kernel") != 0 && strcmp(c, "ct.Constant") != 0 &&
				   strcmp(c, "triton.jit") != 0 && strcmp(c, "tl.constexpr") != 0 &&
				   !str_starts(c, "ct.float") && !str_starts(c, "ct.int") &&
				   !str_starts(c, "tl.float") && !str_starts(c, "tl.int") &&
				   !str_starts(c, "ct.bfloat") && !str_starts(c, "tl.bfloat")) {
				add_unique(out, c);
			}
			free(c);
			return;
		}
		free(c);
		if (n->kind == PY_NAME && py_is_name(n, "next_power_of_2"))
			add_unique(out, "next_power_of_2");
	}
	if (n->kind == PY_KEYWORD && n->n == 12 && memcmp(n->s, "check_bounds", 12) == 0)
		add_unique(out, "check_bounds");
	for (size_t k = 0; k < n->nkids; k++)
		ops_used(m, n->kids[k], out, depth + 1);
}

static char *text(const struct pymod *m, const struct py_node *n)
{
	return n ? py_node_text(&m->py, n) : xstrdup("");
}

/* An argument of the host's launch as text; a name is followed to its
 * assignment ("tile_m = max(1, 4096 // tile_n)"). */
static char *host_value(const struct pymod *m, const struct pm_func *h, const struct py_node *a)
{
	char *t = text(m, a);
	const struct py_node *v = a && h && a->kind == PY_NAME ? lw_host_assignment(h->def->kids[3], a)
							     : NULL;
	if (!v)
		return t;
	char *vt = text(m, v);
	char *r = xasprintf("%s = %s", t, vt);
	free(t);
	free(vt);
	return r;
}

/* The call of host function h that passes its parameter `name`, in
 * another function of the module: the argument, and the caller. */
static const struct py_node *caller_arg(const struct pymod *m, const struct pm_func *h,
					const struct py_node *name, const struct pm_func **caller)
{
	const struct py_node *hp = h->def->kids[1];
	size_t index = hp->nkids;
	for (size_t q = 0; q < hp->nkids; q++)
		if (hp->kids[q]->s && hp->kids[q]->n == name->n &&
		    memcmp(hp->kids[q]->s, name->s, name->n) == 0)
			index = q;
	if (index == hp->nkids)
		return NULL;
	char *pname = py_str(name);
	const struct py_node *found = NULL;
	for (size_t i = 0; i < m->nfuncs && !found; i++) {
		const struct py_node *stack[512];
		size_t sp = 0;
		if (&m->funcs[i] == h || m->funcs[i].role == PM_KERNEL)
			continue;
		stack[sp++] = m->funcs[i].def->kids[3];
		while (sp && !found) {
			const struct py_node *n = stack[--sp];
			if (!n)
				continue;
			if (n->kind == PY_CALL && py_is_name(n->kids[0], h->name)) {
				found = py_call_param(n, index, pname);
				*caller = &m->funcs[i];
			}
			for (size_t c = 0; c < n->nkids && sp < 512; c++)
				stack[sp++] = n->kids[c];
		}
	}
	free(pname);
	return found;
}

/* A literal the host passes for a Constant whose launch argument is not
 * one: a name followed to its assignment, a host parameter to the value
 * the module's caller passes, and a conditional to its first value (`3 if
 * is_causal else 1`: 3, a specialisation the host does launch). This is
 * the value the reference and the translation are both specialised for
 * where nobody gave one, in place of refir's 64, which may take no branch
 * the kernel has (`if STAGE & 1`). */
static cJSON *host_literal(const struct pymod *m, const struct pm_func *h, const struct py_node *a,
			   int hops)
{
	if (!a || hops > 8)
		return NULL;
	if (a->kind == PY_IFEXP)
		return host_literal(m, h, a->kids[0], hops + 1);
	const struct py_node *v = a->kind == PY_NAME && h ? lw_host_assignment(h->def->kids[3], a) : NULL;
	if (v)
		return host_literal(m, h, v, hops + 1);
	const struct pm_func *caller = NULL;
	v = a->kind == PY_NAME && h ? caller_arg(m, h, a, &caller) : NULL;
	if (v)
		return host_literal(m, caller, v, hops + 1);
	/* an integer, True/False, arithmetic of them, a module constant */
	cJSON *lit = an_literal(m, a, 0);
	if ((cJSON_IsNumber(lit) && lit->valuedouble == (double)(long long)lit->valuedouble) ||
	    cJSON_IsBool(lit))
		return lit;
	cJSON_Delete(lit);
	return NULL;
}

/* The host's value for each Constant of a kernel. */
static cJSON *constants(const struct port_op *op, const struct tkernel *k,
			const struct tentry *e)
{
	cJSON *arr = cJSON_CreateArray();
	for (size_t i = 0; i < k->nparams; i++) {
		const struct tparam *p = &k->params[i];
		if (p->kind != TP_CONST)
			continue;
		const struct pm_func *kf = pymod_func(&op->m, k->name), *h = NULL;
		const struct py_node *a = kf ? lw_host_arg(&op->m, kf, (size_t)p->source_index, &h) : NULL;
		cJSON *c = cJSON_CreateObject();
		cJSON_AddStringToObject(c, "name", p->name);
		char *v = host_value(&op->m, h, a);
		cJSON_AddStringToObject(c, "value", *v ? v : "?");
		free(v);
		cJSON *lit = a && a->kind != PY_NUM && a->kind != PY_CONST ? host_literal(&op->m, h, a, 0) : NULL;
		if (lit)
			cJSON_AddItemToObject(c, "literal", lit);
		bool generic = false;
		for (size_t g = 0; g < e->ngenerics; g++)
			generic |= strcmp(e->generics[g], p->rs) == 0;
		cJSON_AddStringToObject(c, "rust", generic ? "const generic" : "fixed by the variant");
		cJSON_AddItemToArray(arr, c);
	}
	/* a tile dimension computed from the Constants: the entry's own
	 * generic, which the launcher (and tileport compile) computes */
	for (size_t d = 0; d < e->nderived; d++) {
		cJSON *c = cJSON_CreateObject();
		cJSON_AddStringToObject(c, "name", e->derived[d].name);
		cJSON_AddStringToObject(c, "value", e->derived[d].expr);
		cJSON_AddStringToObject(c, "derived", e->derived[d].expr);
		cJSON_AddStringToObject(c, "rust", "const generic the launcher computes");
		cJSON_AddItemToArray(arr, c);
	}
	return arr;
}

static void add_null(cJSON *o, const char *k)
{
	cJSON_AddItemToObject(o, k, cJSON_CreateNull());
}

int port_analysis_json(const struct port_analysis_in *in, char **out, struct tp_err *err)
{
	*out = NULL;
	const char *src_rel = in->cutile_rel ? in->cutile_rel : in->triton_rel;
	if (!src_rel) {
		tp_err_set(err, TP_EXIT_USAGE, "%s: no src/tilegym/ops/cutile/%s.py or ops/triton/%s.py",
			   in->workspace, in->op, in->op);
		return -1;
	}
	struct port_op *op;
	/* per kernel: a refused kernel is listed (untranslated_kernels) and
	 * counted among the variants' names, the others analysed */
	if (port_open_in_partial(in->workspace, src_rel, in->op, &op, err) < 0)
		return -1;
	const struct port_refusal *refused;
	size_t nrefused = port_refused(op, &refused);
	struct pymod test = {0};
	char *test_path = path_join(in->workspace, in->test_rel);
	if (pymod_load(&test, test_path, err) < 0) {
		free(test_path);
		pymod_free(&test);
		port_close(op);
		return -1;
	}
	free(test_path);
	const char *backend = port_op_backend(op);
	cJSON *root = cJSON_CreateObject();
	cJSON_AddStringToObject(root, "kernel_name", in->op);
	cJSON_AddStringToObject(root, "source", src_rel);
	cJSON_AddStringToObject(root, "source_file", src_rel);
	if (in->cutile_rel && in->triton_rel)
		cJSON_AddStringToObject(root, "triton_source", in->triton_rel);
	size_t nentries = 0;
	for (size_t i = 0; i < op->nk; i++)
		nentries += op->k[i]->nentries;
	nentries += nrefused;
	size_t nkernels = op->nk + nrefused;
	bool autotune = false;
	struct port_launch l0;
	struct tp_err lerr = {0};
	bool have_launch = port_launch_of(op, op->k[0], &l0, &lerr) == 0;
	if (have_launch) {
		char *h = text(&op->m, l0.host->def);
		autotune = strstr(h, "autotune") != NULL;
		free(h);
	}
	cJSON_AddStringToObject(root, "launch_path", autotune ? "autotune" : "direct");
	cJSON *tuned = autotune ? an_tuner_configs(&op->m) : NULL;
	if (tuned && tuned->child)
		cJSON_AddItemToObject(root, "autotune_configs", tuned);
	else
		cJSON_Delete(tuned);
	cJSON_AddStringToObject(root, "pattern", nentries > 1 ? "multi_variant" : "single");
	cJSON *used = cJSON_AddArrayToObject(root, "ops_used");
	for (size_t i = 0; i < op->m.nfuncs; i++)
		if (op->m.funcs[i].role != PM_OTHER)
			ops_used(&op->m, op->m.funcs[i].def, used, 0);
	/* tests */
	const struct py_node *cls = NULL;
	const struct py_node *perf = find_def(test.py.body, "test_perf", &cls);
	const struct py_node *opcls = NULL;
	const struct py_node *top = find_def(test.py.body, "test_op", &opcls);
	cJSON *dtypes;
	/* a test without test_perf (TileGym's activations, softmax): the shapes
	 * its correctness test runs are the ones there are to benchmark */
	cJSON *configs = perf_configs(&test, perf ? perf : top, &dtypes);
	bool from_op = !perf && top;
	if (perf && top && !configs->child) {
		/* a test_perf whose sizes are not literals: test_op's are sizes
		 * the operator is tested at */
		cJSON_Delete(configs);
		cJSON_Delete(dtypes);
		configs = perf_configs(&test, top, &dtypes);
		from_op = true;
	}
	cJSON_AddItemToObject(root, "test_perf_configs", configs);
	if (from_op && !perf)
		cJSON_AddStringToObject(root, "test_perf_configs_from",
					"test_op's parametrisation (the test has no test_perf)");
	else if (from_op)
		cJSON_AddStringToObject(root, "test_perf_configs_from",
					"test_op's parametrisation (test_perf's sizes are not literals)");
	cJSON_Delete(dtypes);
	const struct py_node *assert_call = top ? assertion(top->kids[3]) : NULL;
	const struct py_node *refdef = NULL;
	if (assert_call)
		reference_call(&test, assert_call, opcls, &refdef);
	cJSON *cr = cJSON_AddObjectToObject(root, "correctness_reference");
	if (refdef) {
		char *rn = py_str(refdef);
		bool method = opcls && refdef->line > opcls->line && refdef->line <= py_end_line(&test.py, opcls);
		char *cn = method ? py_str(opcls) : NULL;
		char *fn = method ? xasprintf("%s::%s::%s", in->test_rel, cn, rn)
				  : xasprintf("%s::%s", in->test_rel, rn);
		cJSON_AddStringToObject(cr, "function", fn);
		char *rt = text(&test, refdef);
		cJSON_AddStringToObject(cr, "source", rt);
		free(rt);
		free(fn);
		free(cn);
		free(rn);
	} else {
		char *fn = xasprintf("%s::%s", in->test_rel, top ? "test_op" : "?");
		cJSON_AddStringToObject(cr, "function", fn);
		cJSON_AddStringToObject(cr, "source", "the comparison inside test_op");
		free(fn);
	}
	cJSON_AddItemToObject(root, "correctness_tolerance",
			      tolerances(&test, assert_call, in->test_rel));
	if (cls) {
		char *cn = py_str(cls);
		cJSON_AddStringToObject(root, "test_class", cn);
		free(cn);
	}
	/* the reference backend: measured online; offline the source's */
	cJSON_AddStringToObject(root, "reference_backend", backend);
	cJSON *sel = cJSON_AddObjectToObject(root, "reference_backend_selection");
	cJSON_AddStringToObject(sel, "method", in->toolchain ? "CUPTI geomean over test_perf configs"
							     : "deferred: no GPU");
	add_null(sel, "cutile_geo_mean_ms");
	add_null(sel, "triton_tileir_geo_mean_ms");
	cJSON_AddStringToObject(sel, "winner", backend);
	if (nentries > 1) {
		cJSON *pv = cJSON_AddObjectToObject(sel, "per_variant");
		for (size_t i = 0; i < op->nk; i++)
			for (size_t e = 0; e < op->k[i]->nentries; e++) {
				const struct tentry *en = &op->k[i]->entries[e];
				cJSON *v = cJSON_AddObjectToObject(pv, nkernels > 1 ? en->name : en->variant);
				cJSON_AddStringToObject(v, "winner", backend);
			}
	}
	/* variants */
	cJSON *vars = cJSON_AddArrayToObject(root, "kernel_variants");
	cJSON *c2v = cJSON_AddObjectToObject(root, "config_to_variant");
	for (size_t i = 0; i < op->nk; i++) {
		const struct tkernel *k = op->k[i];
		for (size_t e = 0; e < k->nentries; e++) {
			const struct tentry *en = &k->entries[e];
			const char *vn = nentries == 1 ? "default" : nkernels > 1 ? en->name : en->variant;
			cJSON *v = cJSON_CreateObject();
			cJSON_AddStringToObject(v, "variant_name", vn);
			cJSON_AddStringToObject(v, "variant_type", nentries == 1 ? "single" : "structural");
			cJSON_AddStringToObject(v, "kernel_function", k->name);
			cJSON_AddStringToObject(v, "dispatch_condition", en->dispatch_py);
			char *ir = nentries == 1 ? xstrdup("reference/reference.mlir")
						 : xasprintf("reference/reference_%s.mlir", vn);
			cJSON_AddStringToObject(v, "reference_ir", ir);
			free(ir);
			add_null(v, "reference_ir_f32_supplement");
			cJSON_AddItemToObject(v, "constants", constants(op, k, en));
			/* arrays whose element type is not the op's (f32 statistics,
			 * int32 indices), so that the reference compiles with them */
			cJSON *adt = cJSON_AddObjectToObject(v, "array_dtypes");
			for (size_t pi = 0; pi < k->nparams; pi++) {
				const struct tparam *p = &k->params[pi];
				const char *dn = p->kind == TP_ARRAY && p->dt != DT_E ? tdt_ffi_str(p->dt) : NULL;
				if (dn)
					cJSON_AddStringToObject(adt, p->name, dn);
			}
			cJSON_AddStringToObject(v, "reference_backend", backend);
			add_null(v, "autotune_configs");
			cJSON_AddStringToObject(v, "rust_entry", en->name);
			cJSON_AddStringToObject(v, "entry_pattern", port_entry_pattern(k, en));
			cJSON_AddItemToArray(vars, v);
		}
	}
	/* which perf config runs which variant needs the host's values; with
	 * one variant every config runs it */
	if (nentries == 1) {
		cJSON *cfg = cJSON_GetObjectItemCaseSensitive(root, "test_perf_configs");
		for (cJSON *c = cfg ? cfg->child : NULL; c; c = c->next)
			cJSON_AddStringToObject(c2v, c->string, "default");
	}
	if (have_launch) {
		cJSON *launch = cJSON_AddObjectToObject(root, "launch");
		char *hn = py_str(l0.host->def);
		cJSON_AddStringToObject(launch, "host_function", hn);
		free(hn);
		char *g = host_value(&op->m, l0.host, l0.grid);
		cJSON_AddStringToObject(launch, "grid", g);
		free(g);
		enum tdt dts[DT__COUNT];
		size_t nd = port_host_dtypes(op, l0.host, dts, TP_ARRAY_LEN(dts));
		cJSON *dg = cJSON_AddArrayToObject(launch, "dtypes");
		for (size_t i = 0; i < nd; i++)
			cJSON_AddItemToArray(dg, cJSON_CreateString(tdt_ffi_str(dts[i])));
	}
	for (size_t i = 0; i < op->nk; i++)
		for (size_t h = 0; h < op->k[i]->nhints; h++) {
			cJSON *hints = cJSON_GetObjectItemCaseSensitive(root, "hints");
			if (!hints)
				hints = cJSON_AddArrayToObject(root, "hints");
			cJSON *j = cJSON_CreateObject();
			cJSON_AddStringToObject(j, "kernel", op->k[i]->name);
			cJSON_AddStringToObject(j, "target", op->k[i]->hints[h].target);
			cJSON_AddNumberToObject(j, op->k[i]->hints[h].key, (double)op->k[i]->hints[h].value);
			cJSON_AddItemToArray(hints, j);
		}
	cJSON *esp = cJSON_AddObjectToObject(root, "entry_symbol_policy");
	cJSON_AddBoolToObject(esp, "reference_entry_contains_kernel_name",
			      strstr(op->k[0]->name, in->op) != NULL);
	cJSON_AddBoolToObject(esp, "alias_used", false);
	cJSON_AddStringToObject(esp, "real_kernel_function", op->k[0]->name);
	cJSON_AddArrayToObject(root, "known_gaps");
	if (nrefused) {
		cJSON *u = cJSON_AddArrayToObject(root, "untranslated_kernels");
		for (size_t i = 0; i < nrefused; i++) {
			cJSON *j = cJSON_CreateObject();
			cJSON_AddStringToObject(j, "kernel_function", refused[i].kernel);
			cJSON_AddStringToObject(j, "where", refused[i].where);
			cJSON_AddStringToObject(j, "construct", refused[i].construct);
			cJSON_AddItemToArray(u, j);
		}
	}
	if (!in->toolchain) {
		cJSON *d = cJSON_AddArrayToObject(root, "deferred");
		cJSON_AddItemToArray(d, cJSON_CreateString("reference-ir"));
		cJSON_AddItemToArray(d, cJSON_CreateString("perf-log"));
	}
	char *s = cJSON_Print(root);
	*out = xasprintf("%s\n", s);
	cJSON_free(s);
	cJSON_Delete(root);
	pymod_free(&test);
	port_close(op);
	return 0;
}

char *port_source_of(const char *workspace, const char *op)
{
	struct ws_operator o;
	if (operator_find(workspace, op, &o, NULL) < 0)
		return NULL;
	char *rel = xstrdup(operator_source(&o));
	operator_free(&o);
	return rel;
}

char *port_test_of(const char *workspace, const char *op)
{
	struct ws_operator o;
	if (operator_find(workspace, op, &o, NULL) < 0)
		return xasprintf("tests/ops/test_%s.py", op);
	char *rel = xstrdup(o.test_rel);
	operator_free(&o);
	return rel;
}

int port_analyze_workspace(const char *workspace, const char *op, bool toolchain, char **out,
			   struct tp_err *err)
{
	/* the operator's files where TileGym keeps them, subfolders included */
	struct ws_operator o;
	if (operator_find(workspace, op, &o, err) < 0)
		return -1;
	struct port_analysis_in in = {
		.op = o.name,
		.workspace = workspace,
		.cutile_rel = o.cutile_rel,
		.triton_rel = o.triton_rel,
		.test_rel = o.test_rel,
		.toolchain = toolchain,
	};
	int rc;
	if (!o.test_found) {
		char *tep = path_join(workspace, o.test_rel);
		tp_err_set(err, TP_EXIT_USAGE, "%s: no test file", tep);
		free(tep);
		rc = -1;
	} else {
		rc = port_analysis_json(&in, out, err);
	}
	operator_free(&o);
	return rc;
}
