/* Secrets (docs/reliability.md, "Secrets"): which environment values are
 * secret, and hiding them in everything tileport writes. A secret is the
 * value, at least REDACT_MIN_LEN characters long, of a variable whose name
 * contains KEY, TOKEN, SECRET, PASSWORD, PASSWD or CREDENTIAL in any case
 * (OPENAI_API_KEY, my_api_key), or of a variable the config names in
 * `secret_vars`. It is written as "${NAME}", so that a shell command keeps
 * its meaning where NAME is set. */
#ifndef TILEPORT_CORE_REDACT_H
#define TILEPORT_CORE_REDACT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/base/util.h"

/* Shorter values would match too much ordinary text. */
#define REDACT_MIN_LEN 8

struct cJSON;

/* Does this variable name say it holds a secret? */
bool secret_name(const char *name, size_t n);
/* The NAME=VALUE entries of env that are secret: by their name, or named
 * in marked (a comma- or space-separated list; may be NULL). Caller frees
 * with strv_free. */
char **env_secrets(char *const *env, const char *marked);
/* text with every value of secrets (NAME=VALUE entries) replaced by
 * "${NAME}": as it is, escaped character by character (\uXXXX, \xXX, %XX,
 * '/' as \/, mixed, the backslash itself escaped), and in base64, base64url
 * or hex (docs/reliability.md, "Secrets", lists what is not caught).
 * Caller frees. */
char *redact_secrets(const char *text, char *const *secrets);
/* Every string in a parsed JSON value (keys too), redacted in place: a
 * secret that was written with JSON escapes (\/, \u0041) is caught here,
 * once decoded. True when anything changed. */
bool redact_json(struct cJSON *j, char *const *secrets);

/* A byte stream redacted as it comes, before it is cut into lines or
 * records: the bytes at the end of a read that could begin a secret are
 * held back until the next read shows whether they do. Each secret is
 * matched in every spelling redact_secrets knows, since a record too long
 * or too broken to decode is kept as raw bytes. */
struct redact_forms;
struct redact_stream {
	char *const *secrets; /* borrowed */
	struct redact_forms *forms; /* every spelling of them, made on first use */
	char *const *forms_of; /* the secrets they were made from */
	struct sbuf carry;
};
void redact_stream_feed(struct redact_stream *r, const char *data, size_t n, struct sbuf *out);
/* The end of the stream: what was held back goes out. */
void redact_stream_flush(struct redact_stream *r, struct sbuf *out);
void redact_stream_free(struct redact_stream *r);

/* Files under dir changed at or after since_ms (wall clock) that hold a
 * secret value, raw or JSON-escaped: fn(path, name) for each one found
 * (the file is left as it is: reported, never edited). Build trees
 * (target/, .git/) and files over 16 MiB are not read. Returns how many. */
typedef void (*secret_found_fn)(const char *path, const char *name, void *ud);
int redact_scan_tree(const char *dir, int64_t since_ms, char *const *secrets, secret_found_fn fn,
		     void *ud);

#endif
