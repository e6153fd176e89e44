#include "engine/core/driver.h"

#include <stdlib.h>
#include <string.h>

int driver_parse(const char *spec, struct driver *d, struct tp_err *err)
{
	memset(d, 0, sizeof(*d));
	if (str_starts(spec, "exec:")) {
		const char *cmd = spec + 5;
		while (*cmd == ' ')
			cmd++;
		if (!*cmd) {
			tp_err_set(err, TP_EXIT_USAGE, "driver '%s': exec needs a command (exec:COMMAND)", spec);
			return -1;
		}
		d->kind = DRIVER_EXEC;
		d->command = xstrdup(cmd);
		return 0;
	}
	const char *colon = strchr(spec, ':');
	tp_err_set(err, TP_EXIT_USAGE,
		   "driver '%s': unknown driver kind '%.*s' (this build has: exec:COMMAND)", spec,
		   (int)(colon ? (size_t)(colon - spec) : strlen(spec)), spec);
	return -1;
}

char **driver_argv(const struct driver *d)
{
	char **v = xcalloc(4, sizeof(*v));
	switch (d->kind) {
	case DRIVER_EXEC:
		v[0] = xstrdup("/bin/sh");
		v[1] = xstrdup("-c");
		v[2] = xstrdup(d->command);
		break;
	}
	return v;
}

void driver_free(struct driver *d)
{
	free(d->command);
	memset(d, 0, sizeof(*d));
}
