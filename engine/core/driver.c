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

char *driver_spec_resolve(const char *spec, const char *base)
{
	if (!str_starts(spec, "exec:") || !base)
		return xstrdup(spec);
	const char *p = spec + 5;
	for (;;) {
		while (*p == ' ')
			p++;
		size_t n = strcspn(p, " ");
		const char *eq = memchr(p, '=', n);
		if (!eq || eq == p)
			break;
		p += n; /* an environment assignment before the program */
	}
	size_t n = strcspn(p, " ");
	char *prog = xstrndup(p, n);
	char *full = NULL;
	/* a plain relative path: quoting or expansions stay the shell's */
	if (prog[0] && prog[0] != '/' && strchr(prog, '/') && !strpbrk(prog, "'\"\\$`~*?[")) {
		full = path_join(base, str_starts(prog, "./") ? prog + 2 : prog);
		if (!path_is_file(full)) {
			free(full);
			full = NULL;
		}
	}
	char *out = full ? xasprintf("%.*s%s%s", (int)(p - spec), spec, full, p + n) : xstrdup(spec);
	free(full);
	free(prog);
	return out;
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
