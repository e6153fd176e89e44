#include "engine/agents/sse.h"

#include <string.h>

#define DATA_MAX SSE_EVENT_MAX
/* A line may hold the whole event's data and its field name; the framer
 * hands on a longer one in pieces of this size, which is how it is seen. */
#define LINE_MAX_BYTES (DATA_MAX + 64)

void sse_init(struct sse *s, sse_cb cb, void *ud)
{
	memset(s, 0, sizeof(*s));
	s->lines.max = LINE_MAX_BYTES;
	s->cb = cb;
	s->ud = ud;
}

static void dispatch(struct sse *s)
{
	if (s->has_data && !s->stopped) {
		if (s->data.len && s->data.buf[s->data.len - 1] == '\n')
			s->data.buf[--s->data.len] = '\0';
		struct sse_event ev = {sb_str(&s->event), sb_str(&s->data), s->data.len};
		if (s->cb(&ev, s->ud))
			s->stopped = true;
	}
	sb_reset(&s->event);
	sb_reset(&s->data);
	s->has_data = false;
}

static void field(struct sse *s, const char *line, size_t n)
{
	if (n == 0) {
		dispatch(s);
		return;
	}
	if (line[0] == ':')
		return;
	const char *colon = memchr(line, ':', n);
	size_t nlen = colon ? (size_t)(colon - line) : n;
	const char *v = colon ? colon + 1 : line + n;
	size_t vlen = (size_t)(line + n - v);
	if (vlen && *v == ' ')
		v++, vlen--;
	if (nlen == 5 && memcmp(line, "event", 5) == 0) {
		sb_reset(&s->event);
		sb_add(&s->event, v, vlen);
	} else if (nlen == 4 && memcmp(line, "data", 4) == 0) {
		if (s->data.len + vlen + 1 > DATA_MAX) {
			s->too_big = s->stopped = true;
			return;
		}
		sb_add(&s->data, v, vlen);
		sb_addc(&s->data, '\n');
		s->has_data = true;
	}
	/* id, retry and unknown fields carry nothing these APIs use */
}

/* A line from the framer; a lone '\r' also ends a line. */
static void on_line(const char *line, size_t n, void *ud)
{
	struct sse *s = ud;
	if (s->stopped)
		return;
	if (n >= LINE_MAX_BYTES) {
		/* a piece of a longer line: its event is past the cap */
		s->too_big = s->stopped = true;
		return;
	}
	if (n && line[n - 1] == '\r')
		n--;
	for (;;) {
		const char *cr = memchr(line, '\r', n);
		if (!cr)
			break;
		field(s, line, (size_t)(cr - line));
		n -= (size_t)(cr - line) + 1;
		line = cr + 1;
	}
	field(s, line, n);
}

void sse_feed(struct sse *s, const char *data, size_t n)
{
	if (!s->stopped)
		lines_feed(&s->lines, data, n, on_line, s);
}

void sse_finish(struct sse *s)
{
	lines_flush(&s->lines, on_line, s);
}

void sse_free(struct sse *s)
{
	lines_free(&s->lines);
	sb_free(&s->event);
	sb_free(&s->data);
}
