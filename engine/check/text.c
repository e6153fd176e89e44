/* Text helpers with grep's semantics, for checks that the reference
 * scripts express as grep/regex over a file. */
#include "engine/check/check_impl.h"

#include <ctype.h>
#include <dirent.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

bool tx_icontains(const char *hay, const char *needle)
{
	return hay && strcasestr(hay, needle) != NULL;
}

/* Patterns are literals from this module or built with tx_ere_escape, so a
 * compile failure is a programming error, not bad input. */
static void compile(regex_t *re, const char *ere, int cflags)
{
	int rc = regcomp(re, ere, REG_EXTENDED | cflags);
	if (rc != 0) {
		char msg[256];
		regerror(rc, re, msg, sizeof(msg));
		tp_die("check: bad pattern '%s': %s", ere, msg);
	}
}

int tx_line_at(const char *text, size_t off)
{
	int line = 1;
	for (size_t i = 0; i < off && text[i]; i++)
		line += text[i] == '\n';
	return line;
}

static bool search(const char *text, const char *ere, int cflags, int *line)
{
	if (!text)
		return false;
	regex_t re;
	compile(&re, ere, cflags);
	regmatch_t m;
	bool hit = regexec(&re, text, 1, &m, 0) == 0;
	regfree(&re);
	if (hit && line)
		*line = tx_line_at(text, (size_t)m.rm_so);
	return hit;
}

bool tx_grep(const char *text, const char *ere, int cflags, int *line)
{
	return search(text, ere, cflags | REG_NEWLINE, line);
}

bool tx_search(const char *text, const char *ere, int cflags, int *line)
{
	return search(text, ere, cflags, line);
}

size_t tx_grep_count(const char *text, const char *ere, int cflags)
{
	if (!text)
		return 0;
	regex_t re;
	compile(&re, ere, cflags | REG_NEWLINE);
	size_t n = 0;
	/* One line at a time, bounded by REG_STARTEND: regexec on the rest of
	 * the text would take its length at every call, which made counting
	 * quadratic in the size of the file. */
	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		regmatch_t m = {.rm_so = 0, .rm_eo = (regoff_t)len};
		if (regexec(&re, p, 1, &m, REG_STARTEND) == 0)
			n++;
		if (!nl)
			break;
		p = nl + 1;
	}
	regfree(&re);
	return n;
}

size_t tx_count_lines_with(const char *text, const char *needle)
{
	size_t n = 0, nlen = strlen(needle);
	const char *p = text;
	while (p && (p = strstr(p, needle)) != NULL) {
		n++;
		const char *nl = strchr(p + nlen, '\n');
		p = nl ? nl + 1 : NULL;
	}
	return n;
}

size_t tx_lines(const char *text, size_t len)
{
	size_t n = 0;
	for (size_t i = 0; i < len; i++)
		n += text[i] == '\n';
	if (len && text[len - 1] != '\n')
		n++;
	return n;
}

char *tx_first_line(const char *text)
{
	if (!text)
		return xstrdup("");
	size_t n = strcspn(text, "\n");
	if (n && text[n - 1] == '\r')
		n--;
	return xstrndup(text, n);
}

char *tx_ere_escape(const char *s)
{
	struct sbuf sb = SBUF_INIT;
	for (; *s; s++) {
		if (strchr("\\^$.|?*+()[]{}", *s))
			sb_addc(&sb, '\\');
		sb_addc(&sb, *s);
	}
	return sb_detach(&sb);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char **tx_list_dir(const char *dir, const char *prefix, const char *suffix, size_t *n)
{
	size_t cap = 0, len = 0;
	char **v = xgrow(NULL, &cap, 1, sizeof(*v));
	DIR *d = dir ? opendir(dir) : NULL;
	struct dirent *e;
	while (d && (e = readdir(d)) != NULL) {
		const char *name = e->d_name;
		if (name[0] == '.' && (!prefix || prefix[0] != '.'))
			continue;
		if (prefix && !str_starts(name, prefix))
			continue;
		if (suffix && (!str_ends(name, suffix) ||
			       strlen(name) < (prefix ? strlen(prefix) : 0) + strlen(suffix)))
			continue;
		char *full = path_join(dir, name);
		bool reg = path_is_file(full);
		free(full);
		if (!reg)
			continue;
		v = xgrow(v, &cap, len + 2, sizeof(*v));
		v[len++] = xstrdup(name);
	}
	if (d)
		closedir(d);
	v[len] = NULL;
	qsort(v, len, sizeof(*v), cmp_str);
	if (n)
		*n = len;
	return v;
}

const char *tx_basename(const char *s)
{
	const char *slash = strrchr(s, '/');
	return slash ? slash + 1 : s;
}
