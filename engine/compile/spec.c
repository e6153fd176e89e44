/* Which specialisations of a kernel's entries to lower, and with what
 * generic arguments, tensor layouts and scalar values: what the launcher
 * would pass for one of the op's test configurations. The analysis
 * (reference/analysis.json, `specializations`) says it when it can; the
 * defaults stand in otherwise and the report says so. */
#include "engine/compile/compile.h"

#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/base/files.h"
#include "engine/base/json.h"

#define DEFAULT_EXTENT 1024 /* a tensor dimension or integer scalar nobody named */

void compile_specs_free(struct compile_spec *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].entry);
		free(v[i].module);
		free(v[i].variant);
		free(v[i].dtype);
		free(v[i].label);
		strv_free(v[i].generics);
		for (size_t k = 0; k < v[i].ntensors; k++)
			free(v[i].tensors[k].name);
		free(v[i].tensors);
		strv_free(v[i].scalars);
		free(v[i].why);
	}
	free(v);
}

static bool is_int_type(const char *t)
{
	return t && (t[0] == 'i' || t[0] == 'u') && strlen(t) <= 5;
}

/* A generic's value from analysis.json: specializations[].generics[NAME] of
 * the entry and dtype, else a literal `NAME = 128` among the variant's
 * constants. NULL when neither says. */
static const cJSON *find_spec(const cJSON *an, const char *entry, const char *dtype)
{
	const cJSON *sp, *list = cJSON_GetObjectItemCaseSensitive(an, "specializations");
	cJSON_ArrayForEach(sp, list)
	{
		const cJSON *e = cJSON_GetObjectItemCaseSensitive(sp, "entry");
		const cJSON *d = cJSON_GetObjectItemCaseSensitive(sp, "dtype");
		if (cJSON_IsString(e) && !strcmp(e->valuestring, entry) &&
		    (!cJSON_IsString(d) || !strcmp(d->valuestring, dtype)))
			return sp;
	}
	return NULL;
}

/* The analysis's constant `name` of the variant whose Rust entry is
 * `entry`, or NULL. */
static const cJSON *find_constant(const cJSON *an, const char *entry, const char *name)
{
	const cJSON *v, *vars = cJSON_GetObjectItemCaseSensitive(an, "kernel_variants");
	cJSON_ArrayForEach(v, vars)
	{
		const cJSON *re = cJSON_GetObjectItemCaseSensitive(v, "rust_entry");
		if (!cJSON_IsString(re) || strcmp(re->valuestring, entry) != 0)
			continue;
		const cJSON *c, *cs = cJSON_GetObjectItemCaseSensitive(v, "constants");
		cJSON_ArrayForEach(c, cs)
		{
			const cJSON *n = cJSON_GetObjectItemCaseSensitive(c, "name");
			if (cJSON_IsString(n) && !strcmp(n->valuestring, name))
				return c;
		}
	}
	return NULL;
}

static char *constant_literal(const cJSON *an, const char *entry, const char *name)
{
	const cJSON *c = find_constant(an, entry, name);
	const cJSON *val = cJSON_GetObjectItemCaseSensitive(c, "value");
	/* the analysis's literal for a host expression, as refir compiles the
	 * reference with it */
	const cJSON *lit = cJSON_GetObjectItemCaseSensitive(c, "literal");
	if (cJSON_IsBool(lit))
		return xstrdup(cJSON_IsTrue(lit) ? "true" : "false");
	if (cJSON_IsNumber(lit))
		val = lit;
	if (cJSON_IsNumber(val))
		return xasprintf("%lld", (long long)val->valuedouble);
	if (!cJSON_IsString(val))
		return NULL;
	/* "TILE = 128" or "128" */
	const char *s = strrchr(val->valuestring, '=');
	s = s ? s + 1 : val->valuestring;
	while (*s == ' ')
		s++;
	char *end;
	long long x = strtoll(s, &end, 10);
	while (*end == ' ')
		end++;
	if (end != s && !*end)
		return xasprintf("%lld", x);
	if (!strcmp(s, "True") || !strcmp(s, "False"))
		return xstrdup(s[0] == 'T' ? "true" : "false");
	return NULL;
}

/* The value the reference was compiled with (reference/refir.json beside
 * the analysis): the variant's kernel under its reference_ir stem,
 * args[NAME] = "const 64" | "const false". Where the analysis has no
 * literal, the Rust is lowered for the specialisation the reference is,
 * whatever refir inferred (a flag is 0 there, not 64). */
static char *reference_const(const cJSON *an, const cJSON *ref, const char *entry, const char *name)
{
	const cJSON *v, *vars = cJSON_GetObjectItemCaseSensitive(an, "kernel_variants");
	const char *stem = NULL;
	cJSON_ArrayForEach(v, vars)
	{
		const cJSON *re = cJSON_GetObjectItemCaseSensitive(v, "rust_entry");
		const cJSON *ir = cJSON_GetObjectItemCaseSensitive(v, "reference_ir");
		if (cJSON_IsString(re) && !strcmp(re->valuestring, entry) && cJSON_IsString(ir))
			stem = ir->valuestring;
	}
	if (!ref || !stem)
		return NULL;
	const char *b = strrchr(stem, '/');
	b = b ? b + 1 : stem;
	size_t bl = str_ends(b, ".mlir") ? strlen(b) - 5 : strlen(b);
	const cJSON *k, *ks = cJSON_GetObjectItemCaseSensitive(ref, "kernels");
	cJSON_ArrayForEach(k, ks)
	{
		const cJSON *nm = cJSON_GetObjectItemCaseSensitive(k, "name");
		if (!cJSON_IsString(nm) || strlen(nm->valuestring) != bl || strncmp(nm->valuestring, b, bl))
			continue;
		const cJSON *a = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(k, "args"), name);
		if (cJSON_IsString(a) && str_starts(a->valuestring, "const "))
			return xstrdup(a->valuestring + 6);
	}
	return NULL;
}

/* A Constant's value: the analysis's literal, else the reference's. The
 * translator writes a Constant whose name cutile's own generics take (`D`)
 * as `D_`; both name it as the source does. */
static char *constant_value(const cJSON *an, const cJSON *ref, const char *entry, const char *name)
{
	char *v = constant_literal(an, entry, name);
	if (!v)
		v = reference_const(an, ref, entry, name);
	size_t n = strlen(name);
	if (!v && n > 1 && name[n - 1] == '_') {
		char *src = xstrndup(name, n - 1);
		v = constant_value(an, ref, entry, src);
		free(src);
	}
	return v;
}

/* A const generic the launcher computes from the others (a tile of
 * `N * N`): the analysis's constant `derived`, "N * N" over the generics'
 * names; NULL for the others. */
static const char *constant_derived(const cJSON *an, const char *entry, const char *name)
{
	const cJSON *d = cJSON_GetObjectItemCaseSensitive(find_constant(an, entry, name), "derived");
	return cJSON_IsString(d) ? d->valuestring : NULL;
}

/* Integer arithmetic over the other generics' chosen values, as Rust
 * reads it (+ - * / % << >>, parentheses); false when it is not that. */
struct derive_eval {
	const char *p;
	const struct compile_spec *c;
	const struct rs_sig *s;
	bool ok;
};

static long long derive_shift(struct derive_eval *d);

static void derive_space(struct derive_eval *d)
{
	while (*d->p == ' ')
		d->p++;
}

static long long derive_atom(struct derive_eval *d)
{
	derive_space(d);
	const char *p = d->p;
	if (*p == '(') {
		d->p++;
		long long v = derive_shift(d);
		derive_space(d);
		d->ok &= *d->p == ')';
		d->p += *d->p == ')';
		return v;
	}
	if (*p == '-') {
		d->p++;
		return -derive_atom(d);
	}
	if (*p >= '0' && *p <= '9') {
		char *end;
		long long v = strtoll(p, &end, 10);
		d->p = end;
		return v;
	}
	size_t n = 0;
	while ((p[n] >= 'a' && p[n] <= 'z') || (p[n] >= 'A' && p[n] <= 'Z') || p[n] == '_' ||
	       (n && p[n] >= '0' && p[n] <= '9'))
		n++;
	d->p += n;
	for (size_t i = 0; n && i < d->s->ngen && i < strv_len(d->c->generics); i++)
		if (strlen(d->s->gen[i].name) == n && !strncmp(d->s->gen[i].name, p, n)) {
			char *end;
			long long v = strtoll(d->c->generics[i], &end, 10);
			d->ok &= end != d->c->generics[i] && !*end;
			return v;
		}
	d->ok = false;
	return 0;
}

static long long derive_mul(struct derive_eval *d)
{
	long long v = derive_atom(d);
	for (;;) {
		derive_space(d);
		char o = *d->p;
		if (o != '*' && o != '/' && o != '%')
			return v;
		d->p++;
		long long r = derive_atom(d);
		if (o == '*')
			d->ok &= !__builtin_mul_overflow(v, r, &v);
		else if (r == 0)
			d->ok = false;
		else
			v = o == '/' ? v / r : v % r;
	}
}

static long long derive_add(struct derive_eval *d)
{
	long long v = derive_mul(d);
	for (;;) {
		derive_space(d);
		char o = *d->p;
		if (o != '+' && o != '-')
			return v;
		d->p++;
		long long r = derive_mul(d);
		d->ok &= o == '+' ? !__builtin_add_overflow(v, r, &v) : !__builtin_sub_overflow(v, r, &v);
	}
}

static long long derive_shift(struct derive_eval *d)
{
	long long v = derive_add(d);
	for (;;) {
		derive_space(d);
		bool l = !strncmp(d->p, "<<", 2), r = !strncmp(d->p, ">>", 2);
		if (!l && !r)
			return v;
		d->p += 2;
		long long s = derive_add(d);
		d->ok &= s >= 0 && s < 32;
		v = !d->ok ? 0 : l ? v << s : v >> s;
	}
}

static const char *variant_of(const cJSON *an, const char *entry)
{
	const cJSON *v, *vars = cJSON_GetObjectItemCaseSensitive(an, "kernel_variants");
	size_t n = (size_t)cJSON_GetArraySize(vars);
	cJSON_ArrayForEach(v, vars)
	{
		const cJSON *re = cJSON_GetObjectItemCaseSensitive(v, "rust_entry");
		const cJSON *vn = cJSON_GetObjectItemCaseSensitive(v, "variant_name");
		if (n > 1 && cJSON_IsString(re) && cJSON_IsString(vn) && !strcmp(re->valuestring, entry))
			return vn->valuestring;
	}
	return "";
}

static void fill_tensor(struct compile_tensor *t, const struct rs_param *p, const cJSON *given)
{
	t->name = xstrdup(p->name);
	t->rank = p->rank > 0 && p->rank <= 8 ? p->rank : 1;
	const cJSON *shape = given ? cJSON_GetObjectItemCaseSensitive(given, "shape") : NULL;
	const cJSON *strides = given ? cJSON_GetObjectItemCaseSensitive(given, "strides") : NULL;
	if (cJSON_GetArraySize(shape) != t->rank)
		shape = NULL;
	if (cJSON_GetArraySize(strides) != t->rank)
		strides = NULL;
	int64_t stride = 1;
	for (int d = t->rank - 1; d >= 0; d--) {
		const cJSON *x = shape ? cJSON_GetArrayItem(shape, d) : NULL;
		t->shape[d] = cJSON_IsNumber(x) && x->valuedouble > 0 ? (int64_t)x->valuedouble : DEFAULT_EXTENT;
		const cJSON *s = strides ? cJSON_GetArrayItem(strides, d) : NULL;
		t->strides[d] = cJSON_IsNumber(s) ? (int64_t)s->valuedouble : stride;
		stride *= t->shape[d];
	}
	/* A shape nobody gave has no divisibility to assume: the lowering gets
	 * strides only, as cuTile Python's compile of the reference assumes
	 * nothing of the extents either (the two IRs are compared). */
	if (!shape)
		t->shape[0] = -1;
}

static char *override_for(char *const *overrides, const char *entry)
{
	const char *all = NULL;
	size_t n = strlen(entry);
	for (size_t i = 0; overrides && overrides[i]; i++) {
		const char *o = overrides[i];
		if (!strncmp(o, entry, n) && o[n] == '=')
			return xstrdup(o + n + 1);
		if (!strchr(o, '='))
			all = o;
	}
	return all ? xstrdup(all) : NULL;
}

static int one_spec(const struct rs_sig *s, const cJSON *an, const cJSON *ref, const char *dtype,
		    bool primary,
		    char *const *overrides, struct compile_spec *c, struct tp_err *err)
{
	memset(c, 0, sizeof(*c));
	c->entry = xstrdup(s->name);
	c->module = xstrdup(s->module);
	c->variant = xstrdup(an ? variant_of(an, s->name) : "");
	c->dtype = xstrdup(dtype);
	c->primary = primary;
	const cJSON *given = an ? find_spec(an, s->name, dtype) : NULL;
	const cJSON *gg = given ? cJSON_GetObjectItemCaseSensitive(given, "generics") : NULL;
	struct sbuf why = SBUF_INIT;
	bool defaulted = false;
	char *ov = override_for(overrides, s->name);
	if (ov) {
		size_t n;
		char **parts = str_split(ov, ',', true, &n);
		if (n != s->ngen) {
			tp_err_set(err, TP_EXIT_USAGE,
				   "--generics %s: %s takes %zu generic argument%s, %zu given", ov, s->name,
				   s->ngen, s->ngen == 1 ? "" : "s", n);
			strv_free(parts);
			free(ov);
			sb_free(&why);
			return -1;
		}
		for (size_t i = 0; i < n; i++)
			c->generics = strv_push(c->generics, str_trim(parts[i]));
		strv_free(parts);
		free(ov);
		sb_adds(&why, "generics from the command line");
	} else {
		for (size_t i = 0; i < s->ngen; i++) {
			const struct rs_generic *g = &s->gen[i];
			const cJSON *v = cJSON_GetObjectItemCaseSensitive(gg, g->name);
			char *lit = NULL;
			if (cJSON_IsString(v))
				c->generics = strv_push(c->generics, v->valuestring);
			else if (cJSON_IsNumber(v))
				c->generics = (lit = xasprintf("%lld", (long long)v->valuedouble),
					       strv_push(c->generics, lit));
			else if (cJSON_IsBool(v))
				c->generics = strv_push(c->generics, cJSON_IsTrue(v) ? "true" : "false");
			else if (g->kind == RSG_TYPE)
				c->generics = strv_push(c->generics, dtype);
			else if (an && constant_derived(an, s->name, g->name))
				c->generics = strv_push(c->generics, "?"); /* once the others are known */
			else if (an && (lit = constant_value(an, ref, s->name, g->name))) {
				/* a bool generic from a Python flag written 0/1 */
				if (!strcmp(g->type, "bool") && (!strcmp(lit, "0") || !strcmp(lit, "1"))) {
					char *b = xstrdup(*lit == '1' ? "true" : "false");
					free(lit);
					lit = b;
				}
				c->generics = strv_push(c->generics, lit);
			}
			else {
				defaulted = true;
				c->generics = strv_push(c->generics, !strcmp(g->type, "bool") ? "false"
									 : is_int_type(g->type) ? "64"
												: "0");
			}
			free(lit);
		}
		for (size_t i = 0; an && i < s->ngen; i++) {
			const char *x = strcmp(c->generics[i], "?") ? NULL : constant_derived(an, s->name, s->gen[i].name);
			if (!x)
				continue;
			struct derive_eval d = {x, c, s, true};
			long long v = derive_shift(&d);
			derive_space(&d);
			free(c->generics[i]);
			c->generics[i] = xasprintf("%lld", d.ok && !*d.p && v > 0 && v <= INT32_MAX ? v : 64LL);
			defaulted |= !(d.ok && !*d.p);
		}
		sb_adds(&why, given ? "the analysis's specialisation" : "");
		if (defaulted)
			sb_printf(&why, "%sdefault const generics (64, false)", given ? "; " : "");
		if (!given && !defaulted)
			sb_adds(&why, "the analysis's constants");
	}
	const cJSON *gt = given ? cJSON_GetObjectItemCaseSensitive(given, "tensors") : NULL;
	const cJSON *gs = given ? cJSON_GetObjectItemCaseSensitive(given, "scalars") : NULL;
	c->tensors = xcalloc(s->npar + 1, sizeof(*c->tensors));
	bool default_layout = false;
	for (size_t i = 0; i < s->npar; i++) {
		const struct rs_param *p = &s->par[i];
		if (p->kind == RSP_TENSOR) {
			const cJSON *t = cJSON_GetObjectItemCaseSensitive(gt, p->name);
			default_layout |= !t;
			fill_tensor(&c->tensors[c->ntensors++], p, t);
		} else if (p->kind == RSP_PTR) {
			/* the launcher's hint of a fresh PyTorch allocation */
			char *kv = xasprintf("%s=16", p->name);
			c->scalars = strv_push(c->scalars, kv);
			free(kv);
		} else if (p->kind == RSP_SCALAR && is_int_type(p->type)) {
			/* a scalar's divisibility only where a launch gives its value */
			const cJSON *v = cJSON_GetObjectItemCaseSensitive(gs, p->name);
			default_layout |= !cJSON_IsNumber(v);
			if (cJSON_IsNumber(v)) {
				char *kv = xasprintf("%s=%lld", p->name, (long long)v->valuedouble);
				c->scalars = strv_push(c->scalars, kv);
				free(kv);
			}
		}
	}
	if (default_layout)
		sb_printf(&why, "%scontiguous tensors and integer scalars with no divisibility assumed",
			  why.len ? "; " : "");
	c->why = sb_detach(&why);
	return 0;
}

/* generated, generated_VARIANT; a dtype other than the first one's goes to
 * supplements/ under the same stem with _DTYPE (reference/supplements/'s
 * convention for dtype evidence). */
static char *label_of(const struct compile_spec *c, bool multi)
{
	struct sbuf sb = SBUF_INIT;
	if (!c->primary)
		sb_adds(&sb, "supplements/");
	sb_adds(&sb, "generated");
	if (multi)
		sb_printf(&sb, "_%s", *c->variant ? c->variant : c->entry);
	if (!c->primary)
		sb_printf(&sb, "_%s", c->dtype);
	return sb_detach(&sb);
}

int compile_specs_for(const struct rs_sig *sigs, size_t nsigs, const char *analysis_path,
		      char *const *dtypes, char *const *overrides, struct compile_spec **out,
		      size_t *n, struct tp_err *err)
{
	*out = NULL;
	*n = 0;
	cJSON *an = NULL, *ref = NULL;
	if (analysis_path && path_is_file(analysis_path)) {
		size_t len;
		char *text = read_text_file(analysis_path, &len, err);
		if (!text)
			return -1;
		an = json_parse_doc(analysis_path, text, len, err);
		free(text);
		if (!an)
			return -1;
		/* refir.json beside it: what the reference was compiled with */
		const char *slash = strrchr(analysis_path, '/');
		char *dir = slash ? xstrndup(analysis_path, (size_t)(slash - analysis_path)) : xstrdup(".");
		char *rp = path_join(dir, "refir.json");
		size_t rlen;
		struct tp_err rerr = {0};
		char *rtext = path_is_file(rp) ? read_text_file(rp, &rlen, &rerr) : NULL;
		ref = rtext ? cJSON_ParseWithLength(rtext, rlen) : NULL;
		free(rtext);
		free(rp);
		free(dir);
	}
	char **dt = NULL;
	const cJSON *launch = an ? cJSON_GetObjectItemCaseSensitive(an, "launch") : NULL;
	char **an_dt = launch ? json_get_strv(launch, "dtypes") : NULL;
	char *const *use = dtypes && dtypes[0] ? dtypes : an_dt && an_dt[0] ? an_dt : NULL;
	for (size_t i = 0; use && use[i]; i++)
		dt = strv_push(dt, use[i]);
	if (!dt)
		dt = strv_push(dt, "f16");
	strv_free(an_dt);
	bool any_type_generic = false;
	for (size_t i = 0; i < nsigs; i++)
		for (size_t g = 0; g < sigs[i].ngen; g++)
			any_type_generic |= sigs[i].gen[g].kind == RSG_TYPE;
	size_t ndt = any_type_generic ? strv_len(dt) : 1;
	struct compile_spec *v = xcalloc(nsigs * ndt + 1, sizeof(*v));
	size_t k = 0;
	int rc = 0;
	for (size_t i = 0; i < nsigs && rc == 0; i++)
		for (size_t d = 0; d < ndt && rc == 0; d++) {
			rc = one_spec(&sigs[i], an, ref, dt[d], d == 0, overrides, &v[k], err);
			if (rc == 0) {
				v[k].label = label_of(&v[k], nsigs > 1);
				k++;
			}
		}
	strv_free(dt);
	cJSON_Delete(an);
	cJSON_Delete(ref);
	if (rc < 0) {
		compile_specs_free(v, k + 1); /* and the one left half made */
		return -1;
	}
	*out = v;
	*n = k;
	return 0;
}
