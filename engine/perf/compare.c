/* Pairing perf-log records into a table and the gate over it. The rules
 * (docs/perf.md, "The geomean gate"): records pair by parameter string
 * with the backend token dropped; each configuration's variant
 * (config_to_variant) picks its winning baseline backend; ratio =
 * candidate / baseline; a configuration without a median on either side
 * is an NA row, which makes the severity MISSING_DATA and the verdict
 * INVESTIGATE; only the geomean over paired rows decides otherwise. */
#include "engine/perf/compare.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>


#include "engine/perf/perflog.h"
#include "engine/perf/stats.h"

enum perf_band perf_band_of(double r)
{
	if (isnan(r))
		return PERF_BAND_MISSING;
	if (r <= PERF_GATE_RATIO)
		return PERF_BAND_DONE;
	if (r <= 1.10)
		return PERF_BAND_MILD;
	if (r <= 1.50)
		return PERF_BAND_MODERATE;
	return PERF_BAND_LARGE;
}

const char *perf_band_name(enum perf_band b)
{
	static const char *const names[] = {"DONE", "MILD_GAP", "MODERATE_GAP", "LARGE_GAP",
					    "MISSING_DATA"};
	return names[b];
}

const char *perf_verdict_name(enum perf_verdict v)
{
	static const char *const names[] = {"DONE", "INVESTIGATE", "BLOCKED"};
	return names[v];
}

const char *perf_row_verdict(const struct perf_row *r)
{
	return r->band == PERF_BAND_DONE ? "PASS" : "INVESTIGATE";
}

/* ---- the table ---- */

static void side_init(struct perf_side *s)
{
	memset(s, 0, sizeof(*s));
	s->ms = s->noise = s->rel_std = s->kernels = NAN;
	s->n = -1;
}

static void side_free(struct perf_side *s)
{
	free(s->backend);
	free(s->file);
}

void perf_table_init(struct perf_table *t)
{
	memset(t, 0, sizeof(*t));
	t->geomean = t->ci_lo = t->ci_hi = NAN;
	t->severity = PERF_BAND_MISSING;
	t->verdict = PERF_VERDICT_BLOCKED;
	t->base_name = xstrdup("");
	t->cand_name = xstrdup("");
}

struct perf_row *perf_table_add(struct perf_table *t, const char *config)
{
	t->rows = xgrow(t->rows, &t->caprows, t->nrows + 1, sizeof(*t->rows));
	struct perf_row *r = &t->rows[t->nrows++];
	memset(r, 0, sizeof(*r));
	r->config = xstrdup(config);
	r->shape = perf_config_shape(config);
	size_t n;
	const char *d = perf_config_dtype(config, &n);
	r->dtype = d ? xstrndup(d, n) : xstrdup("");
	side_init(&r->base);
	side_init(&r->cand);
	r->ratio = NAN;
	r->band = PERF_BAND_MISSING;
	return r;
}

void perf_table_note(struct perf_table *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	t->notes = xgrow(t->notes, &t->capnotes, t->nnotes + 1, sizeof(*t->notes));
	t->notes[t->nnotes++] = xvasprintf(fmt, ap);
	va_end(ap);
}

void perf_table_free(struct perf_table *t)
{
	for (size_t i = 0; i < t->nrows; i++) {
		struct perf_row *r = &t->rows[i];
		free(r->config);
		free(r->shape);
		free(r->dtype);
		free(r->variant);
		free(r->why);
		side_free(&r->base);
		side_free(&r->cand);
	}
	for (size_t i = 0; i < t->nvariants; i++) {
		free(t->variants[i].name);
		free(t->variants[i].backend);
	}
	for (size_t i = 0; i < t->nnotes; i++)
		free(t->notes[i]);
	free(t->rows);
	free(t->variants);
	free(t->notes);
	free(t->kernel);
	free(t->base_name);
	free(t->cand_name);
	free(t->ci_how);
	strv_free(t->base_files);
	strv_free(t->cand_files);
	free(t->analysis);
	free(t->run_dir);
	memset(t, 0, sizeof(*t));
}

/* An interval from within-run sampling error alone: the standard error of
 * a median is about sqrt(pi/2) sigma / sqrt(n), and the log of a ratio
 * adds the two sides' relative variances (delta method). */
static void ci_from_rel_std(struct perf_table *t)
{
	double var = 0;
	size_t k = 0;
	for (size_t i = 0; i < t->nrows; i++) {
		const struct perf_row *r = &t->rows[i];
		if (isnan(r->ratio))
			continue;
		const struct perf_side *s[2] = {&r->base, &r->cand};
		for (int j = 0; j < 2; j++) {
			if (isnan(s[j]->rel_std) || s[j]->n < 1)
				return;
			double se = sqrt(M_PI / 2) * s[j]->rel_std / 100.0 / sqrt((double)s[j]->n);
			var += se * se;
		}
		k++;
	}
	if (!k)
		return;
	double sd = sqrt(var) / (double)k;
	t->ci_lo = t->geomean * exp(-1.959964 * sd);
	t->ci_hi = t->geomean * exp(1.959964 * sd);
	t->ci_how = xstrdup("within-run sampling error from rel_std and nrep");
}

static struct perf_variant_sum *variant_sum(struct perf_table *t, const char *name)
{
	for (size_t i = 0; i < t->nvariants; i++)
		if (!strcmp(t->variants[i].name, name))
			return &t->variants[i];
	t->variants = xrealloc(t->variants, (t->nvariants + 1) * sizeof(*t->variants));
	struct perf_variant_sum *v = &t->variants[t->nvariants++];
	memset(v, 0, sizeof(*v));
	v->name = xstrdup(name);
	v->geomean = NAN;
	return v;
}

void perf_table_finish(struct perf_table *t)
{
	double *r = xcalloc(t->nrows + 1, sizeof(*r));
	size_t k = 0, na = 0;
	for (size_t i = 0; i < t->nrows; i++) {
		struct perf_row *row = &t->rows[i];
		row->ratio = NAN;
		if (!row->why && (isnan(row->base.ms) || isnan(row->cand.ms)))
			row->why = xstrdup(isnan(row->cand.ms) ? "no candidate median"
							       : "no baseline median");
		if (!row->why && row->base.ms <= 0)
			row->why = xstrdup("baseline median is not positive");
		if (!row->why)
			row->ratio = row->cand.ms / row->base.ms;
		row->band = perf_band_of(row->ratio);
		if (isnan(row->ratio))
			na++;
		else
			r[k++] = row->ratio;
	}
	t->npaired = k;
	t->geomean = stats_geomean(r, k);
	free(r);
	if (k == 0) {
		t->severity = PERF_BAND_MISSING;
		t->verdict = PERF_VERDICT_BLOCKED;
	} else if (na) {
		t->severity = PERF_BAND_MISSING;
		t->verdict = PERF_VERDICT_INVESTIGATE;
	} else {
		t->severity = perf_band_of(t->geomean);
		t->verdict = t->severity == PERF_BAND_DONE ? PERF_VERDICT_DONE
							   : PERF_VERDICT_INVESTIGATE;
	}
	/* per variant */
	for (size_t i = 0; i < t->nrows; i++)
		if (t->rows[i].variant)
			variant_sum(t, t->rows[i].variant);
	for (size_t v = 0; v < t->nvariants; v++) {
		struct perf_variant_sum *vs = &t->variants[v];
		double s = 0;
		vs->npaired = 0;
		for (size_t i = 0; i < t->nrows; i++) {
			const struct perf_row *row = &t->rows[i];
			if (!row->variant || strcmp(row->variant, vs->name) || isnan(row->ratio))
				continue;
			s += log(row->ratio);
			vs->npaired++;
			if (!vs->backend && row->base.backend)
				vs->backend = xstrdup(row->base.backend);
		}
		vs->geomean = vs->npaired ? exp(s / (double)vs->npaired) : NAN;
	}
	if (!t->ci_how && k)
		ci_from_rel_std(t);
	if (t->strict_ci && t->verdict == PERF_VERDICT_DONE &&
	    (isnan(t->ci_hi) || t->ci_hi > PERF_GATE_RATIO))
		t->verdict = PERF_VERDICT_INVESTIGATE;
}
