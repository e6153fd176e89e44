/* validate_agent_e.sh and validate_agent_f.sh. */
#include "engine/check/check_impl.h"
#include "engine/perf/compare.h"

#include <regex.h>
#include <stdlib.h>
#include <string.h>

static void agent_log(struct ck *k, const char *rule, const char *rel, unsigned step)
{
	const char *p = ck_out(k, rel);
	if (file_nonempty(p))
		ck_add(k, CHECK_PASS, 0, rule, p, 0, "present");
	else
		ck_add(k, CHECK_FAIL, step, rule, p, 0, "agent log missing or empty");
}

static void performance(struct ck *k)
{
	const unsigned step = CHECK_STEP_PERF_LOG;
	const char *p = ck_out(k, "reports/performance.md");
	const struct ck_file *f = ck_load(k, p);
	if (!ck_nonempty(f)) {
		ck_add(k, CHECK_FAIL, step, "agent-e.performance", p, 0, "performance.md %s",
		       f->exists ? "is empty" : "not found");
		return;
	}
	ck_add(k, CHECK_PASS, 0, "agent-e.performance", p, 0, "present");
	char *first = tx_first_line(f->data);
	bool done = strcmp(first, "VERDICT: DONE") == 0;
	bool inv = strcmp(first, "VERDICT: INVESTIGATE") == 0;
	if (done || inv)
		ck_add(k, CHECK_PASS, 0, "agent-e.verdict-line", p, 1, "%s", first);
	else
		ck_add(k, CHECK_FAIL, step, "agent-e.verdict-line", p, 1,
		       "first line must be exactly `VERDICT: DONE` or `VERDICT: INVESTIGATE`");
	free(first);
	const char *re = "^geomean_ratio=[0-9]+(\\.[0-9]+)?[[:space:]]*$";
	size_t n = tx_grep_count(f->data, re, 0);
	int line = 0;
	tx_grep(f->data, re, 0, &line);
	if (n == 1) {
		ck_add(k, CHECK_PASS, 0, "agent-e.geomean", p, line, "one geomean_ratio line");
		/* tileport addition (WARN): only the geomean decides the verdict */
		const char *at = f->data;
		for (int l = 1; l < line && at; l++) {
			at = strchr(at, '\n');
			at = at ? at + 1 : NULL;
		}
		double g = at ? strtod(at + strlen("geomean_ratio="), NULL) : 0.0;
		/* a missing median makes it INVESTIGATE whatever the geomean */
		bool missing = tx_grep(f->data, "^Severity: MISSING_DATA", 0, NULL);
		bool pass = perf_band_of(g) == PERF_BAND_DONE && !missing;
		if ((done && !pass) || (inv && pass))
			ck_add(k, CHECK_WARN, 0, "agent-e.verdict-band", p, line,
			       "geomean_ratio=%.4f%s calls for %s (DONE iff <= %.2f and no "
			       "MISSING_DATA)", g, missing ? " with MISSING_DATA" : "",
			       pass ? "DONE" : "INVESTIGATE", PERF_GATE_RATIO);
	} else {
		ck_add(k, CHECK_FAIL, step, "agent-e.geomean", p, line,
		       "%zu `geomean_ratio=X.XXXX` lines; exactly one is required", n);
	}
}

int check_agent_e(const struct check_ctx *ctx, struct check_report *r, struct tp_err *err)
{
	char *out = check_ctx_run_dir(ctx);
	if (!out) {
		tp_err_set(err, TP_EXIT_ENV, "agent-e: CUTILE_KERNEL_OUT_ROOT and a kernel name (or "
					     "--run DIR) are required");
		return -1;
	}
	free(out);
	struct ck k;
	ck_begin(&k, ctx, r, "agent-e", ctx->kernel ? ctx->kernel : "");
	performance(&k);
	static const char *const logs[] = {"perf_cutile_rs.txt", "baseline_perf_cutile.txt"};
	for (size_t i = 0; i < TP_ARRAY_LEN(logs); i++) {
		char *label = xstrndup(logs[i], strlen(logs[i]) - 4);
		ck_nested_perf_log(&k, ck_out(&k, logs[i]), label, "agent-e.perf-log", CHECK_FAIL);
		free(label);
	}
	agent_log(&k, "agent-e.log", "reports/agent_logs/agent_e.md", CHECK_STEP_PERF_LOG);
	size_t fails = ck_count(&k, CHECK_FAIL);
	char *closing = fails ? xasprintf("FAIL: %zu issue(s)", fails) : xstrdup("PASS");
	int rc = ck_end(&k, closing);
	free(closing);
	return rc;
}

int check_agent_f(const struct check_ctx *ctx, struct check_report *r, struct tp_err *err)
{
	char *out = check_ctx_run_dir(ctx);
	if (!out) {
		tp_err_set(err, TP_EXIT_ENV, "agent-f: CUTILE_KERNEL_OUT_ROOT and a kernel name (or "
					     "--run DIR) are required");
		return -1;
	}
	free(out);
	struct ck k;
	ck_begin(&k, ctx, r, "agent-f", ctx->kernel ? ctx->kernel : "");
	const char *dir = ck_out(&k, "reports");
	size_t n;
	char **names = tx_list_dir(dir, "perf_investigation_", ".md", &n);
	if (n == 0)
		ck_add(&k, CHECK_FAIL, 0, "agent-f.investigation", dir, 0,
		       "no reports/perf_investigation_*.md");
	for (size_t i = 0; i < n; i++) {
		const char *p = ck_fmt(&k, "%s/%s", dir, names[i]);
		const struct ck_file *f = ck_load(&k, p);
		char *first = tx_first_line(f->data);
		if (tx_grep(first, "^VERDICT: (FIXABLE|ALIGNED|BLOCKED)$", 0, NULL))
			ck_add(&k, CHECK_PASS, 0, "agent-f.verdict-line", p, 1, "%s", first);
		else
			ck_add(&k, CHECK_FAIL, 0, "agent-f.verdict-line", p, 1,
			       "first line must be `VERDICT: FIXABLE|ALIGNED|BLOCKED`");
		free(first);
	}
	strv_free(names);
	agent_log(&k, "agent-f.log", "reports/agent_logs/agent_f.md", 0);
	size_t fails = ck_count(&k, CHECK_FAIL);
	char *closing = fails ? xasprintf("FAIL: %zu issue(s)", fails) : xstrdup("PASS");
	int rc = ck_end(&k, closing);
	free(closing);
	return rc;
}
