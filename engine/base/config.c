#include "engine/base/config.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/base/files.h"

static void add(struct config *c, char *key, char *value, const char *file, int line)
{
	c->v = xgrow(c->v, &c->cap, c->n + 1, sizeof(*c->v));
	c->v[c->n++] = (struct config_entry){key, value, xstrdup(file), line};
}

static bool valid_key(const char *k)
{
	if (!*k)
		return false;
	for (const char *p = k; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("_.-", *p))
			return false;
	return true;
}

/* A '#' after a blank, outside quotes, starts a comment to the end of the
 * line ("jobs = 8   # runs at once", as the docs write them); a '#' inside
 * a word or a quoted value stays. */
static void strip_comment(char *line)
{
	char quote = 0;
	for (char *p = line; *p; p++) {
		if (quote) {
			quote = *p == quote ? 0 : quote;
		} else if (*p == '"' || *p == '\'') {
			quote = *p;
		} else if (*p == '#' && p > line && (p[-1] == ' ' || p[-1] == '\t')) {
			*p = '\0';
			str_trim(line);
			return;
		}
	}
}

/* Values may be quoted to keep leading/trailing blanks or a '#'. */
static char *unquote(const char *v, bool *ok)
{
	*ok = true;
	size_t n = strlen(v);
	if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0])
		return xstrndup(v + 1, n - 2);
	if (n && (v[0] == '"' || v[0] == '\'')) {
		*ok = false;
		return NULL;
	}
	return xstrdup(v);
}

int config_load_file(struct config *c, const char *path, struct tp_err *err)
{
	/* Missing is no config; anything else at the path must read as text. */
	if (access(path, F_OK) < 0 && errno == ENOENT)
		return 0;
	char *text = read_text_file(path, NULL, err);
	if (!text)
		return -1;
	char *section = NULL;
	int lineno = 0, rc = 0;
	char *save = NULL;
	/* strtok_r would merge empty lines and break line numbers. */
	for (char *line = text; line && rc == 0; line = save) {
		lineno++;
		char *nl = strchr(line, '\n');
		save = nl ? nl + 1 : NULL;
		if (nl)
			*nl = '\0';
		str_trim(line);
		if (!*line || *line == '#' || *line == ';')
			continue;
		strip_comment(line);
		if (*line == '[') {
			char *end = strchr(line, ']');
			if (!end || end[1] != '\0') {
				tp_err_set(err, TP_EXIT_USAGE, "%s:%d: expected '[section]'", path, lineno);
				rc = -1;
				break;
			}
			*end = '\0';
			str_trim(line + 1);
			free(section);
			section = line[1] ? xstrdup(line + 1) : NULL;
			continue;
		}
		char *eq = strchr(line, '=');
		if (!eq) {
			/* A directive such as "bind pipeline r respawn". */
			add(c, NULL, xstrdup(line), path, lineno);
			continue;
		}
		*eq = '\0';
		char *key = str_trim(line);
		char *val = str_trim(eq + 1);
		if (!valid_key(key)) {
			tp_err_set(err, TP_EXIT_USAGE,
				   "%s:%d: expected 'key = value' with a key of letters, digits, '_', "
				   "'.' or '-', got '%s'", path, lineno, key);
			rc = -1;
			break;
		}
		bool ok;
		char *v = unquote(val, &ok);
		if (!ok) {
			tp_err_set(err, TP_EXIT_USAGE, "%s:%d: unterminated quoted value", path, lineno);
			rc = -1;
			break;
		}
		char *full = section ? xasprintf("%s.%s", section, key) : xstrdup(key);
		add(c, full, v, path, lineno);
	}
	free(section);
	free(text);
	return rc;
}

char *config_user_path(void)
{
	const char *xdg = getenv("XDG_CONFIG_HOME");
	const char *home = getenv("HOME");
	if (xdg && *xdg)
		return xasprintf("%s/tileport/config", xdg);
	if (home && *home)
		return xasprintf("%s/.config/tileport/config", home);
	return NULL;
}

const struct config_entry *config_find(const struct config *c, const char *key)
{
	for (size_t i = c->n; i-- > 0;)
		if (c->v[i].key && strcmp(c->v[i].key, key) == 0)
			return &c->v[i];
	return NULL;
}

const char *config_get(const struct config *c, const char *key)
{
	const struct config_entry *e = config_find(c, key);
	return e ? e->value : NULL;
}

void config_free(struct config *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->v[i].key);
		free(c->v[i].value);
		free(c->v[i].file);
	}
	free(c->v);
	c->v = NULL;
	c->n = c->cap = 0;
}
