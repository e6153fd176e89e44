/* The transcript view: an attempt's transcript.jsonl (design §4.4) as
 * readable lines, tool calls folded to one line with their result behind
 * them (o expands one, z all). Built to stay fast on a million records:
 * a record is 16 bytes of index (file offset or streamed-buffer offset,
 * type, flags, its display line count and first display line); text is
 * parsed again only for the records on screen; the file is indexed in
 * slices between frames; search scans raw bytes first. Lines a live stage
 * prints arrive through the read op and are kept in memory. */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cJSON.h>

#include "views/view.h"

#define BLOCK (1u << 20)
#define INDEX_BLOCK (256u << 10) /* ~3000 records: about 2 ms of indexing */
#define LEN_MAX ((1u << 24) - 1)

enum rtype { R_RAW, R_START, R_TEXT, R_CALL, R_RESULT, R_USAGE, R_ERROR, R_FINAL, R_OTHER };
enum rflag { RF_MEM = 1, RF_OPEN = 2, RF_ATTACHED = 4, RF_FAILED = 8 };

struct rec {
	uint64_t loc;   /* offset << 24 | length */
	uint32_t first; /* first display line */
	uint32_t meta;  /* lines << 8 | flags << 4 | type */
};

#define REC_OFF(r) ((r)->loc >> 24)
#define REC_LEN(r) ((uint32_t)((r)->loc & LEN_MAX))
#define REC_TYPE(r) ((enum rtype)((r)->meta & 0xf))
#define REC_FLAGS(r) (((r)->meta >> 4) & 0xf)
#define REC_LINES(r) ((r)->meta >> 8)

struct pending {
	uint64_t hash;
	uint32_t rec;
};

/* One record drawn: its lines as typed slices of one buffer. */
struct rendered {
	size_t rec;
	bool valid;
	struct sbuf text;
	struct { uint32_t off, len; uint8_t type; } *l;
	size_t n, cap;
};

struct tx {
	char *path, *key;
	int fd;
	uint64_t scanned, limit; /* bytes indexed; where to stop */
	char *block;          /* file bytes [block_off, block_off + block_len) */
	char *ibuf;           /* INDEX_BLOCK bytes for indexing */
	uint64_t block_off;
	size_t block_len;
	struct sbuf mem;      /* streamed lines */
	size_t mem_indexed;   /* bytes of mem turned into records */
	struct rec *recs;
	size_t nrecs, caprecs;
	uint32_t total;       /* display lines */
	struct pending pend[64];
	size_t npend;
	uint32_t *res_key, *res_val; /* call record -> result record (open hash) */
	size_t res_cap, res_n;
	struct rendered r;
	bool live;
	char *placeholder;
};

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static void res_put(struct tx *t, uint32_t call, uint32_t result);

static uint32_t res_get(const struct tx *t, uint32_t call)
{
	if (!t->res_cap)
		return UINT32_MAX;
	for (size_t i = (call * 2654435761u) & (t->res_cap - 1);; i = (i + 1) & (t->res_cap - 1)) {
		if (t->res_key[i] == UINT32_MAX)
			return UINT32_MAX;
		if (t->res_key[i] == call)
			return t->res_val[i];
	}
}

static void res_put(struct tx *t, uint32_t call, uint32_t result)
{
	if ((t->res_n + 1) * 2 > t->res_cap) {
		size_t oldcap = t->res_cap;
		uint32_t *ok = t->res_key, *ov = t->res_val;
		t->res_cap = oldcap ? oldcap * 2 : 64;
		t->res_key = xmalloc(t->res_cap * sizeof(uint32_t));
		t->res_val = xmalloc(t->res_cap * sizeof(uint32_t));
		memset(t->res_key, 0xff, t->res_cap * sizeof(uint32_t));
		t->res_n = 0;
		for (size_t i = 0; i < oldcap; i++)
			if (ok[i] != UINT32_MAX)
				res_put(t, ok[i], ov[i]);
		free(ok);
		free(ov);
	}
	size_t i = (call * 2654435761u) & (t->res_cap - 1);
	while (t->res_key[i] != UINT32_MAX && t->res_key[i] != call)
		i = (i + 1) & (t->res_cap - 1);
	if (t->res_key[i] == UINT32_MAX)
		t->res_n++;
	t->res_key[i] = call;
	t->res_val[i] = result;
}

/* ---- raw record bytes ---- */

static const char *raw(struct tx *t, const struct rec *r, size_t *len)
{
	*len = REC_LEN(r);
	if (REC_FLAGS(r) & RF_MEM)
		return t->mem.buf + REC_OFF(r);
	uint64_t off = REC_OFF(r);
	if (off < t->block_off || off + *len > t->block_off + t->block_len) {
		size_t want = *len > BLOCK ? *len : BLOCK;
		if (want > BLOCK)
			t->block = xrealloc(t->block, want);
		/* Walking backwards (search back), end the block at the record so
		 * the records before it come from the same read. */
		uint64_t start = off;
		if (off < t->block_off && off + *len <= t->block_off && off + *len > want)
			start = off + *len - want;
		else if (off < t->block_off && off + *len <= t->block_off)
			start = 0;
		ssize_t got = pread(t->fd, t->block, want, (off_t)start);
		t->block_off = start;
		t->block_len = got > 0 ? (size_t)got : 0;
		if (off + *len > t->block_off + t->block_len)
			*len = off < t->block_off + t->block_len ? (size_t)(t->block_off + t->block_len - off) : 0;
	}
	return t->block + (off - t->block_off);
}

/* ---- what a record shows ---- */

static const char *str_field(const cJSON *o, const char *const *names)
{
	for (; *names; names++) {
		const cJSON *f = cJSON_GetObjectItemCaseSensitive(o, *names);
		if (cJSON_IsString(f))
			return f->valuestring;
	}
	return NULL;
}

static const char *const text_names[] = {"text", "content", "message", NULL};
static const char *const output_names[] = {"output", "content", "result", "text", NULL};
static const char *const name_names[] = {"name", "tool", NULL};

static enum rtype type_of(const cJSON *o)
{
	static const struct { const char *name; enum rtype t; } types[] = {
		{"start", R_START}, {"text", R_TEXT}, {"tool_call", R_CALL},
		{"tool_result", R_RESULT}, {"usage", R_USAGE}, {"error", R_ERROR}, {"final", R_FINAL},
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
	const char *p = raw(t, &t->recs[idx], &len);
	cJSON *o = cJSON_ParseWithLength(p, len);
	const char *out = o ? str_field(o, output_names) : NULL;
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
		const char *p = raw(t, r, &len);
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
		const char *s = str_field(o, text_names);
		emit_text(k, LINE_TX_TEXT, NULL, s ? s : "", false);
		break;
	}
	case R_FINAL: {
		const char *s = str_field(o, text_names);
		emit(k, LINE_TX_FINAL, NULL, "\xe2\x96\xa0 final message", 17);
		emit_text(k, LINE_TX_FINAL, NULL, s ? s : "", true);
		break;
	}
	case R_ERROR: {
		const char *s = str_field(o, text_names);
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
	case R_CALL: {
		const char *name = str_field(o, name_names);
		uint32_t res = res_get(t, (uint32_t)idx);
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
		emitf(k, LINE_TX_TOOL_CALL, "\xe2\x96\xbe %s", name ? name : "tool");
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
			const char *out = str_field(o, output_names);
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
static cJSON *parse(struct tx *t, size_t idx)
{
	if (REC_TYPE(&t->recs[idx]) == R_RAW)
		return NULL;
	size_t len;
	const char *p = raw(t, &t->recs[idx], &len);
	return cJSON_ParseWithLength(p, len);
}

static uint32_t count_rec(struct tx *t, size_t idx, const cJSON *o)
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
	case R_OTHER:
		return 1;
	case R_TEXT:
		s = str_field(o, text_names);
		return s ? (uint32_t)count_lines(s) : 0;
	case R_FINAL:
		s = str_field(o, text_names);
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

static void set_lines(struct rec *r, uint32_t n)
{
	r->meta = (n << 8) | (r->meta & 0xff);
}

static void set_flags(struct rec *r, unsigned flags)
{
	r->meta = (r->meta & ~0xf0u) | ((flags & 0xf) << 4);
}

static const struct rendered *render(struct tx *t, size_t idx)
{
	struct rendered *r = &t->r;
	if (r->valid && r->rec == idx)
		return r;
	sb_reset(&r->text);
	r->n = 0;
	cJSON *o = parse(t, idx);
	struct sink k = {r, 0};
	if (o || REC_TYPE(&t->recs[idx]) == R_RAW)
		build(t, idx, o, &k);
	cJSON_Delete(o);
	r->rec = idx;
	r->valid = true;
	return r;
}

/* Recount first display lines from record `from` on. */
static void renumber(struct tx *t, size_t from)
{
	uint32_t at = from ? t->recs[from - 1].first + REC_LINES(&t->recs[from - 1]) : 0;
	for (size_t i = from; i < t->nrecs; i++) {
		t->recs[i].first = at;
		at += REC_LINES(&t->recs[i]);
	}
	t->total = at;
}

/* A record's line count changed (fold, its result arrived). */
static void recount(struct tx *t, size_t idx)
{
	cJSON *o = parse(t, idx);
	set_lines(&t->recs[idx], count_rec(t, idx, o));
	cJSON_Delete(o);
	renumber(t, idx);
	t->r.valid = false;
}

/* Index one line: p/len are its bytes (at file offset or mem offset off). */
static void add_record(struct tx *t, uint64_t off, const char *p, size_t len, bool mem)
{
	if (len > LEN_MAX)
		len = LEN_MAX;
	if (t->nrecs >= UINT32_MAX - 1)
		return;
	t->recs = xgrow(t->recs, &t->caprecs, t->nrecs + 1, sizeof(*t->recs));
	size_t idx = t->nrecs++;
	struct rec *r = &t->recs[idx];
	r->loc = off << 24 | len;
	r->meta = 0;
	set_flags(r, mem ? RF_MEM : 0);
	cJSON *o = NULL;
	size_t k = 0;
	while (k < len && (p[k] == ' ' || p[k] == '\t'))
		k++;
	if (k < len && p[k] == '{')
		o = cJSON_ParseWithLength(p, len);
	enum rtype type = o ? type_of(o) : R_RAW;
	r->meta |= (uint32_t)type;
	unsigned flags = REC_FLAGS(r);
	if (type == R_CALL) {
		const char *id = str_field(o, (const char *const[]){"id", NULL});
		if (id) {
			if (t->npend == TP_ARRAY_LEN(t->pend))
				memmove(t->pend, t->pend + 1, --t->npend * sizeof(*t->pend));
			t->pend[t->npend++] = (struct pending){hash_str(id), (uint32_t)idx};
		}
	} else if (type == R_RESULT) {
		const cJSON *err = cJSON_GetObjectItemCaseSensitive(o, "is_error");
		if (cJSON_IsTrue(err))
			flags |= RF_FAILED;
		const char *id = str_field(o, (const char *const[]){"id", NULL});
		uint64_t h = id ? hash_str(id) : 0;
		for (size_t i = t->npend; id && i-- > 0;) {
			if (t->pend[i].hash != h)
				continue;
			uint32_t call = t->pend[i].rec;
			memmove(&t->pend[i], &t->pend[i + 1], (t->npend - i - 1) * sizeof(*t->pend));
			t->npend--;
			flags |= RF_ATTACHED;
			res_put(t, call, (uint32_t)idx);
			/* An open call grows by its result; a folded one shows a mark. */
			if (REC_FLAGS(&t->recs[call]) & RF_OPEN) {
				set_flags(r, flags);
				cJSON_Delete(o);
				set_lines(r, 0);
				recount(t, call);
				return;
			}
			if (t->r.valid && t->r.rec == call)
				t->r.valid = false;
			break;
		}
	}
	set_flags(r, flags);
	set_lines(r, type == R_RAW || o ? count_rec(t, idx, o) : 1);
	cJSON_Delete(o);
	r->first = t->total;
	t->total += REC_LINES(r);
}

/* Index complete lines of the file from t->scanned; at_eof also takes a
 * last line without a newline. */
static bool index_file(struct tx *t, int64_t budget_ms, bool at_eof)
{
	int64_t end = now_ms() + budget_ms;
	if (!t->ibuf)
		t->ibuf = xmalloc(INDEX_BLOCK);
	char *buf = t->ibuf;
	bool more = true;
	for (;;) {
		size_t want = INDEX_BLOCK;
		if (t->limit - t->scanned < want)
			want = (size_t)(t->limit - t->scanned);
		ssize_t got = want ? pread(t->fd, buf, want, (off_t)t->scanned) : 0;
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			more = false;
			break;
		}
		size_t used = 0;
		while (used < (size_t)got) {
			const char *nl = memchr(buf + used, '\n', (size_t)got - used);
			if (!nl)
				break;
			size_t len = (size_t)(nl - (buf + used));
			if (len && buf[used + len - 1] == '\r')
				len--;
			if (len)
				add_record(t, t->scanned + used, buf + used, len, false);
			used = (size_t)(nl - buf) + 1;
		}
		if (used == 0 && (size_t)got == want && want == INDEX_BLOCK) {
			/* One line longer than a block: take it cut. */
			add_record(t, t->scanned, buf, (size_t)got, false);
			used = (size_t)got;
		}
		if (used == 0) {
			if (at_eof) {
				add_record(t, t->scanned, buf, (size_t)got, false);
				t->scanned += (uint64_t)got;
			}
			more = false;
			break;
		}
		t->scanned += used;
		if (now_ms() >= end)
			break;
	}
	return more;
}

/* Streamed lines that arrived while the file was still being read. */
static void index_pending(struct tx *t)
{
	while (t->mem_indexed < t->mem.len) {
		const char *p = t->mem.buf + t->mem_indexed;
		const char *nl = memchr(p, '\n', t->mem.len - t->mem_indexed);
		size_t n = nl ? (size_t)(nl - p) : t->mem.len - t->mem_indexed;
		add_record(t, t->mem_indexed, p, n, true);
		t->mem_indexed += n + 1;
	}
}

static bool tx_pump(struct view *v, int64_t budget_ms)
{
	struct tx *t = v->priv;
	bool more = t->fd >= 0 && t->scanned < t->limit && index_file(t, budget_ms, !t->live);
	if (!more)
		index_pending(t);
	view_set_lines(v, t->total);
	return more;
}

/* ---- view ops ---- */

static size_t rec_of_line(const struct tx *t, size_t line)
{
	size_t lo = 0, hi = t->nrecs;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->recs[mid].first <= line)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

static void tx_line(struct view *v, size_t idx, struct line_out *out)
{
	struct tx *t = v->priv;
	if (t->placeholder) {
		lo_reset(out, LINE_EMPTY);
		lo_adds(out, LINE_EMPTY, t->placeholder);
		return;
	}
	size_t ri = rec_of_line(t, idx);
	const struct rendered *r = render(t, ri);
	size_t sub = idx - t->recs[ri].first;
	if (sub >= r->n) {
		lo_reset(out, LINE_TX_RAW);
		return;
	}
	enum line_type type = (enum line_type)r->l[sub].type;
	lo_reset(out, type);
	lo_add(out, type, r->text.buf + r->l[sub].off, r->l[sub].len);
}

static int tx_open(struct view *v, const struct view_arg *arg, struct tp_err *err)
{
	struct tx *t = v->priv;
	t->fd = -1;
	if (!arg->path && arg->name) {
		/* A placeholder: nothing to show yet, and it says why. */
		t->placeholder = xstrdup(arg->name);
		v->ref = xstrdup("");
		view_set_lines(v, 1);
		return 0;
	}
	if (!arg->path) {
		tp_err_set(err, TP_EXIT_USAGE, "transcript view: no file given");
		return -1;
	}
	t->path = path_is_dir(arg->path) ? path_join(arg->path, "transcript.jsonl")
					 : xstrdup(arg->path);
	t->key = arg->name ? xstrdup(arg->name) : NULL;
	t->live = arg->model != NULL;
	t->fd = open(t->path, O_RDONLY | O_CLOEXEC);
	if (t->fd < 0 && !(t->live && errno == ENOENT)) {
		tp_err_set(err, TP_EXIT_USAGE, "cannot open %s: %s", t->path, strerror(errno));
		return -1;
	}
	t->block = xmalloc(BLOCK);
	/* A live attempt's file is read up to where it is now; what the stage
	 * prints from here on arrives through the read op. */
	struct stat sb;
	t->limit = UINT64_MAX;
	if (t->live)
		t->limit = t->fd >= 0 && fstat(t->fd, &sb) == 0 ? (uint64_t)sb.st_size : 0;
	v->ref = xstrdup(arg->name ? arg->name : t->path);
	v->follow = t->live || arg->line < 0;
	v->loading = tx_pump(v, 5);
	if (arg->line > 0)
		view_select(v, (size_t)arg->line - 1);
	else if (arg->line < 0 && v->nlines)
		view_select(v, v->nlines - 1);
	return 0;
}

static void tx_read(struct view *v, const char *key, const char *line, size_t n)
{
	struct tx *t = v->priv;
	if (!t->live || !t->key || !key || strcmp(key, t->key) != 0)
		return;
	if (n && line[n - 1] == '\r')
		n--;
	if (!n)
		return;
	sb_add(&t->mem, line, n);
	sb_addc(&t->mem, '\n');
	/* Records stay in order: the file's first, then what streamed. */
	if (v->loading)
		return;
	index_pending(t);
	view_set_lines(v, t->total);
}

static void toggle(struct tx *t, size_t ri)
{
	struct rec *r = &t->recs[ri];
	set_flags(r, REC_FLAGS(r) ^ RF_OPEN);
	recount(t, ri);
}

static bool foldable(const struct rec *r)
{
	return REC_TYPE(r) == R_CALL || (REC_TYPE(r) == R_RESULT && !(REC_FLAGS(r) & RF_ATTACHED));
}

static enum request tx_request(struct view *v, enum request req)
{
	struct tx *t = v->priv;
	if (!t->nrecs || t->placeholder)
		return req;
	size_t ri = rec_of_line(t, v->lineno);
	switch (req) {
	case REQ_ENTER:
	case REQ_TOGGLE_FOLD:
		if (!foldable(&t->recs[ri]))
			return req == REQ_ENTER ? REQ_MOVE_DOWN : REQ_NONE;
		toggle(t, ri);
		view_set_lines(v, t->total);
		view_select(v, t->recs[ri].first);
		view_redraw(v);
		return REQ_NONE;
	case REQ_TOGGLE_FOLD_ALL: {
		/* Open everything if anything is folded, else fold everything. */
		bool open = false;
		for (size_t i = 0; i < t->nrecs && !open; i++)
			open = foldable(&t->recs[i]) && !(REC_FLAGS(&t->recs[i]) & RF_OPEN);
		for (size_t i = 0; i < t->nrecs; i++) {
			struct rec *r = &t->recs[i];
			if (!foldable(r) || !!(REC_FLAGS(r) & RF_OPEN) == open)
				continue;
			set_flags(r, REC_FLAGS(r) ^ RF_OPEN);
			cJSON *o = parse(t, i);
			set_lines(r, count_rec(t, i, o));
			cJSON_Delete(o);
		}
		renumber(t, 0);
		t->r.valid = false;
		view_set_lines(v, t->total);
		view_select(v, t->recs[ri].first);
		view_redraw(v);
		return REQ_NONE;
	}
	case REQ_MOVE_NEXT_SECTION:
	case REQ_MOVE_PREV_SECTION: {
		bool next = req == REQ_MOVE_NEXT_SECTION;
		for (size_t i = ri; next ? i + 1 < t->nrecs : i > 0;) {
			i = next ? i + 1 : i - 1;
			enum rtype ty = REC_TYPE(&t->recs[i]);
			if (REC_LINES(&t->recs[i]) && (ty == R_CALL || ty == R_RESULT || ty == R_FINAL ||
						       ty == R_ERROR)) {
				view_select(v, t->recs[i].first);
				return REQ_NONE;
			}
		}
		return REQ_NONE;
	}
	case REQ_REFRESH:
		return REQ_NONE;
	default:
		return req;
	}
}

/* Search raw record bytes first: only records whose JSON contains the text
 * are formatted and checked line by line. */
static ssize_t tx_find(struct view *v, size_t from, bool backward, const struct view_search *s)
{
	struct tx *t = v->priv;
	if (!t->nrecs)
		return -1;
	struct line_out lo;
	lo_init(&lo);
	size_t start = rec_of_line(t, from);
	ssize_t found = -1;
	for (size_t k = 0; k <= t->nrecs && found < 0; k++) {
		size_t ri = backward ? (start + t->nrecs - k) % t->nrecs : (start + k) % t->nrecs;
		const struct rec *r = &t->recs[ri];
		if (!REC_LINES(r))
			continue;
		size_t len;
		const char *p = raw(t, r, &len);
		bool hit = view_search_in(s, p, len) != NULL;
		bool in_result = false;
		if (!hit && REC_TYPE(r) == R_CALL) {
			uint32_t res = res_get(t, (uint32_t)ri);
			if (res != UINT32_MAX) {
				p = raw(t, &t->recs[res], &len);
				hit = in_result = view_search_in(s, p, len) != NULL;
			}
		}
		if (!hit)
			continue;
		/* A match inside a folded tool call opens it: the text is what
		 * was searched for, not the one-line summary. */
		if (foldable(r) && !(REC_FLAGS(r) & RF_OPEN)) {
			bool summary_hit = false;
			if (!in_result) {
				tx_line(v, r->first, &lo);
				summary_hit = view_search_in(s, sb_str(&lo.text), lo.text.len) != NULL;
			}
			if (!summary_hit) {
				toggle(t, ri);
				view_set_lines(v, t->total);
				view_redraw(v);
			}
		}
		uint32_t n = REC_LINES(r);
		for (uint32_t j = 0; j < n; j++) {
			uint32_t sub = backward ? n - 1 - j : j;
			size_t line = r->first + sub;
			/* In the first and last record visited, honour the cursor. */
			if (k == 0 && (backward ? line > from : line < from))
				continue;
			if (k == t->nrecs && (backward ? line <= from : line >= from))
				continue;
			tx_line(v, line, &lo);
			if (view_search_in(s, sb_str(&lo.text), lo.text.len)) {
				found = (ssize_t)line;
				break;
			}
		}
	}
	lo_free(&lo);
	return found;
}

static void tx_title(struct view *v, struct sbuf *out)
{
	struct tx *t = v->priv;
	if (t->placeholder)
		return;
	sb_printf(out, "%zu records", t->nrecs);
}

static const char *tx_file(struct view *v, long *line)
{
	struct tx *t = v->priv;
	*line = 0;
	if (t->nrecs) {
		size_t ri = rec_of_line(t, v->lineno);
		if (!(REC_FLAGS(&t->recs[ri]) & RF_MEM))
			*line = (long)ri + 1;
	}
	return t->path;
}

static void tx_done(struct view *v)
{
	struct tx *t = v->priv;
	if (t->fd >= 0)
		close(t->fd);
	free(t->path);
	free(t->placeholder);
	free(t->key);
	free(t->block);
	free(t->ibuf);
	sb_free(&t->mem);
	free(t->recs);
	free(t->res_key);
	free(t->res_val);
	sb_free(&t->r.text);
	free(t->r.l);
}

const struct view_ops transcript_view_ops = {
	.type = "transcript",
	.private_size = sizeof(struct tx),
	.open = tx_open,
	.line = tx_line,
	.request = tx_request,
	.title = tx_title,
	.pump = tx_pump,
	.find = tx_find,
	.read = tx_read,
	.file = tx_file,
	.done = tx_done,
};
