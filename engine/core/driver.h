/* Stage drivers as the orchestrator sees them: a spec string chosen per
 * stage (--driver X=SPEC, `driver.X = SPEC` in the config) that becomes a
 * command line. Every driver writes the transcript stream of
 * engine/core/transcript.h on stdout.
 *   exec:COMMAND   run COMMAND with /bin/sh -c (any agent CLI or script) */
#ifndef TILEPORT_CORE_DRIVER_H
#define TILEPORT_CORE_DRIVER_H

#include "engine/core/util.h"

enum driver_kind {
	DRIVER_EXEC,
};

struct driver {
	enum driver_kind kind;
	char *command;
};

int driver_parse(const char *spec, struct driver *d, struct tp_err *err);
/* The spec with a relative program made absolute against base, the folder
 * it was written from (the shell tileport was started in, for --driver; the
 * config file's folder, for driver.X): stages run in the workspace, where
 * `exec:./agent.sh` would name another file or none. Only an exec: program
 * that exists there, after any NAME=value words, is rewritten. Caller frees. */
char *driver_spec_resolve(const char *spec, const char *base);
/* argv for the child (NULL-terminated; caller frees with strv_free). */
char **driver_argv(const struct driver *d);
void driver_free(struct driver *d);

#endif
