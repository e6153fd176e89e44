/* tileport bench: time a reference and a candidate command on the GPU.
 * Each round runs reference, candidate, candidate, reference (ABBA), every
 * process under the CUPTI injection library (libtileport_cupti.so) with
 * its own trace file; the commands mark each configuration with an NVTX
 * range `tileport:<config>` around their timed repetitions (the protocol
 * in docs/perf.md). Per configuration and side: the median of the
 * per-iteration device times over every process, a noise figure (IQR /
 * median), the samples and kernels per iteration; over the paired
 * configurations: the geomean of candidate / reference and its bootstrap
 * 95 % interval (processes, then samples; fixed seed). The strict pass:
 * the interval's upper bound <= 1.05.
 *
 *   struct bench_opts o = {.cmd = {"./ref", "./cand"}, .rounds = 2, .dir = "out",
 *                          .inject = lib, ...};
 *   struct bench_result r;
 *   if (bench_run(&o, &r, &err) < 0) ...   (exit 3: could not measure)
 *   bench_print(&r, stdout);
 *   bench_result_free(&r);
 */
#ifndef TILEPORT_PERF_BENCH_H
#define TILEPORT_PERF_BENCH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "engine/base/util.h"
#include "engine/perf/compare.h"
#include "engine/perf/gpu.h"

enum bench_side { BENCH_REF, BENCH_CAND };

struct bench_opts {
	const char *cmd[2];   /* shell commands (/bin/sh -c) */
	const char *name[2];  /* labels, the framework keys of the perf logs; "ref", "cand" */
	int rounds;           /* ABBA rounds, >= 1 */
	const char *inject;   /* libtileport_cupti.so, or NULL: the commands write their
			       * own traces (to $TILEPORT_TRACE) */
	const char *dir;      /* traces, command output, bench.json and the perf logs */
	int64_t timeout_ms;   /* per process; 0: none */
	uint64_t flush_bytes; /* memsets this large are L2 flushes */
	uint64_t seed;
	int resamples;
	/* a line for the user as each process starts and ends; may be NULL */
	void (*progress)(void *ud, const char *msg);
	void *ud;
};

/* One process: one run of one command. */
struct bench_proc {
	int seq, round;
	enum bench_side side;
	char *status;     /* "exit 0", "killed by signal 9", ... */
	bool ok;
	char **traces;    /* the trace files it wrote (NULL-terminated) */
	struct gpu_snapshot before, after;
};

/* One configuration's samples on one side, per process. */
struct bench_samples {
	double **ns;      /* ns[p][0..n[p]): per-iteration device time */
	size_t *n;
	size_t nprocs;
	double *ops;      /* operations per iteration, every process */
	size_t nops;
	char *top_kernel;
};

struct bench_config {
	char *config;
	struct bench_samples side[2];
};

struct bench_result {
	char *cmd[2], *name[2];
	int rounds;
	uint64_t flush_bytes, seed;
	int resamples;
	struct bench_proc *procs;
	size_t nprocs;
	struct bench_config *configs;
	size_t nconfigs;
	struct perf_table table; /* base = reference, cand = candidate */
};

/* Run the rounds. -1 with err: exit 3 when a command fails, writes no
 * trace or the library is missing; exit 2 for bad options. */
int bench_run(const struct bench_opts *o, struct bench_result *r, struct tp_err *err);
/* Read a directory bench_run wrote (its traces, and bench.json for the
 * commands and GPU readings) and compute everything again, with o's
 * flush_bytes, seed and resamples. */
int bench_load_dir(const char *dir, const struct bench_opts *o, struct bench_result *r,
		   struct tp_err *err);
void bench_result_free(struct bench_result *r);

/* The terminal table (docs/perf.md shows one). */
void bench_print(const struct bench_result *r, FILE *out);
/* Everything, raw samples included, as JSON (docs/formats.md). Caller frees. */
char *bench_json(const struct bench_result *r);
/* DIR/perf_<name>.txt for both sides, in the perf-log format, and
 * DIR/bench.json. */
int bench_write(const struct bench_result *r, const char *dir, struct tp_err *err);

/* libtileport_cupti.so: $TILEPORT_CUPTI_LIB, beside the tileport binary,
 * then the installed one. NULL when none exists. Caller frees. */
char *bench_find_library(void);

#endif
