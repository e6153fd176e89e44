/* Splitting a byte stream into lines as it arrives: reads end anywhere,
 * inside a line or a UTF-8 sequence, so bytes are kept until their '\n'.
 * A line longer than the cap is handed on in pieces of the cap's size, so
 * a runaway writer cannot grow the buffer without bound. Used for agent
 * stdout and stderr, NDJSON event streams and SSE bodies. */
#ifndef TILEPORT_CORE_LINES_H
#define TILEPORT_CORE_LINES_H

#include <stddef.h>

#include "engine/base/util.h"

/* One complete line, without its '\n' (a trailing '\r' is kept). */
typedef void (*lines_cb)(const char *line, size_t n, void *ud);

struct lines {
	struct sbuf partial;
	size_t max; /* cap on one line; 0: 1 MiB */
};

void lines_feed(struct lines *l, const char *data, size_t n, lines_cb cb, void *ud);
/* End of the stream: a last line without '\n' is handed on. */
void lines_flush(struct lines *l, lines_cb cb, void *ud);
void lines_free(struct lines *l);

#endif
