/* The mech driver's stages B (the device kernel) and D (the host boundary),
 * offline: what skill/agents/agent_b.md and agent_d.md list for an offline
 * run. Where cargo and the CUDA headers are here, the real cuTile compiler
 * checks and lowers what was written (mech_compile.c); the steps that need
 * a GPU, the reference IR or the release build stay deferred. */
#include "engine/agents/mech_int.h"

#include <stdlib.h>
#include <string.h>

#include "engine/base/files.h"
#include "engine/compile/compile.h"

char *mech_utc_now(void)
{
	char ts[32];
	iso8601_utc(wall_ms(), ts);
	return xstrdup(ts);
}

/* B opens the op partially (it writes what translates and hands the rest
 * over); D needs every kernel. */
static int open_op(struct mech_run *r, struct port_op **op, const char *fail_verdict, bool partial)
{
	struct tp_err e = {0};
	if ((partial ? port_open_in_partial(r->c->workspace, r->source_rel, r->c->op, op, &e)
		     : port_open_in(r->c->workspace, r->source_rel, NULL, r->c->op, op, &e)) == 0)
		return 0;
	const char *args[] = {"translate", r->source_rel, "--op", r->c->op, NULL};
	mech_tool(r, args);
	char *u = mech_refusal(e.msg);
	mech_final(r, fail_verdict, u);
	free(u);
	return -1;
}

bool mech_sem_only_unread(const char *out)
{
	int n = 0;
	for (const char *l = out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (!str_starts(l, "CRITICAL ["))
			continue;
		if (!str_starts(l, "CRITICAL [sem.unread]"))
			return false;
		n++;
	}
	return n > 0;
}

/* ---- B ---- */

static const char cargo_toml[] =
	"[package]\n"
	"name = \"cutile-%s\"\n"
	"version = \"0.1.0\"\n"
	"edition = \"2024\"\n"
	"\n"
	"[lib]\n"
	"name = \"cutile_%s\"\n"
	"crate-type = [\"cdylib\"]\n"
	"path = \"src/lib.rs\"\n"
	"\n"
	"[dependencies]\n"
	"cutile = \"=0.2.0\"\n"
	"cutile-compiler = \"=0.2.0\"\n"
	"cutile-macro = \"=0.2.0\"\n"
	"cuda-core = \"=0.2.0\"\n"
	"cuda-async = \"=0.2.0\"\n"
	"\n"
	"[workspace]\n";

int mech_write_crate(struct mech_run *r, const char *kernel, struct tp_err *err)
{
	char *cargo = xasprintf(cargo_toml, r->c->op, r->c->op);
	int rc = mech_write(r, "kernel.rs", kernel, err);
	if (rc == 0)
		rc = mech_write(r, "Cargo.toml", cargo, err);
	if (rc == 0)
		rc = mech_write(r, "src/lib.rs", "include!(\"../kernel.rs\");\n", err);
	free(cargo);
	return rc;
}

int mech_stage_b(struct mech_run *r, struct tp_err *err)
{
	const struct mech_ctx *c = r->c;
	r->deferred = "cargo-build, generated-ir, layout-gate, reference-ir";
	struct port_op *op;
	if (open_op(r, &op, "FAIL_FIXABLE", true) < 0)
		return 0;
	if (port_refused(op, NULL))
		return mech_stage_b_partial(r, op, err); /* it closes op */
	struct port_entry ents[64];
	size_t ne = port_entries(op, ents, TP_ARRAY_LEN(ents));
	mech_say(r, "translated %s: %zu entr%s", r->source_rel, ne, ne == 1 ? "y" : "ies");
	char *kernel = port_kernel_rs(op, r->source_rel);
	int rc = mech_write_crate(r, kernel, err);
	if (rc < 0) {
		free(kernel);
		port_close(op);
		return -1;
	}
	struct sbuf rep = SBUF_INIT;
	sb_printf(&rep, "# Agent B Report - %s\n\nWritten by tileport mech (offline: no model, no "
			"tokens).\n\n## Inputs read\n- %s\n- reference/analysis.json\n- reference "
			"IR: deferred (reference-ir)\n\n## Entry-pattern decision\nThe reference IR is "
			"not dumped yet, so the pattern comes from the source (agent_b.md, offline): "
			"tiled ct.load/ct.store and Triton block pointers are views (&Tensor), "
			"ct.gather/ct.scatter and Triton pointer arithmetic are raw pointers (rule "
			"12).\n\n",
		  c->op, r->source_rel);
	for (size_t i = 0; i < ne && i < TP_ARRAY_LEN(ents); i++)
		sb_printf(&rep, "- `%s` (kernel `%s`%s%s): %s parameters; runs when %s\n", ents[i].name,
			  ents[i].kernel, *ents[i].variant ? ", variant " : "", ents[i].variant,
			  ents[i].pattern, ents[i].dispatch);
	/* a generic the launcher computes (N_TIMES_N is N * N) is known to
	 * the semantic check only through the launcher: the one D will write */
	size_t derived = 0;
	for (size_t i = 0; i < ne && i < TP_ARRAY_LEN(ents); i++)
		derived += ents[i].derived;
	char *launcher = NULL;
	struct tp_err lerr = {0};
	if (derived && port_ffi_rs(op, &launcher, &lerr) == 0)
		rc = mech_write(r, "reports/launcher.rs", launcher, err);
	free(launcher);
	if (rc < 0) {
		free(kernel);
		port_close(op);
		sb_free(&rep);
		return -1;
	}
	bool with_launcher = derived && !lerr.msg[0];
	char *contract = port_launch_contract(op);
	sb_printf(&rep, "\n## dtype / const-generic plan\nThe element type is the generic E "
			"(rule 16), given by the FFI from the descriptor's dtype code; every "
			"ct.Constant is a const generic (rule 23) unless a structural variant fixes "
			"it.\n\n## Constant specialization plan\nConstants stay const generics; "
			"Constant branches that change structure are separate entries.\n\n"
			"host_launch_contract:\n%s\n",
		  contract);
	free(contract);
	port_close(op);
	free(kernel);
	/* the offline structural self-check: the source and the Rust as op
	 * sequences */
	char *krs = path_join(c->run_dir, "kernel.rs");
	if (mech_log_flush(r, err) < 0) {
		free(krs);
		sb_free(&rep);
		return -1;
	}
	char *lpath = path_join(c->run_dir, "reports/launcher.rs");
	/* run in the workspace */
	const char *inv[] = {"inventory", r->source_rel, krs, with_launcher ? "--ffi" : NULL, lpath, NULL};
	size_t inv_at = r->block.len;
	int irc = mech_tool(r, inv);
	bool unread_only = irc == 1 && mech_sem_only_unread(sb_str(&r->block) + inv_at);
	free(lpath);
	/* the real compiler: rustc's type check, then cutile's lowering */
	struct compile_result cres;
	enum mech_compiled how = mech_compile(r, false, &cres);
	char *ts = mech_utc_now();
	char *build = mech_build_log(r, how == MECH_NO_TOOLCHAIN ? NULL : &cres, how, ts);
	free(ts);
	rc = mech_write(r, "reports/build_log.md", build, err);
	free(build);
	if (rc < 0 || mech_log_flush(r, err) < 0) {
		if (how != MECH_NO_TOOLCHAIN)
			compile_result_free(&cres);
		free(krs);
		sb_free(&rep);
		return -1;
	}
	/* what stays for the toolchain: the reference IR and the layout gate
	 * against it, and without a compiler here the build and its IR too */
	bool have_ref = mech_has_reference_ir(c->run_dir);
	r->deferred = how == MECH_NO_TOOLCHAIN ? (have_ref ? "cargo-build, generated-ir, layout-gate"
							   : "cargo-build, generated-ir, layout-gate, reference-ir")
		      : have_ref ? ""
				 : "layout-gate, reference-ir";
	char *dlist = xstrdup(r->deferred);
	for (char *q = dlist; *q; q++)
		if (*q == ' ') /* "a, b" -> "a,b" for --deferred */
			memmove(q, q + 1, strlen(q));
	int erc = 0, brc = 0;
	if (how != MECH_FINDINGS) {
		const char *ep[] = {"validate", "entry-pattern", c->op, "--run", c->run_dir,
				    have_ref ? NULL : "--deferred", "reference-ir", NULL};
		erc = mech_tool(r, ep);
		const char *vb[] = {"validate", "agent-b", c->op, "--run", c->run_dir,
				    *dlist ? "--deferred" : NULL, dlist, NULL};
		brc = mech_tool(r, vb);
	}
	free(dlist);
	free(krs);
	/* the IR check: the lowered kernel against cuTile Python's own IR */
	int ir = -1;
	struct sbuf irrep = SBUF_INIT;
	if (how == MECH_COMPILED && have_ref)
		ir = mech_ir_check(r, &irrep);
	sb_printf(&rep, "## IR check (offline)\n%s\n",
		  ir >= 0 ? "Evidence: tileport irdiff of the IR cutile lowered (generated/) against the IR "
			    "cuTile Python compiled (reference/), with the reference's rules; it is "
			    "stronger than the semantic check of the sources above."
		  : how != MECH_COMPILED ? "Not run: nothing was lowered here."
					 : "Not run: no reference IR in the run (stage A compiles it where a "
					   "Python with cuda.tile is found: tileport refir).");
	if (irrep.len)
		sb_printf(&rep, "\n%s", sb_str(&irrep));
	/* the semantic check's only CRITICALs say where it could not follow
	 * the source (a load in a helper it cannot read): no difference was
	 * found, and the IR check compared the whole kernel */
	bool ir_passed = ir == 0 || ir == 2;
	if (unread_only && ir_passed) {
		sb_adds(&rep, "\nThe semantic check could not follow part of the source (sem.unread, "
			      "above): it found no difference, and the IR check compared every kernel, "
			      "so the IR check decides.\n");
		irc = 0;
	}
	sb_adds(&rep, "\n");
	sb_free(&irrep);
	sb_printf(&rep, "## Layout gate\n%s\n\n## Files written\n- kernel.rs, Cargo.toml, "
			"src/lib.rs, reports/build_log.md%s%s\n- %s_pipeline.rs is not written: tileport "
			"compile lowers every entry with cutile::compile_api instead\n\n## Compile "
			"attempt count\n%d\n\n## Validator output\n```\n%s```\n\n## Unsupported "
			"variants\nNone.\n",
		  have_ref ? "Computed from the reference and the lowered IR (validate agent-b)."
			   : "Deferred (layout-gate): it compares generated and reference IR.",
		  how == MECH_NO_TOOLCHAIN ? "" : ", generated/ (the lowered IR), reports/compile.json",
		  with_launcher ? ", reports/launcher.rs (the launcher D writes, which computes a const "
				  "generic the semantic check reads)"
				: "",
		  c->op, how == MECH_NO_TOOLCHAIN ? 0 : 1, sb_str(&r->block));
	rc = mech_write(r, "reports/agent_b.md", sb_str(&rep), err);
	sb_free(&rep);
	if (rc < 0) {
		if (how != MECH_NO_TOOLCHAIN)
			compile_result_free(&cres);
		return -1;
	}
	if (how == MECH_FINDINGS) {
		/* the hand-over: the next driver of the chain (or a person in
		 * the stage view) gets rustc's and cutile's lines in the block */
		char *u = mech_finding_line(mech_first_error(&cres));
		mech_final(r, "FAIL_COMPILE", u);
		free(u);
	} else if (ir == 1) {
		/* the hand-over names the check; its findings are in the block */
		mech_final(r, "FAIL_FIXABLE",
			   "kernel.rs:1:1: the lowered IR differs from cuTile Python's (tileport irdiff: "
			   "FAIL_FIXABLE; its CRITICAL findings are in the validator block)");
	} else {
		mech_final(r, irc || erc || brc ? "FAIL_FIXABLE"
			      : how == MECH_COMPILED ? "COMPILED"
						     : "DEFERRED",
			   NULL);
	}
	if (how != MECH_NO_TOOLCHAIN)
		compile_result_free(&cres);
	return 0;
}

/* ---- D ---- */

static char *read_ws(const struct mech_run *r, const char *rel)
{
	char *p = path_join(r->c->workspace, rel);
	size_t n;
	char *t = read_file(p, &n, NULL);
	free(p);
	return t;
}

/* Apply a registration edit to a workspace file (NULL new text: already
 * there). */
static int register_file(struct mech_run *r, const char *rel, char *(*edit)(const char *, const char *),
			 struct tp_err *err)
{
	char *old = read_ws(r, rel);
	if (!old) {
		tp_err_set(err, TP_EXIT_ENV, "%s/%s: not found", r->c->workspace, rel);
		return -1;
	}
	char *neu = edit(old, r->c->op);
	int rc = 0;
	if (neu)
		rc = mech_write_ws(r, rel, neu, err);
	else
		mech_say(r, "%s already registers %s", rel, r->c->op);
	free(neu);
	free(old);
	return rc;
}

int mech_stage_d(struct mech_run *r, struct tp_err *err)
{
	const struct mech_ctx *c = r->c;
	r->deferred = "cargo-build, pytest";
	struct port_op *op;
	if (open_op(r, &op, "FAIL", false) < 0)
		return 0;
	char *ffi = NULL, *wrapper = NULL;
	struct tp_err herr = {0};
	if (port_ffi_rs(op, &ffi, &herr) < 0 || port_wrapper_py_in(op, c->workspace, r->source_rel, &wrapper, &herr) < 0) {
		port_close(op);
		free(ffi);
		const char *args[] = {"translate", r->source_rel, "--op", c->op, "--emit", "wrapper", NULL};
		mech_tool(r, args);
		char *u = mech_refusal(herr.msg);
		mech_final(r, "FAIL", u);
		free(u);
		return 0;
	}
	port_close(op);
	char *cr = xasprintf("src/tilegym/ops/cutile_rs/%s_kernel", c->op);
	char *ffi_tree = xasprintf("%s/ffi.rs", cr), *kernel_tree = xasprintf("%s/kernel.rs", cr);
	char *wrap_rel = xasprintf("src/tilegym/ops/cutile_rs/%s.py", c->op);
	char *kpath = path_join(c->run_dir, "kernel.rs");
	size_t klen;
	char *kernel = read_file(kpath, &klen, err);
	free(kpath);
	int rc = kernel ? 0 : -1;
	/* D's files: ffi.rs in both places, the in-tree kernel.rs copy, the
	 * wrapper, then the registration edits */
	if (rc == 0)
		rc = mech_write_ws(r, ffi_tree, ffi, err);
	if (rc == 0)
		rc = mech_write(r, "ffi.rs", ffi, err);
	if (rc == 0)
		rc = mech_write_ws(r, kernel_tree, kernel, err);
	if (rc == 0)
		rc = mech_write_ws(r, wrap_rel, wrapper, err);
	if (rc == 0)
		rc = register_file(r, "src/tilegym/ops/cutile_rs/cutile_kernels/src/lib.rs",
				   port_register_lib_rs, err);
	if (rc == 0)
		rc = register_file(r, "src/tilegym/ops/cutile_rs/__init__.py", port_register_init_py,
				   err);
	char *test_rel = port_test_of(c->workspace, c->op);
	if (rc == 0) {
		char *old = read_ws(r, test_rel);
		char *tp = path_join(c->workspace, test_rel);
		struct tp_err terr = {0};
		char *neu = old ? port_register_test_py(old, tp, &terr) : NULL;
		if (!old) {
			tp_err_set(err, TP_EXIT_ENV, "%s: not found", tp);
			rc = -1;
		} else if (neu) {
			rc = mech_write_ws(r, test_rel, neu, err);
		} else if (terr.msg[0]) {
			mech_say(r, "%s", terr.msg);
		}
		free(neu);
		free(old);
		free(tp);
	}
	free(kernel);
	free(ffi);
	free(wrapper);
	if (rc < 0) {
		free(cr);
		free(ffi_tree);
		free(kernel_tree);
		free(wrap_rel);
		free(test_rel);
		return -1;
	}
	/* the real compiler over the op as lib.rs registers it: kernel.rs,
	 * ffi.rs and the registration, in the tree */
	if (mech_log_flush(r, err) < 0) {
		free(cr);
		free(ffi_tree);
		free(kernel_tree);
		free(wrap_rel);
		free(test_rel);
		return -1;
	}
	struct compile_result cres;
	enum mech_compiled how = mech_compile(r, true, &cres);
	const struct compile_finding *bad = how == MECH_FINDINGS ? mech_first_error(&cres) : NULL;
	/* an error in the kernel is B's to fix; one in ffi.rs or lib.rs is D's */
	const char *klass = bad && bad->file && str_ends(bad->file, "kernel.rs") ? "kernel" : "host";
	struct sbuf cm = SBUF_INIT;
	if (how == MECH_FINDINGS) {
		char *u = mech_finding_line(bad);
		sb_printf(&cm, "VERDICT: FAIL\n# Agent D Report - %s\n\n## Summary\nThe host code does "
			       "not compile with the pinned cutile: %s\n\nfail_class: %s\nhost_fix: %s\n"
			       "agent_b_followup: %s\npytest_log: not run (the cdylib does not build)\n",
			  c->op, u, klass, !strcmp(klass, "host") ? "the first error above" : "-",
			  !strcmp(klass, "kernel") ? "the first error above" : "-");
		free(u);
	} else {
		sb_printf(&cm, "VERDICT: DEFERRED\n# Agent D Report - %s\n\n## Summary\n0 passed, 0 "
			       "failed, 0 skipped (pytest deferred: no GPU)\n\n## Host Artifacts\n- ffi.rs: "
			       "%s (copy at OUT/ffi.rs), export cutile_%s%s\n- cdylib: deferred "
			       "(cargo-build)\n- wrapper: %s, registered for cutile-rs\n\n## Correctness "
			       "Results\n| Test | Config | Result | Error | known_gaps |\n|------|--------|"
			       "--------|-------|------------|\n| %s::test_op | cutile_rs, every "
			       "parametrisation | NOT RUN (deferred) | | |\n\nSummary: the host code is "
			       "written and wired; the tests run with the toolchain.\nfail_class:\nhost_fix:\n"
			       "agent_b_followup:\npytest_log: OUT/correctness_cutile_rs.txt (deferred)\n",
			  c->op, ffi_tree, c->op,
			  how == MECH_COMPILED ? " (type-checked with lib.rs: tileport compile)" : "", wrap_rel,
			  test_rel);
	}
	rc = mech_write(r, "reports/correctness.md", sb_str(&cm), err);
	sb_free(&cm);
	struct sbuf rep = SBUF_INIT;
	sb_printf(&rep, "# Agent D Report - %s\n\nWritten by tileport mech (offline: no model, no "
			"tokens).\n\n## Files\n- %s and OUT/ffi.rs (identical)\n- %s (a copy of "
			"OUT/kernel.rs)\n- %s\n- registration: cutile_kernels/src/lib.rs, "
			"ops/cutile_rs/__init__.py, %s\n\n## Deferred\ncargo-build (the cdylib and its "
			"symbol), pytest.\n",
		  c->op, ffi_tree, kernel_tree, wrap_rel, test_rel);
	if (rc == 0)
		rc = mech_write(r, "reports/agent_d.md", sb_str(&rep), err);
	sb_free(&rep);
	free(cr);
	free(ffi_tree);
	free(kernel_tree);
	free(wrap_rel);
	free(test_rel);
	if (rc < 0 || mech_log_flush(r, err) < 0) {
		if (how != MECH_NO_TOOLCHAIN)
			compile_result_free(&cres);
		return -1;
	}
	if (how == MECH_FINDINGS) {
		char *u = mech_finding_line(bad);
		mech_final(r, "FAIL", u);
		free(u);
		compile_result_free(&cres);
		return 0;
	}
	const char *vd[] = {"validate", "agent-d", c->op, "--run", c->run_dir, "--deferred",
			    "cargo-build,pytest", NULL};
	int drc = mech_tool(r, vd);
	mech_final(r, drc ? "FAIL" : "DEFERRED", NULL);
	if (how != MECH_NO_TOOLCHAIN)
		compile_result_free(&cres);
	return 0;
}
