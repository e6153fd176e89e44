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
/* argv for the child (NULL-terminated; caller frees with strv_free). */
char **driver_argv(const struct driver *d);
void driver_free(struct driver *d);

#endif
