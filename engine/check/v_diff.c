/* validate_diff_report.sh: C's generated/diff_report.md must walk the five
 * analysis steps. Keyword checks as the reference script greps them. */
#include "engine/check/check_impl.h"

#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

/* A line shaped like a table row with three or more columns. */
static bool has_table(const char *t, int *line)
{
	return tx_grep(t, "^[[:space:]]*\\|[^|]*\\|[^|]*\\|[^|]*\\|", 0, line);
}

static void need(struct ck *k, const char *file, const char *t, const char *rule,
		 const char *ere, int cflags, enum check_sev sev, const char *what)
{
	int line = 0;
	if (tx_grep(t, ere, cflags, &line))
		ck_add(k, CHECK_PASS, 0, rule, file, line, "mentions %s", what);
	else
		ck_add(k, sev, 0, rule, file, 0, "no mention of %s", what);
}

static void variants_covered(struct ck *k, const char *file, const char *t)
{
	cJSON *a = ck_analysis(k, NULL);
	const cJSON *kv = a ? cJSON_GetObjectItemCaseSensitive(a, "kernel_variants") : NULL;
	if (!cJSON_IsArray(kv) || cJSON_GetArraySize(kv) < 2)
		return;
	for (const cJSON *v = kv->child; v; v = v->next) {
		const cJSON *n = cJSON_GetObjectItemCaseSensitive(v, "variant_name");
		if (!cJSON_IsString(n))
			continue;
		if (strstr(t, n->valuestring))
			ck_add(k, CHECK_PASS, 0, "diff-report.variants", file, 0,
			       "covers variant '%s'", n->valuestring);
		else
			ck_add(k, CHECK_WARN, 0, "diff-report.variants", file, 0,
			       "multi-variant kernel: no section for variant '%s'", n->valuestring);
	}
}

int check_diff_report(const struct check_ctx *ctx, struct check_report *r, struct tp_err *err)
{
	char *out = check_ctx_run_dir(ctx);
	if (!out) {
		tp_err_set(err, TP_EXIT_ENV, "diff-report: CUTILE_KERNEL_OUT_ROOT and a kernel name "
					     "(or --run DIR) are required");
		return -1;
	}
	free(out);
	struct ck k;
	ck_begin(&k, ctx, r, "diff-report", ctx->kernel ? ctx->kernel : "");
	if (!ctx->rs_root)
		ck_add(&k, CHECK_INFO, 0, "diff-report.env", NULL, 0,
		       "CUTILE_RS_ROOT unset (the reference script aborts here; no check reads it)");
	const char *file = ck_out(&k, "generated/diff_report.md");
	const struct ck_file *f = ck_load(&k, file);
	const char *log = ck_out(&k, "reports/agent_logs/agent_c.md");
	const char *legacy = ck_out(&k, "reports/agent_c.md");
	if (file_nonempty(log) || file_nonempty(legacy))
		ck_add(&k, CHECK_PASS, 0, "diff-report.agent-log",
		       file_nonempty(log) ? log : legacy, 0, "present");
	else
		ck_add(&k, CHECK_WARN, 0, "diff-report.agent-log", log, 0, "agent C log missing");
	if (!ck_nonempty(f)) {
		ck_add(&k, CHECK_FAIL, 0, "diff-report.file", file, 0, "diff_report.md %s",
		       f->exists ? "is empty" : "not found");
	} else {
		const char *t = f->data;
		int line = 0;
		/* Step 1: structural comparison with a table */
		bool s1 = tx_grep(t, "structural comparison|op count|step 1|diff_ir", REG_ICASE, &line);
		bool tbl = has_table(t, NULL);
		if (s1 && tbl)
			ck_add(&k, CHECK_PASS, 0, "diff-report.step1", file, line,
			       "structural comparison with a table");
		else
			ck_add(&k, CHECK_FAIL, 0, "diff-report.step1", file, 0,
			       "Step 1 needs a structural comparison (op counts / diff_ir) %s",
			       s1 ? "as a table of 3+ columns" : "section");
		/* Step 2: checklist with statuses */
		bool s2 = tx_grep(t, "checklist|step 2|item-by-item", REG_ICASE, &line);
		bool st = tx_grep(t, "MATCH|DIFFERS|MISSING|SEMANTIC_EQUIV", 0, NULL);
		if (s2 && st)
			ck_add(&k, CHECK_PASS, 0, "diff-report.step2", file, line,
			       "checklist with statuses");
		else
			ck_add(&k, CHECK_FAIL, 0, "diff-report.step2", file, 0,
			       "Step 2 needs the item-by-item checklist%s",
			       s2 ? " with MATCH/DIFFERS/MISSING/SEMANTIC_EQUIV statuses" : "");
		need(&k, file, t, "diff-report.severity", "CRITICAL|WARN|INFO", 0, CHECK_WARN,
		     "a severity (CRITICAL/WARN/INFO)");
		/* Step 3: root cause */
		need(&k, file, t, "diff-report.step3", "root cause|step 3", REG_ICASE, CHECK_FAIL,
		     "the root cause (Step 3)");
		need(&k, file, t, "diff-report.root-class",
		     "user_code|dsl_limitation|compiler_bug|semantic_equiv", 0, CHECK_WARN,
		     "a root-cause class (user_code/dsl_limitation/compiler_bug/semantic_equiv)");
		/* Step 4: impact */
		need(&k, file, t, "diff-report.step4", "impact|step 4", REG_ICASE, CHECK_FAIL,
		     "the impact assessment (Step 4)");
		need(&k, file, t, "diff-report.impact-terms", "correctness|performance|blocking",
		     REG_ICASE, CHECK_WARN, "correctness/performance/blocking impact");
		/* Step 5: verdict */
		need(&k, file, t, "diff-report.step5", "verdict|step 5", REG_ICASE, CHECK_FAIL,
		     "the verdict (Step 5)");
		need(&k, file, t, "diff-report.verdict-value",
		     "PASS_WITH_NOTES|PASS|FAIL_FIXABLE|FAIL_COMPILER_BUG", 0, CHECK_FAIL,
		     "a verdict value (PASS/PASS_WITH_NOTES/FAIL_FIXABLE/FAIL_COMPILER_BUG)");
		if (strstr(t, "FAIL_FIXABLE"))
			need(&k, file, t, "diff-report.action-items",
			     "action item|fix.*agent b|agent b.*fix|what.*fix", REG_ICASE, CHECK_FAIL,
			     "action items (FAIL_FIXABLE needs them)");
		if (strstr(t, "PASS_WITH_NOTES"))
			need(&k, file, t, "diff-report.known-gaps", "known gap|accepted|limitation",
			     REG_ICASE, CHECK_WARN, "known gaps / accepted notes (PASS_WITH_NOTES)");
		need(&k, file, t, "diff-report.attr-assume", "assume.*div_by|assume_div", 0,
		     CHECK_WARN, "assume div_by");
		need(&k, file, t, "diff-report.attr-ftz", "flush_to_zero|FTZ|rounding.*approx", 0,
		     CHECK_WARN, "flush_to_zero / rounding approx");
		need(&k, file, t, "diff-report.attr-strides", "strides=\\[|strides.*\\[.*,.*1\\]", 0,
		     CHECK_WARN, "strides");
		/* tileport additions, WARN only: the routing reads these lines */
		char *first = tx_first_line(t);
		if (tx_grep(first,
			    "^VERDICT: (PASS|PASS_WITH_NOTES|FAIL_FIXABLE|FAIL_COMPILER_BUG|BLOCKED)"
			    "[[:space:]]*$",
			    0, NULL))
			ck_add(&k, CHECK_PASS, 0, "diff-report.first-line", file, 1, "%s", first);
		else
			ck_add(&k, CHECK_WARN, 0, "diff-report.first-line", file, 1,
			       "the first line should be `VERDICT: <C verdict>` (the orchestrator "
			       "compares it with C's answer)");
		if (strncmp(first, "VERDICT: FAIL_FIXABLE", 21) == 0) {
			if (tx_grep(t, "^[[:space:]]*owner:[[:space:]]*(host|kernel)[[:space:]]*$", 0,
				    &line))
				ck_add(&k, CHECK_PASS, 0, "diff-report.owner", file, line,
				       "owner line present");
			else
				ck_add(&k, CHECK_WARN, 0, "diff-report.owner", file, 0,
				       "FAIL_FIXABLE without an `owner: host|kernel` line (routing "
				       "falls back to the kernel route)");
		}
		free(first);
		variants_covered(&k, file, t);
	}
	size_t fails = ck_count(&k, CHECK_FAIL), warns = ck_count(&k, CHECK_WARN);
	char *closing = fails ? xasprintf("FAIL: %zu error(s), %zu warning(s)", fails, warns)
		      : warns ? xasprintf("PASS (with %zu warning(s))", warns)
			      : xstrdup("PASS");
	int rc = ck_end(&k, closing);
	free(closing);
	return rc;
}
