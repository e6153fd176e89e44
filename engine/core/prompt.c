#include "engine/core/prompt.h"

#include <glob.h>
#include <stdlib.h>
#include <string.h>

char *prompt_expand(const char *tmpl, const struct prompt_ctx *c)
{
	struct sbuf sb = SBUF_INIT;
	for (const char *p = tmpl; *p;) {
		static const struct {
			const char *name;
			size_t off;
		} vars[] = {
			{"{skill}", offsetof(struct prompt_ctx, skill)},
			{"{workspace}", offsetof(struct prompt_ctx, workspace)},
			{"{out}", offsetof(struct prompt_ctx, out)},
			{"{op}", offsetof(struct prompt_ctx, op)},
		};
		bool hit = false;
		for (size_t i = 0; i < TP_ARRAY_LEN(vars) && !hit; i++) {
			size_t n = strlen(vars[i].name);
			if (strncmp(p, vars[i].name, n) == 0) {
				const char *v = *(const char *const *)((const char *)c + vars[i].off);
				sb_adds(&sb, v ? v : "");
				p += n;
				hit = true;
			}
		}
		if (!hit)
			sb_addc(&sb, *p++);
	}
	return sb_detach(&sb);
}

static void push(char ***v, size_t *n, char *s)
{
	*v = xrealloc(*v, (*n + 2) * sizeof(**v));
	(*v)[(*n)++] = s;
	(*v)[*n] = NULL;
}

char **prompt_paths(char *const *tmpls, const struct prompt_ctx *c, bool relative_to_out,
		    char ***missing_required)
{
	char **v = xcalloc(1, sizeof(*v));
	size_t n = 0, nm = 0;
	if (missing_required)
		*missing_required = xcalloc(1, sizeof(char *));
	for (size_t i = 0; tmpls && tmpls[i]; i++) {
		const char *t = tmpls[i];
		bool optional = relative_to_out || t[0] == '?';
		if (t[0] == '?')
			t++;
		char *exp = prompt_expand(t, c);
		char *full = relative_to_out ? path_join(c->out, exp) : xstrdup(exp);
		free(exp);
		if (strpbrk(full, "*?[")) {
			glob_t g;
			if (glob(full, 0, NULL, &g) == 0) {
				for (size_t k = 0; k < g.gl_pathc; k++)
					push(&v, &n, xstrdup(g.gl_pathv[k]));
			} else if (!optional && missing_required) {
				push(missing_required, &nm, xstrdup(full));
			}
			globfree(&g);
			free(full);
		} else if (path_is_file(full) || path_is_dir(full)) {
			push(&v, &n, full);
		} else {
			if (!optional && missing_required)
				push(missing_required, &nm, xstrdup(full));
			free(full);
		}
	}
	return v;
}

static void list(struct sbuf *sb, char *const *paths, const char *none)
{
	if (!paths || !paths[0]) {
		sb_printf(sb, "- %s\n", none);
		return;
	}
	for (size_t i = 0; paths[i]; i++)
		sb_printf(sb, "- %s\n", paths[i]);
}


char *prompt_build(const struct stage_def *s, const struct prompt_ctx *c)
{
	struct sbuf sb = SBUF_INIT;
	char lower = (char)(s->letter - 'A' + 'a');
	sb_printf(&sb, "# Agent %c - %s for %s%s\n\n", s->letter, s->name ? s->name : "stage", c->op,
		  c->repair ? " (repair retry)" : "");
	if (c->repair) {
		sb_printf(&sb, "REPAIR RETRY. Your previous return for this stage could not be accepted:\n"
			       "  %s\n"
			       "Reuse the artifacts already on disk; do not redo the work. Re-run this "
			       "stage's validators, then return the same semantic verdict with a valid "
			       "<VALIDATOR_OUTPUT> block.\n\n",
			  c->repair_reason ? c->repair_reason : "(no reason recorded)");
		if (c->validator_notes && *c->validator_notes)
			sb_printf(&sb, "The orchestrator's own validator reported:\n```\n%s\n```\n\n",
				  c->validator_notes);
	}
	char **missing_step0 = NULL;
	char **step0 = prompt_paths(s->step0, c, false, &missing_step0);
	sb_adds(&sb, "STEP 0 (MANDATORY first tool call): read these files in one batch:\n");
	list(&sb, step0, "(none)");
	if (missing_step0[0]) {
		sb_adds(&sb, "These Step-0 files do not exist yet; say so in your report if you need them:\n");
		list(&sb, missing_step0, "");
	}
	if (s->agent)
		sb_printf(&sb, "\nFollow %s/%s.\n", c->skill, s->agent);
	char **prior = prompt_paths(s->prior, c, true, NULL);
	sb_adds(&sb, "\nPrior-stage artifacts already on disk:\n");
	list(&sb, prior, "(none yet)");
	if (c->attempt >= 2 && s->letter == 'D')
		sb_printf(&sb, "\nThis is D(%d): read `host_fix:` in %s/reports/correctness.md and the "
			       "action items in %s/generated/diff_report.md if C ran.\n",
			  c->attempt, c->out, c->out);
	if (c->attempt >= 2 && s->letter == 'B')
		sb_printf(&sb, "\nThis is B(%d): read the action items in %s/generated/diff_report.md and "
			       "`agent_b_followup:` in %s/reports/correctness.md.\n",
			  c->attempt, c->out, c->out);
	sb_printf(&sb, "\nEnvironment:\n- TILEGYM_PATH=%s\n- CUTILE_KERNEL_OUT_ROOT=%s\n- OUT=%s\n",
		  c->workspace, c->out_root ? c->out_root : "", c->out);
	if (c->offline) {
		char *miss = strv_join(c->missing, ", ");
		sb_printf(&sb, "\nOFFLINE RUN (TILEPORT_OFFLINE=1). Missing on this machine: %s", miss);
		free(miss);
		sb_adds(&sb, ".\nDo every part of this stage that needs no toolchain or GPU. If a step "
			     "needs one of the missing items, do not fake it: list it on a line\n"
			     "  deferred: STEP, STEP\n"
			     "(steps: reference-ir, generated-ir, cargo-build, pytest, perf-log, layout-gate) "
			     "and return VERDICT: DEFERRED once the offline work is done.\n");
	}
	sb_printf(&sb, "\nOUTPUT PROTOCOL:\n"
		       "1. Write %s/reports/agent_%c.md.\n"
		       "2. Write the stage artifacts:", c->out, lower);
	for (size_t i = 0; s->artifacts && s->artifacts[i]; i++) {
		char *a = prompt_expand(s->artifacts[i], c);
		sb_printf(&sb, "%s %s", i ? "," : "", a);
		free(a);
	}
	sb_adds(&sb, ".\n3. Run only this stage's validators and echo `exit=$?` after each.\n"
		     "4. Return only the <VALIDATOR_OUTPUT> block (`$ command` lines, their output, "
		     "`exit=N`) followed on the next line by `VERDICT: X`, X one of: ");
	char *verdicts = strv_join(s->verdicts, ", ");
	sb_adds(&sb, verdicts);
	free(verdicts);
	if (c->offline && s->deferrable)
		sb_adds(&sb, ", DEFERRED");
	sb_printf(&sb, ". Nothing may follow the verdict.\n"
		       "5. If the stage cannot complete, write %s/SKILL_METHODOLOGY_BLOCKED.txt and return "
		       "VERDICT: BLOCKED.\n", c->out);
	strv_free(step0);
	strv_free(missing_step0);
	strv_free(prior);
	return sb_detach(&sb);
}
