/* The text view: any file, fast on huge ones. Only line start offsets are
 * kept (8 bytes a line); lines are read with pread when drawn, the index
 * is built in slices between frames, search scans the file in large
 * blocks, and a followed file is re-read as it grows (stderr.log of a
 * live stage). Lines are typed by a few cheap content rules. With `w` long
 * lines wrap: each line's screen rows are then counted (reading the lines
 * in slices, again on a resize) and the view's lines are screen rows. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/base/files.h"
#include "views/view.h"
#include "views/width.h"

#define SCAN_BLOCK (1u << 20)
#define LINE_MAX_READ (64u * 1024)

enum text_kind { KIND_PLAIN, KIND_MARKDOWN, KIND_DIFF };

struct text {
	char *path;
	int fd;
	enum text_kind kind;
	uint64_t *starts;  /* start offset of every line, plus one pending */
	size_t nstarts, capstarts;
	uint64_t scanned;  /* bytes indexed */
	char *block;       /* SCAN_BLOCK bytes for indexing and search */
	char *linebuf;     /* one line being drawn */
	size_t linecap;
	bool wrap;
	int wrap_width;    /* the width rows were counted for */
	size_t *rowstart;  /* wrap: the first screen row of each line measured */
	size_t measured, caprows;
};

static size_t visible_lines(const struct text *t)
{
	if (t->nstarts == 0)
		return 0;
	/* The last start is a line only once something follows it. */
	return t->starts[t->nstarts - 1] < t->scanned ? t->nstarts : t->nstarts - 1;
}

static void push_start(struct text *t, uint64_t off)
{
	t->starts = xgrow(t->starts, &t->capstarts, t->nstarts + 1, sizeof(*t->starts));
	t->starts[t->nstarts++] = off;
}

static size_t fetch(struct text *t, size_t idx, bool *cut);

/* Where a wrapped line's next row starts: as many bytes as fit the width,
 * at least one character. */
static size_t row_bytes(const char *s, size_t n, int width)
{
	size_t used;
	size_t fit = str_fit(s, n, (size_t)(width > 0 ? width : 1), 0, &used);
	if (!fit && n) {
		wchar_t wc;
		fit = utf8_next(s, n, &wc);
	}
	return fit;
}

static size_t rows_of_line(struct text *t, size_t idx, int width)
{
	bool cut;
	size_t n = fetch(t, idx, &cut), rows = 0;
	for (size_t at = 0; at < n; at += row_bytes(t->linebuf + at, n - at, width))
		rows++;
	return rows ? rows : 1;
}

static size_t total_rows(const struct text *t)
{
	return t->measured ? t->rowstart[t->measured] : 0;
}

/* Count the rows of lines not measured yet, within the time left. */
static bool measure(struct view *v, int64_t end)
{
	struct text *t = v->priv;
	size_t n = visible_lines(t);
	while (t->measured < n) {
		t->rowstart = xgrow(t->rowstart, &t->caprows, t->measured + 2, sizeof(*t->rowstart));
		if (!t->measured)
			t->rowstart[0] = 0;
		t->rowstart[t->measured + 1] = t->rowstart[t->measured] + rows_of_line(t, t->measured, v->width);
		t->measured++;
		if ((t->measured & 255) == 0 && now_ms() >= end)
			return true;
	}
	return false;
}

/* The line a screen row belongs to, and which of its rows it is. */
static size_t line_of_row(const struct text *t, size_t row, size_t *sub)
{
	size_t lo = 0, hi = t->measured;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->rowstart[mid] <= row)
			lo = mid;
		else
			hi = mid;
	}
	*sub = row - t->rowstart[lo];
	return lo;
}

/* Rows in wrap mode, lines otherwise: what the view shows. */
static size_t shown(const struct text *t)
{
	return t->wrap ? total_rows(t) : visible_lines(t);
}

static bool text_pump(struct view *v, int64_t budget_ms)
{
	struct text *t = v->priv;
	int64_t end = now_ms() + budget_ms;
	for (;;) {
		ssize_t r = pread(t->fd, t->block, SCAN_BLOCK, (off_t)t->scanned);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		const char *p = t->block, *e = t->block + r;
		while (p < e) {
			const char *nl = memchr(p, '\n', (size_t)(e - p));
			if (!nl)
				break;
			push_start(t, t->scanned + (uint64_t)(nl - t->block) + 1);
			p = nl + 1;
		}
		t->scanned += (uint64_t)r;
		if (now_ms() >= end) {
			view_set_lines(v, shown(t));
			return true;
		}
	}
	bool more = t->wrap && measure(v, end);
	view_set_lines(v, shown(t));
	return more;
}

/* Lay the rows out again for a new width (wrap) or none. */
static void relayout(struct view *v, size_t keep_line)
{
	struct text *t = v->priv;
	t->measured = 0;
	t->wrap_width = v->width;
	if (t->wrap) {
		measure(v, now_ms() + 200);
		v->loading = t->measured < visible_lines(t);
	}
	view_set_lines(v, shown(t));
	size_t row = keep_line;
	if (t->wrap)
		row = keep_line < t->measured ? t->rowstart[keep_line] : total_rows(t);
	view_select(v, row < v->nlines ? row : v->nlines ? v->nlines - 1 : 0);
	view_redraw(v);
}

/* The file line shown on screen row idx. */
static size_t file_line(const struct text *t, size_t idx)
{
	size_t sub;
	return t->wrap && t->measured ? line_of_row(t, idx, &sub) : idx;
}

static void text_resize(struct view *v)
{
	struct text *t = v->priv;
	if (t->wrap && v->width != t->wrap_width)
		relayout(v, file_line(t, v->lineno));
}

static int text_open(struct view *v, const struct view_arg *arg, struct tp_err *err)
{
	struct text *t = v->priv;
	t->fd = -1;
	if (!arg->path) {
		tp_err_set(err, TP_EXIT_USAGE, "text view: no file given");
		return -1;
	}
	t->fd = file_open_read(arg->path, 0, err); /* a FIFO or a directory is refused */
	if (t->fd < 0)
		return -1;
	t->path = xstrdup(arg->path);
	v->ref = xstrdup(arg->name ? arg->name : arg->path);
	if (str_ends(t->path, ".md"))
		t->kind = KIND_MARKDOWN;
	else if (str_ends(t->path, ".diff") || str_ends(t->path, ".patch"))
		t->kind = KIND_DIFF;
	t->block = xmalloc(SCAN_BLOCK);
	push_start(t, 0);
	v->loading = text_pump(v, 5);
	if (arg->line > 0)
		view_select(v, (size_t)arg->line - 1);
	return 0;
}

/* Read line idx into t->linebuf (without its newline), at most
 * LINE_MAX_READ bytes; *cut says whether it was longer. */
static size_t fetch(struct text *t, size_t idx, bool *cut)
{
	uint64_t start = t->starts[idx];
	uint64_t end = idx + 1 < t->nstarts ? t->starts[idx + 1] : t->scanned;
	uint64_t len = end - start;
	*cut = false;
	if (len > LINE_MAX_READ) {
		len = LINE_MAX_READ;
		*cut = true;
	}
	if (len + 1 > t->linecap) {
		t->linecap = (size_t)len + 1;
		t->linebuf = xrealloc(t->linebuf, t->linecap);
	}
	ssize_t r = pread(t->fd, t->linebuf, (size_t)len, (off_t)start);
	size_t n = r > 0 ? (size_t)r : 0;
	if (!*cut && n && t->linebuf[n - 1] == '\n')
		n--;
	if (n && t->linebuf[n - 1] == '\r')
		n--;
	t->linebuf[n] = '\0';
	return n;
}

static bool word_at(const char *s, size_t n, const char *w)
{
	size_t k = strlen(w);
	while (n && (*s == ' ' || *s == '[' || *s == '-' || *s == '*'))
		s++, n--;
	return n >= k && memcmp(s, w, k) == 0;
}

static enum line_type classify(const struct text *t, const char *s, size_t n)
{
	if (t->kind == KIND_DIFF) {
		if (n >= 4 && (!memcmp(s, "+++ ", 4) || !memcmp(s, "--- ", 4) || !memcmp(s, "diff", 4)))
			return LINE_DIFF_HEADER;
		if (n >= 2 && !memcmp(s, "@@", 2))
			return LINE_DIFF_HUNK;
		if (n && s[0] == '+')
			return LINE_DIFF_ADD;
		if (n && s[0] == '-')
			return LINE_DIFF_DEL;
		return LINE_DEFAULT;
	}
	if (t->kind == KIND_MARKDOWN && n && s[0] == '#')
		return LINE_SECTION;
	if (word_at(s, n, "VERDICT:"))
		return LINE_TX_VERDICT;
	if (word_at(s, n, "CRITICAL"))
		return LINE_FINDING_CRITICAL;
	if (word_at(s, n, "FAIL") || word_at(s, n, "ERROR") || word_at(s, n, "error:"))
		return LINE_FINDING_ERROR;
	if (word_at(s, n, "WARN") || word_at(s, n, "warning:"))
		return LINE_FINDING_WARN;
	if (word_at(s, n, "INFO"))
		return LINE_FINDING_INFO;
	if (word_at(s, n, "PASS") || word_at(s, n, "OK:"))
		return LINE_VERDICT_OK;
	if (n >= 2 && s[0] == '$' && s[1] == ' ')
		return LINE_LABEL;
	return LINE_DEFAULT;
}

static void text_line(struct view *v, size_t idx, struct line_out *out)
{
	struct text *t = v->priv;
	bool cut;
	size_t sub = 0;
	size_t line = t->wrap ? line_of_row(t, idx, &sub) : idx;
	size_t n = fetch(t, line, &cut);
	enum line_type type = classify(t, t->linebuf, n);
	lo_reset(out, type);
	size_t at = 0, len = n;
	if (t->wrap) {
		for (size_t k = 0; k < sub && at < n; k++)
			at += row_bytes(t->linebuf + at, n - at, v->width);
		len = at < n ? row_bytes(t->linebuf + at, n - at, v->width) : 0;
		cut &= at + len >= n; /* the ~ of a line too long to read, at its end */
	}
	lo_add(out, type, t->linebuf + at, len);
	if (cut)
		lo_adds(out, LINE_DELIMITER, "~");
}

/* Line holding byte offset `off`. */
static size_t line_of(const struct text *t, uint64_t off)
{
	size_t lo = 0, hi = t->nstarts;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->starts[mid] <= off)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* First match in [from, to), or -1. Blocks overlap by the pattern length
 * so a match across a block edge is seen. */
static int64_t scan_forward(struct text *t, uint64_t from, uint64_t to, const struct view_search *s)
{
	size_t m = strlen(s->pattern);
	while (from < to) {
		size_t want = to - from < SCAN_BLOCK ? (size_t)(to - from) : SCAN_BLOCK;
		ssize_t r = pread(t->fd, t->block, want, (off_t)from);
		if (r <= 0)
			return -1;
		const char *hit = view_search_in(s, t->block, (size_t)r);
		if (hit)
			return (int64_t)(from + (uint64_t)(hit - t->block));
		if ((size_t)r < m || from + (uint64_t)r >= to)
			return -1;
		from += (uint64_t)r - (m - 1);
	}
	return -1;
}

/* Last match starting in [from, to), or -1. */
static int64_t scan_backward(struct text *t, uint64_t from, uint64_t to, const struct view_search *s)
{
	size_t m = strlen(s->pattern);
	uint64_t hi = to;
	while (hi > from) {
		uint64_t lo = hi - from > SCAN_BLOCK ? hi - SCAN_BLOCK : from;
		uint64_t end = hi + m - 1 < t->scanned ? hi + m - 1 : t->scanned;
		size_t want = (size_t)(end - lo);
		if (want > SCAN_BLOCK)
			want = SCAN_BLOCK;
		ssize_t r = pread(t->fd, t->block, want, (off_t)lo);
		if (r <= 0)
			return -1;
		int64_t last = -1;
		for (size_t at = 0; at < (size_t)r;) {
			const char *hit = view_search_in(s, t->block + at, (size_t)r - at);
			if (!hit)
				break;
			uint64_t off = lo + (uint64_t)(hit - t->block);
			if (off >= hi)
				break;
			last = (int64_t)off;
			at = (size_t)(hit - t->block) + 1;
		}
		if (last >= 0)
			return last;
		hi = lo;
	}
	return -1;
}

static ssize_t text_find(struct view *v, size_t from, bool backward, const struct view_search *s)
{
	struct text *t = v->priv;
	size_t n = visible_lines(t);
	if (!n || !s->pattern)
		return -1;
	uint64_t at = t->starts[from];
	int64_t hit;
	from = file_line(t, from);
	if (!backward) {
		hit = scan_forward(t, at, t->scanned, s);
		if (hit < 0)
			hit = scan_forward(t, 0, at, s);
	} else {
		uint64_t end = from + 1 < t->nstarts ? t->starts[from + 1] : t->scanned;
		hit = scan_backward(t, 0, end, s);
		if (hit < 0)
			hit = scan_backward(t, end, t->scanned, s);
	}
	if (hit < 0)
		return -1;
	size_t line = line_of(t, (uint64_t)hit);
	line = line < n ? line : n - 1;
	if (t->wrap)
		return line < t->measured ? (ssize_t)t->rowstart[line] : -1;
	return (ssize_t)line;
}

static void text_tick(struct view *v)
{
	struct text *t = v->priv;
	struct stat st;
	if (!v->loading && fstat(t->fd, &st) == 0 && (uint64_t)st.st_size > t->scanned)
		v->loading = true;
}

static enum request text_request(struct view *v, enum request req)
{
	struct text *t = v->priv;
	switch (req) {
	case REQ_TOGGLE_FOLLOW:
		/* Following a file means watching it grow. */
		v->ticking = !v->follow;
		return req;
	case REQ_REFRESH: {
		size_t keep = v->lineno;
		t->nstarts = 0;
		t->scanned = 0;
		t->measured = 0;
		push_start(t, 0);
		view_set_lines(v, 0);
		v->loading = true;
		text_pump(v, 50);
		view_select(v, keep);
		return REQ_NONE;
	}
	case REQ_ENTER:
		return REQ_MOVE_DOWN;
	case REQ_TOGGLE_WRAP: {
		size_t keep = file_line(t, v->lineno);
		t->wrap = !t->wrap;
		v->col = 0;
		relayout(v, keep);
		view_report(v, "%s", t->wrap ? "Long lines wrap" : "Long lines are cut (~): <Left> and "
								      "<Right> scroll");
		return REQ_NONE;
	}
	case REQ_SCROLL_RIGHT:
		if (t->wrap) {
			view_report(v, "Lines wrap: nothing to scroll sideways (w cuts them)");
			return REQ_NONE;
		}
		return req;
	default:
		return req;
	}
}

static void text_title(struct view *v, struct sbuf *out)
{
	struct text *t = v->priv;
	if (t->wrap)
		sb_adds(out, "wrap, ");
	if (t->scanned >= 10u << 20)
		sb_printf(out, "%.1f MB", (double)t->scanned / (1 << 20));
	else if (t->scanned >= 10u << 10)
		sb_printf(out, "%.1f kB", (double)t->scanned / (1 << 10));
	else
		sb_printf(out, "%llu bytes", (unsigned long long)t->scanned);
}

static const char *text_file(struct view *v, long *line)
{
	struct text *t = v->priv;
	*line = (long)file_line(t, v->lineno) + 1;
	return t->path;
}

static void text_done(struct view *v)
{
	struct text *t = v->priv;
	if (t->fd >= 0)
		close(t->fd);
	free(t->path);
	free(t->starts);
	free(t->block);
	free(t->linebuf);
	free(t->rowstart);
}

const struct view_ops text_view_ops = {
	.type = "text",
	.private_size = sizeof(struct text),
	.open = text_open,
	.line = text_line,
	.request = text_request,
	.title = text_title,
	.resize = text_resize,
	.pump = text_pump,
	.find = text_find,
	.tick = text_tick,
	.file = text_file,
	.done = text_done,
};
