/* One HTTP POST over libcurl with a streamed reply: the body of a 2xx
 * response goes to the caller as it arrives; any other response is kept
 * (capped) for its error message. The headers that steer retries
 * (Retry-After, retry-after-ms, x-should-retry) are read on the way. There
 * is no total timeout (streams are long): a connect timeout, a stall timer
 * (no byte for stall_s) and a caller's cancel check, asked about once a
 * second and on every chunk. */
#ifndef TILEPORT_AGENTS_HTTP_H
#define TILEPORT_AGENTS_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/base/util.h"

struct http_request {
	const char *url;
	const char *body;
	char *const *headers;       /* "Name: value", NULL-terminated */
	long connect_timeout_s;     /* 0: 30 */
	long stall_s;               /* 0: 300 */
	void (*on_data)(const char *d, size_t n, void *ud);
	bool (*cancelled)(void *ud); /* may be NULL */
	void *ud;
};

struct http_response {
	long status;            /* 0 when no response came */
	int64_t retry_after_ms; /* -1 when the server said nothing */
	int should_retry;       /* x-should-retry: -1 absent, 0 false, 1 true */
	struct sbuf error_body; /* the body of a non-2xx reply (first 64 KiB) */
	bool cancelled;
	char error[256];        /* transport error in words, "" when none */
};

/* Once per process, before any request. */
void http_global_init(void);
/* 0 when a response (of any status) arrived complete; -1 on a transport
 * error, a stall, or a cancel (rs->error says which). */
int http_post(const struct http_request *rq, struct http_response *rs);
void http_response_free(struct http_response *rs);

#endif
