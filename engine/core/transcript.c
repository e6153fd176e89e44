#include "engine/core/transcript.h"

#include "engine/base/files.h"
#include "engine/base/lines.h"
#include "engine/base/redact.h"

#include <cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* An agent's output is not trusted to be sane: a line longer than this is
 * cut into pieces, and the text kept for the final message is its tail. */
#define LINE_MAX_BYTES ((size_t)1 << 20)
#define KEEP_MAX_BYTES ((size_t)32 << 20)

enum mode { MODE_UNKNOWN, MODE_JSON, MODE_PLAIN };

struct transcript {
	FILE *f;
	char *path;
	int write_errno; /* the first failed write's errno, 0 while all is well */
	enum mode mode;
	struct redact_stream red; /* raw bytes, before lines are cut */
	struct lines lines;
	struct sbuf plain;  /* whole stdout in plain mode */
	struct sbuf texts;  /* "text" records, the fallback final in JSON mode */
	char *final;
	char *driver; /* the driver speaking last: "start" names it, "handover" passes it on */
	long long tin, tout;
	double cost;
	char *const *secrets;
	/* the size cap: a head written as it comes, then a tail kept here */
	long long limit, written;
	struct sbuf tail;
	size_t tail_from;
	long long cut_bytes, cut_records;
};

struct transcript *transcript_open(const char *path, struct tp_err *err)
{
	int fd = file_open_write(path, O_TRUNC, err);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	struct transcript *t = xcalloc(1, sizeof(*t));
	t->f = f;
	t->path = xstrdup(path);
	t->lines.max = LINE_MAX_BYTES;
	return t;
}

void transcript_limit(struct transcript *t, long long max_bytes)
{
	t->limit = max_bytes > 0 ? max_bytes : 0;
}

static void put(struct transcript *t, const char *s, size_t n)
{
	if (!t->write_errno && fwrite(s, 1, n, t->f) != n)
		t->write_errno = errno ? errno : EIO;
	t->written += (long long)n;
}

/* The cap is shared out: 3/8 for the head, 3/8 for the tail, and a quarter
 * for the reply that ends the file. */
#define HEAD_SHARE(limit) ((limit) / 8 * 3)
#define REPLY_SHARE(limit) ((limit) / 4)

/* Past the head, records go to the tail; the oldest of them are dropped
 * (and counted) so that the tail keeps its share. */
static void keep_in_tail(struct transcript *t, const char *s, size_t n)
{
	sb_add(&t->tail, s, n);
	size_t share = (size_t)HEAD_SHARE(t->limit);
	while (t->tail.len - t->tail_from > share) {
		const char *nl = memchr(t->tail.buf + t->tail_from, '\n', t->tail.len - t->tail_from);
		size_t next = nl ? (size_t)(nl - t->tail.buf) + 1 : t->tail.len;
		t->cut_bytes += (long long)(next - t->tail_from);
		t->cut_records++;
		t->tail_from = next;
	}
	if (t->tail_from > t->tail.len / 2) {
		memmove(t->tail.buf, t->tail.buf + t->tail_from, t->tail.len - t->tail_from);
		t->tail.len -= t->tail_from;
		t->tail.buf[t->tail.len] = '\0';
		t->tail_from = 0;
	}
}

static void write_obj(struct transcript *t, cJSON *o)
{
	char *j = cJSON_PrintUnformatted(o);
	struct sbuf line = SBUF_INIT;
	sb_adds(&line, j);
	sb_addc(&line, '\n');
	cJSON_free(j);
	if (!t->limit || (!t->tail.len && t->written + (long long)line.len <= HEAD_SHARE(t->limit)))
		put(t, line.buf, line.len);
	else
		keep_in_tail(t, line.buf, line.len);
	sb_free(&line);
}

/* The end of a capped transcript: what was cut, then the tail. */
static void write_tail(struct transcript *t)
{
	if (!t->tail.len)
		return;
	if (t->cut_records) {
		char *msg = xasprintf("%lld bytes in %lld records cut here: the transcript is capped at "
				      "%lld bytes (head and tail kept)", t->cut_bytes, t->cut_records,
				      t->limit);
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "type", "cut");
		cJSON_AddNumberToObject(o, "bytes", (double)t->cut_bytes);
		cJSON_AddNumberToObject(o, "records", (double)t->cut_records);
		cJSON_AddStringToObject(o, "text", msg);
		char *line = cJSON_PrintUnformatted(o);
		put(t, line, strlen(line));
		put(t, "\n", 1);
		cJSON_free(line);
		cJSON_Delete(o);
		free(msg);
	}
	put(t, t->tail.buf + t->tail_from, t->tail.len - t->tail_from);
	sb_reset(&t->tail);
	t->tail_from = 0;
}

static void write_text_record(struct transcript *t, const char *line, size_t n)
{
	char *s = xstrndup(line, n);
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "type", "text");
	cJSON_AddStringToObject(o, "text", s);
	write_obj(t, o);
	cJSON_Delete(o);
	free(s);
}

static cJSON *typed_object(const char *line, size_t n)
{
	cJSON *o = cJSON_ParseWithLength(line, n);
	if (cJSON_IsObject(o) && cJSON_IsString(cJSON_GetObjectItemCaseSensitive(o, "type")))
		return o;
	cJSON_Delete(o);
	return NULL;
}

/* A usage figure as the driver wrote it: non-negative and finite, or 0. */
static double num(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < 0)
		return 0;
	return v->valuedouble > 1e15 ? 1e15 : v->valuedouble;
}

static void json_line(struct transcript *t, const char *line, size_t n)
{
	cJSON *o = typed_object(line, n);
	if (!o) {
		write_text_record(t, line, n);
		sb_add(&t->texts, line, n);
		sb_addc(&t->texts, '\n');
		return;
	}
	if (t->secrets)
		redact_json(o, t->secrets);
	const char *type = cJSON_GetObjectItemCaseSensitive(o, "type")->valuestring;
	const cJSON *text = cJSON_GetObjectItemCaseSensitive(o, "text");
	if (strcmp(type, "final") == 0 && cJSON_IsString(text)) {
		free(t->final);
		t->final = xstrdup(text->valuestring);
	} else if (strcmp(type, "text") == 0 && cJSON_IsString(text)) {
		sb_adds(&t->texts, text->valuestring);
		sb_addc(&t->texts, '\n');
	} else if (strcmp(type, "start") == 0 || strcmp(type, "handover") == 0) {
		const cJSON *d = cJSON_GetObjectItemCaseSensitive(o, strcmp(type, "start") == 0 ? "driver" : "to");
		if (cJSON_IsString(d)) {
			free(t->driver);
			t->driver = xstrdup(d->valuestring);
		}
	} else if (strcmp(type, "usage") == 0) {
		t->tin += (long long)num(o, "tokens_in");
		t->tout += (long long)num(o, "tokens_out");
		t->cost += num(o, "cost");
	}
	/* Keep the driver's record as it was (re-serialised compactly). */
	write_obj(t, o);
	cJSON_Delete(o);
}

void transcript_redact(struct transcript *t, char *const *secrets)
{
	t->secrets = secrets && secrets[0] ? secrets : NULL;
	t->red.secrets = t->secrets;
}

static void one_line_clean(struct transcript *t, const char *line, size_t n, transcript_line_cb cb,
			   void *ud);

static void one_line(struct transcript *t, const char *line, size_t n, transcript_line_cb cb, void *ud)
{
	if (n && line[n - 1] == '\r')
		n--;
	one_line_clean(t, line, n, cb, ud);
}

static void one_line_clean(struct transcript *t, const char *line, size_t n, transcript_line_cb cb,
			   void *ud)
{
	if (cb)
		cb(line, n, ud);
	if (t->mode == MODE_UNKNOWN) {
		size_t k = 0;
		while (k < n && (line[k] == ' ' || line[k] == '\t'))
			k++;
		if (k == n) {
			/* blank lines before anything else decide nothing */
			sb_add(&t->plain, line, n);
			sb_addc(&t->plain, '\n');
			return;
		}
		cJSON *o = typed_object(line, n);
		t->mode = o ? MODE_JSON : MODE_PLAIN;
		cJSON_Delete(o);
	}
	if (t->mode == MODE_JSON) {
		json_line(t, line, n);
		return;
	}
	sb_add(&t->plain, line, n);
	sb_addc(&t->plain, '\n');
	write_text_record(t, line, n);
}

static void keep_tail(struct sbuf *sb)
{
	if (sb->len <= KEEP_MAX_BYTES)
		return;
	size_t keep = KEEP_MAX_BYTES / 2;
	memmove(sb->buf, sb->buf + sb->len - keep, keep);
	sb->len = keep;
	sb->buf[keep] = '\0';
}

struct feed {
	struct transcript *t;
	transcript_line_cb cb;
	void *ud;
};

static void feed_line(const char *line, size_t n, void *ud)
{
	struct feed *f = ud;
	one_line(f->t, line, n, f->cb, f->ud);
}

void transcript_feed(struct transcript *t, const char *data, size_t n, transcript_line_cb cb, void *ud)
{
	/* Redacted before it is cut into lines: a secret across a cut or
	 * across two reads is still one string here. */
	struct sbuf clean = SBUF_INIT;
	redact_stream_feed(&t->red, data, n, &clean);
	struct feed f = {t, cb, ud};
	lines_feed(&t->lines, clean.buf ? clean.buf : "", clean.len, feed_line, &f);
	sb_free(&clean);
	keep_tail(&t->plain);
	keep_tail(&t->texts);
	if (!t->write_errno && fflush(t->f) != 0)
		t->write_errno = errno ? errno : EIO;
}

void transcript_finish(struct transcript *t, transcript_line_cb cb, void *ud)
{
	struct sbuf rest = SBUF_INIT;
	redact_stream_flush(&t->red, &rest);
	struct feed f = {t, cb, ud};
	lines_feed(&t->lines, rest.buf ? rest.buf : "", rest.len, feed_line, &f);
	sb_free(&rest);
	lines_flush(&t->lines, feed_line, &f);
	/* A driver's own final record is already written; otherwise the final
	 * message is the whole plain output, or the text records of a JSON
	 * stream that ended without one. */
	write_tail(t);
	if (!t->final) {
		t->final = xstrdup(t->mode == MODE_JSON ? sb_str(&t->texts) : sb_str(&t->plain));
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "type", "final");
		/* The reply in the file is capped too (its end, where the verdict
		 * is); the orchestrator reads the whole of it from memory. */
		size_t fl = strlen(t->final), keep = (size_t)REPLY_SHARE(t->limit);
		if (t->limit && fl > keep) {
			char *cut = xasprintf("[%zu bytes cut] %s", fl - keep, t->final + fl - keep);
			cJSON_AddStringToObject(o, "text", cut);
			free(cut);
		} else {
			cJSON_AddStringToObject(o, "text", t->final);
		}
		long long limit = t->limit;
		t->limit = 0; /* the final record is never cut */
		/* made of the text records above: a reader shows them once */
		cJSON_AddBoolToObject(o, "gathered", true);
		write_obj(t, o);
		t->limit = limit;
		cJSON_Delete(o);
	}
	if (!t->write_errno && fflush(t->f) != 0)
		t->write_errno = errno ? errno : EIO;
}

int transcript_error(const struct transcript *t, struct tp_err *err)
{
	if (!t->write_errno)
		return 0;
	tp_err_set(err, TP_EXIT_ENV, "%s: write failed: %s (the transcript is incomplete)", t->path,
		   strerror(t->write_errno));
	return -1;
}

long long transcript_cut_bytes(const struct transcript *t)
{
	return t->cut_bytes;
}

long long transcript_cut_records(const struct transcript *t)
{
	return t->cut_records;
}

void transcript_close(struct transcript *t)
{
	if (!t)
		return;
	fclose(t->f);
	free(t->path);
	redact_stream_free(&t->red);
	sb_free(&t->tail);
	lines_free(&t->lines);
	sb_free(&t->plain);
	sb_free(&t->texts);
	free(t->final);
	free(t->driver);
	free(t);
}

const char *transcript_final(const struct transcript *t)
{
	return t->final ? t->final : "";
}

const char *transcript_driver(const struct transcript *t)
{
	return t->driver;
}

long long transcript_tokens_in(const struct transcript *t)
{
	return t->tin;
}

long long transcript_tokens_out(const struct transcript *t)
{
	return t->tout;
}

double transcript_cost(const struct transcript *t)
{
	return t->cost;
}

