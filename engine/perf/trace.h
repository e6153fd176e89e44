/* Reading trace files (engine/perf/trace_format.h, docs/formats.md
 * "Trace files") and turning them into per-configuration samples: every
 * device operation inside an NVTX range `tileport:<config>` belongs to
 * that configuration; inside it, each L2 flush (a memset of at least
 * flush_bytes) starts an iteration, and the iteration's sample is the
 * summed device time of the other operations (kernels, copies, smaller
 * memsets) until the next flush.
 *
 *   struct trace t;
 *   if (trace_load("0-ref.4242.trace", &t, &err) < 0) ...  (exit 2, file:line)
 *   struct trace_configs c;
 *   trace_assign(&t, TRACE_FLUSH_BYTES, &c);
 *   for each c.v[i]: c.v[i].config, c.v[i].ns[0..n), c.v[i].ops[0..n)
 */
#ifndef TILEPORT_PERF_TRACE_H
#define TILEPORT_PERF_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/base/util.h"

/* Memsets this large are L2 flushes (the runners in samples/bench flush
 * 2x L2, 120 MiB on an H200); smaller ones are part of the measured
 * operation. tileport bench --flush-bytes changes it. */
#define TRACE_FLUSH_BYTES (64ull << 20)

enum trace_op_kind { TRACE_OP_KERNEL, TRACE_OP_MEMSET, TRACE_OP_MEMCPY };

struct trace_op {
	uint64_t start, end; /* ns, CUPTI's clock (CLOCK_REALTIME) */
	uint64_t bytes;      /* memset, memcpy */
	uint32_t device, stream, correlation;
	uint8_t kind;
	char *name; /* kernels; NULL otherwise */
};

struct trace_range {
	uint64_t id, start, end;
	char *name;
	bool closed;
	int line;
};

struct trace {
	char *path;
	long pid;        /* from M pid; -1 when absent */
	char *libcupti;  /* M libcupti */
	char *nvtx;      /* M nvtx_injection */
	struct trace_op *ops; /* sorted by start */
	size_t nops;
	struct trace_range *ranges;
	size_t nranges;
	uint64_t dropped;     /* sum of D records */
	size_t no_timestamp;  /* operations with start == end == 0 (left out) */
	size_t overheads;     /* O records */
	uint64_t overhead_ns;
	bool flushed;         /* an F record was read */
	size_t after_flush;   /* records after the last F (the process did not flush at exit) */
	bool truncated;       /* the last line had no newline and was ignored */
	char **errors;        /* X records (NULL-terminated, or NULL) */
};

/* -1 with err (exit 2, "FILE:LINE: expected ...") on a malformed line. */
int trace_parse(const char *path, const char *text, size_t len, struct trace *t,
		struct tp_err *err);
int trace_load(const char *path, struct trace *t, struct tp_err *err);
void trace_free(struct trace *t);

/* One configuration's iterations in one trace. */
struct trace_config {
	char *config;
	double *ns;       /* per iteration: summed device time */
	double *ops;      /* per iteration: operations counted */
	size_t n, cap;
	char *top_kernel; /* the kernel with the most device time */
	double top_ns;
};

struct trace_configs {
	struct trace_config *v;
	size_t n;
	char **notes; /* what was left out and why (NULL-terminated, or NULL) */
	size_t nnotes;
};

void trace_assign(const struct trace *t, uint64_t flush_bytes, struct trace_configs *out);
void trace_configs_free(struct trace_configs *c);

#endif
