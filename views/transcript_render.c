/* What one transcript record shows (docs/architecture.md, "Agent
 * transcripts"): start, text, tool call (folded to one line with its result's
 * mark, or open with arguments and result), tool result, usage, error, final
 * message (validator block and verdict typed apart), and lines that are not
 * records. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "views/transcript_int.h"

const char *tx_str_field(const cJSON *o, const char *const *names)
{
	for (; *names; names++) {
		const cJSON *f = cJSON_GetObjectItemCaseSensitive(o, *names);
		if (cJSON_IsString(f))
			return f->valuestring;
	}
	return NULL;
}

const char *const tx_text_names[] = {"text", "content", "message", NULL};
static const char *const output_names[] = {"output", "content", "result", "text", NULL};
static const char *const name_names[] = {"name", "tool", NULL};

enum rtype tx_type_of(const cJSON *o)
{
	static const struct { const char *name; enum rtype t; } types[] = {
		{"start", R_START}, {"text", R_TEXT}, {"tool_call", R_CALL},
		{"tool_result", R_RESULT}, {"usage", R_USAGE}, {"error", R_ERROR}, {"final", R_FINAL},
		{"retry", R_RETRY}, {"handover", R_HANDOVER},
	};
	const cJSON *ty = cJSON_GetObjectItemCaseSensitive(o, "type");
	if (!cJSON_IsString(ty))
		return R_OTHER;
	for (size_t i = 0; i < TP_ARRAY_LEN(types); i++)
		if (strcmp(ty->valuestring, types[i].name) == 0)
			return types[i].t;
	return R_OTHER;
}

/* Where output goes: counting only, or kept for drawing. */
struct sink {
	struct rendered *r; /* NULL: count */
	uint32_t n;
};

static void emit(struct sink *k, enum line_type type, const char *prefix, const char *s, size_t n)
{
	k->n++;
	struct rendered *r = k->r;
	if (!r)
		return;
	r->l = xgrow(r->l, &r->cap, r->n + 1, sizeof(*r->l));
	r->l[r->n].off = (uint32_t)r->text.len;
	if (prefix)
		sb_adds(&r->text, prefix);
	sb_add(&r->text, s, n);
	r->l[r->n].len = (uint32_t)(r->text.len - r->l[r->n].off);
	r->l[r->n].type = (uint8_t)type;
	r->n++;
}

static void emitf(struct sink *k, enum line_type type, const char *fmt, ...) TP_PRINTF(3, 4);
static void emitf(struct sink *k, enum line_type type, const char *fmt, ...)
{
	if (!k->r) {
		k->n++;
		return;
	}
	va_list ap;
	va_start(ap, fmt);
	char *s = xvasprintf(fmt, ap);
	va_end(ap);
	emit(k, type, NULL, s, strlen(s));
	free(s);
}

/* A refusal's line ("unsupported: FILE:LINE:COL: construct") is the key
 * line of a final message, and longer than a side pane: it is folded at
 * spaces into rows of at most FOLD_AT columns, the rest indented, so that
 * none of it is cut. The fold does not depend on the pane, so records
 * count the same lines whatever the width. */
#define FOLD_AT 72

static void emit_folded(struct sink *k, enum line_type type, const char *prefix, const char *s, size_t n)
{
	bool first = true;
	while (n) {
		size_t room = first ? FOLD_AT : FOLD_AT - 4, take = n, cols = 0, cut = 0;
		for (size_t i = 0; i < n; i++) {
			if (((unsigned char)s[i] & 0xc0) != 0x80 && ++cols > room) {
				take = cut ? cut : i;
				break;
			}
			if (s[i] == ' ')
				cut = i + 1;
		}
		if (first) {
			emit(k, type, prefix, s, take);
		} else {
			char *row = xasprintf("%s    %.*s", prefix ? prefix : "", (int)take, s);
			emit(k, type, NULL, row, strlen(row));
			free(row);
		}
		s += take, n -= take;
		first = false;
	}
}

/* Text split into lines; a trailing newline adds no empty line. In a final
 * message the validator block and the verdict get their own types. */
static void emit_text(struct sink *k, enum line_type type, const char *prefix, const char *s,
		      bool final)
{
	bool in_block = false;
	while (*s) {
		const char *nl = strchr(s, '\n');
		size_t n = nl ? (size_t)(nl - s) : strlen(s);
		enum line_type t = type;
		if (final) {
			if (n >= 18 && !memcmp(s, "<VALIDATOR_OUTPUT>", 18))
				in_block = true;
			if (in_block)
				t = LINE_TX_VALIDATOR;
			if (n >= 19 && !memcmp(s, "</VALIDATOR_OUTPUT>", 19))
				in_block = false;
			if (n >= 8 && !memcmp(s, "VERDICT:", 8))
				t = LINE_TX_VERDICT;
		}
		if (final && n > FOLD_AT && n >= 12 && !memcmp(s, "unsupported:", 12))
			emit_folded(k, t, prefix, s, n);
		else
			emit(k, t, prefix, s, n);
		if (!nl)
			break;
		s = nl + 1;
	}
}

static size_t count_lines(const char *s)
{
	size_t n = 0;
	while (*s) {
		n++;
		const char *nl = strchr(s, '\n');
		if (!nl)
			break;
		s = nl + 1;
	}
	return n;
}

static void call_summary(const cJSON *o, struct sbuf *out)
{
	const cJSON *in = cJSON_GetObjectItemCaseSensitive(o, "input");
	if (!in)
		in = cJSON_GetObjectItemCaseSensitive(o, "arguments");
	if (cJSON_IsObject(in)) {
		const cJSON *f;
		bool first = true;
		cJSON_ArrayForEach(f, in) {
			sb_printf(out, "%s%s=", first ? "" : " ", f->string);
			first = false;
			if (cJSON_IsString(f)) {
				const char *nl = strchr(f->valuestring, '\n');
				sb_add(out, f->valuestring, nl ? (size_t)(nl - f->valuestring)
							   : strlen(f->valuestring));
				if (nl)
					sb_adds(out, "...");
			} else {
				char *j = cJSON_PrintUnformatted(f);
				sb_adds(out, j ? j : "?");
				free(j);
			}
		}
	} else if (cJSON_IsString(in)) {
		sb_adds(out, in->valuestring);
	}
}

static void build(struct tx *t, size_t idx, const cJSON *o, struct sink *k);

/* Arguments one per line: "name: value"; a multi-line string value goes
 * below its name, indented. */
static void emit_args(struct sink *k, const cJSON *in)
{
	if (!in)
		return;
	if (!cJSON_IsObject(in)) {
		char *j = cJSON_IsString(in) ? NULL : cJSON_PrintUnformatted(in);
		emit_text(k, LINE_TX_TOOL_ARG, "    ", j ? j : in->valuestring, false);
		free(j);
		return;
	}
	const cJSON *f;
	cJSON_ArrayForEach(f, in) {
		if (cJSON_IsString(f) && strchr(f->valuestring, '\n')) {
			emitf(k, LINE_TX_TOOL_ARG, "    %s:", f->string);
			emit_text(k, LINE_TX_TOOL_ARG, "      ", f->valuestring, false);
		} else if (cJSON_IsString(f)) {
			emitf(k, LINE_TX_TOOL_ARG, "    %s: %s", f->string, f->valuestring);
		} else {
			char *j = cJSON_PrintUnformatted(f);
			emitf(k, LINE_TX_TOOL_ARG, "    %s: %s", f->string, j ? j : "?");
			free(j);
		}
	}
}

static void build_result(struct tx *t, size_t idx, struct sink *k, const char *prefix)
{
	size_t len;
	const char *p = tx_raw(t, &t->recs[idx], &len);
	cJSON *o = cJSON_ParseWithLength(p, len);
	const char *out = o ? tx_str_field(o, output_names) : NULL;
	bool failed = REC_FLAGS(&t->recs[idx]) & RF_FAILED;
	if (out)
		emit_text(k, failed ? LINE_TX_ERROR : LINE_TX_TOOL_RESULT, prefix, out, false);
	else if (o) {
		const cJSON *f = cJSON_GetObjectItemCaseSensitive(o, "output");
		char *j = f ? cJSON_Print(f) : NULL;
		if (j)
			emit_text(k, LINE_TX_TOOL_RESULT, prefix, j, false);
		free(j);
	}
	cJSON_Delete(o);
}

static void build(struct tx *t, size_t idx, const cJSON *o, struct sink *k)
{
	struct rec *r = &t->recs[idx];
	unsigned flags = REC_FLAGS(r);
	switch (REC_TYPE(r)) {
	case R_RAW: {
		size_t len;
		const char *p = tx_raw(t, r, &len);
		emit(k, LINE_TX_TEXT, NULL, p, len);
		break;
	}
	case R_START: {
		struct sbuf s = SBUF_INIT;
		sb_adds(&s, "\xe2\x96\xb6 start");
		const cJSON *f;
		cJSON_ArrayForEach(f, o) {
			if (!strcmp(f->string, "type"))
				continue;
			if (cJSON_IsString(f))
				sb_printf(&s, "  %s=%s", f->string, f->valuestring);
			else if (cJSON_IsNumber(f))
				sb_printf(&s, "  %s=%g", f->string, f->valuedouble);
		}
		emit(k, LINE_TX_START, NULL, s.buf, s.len);
		sb_free(&s);
		break;
	}
	case R_TEXT: {
		/* typed as a final message's are: in a plain-text reply these
		 * lines are the final message (see "gathered" below) */
		const char *s = tx_str_field(o, tx_text_names);
		emit_text(k, LINE_TX_TEXT, NULL, s ? s : "", true);
		break;
	}
	case R_FINAL: {
		const char *s = tx_str_field(o, tx_text_names);
		if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "gathered"))) {
			/* the text records above, gathered: not shown twice */
			static const char head[] = "\xe2\x96\xa0 final message: the text above";
			emit(k, LINE_TX_FINAL, NULL, head, sizeof(head) - 1);
			break;
		}
		emit(k, LINE_TX_FINAL, NULL, "\xe2\x96\xa0 final message", 17);
		emit_text(k, LINE_TX_FINAL, NULL, s ? s : "", true);
		break;
	}
	case R_ERROR: {
		const char *s = tx_str_field(o, tx_text_names);
		emitf(k, LINE_TX_ERROR, "\xe2\x9c\x97 error: %s", s ? s : "(no message)");
		break;
	}
	case R_USAGE: {
		const cJSON *in = cJSON_GetObjectItemCaseSensitive(o, "tokens_in");
		const cJSON *out = cJSON_GetObjectItemCaseSensitive(o, "tokens_out");
		const cJSON *cost = cJSON_GetObjectItemCaseSensitive(o, "cost");
		emitf(k, LINE_TX_USAGE, "\xc2\xb7 usage  in=%.0f out=%.0f cost=$%.4f",
		      cJSON_IsNumber(in) ? in->valuedouble : 0, cJSON_IsNumber(out) ? out->valuedouble : 0,
		      cJSON_IsNumber(cost) ? cost->valuedouble : 0);
		break;
	}
	case R_RETRY: {
		const cJSON *at = cJSON_GetObjectItemCaseSensitive(o, "attempt");
		const cJSON *of = cJSON_GetObjectItemCaseSensitive(o, "of");
		const cJSON *ms = cJSON_GetObjectItemCaseSensitive(o, "delay_ms");
		const cJSON *st = cJSON_GetObjectItemCaseSensitive(o, "status");
		const char *why = tx_str_field(o, tx_text_names);
		char http[24] = "";
		/* a stream cut after its 200 says nothing the message does not */
		if (cJSON_IsNumber(st) && st->valuedouble != 200 && !(why && str_starts(why, "HTTP ")))
			snprintf(http, sizeof(http), " (HTTP %.0f)", st->valuedouble);
		emitf(k, LINE_STATE_WARN, "\xe2\x86\xbb retry %.0f/%.0f in %.1f s%s%s%s",
		      cJSON_IsNumber(at) ? at->valuedouble : 0, cJSON_IsNumber(of) ? of->valuedouble : 0,
		      cJSON_IsNumber(ms) ? ms->valuedouble / 1000 : 0, http, why && *why ? ": " : "", why ? why : "");
		break;
	}
	case R_HANDOVER: {
		const cJSON *from = cJSON_GetObjectItemCaseSensitive(o, "from");
		const cJSON *to = cJSON_GetObjectItemCaseSensitive(o, "to");
		const cJSON *why = cJSON_GetObjectItemCaseSensitive(o, "reason");
		emitf(k, LINE_ROUTE, "\xe2\x87\xa2 hand-over %s \xe2\x86\x92 %s: %s",
		      cJSON_IsString(from) ? from->valuestring : "?", cJSON_IsString(to) ? to->valuestring : "?",
		      cJSON_IsString(why) ? why->valuestring : "");
		break;
	}
	case R_CALL: {
		const char *name = tx_str_field(o, name_names);
		uint32_t res = tx_result_of(t, (uint32_t)idx);
		bool failed = res != UINT32_MAX && (REC_FLAGS(&t->recs[res]) & RF_FAILED);
		if (!(flags & RF_OPEN)) {
			struct sbuf s = SBUF_INIT;
			sb_printf(&s, "\xe2\x96\xb8 %s ", name ? name : "tool");
			call_summary(o, &s);
			sb_adds(&s, res == UINT32_MAX ? "  \xe2\x80\xa6" : failed ? "  \xe2\x9c\x97" : "  \xe2\x9c\x93");
			emit(k, LINE_TX_TOOL_CALL, NULL, s.buf, s.len);
			sb_free(&s);
			break;
		}
		/* opened, it keeps the mark it had folded: ✗ stays in sight */
		emitf(k, LINE_TX_TOOL_CALL, "\xe2\x96\xbe %s%s", name ? name : "tool",
		      res == UINT32_MAX ? "  \xe2\x80\xa6" : failed ? "  \xe2\x9c\x97" : "  \xe2\x9c\x93");
		const cJSON *in = cJSON_GetObjectItemCaseSensitive(o, "input");
		if (!in)
			in = cJSON_GetObjectItemCaseSensitive(o, "arguments");
		emit_args(k, in);
		if (res != UINT32_MAX)
			build_result(t, res, k, "  \xe2\x94\x82 ");
		break;
	}
	case R_RESULT:
		if (flags & RF_ATTACHED)
			break;
		if (!(flags & RF_OPEN)) {
			const char *out = tx_str_field(o, output_names);
			emitf(k, (flags & RF_FAILED) ? LINE_TX_ERROR : LINE_TX_TOOL_CALL, "\xe2\x97\x82 result  %zu lines%s",
			      out ? count_lines(out) : 0, (flags & RF_FAILED) ? " (error)" : "");
			break;
		}
		emit(k, LINE_TX_TOOL_CALL, NULL, "\xe2\x97\x82 result", 10);
		build_result(t, idx, k, "  \xe2\x94\x82 ");
		break;
	case R_OTHER: {
		char *j = cJSON_PrintUnformatted(o);
		emit(k, LINE_TX_RAW, NULL, j ? j : "", j ? strlen(j) : 0);
		free(j);
		break;
	}
	}
}

/* Parse a record (NULL for raw lines and unparsable bytes). */
cJSON *tx_parse(struct tx *t, size_t idx)
{
	if (REC_TYPE(&t->recs[idx]) == R_RAW)
		return NULL;
	size_t len;
	const char *p = tx_raw(t, &t->recs[idx], &len);
	return cJSON_ParseWithLength(p, len);
}

uint32_t tx_count(struct tx *t, size_t idx, const cJSON *o)
{
	const struct rec *r = &t->recs[idx];
	unsigned flags = REC_FLAGS(r);
	const char *s;
	/* The common records are counted without building their lines. */
	switch (REC_TYPE(r)) {
	case R_RAW:
	case R_START:
	case R_USAGE:
	case R_ERROR:
	case R_RETRY:
	case R_HANDOVER:
	case R_OTHER:
		return 1;
	case R_TEXT:
		s = tx_str_field(o, tx_text_names);
		return s ? (uint32_t)count_lines(s) : 0;
	case R_FINAL:
		if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "gathered")))
			return 1; /* its heading: the text is the records above */
		s = tx_str_field(o, tx_text_names);
		return 1 + (s ? (uint32_t)count_lines(s) : 0);
	case R_CALL:
		if (!(flags & RF_OPEN))
			return 1;
		break;
	case R_RESULT:
		if (flags & RF_ATTACHED)
			return 0;
		if (!(flags & RF_OPEN))
			return 1;
		break;
	}
	struct sink k = {NULL, 0};
	build(t, idx, o, &k);
	return k.n;
}

const struct rendered *tx_render(struct tx *t, size_t idx)
{
	struct rendered *r = &t->r;
	if (r->valid && r->rec == idx)
		return r;
	sb_reset(&r->text);
	r->n = 0;
	cJSON *o = tx_parse(t, idx);
	struct sink k = {r, 0};
	if (o || REC_TYPE(&t->recs[idx]) == R_RAW)
		build(t, idx, o, &k);
	cJSON_Delete(o);
	r->rec = idx;
	r->valid = true;
	return r;
}
