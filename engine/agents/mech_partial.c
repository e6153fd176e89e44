/* Stage B of the mech driver for an operator whose kernels partly
 * translate (issue 23, "per kernel, not per file"): kernel.rs gets the
 * kernels that translate, the real compiler checks them where it is here,
 * and the stage is handed over with the rest. The final message says which
 * kernels are left, at which FILE:LINE:COL and why, and that kernel.rs
 * already holds the others, so that the next driver of the chain (an
 * agent: skill/agents/agent_b.md, "A partial translation") writes only
 * what is left; with no driver after mech the run stops saying the same. */
#include "engine/agents/mech_int.h"

#include <stdlib.h>
#include <string.h>

#include "engine/base/files.h"
#include "engine/compile/compile.h"

/* "a, b and c" */
static void names_list(struct sbuf *sb, char *const *names)
{
	size_t n = strv_len(names);
	for (size_t i = 0; i < n; i++)
		sb_printf(sb, "%s%s", i == 0 ? "" : i + 1 == n ? " and " : ", ", names[i]);
}

/* The lines after `unsupported:` that an agent reads: what kernel.rs
 * holds, then one `left:` line per kernel to write. */
static char *handover_lines(char *const *done, const struct port_refusal *left, size_t nleft,
			    enum mech_compiled how)
{
	struct sbuf sb = SBUF_INIT;
	size_t ndone = strv_len(done);
	sb_printf(&sb, "partial: kernel.rs holds %zu of %zu kernels, translated by mech%s: ", ndone,
		  ndone + nleft,
		  how == MECH_COMPILED   ? " and compiling with the pinned cutile"
		  : how == MECH_FINDINGS ? " (they do not compile yet: the first error is above)"
					 : " (not compiled here: no toolchain)");
	names_list(&sb, done);
	sb_adds(&sb, "; keep them as they are and add only the kernels left\n");
	for (size_t i = 0; i < nleft; i++)
		sb_printf(&sb, "left: %s at %s: %s\n", left[i].kernel, left[i].where, left[i].construct);
	return sb_detach(&sb);
}

static char *report(const struct mech_run *r, const struct port_op *op, char *const *done,
		    const struct port_refusal *left, size_t nleft, enum mech_compiled how)
{
	struct port_entry ents[64];
	size_t ne = port_entries(op, ents, TP_ARRAY_LEN(ents));
	struct sbuf sb = SBUF_INIT;
	sb_printf(&sb, "# Agent B Report - %s\n\nWritten by tileport mech (offline: no model, no "
		       "tokens). A partial translation: %zu of %zu kernels; the stage is handed over "
		       "with the rest.\n\n## Inputs read\n- %s\n- reference/analysis.json\n\n"
		       "## Translated kernels (in kernel.rs)\n",
		  r->c->op, strv_len(done), strv_len(done) + nleft, r->source_rel);
	for (size_t i = 0; i < ne && i < TP_ARRAY_LEN(ents); i++)
		sb_printf(&sb, "- `%s` (kernel `%s`%s%s): %s parameters; runs when %s\n", ents[i].name,
			  ents[i].kernel, *ents[i].variant ? ", variant " : "", ents[i].variant,
			  ents[i].pattern, ents[i].dispatch);
	sb_adds(&sb, "\n## Kernels left (handed over)\n");
	for (size_t i = 0; i < nleft; i++)
		sb_printf(&sb, "- `%s` at %s: %s\n", left[i].kernel, left[i].where, left[i].construct);
	sb_printf(&sb, "\n## Files written\n- kernel.rs (the translated kernels), Cargo.toml, "
		       "src/lib.rs, reports/build_log.md%s\n\n## Not run\nThe semantic check and "
		       "validate entry-pattern / agent-b: they judge the whole kernel.rs, which the "
		       "next driver completes.\n\n## Compile attempt count\n%d\n\n## Validator "
		       "output\n```\n%s```\n\n## Unsupported variants\n",
		  how == MECH_NO_TOOLCHAIN ? "" : ", generated/ (the lowered IR), reports/compile.json",
		  how == MECH_NO_TOOLCHAIN ? 0 : 1, sb_str(&r->block));
	for (size_t i = 0; i < nleft; i++)
		sb_printf(&sb, "- every variant of `%s` (%s: %s)\n", left[i].kernel, left[i].where,
			  left[i].construct);
	return sb_detach(&sb);
}

int mech_stage_b_partial(struct mech_run *r, struct port_op *op, struct tp_err *err)
{
	const struct mech_ctx *c = r->c;
	const struct port_refusal *left;
	size_t nleft = port_refused(op, &left);
	char **done = port_kernel_names(op);
	struct sbuf say = SBUF_INIT;
	names_list(&say, done);
	mech_say(r, "translated %zu of %zu kernels of %s (%s); the rest is handed over", strv_len(done),
		 strv_len(done) + nleft, r->source_rel, sb_str(&say));
	sb_free(&say);
	for (size_t i = 0; i < nleft; i++)
		mech_say(r, "left: %s at %s: %s", left[i].kernel, left[i].where, left[i].construct);
	char *kernel = port_kernel_rs(op, r->source_rel);
	int rc = mech_write_crate(r, kernel, err);
	free(kernel);
	char *krs = path_join(c->run_dir, "kernel.rs");
	if (rc == 0) {
		/* the translator's own account in the block: the same kernel.rs,
		 * one refusal line per kernel left, exit 4 (partial) */
		const char *tr[] = {"translate", r->source_rel, "--op", c->op, "--out", krs, NULL};
		mech_tool(r, tr);
		rc = mech_log_flush(r, err);
	}
	free(krs);
	if (rc < 0) {
		strv_free(done);
		port_close(op);
		return -1;
	}
	struct compile_result cres;
	enum mech_compiled how = mech_compile(r, false, &cres);
	char *ts = mech_utc_now();
	char *build = mech_build_log(r, how == MECH_NO_TOOLCHAIN ? NULL : &cres, how, ts);
	free(ts);
	rc = mech_write(r, "reports/build_log.md", build, err);
	free(build);
	r->handover = handover_lines(done, left, nleft, how);
	char *rep = report(r, op, done, left, nleft, how);
	if (rc == 0)
		rc = mech_write(r, "reports/agent_b.md", rep, err);
	free(rep);
	char *summary = port_partial_summary(op, "kernel.rs");
	if (rc == 0 && how == MECH_FINDINGS) {
		char *f = mech_finding_line(mech_first_error(&cres));
		char *u = xasprintf("%s; and %s", f, summary);
		mech_final(r, "FAIL_COMPILE", u);
		free(u);
		free(f);
	} else if (rc == 0) {
		mech_final(r, "FAIL_FIXABLE", summary);
	}
	free(summary);
	if (how != MECH_NO_TOOLCHAIN)
		compile_result_free(&cres);
	strv_free(done);
	port_close(op);
	return rc < 0 ? -1 : 0;
}
