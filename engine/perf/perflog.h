/* Perf logs: the pytest logs of test_perf run with -sv --print-record
 * (baseline_perf_*.txt, perf_cutile_rs*.txt), and the logs `tileport bench`
 * writes in the same format. A log is read into its line counts (what
 * validate_perf_log.sh counts) and one record per benchmark in each
 * `Performance Test Results` section. The format is in docs/formats.md.
 *
 *   struct perf_log log;
 *   if (perflog_load("perf_cutile_rs.txt", &log, &err) < 0) ...
 *   for (size_t i = 0; i < log.nrecs; i++) use log.recs[i].config, .st.median
 *   perflog_free(&log);
 */
#ifndef TILEPORT_PERF_PERFLOG_H
#define TILEPORT_PERF_PERFLOG_H

#include <stdbool.h>
#include <stddef.h>

#include "engine/base/util.h"

#define PERFLOG_MARKER "Performance Test Results"

/* What the test run said about the record's test. */
enum perf_outcome {
	PERF_OUTCOME_UNKNOWN, /* no PASSED/FAILED line before the next section */
	PERF_OUTCOME_PASSED,
	PERF_OUTCOME_FAILED, /* FAILED or ERROR */
};

/* One side's numbers for a configuration. Times are in ms; a field the
 * record does not carry is NAN (doubles) or -1 (counts). */
struct perf_stats {
	double median, mean, std, min, max;
	double rel_std;      /* percent of the mean, as TileGym prints it */
	double noise;        /* relative spread in percent (IQR/median for tileport
			        bench, else rel_std) */
	long nrep;           /* samples behind the median */
	double kernels;      /* device operations per iteration */
	char *kernel_name;   /* the top kernel, or NULL */
};

struct perf_record {
	int line;          /* the section's marker line (1-based) */
	char *test;        /* pytest node id, or NULL when the log gives none */
	char *params;      /* the text in the node id's last [...], or NULL */
	char *backend;     /* the payload's framework key ("cutile", "cutile_rs") */
	char *config;      /* the pairing key: params without the backend token */
	bool backward;     /* the payload's "backward" stats (else "forward") */
	struct perf_stats st;
	enum perf_outcome outcome;
	char *problem;     /* why the record has no median, or NULL */
	int problem_line;  /* where the problem is, when not on the marker line (0) */
};
/* The line to name with a record's problem: one number for one record. */
int perf_record_problem_line(const struct perf_record *r);

/* A line of the log the reader could not use, and why. */
struct perf_note {
	int line;
	char *msg;
};

struct perf_log {
	char *path;
	/* validate_perf_log.sh's counts: lines containing the marker,
	 * PASSED, FAILED and SKIPPED */
	size_t sections, passed, failed, skipped;
	int first_failed_line; /* 0 when none */
	struct perf_record *recs;
	size_t nrecs;
	struct perf_note *notes;
	size_t nnotes;
};

/* Read a log from memory (text need not be NUL-terminated). Never fails:
 * what cannot be read becomes a record problem or a note. */
void perflog_parse(const char *path, const char *text, size_t len, struct perf_log *out);
/* Read a file: -1 with err (exit 2, naming the file) when it cannot be read. */
int perflog_load(const char *path, struct perf_log *out, struct tp_err *err);
void perflog_free(struct perf_log *log);

/* The pairing key of a pytest parameter string: `params` without the
 * backend token (`4096-1024-float16-cutile` -> `4096-1024-float16`). The
 * backend's '_' may be written '-' (cutile-rs). Caller frees. */
char *perflog_config_key(const char *params, const char *backend);

/* The dtype token of a configuration key ("float16", "bf16", ...) as a
 * pointer into key with its length, or NULL; and the key without it
 * (caller frees). Used to show dtype as its own column. */
const char *perf_config_dtype(const char *key, size_t *len);
char *perf_config_shape(const char *key);

#endif
