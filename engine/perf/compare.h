/* A paired benchmark table: per configuration the baseline's and the
 * candidate's median device time, their ratio (candidate / baseline: above
 * 1 the candidate is slower), and over the paired configurations the
 * geometric mean, its band and the stage-E verdict (pipeline rules in
 * docs/perf.md, "The geomean gate"). Built from perf logs (perf_compare),
 * from a run directory (perf_compare_run), from a performance.md
 * (engine/perf/perfmd.h) or from `tileport bench` (engine/perf/bench.h).
 *
 *   struct perf_table t;
 *   char *base[] = {"baseline_perf.txt", NULL}, *cand[] = {"perf_cutile_rs.txt", NULL};
 *   if (perf_compare(base, cand, "reference/analysis.json", &t, &err) < 0) ...
 *   printf("geomean_ratio=%.4f %s\n", t.geomean, perf_verdict_name(t.verdict));
 *   perf_table_free(&t);
 */
#ifndef TILEPORT_PERF_COMPARE_H
#define TILEPORT_PERF_COMPARE_H

#include <stdbool.h>
#include <stddef.h>

#include "engine/base/util.h"

/* The reference gate: DONE when geomean_ratio <= 1.05. */
#define PERF_GATE_RATIO 1.05

enum perf_band {
	PERF_BAND_DONE,     /* <= 1.05 */
	PERF_BAND_MILD,     /* (1.05, 1.10] */
	PERF_BAND_MODERATE, /* (1.10, 1.50] */
	PERF_BAND_LARGE,    /* > 1.50 */
	PERF_BAND_MISSING,  /* no ratio: a side has no median */
};
enum perf_band perf_band_of(double ratio);
/* "DONE", "MILD_GAP", "MODERATE_GAP", "LARGE_GAP", "MISSING_DATA" */
const char *perf_band_name(enum perf_band b);

enum perf_verdict { PERF_VERDICT_DONE, PERF_VERDICT_INVESTIGATE, PERF_VERDICT_BLOCKED };
const char *perf_verdict_name(enum perf_verdict v);

struct perf_side {
	double ms;       /* median time per iteration; NAN: no record or no median */
	double noise;    /* relative spread, percent; NAN when unknown */
	double rel_std;  /* relative standard deviation, percent; NAN when unknown */
	long n;          /* samples; -1 when unknown */
	double kernels;  /* device operations per iteration; NAN when unknown */
	char *backend;   /* the record's framework, or NULL */
	char *file;      /* where the record is, or NULL */
	int line;
};

struct perf_row {
	char *config;  /* the pairing key */
	char *shape;   /* config without its dtype token */
	char *dtype;   /* "" when the key has none */
	char *variant; /* NULL for single-variant kernels */
	struct perf_side base, cand;
	double ratio;  /* cand.ms / base.ms; NAN: not paired (an NA row) */
	enum perf_band band;
	char *why;     /* why the row is NA, or NULL */
};

struct perf_variant_sum {
	char *name;
	char *backend; /* the baseline the variant is compared with */
	double geomean;
	size_t npaired;
};

struct perf_table {
	char *kernel;    /* the operator, or NULL */
	char *base_name; /* the baseline's backend(s), "cutile"; "" when unknown */
	char *cand_name;
	struct perf_row *rows;
	size_t nrows, caprows;
	size_t npaired;
	double geomean;    /* over the paired rows; NAN when none */
	double ci_lo, ci_hi; /* 95 % interval of the geomean; NAN when unknown */
	char *ci_how;      /* how the interval was made, or NULL */
	bool strict_ci;    /* the pass rule of tileport bench: DONE needs the
			      interval's upper (slow-side) bound <= 1.05 */
	enum perf_band severity;
	enum perf_verdict verdict;
	struct perf_variant_sum *variants;
	size_t nvariants;
	char **notes;      /* "file:line: message", things the reader skipped */
	size_t nnotes, capnotes;
	/* the inputs, so that a view can read them again */
	char **base_files, **cand_files; /* NULL-terminated, or NULL */
	char *analysis;
	char *run_dir;
};

/* Pair the records of the baseline logs with the candidate logs'.
 * analysis (may be NULL) maps configurations to variants and variants to
 * their winning baseline backend (config_to_variant, kernel_variants,
 * reference_backend_selection). -1 with err (exit 2, naming the file and
 * line) when an input cannot be read or holds no record. */
int perf_compare(char *const *base_files, char *const *cand_files, const char *analysis,
		 struct perf_table *t, struct tp_err *err);
/* The same over a run directory's files: baseline_perf_cutile.txt and
 * baseline_perf_triton_tileir.txt (else baseline_perf.txt),
 * perf_cutile_rs.txt and perf_cutile_rs_*.txt, reference/analysis.json. */
int perf_compare_run(const char *run_dir, struct perf_table *t, struct tp_err *err);
/* Read the inputs again into a fresh table (the view's refresh). */
int perf_table_reload(struct perf_table *t, struct tp_err *err);

/* ---- building a table by hand (bench, performance.md) ---- */
void perf_table_init(struct perf_table *t);
struct perf_row *perf_table_add(struct perf_table *t, const char *config);
void perf_table_note(struct perf_table *t, const char *fmt, ...) TP_PRINTF(2, 3);
/* Ratios, bands, geomean, severity, verdict and per-variant geomeans from
 * the rows; when ci_how is NULL, an interval from the rows' rel_std and
 * sample counts (the perf logs carry no samples). */
void perf_table_finish(struct perf_table *t);
void perf_table_free(struct perf_table *t);

/* Per-row verdict as performance.md writes it: PASS or INVESTIGATE. */
const char *perf_row_verdict(const struct perf_row *r);

#endif
