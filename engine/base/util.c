#include "engine/base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void tp_err_set(struct tp_err *e, int code, const char *fmt, ...)
{
	if (!e)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	e->code = code;
}

void tp_err_clear(struct tp_err *e)
{
	if (e) {
		e->code = 0;
		e->msg[0] = '\0';
	}
}

void tp_die(const char *fmt, ...)
{
	va_list ap;
	fputs("tileport: fatal: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		tp_die("out of memory (%zu bytes)", n);
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		tp_die("out of memory");
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		tp_die("out of memory (%zu bytes)", n);
	return p;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *p = xmalloc(len + 1);
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

char *xvasprintf(const char *fmt, va_list ap)
{
	struct sbuf sb = SBUF_INIT;
	sb_vprintf(&sb, fmt, ap);
	return sb_detach(&sb);
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = xvasprintf(fmt, ap);
	va_end(ap);
	return s;
}

void *xgrow(void *p, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return p;
	size_t n = *cap ? *cap : 8;
	while (n < need) {
		if (n > SIZE_MAX / 2 / size)
			tp_die("array too large");
		n *= 2;
	}
	*cap = n;
	return xrealloc(p, n * size);
}

void sb_grow(struct sbuf *sb, size_t extra)
{
	size_t need = sb->len + extra + 1;
	if (need <= sb->cap)
		return;
	size_t n = sb->cap ? sb->cap : 64;
	while (n < need)
		n *= 2;
	sb->buf = xrealloc(sb->buf, n);
	sb->cap = n;
}

void sb_add(struct sbuf *sb, const void *data, size_t n)
{
	if (sb->len + n + 1 > sb->cap)
		sb_grow(sb, n);
	if (n)
		memcpy(sb->buf + sb->len, data, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void sb_adds(struct sbuf *sb, const char *s)
{
	sb_add(sb, s, strlen(s));
}


void sb_add_uint(struct sbuf *sb, uint64_t v)
{
	char tmp[20];
	size_t n = 0;
	do {
		tmp[sizeof(tmp) - ++n] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	sb_add(sb, tmp + sizeof(tmp) - n, n);
}

void sb_add_int(struct sbuf *sb, int64_t v)
{
	if (v < 0) {
		sb_addc(sb, '-');
		sb_add_uint(sb, -(uint64_t)v);
	} else {
		sb_add_uint(sb, (uint64_t)v);
	}
}

uint64_t tp_hash(const void *data, size_t n, uint64_t seed)
{
	const uint64_t m = 0xc6a4a7935bd1e995ULL;
	const unsigned char *p = data;
	uint64_t h = seed ^ (n * m);
	for (; n >= 8; n -= 8, p += 8) {
		uint64_t k;
		memcpy(&k, p, 8);
		k *= m;
		k ^= k >> 47;
		k *= m;
		h ^= k;
		h *= m;
	}
	if (n) {
		uint64_t k = 0;
		memcpy(&k, p, n);
		h ^= k;
		h *= m;
	}
	h ^= h >> 47;
	h *= m;
	h ^= h >> 47;
	return h;
}

void sb_vprintf(struct sbuf *sb, const char *fmt, va_list ap)
{
	va_list cp;
	va_copy(cp, ap);
	int n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		tp_die("bad format string");
	sb_grow(sb, (size_t)n);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	sb->len += (size_t)n;
}

void sb_printf(struct sbuf *sb, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sb_vprintf(sb, fmt, ap);
	va_end(ap);
}

void sb_reset(struct sbuf *sb)
{
	sb->len = 0;
	if (sb->buf)
		sb->buf[0] = '\0';
}

void sb_free(struct sbuf *sb)
{
	free(sb->buf);
	sb->buf = NULL;
	sb->len = sb->cap = 0;
}

char *sb_detach(struct sbuf *sb)
{
	char *s = sb->buf ? sb->buf : xstrdup("");
	sb->buf = NULL;
	sb->len = sb->cap = 0;
	return s;
}

const char *sb_str(const struct sbuf *sb)
{
	return sb->buf ? sb->buf : "";
}

int mkdir_p(const char *path, int mode, struct tp_err *err)
{
	char *p = xstrdup(path);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, (mode_t)mode) < 0 && errno != EEXIST) {
			tp_err_set(err, TP_EXIT_ENV, "%s: cannot create directory: %s", p,
				   strerror(errno));
			free(p);
			return -1;
		}
		*s = '/';
	}
	if (mkdir(p, (mode_t)mode) < 0 && errno != EEXIST) {
		tp_err_set(err, TP_EXIT_ENV, "%s: cannot create directory: %s", p, strerror(errno));
		free(p);
		return -1;
	}
	free(p);
	if (!path_is_dir(path)) {
		tp_err_set(err, TP_EXIT_ENV, "%s: exists and is not a directory", path);
		return -1;
	}
	return 0;
}

static int rm_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type == FTW_DP)
		return rmdir(path) < 0 && errno != ENOENT ? -1 : 0;
	return unlink(path) < 0 && errno != ENOENT ? -1 : 0;
}

int remove_tree(const char *path)
{
	struct stat st;
	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode))
		return unlink(path);
	return nftw(path, rm_one, 32, FTW_DEPTH | FTW_PHYS);
}

bool path_is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool path_is_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

bool path_is_exec(const char *path)
{
	return path_is_file(path) && access(path, X_OK) == 0;
}

bool file_nonempty(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
}

char *path_join(const char *a, const char *b)
{
	if (!a || !*a || b[0] == '/')
		return xstrdup(b);
	size_t la = strlen(a);
	return xasprintf("%s%s%s", a, a[la - 1] == '/' ? "" : "/", b);
}

char *path_absolute(const char *path)
{
	char buf[PATH_MAX];
	return realpath(path, buf) ? xstrdup(buf) : xstrdup(path);
}

char *which(const char *prog)
{
	return which_in(prog, getenv("PATH"));
}

char *which_in(const char *prog, const char *path)
{
	if (!prog || !*prog)
		return NULL;
	if (strchr(prog, '/'))
		return path_is_exec(prog) ? xstrdup(prog) : NULL;
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	size_t n;
	char **dirs = str_split(path, ':', false, &n);
	char *found = NULL;
	for (size_t i = 0; i < n && !found; i++) {
		char *cand = path_join(dirs[i], prog);
		if (path_is_exec(cand))
			found = cand;
		else
			free(cand);
	}
	strv_free(dirs);
	return found;
}

static bool has_skill(const char *dir)
{
	char *p = path_join(dir, "skill/pipeline.json");
	bool ok = path_is_file(p);
	free(p);
	return ok;
}

char *tp_self_exe(void)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	return xstrdup(exe);
}

const char *tp_data_dir(void)
{
	static char *dir;
	if (dir)
		return dir;
	const char *env = getenv("TILEPORT_DATA_DIR");
	if (env && *env) {
		dir = xstrdup(env);
		return dir;
	}
	char *cur = tp_self_exe();
	if (cur) {
		/* Walk up from the binary: build/<mode>/tileport sits two levels
		 * below the source tree; an installed one has ../share/tileport. */
		for (int up = 0; up < 4 && !dir; up++) {
			char *slash = strrchr(cur, '/');
			if (!slash || slash == cur)
				break;
			*slash = '\0';
			char *share = path_join(cur, "share/tileport");
			if (has_skill(share))
				dir = share;
			else
				free(share);
			if (!dir && has_skill(cur))
				dir = xstrdup(cur);
		}
		free(cur);
	}
	if (!dir)
		dir = xstrdup(TILEPORT_DATADIR);
	return dir;
}

int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t wall_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void iso8601_utc(int64_t ms, char out[32])
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static long crash_count;

static void crash_count_write(void)
{
	const char *path = getenv("TILEPORT_TEST_CRASH_COUNT");
	char buf[32];
	int n = snprintf(buf, sizeof(buf), "%ld\n", crash_count);
	/* a test's counter: plain write(2), so util.c needs nothing of files.c */
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd >= 0) {
		if (write(fd, buf, (size_t)n) != n) {
			/* the test reading it reports the missing count */
		}
		close(fd);
	}
}

void tp_crashpoint_at(const char *name)
{
	static long at = -1, nth;
	static char want[64];
	static long seen;
	if (at < 0) {
		const char *e = getenv("TILEPORT_TEST_CRASH_AT");
		at = 0;
		if (e && *e >= '0' && *e <= '9') {
			at = atol(e);
		} else if (e && *e) {
			/* NAME or NAME:N, the Nth time the point called NAME is passed */
			const char *colon = strchr(e, ':');
			size_t n = colon ? (size_t)(colon - e) : strlen(e);
			snprintf(want, sizeof(want), "%.*s", (int)n, e);
			nth = colon ? atol(colon + 1) : 1;
		}
		/* TILEPORT_TEST_CRASH_COUNT=FILE: how many points a whole run passes */
		if (getenv("TILEPORT_TEST_CRASH_COUNT"))
			atexit(crash_count_write);
	}
	crash_count++;
	if (at > 0 && crash_count == at)
		raise(SIGKILL);
	if (name && want[0] && !strcmp(name, want) && ++seen == nth)
		raise(SIGKILL);
}

void tp_crashpoint(void)
{
	tp_crashpoint_at(NULL);
}

bool str_starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

bool str_ends(const char *s, const char *suffix)
{
	size_t ls = strlen(s), lx = strlen(suffix);
	return ls >= lx && memcmp(s + ls - lx, suffix, lx) == 0;
}

int str_size(const char *s, unsigned long long *v)
{
	char *end;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 10);
	if (end == s || *s == '-' || errno)
		return -1; /* no digits ("M"), a sign, or too large */
	int shift = 0;
	if (*end == 'K' || *end == 'k')
		shift = 10, end++;
	else if (*end == 'M' || *end == 'm')
		shift = 20, end++;
	else if (*end == 'G' || *end == 'g')
		shift = 30, end++;
	if (*end || x > (ULLONG_MAX >> shift))
		return -1;
	*v = x << shift;
	return 0;
}

char *str_trim(char *s)
{
	char *p = s;
	while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
		p++;
	size_t n = strlen(p);
	while (n && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\r' || p[n - 1] == '\n'))
		n--;
	memmove(s, p, n);
	s[n] = '\0';
	return s;
}

char **str_split(const char *s, char sep, bool keep_empty, size_t *n)
{
	size_t cap = 0, cnt = 0;
	char **v = NULL;
	const char *start = s;
	for (const char *p = s;; p++) {
		if (*p == sep || *p == '\0') {
			if (p > start || keep_empty) {
				v = xgrow(v, &cap, cnt + 2, sizeof(*v));
				v[cnt++] = xstrndup(start, (size_t)(p - start));
			}
			if (*p == '\0')
				break;
			start = p + 1;
		}
	}
	v = xgrow(v, &cap, cnt + 1, sizeof(*v));
	v[cnt] = NULL;
	if (n)
		*n = cnt;
	return v;
}

char *strv_join(char *const *v, const char *sep)
{
	struct sbuf sb = SBUF_INIT;
	for (size_t i = 0; v && v[i]; i++) {
		if (i)
			sb_adds(&sb, sep);
		sb_adds(&sb, v[i]);
	}
	return sb_detach(&sb);
}

void strv_free(char **v)
{
	if (!v)
		return;
	for (char **p = v; *p; p++)
		free(*p);
	free(v);
}

size_t strv_len(char *const *v)
{
	size_t n = 0;
	while (v && v[n])
		n++;
	return n;
}

char **strv_take(char **v, char *s)
{
	size_t n = strv_len(v);
	v = xrealloc(v, (n + 2) * sizeof(*v));
	v[n] = s;
	v[n + 1] = NULL;
	return v;
}

char **strv_push(char **v, const char *s)
{
	return strv_take(v, xstrdup(s));
}

/* ---- numbers for people ---- */

void fmt_age(int64_t ms, char *buf, size_t n)
{
	int64_t s = ms / 1000;
	if (s < 0)
		s = 0;
	if (s < 60)
		snprintf(buf, n, "%llds", (long long)s);
	else if (s < 3600)
		snprintf(buf, n, "%lldm", (long long)(s / 60));
	else if (s < 86400)
		snprintf(buf, n, "%lldh", (long long)(s / 3600));
	else
		snprintf(buf, n, "%lldd", (long long)(s / 86400));
}

void fmt_elapsed(int64_t ms, char *buf, size_t n)
{
	long long s = ms > 0 ? (long long)(ms / 1000) : 0;
	if (s >= 3600)
		snprintf(buf, n, "%lld:%02lld:%02lld", s / 3600, s / 60 % 60, s % 60);
	else
		snprintf(buf, n, "%lld:%02lld", s / 60, s % 60);
}

void fmt_count(long long v, char *buf, size_t n)
{
	if (v < 1000)
		snprintf(buf, n, "%lld", v);
	else if (v < 1000000)
		snprintf(buf, n, "%.1fk", (double)v / 1e3);
	else
		snprintf(buf, n, "%.1fM", (double)v / 1e6);
}
