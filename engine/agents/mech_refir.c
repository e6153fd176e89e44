/* Stage A's reference IR offline (docs/refir.md): where a Python with
 * cuda.tile is found, the kernels the analysis lists are compiled by cuTile
 * Python itself into the run's reference/NAME.mlir; otherwise the step stays
 * deferred, with the reason in the report. Not a validator: a reference
 * kernel cuTile refuses under an inferred specialisation is a note for the
 * next stage, not a failure of the analysis. */
#include <stdlib.h>
#include <string.h>

#include "engine/agents/mech_int.h"
#include "engine/refir/refir.h"

bool mech_refir(struct mech_run *r, struct sbuf *report)
{
	const struct mech_ctx *c = r->c;
	struct refir_python py;
	struct tp_err err = {0};
	if (refir_find_python(NULL, NULL, c->workspace, &py, &err) < 0) {
		sb_printf(report, "Deferred (reference-ir): %s. `tileport refir %s` makes it offline "
				  "once %s.\n", py.problem, c->op, "cuda.tile is installed");
		sb_printf(&r->log, "- reference IR: deferred (%s)\n", py.problem);
		refir_python_free(&py);
		return false;
	}
	char *src = refir_op_source(c->workspace, c->op);
	char *out = path_join(c->run_dir, "reference");
	char *analysis = path_join(out, "analysis.json");
	/* not assembled here: tileiras takes up to minutes per operator
	 * (docs/perf.md, refir), and the reference module is the one cuTile
	 * Python ships; the IR check assembles both sides */
	struct refir_opts o = {.python = py.path, .workspace = c->workspace, .source = src,
			       .out_dir = out, .analysis = analysis};
	struct refir_result res;
	int rc = src ? refir_compile(&o, &res, &err) : -1;
	mech_say(r, "compiling the reference kernels with cuda.tile %s (%s)", py.cuda_tile, py.path);
	sb_printf(report, "`tileport refir %s --run %s --no-assemble`: cuTile Python %s compiled "
			  "the kernels offline (%s).\n\n", c->op, c->run_dir, py.cuda_tile, py.path);
	if (rc < 0) {
		const char *why = src ? err.msg
				      : "the op has no cuTile Python source (a Triton reference is not "
					"compiled offline: docs/refir.md)";
		sb_printf(report, "Deferred (reference-ir): %s\n", why);
		sb_printf(&r->log, "- reference IR: deferred (%s)\n", why);
	} else {
		if (res.load_error)
			sb_printf(report, "- the file does not import: %s\n", res.load_error);
		for (size_t i = 0; i < res.n; i++) {
			const struct refir_kernel *k = &res.k[i];
			if (k->ok)
				sb_printf(report, "- `reference/%s.mlir`: `%s` as `@%s`\n", k->name, k->kernel,
					  k->symbol);
			else
				sb_printf(report, "- `%s`: not compiled: %s\n", k->kernel, k->error);
			if (k->inferred && k->inferred[0]) {
				char *names = strv_join(k->inferred, ", ");
				sb_printf(report, "  - inferred, not in the analysis: %s\n", names);
				free(names);
			}
		}
		sb_printf(&r->log, "- reference IR: %zu of %zu kernels compiled (refir.json)\n",
			  res.n - res.nfailed, res.n);
		if (rc != 0)
			sb_adds(report, "\nDeferred (reference-ir): not every kernel compiled.\n");
		refir_result_free(&res);
	}
	free(analysis);
	free(out);
	free(src);
	refir_python_free(&py);
	return rc == 0;
}
