/* validate_analysis.sh: reference/analysis.json (pipeline.md §4.1). */
#include "engine/check/check_impl.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

struct actx {
	struct ck *k;
	const char *file;
};

#define FAIL(rule, ...) ck_add(a->k, CHECK_FAIL, 0, rule, a->file, 0, __VA_ARGS__)
#define WARN(rule, ...) ck_add(a->k, CHECK_WARN, 0, rule, a->file, 0, __VA_ARGS__)
#define PASS(rule, ...) ck_add(a->k, CHECK_PASS, 0, rule, a->file, 0, __VA_ARGS__)

static const cJSON *get(const cJSON *o, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(o, key);
}

static bool nonempty_str(const cJSON *j)
{
	return cJSON_IsString(j) && j->valuestring && *j->valuestring;
}

/* A non-empty list. */
static bool nonempty_list(const cJSON *j)
{
	return cJSON_IsArray(j) && cJSON_GetArraySize(j) > 0;
}

static void required(struct actx *a, const cJSON *root)
{
	static const struct {
		const char *key;
		int type; /* cJSON_String, cJSON_Array, cJSON_Object, or 0 = list or object */
	} req[] = {
		{"kernel_name", cJSON_String}, {"source", cJSON_String},
		{"launch_path", cJSON_String}, {"pattern", cJSON_String},
		{"ops_used", cJSON_Array},     {"test_perf_configs", 0},
		{"correctness_reference", cJSON_Object}, {"correctness_tolerance", cJSON_Object},
	};
	for (size_t i = 0; i < TP_ARRAY_LEN(req); i++) {
		const cJSON *j = get(root, req[i].key);
		bool ok;
		const char *want;
		if (req[i].type == cJSON_String) {
			ok = nonempty_str(j);
			want = "a non-empty string";
		} else if (req[i].type == cJSON_Array) {
			ok = cJSON_IsArray(j);
			want = "a list";
		} else if (req[i].type == cJSON_Object) {
			ok = cJSON_IsObject(j);
			want = "an object";
		} else {
			ok = cJSON_IsArray(j) || cJSON_IsObject(j);
			want = "an object or a list";
		}
		if (!j || cJSON_IsNull(j))
			FAIL("analysis.required", "missing required field '%s'", req[i].key);
		else if (!ok)
			FAIL("analysis.required", "'%s' must be %s", req[i].key, want);
	}
	if (ck_count(a->k, CHECK_FAIL) == 0)
		PASS("analysis.required", "all required fields present");
}

static bool backend_ok(const cJSON *j)
{
	return cJSON_IsString(j) &&
	       (strcmp(j->valuestring, "cutile") == 0 || strcmp(j->valuestring, "triton") == 0);
}

/* Total number of test_perf shapes; -1 when the shape is wrong. */
static long count_shapes(struct actx *a, const cJSON *cfg)
{
	long total = 0;
	if (cJSON_IsObject(cfg)) {
		for (const cJSON *c = cfg->child; c; c = c->next) {
			const cJSON *shapes = cJSON_IsObject(c) ? get(c, "shapes") : NULL;
			if (!cJSON_IsArray(shapes)) {
				FAIL("analysis.test-perf-configs",
				     "test_perf_configs['%s'] needs a 'shapes' list", c->string);
				return -1;
			}
			total += cJSON_GetArraySize(shapes);
		}
	} else if (cJSON_IsArray(cfg)) {
		int i = 0;
		for (const cJSON *c = cfg->child; c; c = c->next, i++) {
			const cJSON *pl = cJSON_IsObject(c) ? get(c, "param_list") : NULL;
			if (!cJSON_IsArray(pl)) {
				FAIL("analysis.test-perf-configs",
				     "test_perf_configs[%d] needs a 'param_list' list", i);
				return -1;
			}
			total += cJSON_GetArraySize(pl);
		}
	} else {
		return -1;
	}
	return total;
}

static void check_configs(const cJSON *atc, struct actx *a, const char *where, bool *any)
{
	if (!atc || cJSON_IsNull(atc))
		return;
	if (!cJSON_IsArray(atc)) {
		FAIL("analysis.autotune", "%s autotune_configs must be a list of objects", where);
		return;
	}
	int i = 0;
	for (const cJSON *c = atc->child; c; c = c->next, i++) {
		if (!cJSON_IsObject(c)) {
			FAIL("analysis.autotune", "%s autotune_configs[%d] must be an object", where, i);
			continue;
		}
		bool tiled = false;
		for (const cJSON *f = c->child; f; f = f->next)
			tiled |= str_starts(f->string, "BLOCK_") || str_starts(f->string, "TILE_");
		if (!tiled)
			WARN("analysis.autotune-keys",
			     "%s autotune_configs[%d] has no BLOCK_* or TILE_* key", where, i);
	}
	if (cJSON_GetArraySize(atc) > 0)
		*any = true;
}

/* The reference accepts a supplement anywhere under reference/; A's template
 * puts them in reference/supplements/, out of the top-level reference*.mlir
 * that C and other readers glob as the structural set (validators.md). */
static void supplement(struct actx *a, const char *where, const cJSON *f)
{
	const char *p = f->valuestring;
	if (str_starts(p, "reference/supplements/"))
		return;
	if (str_starts(p, "reference/") && !strstr(p, ".."))
		WARN("analysis.supplement",
		     "%s: %s '%s' lies among the structural reference IRs; reference/supplements/ "
		     "keeps it out of every top-level reference*.mlir glob", where, f->string, p);
	else
		FAIL("analysis.supplement", "%s: %s '%s' must live under reference/ (best "
		     "reference/supplements/)", where, f->string, p);
}

static void variants(struct actx *a, const cJSON *root, bool *any_configs)
{
	const cJSON *kv = get(root, "kernel_variants");
	if (!kv || cJSON_IsNull(kv)) {
		WARN("analysis.variants", "no kernel_variants");
		return;
	}
	if (!cJSON_IsArray(kv)) {
		FAIL("analysis.variants", "kernel_variants must be a list of objects");
		return;
	}
	if (cJSON_GetArraySize(kv) == 0)
		WARN("analysis.variants", "kernel_variants is empty");
	int i = 0;
	for (const cJSON *v = kv->child; v; v = v->next, i++) {
		if (!cJSON_IsObject(v)) {
			FAIL("analysis.variants", "kernel_variants[%d] must be an object", i);
			continue;
		}
		const cJSON *name = get(v, "variant_name");
		const char *vn = nonempty_str(name) ? name->valuestring : NULL;
		char *where = vn ? xasprintf("variant '%s'", vn) : xasprintf("kernel_variants[%d]", i);
		if (!vn)
			FAIL("analysis.variant-fields", "%s: missing variant_name", where);
		if (!nonempty_str(get(v, "kernel_function")))
			FAIL("analysis.variant-fields", "%s: missing kernel_function", where);
		if (!get(v, "dispatch_condition"))
			WARN("analysis.dispatch-condition", "%s: no dispatch_condition", where);
		const cJSON *ir = get(v, "reference_ir");
		if (!nonempty_str(ir)) {
			FAIL("analysis.variant-fields", "%s: missing reference_ir", where);
		} else {
			const char *p = ck_out(a->k, ir->valuestring);
			if (!p || !path_is_file(p))
				ck_add(a->k, CHECK_FAIL, CHECK_STEP_REFERENCE_IR, "analysis.reference-ir",
				       p ? p : ir->valuestring, 0, "%s: reference_ir %s does not exist",
				       where, ir->valuestring);
			else
				ck_add(a->k, CHECK_PASS, 0, "analysis.reference-ir", p, 0,
				       "%s: reference_ir exists", where);
		}
		for (const cJSON *f = v->child; f; f = f->next)
			if (strstr(f->string, "supplement") && cJSON_IsString(f))
				supplement(a, where, f);
		const cJSON *rb = get(v, "reference_backend");
		if (!rb)
			WARN("analysis.reference-backend", "%s: no reference_backend", where);
		else if (!backend_ok(rb))
			FAIL("analysis.reference-backend",
			     "%s: reference_backend must be \"cutile\" or \"triton\"", where);
		check_configs(get(v, "autotune_configs"), a, where, any_configs);
		free(where);
	}
}

static bool has_variant(const cJSON *kv, const char *name)
{
	for (const cJSON *v = cJSON_IsArray(kv) ? kv->child : NULL; v; v = v->next) {
		const cJSON *n = cJSON_IsObject(v) ? get(v, "variant_name") : NULL;
		if (cJSON_IsString(n) && strcmp(n->valuestring, name) == 0)
			return true;
	}
	return false;
}

static void selection(struct actx *a, const cJSON *root)
{
	const cJSON *rb = get(root, "reference_backend");
	if (!rb)
		WARN("analysis.reference-backend", "no reference_backend");
	else if (!backend_ok(rb))
		FAIL("analysis.reference-backend",
		     "reference_backend must be \"cutile\" or \"triton\" (not \"%s\")",
		     cJSON_IsString(rb) ? rb->valuestring : "?");
	const cJSON *sel = get(root, "reference_backend_selection");
	const cJSON *kv = get(root, "kernel_variants");
	if (!cJSON_IsObject(sel)) {
		WARN("analysis.backend-selection", "no reference_backend_selection");
		return;
	}
	if (!get(sel, "winner"))
		WARN("analysis.backend-selection", "reference_backend_selection has no winner");
	const cJSON *per = get(sel, "per_variant");
	if (!get(sel, "cutile_geo_mean_ms") && !per)
		WARN("analysis.backend-selection",
		     "reference_backend_selection has neither cutile_geo_mean_ms nor per_variant");
	if (nonempty_list(kv) && cJSON_GetArraySize(kv) > 1) {
		for (const cJSON *v = kv->child; v; v = v->next) {
			const cJSON *n = cJSON_IsObject(v) ? get(v, "variant_name") : NULL;
			if (cJSON_IsString(n) && !(cJSON_IsObject(per) && get(per, n->valuestring)))
				WARN("analysis.backend-selection",
				     "reference_backend_selection.per_variant has no entry for '%s'",
				     n->valuestring);
		}
	}
	const cJSON *c2v = get(root, "config_to_variant");
	if (nonempty_list(kv)) {
		if (!cJSON_IsObject(c2v) || !c2v->child)
			WARN("analysis.config-to-variant", "config_to_variant is missing or empty");
		/* a nameless variant is already an error; do not pile on */
		bool named = true;
		for (const cJSON *v = kv->child; v; v = v->next)
			named &= cJSON_IsObject(v) && nonempty_str(get(v, "variant_name"));
		for (const cJSON *m = named && cJSON_IsObject(c2v) ? c2v->child : NULL; m; m = m->next)
			if (cJSON_IsString(m) && !has_variant(kv, m->valuestring))
				WARN("analysis.config-to-variant",
				     "config_to_variant['%s'] names '%s', which is no variant_name",
				     m->string, m->valuestring);
	}
}

static char *correctness(struct actx *a, const cJSON *root)
{
	struct sbuf tol = SBUF_INIT;
	const cJSON *cr = get(root, "correctness_reference");
	if (cJSON_IsObject(cr)) {
		if (!nonempty_str(get(cr, "function")))
			FAIL("analysis.correctness-reference",
			     "correctness_reference.function is missing or empty");
		if (!get(cr, "source"))
			WARN("analysis.correctness-source", "correctness_reference has no source");
	}
	const cJSON *ct = get(root, "correctness_tolerance");
	if (cJSON_IsObject(ct)) {
		int dtypes = 0;
		for (const cJSON *d = ct->child; d; d = d->next) {
			if (strcmp(d->string, "source") == 0 || strcmp(d->string, "notes") == 0)
				continue;
			dtypes++;
			const cJSON *atol = cJSON_IsObject(d) ? get(d, "atol") : NULL;
			const cJSON *rtol = cJSON_IsObject(d) ? get(d, "rtol") : NULL;
			if (!atol || !rtol || cJSON_IsNull(atol) || cJSON_IsNull(rtol))
				FAIL("analysis.tolerance",
				     "correctness_tolerance['%s'] needs both atol and rtol", d->string);
			else
				sb_printf(&tol, "%s%s(atol=%g,rtol=%g)", tol.len ? " " : "", d->string,
					  cJSON_IsNumber(atol) ? atol->valuedouble : 0.0,
					  cJSON_IsNumber(rtol) ? rtol->valuedouble : 0.0);
		}
		if (dtypes == 0)
			FAIL("analysis.tolerance", "correctness_tolerance has no dtype entry");
		if (!get(ct, "source"))
			WARN("analysis.tolerance-source", "correctness_tolerance has no source");
	}
	return sb_detach(&tol);
}

int check_analysis(const struct check_ctx *ctx, struct check_report *r, struct tp_err *err)
{
	char *out = check_ctx_run_dir(ctx);
	if (!out) {
		tp_err_set(err, TP_EXIT_ENV,
			   "analysis: CUTILE_KERNEL_OUT_ROOT and a kernel name (or --run DIR) are required");
		return -1;
	}
	free(out);
	struct ck k;
	ck_begin(&k, ctx, r, "analysis", ctx->kernel ? ctx->kernel : "");
	struct actx actx = {&k, ck_out(&k, "reference/analysis.json")}, *a = &actx;
	const char *why = NULL;
	cJSON *root = ck_analysis(&k, &why);
	const struct ck_file *f = ck_load(&k, a->file);
	if (!root) {
		ck_add(&k, CHECK_FAIL, 0, "analysis.file", a->file, 0, "analysis.json: %s",
		       f->exists && f->len == 0 ? "empty" : why);
		ck_note(&k, "errors: %zu, warnings: 0", ck_count(&k, CHECK_FAIL));
		return ck_end(&k, "FAIL: analysis.json validation failed. Re-run Agent A.");
	}
	ck_add(&k, CHECK_PASS, 0, "analysis.file", a->file, 0, "valid JSON object");
	required(a, root);
	long shapes = -1;
	const cJSON *cfg = get(root, "test_perf_configs");
	if (cJSON_IsObject(cfg) || cJSON_IsArray(cfg)) {
		shapes = count_shapes(a, cfg);
		if (shapes == 0)
			FAIL("analysis.test-perf-configs",
			     "test_perf_configs lists 0 shapes (use the exact test_perf shapes)");
		else if (shapes > 0)
			PASS("analysis.test-perf-configs", "%ld test_perf shape(s)", shapes);
	}
	bool any_configs = false;
	variants(a, root, &any_configs);
	selection(a, root);
	char *tol = correctness(a, root);

	const cJSON *lp = get(root, "launch_path");
	const cJSON *ab = get(root, "autotune_backends");
	/* the reference crashes on a null here; say what it must be instead */
	if (ab && !cJSON_IsArray(ab))
		FAIL("analysis.autotune-backends",
		     "autotune_backends is %s; it must be a list of backend names (e.g. "
		     "[\"cutile\", \"triton\"]) or be left out",
		     cJSON_IsNull(ab) ? "null" : "not a list");
	bool autotune = (cJSON_IsString(lp) && strcmp(lp->valuestring, "autotune") == 0) ||
			nonempty_list(ab);
	check_configs(get(root, "autotune_configs"), a, "top-level", &any_configs);
	if (autotune) {
		if (!ab)
			WARN("analysis.autotune-backends", "autotune mode but no autotune_backends");
		if (!get(root, "autotune_key"))
			WARN("analysis.autotune-key", "autotune mode but no autotune_key");
		if (!any_configs)
			FAIL("analysis.autotune",
			     "autotune mode needs a non-empty autotune_configs list (top-level or per "
			     "variant)");
	}

	const cJSON *kn = get(root, "kernel_name");
	const cJSON *kv = get(root, "kernel_variants");
	struct sbuf names = SBUF_INIT;
	for (const cJSON *v = cJSON_IsArray(kv) ? kv->child : NULL; v; v = v->next) {
		const cJSON *n = cJSON_IsObject(v) ? get(v, "variant_name") : NULL;
		sb_printf(&names, "%s%s", names.len ? ", " : "",
			  cJSON_IsString(n) ? n->valuestring : "?");
	}
	const cJSON *cr = get(root, "correctness_reference");
	const cJSON *fn = cJSON_IsObject(cr) ? get(cr, "function") : NULL;
	ck_note(&k, "kernel: %s", nonempty_str(kn) ? kn->valuestring : "?");
	ck_note(&k, "shapes: %ld", shapes < 0 ? 0 : shapes);
	ck_note(&k, "variants: %d (%s)", cJSON_IsArray(kv) ? cJSON_GetArraySize(kv) : 0,
		sb_str(&names));
	ck_note(&k, "reference: %s", nonempty_str(fn) ? fn->valuestring : "?");
	ck_note(&k, "tolerance: %s", *tol ? tol : "?");
	ck_note(&k, "autotune: %s", autotune ? "yes" : "no");
	ck_note(&k, "errors: %zu, warnings: %zu", ck_count(&k, CHECK_FAIL),
		ck_count(&k, CHECK_WARN));
	sb_free(&names);
	free(tol);
	bool failed = ck_count(&k, CHECK_FAIL) > 0;
	return ck_end(&k, failed ? "FAIL: analysis.json validation failed. Re-run Agent A."
				 : "PASS: analysis.json has all required fields");
}
