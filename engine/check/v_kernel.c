/* validate_kernel.sh: the final output contract, checks 1-17 (pipeline.md
 * §3); the wrapper and test-file checks 18-19 are in v_wrapper.c. */
#include "engine/check/check_impl.h"

#include <ctype.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

static bool nonempty_file(struct ck *k, const char *rule, const char *rel, unsigned step,
			  enum check_sev sev)
{
	const char *p = ck_out(k, rel);
	if (file_nonempty(p)) {
		ck_add(k, CHECK_PASS, 0, rule, p, 0, "present");
		return true;
	}
	ck_add(k, sev, step, rule, p, 0, "%s %s", rel, path_is_file(p) ? "is empty" : "missing");
	return false;
}

/* reports/agent_logs/agent_X.md, or the legacy reports/agent_X.md. */
static void agent_log(struct ck *k, char x, unsigned step)
{
	const char *log = ck_out(k, ck_fmt(k, "reports/agent_logs/agent_%c.md", x));
	const char *legacy = ck_out(k, ck_fmt(k, "reports/agent_%c.md", x));
	if (file_nonempty(log) || file_nonempty(legacy))
		ck_add(k, CHECK_PASS, 0, "kernel.agent-logs", file_nonempty(log) ? log : legacy, 0,
		       "agent %c log present", toupper((unsigned char)x));
	else
		ck_add(k, CHECK_FAIL, step, "kernel.agent-logs", log, 0,
		       "agent %c log missing (reports/agent_logs/agent_%c.md or reports/agent_%c.md)",
		       toupper((unsigned char)x), x, x);
}

static void ir_files(struct ck *k)
{
	cJSON *a = ck_analysis(k, NULL);
	const cJSON *kv = a ? cJSON_GetObjectItemCaseSensitive(a, "kernel_variants") : NULL;
	if (cJSON_IsArray(kv) && cJSON_GetArraySize(kv) > 1) {
		int i = 0;
		for (const cJSON *v = kv->child; v; v = v->next, i++) {
			const cJSON *ir = cJSON_GetObjectItemCaseSensitive(v, "reference_ir");
			if (!cJSON_IsString(ir)) {
				ck_add(k, CHECK_FAIL, 0, "kernel.ir", ck_out(k, "reference/analysis.json"),
				       0, "kernel_variants[%d] has no reference_ir", i);
				continue;
			}
			nonempty_file(k, "kernel.ir", ir->valuestring, CHECK_STEP_REFERENCE_IR,
				      CHECK_FAIL);
		}
		const char *dir = ck_out(k, "generated");
		size_t n, good = 0;
		char **names = tx_list_dir(dir, "generated_", ".mlir", &n);
		for (size_t i = 0; i < n; i++)
			good += file_nonempty(ck_fmt(k, "%s/%s", dir, names[i]));
		strv_free(names);
		n = good;
		if (n)
			ck_add(k, CHECK_PASS, 0, "kernel.ir", dir, 0, "%zu generated_*.mlir", n);
		else
			ck_add(k, CHECK_FAIL, CHECK_STEP_GENERATED_IR, "kernel.ir", dir, 0,
			       "multi-variant kernel: no non-empty generated/generated_*.mlir");
		return;
	}
	nonempty_file(k, "kernel.ir", "reference/reference.mlir", CHECK_STEP_REFERENCE_IR,
		      CHECK_FAIL);
	nonempty_file(k, "kernel.ir", "generated/generated.mlir", CHECK_STEP_GENERATED_IR,
		      CHECK_FAIL);
}

static void reports(struct ck *k)
{
	static const char *const c_files[] = {"generated/diff_report.md", "reports/agent_c.md",
					      "reports/agent_logs/agent_c.md"};
	bool c_ran = false;
	for (size_t i = 0; i < TP_ARRAY_LEN(c_files); i++)
		c_ran |= file_nonempty(ck_out(k, c_files[i]));
	if (c_ran) {
		nonempty_file(k, "kernel.diff-report", "generated/diff_report.md", 0, CHECK_FAIL);
		agent_log(k, 'c', 0);
	} else {
		ck_add(k, CHECK_INFO, 0, "kernel.diff-report", NULL, 0, "C did not run");
	}
	nonempty_file(k, "kernel.reports", "reports/correctness.md", CHECK_STEP_PYTEST, CHECK_FAIL);
	nonempty_file(k, "kernel.reports", "reports/performance.md", CHECK_STEP_PERF_LOG,
		      CHECK_FAIL);
	agent_log(k, 'a', 0);
	agent_log(k, 'b', 0);
	agent_log(k, 'd', 0);
	agent_log(k, 'e', CHECK_STEP_PERF_LOG);
	size_t n;
	char **inv = tx_list_dir(ck_out(k, "reports"), "perf_investigation_", ".md", &n);
	strv_free(inv);
	bool f_ran = n || path_is_file(ck_out(k, "reports/agent_f.md")) ||
		     path_is_file(ck_out(k, "reports/agent_logs/agent_f.md"));
	if (f_ran)
		agent_log(k, 'f', 0);
}

static void perf_logs(struct ck *k)
{
	static const struct {
		const char *file;
		bool required;
	} logs[] = {
		{"baseline_perf_cutile.txt", true},	    {"perf_cutile_rs.txt", true},
		{"baseline_perf_triton_tileir.txt", false}, {"baseline_perf.txt", false},
		{"perf_cutile_py.txt", false},
	};
	for (size_t i = 0; i < TP_ARRAY_LEN(logs); i++) {
		char *label = xstrndup(logs[i].file, strlen(logs[i].file) - 4);
		ck_nested_perf_log(k, ck_out(k, logs[i].file), label, "kernel.perf-logs",
				   logs[i].required ? CHECK_FAIL : CHECK_WARN);
		free(label);
	}
}

static void kernel_rs(struct ck *k)
{
	const char *p = ck_out(k, "kernel.rs");
	const struct ck_file *f = ck_load(k, p);
	if (!ck_nonempty(f))
		return; /* reported by kernel.files */
	char *code = rs_blank(f->data, f->len, false);
	if (strstr(code, "E: ElementType"))
		ck_add(k, CHECK_PASS, 0, "kernel.element-type", p, 0, "dtype-generic");
	else
		ck_add(k, CHECK_FAIL, 0, "kernel.element-type", p, 0,
		       "no `E: ElementType` generic (Rule 16)");
	regex_t re;
	if (regcomp(&re, "\\*mut[[:space:]]+(f16|f32|bf16)", REG_EXTENDED) != 0)
		tp_die("check: pointer pattern");
	regmatch_t m[2];
	const char *s = code;
	bool bad = false;
	while (regexec(&re, s, 2, m, s == code ? 0 : REG_NOTBOL) == 0) {
		const char *after = s + m[0].rm_eo;
		const char *ty = s + m[1].rm_so;
		size_t off = (size_t)(s + m[0].rm_so - code);
		s = after;
		if (isalnum((unsigned char)*after) || *after == '_')
			continue; /* f32x4 and the like are other types */
		if (*after == ',' || *after == '>')
			continue;
		const char *bol = code + off, *eol = strchr(code + off, '\n');
		while (bol > code && bol[-1] != '\n')
			bol--;
		char *line = xstrndup(bol, eol ? (size_t)(eol - bol) : strlen(bol));
		bool stat = strncmp(ty, "f32", 3) == 0 &&
			    tx_grep(line, "rstd|mean|var|inv_std", 0, NULL);
		free(line);
		if (stat)
			continue;
		ck_add(k, CHECK_FAIL, 0, "kernel.hardcoded-ptr", p, tx_line_at(code, off),
		       "hardcoded `*mut %.*s`: use the generic element type E (Rule 16)",
		       (int)(m[1].rm_eo - m[1].rm_so), ty);
		bad = true;
	}
	regfree(&re);
	if (!bad)
		ck_add(k, CHECK_PASS, 0, "kernel.hardcoded-ptr", p, 0, "no hardcoded f16/f32/bf16 pointers");
	free(code);
}

/* Checks 10-12 on ffi.rs; returns FFI_FN (arena) or NULL. */
static const char *ffi_checks(struct ck *k, const char *p)
{
	const struct ck_file *f = ck_load(k, p);
	if (!ck_nonempty(f))
		return NULL;
	char *code = rs_blank(f->data, f->len, false);
	if (strstr(code, "\"f16\"") || strstr(code, "\"f32\"") || strstr(code, "\"bf16\"") ||
	    strstr(code, "dtype"))
		ck_add(k, CHECK_PASS, 0, "kernel.ffi-dtype", p, 0, "dispatches on dtype");
	else
		ck_add(k, CHECK_FAIL, 0, "kernel.ffi-dtype", p, 0,
		       "no dtype dispatch (\"f16\"/\"f32\"/\"bf16\" or dtype)");
	int line = 0;
	char *fn = rs_extern_c_fn(f->data, f->len, &line);
	if (fn)
		ck_add(k, CHECK_PASS, 0, "kernel.ffi-fn", p, line, "FFI_FN=%s", fn);
	else
		ck_add(k, CHECK_FAIL, 0, "kernel.ffi-fn", p, 0, "no `pub [unsafe] extern \"C\" fn NAME(`");
	ck_ffi_abi(k, "kernel", p, code);
	free(code);
	return fn ? ck_keep(k, fn, free) : NULL;
}

static void crate(struct ck *k)
{
	const char *kd = ck_kernels_dir(k);
	char *base = xstrdup(k->kernel);
	if (str_ends(base, "_kernel"))
		base[strlen(base) - strlen("_kernel")] = '\0';
	const char *lib = ck_keep(k, path_join(kd, "src/lib.rs"), free);
	const struct ck_file *lf = ck_load(k, lib);
	char *esc = tx_ere_escape(base);
	char *re = xasprintf("mod[[:space:]]+%s([^A-Za-z0-9_]|$)|include!\\(.*%s_kernel/(kernel|ffi)\\.rs",
			     esc, esc);
	char *code = lf->data ? rs_blank(lf->data, lf->len, false) : NULL;
	int line = 0;
	if (code && tx_grep(code, re, 0, &line))
		ck_add(k, CHECK_PASS, 0, "kernel.lib-rs", lib, line, "registers %s", base);
	else
		ck_add(k, CHECK_FAIL, 0, "kernel.lib-rs", lib, 0, "%s: no `mod %s` block including "
								  "%s_kernel/{kernel,ffi}.rs",
		       lf->exists ? "not registered" : "not found", base, base);
	free(code);
	free(re);
	free(esc);
	free(base);

	const char *toml = ck_keep(k, path_join(kd, "Cargo.toml"), free);
	const struct ck_file *tf = ck_load(k, toml);
	if (!tf->data) {
		ck_add(k, CHECK_FAIL, 0, "kernel.cargo-toml", toml, 0, "Cargo.toml not found");
		return;
	}
	if (tx_grep(tf->data,
		    "^[[:space:]]*cutile[[:space:]]*=[[:space:]]*(\"=0\\.2\\.0\"|\\{[^}]*version"
		    "[[:space:]]*=[[:space:]]*\"=0\\.2\\.0\")",
		    0, &line))
		ck_add(k, CHECK_PASS, 0, "kernel.cargo-toml", toml, line, "pins cutile = \"=0.2.0\"");
	else
		ck_add(k, CHECK_FAIL, 0, "kernel.cargo-toml", toml, 0,
		       "does not pin cutile = \"=0.2.0\" (Rule 33)");
	/* `path =` only matters in dependency tables: [lib] path is the crate root */
	bool in_deps = false, bad = false;
	size_t nl;
	char **lines = str_split(tf->data, '\n', true, &nl);
	for (size_t i = 0; i < nl && !bad; i++) {
		char *l = str_trim(lines[i]);
		if (l[0] == '[') {
			in_deps = strstr(l, "dependencies") != NULL;
			continue;
		}
		if ((in_deps && tx_grep(l, "(^|[^A-Za-z0-9_-])path[[:space:]]*=", 0, NULL)) ||
		    tx_grep(l, "\\{[^}]*(^|[^A-Za-z0-9_-])path[[:space:]]*=", 0, NULL)) {
			ck_add(k, CHECK_FAIL, 0, "kernel.cargo-toml", toml, (int)i + 1,
			       "path dependency: use crates.io pins only (Rule 33)");
			bad = true;
		}
	}
	strv_free(lines);
}

int check_kernel(const struct check_ctx *ctx, struct check_report *r, struct tp_err *err)
{
	char *out = check_ctx_run_dir(ctx);
	if (!out || !ctx->kernel || !ctx->tilegym) {
		free(out);
		tp_err_set(err, TP_EXIT_ENV,
			   "kernel: TILEGYM_PATH, CUTILE_KERNEL_OUT_ROOT and a kernel name (or --run "
			   "DIR) are required");
		return -1;
	}
	free(out);
	struct ck k;
	ck_begin(&k, ctx, r, "kernel", ctx->kernel);
	if (!path_is_dir(k.out)) {
		ck_add(&k, CHECK_FAIL, 0, "kernel.out-dir", k.out, 0, "run directory not found");
		return ck_end(&k, "Result: 1 fail, 0 warn\nFAIL");
	}
	ck_add(&k, CHECK_PASS, 0, "kernel.out-dir", k.out, 0, "run directory exists");
	nonempty_file(&k, "kernel.files", "kernel.rs", 0, CHECK_FAIL);
	const char *ffi = ck_ffi(&k, "kernel.files", "kernel.ffi-copy");
	nonempty_file(&k, "kernel.files", "reference/analysis.json", 0, CHECK_FAIL);
	ir_files(&k);
	reports(&k);
	perf_logs(&k);
	kernel_rs(&k);
	const char *fn = ffi_checks(&k, ffi);
	if (!fn) {
		fn = ck_fmt(&k, "cutile_%s", k.kernel);
		ck_add(&k, CHECK_INFO, 0, "kernel.ffi-fn", ffi ? ffi : ck_out(&k, "ffi.rs"), 0,
		       "checking %s instead", fn);
	}
	crate(&k);
	ck_symbol(&k, "kernel.symbol", fn);
	const char *util = ck_tg(&k, "src/tilegym/ops/cutile_rs/ffi_util.rs");
	if (path_is_file(util))
		ck_add(&k, CHECK_PASS, 0, "kernel.ffi-util", util, 0, "present");
	else
		ck_add(&k, CHECK_WARN, 0, "kernel.ffi-util", util, 0, "ops/cutile_rs/ffi_util.rs missing");
	const char *pipe = ck_out(&k, ck_fmt(&k, "%s_pipeline.rs", k.kernel));
	if (path_is_file(pipe))
		ck_add(&k, CHECK_PASS, 0, "kernel.pipeline-rs", pipe, 0, "present");
	else
		ck_add(&k, CHECK_WARN, 0, "kernel.pipeline-rs", pipe, 0, "%s_pipeline.rs missing",
		       k.kernel);
	ck_kernel_wrapper(&k, fn);
	size_t fails = ck_count(&k, CHECK_FAIL), warns = ck_count(&k, CHECK_WARN);
	char *closing = xasprintf("Result: %zu fail, %zu warn\n%s", fails, warns,
				  fails ? "FAIL" : "PASS");
	int rc = ck_end(&k, closing);
	free(closing);
	return rc;
}
