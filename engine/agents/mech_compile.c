/* The real compiler in mech's stages B and D (docs/compile.md, "In the
 * pipeline"): `tileport compile` as a tool of the stage, so its lines are
 * in the validator block the next driver and the screen read; its report
 * (reports/compile.json) gives the build log its top errors and the
 * offending lines. Without the toolchain nothing runs and the steps stay
 * deferred, with the reason in the transcript. */
#include "engine/agents/mech_int.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/base/files.h"
#include "engine/compile/compile.h"

enum mech_compiled mech_compile(struct mech_run *r, bool registered, struct compile_result *res)
{
	memset(res, 0, sizeof(*res));
	struct compile_toolchain tc;
	if (!compile_toolchain_find(&tc)) {
		char *missing = strv_join(tc.missing, "; ");
		mech_say(r, "the compile check cannot run here (deferred): %s", missing);
		free(missing);
		compile_toolchain_free(&tc);
		return MECH_NO_TOOLCHAIN;
	}
	compile_toolchain_free(&tc);
	const char *args[] = {"compile", r->c->run_dir, registered ? "--registered" : "--kernel-only",
			      NULL};
	int code = mech_tool(r, args);
	char *path = path_join(r->c->run_dir, registered ? "reports/compile_lib.json"
							 : "reports/compile.json");
	struct tp_err err = {0};
	bool report = path_is_file(path) && compile_report_load(path, res, &err) == 0;
	free(path);
	if (code == 0 && report)
		return MECH_COMPILED;
	if (code == 1 && report)
		return MECH_FINDINGS;
	/* bad input (a workspace crate without cutile) or a broken toolchain:
	 * nothing the kernel can fix */
	mech_say(r, "the compile check could not run (exit %d): the steps stay deferred", code);
	if (report)
		compile_result_free(res);
	return MECH_NO_TOOLCHAIN;
}

bool mech_has_reference_ir(const char *run_dir)
{
	char *dir = path_join(run_dir, "reference");
	DIR *d = opendir(dir);
	bool found = false;
	struct dirent *e;
	while (d && !found && (e = readdir(d))) {
		if (!str_starts(e->d_name, "reference") || !str_ends(e->d_name, ".mlir"))
			continue;
		char *p = path_join(dir, e->d_name);
		found = file_nonempty(p);
		free(p);
	}
	if (d)
		closedir(d);
	free(dir);
	return found;
}

const struct compile_finding *mech_first_error(const struct compile_result *res)
{
	for (size_t i = 0; i < res->nf; i++)
		if (res->f[i].error && res->f[i].in_op)
			return &res->f[i];
	return NULL;
}

char *mech_finding_line(const struct compile_finding *f)
{
	if (!f)
		return xstrdup("the translation does not compile (reports/compile.json)");
	char code[40] = "";
	if (*f->code)
		snprintf(code, sizeof(code), "[%s]", f->code);
	return xasprintf("%s:%d:%d: the translation does not compile%s: error%s: %s",
			 f->file ? f->file : "?", f->line, f->col,
			 f->phase == PHASE_LOWER ? " (cuTile's own compiler)" : "", code, f->message);
}

/* The lines around a finding, as the build log's "offending source
 * snippet". */
static void snippet(struct sbuf *sb, const struct compile_finding *f, const char *run_dir)
{
	if (!f || !f->file || f->line <= 0)
		return;
	char *path = f->file[0] == '/' ? xstrdup(f->file) : path_join(run_dir, f->file);
	size_t len;
	char *text = read_file(path, &len, NULL);
	free(path);
	if (!text)
		return;
	sb_adds(sb, "\n**Offending source snippet:**\n\n```rust\n");
	int line = 1;
	for (const char *p = text; *p; line++) {
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		if (line >= f->line - 2 && line <= f->line + 2)
			sb_printf(sb, "%.*s\n", (int)n, p);
		p += n + (e != NULL);
	}
	sb_adds(sb, "```\n");
	free(text);
}

char *mech_build_log(const struct mech_run *r, const struct compile_result *res,
		     enum mech_compiled how, const char *ts)
{
	struct sbuf sb = SBUF_INIT;
	sb_printf(&sb, "# Build log - %s\n\n## Attempt 1 - %s\n\n", r->c->op, ts);
	if (how == MECH_NO_TOOLCHAIN) {
		sb_adds(&sb, "**Command:** cargo build --release (not run: no toolchain for the compile "
			     "check here)\n\n**Result:** DEFERRED\n\n**Top errors:** none (not built)\n\n"
			     "**Root cause:** -\n\n**Fix applied for next attempt:** -\n");
		return sb_detach(&sb);
	}
	sb_printf(&sb, "**Command:** tileport compile (%s; then cutile::compile_api lowering on the "
		       "CPU)\n\n",
		  res->command ? res->command : "cargo build --message-format=json");
	if (how == MECH_COMPILED) {
		sb_printf(&sb, "**Result:** SUCCESS\n\n**Top errors:** none (%d warning%s)\n\n"
			       "**Lowered:** %zu specialisation%s to generated/ (Tile IR text and "
			       "bytecode)\n\n**Root cause:** -\n\n**Fix applied for next attempt:** -\n",
			  res->warnings, res->warnings == 1 ? "" : "s", res->nout, res->nout == 1 ? "" : "s");
		return sb_detach(&sb);
	}
	sb_adds(&sb, "**Result:** FAIL\n\n**Top errors:**\n");
	int shown = 0;
	for (size_t i = 0; i < res->nf && shown < 5; i++) {
		const struct compile_finding *f = &res->f[i];
		if (!f->error || !f->in_op)
			continue;
		sb_printf(&sb, "- %s:%d:%d: %s%s%s%s%s\n", f->file ? f->file : "?", f->line, f->col,
			  *f->code ? "error[" : "error", f->code, *f->code ? "]" : "", ": ", f->message);
		shown++;
	}
	snippet(&sb, mech_first_error(res), r->c->run_dir);
	sb_adds(&sb, "\n**Root cause:** the translation does not compile with the pinned cutile "
		     "(see the errors; rustc's whole text is in reports/compile.json)\n\n**Fix applied "
		     "for next attempt:** handed to the next driver of the stage with these errors\n");
	return sb_detach(&sb);
}

/* The IR check after B, offline (pipeline.md §2, B's pipeline test; docs/
 * mech.md): each reference/reference*.mlir that cuTile Python compiled
 * against the generated*.mlir that cutile lowered, with tileport irdiff
 * and the reference's rules. The worst exit: 0 PASS, 2 notes, 1 FAIL;
 * -1 when no pair was there to compare. */
static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int ir_rank(int code)
{
	return code < 0 ? -1 : code == 0 ? 0 : code == 2 ? 1 : 2;
}

int mech_ir_check(struct mech_run *r, struct sbuf *report)
{
	char *refdir = path_join(r->c->run_dir, "reference");
	DIR *d = opendir(refdir);
	char *names[64];
	size_t n = 0;
	struct dirent *e;
	while (d && n < TP_ARRAY_LEN(names) && (e = readdir(d)))
		if (str_starts(e->d_name, "reference") && str_ends(e->d_name, ".mlir"))
			names[n++] = xstrdup(e->d_name);
	if (d)
		closedir(d);
	qsort(names, n, sizeof(*names), cmp_name);
	int worst = -1;
	for (size_t i = 0; i < n; i++) {
		char *ref = xasprintf("reference/%s", names[i]);
		char *gen = xasprintf("generated/generated%s", names[i] + strlen("reference"));
		char *gp = path_join(r->c->run_dir, gen);
		if (!file_nonempty(gp)) {
			sb_printf(report, "- %s: no %s to compare it with\n", ref, gen);
		} else {
			char *rp = path_join(r->c->run_dir, ref);
			const char *args[] = {"irdiff", rp, gp, NULL};
			int code = mech_tool(r, args);
			free(rp);
			const char *v = code == 0 ? "PASS" : code == 2 ? "PASS_WITH_NOTES" : code == 1 ? "FAIL_FIXABLE" : NULL;
			if (v)
				sb_printf(report, "- %s against %s: %s\n", gen, ref, v);
			else
				sb_printf(report, "- %s against %s: irdiff could not compare them (exit %d)\n", gen,
					  ref, code);
			/* FAIL (or no comparison) over notes over PASS */
			int rank = code == 0 ? 0 : code == 2 ? 1 : 2;
			if (rank > ir_rank(worst))
				worst = rank == 2 ? 1 : code;
		}
		free(gp);
		free(gen);
		free(ref);
		free(names[i]);
	}
	free(refdir);
	return worst;
}
