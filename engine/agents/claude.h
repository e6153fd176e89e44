/* The claude driver: Claude Code in print mode (`claude -p --output-format
 * stream-json --verbose`), working in the run directory with the workspace
 * added, its file tools limited by permission rules to the run directory
 * and the workspace (reads also to the skill), Bash allowed, anything else
 * denied without asking (docs/agents.md says what this does not stop).
 *
 * The mapper turns its stream-json lines into transcript records:
 * system/init -> start, assistant text -> text, tool_use -> tool_call, the
 * user tool_result -> tool_result, system/api_retry -> retry, per-message
 * usage (once per message id) -> usage, and the final result -> the final
 * message, a usage record that brings the totals to the result's, and
 * error records for an error result and each permission denial. */
#ifndef TILEPORT_AGENTS_CLAUDE_H
#define TILEPORT_AGENTS_CLAUDE_H

#include <stdbool.h>
#include <stddef.h>

#include "engine/agents/json_get.h"
#include "engine/agents/meter.h"
#include "engine/agents/record.h"

#define CLAUDE_MIN_VERSION "2.1.0"

struct claude_map {
	struct recorder *rec;
	const struct prices *prices; /* may be NULL */
	struct idset seen;           /* message ids whose usage was counted */
	long long tin, tout;         /* counted so far */
	double cost;
	char *model;
	struct sbuf last_text;       /* the latest assistant text, if no result comes */
	bool result;                 /* the result event arrived */
	bool error;                  /* it was an error result */
	int denials;
	char *final;
};

void claude_map_init(struct claude_map *m, struct recorder *rec, const struct prices *prices);
void claude_map_line(struct claude_map *m, const char *line, size_t n);
void claude_map_free(struct claude_map *m);

#endif
