/* The spawn prompt of a stage (pipeline.md §1's template): the Step-0
 * file set, the agent procedure, prior artifacts on disk, the environment,
 * offline instructions, and the output protocol. Path templates in the
 * table use {skill}, {workspace}, {out} and {op}; a leading '?' marks a
 * file listed only when it exists; globs are expanded. */
#ifndef TILEPORT_CORE_PROMPT_H
#define TILEPORT_CORE_PROMPT_H

#include <stdbool.h>

#include "engine/core/table.h"

struct prompt_ctx {
	const char *op, *workspace, *out_root, *out, *skill;
	int attempt;                 /* counted run of this stage (1, 2, ...) */
	bool repair;                 /* the reformat/repair retry */
	const char *repair_reason;   /* why the previous return was refused */
	const char *validator_notes; /* the orchestrator's validator output, if any */
	bool offline;
	char *const *missing;        /* what preflight found missing */
};

/* Expand one template; caller frees. */
char *prompt_expand(const char *tmpl, const struct prompt_ctx *c);
/* Expand a template list into existing/required paths (NULL-terminated).
 * `missing_required` (may be NULL) receives required paths that are absent. */
char **prompt_paths(char *const *tmpls, const struct prompt_ctx *c, bool relative_to_out,
		    char ***missing_required);
char *prompt_build(const struct stage_def *s, const struct prompt_ctx *c);

#endif
