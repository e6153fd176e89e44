#include "engine/core/driver.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static bool name_ok(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!islower((unsigned char)*s) && !isdigit((unsigned char)*s) && *s != '_' && *s != '-')
			return false;
	return true;
}

static int parse_chain(const char *spec, const struct driver_catalog *catalog, struct driver *d,
		       struct tp_err *err)
{
	char **names = str_split(spec, ',', true, NULL);
	struct sbuf joined = SBUF_INIT;
	int rc = 0;
	for (size_t i = 0; names[i] && rc == 0; i++) {
		str_trim(names[i]);
		if (!name_ok(names[i])) {
			tp_err_set(err, TP_EXIT_USAGE, "driver '%s': '%s' is not a driver name (expected "
						       "exec:COMMAND or built-in names: %s)", spec, names[i],
				   catalog ? catalog->names : "none in this build");
			rc = -1;
		} else if (!catalog || !catalog->known(names[i])) {
			tp_err_set(err, TP_EXIT_USAGE, "driver '%s': unknown driver '%s' (this build has: "
						       "exec:COMMAND%s%s)", spec, names[i], catalog ? ", " : "",
				   catalog ? catalog->names : "");
			rc = -1;
		}
		sb_printf(&joined, "%s%s", i ? "," : "", names[i]);
	}
	if (rc < 0) {
		strv_free(names);
		sb_free(&joined);
		return -1;
	}
	d->kind = DRIVER_BUILTIN;
	d->chain = names;
	d->command = sb_detach(&joined);
	return 0;
}

int driver_parse(const char *spec, const struct driver_catalog *catalog, struct driver *d, struct tp_err *err)
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
	if (strchr(spec, ':')) {
		const char *colon = strchr(spec, ':');
		tp_err_set(err, TP_EXIT_USAGE, "driver '%s': unknown driver kind '%.*s' (this build has: "
					       "exec:COMMAND%s%s)", spec, (int)(colon - spec), spec,
			   catalog ? ", " : "", catalog ? catalog->names : "");
		return -1;
	}
	return parse_chain(spec, catalog, d, err);
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

char **driver_argv(const struct driver *d, char stage, const char *run_dir)
{
	char **v = xcalloc(10, sizeof(*v));
	switch (d->kind) {
	case DRIVER_EXEC:
		v[0] = xstrdup("/bin/sh");
		v[1] = xstrdup("-c");
		v[2] = xstrdup(d->command);
		break;
	case DRIVER_BUILTIN: {
		char *self = tp_self_exe();
		v[0] = self ? self : xstrdup("tileport");
		v[1] = xstrdup("agent");
		v[2] = xstrdup("--stage");
		v[3] = xasprintf("%c", stage);
		v[4] = xstrdup("--run");
		v[5] = xstrdup(run_dir);
		v[6] = xstrdup("--driver");
		v[7] = xstrdup(d->command);
		break;
	}
	}
	return v;
}

void driver_free(struct driver *d)
{
	free(d->command);
	strv_free(d->chain);
	memset(d, 0, sizeof(*d));
}
