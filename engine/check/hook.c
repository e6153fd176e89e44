/* The orchestrator's "builtin" validator: adapts engine/check to the
 * pipeline_checker engine/core/pipeline.h declares (core cannot depend on
 * check; the CLI passes this function to its session). */
#include "engine/check/check_impl.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "engine/core/pipeline.h"

int check_pipeline_checker(const struct check_request *rq, struct check_outcome *out)
{
	memset(out, 0, sizeof(*out));
	struct check_ctx ctx;
	check_ctx_init(&ctx);
	check_ctx_set(&ctx.kernel, rq->op);
	check_ctx_set(&ctx.run_dir, rq->run_dir);
	check_ctx_set(&ctx.out_root, rq->out_root);
	check_ctx_set(&ctx.tilegym, rq->workspace);
	struct tp_err err = {0};
	check_ctx_from_env(&ctx, NULL); /* CUTILE_RS_ROOT, CUTILE_RS_KERNELS_DIR */
	ctx.deferred = 0;               /* only what the stage itself deferred */
	struct sbuf unknown = SBUF_INIT;
	for (size_t i = 0; rq->deferred && rq->deferred[i]; i++) {
		unsigned step;
		if (check_steps_parse(rq->deferred[i], &step, NULL) == 0)
			ctx.deferred |= step;
		else
			sb_printf(&unknown, "%s%s", unknown.len ? ", " : "", rq->deferred[i]);
	}
	/* an offline run's final contract: every toolchain step is still owed */
	if (rq->offline && !rq->stage && !rq->deferred)
		ctx.deferred = CHECK_STEPS_ALL;
	struct check_report *r = check_report_new(rq->stage ? "stage" : "kernel");
	int rc = rq->stage ? check_stage(rq->stage, &ctx, r, &err) : check_kernel(&ctx, r, &err);
	if (rc < 0) {
		out->text = xasprintf("tileport validate: %s\n", err.msg);
		out->summary = xstrdup(err.msg);
		check_report_free(r);
		check_ctx_free(&ctx);
		sb_free(&unknown);
		return -1;
	}
	enum check_sev v = check_report_verdict(r);
	out->status = v == CHECK_FAIL ? VALIDATOR_FAIL : v == CHECK_DEFERRED ? VALIDATOR_DEFERRED
								       : VALIDATOR_PASS;
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	if (unknown.len)
		fprintf(mem, "note: unknown deferred step(s) ignored: %s\n", unknown.buf);
	check_print_text(mem, r, 0);
	fclose(mem);
	out->text = buf;
	cJSON *j = check_report_json(r);
	out->json = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(j, "findings"));
	cJSON_Delete(j);
	size_t c[5];
	check_report_counts(r, c);
	out->summary = xasprintf("%s: %s (%zu fail, %zu warn, %zu deferred)", r->title,
				 check_sev_name(v), c[CHECK_FAIL], c[CHECK_WARN], c[CHECK_DEFERRED]);
	check_report_free(r);
	check_ctx_free(&ctx);
	sb_free(&unknown);
	return 0;
}
