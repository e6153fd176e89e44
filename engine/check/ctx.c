/* The validation context (where to look) and the deferred-step vocabulary. */
#include "engine/check/check_impl.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const step_names[] = {
	"reference-ir", "generated-ir", "layout-gate", "cargo-build", "pytest", "perf-log",
};

const char *check_step_name(unsigned step)
{
	for (size_t i = 0; i < TP_ARRAY_LEN(step_names); i++)
		if (step == 1u << i)
			return step_names[i];
	return NULL;
}

int check_steps_parse(const char *list, unsigned *steps, struct tp_err *err)
{
	*steps = 0;
	if (!list)
		return 0;
	while (isspace((unsigned char)*list))
		list++;
	if (strncasecmp(list, "deferred:", 9) == 0)
		list += 9;
	const char *p = list;
	while (*p) {
		while (*p == ',' || isspace((unsigned char)*p))
			p++;
		const char *w = p;
		while (*p && *p != ',' && !isspace((unsigned char)*p))
			p++;
		size_t n = (size_t)(p - w);
		if (!n)
			continue;
		size_t i;
		for (i = 0; i < TP_ARRAY_LEN(step_names); i++)
			if (strlen(step_names[i]) == n && strncasecmp(step_names[i], w, n) == 0)
				break;
		if (i == TP_ARRAY_LEN(step_names)) {
			tp_err_set(err, TP_EXIT_USAGE,
				   "unknown deferred step '%.*s' (expected reference-ir, "
				   "generated-ir, layout-gate, cargo-build, pytest or perf-log)",
				   (int)(n > 64 ? 64 : n), w);
			return -1;
		}
		*steps |= 1u << i;
	}
	return 0;
}

char *check_steps_format(unsigned steps)
{
	struct sbuf sb = SBUF_INIT;
	for (size_t i = 0; i < TP_ARRAY_LEN(step_names); i++)
		if (steps & (1u << i))
			sb_printf(&sb, "%s%s", sb.len ? ", " : "", step_names[i]);
	return sb_detach(&sb);
}

void check_ctx_init(struct check_ctx *ctx)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->host_written = -1;
}

void check_ctx_free(struct check_ctx *ctx)
{
	free(ctx->kernel);
	free(ctx->out_root);
	free(ctx->run_dir);
	free(ctx->tilegym);
	free(ctx->rs_root);
	free(ctx->kernels_dir);
	check_ctx_init(ctx);
}

void check_ctx_set(char **field, const char *value)
{
	free(*field);
	*field = value && *value ? xstrdup(value) : NULL;
}

static void from_env(char **field, const char *var)
{
	if (!*field)
		check_ctx_set(field, getenv(var));
}

int check_ctx_from_env(struct check_ctx *ctx, struct tp_err *err)
{
	from_env(&ctx->tilegym, "TILEGYM_PATH");
	from_env(&ctx->out_root, "CUTILE_KERNEL_OUT_ROOT");
	from_env(&ctx->rs_root, "CUTILE_RS_ROOT");
	from_env(&ctx->kernels_dir, "CUTILE_RS_KERNELS_DIR");
	const char *d = getenv("TILEPORT_DEFERRED");
	if (d && *d) {
		unsigned steps;
		struct tp_err e = {0};
		if (check_steps_parse(d, &steps, &e) < 0) {
			tp_err_set(err, TP_EXIT_USAGE, "TILEPORT_DEFERRED: %.900s", e.msg);
			return -1;
		}
		ctx->deferred |= steps;
	}
	return 0;
}

void check_ctx_set_run(struct check_ctx *ctx, const char *dir)
{
	char *d = xstrdup(dir);
	size_t n = strlen(d);
	while (n > 1 && d[n - 1] == '/')
		d[--n] = '\0';
	check_ctx_set(&ctx->run_dir, d);
	char *slash = strrchr(d, '/');
	if (!ctx->kernel)
		check_ctx_set(&ctx->kernel, slash ? slash + 1 : d);
	if (slash) {
		*slash = '\0';
		check_ctx_set(&ctx->out_root, slash == d ? "/" : d);
	} else {
		check_ctx_set(&ctx->out_root, ".");
	}
	free(d);
}

char *check_ctx_run_dir(const struct check_ctx *ctx)
{
	if (ctx->run_dir)
		return xstrdup(ctx->run_dir);
	if (ctx->out_root && ctx->kernel)
		return path_join(ctx->out_root, ctx->kernel);
	return NULL;
}
