/* validate_agent_d.sh: D's correctness report and pytest log, the ffi.rs
 * launcher, the cdylib symbol, the wrapper and the registration. */
#include "engine/check/check_impl.h"

#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

void ck_ffi_abi(struct ck *k, const char *prefix, const char *file, const char *code)
{
	const char *rule = ck_fmt(k, "%s.ffi-tensordesc", prefix);
	if (strstr(code, "*const TensorDesc"))
		ck_add(k, CHECK_PASS, 0, rule, file, 0, "takes *const TensorDesc");
	else
		ck_add(k, CHECK_FAIL, 0, rule, file, 0, "no `*const TensorDesc` parameter");
	rule = ck_fmt(k, "%s.ffi-borrow", prefix);
	if (strstr(code, "borrow_tensor") || strstr(code, "DevicePointer::from_cu_deviceptr"))
		ck_add(k, CHECK_PASS, 0, rule, file, 0, "borrows PyTorch memory");
	else
		ck_add(k, CHECK_FAIL, 0, rule, file, 0,
		       "neither borrow_tensor nor DevicePointer::from_cu_deviceptr (Rule 10)");
	rule = ck_fmt(k, "%s.ffi-forbidden", prefix);
	int line = 0;
	if (tx_grep(code, "from_raw_parts|mem::forget|transmute", 0, &line))
		ck_add(k, CHECK_FAIL, 0, rule, file, line,
		       "uses from_raw_parts, mem::forget or transmute (Rule 10)");
	else
		ck_add(k, CHECK_PASS, 0, rule, file, 0, "no from_raw_parts/mem::forget/transmute");
	rule = ck_fmt(k, "%s.ffi-no-mangle", prefix);
	if (strstr(code, "#[unsafe(no_mangle)]"))
		ck_add(k, CHECK_PASS, 0, rule, file, 0, "#[unsafe(no_mangle)] export");
	else
		ck_add(k, CHECK_FAIL, 0, rule, file, 0, "no #[unsafe(no_mangle)] (Rule 32)");
}

void ck_symbol(struct ck *k, const char *rule, const char *sym)
{
	const unsigned step = CHECK_STEP_CARGO_BUILD;
	const char *so = ck_find_cdylib(k);
	if (!so) {
		const char *kd = ck_kernels_dir(k);
		ck_add(k, CHECK_FAIL, step, rule, kd, 0,
		       "libcutile_kernels.so not found under %s/target/release or ops/cutile_rs",
		       kd ? kd : "$CUTILE_RS_KERNELS_DIR");
		return;
	}
	struct tp_err e = {0};
	char type = 0;
	int rc = elf_dynsym_lookup_file(so, sym, &type, &e);
	if (rc < 0)
		ck_add(k, CHECK_FAIL, step, rule, so, 0, "cannot read symbols: %s", e.msg);
	else if (rc == 0)
		ck_add(k, CHECK_FAIL, step, rule, so, 0, "`nm -D` shows no ` T %s`", sym);
	else if (type != 'T')
		ck_add(k, CHECK_FAIL, step, rule, so, 0, "%s is '%c' in `nm -D`, not an exported "
							 "text symbol (T)", sym, type);
	else
		ck_add(k, CHECK_PASS, 0, rule, so, 0, "exports T %s", sym);
}

static void correctness(struct ck *k)
{
	const unsigned step = CHECK_STEP_PYTEST;
	const char *p = ck_out(k, "reports/correctness.md");
	const struct ck_file *f = ck_load(k, p);
	if (!ck_nonempty(f)) {
		ck_add(k, CHECK_FAIL, 0, "agent-d.correctness", p, 0, "correctness.md %s",
		       f->exists ? "is empty" : "not found");
		return;
	}
	ck_add(k, CHECK_PASS, 0, "agent-d.correctness", p, 0, "present");
	char *first = tx_first_line(f->data);
	int line = 0;
	if (strcmp(first, "VERDICT: ALL_PASS") == 0 || strcmp(first, "VERDICT: FAIL") == 0)
		ck_add(k, CHECK_PASS, 0, "agent-d.verdict-line", p, 1, "%s", first);
	else if (strcmp(first, "VERDICT: BLOCKED") == 0 &&
		 tx_grep(f->data, "^block_class:[[:space:]]*(host|kernel|env)", 0, &line))
		ck_add(k, CHECK_INFO, 0, "agent-d.verdict-line", p, 1,
		       "VERDICT: BLOCKED with a block_class line (accepted; see validators.md)");
	else if (strcmp(first, "VERDICT: DEFERRED") == 0)
		ck_add(k, CHECK_FAIL, step, "agent-d.verdict-line", p, 1,
		       "VERDICT: DEFERRED is only valid while pytest is deferred");
	else
		ck_add(k, CHECK_FAIL, 0, "agent-d.verdict-line", p, 1,
		       "first line must be exactly `VERDICT: ALL_PASS` or `VERDICT: FAIL`");
	free(first);
	if (strstr(f->data, "| Test "))
		ck_add(k, CHECK_PASS, 0, "agent-d.results-table", p, 0, "has the results table");
	else
		ck_add(k, CHECK_FAIL, step, "agent-d.results-table", p, 0,
		       "no `| Test ` results table");
}

static void pytest_log(struct ck *k)
{
	const unsigned step = CHECK_STEP_PYTEST;
	const char *p = ck_out(k, "correctness_cutile_rs.txt");
	const struct ck_file *f = ck_load(k, p);
	if (!ck_nonempty(f)) {
		ck_add(k, CHECK_FAIL, step, "agent-d.pytest-log", p, 0, "pytest log %s",
		       f->exists ? "is empty" : "not found");
		return;
	}
	ck_add(k, CHECK_PASS, 0, "agent-d.pytest-log", p, 0, "present");
	size_t n = tx_count_lines_with(f->data, "PASSED") + tx_count_lines_with(f->data, "FAILED") +
		   tx_count_lines_with(f->data, "SKIPPED");
	if (n)
		ck_add(k, CHECK_PASS, 0, "agent-d.pytest-count", p, 0, "%zu test result line(s)", n);
	else
		ck_add(k, CHECK_FAIL, step, "agent-d.pytest-count", p, 0,
		       "no PASSED/FAILED/SKIPPED lines: no test ran");
	if (tx_grep(f->data, "^platform [a-z]+ -- Python|^rootdir:|^plugins:", 0, NULL))
		ck_add(k, CHECK_PASS, 0, "agent-d.pytest-header", p, 0, "real pytest header");
	else
		ck_add(k, CHECK_FAIL, step, "agent-d.pytest-header", p, 0,
		       "no pytest header (platform/rootdir/plugins): run real pytest without "
		       "--no-header");
	int line = 0;
	if (tx_grep(f->data, "FAILED - max_diff=.*> 1e-2$|if diff > 1e-2", 0, &line))
		ck_add(k, CHECK_FAIL, 0, "agent-d.fake-runner", p, line,
		       "looks like a hand-written runner, not pytest");
	else
		ck_add(k, CHECK_PASS, 0, "agent-d.fake-runner", p, 0, "no fake-runner markers");
}

static void ffi(struct ck *k, cJSON *analysis)
{
	const char *p = ck_ffi(k, "agent-d.ffi", "agent-d.ffi-copy");
	if (!p)
		return;
	const struct ck_file *f = ck_load(k, p);
	char *code = rs_blank(f->data, f->len, false);
	ck_ffi_abi(k, "agent-d", p, code);
	int line = 0;
	if (tx_search(code, "Device::new\\([[:space:]]*device_id", 0, &line) ||
	    tx_search(code, "setup_device_stream![[:space:]]*[(]", 0, &line))
		ck_add(k, CHECK_PASS, 0, "agent-d.ffi-device", p, line,
		       "builds the device from device_id");
	else
		ck_add(k, CHECK_FAIL, 0, "agent-d.ffi-device", p, 0,
		       "the device must come from device_id: Device::new(device_id...) or "
		       "setup_device_stream! (Rule 32)");
	char *dump = analysis ? cJSON_PrintUnformatted(analysis) : NULL;
	if (dump && (strstr(dump, "num_cta_in_cga") || strstr(dump, "num_ctas"))) {
		if (strstr(code, "num_cta_in_cga"))
			ck_add(k, CHECK_PASS, 0, "agent-d.cta", p, 0, "forwards num_cta_in_cga");
		else
			ck_add(k, CHECK_FAIL, 0, "agent-d.cta", p, 0,
			       "analysis.json has num_cta_in_cga/num_ctas but ffi.rs never sets "
			       "num_cta_in_cga (CompileOptions parity)");
	}
	cJSON_free(dump);
	free(code);
}

static bool nonempty_list(const cJSON *o, const char *key)
{
	const cJSON *j = o ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
	return cJSON_IsArray(j) && cJSON_GetArraySize(j) > 0;
}

static void wrapper(struct ck *k, cJSON *analysis)
{
	const char *p = ck_wrapper_by_kernel(k);
	const struct ck_file *f = ck_load(k, p);
	if (!f->data) {
		ck_add(k, CHECK_FAIL, 0, "agent-d.wrapper", p ? p : k->ctx->tilegym, 0,
		       "no wrapper ops/cutile_rs/%s.py (or one with register_impl(...%s...))%s",
		       k->kernel, k->kernel, k->ctx->tilegym ? "" : "; TILEGYM_PATH is unset");
		return;
	}
	ck_add(k, CHECK_PASS, 0, "agent-d.wrapper", p, 0, "wrapper found");
	const char *t = f->data;
	if (strstr(t, "_FFI_CDEF") || strstr(t, "bind_kernel_function_cffi"))
		ck_add(k, CHECK_PASS, 0, "agent-d.wrapper-bind", p, 0, "binds through cffi");
	else
		ck_add(k, CHECK_FAIL, 0, "agent-d.wrapper-bind", p, 0,
		       "no _FFI_CDEF / bind_kernel_function_cffi (Rule 35)");
	if (strstr(t, "make_tensor_desc"))
		ck_add(k, CHECK_PASS, 0, "agent-d.wrapper-desc", p, 0, "packs with make_tensor_desc");
	else
		ck_add(k, CHECK_FAIL, 0, "agent-d.wrapper-desc", p, 0, "no make_tensor_desc (Rule 35)");
	if (strstr(t, "check_rc"))
		ck_add(k, CHECK_PASS, 0, "agent-d.wrapper-rc", p, 0, "checks the return code");
	else
		ck_add(k, CHECK_FAIL, 0, "agent-d.wrapper-rc", p, 0, "no check_rc (Rule 35)");
	int line = 0;
	if (tx_grep(t, "_FFI_ARGTYPES|\\.argtypes =", 0, &line))
		ck_add(k, CHECK_FAIL, 0, "agent-d.wrapper-ctypes", p, line,
		       "ctypes argtypes binding: use the cffi _FFI_CDEF");
	else
		ck_add(k, CHECK_PASS, 0, "agent-d.wrapper-ctypes", p, 0, "no ctypes argtypes");
	if (nonempty_list(analysis, "autotune_configs") ||
	    nonempty_list(analysis, "autotune_backends")) {
		if (strstr(t, "autotune_launch"))
			ck_add(k, CHECK_PASS, 0, "agent-d.autotune", p, 0, "uses autotune_launch");
		else
			ck_add(k, CHECK_FAIL, 0, "agent-d.autotune", p, 0,
			       "the reference autotunes but the wrapper never calls autotune_launch");
	}
}

static void registration(struct ck *k)
{
	if (!k->ctx->tilegym) {
		ck_add(k, CHECK_WARN, 0, "agent-d.registration", NULL, 0,
		       "TILEGYM_PATH unset: registration not checked");
		return;
	}
	static const struct {
		const char *rel, *ere, *what;
	} regs[] = {
		{"src/tilegym/ops/__init__.py", "from \\. import cutile_rs|import.*cutile_rs",
		 "ops/__init__.py imports cutile_rs"},
		{"src/tilegym/backend/selector.py", "\"cutile-rs\"|cutile_rs",
		 "selector.py knows cutile-rs"},
		{NULL, "\"cutile-rs\"|cutile_rs", "the test file runs cutile-rs"},
	};
	for (size_t i = 0; i < TP_ARRAY_LEN(regs); i++) {
		const char *p = ck_tg(k, regs[i].rel ? regs[i].rel : ck_test_rel(k));
		const struct ck_file *f = ck_load(k, p);
		int line = 0;
		if (f->data && tx_grep(f->data, regs[i].ere, 0, &line))
			ck_add(k, CHECK_PASS, 0, "agent-d.registration", p, line, "%s", regs[i].what);
		else
			ck_add(k, CHECK_FAIL, 0, "agent-d.registration", p, 0, "%s: %s",
			       f->exists ? "not wired" : "not found", regs[i].what);
	}
}

int check_agent_d(const struct check_ctx *ctx, struct check_report *r, struct tp_err *err)
{
	char *out = check_ctx_run_dir(ctx);
	if (!out || !ctx->kernel) {
		free(out);
		tp_err_set(err, TP_EXIT_ENV, "agent-d: CUTILE_KERNEL_OUT_ROOT and a kernel name (or "
					     "--run DIR) are required");
		return -1;
	}
	free(out);
	struct ck k;
	ck_begin(&k, ctx, r, "agent-d", ctx->kernel);
	cJSON *analysis = ck_analysis(&k, NULL);
	correctness(&k);
	pytest_log(&k);
	const char *log = ck_out(&k, "reports/agent_logs/agent_d.md");
	if (file_nonempty(log))
		ck_add(&k, CHECK_PASS, 0, "agent-d.log", log, 0, "present");
	else
		ck_add(&k, CHECK_FAIL, 0, "agent-d.log", log, 0, "agent log missing or empty");
	ffi(&k, analysis);
	ck_symbol(&k, "agent-d.symbol", ck_fmt(&k, "cutile_%s", ctx->kernel));
	wrapper(&k, analysis);
	registration(&k);
	size_t fails = ck_count(&k, CHECK_FAIL);
	char *closing = fails ? xasprintf("FAIL: %zu issue(s)", fails) : xstrdup("PASS");
	int rc = ck_end(&k, closing);
	free(closing);
	return rc;
}
