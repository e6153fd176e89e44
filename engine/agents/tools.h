/* The built-in agent's tools, every path confined (engine/agents/confine.h):
 *   read_file {path, start_line?, end_line?}   numbered lines, paged
 *   write_file {path, content}                 creates parent folders
 *   edit_file {path, old_text, new_text}       old_text must match exactly once
 *   list_dir {path?}                           entries, folders marked '/'
 *   run_command {cmd, timeout_s?}              /bin/sh -c in the run directory,
 *       its own process group killed at the timeout, output cut to head and tail
 * Arguments arrive as the model wrote them (JSON text); a NUL byte anywhere
 * in them refuses the call, since C strings would silently cut the path. */
#ifndef TILEPORT_AGENTS_TOOLS_H
#define TILEPORT_AGENTS_TOOLS_H

#include <cJSON.h>
#include <stdbool.h>
#include <stdint.h>

#include "engine/agents/confine.h"
#include "engine/base/loop.h"
#include "engine/base/proc.h"

struct tools {
	struct confine conf;
	struct loop *loop;
	char **env;              /* the commands' environment: no secrets */
	char *const *secrets;    /* hidden in every result (borrowed) */
	const char *command_log; /* NULL: none */
	int64_t kill_grace_ms;
	const bool *stop;        /* set when the agent is told to stop */
	/* run_command may change files only beneath these (the run directory
	 * and the workspace, engine/base/sandbox.h), and not beneath
	 * conf.guarded (.git and its kind); NULL: unconfined, by the user's
	 * choice (llm.confine_commands = off) */
	char **write_roots;
};

struct tool_result {
	char *output;
	bool is_error;
};

int tools_init(struct tools *t, const char *run_dir, const char *workspace, const char *skill,
	       struct loop *l, struct tp_err *err);
void tools_free(struct tools *t);

/* Tool definitions as each API lists them. */
cJSON *tools_openai(void);
cJSON *tools_anthropic(void);

void tools_exec(struct tools *t, const char *name, const char *args_json, struct tool_result *r);
void tool_result_free(struct tool_result *r);

/* Does this JSON text hold an escaped NUL (\u0000) inside a string? */
bool json_has_nul(const char *json);

#endif
