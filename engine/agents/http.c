#include "engine/agents/http.h"

#include <ctype.h>
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define ERROR_BODY_MAX ((size_t)64 << 10)

struct xfer {
	const struct http_request *rq;
	struct http_response *rs;
};

void http_global_init(void)
{
	curl_global_init(CURL_GLOBAL_DEFAULT);
}

static bool ok_status(long s)
{
	return s >= 200 && s < 300;
}

static size_t on_body(char *d, size_t size, size_t nmemb, void *ud)
{
	struct xfer *x = ud;
	size_t n = size * nmemb;
	if (!ok_status(x->rs->status)) {
		size_t room = ERROR_BODY_MAX - x->rs->error_body.len;
		sb_add(&x->rs->error_body, d, n < room ? n : room);
		return n;
	}
	if (x->rq->on_data)
		x->rq->on_data(d, n, x->rq->ud);
	if (x->rq->cancelled && x->rq->cancelled(x->rq->ud)) {
		x->rs->cancelled = true;
		return 0; /* aborts the transfer */
	}
	return n;
}

/* "Name: value" -> value (trimmed) when the name matches. */
static char *header_value(const char *line, size_t n, const char *name)
{
	size_t k = strlen(name);
	if (n <= k || strncasecmp(line, name, k) != 0 || line[k] != ':')
		return NULL;
	const char *v = line + k + 1, *end = line + n;
	while (v < end && isspace((unsigned char)*v))
		v++;
	while (end > v && isspace((unsigned char)end[-1]))
		end--;
	return xstrndup(v, (size_t)(end - v));
}

static size_t on_header(char *d, size_t size, size_t nmemb, void *ud)
{
	struct xfer *x = ud;
	size_t n = size * nmemb;
	if (n > 5 && strncmp(d, "HTTP/", 5) == 0) {
		/* a new response (after a 100 Continue, say): its own headers */
		const char *sp = memchr(d, ' ', n);
		x->rs->status = sp ? strtol(sp + 1, NULL, 10) : 0;
		x->rs->retry_after_ms = -1;
		x->rs->should_retry = -1;
		return n;
	}
	char *v;
	if ((v = header_value(d, n, "retry-after-ms"))) {
		char *end;
		double ms = strtod(v, &end);
		if (end != v && ms >= 0)
			x->rs->retry_after_ms = (int64_t)ms;
	} else if ((v = header_value(d, n, "retry-after"))) {
		char *end;
		double s = strtod(v, &end);
		/* retry-after-ms, when both come, is the finer one */
		if (x->rs->retry_after_ms < 0) {
			if (end != v && !*end && s >= 0) {
				x->rs->retry_after_ms = (int64_t)(s * 1000);
			} else {
				time_t when = curl_getdate(v, NULL);
				if (when > 0) {
					int64_t d_ms = (int64_t)(when - time(NULL)) * 1000;
					x->rs->retry_after_ms = d_ms > 0 ? d_ms : 0;
				}
			}
		}
	} else if ((v = header_value(d, n, "x-should-retry"))) {
		x->rs->should_retry = !strcasecmp(v, "true") ? 1 : !strcasecmp(v, "false") ? 0 : -1;
	}
	free(v);
	return n;
}

static int on_progress(void *ud, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
	struct xfer *x = ud;
	(void)dt, (void)dn, (void)ut, (void)un;
	if (x->rq->cancelled && x->rq->cancelled(x->rq->ud)) {
		x->rs->cancelled = true;
		return 1;
	}
	return 0;
}

int http_post(const struct http_request *rq, struct http_response *rs)
{
	memset(rs, 0, sizeof(*rs));
	rs->retry_after_ms = -1;
	rs->should_retry = -1;
	CURL *c = curl_easy_init();
	if (!c) {
		snprintf(rs->error, sizeof(rs->error), "libcurl could not start a request");
		return -1;
	}
	struct curl_slist *hl = NULL;
	for (size_t i = 0; rq->headers && rq->headers[i]; i++)
		hl = curl_slist_append(hl, rq->headers[i]);
	struct xfer x = {rq, rs};
	char errbuf[CURL_ERROR_SIZE] = "";
	curl_easy_setopt(c, CURLOPT_URL, rq->url);
	curl_easy_setopt(c, CURLOPT_POST, 1L);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, rq->body);
	curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(rq->body));
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hl);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &x);
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(c, CURLOPT_HEADERDATA, &x);
	curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
	curl_easy_setopt(c, CURLOPT_XFERINFODATA, &x);
	curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, rq->connect_timeout_s ? rq->connect_timeout_s : 30L);
	curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
	curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, rq->stall_s ? rq->stall_s : 300L);
	curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "");
	/* a proxy in the environment applies, as for any curl; never for loopback */
	curl_easy_setopt(c, CURLOPT_NOPROXY, "127.0.0.1,localhost,::1");
	CURLcode rc = curl_easy_perform(c);
	long status = 0;
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	if (status)
		rs->status = status;
	curl_slist_free_all(hl);
	curl_easy_cleanup(c);
	if (rc == CURLE_OK)
		return 0;
	if (rs->cancelled)
		snprintf(rs->error, sizeof(rs->error), "cancelled");
	else if (rc == CURLE_OPERATION_TIMEDOUT)
		snprintf(rs->error, sizeof(rs->error), "%s", *errbuf ? errbuf : "timed out");
	else
		snprintf(rs->error, sizeof(rs->error), "%s", *errbuf ? errbuf : curl_easy_strerror(rc));
	return -1;
}

void http_response_free(struct http_response *rs)
{
	sb_free(&rs->error_body);
}
