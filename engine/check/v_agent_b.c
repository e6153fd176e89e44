/* validate_agent_b.sh: B's device kernel, generated IR, build log and lane
 * guards, plus the semantic-layout gate recomputed from the IR. */
#include "engine/check/check_impl.h"

#include <regex.h>
#include <stdlib.h>
#include <string.h>

static void generated_ir(struct ck *k)
{
	const unsigned step = CHECK_STEP_GENERATED_IR;
	const char *dir = ck_out(k, "generated");
	if (ck_variant_count(k) > 1) {
		size_t n, good = 0;
		char **names = tx_list_dir(dir, "generated_", ".mlir", &n);
		for (size_t i = 0; i < n; i++)
			good += file_nonempty(ck_fmt(k, "%s/%s", dir, names[i]));
		strv_free(names);
		if (good)
			ck_add(k, CHECK_PASS, 0, "agent-b.generated-ir", dir, 0,
			       "%zu generated_*.mlir file(s)", good);
		else
			ck_add(k, CHECK_FAIL, step, "agent-b.generated-ir", dir, 0,
			       "multi-variant kernel: no non-empty generated/generated_*.mlir");
		return;
	}
	const char *p = ck_out(k, "generated/generated.mlir");
	if (file_nonempty(p))
		ck_add(k, CHECK_PASS, 0, "agent-b.generated-ir", p, 0, "generated IR present");
	else
		ck_add(k, CHECK_FAIL, step, "agent-b.generated-ir", p, 0,
		       "generated/generated.mlir missing or empty");
}

static void build_log(struct ck *k)
{
	const unsigned step = CHECK_STEP_CARGO_BUILD;
	const char *p = ck_out(k, "reports/build_log.md");
	const struct ck_file *f = ck_load(k, p);
	if (!ck_nonempty(f)) {
		ck_add(k, CHECK_FAIL, step, "agent-b.build-log", p, 0, "build_log.md %s",
		       f->exists ? "is empty" : "not found");
		return;
	}
	ck_add(k, CHECK_PASS, 0, "agent-b.build-log", p, 0, "present");
	if (tx_grep(f->data, "^##? +Attempt|^Attempt [0-9]+", REG_ICASE, NULL))
		ck_add(k, CHECK_PASS, 0, "agent-b.build-log-attempt", p, 0, "has attempt sections");
	else
		ck_add(k, CHECK_FAIL, step, "agent-b.build-log-attempt", p, 0,
		       "no '## Attempt N - <UTC timestamp>' section (Rule 49)");
	int line = 0;
	/* `**Result:** FAIL` is the documented format: allow the bold markers */
	if (tx_grep(f->data, "Result(\\*\\*)?:(\\*\\*)?[[:space:]]*FAIL|FAIL[[:space:]]*\\(", 0,
		    &line)) {
		if (strstr(f->data, "```rust"))
			ck_add(k, CHECK_PASS, 0, "agent-b.build-log-snippet", p, 0,
			       "failed attempts carry a ```rust snippet");
		else
			ck_add(k, CHECK_FAIL, step, "agent-b.build-log-snippet", p, line,
			       "a failed attempt needs the offending source in a ```rust block");
	}
}

static void lane_guard(struct ck *k, bool host, const char *file, int line, const char *what)
{
	if (host)
		ck_add(k, CHECK_INFO, 0, "agent-b.lane", file, line, "%s (%s)", what,
		       ck_port_before(k) ? "the port the workspace had before this run: run --again"
					 : "D's file; D has already run");
	else
		ck_add(k, CHECK_FAIL, 0, "agent-b.lane", file, line,
		       "%s: B writes the device kernel only", what);
}

static void lane_guards(struct ck *k)
{
	bool host = ck_host_written(k);
	const char *ffi = ck_out(k, "ffi.rs");
	bool clean = true;
	if (path_is_file(ffi)) {
		lane_guard(k, host, ffi, 0, "OUT/ffi.rs exists");
		clean = false;
	}
	const char *ops = ck_tg(k, "src/tilegym/ops/cutile_rs");
	if (!ops) {
		ck_add(k, CHECK_WARN, 0, "agent-b.lane", NULL, 0,
		       "TILEGYM_PATH unset: in-tree lane guards not checked");
		return;
	}
	const char *kn = k->kernel;
	char *bare = xstrdup(kn);
	char *w = bare;
	for (const char *p = kn; *p; p++)
		if (*p != '_')
			*w++ = *p;
	*w = '\0';
	const char *wrappers[] = {ck_fmt(k, "%s/%s.py", ops, kn), ck_fmt(k, "%s/%s.py", ops, bare)};
	free(bare);
	for (size_t i = 0; i < 2; i++) {
		if (i == 1 && strcmp(wrappers[0], wrappers[1]) == 0)
			break;
		if (path_is_file(wrappers[i])) {
			lane_guard(k, host, wrappers[i], 0, "the cutile-rs wrapper exists");
			clean = false;
		}
	}
	const char *test = ck_tg(k, ck_test_rel(k));
	const struct ck_file *tf = ck_load(k, test);
	int line = 0;
	if (tf->data && tx_grep(tf->data, "\"cutile-rs\"|cutile_rs", 0, &line)) {
		lane_guard(k, host, test, line, "the test file is wired to cutile-rs");
		clean = false;
	}
	const char *init = ck_fmt(k, "%s/__init__.py", ops);
	const struct ck_file *inf = ck_load(k, init);
	char *esc = tx_ere_escape(kn);
	char *re = xasprintf("import.*(^|[^A-Za-z0-9_])%s([^A-Za-z0-9_]|$)", esc);
	if (inf->data && tx_grep(inf->data, re, 0, &line)) {
		lane_guard(k, host, init, line, "ops/cutile_rs/__init__.py imports the op");
		clean = false;
	}
	free(re);
	free(esc);
	if (clean)
		ck_add(k, CHECK_PASS, 0, "agent-b.lane", NULL, 0, "no host files written by B");
}

/* tileport addition: recompute B's semantic-layout gate from the IR pairs.
 * WARN only, so the exit code keeps the reference script's meaning. */
static void layout_gate(struct ck *k)
{
	struct ck_ir *irs;
	size_t n = ck_structural_irs(k, &irs);
	for (size_t i = 0; i < n; i++) {
		const char *v = irs[i].variant;
		const char *sep = *v ? "_" : "";
		const char *gen = ck_out(k, ck_fmt(k, "generated/generated%s%s_canon.mlir", sep, v));
		if (!file_nonempty(gen))
			gen = ck_out(k, ck_fmt(k, "generated/generated%s%s.mlir", sep, v));
		const struct ck_file *rf = ck_load(k, irs[i].path), *gf = ck_load(k, gen);
		if (!rf->data || !gf->data || !gf->len) {
			ck_add(k, CHECK_INFO, 0, "agent-b.layout-gate", gen, 0,
			       "no generated IR to compare with %s", tx_basename(irs[i].path));
			continue;
		}
		char *diff = NULL;
		size_t nr, ng;
		if (layout_attrs_equal(rf->data, gf->data, &diff, &nr, &ng))
			ck_add(k, CHECK_PASS, 0, "agent-b.layout-gate", gen, 0,
			       "SEMANTIC_LAYOUT_OK: %zu strides/dim_map/tile attribute(s) match %s", nr,
			       tx_basename(irs[i].path));
		else
			ck_add(k, CHECK_WARN, CHECK_STEP_LAYOUT_GATE, "agent-b.layout-gate", gen, 0,
			       "SEMANTIC_LAYOUT_FAIL against %s: %s", tx_basename(irs[i].path), diff);
		free(diff);
	}
}

int check_agent_b(const struct check_ctx *ctx, struct check_report *r, struct tp_err *err)
{
	char *out = check_ctx_run_dir(ctx);
	if (!out || !ctx->kernel) {
		free(out);
		tp_err_set(err, TP_EXIT_ENV, "agent-b: CUTILE_KERNEL_OUT_ROOT and a kernel name (or "
					     "--run DIR) are required");
		return -1;
	}
	free(out);
	struct ck k;
	ck_begin(&k, ctx, r, "agent-b", ctx->kernel);
	const char *kfile = ck_out(&k, "kernel.rs");
	const struct ck_file *kr = ck_load(&k, kfile);
	if (ck_nonempty(kr))
		ck_add(&k, CHECK_PASS, 0, "agent-b.kernel-rs", kfile, 0, "present");
	else
		ck_add(&k, CHECK_FAIL, 0, "agent-b.kernel-rs", kfile, 0, "kernel.rs %s",
		       kr->exists ? "is empty" : "not found");
	generated_ir(&k);
	if (ck_nonempty(kr)) {
		char *code = rs_blank(kr->data, kr->len, false);
		if (strstr(code, "E: ElementType"))
			ck_add(&k, CHECK_PASS, 0, "agent-b.element-type", kfile, 0,
			       "dtype-generic (E: ElementType)");
		else
			ck_add(&k, CHECK_FAIL, 0, "agent-b.element-type", kfile, 0,
			       "no `E: ElementType` generic: kernels are dtype-generic (Rule 16)");
		int line = 0;
		if (tx_search(code, "&mut[[:space:]]+Tensor<[^;{]*\\{[[:space:]]*\\[[^]]*-1", 0, &line))
			ck_add(&k, CHECK_FAIL, 0, "agent-b.mut-wildcard", kfile, line,
			       "`&mut Tensor<..{[-1,..]}>` output (the transpose trap): use a "
			       "read-only &Tensor + partition_full_mut (Rule 43)");
		else
			ck_add(&k, CHECK_PASS, 0, "agent-b.mut-wildcard", kfile, 0,
			       "no mutable wildcard Tensor output");
		free(code);
	}
	if (ck_nonempty(kr)) {
		enum check_sev ep = ck_nested_entry_pattern(&k, "agent-b.entry-pattern");
		if (ep == CHECK_PASS || ep == CHECK_WARN)
			ck_add(&k, CHECK_PASS, 0, "agent-b.entry-pattern", NULL, 0,
			       "entry pattern matches the structural reference IR (Rule 12)");
	}
	const char *log = ck_out(&k, "reports/agent_logs/agent_b.md");
	if (file_nonempty(log))
		ck_add(&k, CHECK_PASS, 0, "agent-b.log", log, 0, "present");
	else
		ck_add(&k, CHECK_FAIL, 0, "agent-b.log", log, 0, "agent log missing or empty");
	build_log(&k);
	lane_guards(&k);
	layout_gate(&k);
	const char *closing = ck_count(&k, CHECK_FAIL)       ? "VERDICT: FAIL_COMPILE"
			      : ck_count(&k, CHECK_DEFERRED) ? "VERDICT: DEFERRED"
							     : "VERDICT: COMPILED";
	return ck_end(&k, closing);
}
