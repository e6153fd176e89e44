/* Order statistics by selection (nth element), not by sorting; the
 * bootstrap, which needs a median of every resample, counts ranks instead
 * (it is the inner loop of tileport bench's statistics: bench/perf.sh). */
#include "engine/perf/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/base/util.h"

static void swap(double *a, double *b)
{
	double t = *a;
	*a = *b;
	*b = t;
}

/* Wirth's selection: v[k] becomes the k-th smallest, everything before
 * it is <= and everything after it is >=. */
static double select_kth(double *v, size_t n, size_t k)
{
	long l = 0, m = (long)n - 1, kk = (long)k;
	while (l < m) {
		double x = v[kk];
		long i = l, j = m;
		do {
			while (v[i] < x)
				i++;
			while (x < v[j])
				j--;
			if (i <= j) {
				swap(&v[i], &v[j]);
				i++;
				j--;
			}
		} while (i <= j);
		if (j < kk)
			l = i;
		if (kk < i)
			m = j;
	}
	return v[k];
}

static double min_from(const double *v, size_t from, size_t n)
{
	double m = v[from];
	for (size_t i = from + 1; i < n; i++)
		if (v[i] < m)
			m = v[i];
	return m;
}

double stats_quantile(double *v, size_t n, double q)
{
	if (n == 0)
		return NAN;
	if (q <= 0)
		q = 0;
	if (q >= 1)
		q = 1;
	double pos = q * (double)(n - 1);
	size_t k = (size_t)pos;
	double frac = pos - (double)k;
	double a = select_kth(v, n, k);
	if (frac == 0 || k + 1 >= n)
		return a;
	/* after selection everything past k is >= v[k]: the next order
	 * statistic is their minimum */
	double b = min_from(v, k + 1, n);
	return a + frac * (b - a);
}

double stats_median(double *v, size_t n)
{
	return stats_quantile(v, n, 0.5);
}

double stats_rel_iqr(double *v, size_t n)
{
	if (n < 2)
		return NAN;
	double q1 = stats_quantile(v, n, 0.25);
	double q3 = stats_quantile(v, n, 0.75);
	double m = stats_quantile(v, n, 0.5);
	return m != 0 ? 100.0 * (q3 - q1) / m : NAN;
}

double stats_mean(const double *v, size_t n)
{
	if (!n)
		return NAN;
	double s = 0;
	for (size_t i = 0; i < n; i++)
		s += v[i];
	return s / (double)n;
}

double stats_stdev(const double *v, size_t n)
{
	if (n < 2)
		return NAN;
	double m = stats_mean(v, n), s = 0;
	for (size_t i = 0; i < n; i++)
		s += (v[i] - m) * (v[i] - m);
	return sqrt(s / (double)(n - 1));
}

double stats_geomean(const double *r, size_t n)
{
	double s = 0;
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(r[i]) || r[i] <= 0)
			continue;
		s += log(r[i]);
		k++;
	}
	return k ? exp(s / (double)k) : NAN;
}

/* ---- random numbers ---- */

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void stats_rng_seed(struct stats_rng *g, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		g->s[i] = splitmix64(&seed);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t stats_rng_next(struct stats_rng *g)
{
	uint64_t *s = g->s;
	uint64_t out = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return out;
}

size_t stats_rng_below(struct stats_rng *g, size_t n)
{
	/* Lemire's multiply-shift: the high half of x * n, rejecting the few
	 * low halves that would favour some values; a division only then. The
	 * bootstrap draws every sample this way. */
	uint64_t x = stats_rng_next(g);
	unsigned __int128 m = (unsigned __int128)x * n;
	uint64_t low = (uint64_t)m;
	if (low < n) {
		uint64_t floor = (0 - (uint64_t)n) % n;
		while (low < floor) {
			x = stats_rng_next(g);
			m = (unsigned __int128)x * n;
			low = (uint64_t)m;
		}
	}
	return (size_t)(m >> 64);
}

/* ---- bootstrap ---- */

/* One side of one configuration, prepared so that a resample's median is
 * found by counting rather than by selection: every sample's rank in the
 * side's sorted pool. A resample adds one to the count of each rank it
 * draws; the median is where the running count crosses the middle. The
 * same draws give the same order statistics as sorting would. */
struct side_pool {
	double *sorted;   /* every sample of the side, ascending */
	uint32_t **rank;  /* rank[g][j]: position of group g's sample j in sorted */
	uint32_t *count;  /* per position, for one resample */
	size_t total;
	size_t *live;     /* the non-empty groups */
	size_t nlive;
	const struct stats_groups *g;
};

struct ranked {
	double v;
	uint32_t group, index;
};

static int cmp_ranked(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;
	return (x->v > y->v) - (x->v < y->v);
}

static void pool_init(struct side_pool *p, const struct stats_groups *g)
{
	memset(p, 0, sizeof(*p));
	p->g = g;
	p->live = xmalloc((g->ngroups + 1) * sizeof(*p->live));
	p->rank = xcalloc(g->ngroups + 1, sizeof(*p->rank));
	for (size_t i = 0; i < g->ngroups; i++) {
		p->total += g->n[i];
		if (g->n[i])
			p->live[p->nlive++] = i;
	}
	struct ranked *r = xmalloc((p->total + 1) * sizeof(*r));
	size_t k = 0;
	for (size_t i = 0; i < g->ngroups; i++)
		for (size_t j = 0; j < g->n[i]; j++)
			r[k++] = (struct ranked){g->v[i][j], (uint32_t)i, (uint32_t)j};
	if (p->total > 1)
		qsort(r, p->total, sizeof(*r), cmp_ranked);
	p->sorted = xmalloc((p->total + 1) * sizeof(*p->sorted));
	for (size_t i = 0; i < g->ngroups; i++)
		p->rank[i] = xmalloc((g->n[i] + 1) * sizeof(**p->rank));
	for (size_t i = 0; i < p->total; i++) {
		p->sorted[i] = r[i].v;
		p->rank[r[i].group][r[i].index] = (uint32_t)i;
	}
	p->count = xmalloc((p->total + 1) * sizeof(*p->count));
	free(r);
}

static void pool_free(struct side_pool *p)
{
	for (size_t i = 0; p->rank && i < p->g->ngroups; i++)
		free(p->rank[i]);
	free(p->rank);
	free(p->sorted);
	free(p->count);
	free(p->live);
}

/* The value at 0-based position k of the resample (counts summing to n). */
static size_t position(const uint32_t *count, size_t from, size_t *seen, size_t k)
{
	size_t i = from;
	while (*seen + count[i] <= k)
		*seen += count[i++];
	return i;
}

/* One hierarchical resample of a side, its median: as many processes as
 * the side has (empty ones never drawn), each drawn with replacement, then
 * that many samples from each drawn process. */
static double resample_median(struct side_pool *p, struct stats_rng *rng)
{
	memset(p->count, 0, p->total * sizeof(*p->count));
	size_t drawn = 0;
	for (size_t i = 0; i < p->nlive; i++) {
		size_t pick = p->live[stats_rng_below(rng, p->nlive)];
		const uint32_t *rank = p->rank[pick];
		size_t n = p->g->n[pick];
		for (size_t j = 0; j < n; j++)
			p->count[rank[stats_rng_below(rng, n)]]++;
		drawn += n;
	}
	/* stats_quantile's interpolation at 0.5: positions k and k + 1 */
	size_t k = (drawn - 1) / 2, seen = 0;
	size_t at = position(p->count, 0, &seen, k);
	double a = p->sorted[at];
	if (drawn % 2)
		return a;
	size_t next = position(p->count, at, &seen, k + 1);
	return a + 0.5 * (p->sorted[next] - a);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int stats_bootstrap_geomean(const struct stats_groups *ref, const struct stats_groups *cand,
			    size_t nconfigs, int resamples, double level, uint64_t seed,
			    struct stats_boot *out)
{
	out->lo = out->hi = NAN;
	out->resamples = resamples;
	out->seed = seed;
	if (nconfigs == 0 || resamples < 1)
		return -1;
	struct side_pool *pools = xcalloc(2 * nconfigs, sizeof(*pools));
	int rc = 0;
	for (size_t c = 0; c < nconfigs; c++) {
		pool_init(&pools[2 * c], &ref[c]);
		pool_init(&pools[2 * c + 1], &cand[c]);
		if (!pools[2 * c].nlive || !pools[2 * c + 1].nlive)
			rc = -1;
	}
	double *g = xmalloc((size_t)resamples * sizeof(*g));
	struct stats_rng rng;
	stats_rng_seed(&rng, seed);
	for (int b = 0; b < resamples && rc == 0; b++) {
		double s = 0;
		for (size_t c = 0; c < nconfigs; c++) {
			double r = resample_median(&pools[2 * c], &rng);
			double k = resample_median(&pools[2 * c + 1], &rng);
			s += log(k / r);
		}
		g[b] = exp(s / (double)nconfigs);
	}
	for (size_t i = 0; i < 2 * nconfigs; i++)
		pool_free(&pools[i]);
	free(pools);
	if (rc == 0) {
		qsort(g, (size_t)resamples, sizeof(*g), cmp_double);
		double tail = (1.0 - level) / 2.0;
		size_t ilo = (size_t)floor(tail * (double)resamples);
		size_t ihi = (size_t)ceil((1.0 - tail) * (double)resamples) - 1;
		if (ihi >= (size_t)resamples)
			ihi = (size_t)resamples - 1;
		out->lo = g[ilo];
		out->hi = g[ihi];
	}
	free(g);
	return rc;
}
