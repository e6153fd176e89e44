/* What a chain passes from one driver to the next within an attempt
 * (agent.h's chain rule): the hand-over prompt, and the exec:COMMAND link
 * that may end a chain (`mech, exec:./agent.sh`).
 *
 * The next driver reads the stage's spawn prompt with a HAND-OVER section
 * in front: who handed over, its final message as it was (the
 * `unsupported:` line, a partial translation's `partial:` and `left:`
 * lines, the validator block), and what that means for the work left —
 * so that an agent finishes what the previous driver could not, and
 * spends its tokens only there (docs/agents.md, "Chains"). */
#ifndef TILEPORT_AGENTS_HANDOVER_H
#define TILEPORT_AGENTS_HANDOVER_H

#include "engine/agents/agent.h"

/* ATTEMPT_DIR/prompt.handover-N.md: the hand-over section from driver
 * `from` (its final message `final`) and the prompt at ctx->prompt_path
 * after it. Returns its path (caller frees), or NULL with err set. */
char *handover_prompt(const struct agent_ctx *ctx, int n, const char *from, const char *final,
		      struct tp_err *err);

/* Run COMMAND (`/bin/sh -c`, in the workspace, TILEPORT_PROMPT naming
 * ctx->prompt_path) as the chain's last driver: the transcript records
 * it writes on stdout pass through the recorder, its final message is
 * kept as the chain's. Returns its exit status (TP_EXIT_FAILED when it
 * did not exit). */
int handover_exec(struct agent_ctx *ctx, const char *command);

#endif
