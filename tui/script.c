#include "tui/script.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/base/files.h"
#include "tui/keys.h"

struct script {
	char *path;
	char *text;
	char *next;     /* start of the next unread line */
	int lineno;
	const char *keys; /* rest of the current key line */
	char where[4200];
};

struct script *script_open(const char *path, struct tp_err *err)
{
	size_t len;
	char *text = read_text_file(path, &len, err);
	if (!text)
		return NULL;
	struct script *s = xcalloc(1, sizeof(*s));
	s->path = xstrdup(path);
	s->text = text;
	s->next = text;
	return s;
}

static void set_where(struct script *s)
{
	snprintf(s->where, sizeof(s->where), "%s:%d", s->path, s->lineno);
}

enum script_item script_next(struct script *s, int *key, const char **cmd, struct tp_err *err)
{
	for (;;) {
		if (s->keys && *s->keys) {
			if (key_parse(&s->keys, key, err) < 0) {
				char msg[sizeof(err->msg)];
				snprintf(msg, sizeof(msg), "%s", err->msg);
				tp_err_set(err, TP_EXIT_USAGE, "%s: %s", s->where, msg);
				return SCRIPT_ERROR;
			}
			return SCRIPT_KEY;
		}
		s->keys = NULL;
		if (!s->next || !*s->next)
			return SCRIPT_END;
		char *line = s->next;
		char *nl = strchr(line, '\n');
		s->next = nl ? nl + 1 : NULL;
		if (nl)
			*nl = '\0';
		size_t n = strlen(line);
		if (n && line[n - 1] == '\r')
			line[n - 1] = '\0';
		s->lineno++;
		set_where(s);
		/* Leading blanks are layout; trailing ones may be typed text. */
		while (*line == ' ' || *line == '\t')
			line++;
		if (!*line || *line == '#')
			continue;
		if (*line == ':') {
			*cmd = line + 1;
			return SCRIPT_COMMAND;
		}
		s->keys = line;
	}
}

const char *script_where(struct script *s)
{
	return s->where;
}

void script_free(struct script *s)
{
	if (!s)
		return;
	free(s->path);
	free(s->text);
	free(s);
}
