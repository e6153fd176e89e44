/* Statistics for benchmark comparisons: order statistics, the geometric
 * mean of ratios, a seeded random generator, and the bootstrap confidence
 * interval of a geomean of per-configuration median ratios. Everything is
 * deterministic for a given seed, so a CI printed once can be reproduced
 * (docs/perf.md, "Statistics"). */
#ifndef TILEPORT_PERF_STATS_H
#define TILEPORT_PERF_STATS_H

#include <stddef.h>
#include <stdint.h>

/* The q-quantile (0..1) of v[0..n) by linear interpolation between order
 * statistics (numpy's default). v is reordered. NAN when n == 0. */
double stats_quantile(double *v, size_t n, double q);
double stats_median(double *v, size_t n);
/* IQR / median in percent; NAN when n < 2 or the median is 0. v is reordered. */
double stats_rel_iqr(double *v, size_t n);
double stats_mean(const double *v, size_t n);
/* Sample standard deviation (n - 1); NAN when n < 2. */
double stats_stdev(const double *v, size_t n);

/* exp(mean(log r)) over the finite, positive r; NAN when there is none. */
double stats_geomean(const double *r, size_t n);

/* xoshiro256** seeded through splitmix64: the same seed, the same stream
 * on every machine. */
struct stats_rng {
	uint64_t s[4];
};
void stats_rng_seed(struct stats_rng *g, uint64_t seed);
uint64_t stats_rng_next(struct stats_rng *g);
/* Uniform in [0, n), without modulo bias. n > 0. */
size_t stats_rng_below(struct stats_rng *g, size_t n);

/* One side of one configuration: samples grouped by the process that
 * measured them (a process is one run of the command). */
struct stats_groups {
	const double *const *v; /* v[g][0..n[g]) */
	const size_t *n;
	size_t ngroups;
};

/* The bootstrap of geomean over c of median(cand[c]) / median(ref[c]):
 * each resample draws, per configuration and side, the processes with
 * replacement and then the samples inside each drawn process with
 * replacement (a hierarchical bootstrap: process-to-process variation is
 * part of the interval). `resamples` rounds; [lo, hi] is the central
 * `level` (0.95) interval by the percentile method. Returns -1 when a
 * configuration has no samples on a side. */
struct stats_boot {
	double lo, hi;
	int resamples;
	uint64_t seed;
};
int stats_bootstrap_geomean(const struct stats_groups *ref, const struct stats_groups *cand,
			    size_t nconfigs, int resamples, double level, uint64_t seed,
			    struct stats_boot *out);

/* The default resample count and seed of `tileport bench`. */
#define STATS_BOOT_RESAMPLES 2000
#define STATS_BOOT_SEED 20261129u

#endif
