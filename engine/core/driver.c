#include "engine/core/driver.h"

#include <ctype.h>
#include <stddef.h>
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

/* The link of a chain that starts "exec:" (the last one: its command
 * keeps any commas), or NULL. */
static const char *exec_link(const char *spec, size_t *head_len)
{
	for (const char *c = strchr(spec, ','); c; c = strchr(c + 1, ',')) {
		const char *l = c + 1 + strspn(c + 1, " \t");
		if (str_starts(l, "exec:")) {
			*head_len = (size_t)(c - spec);
			return l;
		}
	}
	return NULL;
}

static int parse_chain(const char *spec, const struct driver_catalog *catalog, struct driver *d,
		       struct tp_err *err)
{
	/* "mech, exec:COMMAND": built-in names, then a command that takes
	 * the stage over within the attempt (agent.h) */
	size_t head_len = 0;
	const char *ex = exec_link(spec, &head_len);
	char *head = ex ? xstrndup(spec, head_len) : xstrdup(spec);
	char **names = str_split(head, ',', true, NULL);
	free(head);
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
	if (rc == 0 && ex) {
		const char *cmd = ex + 5 + strspn(ex + 5, " ");
		if (!*cmd) {
			tp_err_set(err, TP_EXIT_USAGE, "driver '%s': exec needs a command (exec:COMMAND)", spec);
			rc = -1;
		} else {
			names = strv_take(names, xasprintf("exec:%s", cmd));
			sb_printf(&joined, ",exec:%s", cmd);
		}
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
	size_t head_len;
	const char *colon = strchr(spec, ':');
	if (colon && !(exec_link(spec, &head_len) && colon - spec > (ptrdiff_t)head_len)) {
		tp_err_set(err, TP_EXIT_USAGE, "driver '%s': unknown driver kind '%.*s' (this build has: "
					       "exec:COMMAND%s%s)", spec, (int)(colon - spec), spec,
			   catalog ? ", " : "", catalog ? catalog->names : "");
		return -1;
	}
	return parse_chain(spec, catalog, d, err);
}

char *driver_spec_resolve(const char *spec, const char *base)
{
	size_t head_len;
	const char *ex = base && !str_starts(spec, "exec:") ? exec_link(spec, &head_len) : NULL;
	if (ex) { /* a chain's exec: link */
		char *tail = driver_spec_resolve(ex, base);
		char *out = xasprintf("%.*s%s", (int)(ex - spec), spec, tail);
		free(tail);
		return out;
	}
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
