/* The codex driver: `codex exec --json` in the run directory with the
 * workspace added, sandboxed in workspace-write mode (writes only there;
 * /tmp and $TMPDIR taken out of the writable set), the prompt on stdin.
 * A provider (base URL, model, key variable) from our config passes
 * through as `-c` overrides, so a local Responses-API server works.
 *
 * The mapper: thread.started -> start; command_execution, file_change and
 * mcp_tool_call items -> tool_call and tool_result; agent_message -> text
 * (the last one is the final message); error items and events -> error;
 * turn.completed usage -> usage priced from the table; turn.failed -> an
 * error, and the turn counts as failed. */
#ifndef TILEPORT_AGENTS_CODEX_H
#define TILEPORT_AGENTS_CODEX_H

#include <stdbool.h>
#include <stddef.h>

#include "engine/agents/json_get.h"
#include "engine/agents/meter.h"
#include "engine/agents/record.h"

#define CODEX_MIN_VERSION "0.100.0"

struct codex_map {
	struct recorder *rec;
	const struct prices *prices; /* may be NULL */
	const char *model, *version; /* for the start record (may be NULL) */
	struct idset started;        /* items whose tool_call is written */
	int turns_completed, turns_failed;
	int tool_calls;
	char *final;                 /* the latest agent message */
};

void codex_map_init(struct codex_map *m, struct recorder *rec, const struct prices *prices);
void codex_map_line(struct codex_map *m, const char *line, size_t n);
void codex_map_free(struct codex_map *m);

#endif
