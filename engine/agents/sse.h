/* Server-sent events (text/event-stream), decoded as the bytes arrive:
 * `field: value` lines, `event` and `data` fields (several data lines join
 * with '\n'), comments (':') ignored, lines ended by \n, \r\n or \r, and a
 * blank line dispatching the event. One event's data is capped (16 MiB),
 * and so is one line: past either the stream is stopped and too_big set,
 * never grown without bound nor handed on cut. */
#ifndef TILEPORT_AGENTS_SSE_H
#define TILEPORT_AGENTS_SSE_H

#include <stdbool.h>
#include <stddef.h>

#include "engine/base/lines.h"

#define SSE_EVENT_MAX ((size_t)16 << 20)

struct sse_event {
	const char *event; /* "" when the stream named none */
	const char *data;  /* NUL-terminated */
	size_t len;
};

/* Return non-zero to stop decoding (the rest of the stream is ignored). */
typedef int (*sse_cb)(const struct sse_event *ev, void *ud);

struct sse {
	struct lines lines;
	struct sbuf event, data;
	bool has_data;
	bool stopped;
	bool too_big;
	sse_cb cb;
	void *ud;
};

void sse_init(struct sse *s, sse_cb cb, void *ud);
void sse_feed(struct sse *s, const char *data, size_t n);
/* End of the body: a last line without its newline still counts; an
 * event that never got its blank line is dropped, as the standard says. */
void sse_finish(struct sse *s);
void sse_free(struct sse *s);

#endif
