/* Stage drivers as the orchestrator sees them: a spec string chosen per
 * stage (--driver X=SPEC, `driver.X = SPEC` in the config, or the default)
 * that becomes a command line. Every driver writes the transcript stream
 * of engine/core/transcript.h on stdout.
 *   exec:COMMAND    run COMMAND with /bin/sh -c (any agent CLI or script)
 *   NAME[, NAME]    built-in drivers, a chain tried in order within one
 *                   attempt: `tileport agent --stage X --run DIR --driver
 *                   NAME,NAME` (engine/agents/agent.h); its last link
 *                   may be exec:COMMAND (`mech, exec:./agent.sh`), run
 *                   when the names before it hand the stage over
 * The built-in names and the defaults come from a catalog the program
 * passes in (pipeline_opts, session_opts): core knows no driver but exec. */
#ifndef TILEPORT_CORE_DRIVER_H
#define TILEPORT_CORE_DRIVER_H

#include <stdbool.h>

#include "engine/base/util.h"

enum driver_kind {
	DRIVER_EXEC,
	DRIVER_BUILTIN,
};

struct driver {
	enum driver_kind kind;
	char *command; /* exec: the shell command; built-in: "a,b" */
	char **chain;  /* built-in: the names, NULL-terminated */
};

struct driver_catalog {
	const char *names; /* "claude, codex, llm" for messages */
	bool (*known)(const char *name);
	/* The default spec for stage X of op in workspace, for an offline run
	 * (no toolchain) or an online one (caller frees), or NULL with why
	 * (what to install or set) appended to *why. */
	char *(*choose)(char stage, const char *op, const char *workspace, bool offline, struct sbuf *why);
	/* A driver without a model, whose reply the same input repeats: what it
	 * refused is never run through it again (pipeline.md). May be NULL. */
	bool (*deterministic)(const char *name);
};

/* cat may be NULL: then only exec: parses. */
int driver_parse(const char *spec, const struct driver_catalog *cat, struct driver *d, struct tp_err *err);
/* The spec with a relative program made absolute against base, the folder
 * it was written from (the shell tileport was started in, for --driver; the
 * config file's folder, for driver.X): stages run in the workspace, where
 * `exec:./agent.sh` would name another file or none. Only an exec: program
 * that exists there, after any NAME=value words, is rewritten. Caller frees. */
char *driver_spec_resolve(const char *spec, const char *base);
/* argv for the child (NULL-terminated; caller frees with strv_free). */
char **driver_argv(const struct driver *d, char stage, const char *run_dir);
void driver_free(struct driver *d);

#endif
