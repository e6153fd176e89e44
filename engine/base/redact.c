#include "engine/base/redact.h"

#include <ctype.h>
#include <errno.h>
#include <ftw.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include <cJSON.h>

#include "engine/base/files.h"

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

/* ---- the spellings of a secret ----
 * A transcript can carry a secret in other spellings than its own: JSON
 * and other escapes of any of its characters (a server that echoes the key
 * \u-escaped, a text that was JSON-encoded twice), and the whole of it in
 * base64 or hex. Each secret is matched in these forms: the value, its
 * base64 and base64url encodings at each of the three alignments (the
 * characters that depend on the secret alone) and its hex in either case;
 * and every character of a form as itself, as \uXXXX, \xXX or %XX (hex in
 * either case), or '/' as "\/", the backslash written up to eight times
 * (a text JSON-encoded again, and again). What is not matched is
 * listed in docs/reliability.md ("Secrets"). */

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* k hex digits at s spell c; *partial when s ends (n) before they do and
 * what is there does not contradict it. */
static bool hex_is(const char *s, size_t n, size_t k, unsigned c, bool *partial)
{
	unsigned v = 0;
	for (size_t i = 0; i < k; i++) {
		if (i >= n) {
			/* the digits still to come can make c only if v is its start */
			if ((c >> (4 * (k - i))) == v)
				*partial = true;
			return false;
		}
		int d = hexval(s[i]);
		if (d < 0)
			return false;
		v = v * 16 + (unsigned)d;
	}
	return v == c;
}

/* The bytes one character c of a secret takes at s, 0 when it is not
 * there; *partial when s ends part-way through a spelling of it. */
static size_t char_at(const char *s, size_t n, unsigned char c, bool *partial)
{
	if (!n) {
		*partial = true;
		return 0;
	}
	if ((unsigned char)s[0] == c)
		return 1;
	if (c >= 0x80)
		return 0; /* escapes spell characters, not the bytes of one */
	if (s[0] == '%')
		return hex_is(s + 1, n - 1, 2, c, partial) ? 3 : 0;
	/* an escape whose backslash is itself escaped (JSON of JSON: \\u0073) */
	size_t b = 0;
	while (b < n && b < 8 && s[b] == '\\')
		b++;
	if (!b)
		return 0;
	if (b >= n) {
		*partial = true;
		return 0;
	}
	if (s[b] == '/' && c == '/')
		return b + 1;
	if (s[b] == 'u')
		return hex_is(s + b + 1, n - b - 1, 4, c, partial) ? b + 5 : 0;
	if (s[b] == 'x')
		return hex_is(s + b + 1, n - b - 1, 2, c, partial) ? b + 3 : 0;
	return 0;
}

/* The length of v spelled at s, 0 when it is not there; *partial when s
 * ends part-way through what could still be it. */
static size_t spelled_at(const char *s, size_t n, const char *v, bool *partial)
{
	size_t at = 0;
	for (; *v; v++) {
		bool part = false;
		size_t k = char_at(s + at, n - at, (unsigned char)*v, &part);
		if (!k) {
			*partial |= part;
			return 0;
		}
		at += k;
	}
	return at;
}

static void encode_base64(struct sbuf *sb, const unsigned char *d, size_t n, bool url)
{
	const char *a = url ? "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
			    : "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned)d[i] << 16 | (i + 1 < n ? (unsigned)d[i + 1] << 8 : 0) |
			     (i + 2 < n ? d[i + 2] : 0);
		for (int k = 0; k < 4; k++)
			sb_addc(sb, a[(v >> (18 - 6 * k)) & 63]);
	}
}

static void add_form(char ***v, size_t *n, size_t *cap, const char *name, size_t nl, const char *form)
{
	for (size_t i = 0; i < *n; i++) {
		const char *eq = strchr((*v)[i], '=');
		if (!strcmp(eq + 1, form))
			return;
	}
	*v = xgrow(*v, cap, *n + 2, sizeof(**v));
	(*v)[(*n)++] = xasprintf("%.*s=%s", (int)nl, name, form);
	(*v)[*n] = NULL;
}

/* The forms of some secrets, and what lets a scan pass over most bytes at
 * once: which bytes can begin a form, and which can follow each. */
struct redact_forms {
	char **v;          /* NAME=FORM */
	const char **val;  /* FORM of each */
	size_t n;
	bool first[256];
	uint8_t second[256][32]; /* bit c1 of row c0: a form begins c0 c1 */
};

static void forms_free(struct redact_forms *f)
{
	if (!f)
		return;
	strv_free(f->v);
	free(f->val);
	free(f);
}

/* NAME=FORM for every form of every secret (see above). */
static char **form_list(char *const *secrets)
{
	char **v = xcalloc(1, sizeof(*v));
	size_t n = 0, cap = 1;
	for (size_t i = 0; secrets && secrets[i]; i++) {
		const char *eq = strchr(secrets[i], '=');
		if (!eq || strlen(eq + 1) < REDACT_MIN_LEN)
			continue;
		const char *name = secrets[i], *val = eq + 1;
		size_t nl = (size_t)(eq - name), vl = strlen(val);
		add_form(&v, &n, &cap, name, nl, val);
		/* base64 of the secret preceded by 0, 1 or 2 other bytes: the
		 * characters made of its bits alone */
		for (size_t lead = 0; lead < 3; lead++) {
			unsigned char *buf = xcalloc(vl + 3, 1);
			memcpy(buf + lead, val, vl);
			size_t first = (8 * lead + 5) / 6, last = (8 * (lead + vl)) / 6; /* [first, last) */
			for (int url = 0; url < 2; url++) {
				struct sbuf sb = SBUF_INIT;
				encode_base64(&sb, buf, lead + vl, url);
				if (last > first) {
					char *core = xstrndup(sb.buf + first, last - first);
					add_form(&v, &n, &cap, name, nl, core);
					free(core);
				}
				sb_free(&sb);
			}
			free(buf);
		}
		for (int upper = 0; upper < 2; upper++) {
			struct sbuf sb = SBUF_INIT;
			for (size_t k = 0; k < vl; k++)
				sb_printf(&sb, upper ? "%02X" : "%02x", (unsigned char)val[k]);
			add_form(&v, &n, &cap, name, nl, sb.buf);
			sb_free(&sb);
		}
	}
	return v;
}

static struct redact_forms *make_forms(char *const *secrets)
{
	struct redact_forms *f = xcalloc(1, sizeof(*f));
	f->v = form_list(secrets);
	f->n = strv_len(f->v);
	f->val = xcalloc(f->n + 1, sizeof(*f->val));
	for (size_t i = 0; i < f->n; i++) {
		const unsigned char *v = (const unsigned char *)strchr(f->v[i], '=') + 1;
		f->val[i] = (const char *)v;
		f->first[v[0]] = true;
		f->second[v[0]][v[1] / 8] |= (uint8_t)(1u << (v[1] % 8));
	}
	return f;
}

/* The forms of the last secrets asked about: redaction runs on every
 * string of every record, with the same few secrets. */
static char **cached_of;
static struct redact_forms *cached_forms;

static struct redact_forms *forms_for(char *const *secrets)
{
	size_t n = strv_len(secrets);
	bool same = cached_of && strv_len(cached_of) == n;
	for (size_t i = 0; same && i < n; i++)
		same = !strcmp(cached_of[i], secrets[i]);
	if (!same) {
		strv_free(cached_of);
		forms_free(cached_forms);
		cached_of = xcalloc(n + 1, sizeof(*cached_of));
		for (size_t i = 0; i < n; i++)
			cached_of[i] = xstrdup(secrets[i]);
		cached_forms = make_forms(secrets);
	}
	return cached_forms;
}

/* The character an escape at s spells, or -1; *partial when s ends inside
 * what could still be one. */
static int escape_at(const char *s, size_t n, bool *partial)
{
	if (s[0] == '%') {
		int hi = n > 1 ? hexval(s[1]) : -2, lo = n > 2 ? hexval(s[2]) : -2;
		if (hi == -2 || (hi >= 0 && lo == -2))
			*partial = true;
		return hi >= 0 && lo >= 0 ? hi * 16 + lo : -1;
	}
	size_t b = 0;
	while (b < n && b < 8 && s[b] == '\\')
		b++;
	if (!b)
		return -1;
	if (b >= n) {
		*partial = true;
		return -1;
	}
	if (s[b] == '/')
		return '/';
	size_t k = s[b] == 'u' ? 4 : s[b] == 'x' ? 2 : 0;
	int v = 0;
	for (size_t i = 0; i < k; i++) {
		if (b + 1 + i >= n) {
			*partial = true;
			return -1;
		}
		int d = hexval(s[b + 1 + i]);
		if (d < 0)
			return -1;
		v = v * 16 + d;
	}
	return k && v < 0x80 ? v : -1;
}

/* Redact text[0, n) into out; with hold, stop where a secret could begin
 * that the text ends too soon to tell, and return that offset (else n). */
static size_t redact_into(struct sbuf *out, const char *text, size_t n, const struct redact_forms *fs, bool hold)
{
	size_t i = 0, plain = 0;
	while (i < n) {
		/* a secret can begin here only with its first character, as itself
		 * or escaped: most bytes are passed over at once */
		unsigned char b = (unsigned char)text[i];
		int esc = -1;
		bool esc_partial = false;
		if (b == '\\' || b == '%')
			esc = escape_at(text + i, n - i, &esc_partial);
		bool raw = fs->first[b];
		if (raw && i + 1 < n) {
			/* ... and then its second, unless that is escaped */
			unsigned char b1 = (unsigned char)text[i + 1];
			raw = b1 == '\\' || b1 == '%' || (fs->second[b][b1 / 8] >> (b1 % 8) & 1);
		}
		if (!raw && !(esc >= 0 && fs->first[esc]) && !(esc_partial && hold)) {
			i++;
			continue;
		}
		/* the longest: a secret that holds another is named for itself */
		size_t len = 0, which = 0;
		bool partial = false;
		for (size_t f = 0; f < fs->n; f++) {
			unsigned char c = (unsigned char)fs->val[f][0];
			if (c != b && (int)c != esc && !esc_partial)
				continue;
			size_t k = spelled_at(text + i, n - i, fs->val[f], &partial);
			if (k > len) {
				len = k;
				which = f;
			}
		}
		if (partial && hold) { /* a longer one may be coming */
			sb_add(out, text + plain, i - plain);
			return i;
		}
		if (!len) {
			i++;
			continue;
		}
		sb_add(out, text + plain, i - plain);
		const char *f = fs->v[which];
		sb_printf(out, "${%.*s}", (int)(strchr(f, '=') - f), f);
		i += len;
		plain = i;
	}
	sb_add(out, text + plain, n - plain);
	return n;
}

char *redact_secrets(const char *text, char *const *secrets)
{
	if (!secrets || !secrets[0])
		return xstrdup(text);
	struct sbuf sb = SBUF_INIT;
	redact_into(&sb, text, strlen(text), forms_for(secrets), false);
	return sb_detach(&sb);
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

void redact_stream_feed(struct redact_stream *r, const char *data, size_t n, struct sbuf *out)
{
	if (!r->secrets || !r->secrets[0]) {
		sb_add(out, data, n);
		return;
	}
	if (!r->forms || r->forms_of != r->secrets) {
		forms_free(r->forms);
		r->forms = make_forms(r->secrets);
		r->forms_of = r->secrets;
	}
	sb_add(&r->carry, data, n);
	/* what could still begin a secret waits for the next read */
	size_t done = redact_into(out, r->carry.buf, r->carry.len, r->forms, true);
	memmove(r->carry.buf, r->carry.buf + done, r->carry.len - done);
	r->carry.len -= done;
	r->carry.buf[r->carry.len] = '\0';
}

void redact_stream_flush(struct redact_stream *r, struct sbuf *out)
{
	if (r->carry.len && r->forms)
		redact_into(out, r->carry.buf, r->carry.len, r->forms, false);
	else
		sb_add(out, r->carry.buf ? r->carry.buf : "", r->carry.len);
	sb_reset(&r->carry);
}

void redact_stream_free(struct redact_stream *r)
{
	forms_free(r->forms);
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
	/* each secret once, in any of its forms */
	for (size_t i = 0; s->secrets[i]; i++) {
		char *one[] = {s->secrets[i], NULL};
		struct redact_forms *forms = make_forms(one);
		struct sbuf red = SBUF_INIT;
		redact_into(&red, text, len, forms, false);
		if (forms->n && (red.len != len || memcmp(red.buf, text, len))) {
			char *name = xstrndup(s->secrets[i], strcspn(s->secrets[i], "="));
			s->fn(path, name, s->ud);
			s->found++;
			free(name);
		}
		sb_free(&red);
		forms_free(forms);
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
