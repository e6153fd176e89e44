/* What each stage must pass, and dispatch by reference script name. */
#include "engine/check/check_impl.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* Structural reference IRs of the run (paths; strv_free). */
static char **structural_paths(const struct check_ctx *ctx, size_t *n)
{
	struct check_report *scratch = check_report_new("scratch");
	struct ck k;
	ck_begin(&k, ctx, scratch, "scratch", "");
	struct ck_ir *irs;
	*n = ck_structural_irs(&k, &irs);
	char **v = xcalloc(*n + 1, sizeof(*v));
	for (size_t i = 0; i < *n; i++)
		v[i] = xstrdup(irs[i].path);
	ck_end(&k, "");
	check_report_free(scratch);
	return v;
}

static int stage_a(const struct check_ctx *ctx, struct check_report *r, struct tp_err *err)
{
	size_t n;
	char **irs = structural_paths(ctx, &n);
	int rc = 0;
	if (n == 0) {
		/* validate_ir on the single-variant path reports what is missing */
		char *out = check_ctx_run_dir(ctx);
		char *p = path_join(out, "reference/reference.mlir");
		rc = check_ir(ctx, p, ctx->kernel, r, err);
		free(p);
		free(out);
	}
	for (size_t i = 0; i < n && rc >= 0; i++)
		rc = check_ir(ctx, irs[i], ctx->kernel, r, err);
	strv_free(irs);
	if (rc < 0 || check_analysis(ctx, r, err) < 0)
		return -1;
	static const char *const logs[] = {"baseline_perf_cutile", "baseline_perf_triton_tileir"};
	char *out = check_ctx_run_dir(ctx);
	for (size_t i = 0; i < TP_ARRAY_LEN(logs); i++) {
		char *p = xasprintf("%s/%s.txt", out, logs[i]);
		if (file_nonempty(p))
			check_perf_log(ctx, p, logs[i], r, err);
		free(p);
	}
	free(out);
	return 0;
}

static int stage_e(const struct check_ctx *ctx, struct check_report *r, struct tp_err *err)
{
	char *out = check_ctx_run_dir(ctx);
	static const char *const logs[] = {"perf_cutile_rs", "baseline_perf_cutile"};
	for (size_t i = 0; i < TP_ARRAY_LEN(logs); i++) {
		char *p = xasprintf("%s/%s.txt", out, logs[i]);
		check_perf_log(ctx, p, logs[i], r, err);
		free(p);
	}
	free(out);
	return check_agent_e(ctx, r, err) < 0 ? -1 : 0;
}

int check_stage(char stage, const struct check_ctx *ctx, struct check_report *r,
		struct tp_err *err)
{
	stage = (char)toupper((unsigned char)stage);
	if (stage < 'A' || stage > 'F') {
		tp_err_set(err, TP_EXIT_USAGE, "unknown stage '%c' (expected A to F)", stage);
		return -1;
	}
	char *out = check_ctx_run_dir(ctx);
	if (!out || !ctx->kernel) {
		free(out);
		tp_err_set(err, TP_EXIT_ENV, "stage %c: CUTILE_KERNEL_OUT_ROOT and a kernel name (or "
					     "--run DIR) are required", stage);
		return -1;
	}
	free(out);
	free(r->title);
	r->title = xasprintf("stage %c", stage);
	int rc;
	switch (stage) {
	case 'A':
		rc = stage_a(ctx, r, err);
		break;
	case 'B':
		rc = check_agent_b(ctx, r, err);
		break;
	case 'C':
		rc = check_diff_report(ctx, r, err);
		break;
	case 'D':
		rc = check_agent_d(ctx, r, err);
		break;
	case 'E':
		rc = stage_e(ctx, r, err);
		break;
	default:
		rc = check_agent_f(ctx, r, err);
		break;
	}
	return rc < 0 ? -1 : check_report_exit(r);
}

static const struct {
	const char *name;
	int min, max; /* positional arguments */
	const char *usage;
} names[] = {
	{"ir", 1, 2, "ir FILE KERNEL"},
	{"analysis", 0, 1, "analysis KERNEL"},
	{"perf-log", 1, 2, "perf-log FILE [LABEL]"},
	{"agent-b", 0, 1, "agent-b KERNEL"},
	{"entry-pattern", 0, 1, "entry-pattern KERNEL"},
	{"diff-report", 0, 1, "diff-report KERNEL"},
	{"agent-d", 0, 1, "agent-d KERNEL"},
	{"agent-e", 0, 1, "agent-e KERNEL"},
	{"agent-f", 0, 1, "agent-f KERNEL"},
	{"kernel", 0, 1, "kernel KERNEL"},
	{"stage", 1, 2, "stage A|B|C|D|E|F [KERNEL]"},
};

const char *check_usage_lines(void)
{
	static char buf[1024];
	if (!buf[0]) {
		size_t off = 0;
		for (size_t i = 0; i < TP_ARRAY_LEN(names) && off < sizeof(buf); i++)
			off += (size_t)snprintf(buf + off, sizeof(buf) - off, "  %s\n", names[i].usage);
	}
	return buf;
}

int check_by_name(const char *name, int argc, char **argv, const struct check_ctx *ctx,
		  struct check_report *r, struct tp_err *err)
{
	size_t i;
	for (i = 0; i < TP_ARRAY_LEN(names); i++)
		if (strcmp(names[i].name, name) == 0)
			break;
	if (i == TP_ARRAY_LEN(names)) {
		tp_err_set(err, TP_EXIT_USAGE, "unknown validator '%s'", name);
		return -1;
	}
	if (argc < names[i].min || argc > names[i].max) {
		tp_err_set(err, TP_EXIT_USAGE, "usage: validate %s", names[i].usage);
		return -1;
	}
	struct check_ctx c = *ctx; /* shallow: only `kernel` is replaced */
	const char *kernel_arg = NULL;
	if (strcmp(name, "ir") == 0 || strcmp(name, "stage") == 0)
		kernel_arg = argc > 1 ? argv[1] : NULL;
	else if (strcmp(name, "perf-log") != 0)
		kernel_arg = argc > 0 ? argv[0] : NULL;
	if (kernel_arg)
		c.kernel = (char *)kernel_arg;
	if (strcmp(name, "perf-log") == 0)
		return check_perf_log(&c, argv[0], argc > 1 ? argv[1] : NULL, r, err);
	if (!c.kernel) {
		tp_err_set(err, TP_EXIT_USAGE, "validate %s: no KERNEL (give it, or --run DIR)", name);
		return -1;
	}
	if (strcmp(name, "ir") == 0)
		return check_ir(&c, argv[0], c.kernel, r, err);
	if (strcmp(name, "stage") == 0) {
		if (strlen(argv[0]) != 1) {
			tp_err_set(err, TP_EXIT_USAGE, "validate stage: expected one letter A to F, got "
						       "'%s'", argv[0]);
			return -1;
		}
		return check_stage(argv[0][0], &c, r, err);
	}
	static const struct {
		const char *name;
		int (*fn)(const struct check_ctx *, struct check_report *, struct tp_err *);
	} runs[] = {
		{"analysis", check_analysis},	  {"agent-b", check_agent_b},
		{"entry-pattern", check_entry_pattern}, {"diff-report", check_diff_report},
		{"agent-d", check_agent_d},	  {"agent-e", check_agent_e},
		{"agent-f", check_agent_f},	  {"kernel", check_kernel},
	};
	for (size_t k = 0; k < TP_ARRAY_LEN(runs); k++)
		if (strcmp(runs[k].name, name) == 0)
			return runs[k].fn(&c, r, err);
	return -1;
}
