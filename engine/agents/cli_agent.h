/* Running an agent CLI (claude, codex) as a driver: found on PATH or at a
 * configured path, its version checked against the oldest one the adapter
 * knows, started in its own process group with stdin from the prompt file
 * (an open pipe makes both CLIs wait forever), its stdout cut into lines
 * (up to 16 MiB each) for the adapter's mapper, its stderr passed on, and
 * killed when it is silent for too long or the agent is told to stop. */
#ifndef TILEPORT_AGENTS_CLI_AGENT_H
#define TILEPORT_AGENTS_CLI_AGENT_H

#include "engine/agents/agent.h"

/* The program: config key `KEY.path`, else `prog` on PATH. NULL when absent. */
char *cli_agent_find(const struct config *cfg, const char *prog, const char *key);
/* "2.1.197" out of `path --version`; NULL with a message when it fails. */
char *cli_agent_version(const char *path, struct tp_err *err);
/* Compare dotted versions: <0, 0, >0. */
int cli_version_cmp(const char *a, const char *b);
/* Probe for tileport drivers and the defaults: found, and (when asked)
 * new enough. */
void cli_agent_probe(const struct agent_probe *q, const char *prog, const char *key, const char *min,
		     const char *install, struct driver_status *st);

/* The program for a run: found (prog, or KEY.path with key = prog) and at
 * least version min; else NULL after an error record saying what to do.
 * *version receives its version. Both are the caller's to free. */
char *cli_agent_ready(struct agent_ctx *ctx, const char *prog, const char *product, const char *min,
		      const char *install, char **version);

struct cli_run {
	char **argv;
	char **env;
	const char *cwd;
	int64_t idle_timeout_ms;
	void (*on_line)(void *mapper, const char *line, size_t n);
	void *mapper;
	bool (*over)(void *mapper); /* may be NULL: a backstop says stop */
	char *const *write_only_beneath; /* NULL, or the CLI (and all it starts) may write
					    only beneath these folders (Landlock) */
	char *const *write_except; /* and not beneath these (guard_paths: .git and its kind) */
};

/* Run it to the end on the agent's loop. */
void cli_agent_run(struct agent_ctx *ctx, const struct cli_run *r, struct proc_status *st);

#endif
