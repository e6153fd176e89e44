#include "engine/core/transcript.h"

#include "engine/core/lines.h"
#include "engine/core/proc.h"

#include <cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An agent's output is not trusted to be sane: a line longer than this is
 * cut into pieces, and the text kept for the final message is its tail. */
#define LINE_MAX_BYTES ((size_t)1 << 20)
#define KEEP_MAX_BYTES ((size_t)32 << 20)

enum mode { MODE_UNKNOWN, MODE_JSON, MODE_PLAIN };

struct transcript {
	FILE *f;
	enum mode mode;
	struct lines lines;
	struct sbuf plain;  /* whole stdout in plain mode */
	struct sbuf texts;  /* "text" records, the fallback final in JSON mode */
	char *final;
	long long tin, tout;
	double cost;
	char *const *secrets;
};

struct transcript *transcript_open(const char *path, struct tp_err *err)
{
	FILE *f = fopen(path, "we");
	if (!f) {
		tp_err_set(err, TP_EXIT_ENV, "%s: cannot create transcript", path);
		return NULL;
	}
	struct transcript *t = xcalloc(1, sizeof(*t));
	t->f = f;
	t->lines.max = LINE_MAX_BYTES;
	return t;
}

static void write_obj(struct transcript *t, cJSON *o)
{
	char *s = cJSON_PrintUnformatted(o);
	fputs(s, t->f);
	fputc('\n', t->f);
	cJSON_free(s);
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
	const char *type = cJSON_GetObjectItemCaseSensitive(o, "type")->valuestring;
	const cJSON *text = cJSON_GetObjectItemCaseSensitive(o, "text");
	if (strcmp(type, "final") == 0 && cJSON_IsString(text)) {
		free(t->final);
		t->final = xstrdup(text->valuestring);
	} else if (strcmp(type, "text") == 0 && cJSON_IsString(text)) {
		sb_adds(&t->texts, text->valuestring);
		sb_addc(&t->texts, '\n');
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
}

static void one_line_clean(struct transcript *t, const char *line, size_t n, transcript_line_cb cb,
			   void *ud);

static void one_line(struct transcript *t, const char *line, size_t n, transcript_line_cb cb, void *ud)
{
	if (n && line[n - 1] == '\r')
		n--;
	if (!t->secrets) {
		one_line_clean(t, line, n, cb, ud);
		return;
	}
	char *raw = xstrndup(line, n);
	char *red = redact_secrets(raw, t->secrets);
	one_line_clean(t, red, strlen(red), cb, ud);
	free(red);
	free(raw);
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
	struct feed f = {t, cb, ud};
	lines_feed(&t->lines, data, n, feed_line, &f);
	keep_tail(&t->plain);
	keep_tail(&t->texts);
	fflush(t->f);
}

void transcript_finish(struct transcript *t, transcript_line_cb cb, void *ud)
{
	struct feed f = {t, cb, ud};
	lines_flush(&t->lines, feed_line, &f);
	/* A driver's own final record is already written; otherwise the final
	 * message is the whole plain output, or the text records of a JSON
	 * stream that ended without one. */
	if (!t->final) {
		t->final = xstrdup(t->mode == MODE_JSON ? sb_str(&t->texts) : sb_str(&t->plain));
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "type", "final");
		cJSON_AddStringToObject(o, "text", t->final);
		write_obj(t, o);
		cJSON_Delete(o);
	}
	fflush(t->f);
}

void transcript_close(struct transcript *t)
{
	if (!t)
		return;
	fclose(t->f);
	lines_free(&t->lines);
	sb_free(&t->plain);
	sb_free(&t->texts);
	free(t->final);
	free(t);
}

const char *transcript_final(const struct transcript *t)
{
	return t->final ? t->final : "";
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

