#include "engine/base/lines.h"

#include <string.h>

void lines_feed(struct lines *l, const char *data, size_t n, lines_cb cb, void *ud)
{
	size_t max = l->max ? l->max : (size_t)1 << 20;
	while (n) {
		const char *nl = memchr(data, '\n', n);
		size_t k = nl ? (size_t)(nl - data) : n;
		if (l->partial.len + k >= max) {
			size_t room = max - l->partial.len;
			sb_add(&l->partial, data, room);
			cb(l->partial.buf, l->partial.len, ud);
			sb_reset(&l->partial);
			data += room;
			n -= room;
			continue;
		}
		if (!nl) {
			sb_add(&l->partial, data, n);
			return;
		}
		if (l->partial.len) {
			sb_add(&l->partial, data, k);
			cb(l->partial.buf, l->partial.len, ud);
			sb_reset(&l->partial);
		} else {
			cb(data, k, ud);
		}
		data += k + 1;
		n -= k + 1;
	}
}

void lines_flush(struct lines *l, lines_cb cb, void *ud)
{
	if (l->partial.len) {
		cb(l->partial.buf, l->partial.len, ud);
		sb_reset(&l->partial);
	}
}

void lines_free(struct lines *l)
{
	sb_free(&l->partial);
}
