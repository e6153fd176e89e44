/* Trace files: strict about the records it knows (a malformed one is an
 * error naming file and line), tolerant of what a killed process leaves
 * (a last line without its newline) and of record kinds added later. */
#include "engine/perf/trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/base/files.h"
#include "engine/perf/trace_format.h"

#define MAX_FIELDS 12

struct fields {
	const char *f[MAX_FIELDS];
	size_t len[MAX_FIELDS];
	size_t n;
};

/* Split a line (no newline) at tabs; the last field takes the rest. */
static void split(const char *s, size_t n, size_t max, struct fields *out)
{
	out->n = 0;
	const char *end = s + n;
	while (out->n < max) {
		const char *tab = out->n + 1 < max ? memchr(s, '\t', (size_t)(end - s)) : NULL;
		out->f[out->n] = s;
		out->len[out->n] = (size_t)((tab ? tab : end) - s);
		out->n++;
		if (!tab)
			break;
		s = tab + 1;
	}
}

static bool to_u64(const char *s, size_t n, uint64_t *v)
{
	if (!n || n > 20)
		return false;
	uint64_t x = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		uint64_t d = (uint64_t)(s[i] - '0');
		if (x > (UINT64_MAX - d) / 10)
			return false;
		x = x * 10 + d;
	}
	*v = x;
	return true;
}

static char *unescape(const char *s, size_t n)
{
	char *o = xmalloc(n + 1), *p = o;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\\' && i + 1 < n) {
			char c = s[++i];
			*p++ = c == 't' ? '\t' : c == 'n' ? '\n' : c;
		} else {
			*p++ = s[i];
		}
	}
	*p = 0;
	return o;
}

struct parser {
	struct trace *t;
	const char *path;
	int line;
	size_t opcap, rangecap, nerrors;
	struct tp_err *err;
};

static int bad(struct parser *p, const char *expected)
{
	tp_err_set(p->err, TP_EXIT_USAGE, "%s:%d: expected %s", p->path, p->line, expected);
	return -1;
}

/* fields 1..k as numbers */
static bool nums(const struct fields *f, size_t from, size_t k, uint64_t *v)
{
	if (f->n < from + k)
		return false;
	for (size_t i = 0; i < k; i++)
		if (!to_u64(f->f[from + i], f->len[from + i], &v[i]))
			return false;
	return true;
}

static struct trace_range *range_by_id(struct trace *t, uint64_t id)
{
	for (size_t i = t->nranges; i-- > 0;)
		if (t->ranges[i].id == id && !t->ranges[i].closed)
			return &t->ranges[i];
	return NULL;
}

static int op_record(struct parser *p, char tag, const char *s, size_t n)
{
	struct trace *t = p->t;
	struct fields f;
	uint64_t v[8];
	size_t want = tag == TRACE_KERNEL ? 11 : 9;
	split(s, n, want, &f);
	if (f.n != want || !nums(&f, 1, tag == TRACE_KERNEL ? 7 : 8, v))
		return bad(p, tag == TRACE_KERNEL
			      ? "K start end device context stream correlation graph grid block name "
				"(tab-separated numbers, then the name)"
			      : "S|C start end device context stream correlation bytes value "
				"(tab-separated numbers)");
	if (v[1] < v[0])
		return bad(p, "end >= start");
	if (v[0] == 0 && v[1] == 0) {
		/* CUPTI could not time it; it cannot be summed */
		t->no_timestamp++;
		return 0;
	}
	t->ops = xgrow(t->ops, &p->opcap, t->nops + 1, sizeof(*t->ops));
	struct trace_op *op = &t->ops[t->nops++];
	memset(op, 0, sizeof(*op));
	op->start = v[0];
	op->end = v[1];
	op->device = (uint32_t)v[2];
	op->stream = (uint32_t)v[4];
	op->correlation = (uint32_t)v[5];
	if (tag == TRACE_KERNEL) {
		op->kind = TRACE_OP_KERNEL;
		op->name = unescape(f.f[10], f.len[10]);
	} else {
		op->kind = tag == TRACE_MEMSET ? TRACE_OP_MEMSET : TRACE_OP_MEMCPY;
		op->bytes = v[6];
	}
	return 0;
}

static int record(struct parser *p, const char *s, size_t n)
{
	struct trace *t = p->t;
	struct fields f;
	uint64_t v[3];
	char tag = s[0];
	if (n > 1 && s[1] != '\t')
		return bad(p, "a one-letter record kind and a tab");
	switch (tag) {
	case TRACE_META:
		split(s, n, 3, &f);
		if (f.n != 3)
			return bad(p, "M key value");
		if (f.len[1] == 3 && !memcmp(f.f[1], "pid", 3))
			t->pid = to_u64(f.f[2], f.len[2], v) ? (long)v[0] : -1;
		else if (f.len[1] == 8 && !memcmp(f.f[1], "libcupti", 8))
			free(t->libcupti), t->libcupti = unescape(f.f[2], f.len[2]);
		else if (f.len[1] == 14 && !memcmp(f.f[1], "nvtx_injection", 14))
			free(t->nvtx), t->nvtx = unescape(f.f[2], f.len[2]);
		return 0;
	case TRACE_KERNEL:
	case TRACE_MEMSET:
	case TRACE_MEMCPY:
		return op_record(p, tag, s, n);
	case TRACE_RANGE_START: {
		split(s, n, 4, &f);
		if (f.n != 4 || !nums(&f, 1, 2, v))
			return bad(p, "R id timestamp name");
		t->ranges = xgrow(t->ranges, &p->rangecap, t->nranges + 1, sizeof(*t->ranges));
		struct trace_range *r = &t->ranges[t->nranges++];
		*r = (struct trace_range){.id = v[0], .start = v[1], .line = p->line,
					  .name = unescape(f.f[3], f.len[3])};
		return 0;
	}
	case TRACE_RANGE_END: {
		split(s, n, 3, &f);
		if (f.n != 3 || !nums(&f, 1, 2, v))
			return bad(p, "E id timestamp");
		struct trace_range *r = range_by_id(t, v[0]);
		if (!r)
			return bad(p, "an E record to end a range an earlier R record started");
		if (v[1] < r->start)
			return bad(p, "a range end at or after its start");
		r->end = v[1];
		r->closed = true;
		return 0;
	}
	case TRACE_MARK:
		split(s, n, 3, &f);
		if (f.n != 3 || !nums(&f, 1, 1, v))
			return bad(p, "I timestamp name");
		return 0;
	case TRACE_OVERHEAD:
		split(s, n, 4, &f);
		if (f.n != 4 || !nums(&f, 1, 3, v) || v[1] < v[0])
			return bad(p, "O start end kind (numbers, end >= start)");
		t->overheads++;
		t->overhead_ns += v[1] - v[0];
		return 0;
	case TRACE_DROPPED:
		split(s, n, 2, &f);
		if (f.n != 2 || !nums(&f, 1, 1, v))
			return bad(p, "D count");
		t->dropped += v[0];
		return 0;
	case TRACE_FLUSH:
		split(s, n, 3, &f);
		if (f.n != 3 || !nums(&f, 1, 2, v))
			return bad(p, "F records dropped");
		t->flushed = true;
		t->after_flush = 0;
		return 0;
	case TRACE_ERROR:
		t->errors = xrealloc(t->errors, (p->nerrors + 2) * sizeof(*t->errors));
		t->errors[p->nerrors++] = unescape(s + (n > 1 ? 2 : 1), n > 1 ? n - 2 : 0);
		t->errors[p->nerrors] = NULL;
		return 0;
	default:
		/* a record kind of a later version: skipped */
		return 0;
	}
}

static int cmp_op(const void *a, const void *b)
{
	const struct trace_op *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->end > y->end) - (x->end < y->end);
}

int trace_parse(const char *path, const char *text, size_t len, struct trace *t,
		struct tp_err *err)
{
	memset(t, 0, sizeof(*t));
	t->path = xstrdup(path);
	t->pid = -1;
	struct parser p = {.t = t, .path = path, .err = err};
	size_t at = 0;
	while (at < len) {
		const char *s = text + at;
		const char *nl = memchr(s, '\n', len - at);
		p.line++;
		if (!nl) {
			/* a process killed mid-write */
			t->truncated = true;
			break;
		}
		size_t n = (size_t)(nl - s);
		at += n + 1;
		if (n && s[n - 1] == '\r')
			n--;
		if (p.line == 1) {
			char want[32];
			snprintf(want, sizeof(want), "%s\t%d", TRACE_MAGIC, TRACE_VERSION);
			if (n != strlen(want) || memcmp(s, want, n))
				return bad(&p, "'" TRACE_MAGIC "<TAB>1' (a tileport trace, version 1)");
			continue;
		}
		if (!n || s[0] == '#')
			continue;
		if (record(&p, s, n) < 0)
			return -1;
		if (s[0] != TRACE_FLUSH && s[0] != TRACE_META)
			t->after_flush++;
	}
	if (p.line == 0)
		return bad(&p, "'" TRACE_MAGIC "<TAB>1' (the file is empty)");
	/* CUPTI hands buffers over in no particular order */
	if (t->nops > 1)
		qsort(t->ops, t->nops, sizeof(*t->ops), cmp_op);
	return 0;
}

int trace_load(const char *path, struct trace *t, struct tp_err *err)
{
	size_t len;
	char *text = read_file(path, &len, err);
	if (!text) {
		memset(t, 0, sizeof(*t));
		return -1;
	}
	int rc = trace_parse(path, text, len, t, err);
	free(text);
	return rc;
}

void trace_free(struct trace *t)
{
	for (size_t i = 0; i < t->nops; i++)
		free(t->ops[i].name);
	for (size_t i = 0; i < t->nranges; i++)
		free(t->ranges[i].name);
	free(t->ops);
	free(t->ranges);
	strv_free(t->errors);
	free(t->path);
	free(t->libcupti);
	free(t->nvtx);
	memset(t, 0, sizeof(*t));
}
