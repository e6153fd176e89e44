/* From a trace to per-configuration iterations (engine/perf/trace.h): the
 * rules of docs/perf.md, "How tileport bench measures". */
#include "engine/perf/trace.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "engine/perf/trace_format.h"

static void note(struct trace_configs *c, const char *fmt, ...) TP_PRINTF(2, 3);
static void note(struct trace_configs *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	c->notes = xrealloc(c->notes, (c->nnotes + 2) * sizeof(*c->notes));
	c->notes[c->nnotes++] = xvasprintf(fmt, ap);
	c->notes[c->nnotes] = NULL;
	va_end(ap);
}

static struct trace_config *config_of(struct trace_configs *c, const char *name)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->v[i].config, name))
			return &c->v[i];
	c->v = xrealloc(c->v, (c->n + 1) * sizeof(*c->v));
	struct trace_config *k = &c->v[c->n++];
	memset(k, 0, sizeof(*k));
	k->config = xstrdup(name);
	return k;
}

static void add_iteration(struct trace_config *k, double ns, double ops)
{
	if (k->n == k->cap) {
		k->cap = k->cap ? 2 * k->cap : 64;
		k->ns = xrealloc(k->ns, k->cap * sizeof(*k->ns));
		k->ops = xrealloc(k->ops, k->cap * sizeof(*k->ops));
	}
	k->ns[k->n] = ns;
	k->ops[k->n] = ops;
	k->n++;
}

/* Kernel names and their device time inside one configuration. */
struct name_time {
	const char *name;
	double ns;
};

static void tally(struct name_time **v, size_t *n, const char *name, double ns)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*v)[i].name, name)) {
			(*v)[i].ns += ns;
			return;
		}
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[(*n)++] = (struct name_time){name, ns};
}

static bool is_flush(const struct trace_op *op, uint64_t flush_bytes)
{
	return op->kind == TRACE_OP_MEMSET && op->bytes >= flush_bytes;
}

static void assign_range(const struct trace *t, const struct trace_range *r, uint64_t flush_bytes,
			 struct trace_configs *out)
{
	const char *cfg = r->name + strlen(TRACE_RANGE_PREFIX);
	struct trace_config *k = config_of(out, cfg);
	/* the first operation that can be inside: ops are sorted by start */
	size_t lo = 0, hi = t->nops;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->ops[mid].start < r->start)
			lo = mid + 1;
		else
			hi = mid;
	}
	bool in_iter = false, any_flush = false;
	double ns = 0, ops = 0;
	size_t before_flush = 0, empty = 0;
	struct name_time *names = NULL;
	size_t nnames = 0;
	for (size_t i = lo; i < t->nops && t->ops[i].start <= r->end; i++) {
		const struct trace_op *op = &t->ops[i];
		if (op->end > r->end)
			continue; /* straddles the end: not inside */
		if (is_flush(op, flush_bytes)) {
			if (in_iter) {
				if (ops > 0)
					add_iteration(k, ns, ops);
				else
					empty++;
			}
			in_iter = any_flush = true;
			ns = ops = 0;
			continue;
		}
		double d = (double)(op->end - op->start);
		if (!any_flush) {
			before_flush++;
			continue;
		}
		ns += d;
		ops += 1;
		if (op->name)
			tally(&names, &nnames, op->name, d);
	}
	if (in_iter) {
		if (ops > 0)
			add_iteration(k, ns, ops);
		else
			empty++;
	}
	if (!any_flush) {
		note(out, "%s:%d: range %s has no L2 flush (a memset of at least %llu bytes): "
		     "its iterations cannot be told apart, so it gives no samples", t->path,
		     r->line, r->name, (unsigned long long)flush_bytes);
	} else if (before_flush) {
		note(out, "%s:%d: range %s: %zu operation(s) before its first flush left out",
		     t->path, r->line, r->name, before_flush);
	}
	if (empty)
		note(out, "%s:%d: range %s: %zu flush(es) with nothing measured after them",
		     t->path, r->line, r->name, empty);
	for (size_t i = 0; i < nnames; i++)
		if (names[i].ns > k->top_ns) {
			k->top_ns = names[i].ns;
			free(k->top_kernel);
			k->top_kernel = xstrdup(names[i].name);
		}
	free(names);
}

void trace_assign(const struct trace *t, uint64_t flush_bytes, struct trace_configs *out)
{
	memset(out, 0, sizeof(*out));
	size_t prefix = strlen(TRACE_RANGE_PREFIX);
	for (size_t i = 0; i < t->nranges; i++) {
		const struct trace_range *r = &t->ranges[i];
		if (strncmp(r->name, TRACE_RANGE_PREFIX, prefix))
			continue; /* the program's own ranges */
		if (!r->closed) {
			note(out, "%s:%d: range %s was never popped: left out", t->path, r->line,
			     r->name);
			continue;
		}
		if (!r->name[prefix]) {
			note(out, "%s:%d: range '%s' names no configuration", t->path, r->line,
			     r->name);
			continue;
		}
		assign_range(t, r, flush_bytes, out);
	}
}

void trace_configs_free(struct trace_configs *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->v[i].config);
		free(c->v[i].ns);
		free(c->v[i].ops);
		free(c->v[i].top_kernel);
	}
	free(c->v);
	strv_free(c->notes);
	memset(c, 0, sizeof(*c));
}
