#include "engine/core/redact.h"

#include <ctype.h>
#include <errno.h>
#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include <cJSON.h>

#include "engine/core/files.h"

bool secret_name(const char *name, size_t n)
{
	static const char *marks[] = {"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL"};
	for (size_t i = 0; i < TP_ARRAY_LEN(marks); i++) {
		size_t m = strlen(marks[i]);
		for (size_t k = 0; k + m <= n; k++)
			if (strncasecmp(name + k, marks[i], m) == 0)
				return true;
	}
	return false;
}

static bool marked_name(const char *name, size_t n, const char *marked)
{
	for (const char *p = marked; p && *p;) {
		p += strspn(p, ", \t");
		size_t w = strcspn(p, ", \t");
		if (w && w == n && strncmp(p, name, n) == 0)
			return true;
		p += w;
	}
	return false;
}

char **env_secrets(char *const *env, const char *marked)
{
	char **v = xcalloc(strv_len(env) + 1, sizeof(*v));
	size_t n = 0;
	for (size_t i = 0; env && env[i]; i++) {
		const char *eq = strchr(env[i], '=');
		if (!eq || strlen(eq + 1) < REDACT_MIN_LEN)
			continue;
		size_t ln = (size_t)(eq - env[i]);
		if (secret_name(env[i], ln) || marked_name(env[i], ln, marked))
			v[n++] = xstrdup(env[i]);
	}
	return v;
}

char *redact_secrets(const char *text, char *const *secrets)
{
	char *out = xstrdup(text);
	for (size_t i = 0; secrets && secrets[i]; i++) {
		const char *eq = strchr(secrets[i], '=');
		if (!eq || strlen(eq + 1) < REDACT_MIN_LEN || !strstr(out, eq + 1))
			continue;
		char *mark = xasprintf("${%.*s}", (int)(eq - secrets[i]), secrets[i]);
		size_t vl = strlen(eq + 1);
		struct sbuf sb = SBUF_INIT;
		const char *p = out, *hit;
		while ((hit = strstr(p, eq + 1))) {
			sb_add(&sb, p, (size_t)(hit - p));
			sb_adds(&sb, mark);
			p = hit + vl;
		}
		sb_adds(&sb, p);
		free(out);
		out = sb_detach(&sb);
		free(mark);
	}
	return out;
}

bool redact_json(cJSON *j, char *const *secrets)
{
	bool changed = false;
	for (; j; j = j->next) {
		if (j->string) {
			char *r = redact_secrets(j->string, secrets);
			if (strcmp(r, j->string) != 0) {
				cJSON_free(j->string);
				j->string = cJSON_malloc(strlen(r) + 1);
				strcpy(j->string, r);
				changed = true;
			}
			free(r);
		}
		if (cJSON_IsString(j) && j->valuestring) {
			char *r = redact_secrets(j->valuestring, secrets);
			if (strcmp(r, j->valuestring) != 0) {
				cJSON_SetValuestring(j, r);
				changed = true;
			}
			free(r);
		}
		if (j->child && redact_json(j->child, secrets))
			changed = true;
	}
	return changed;
}

/* The value as a JSON string spells it: '/' may be written "\/". */
static char *json_slash_form(const char *v)
{
	struct sbuf sb = SBUF_INIT;
	for (; *v; v++) {
		if (*v == '/')
			sb_addc(&sb, '\\');
		sb_addc(&sb, *v);
	}
	return sb_detach(&sb);
}

/* NAME=VALUE for each secret, and NAME=ESCAPED where the JSON spelling
 * differs. */
static char **stream_forms(char *const *secrets)
{
	size_t n = strv_len(secrets);
	char **v = xcalloc(2 * n + 1, sizeof(*v));
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		v[k++] = xstrdup(secrets[i]);
		const char *eq = strchr(secrets[i], '=');
		if (eq && strchr(eq + 1, '/')) {
			char *esc = json_slash_form(eq + 1);
			v[k++] = xasprintf("%.*s=%s", (int)(eq - secrets[i]), secrets[i], esc);
			free(esc);
		}
	}
	return v;
}

/* How many bytes at the end of buf could be the start of a secret. */
static size_t pending_prefix(const char *buf, size_t n, char *const *secrets)
{
	size_t hold = 0;
	for (size_t i = 0; secrets && secrets[i]; i++) {
		const char *v = strchr(secrets[i], '=');
		if (!v)
			continue;
		v++;
		size_t vl = strlen(v);
		if (vl < REDACT_MIN_LEN)
			continue;
		for (size_t k = vl - 1 < n ? vl - 1 : n; k > hold; k--)
			if (memcmp(buf + n - k, v, k) == 0) {
				hold = k;
				break;
			}
	}
	return hold;
}

void redact_stream_feed(struct redact_stream *r, const char *data, size_t n, struct sbuf *out)
{
	if (!r->secrets || !r->secrets[0]) {
		sb_add(out, data, n);
		return;
	}
	if (!r->forms || r->forms_of != r->secrets) {
		strv_free(r->forms);
		r->forms = stream_forms(r->secrets);
		r->forms_of = r->secrets;
	}
	char *const *forms = r->forms;
	sb_add(&r->carry, data, n);
	/* A NUL byte would end the C string the redaction works on: the text
	 * on each side of one is redacted apart. */
	size_t at = 0;
	while (at < r->carry.len) {
		const char *z = memchr(r->carry.buf + at, '\0', r->carry.len - at);
		size_t end = z ? (size_t)(z - r->carry.buf) : r->carry.len;
		size_t hold = z ? 0 : pending_prefix(r->carry.buf + at, end - at, forms);
		char save = r->carry.buf[end - hold];
		r->carry.buf[end - hold] = '\0';
		char *red = redact_secrets(r->carry.buf + at, forms);
		r->carry.buf[end - hold] = save;
		sb_adds(out, red);
		free(red);
		if (!z) {
			memmove(r->carry.buf, r->carry.buf + end - hold, hold);
			r->carry.len = hold;
			r->carry.buf[hold] = '\0';
			return;
		}
		sb_addc(out, '\0');
		at = end + 1;
	}
	sb_reset(&r->carry);
}

void redact_stream_flush(struct redact_stream *r, struct sbuf *out)
{
	sb_add(out, r->carry.buf ? r->carry.buf : "", r->carry.len);
	sb_reset(&r->carry);
}

void redact_stream_free(struct redact_stream *r)
{
	strv_free(r->forms);
	r->forms = NULL;
	sb_free(&r->carry);
}

/* ---- files an agent left behind ---- */

struct scan {
	int64_t since_ms;
	char *const *secrets;
	secret_found_fn fn;
	void *ud;
	int found;
};

static struct scan *scan_now; /* nftw passes no user data */

static int scan_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	struct scan *s = scan_now;
	/* build trees hold compiler output, not what an agent wrote */
	const char *base = path + ftw->base;
	if (type == FTW_D && (!strcmp(base, "target") || !strcmp(base, ".git")))
		return FTW_SKIP_SUBTREE;
	int64_t mtime = (int64_t)st->st_mtim.tv_sec * 1000 + st->st_mtim.tv_nsec / 1000000;
	/* nor is a file past the size of any text an agent writes */
	if (type != FTW_F || !S_ISREG(st->st_mode) || mtime < s->since_ms ||
	    st->st_size > ((off_t)16 << 20))
		return FTW_CONTINUE;
	size_t len;
	char *text = read_file_flags(path, &len, FILE_NOFOLLOW, NULL);
	if (!text)
		return FTW_CONTINUE;
	for (size_t i = 0; s->secrets[i]; i++) {
		const char *eq = strchr(s->secrets[i], '=');
		if (!eq)
			continue;
		char *esc = json_slash_form(eq + 1);
		if (memmem(text, len, eq + 1, strlen(eq + 1)) || memmem(text, len, esc, strlen(esc))) {
			char *name = xstrndup(s->secrets[i], (size_t)(eq - s->secrets[i]));
			s->fn(path, name, s->ud);
			s->found++;
			free(name);
		}
		free(esc);
	}
	free(text);
	return FTW_CONTINUE;
}

int redact_scan_tree(const char *dir, int64_t since_ms, char *const *secrets, secret_found_fn fn,
		     void *ud)
{
	if (!secrets || !secrets[0])
		return 0;
	struct scan s = {since_ms, secrets, fn, ud, 0};
	scan_now = &s;
	nftw(dir, scan_one, 16, FTW_PHYS | FTW_ACTIONRETVAL);
	scan_now = NULL;
	return s.found;
}
