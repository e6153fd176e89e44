/* Compiling the reference: the specification from the analysis, the Python
 * child (skill/scripts/refir.py), the text from tileport's own reader, the
 * assembler, refir.json (docs/refir.md). */
#include "engine/refir/refir.h"

#include <cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/base/files.h"
#include "engine/base/json.h"
#include "engine/base/proc.h"
#include "engine/ir/ir.h"

char *refir_op_source(const char *workspace, const char *op)
{
	static const char *const dirs[] = {"", "activation/", "experimental/"};
	for (size_t i = 0; i < TP_ARRAY_LEN(dirs); i++) {
		char *rel = xasprintf("src/tilegym/ops/cutile/%s%s.py", dirs[i], op);
		char *p = path_join(workspace, rel);
		free(rel);
		if (path_is_file(p))
			return p;
		free(p);
	}
	return NULL;
}

/* A file stem refir may write under OUT: no folder, no dot file. */
static bool stem_ok(const char *s)
{
	if (!*s || *s == '.')
		return false;
	for (const char *p = s; *p; p++)
		if (!(*p == '_' || *p == '-' || *p == '.' || (*p >= '0' && *p <= '9') ||
		      (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
			return false;
	return true;
}

/* A Constant's value as the analysis writes it ("128", "TILE = 128",
 * "True"): a number or bool for the specification, or NULL when it is an
 * expression of the host's ("next_power_of_2(n_cols)", "?"). */
static cJSON *const_value(const char *v)
{
	/* "NAME = value": the value; an '=' of a comparison ("x.dim() == 3")
	 * is no assignment */
	const char *eq = strstr(v, " = ");
	char *t = xstrdup(eq ? eq + 3 : v);
	str_trim(t);
	cJSON *out = NULL;
	char *end = NULL;
	long long n = *t ? strtoll(t, &end, 0) : 0;
	if (*t && end && !*end)
		out = cJSON_CreateNumber((double)n);
	else if (!strcmp(t, "True") || !strcmp(t, "False"))
		out = cJSON_CreateBool(!strcmp(t, "True"));
	free(t);
	return out;
}

/* A variant chosen by comparing a Constant with a literal fixes it on the
 * equal side: "BLOCK_N == 1", "not (BLOCK_N != 1)" (layer_norm_legacy's
 * one-row variant) compile with BLOCK_N = 1. */
static void fix_by_comparison(cJSON *args, const char *dc)
{
	bool neg = false;
	char *t = xstrdup(dc);
	char *p = t;
	if (str_starts(p, "not (") && str_ends(p, ")")) {
		neg = true;
		p += 5;
		p[strlen(p) - 1] = '\0';
	}
	char name[64];
	char op[3];
	long long v;
	int used = 0;
	if (sscanf(p, " %63[A-Za-z0-9_] %2[=!] %lld %n", name, op, &v, &used) == 3 && !p[used] &&
	    (!strcmp(op, "==") || !strcmp(op, "!=")) && (!strcmp(op, "==")) != neg)
		cJSON_AddNumberToObject(args, name, (double)v);
	free(t);
}

/* The kernels to compile, from reference/analysis.json: each variant's
 * kernel function under the file name its reference_ir gives, with the
 * Constants the analysis knows the value of. */
static int spec_from_analysis(const char *path, cJSON *spec, struct tp_err *err)
{
	char *text = read_file(path, NULL, err);
	if (!text)
		return -1;
	cJSON *a = cJSON_Parse(text);
	free(text);
	if (!cJSON_IsObject(a)) {
		cJSON_Delete(a);
		tp_err_set(err, TP_EXIT_USAGE, "%s: not a JSON object", path);
		return -1;
	}
	/* the op, whose name every entry symbol should contain (alias repair) */
	const cJSON *kn = cJSON_GetObjectItemCaseSensitive(a, "kernel_name");
	if (cJSON_IsString(kn) && stem_ok(kn->valuestring))
		cJSON_AddStringToObject(spec, "op", kn->valuestring);
	const cJSON *launch = cJSON_GetObjectItemCaseSensitive(a, "launch");
	const cJSON *dts = launch ? cJSON_GetObjectItemCaseSensitive(launch, "dtypes") : NULL;
	if (cJSON_IsArray(dts) && cJSON_IsString(dts->child))
		cJSON_AddStringToObject(spec, "dtype", dts->child->valuestring);
	cJSON *ks = cJSON_GetObjectItemCaseSensitive(spec, "kernels");
	const cJSON *vars = cJSON_GetObjectItemCaseSensitive(a, "kernel_variants");
	int i = 0, rc = 0;
	for (const cJSON *v = cJSON_IsArray(vars) ? vars->child : NULL; v; v = v->next, i++) {
		char *fn = json_get_str(v, "kernel_function");
		char *ir = json_get_str(v, "reference_ir");
		char *vn = json_get_str(v, "variant_name");
		char *stem = NULL;
		if (ir) {
			const char *b = strrchr(ir, '/');
			stem = xstrdup(b ? b + 1 : ir);
			if (str_ends(stem, ".mlir"))
				stem[strlen(stem) - 5] = '\0';
		} else if (vn)
			stem = xasprintf("reference_%s", vn);
		if (!fn || !stem || !stem_ok(stem)) {
			tp_err_set(err, TP_EXIT_USAGE, "%s: kernel_variants[%d]: %s", path, i,
				   !fn ? "no kernel_function" : "no usable reference_ir file name");
			rc = -1;
		} else {
			cJSON *k = cJSON_CreateObject();
			cJSON_AddStringToObject(k, "kernel", fn);
			cJSON_AddStringToObject(k, "name", stem);
			cJSON *args = cJSON_AddObjectToObject(k, "args");
			/* a variant chosen by a flag ("BATCHED", "not BATCHED") fixes it */
			char *dc = json_get_str(v, "dispatch_condition");
			if (dc) {
				const char *id = str_starts(dc, "not ") ? dc + 4 : dc;
				bool ident = *id && !(*id >= '0' && *id <= '9');
				for (const char *q = id; *q; q++)
					ident &= *q == '_' || (*q >= '0' && *q <= '9') || (*q >= 'a' && *q <= 'z') ||
						 (*q >= 'A' && *q <= 'Z');
				if (ident && strcmp(id, "always") != 0)
					cJSON_AddBoolToObject(args, id, id == dc);
				else
					fix_by_comparison(args, dc);
				free(dc);
			}
			const cJSON *cs = cJSON_GetObjectItemCaseSensitive(v, "constants");
			for (const cJSON *c = cJSON_IsArray(cs) ? cs->child : NULL; c; c = c->next) {
				char *name = json_get_str(c, "name");
				char *val = json_get_str(c, "value");
				/* the analysis's literal for a host expression
				 * (`stage` passed by a caller as `3 if causal else 1`) */
				const cJSON *lit = cJSON_GetObjectItemCaseSensitive(c, "literal");
				cJSON *num = !name ? NULL
					     : cJSON_IsNumber(lit) || cJSON_IsBool(lit) ? cJSON_Duplicate(lit, false)
					     : val ? const_value(val) : NULL;
				if (num && cJSON_GetObjectItemCaseSensitive(args, name))
					cJSON_Delete(num); /* the variant's own value stands */
				else if (num)
					cJSON_AddItemToObject(args, name, num);
				free(name);
				free(val);
			}
			/* an array of its own element type (a float32 LSE beside f16
			 * data): its rank is the kernel's to show (refir.py) */
			const cJSON *adt = cJSON_GetObjectItemCaseSensitive(v, "array_dtypes");
			for (const cJSON *d = cJSON_IsObject(adt) ? adt->child : NULL; d; d = d->next)
				if (cJSON_IsString(d) && !cJSON_GetObjectItemCaseSensitive(args, d->string)) {
					cJSON *arr = cJSON_AddObjectToObject(args, d->string);
					cJSON_AddStringToObject(arr, "array", d->valuestring);
				}
			cJSON_AddItemToArray(ks, k);
		}
		free(fn);
		free(ir);
		free(vn);
		free(stem);
		if (rc < 0)
			break;
	}
	cJSON_Delete(a);
	return rc;
}

static char *spec_text(const struct refir_opts *o, struct tp_err *err)
{
	cJSON *spec = cJSON_CreateObject();
	cJSON_AddStringToObject(spec, "source", o->source);
	if (o->workspace)
		cJSON_AddStringToObject(spec, "workspace", o->workspace);
	cJSON_AddStringToObject(spec, "out", o->out_dir);
	cJSON_AddStringToObject(spec, "sm", o->sm ? o->sm : REFIR_SM);
	cJSON_AddStringToObject(spec, "bytecode_version",
				o->bytecode_version ? o->bytecode_version : REFIR_BYTECODE_VERSION);
	cJSON_AddArrayToObject(spec, "kernels");
	if (o->analysis && spec_from_analysis(o->analysis, spec, err) < 0) {
		cJSON_Delete(spec);
		return NULL;
	}
	char *s = cJSON_Print(spec);
	char *r = xasprintf("%s\n", s);
	cJSON_free(s);
	cJSON_Delete(spec);
	return r;
}

/* ---- the Python child's lines ---- */

static void take_load(struct refir_result *r, const cJSON *j)
{
	free(r->cuda_tile);
	free(r->bytecode_version);
	free(r->sm);
	r->cuda_tile = json_get_str(j, "cuda_tile");
	r->bytecode_version = json_get_str(j, "bytecode_version");
	r->sm = json_get_str(j, "sm");
	strv_free(r->stubbed);
	r->stubbed = json_get_strv(j, "stubbed");
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(j, "seconds");
	r->load_seconds = cJSON_IsNumber(s) ? s->valuedouble : 0;
	if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "ok"))) {
		char *e = json_get_str(j, "error");
		const cJSON *w = cJSON_GetObjectItemCaseSensitive(j, "where");
		const cJSON *line = w ? cJSON_GetObjectItemCaseSensitive(w, "line") : NULL;
		r->load_error = cJSON_IsNumber(line)
					? xasprintf("%s:%d: %s", r->source, line->valueint, e ? e : "?")
					: xasprintf("%s: %s", r->source, e ? e : "?");
		free(e);
	}
}

static void take_kernel(struct refir_result *r, const cJSON *j)
{
	r->k = xrealloc(r->k, (r->n + 1) * sizeof(*r->k));
	struct refir_kernel *k = &r->k[r->n++];
	memset(k, 0, sizeof(*k));
	k->kernel = json_get_str(j, "kernel");
	k->name = json_get_str(j, "name");
	k->ok = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "ok"));
	k->symbol = json_get_str(j, "symbol");
	k->bytecode = json_get_str(j, "bytecode");
	const cJSON *al = cJSON_GetObjectItemCaseSensitive(j, "alias");
	if (cJSON_IsObject(al)) {
		k->alias_from = json_get_str(al, "from");
		k->orig_bytecode = json_get_str(al, "orig_bytecode");
	}
	k->error = json_get_str(j, "error");
	k->inferred = json_get_strv(j, "inferred");
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(j, "seconds");
	k->seconds = cJSON_IsNumber(s) ? s->valuedouble : 0;
	const cJSON *w = cJSON_GetObjectItemCaseSensitive(j, "where");
	if (cJSON_IsObject(w)) {
		char *f = json_get_str(w, "file");
		const cJSON *line = cJSON_GetObjectItemCaseSensitive(w, "line");
		if (f && cJSON_IsNumber(line))
			k->where = xasprintf("%s:%d", f, line->valueint);
		free(f);
	}
	const cJSON *args = cJSON_GetObjectItemCaseSensitive(j, "args");
	if (cJSON_IsObject(args)) {
		struct sbuf sb = SBUF_INIT;
		for (const cJSON *a = args->child; a; a = a->next)
			if (cJSON_IsString(a))
				sb_printf(&sb, "%s: %s\n", a->string, a->valuestring);
		k->args = sb_detach(&sb);
	}
	if (k->name && !stem_ok(k->name)) {
		k->ok = false;
		free(k->error);
		k->error = xasprintf("refir.py named the output '%s'", k->name);
	}
}

static int parse_lines(struct refir_result *r, const char *out)
{
	char **lines = str_split(out, '\n', false, NULL);
	int seen = 0;
	for (size_t i = 0; lines && lines[i]; i++) {
		cJSON *j = cJSON_Parse(lines[i]);
		char *ev = j ? json_get_str(j, "event") : NULL;
		if (ev && !strcmp(ev, "load")) {
			take_load(r, j);
			seen++;
		} else if (ev && !strcmp(ev, "kernel")) {
			take_kernel(r, j);
			seen++;
		}
		free(ev);
		cJSON_Delete(j);
	}
	strv_free(lines);
	return seen;
}

/* ---- after cuTile: the text, the assembler ---- */

/* text with every `@SYMBOL` of the entry named `sym` written `@ENTRY`. */
static char *entry_normalised(const char *text, const char *sym)
{
	struct sbuf sb = SBUF_INIT;
	size_t n = strlen(sym);
	for (const char *p = text; *p;) {
		if (*p == '@' && !strncmp(p + 1, sym, n) &&
		    !(p[1 + n] == '_' || (p[1 + n] >= '0' && p[1 + n] <= '9') ||
		      (p[1 + n] >= 'a' && p[1 + n] <= 'z') || (p[1 + n] >= 'A' && p[1 + n] <= 'Z'))) {
			sb_adds(&sb, "@ENTRY");
			p += 1 + n;
		} else {
			sb_addc(&sb, *p++);
		}
	}
	return sb_detach(&sb);
}

/* The alias repair's proof (pipeline.md §6, step 5): the original module
 * and the renamed one differ in the entry symbol only. The original's text
 * is kept as [NAME.]orig_mangled_entry.mlir.bak; its bytecode goes. */
static int alias_proof(const struct refir_opts *o, struct refir_kernel *k, const char *text)
{
	struct tp_err err = {0};
	struct ir_module *m = k->orig_bytecode ? ir_module_load(k->orig_bytecode, &err) : NULL;
	if (!m) {
		k->ok = false;
		k->error = xasprintf("alias repair: the original module does not read: %s",
				     err.msg[0] ? err.msg : "no bytecode");
		return -1;
	}
	char *orig = ir_module_to_string(m, 0);
	ir_module_free(m);
	char *a = entry_normalised(orig, k->alias_from), *b = entry_normalised(text, k->symbol);
	int rc = 0;
	if (strcmp(a, b) != 0) {
		k->ok = false;
		k->error = xasprintf("alias repair: renaming %s to %s changed more than the entry symbol",
				     k->alias_from, k->symbol);
		rc = -1;
	} else {
		char *rel = strcmp(k->name, "reference") ? xasprintf("%s.orig_mangled_entry.mlir.bak", k->name)
							  : xstrdup("orig_mangled_entry.mlir.bak");
		k->orig_mlir = path_join(o->out_dir, rel);
		free(rel);
		if (write_file_atomic(k->orig_mlir, orig, strlen(orig), &err) < 0) {
			k->ok = false;
			k->error = xstrdup(err.msg);
			rc = -1;
		}
	}
	unlink(k->orig_bytecode);
	free(a);
	free(b);
	free(orig);
	return rc;
}

/* The bytecode through tileport's own reader into NAME.mlir: a module the
 * reader refuses is a failure of this kernel with the reader's message. */
static void write_text(const struct refir_opts *o, struct refir_kernel *k)
{
	struct tp_err err = {0};
	char *want = xasprintf("%s.tileirbc", k->name);
	char *bc = path_join(o->out_dir, want);
	free(want);
	if (!k->bytecode || strcmp(k->bytecode, bc) != 0) {
		k->ok = false;
		k->error = xasprintf("refir.py wrote %s, not %s", k->bytecode ? k->bytecode : "nothing",
				     bc);
		free(bc);
		return;
	}
	free(bc);
	struct ir_module *m = ir_module_load(k->bytecode, &err);
	if (!m) {
		k->ok = false;
		k->error = xasprintf("tileport's bytecode reader: %s", err.msg);
		return;
	}
	char *text = ir_module_to_string(m, 0);
	ir_module_free(m);
	if (k->alias_from && alias_proof(o, k, text) < 0) {
		free(text);
		return;
	}
	char *rel = xasprintf("%s.mlir", k->name);
	k->mlir = path_join(o->out_dir, rel);
	free(rel);
	if (write_file_atomic(k->mlir, text, strlen(text), &err) < 0) {
		k->ok = false;
		k->error = xstrdup(err.msg);
	}
	free(text);
}

int refir_assemble(const char *tileiras, const char *bytecode, const char *sm,
		   const char *scratch_dir, struct refir_asm *a)
{
	memset(a, 0, sizeof(*a));
	a->sm = xstrdup(sm);
	const char *base = strrchr(bytecode, '/');
	char *rel = xasprintf(".%s.%s.cubin", base ? base + 1 : bytecode, sm);
	char *cubin = path_join(scratch_dir, rel);
	free(rel);
	char *gpu = xasprintf("--gpu-name=%s", sm);
	char *argv[] = {(char *)tileiras, (char *)bytecode, "-o", cubin, gpu, NULL};
	char **env = env_current();
	struct sbuf out = SBUF_INIT, errout = SBUF_INIT;
	struct proc_status st;
	struct tp_err err = {0};
	struct proc_opts po = {.argv = argv, .env = env, .timeout_ms = 300000,
			       .parent_death_signal = 9};
	int64_t t0 = now_ms();
	int rc = proc_run_sync(&po, &out, &errout, &st, &err);
	a->ms = now_ms() - t0;
	a->ok = rc == 0 && st.end == PROC_EXITED && st.code == 0;
	if (!a->ok) {
		char how[64];
		proc_status_str(&st, how, sizeof(how));
		const char *e = errout.len ? sb_str(&errout) : sb_str(&out);
		a->message = rc < 0 ? xstrdup(err.msg) : xasprintf("%s%s%.600s", how, *e ? ": " : "", e);
		char *nl = a->message + strlen(a->message);
		while (nl > a->message && nl[-1] == '\n')
			*--nl = '\0';
	}
	unlink(cubin);
	sb_free(&out);
	sb_free(&errout);
	strv_free(env);
	free(gpu);
	free(cubin);
	return a->ok ? 0 : 1;
}

/* A kernel that did not compile this time leaves no IR of an earlier
 * compile behind under its name: a stale reference would pass for this
 * one. (One the assembler refused keeps its fresh IR.) */
static void drop_stale(const struct refir_opts *o, struct refir_kernel *k)
{
	if (!k->name || !stem_ok(k->name))
		return;
	static const char *const exts[] = {".mlir", ".tileirbc"};
	for (size_t i = 0; i < TP_ARRAY_LEN(exts); i++) {
		char *rel = xasprintf("%s%s", k->name, exts[i]);
		char *p = path_join(o->out_dir, rel);
		unlink(p);
		free(p);
		free(rel);
	}
	free(k->bytecode);
	k->bytecode = NULL;
}

static void assemble(const struct refir_opts *o, struct refir_kernel *k)
{
	size_t n = strv_len(o->assemble);
	k->asm_ = xcalloc(n ? n : 1, sizeof(*k->asm_));
	for (size_t i = 0; i < n; i++)
		refir_assemble(o->tileiras, k->bytecode, o->assemble[i], o->out_dir, &k->asm_[k->nasm++]);
}

/* An absolute path as the user spelled it (no links resolved): the Python
 * child runs in OUT, and refir.json names the files it wrote. */
static char *absolute(const char *p)
{
	if (!p || p[0] == '/')
		return p ? xstrdup(p) : NULL;
	char *cwd = getcwd(NULL, 0);
	char *abs = cwd ? path_join(cwd, p) : xstrdup(p);
	free(cwd);
	return abs;
}

static int compile_abs(const struct refir_opts *o, struct refir_result *r, struct tp_err *err);

int refir_compile(const struct refir_opts *in, struct refir_result *r, struct tp_err *err)
{
	struct refir_opts o = *in;
	char *paths[4] = {absolute(in->source), absolute(in->workspace), absolute(in->out_dir),
			  absolute(in->analysis)};
	o.source = paths[0];
	o.workspace = paths[1];
	o.out_dir = paths[2];
	o.analysis = paths[3];
	int rc = compile_abs(&o, r, err);
	for (size_t i = 0; i < TP_ARRAY_LEN(paths); i++)
		free(paths[i]);
	return rc;
}

static int compile_abs(const struct refir_opts *o, struct refir_result *r, struct tp_err *err)
{
	memset(r, 0, sizeof(*r));
	r->source = xstrdup(o->source);
	r->python = xstrdup(o->python);
	int64_t t0 = now_ms();
	if (mkdir_p(o->out_dir, 0755, err) < 0)
		goto fail;
	char *spec = spec_text(o, err);
	if (!spec)
		goto fail;
	char *spec_path = path_join(o->out_dir, "refir.spec.json");
	int rc = write_file_atomic(spec_path, spec, strlen(spec), err);
	free(spec);
	if (rc < 0) {
		free(spec_path);
		goto fail;
	}
	char *script = refir_script_path();
	char *argv[] = {(char *)o->python, script, spec_path, NULL};
	char **env = env_current();
	/* importing the operator must not leave __pycache__ in the user's tree */
	env_set(&env, "PYTHONDONTWRITEBYTECODE", "1");
	struct sbuf out = SBUF_INIT, errout = SBUF_INIT;
	struct proc_status st;
	struct proc_opts po = {.argv = argv, .env = env, .cwd = o->out_dir,
			       .timeout_ms = o->timeout_ms ? o->timeout_ms : 300000,
			       .parent_death_signal = 9};
	rc = proc_run_sync(&po, &out, &errout, &st, err);
	strv_free(env);
	free(script);
	free(spec_path);
	if (rc == 0) {
		int seen = parse_lines(r, sb_str(&out));
		bool exited = st.end == PROC_EXITED;
		if (!exited || (st.code != 0 && st.code != 1) || !seen) {
			char how[64];
			proc_status_str(&st, how, sizeof(how));
			const char *e = sb_str(&errout);
			tp_err_set(err, exited && (st.code == 2 || st.code == 3) ? st.code : TP_EXIT_ENV,
				   "%s %s: %s%s%.400s", o->python, "refir.py", how, *e ? ": " : "", e);
			rc = -1;
		}
	}
	sb_free(&out);
	sb_free(&errout);
	if (rc < 0)
		goto fail;
	for (size_t i = 0; i < r->n; i++) {
		struct refir_kernel *k = &r->k[i];
		if (k->ok)
			write_text(o, k);
		if (k->ok && o->tileiras && o->assemble) {
			assemble(o, k);
			struct sbuf refused = SBUF_INIT;
			for (size_t j = 0; j < k->nasm; j++)
				if (!k->asm_[j].ok)
					sb_printf(&refused, "%s%s", refused.len ? ", " : "", k->asm_[j].sm);
			if (refused.len) {
				k->ok = false;
				k->error = xasprintf("compiled, but tileiras refused the module for %s",
						     sb_str(&refused));
			}
			sb_free(&refused);
		}
		if (!k->ok)
			r->nfailed++;
		if (!k->ok && !k->mlir)
			drop_stale(o, k);
	}
	r->total_seconds = (double)(now_ms() - t0) / 1000.0;
	char *json = refir_result_json(r);
	char *sum = path_join(o->out_dir, "refir.json");
	rc = write_file_atomic(sum, json, strlen(json), err);
	free(sum);
	free(json);
	if (rc < 0)
		goto fail;
	return r->load_error || r->nfailed ? 1 : 0;
fail:
	refir_result_free(r);
	return -1;
}
