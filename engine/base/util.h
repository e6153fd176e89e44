/* Small shared helpers: allocation that cannot fail silently, a growable
 * string buffer, error records that carry an exit code, file and path
 * helpers (atomic writes), clocks, and numbers for people. */
#ifndef TILEPORT_CORE_UTIL_H
#define TILEPORT_CORE_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Exit codes shared by every command (docs/architecture.md, "Conventions"). */
enum tp_exit {
	TP_EXIT_OK = 0,     /* success */
	TP_EXIT_FAILED = 1, /* the checked thing failed (STOP, FAIL verdict) */
	TP_EXIT_USAGE = 2,  /* bad usage or bad input */
	TP_EXIT_ENV = 3,    /* environment missing */
};

#define TP_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

#if defined(__GNUC__)
#define TP_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define TP_NORETURN __attribute__((noreturn))
#else
#define TP_PRINTF(f, a)
#define TP_NORETURN
#endif

/* An error with the exit code it should map to. Functions that can fail
 * take a `struct tp_err *` (may be NULL) and return -1 or NULL. */
struct tp_err {
	int code;
	char msg[1024];
};

void tp_err_set(struct tp_err *e, int code, const char *fmt, ...) TP_PRINTF(3, 4);
void tp_err_clear(struct tp_err *e);

TP_NORETURN void tp_die(const char *fmt, ...) TP_PRINTF(1, 2);

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) TP_PRINTF(1, 2);
char *xvasprintf(const char *fmt, va_list ap) TP_PRINTF(1, 0);

/* Grow an array: ensures room for `need` elements of `size` bytes. */
void *xgrow(void *p, size_t *cap, size_t need, size_t size);

struct sbuf {
	char *buf; /* always NUL-terminated once anything was added */
	size_t len, cap;
};
#define SBUF_INIT {NULL, 0, 0}
void sb_grow(struct sbuf *sb, size_t extra);
void sb_add(struct sbuf *sb, const void *data, size_t n);
void sb_adds(struct sbuf *sb, const char *s);
/* Inline: printers add millions of single characters. */
static inline void sb_addc(struct sbuf *sb, char c)
{
	if (sb->len + 2 > sb->cap)
		sb_grow(sb, 1);
	sb->buf[sb->len++] = c;
	sb->buf[sb->len] = '\0';
}
/* Decimal integers; printf costs a thousand instructions a call, which
 * dominates printers that write millions of numbers. */
void sb_add_int(struct sbuf *sb, int64_t v);
void sb_add_uint(struct sbuf *sb, uint64_t v);
void sb_printf(struct sbuf *sb, const char *fmt, ...) TP_PRINTF(2, 3);
void sb_vprintf(struct sbuf *sb, const char *fmt, va_list ap) TP_PRINTF(2, 0);
void sb_reset(struct sbuf *sb);
void sb_free(struct sbuf *sb);
char *sb_detach(struct sbuf *sb); /* caller frees; never NULL */
const char *sb_str(const struct sbuf *sb); /* "" when empty */

/* A 64-bit hash of n bytes (MurmurHash64A's mixing, 8 bytes a step), for
 * tables and equality tests inside one process: not stable across
 * machines, never written anywhere. */
uint64_t tp_hash(const void *data, size_t n, uint64_t seed);

int mkdir_p(const char *path, int mode, struct tp_err *err);
/* Remove a directory tree (no symlink following). Missing is not an error. */
int remove_tree(const char *path);
bool path_is_dir(const char *path);
bool path_is_file(const char *path);
bool path_is_exec(const char *path);
bool file_nonempty(const char *path);
char *path_join(const char *a, const char *b);
/* The absolute path with links resolved (realpath), or path itself when it
 * does not exist. Caller frees. */
char *path_absolute(const char *path);
/* Find an executable on $PATH (or the path itself if it has a '/'). */
char *which(const char *prog);
/* The same on a given PATH value (NULL: a default system PATH). */
char *which_in(const char *prog, const char *path);
/* Directory holding the program's data (skill/, themes/): $TILEPORT_DATA_DIR,
 * then next to the executable (build tree or PREFIX/share/tileport), then the
 * compiled-in default. Never NULL. */
const char *tp_data_dir(void);
/* This program's own path (/proc/self/exe), or NULL. Caller frees. */
char *tp_self_exe(void);

/* Clocks */
int64_t now_ms(void);       /* monotonic */
int64_t wall_ms(void);      /* realtime, ms since epoch */
void iso8601_utc(int64_t ms, char out[32]);

/* Numbers for people, the same on the screen and in command output. */
/* An age or a time ago: "12s", "5m", "3h", "2d" */
void fmt_age(int64_t ms, char *buf, size_t n);
/* A duration: "0:07", "12:30", "1:02:03" */
void fmt_elapsed(int64_t ms, char *buf, size_t n);
/* A count: "950", "12.3k", "4.5M" */
void fmt_count(long long v, char *buf, size_t n);

/* Test hook for crash safety: with TILEPORT_TEST_CRASH_AT=N the process
 * kills itself with SIGKILL at the Nth call (counting every call site), so
 * tests can interrupt the orchestrator at any state transition without
 * timing. A no-op otherwise. */
void tp_crashpoint(void);
/* A named point, counted like the others; TILEPORT_TEST_CRASH_AT=NAME[:N]
 * kills at the Nth pass of it (default the first), so a test can hit one
 * exact window (docs/pipeline.md, "Crashes and resume", lists them). */
void tp_crashpoint_at(const char *name);

/* Strings */
bool str_starts(const char *s, const char *prefix);
bool str_ends(const char *s, const char *suffix);
char *str_trim(char *s); /* in place; returns s */
/* A decimal count with an optional K, M or G suffix (powers of 1024), as
 * in "64M": 0, or -1 when s is not one or it overflows. */
int str_size(const char *s, unsigned long long *v);
/* Split on `sep`, no empty fields kept unless keep_empty. Caller frees the
 * array and each element with strv_free. */
char **str_split(const char *s, char sep, bool keep_empty, size_t *n);
void strv_free(char **v);
/* "a, b, c": the elements joined by sep (v may be NULL). Caller frees. */
char *strv_join(char *const *v, const char *sep);
size_t strv_len(char *const *v);
/* v with s appended (strv_take: s itself, owned from now on; strv_push: a
 * copy), still NULL-terminated; v may be NULL. Returns the new array. */
char **strv_take(char **v, char *s);
char **strv_push(char **v, const char *s);

#endif
