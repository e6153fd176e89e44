/* The benchmark table view: one row per configuration (config, dtype,
 * baseline and candidate median, ratio, noise, samples, kernels per
 * iteration, and a bar of the ratio where the screen is wide enough),
 * ratios coloured by band, sortable by any column (s next column, S
 * reverse), the geomean with its 95 % interval and the verdict in the
 * footer. The model is an engine/perf table: given by the caller
 * (view_arg model: tileport perf --tui, tileport bench --tui), or built
 * here from view_arg path: a performance.md, or a run directory (stage
 * E), whose perf logs are paired again. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/perf/compare.h"
#include "engine/perf/perfmd.h"
#include "views/view.h"

enum col { COL_CONFIG, COL_DTYPE, COL_BASE, COL_CAND, COL_RATIO, COL_NOISE, COL_SAMPLES,
	   COL_KERNELS, COL__COUNT };

static const char *const col_names[COL__COUNT] = {"CONFIG", "DTYPE", "BASE \xc2\xb5s",
						 "CAND \xc2\xb5s", "RATIO", "NOISE%", "SAMPLES",
						 "K/IT"};
/* Widths of the fixed columns; CONFIG takes what is left. */
static const int col_width[COL__COUNT] = {0, 8, 9, 9, 7, 9, 9, 5};

#define BAR_MIN_WIDTH 120 /* screens at least this wide get the bar column */
#define BAR_MAX 50

struct bench {
	struct perf_table own;
	struct perf_table *t;
	bool owned;
	char *path;     /* what it was built from (refresh), or NULL */
	size_t *order;  /* display order of the rows */
	int sort;       /* -1: as recorded, else enum col */
	bool reverse;
	int config_w, bar_w;
	double bar_scale; /* |log ratio| that fills half the bar */
};

/* ---- building ---- */

static enum line_type band_type(enum perf_band b)
{
	static const enum line_type types[] = {LINE_PERF_DONE, LINE_PERF_MILD, LINE_PERF_MODERATE,
					       LINE_PERF_LARGE, LINE_PERF_MISSING};
	return types[b];
}

/* A run directory: its logs paired again; its reports/performance.md
 * where the logs are missing. */
static int load_run(struct bench *b, const char *dir, struct tp_err *err)
{
	char *md = path_join(dir, "reports/performance.md");
	int rc = perf_compare_run(dir, &b->own, err);
	if (rc < 0 && path_is_file(md)) {
		perf_table_free(&b->own);
		rc = perf_md_read(md, &b->own, err);
	} else if (rc == 0 && path_is_file(md)) {
		/* tileport's pairing is the one shown; say when the agent's differs */
		struct perf_table said;
		struct tp_err e2;
		if (perf_md_read(md, &said, &e2) == 0 && fabs(said.geomean - b->own.geomean) > 5e-5)
			perf_table_note(&b->own, "reports/performance.md says geomean_ratio=%.4f; "
					"the perf logs give %.4f", said.geomean, b->own.geomean);
		perf_table_free(&said);
	}
	free(md);
	return rc;
}

static int load(struct bench *b, struct tp_err *err)
{
	if (path_is_dir(b->path))
		return load_run(b, b->path, err);
	return perf_md_read(b->path, &b->own, err);
}

static int cmp_num(double a, double b)
{
	return (a > b) - (a < b);
}

static double noise_of(const struct perf_row *r)
{
	double a = r->base.noise, c = r->cand.noise;
	return isnan(a) ? c : isnan(c) ? a : a > c ? a : c;
}

static double samples_of(const struct perf_row *r)
{
	long a = r->base.n, c = r->cand.n;
	long m = a < 0 ? c : c < 0 ? a : a < c ? a : c;
	return m < 0 ? NAN : (double)m;
}

static double kernels_of(const struct perf_row *r)
{
	return isnan(r->cand.kernels) ? r->base.kernels : r->cand.kernels;
}

static double key_num(const struct perf_row *r, int col)
{
	switch (col) {
	case COL_BASE:
		return r->base.ms;
	case COL_CAND:
		return r->cand.ms;
	case COL_RATIO:
		return r->ratio;
	case COL_NOISE:
		return noise_of(r);
	case COL_SAMPLES:
		return samples_of(r);
	default:
		return kernels_of(r);
	}
}

static const struct bench *sorting; /* qsort has no context argument */

/* Unknown values sort last whichever the direction; ties keep the
 * recorded order. */
static int cmp_rows(const void *pa, const void *pb)
{
	size_t ia = *(const size_t *)pa, ib = *(const size_t *)pb;
	const struct perf_row *a = &sorting->t->rows[ia], *b = &sorting->t->rows[ib];
	int c = 0;
	if (sorting->sort == COL_CONFIG || sorting->sort == COL_DTYPE) {
		if (sorting->sort == COL_DTYPE)
			c = strcmp(a->dtype, b->dtype);
		if (!c)
			c = strverscmp(a->shape, b->shape);
		if (!c)
			c = strverscmp(a->config, b->config);
	} else {
		double x = key_num(a, sorting->sort), y = key_num(b, sorting->sort);
		if (isnan(x) != isnan(y))
			return isnan(x) ? 1 : -1;
		c = cmp_num(x, y);
	}
	if (sorting->reverse)
		c = -c;
	return c ? c : cmp_num((double)ia, (double)ib);
}

static void sort_rows(struct bench *b)
{
	for (size_t i = 0; i < b->t->nrows; i++)
		b->order[i] = i;
	if (b->sort >= 0) {
		sorting = b;
		qsort(b->order, b->t->nrows, sizeof(*b->order), cmp_rows);
		sorting = NULL;
	} else if (b->reverse) {
		for (size_t i = 0; i < b->t->nrows / 2; i++) {
			size_t j = b->t->nrows - 1 - i, s = b->order[i];
			b->order[i] = b->order[j];
			b->order[j] = s;
		}
	}
}

static size_t trailing_lines(const struct perf_table *t)
{
	size_t n = 0;
	if (t->nvariants > 1)
		n += 1 + t->nvariants;
	if (t->nnotes)
		n += 1 + t->nnotes;
	return n;
}

static void layout(struct view *v)
{
	struct bench *b = v->priv;
	int fixed = 0;
	for (int c = 1; c < COL__COUNT; c++)
		fixed += col_width[c] + 1;
	int longest = 6;
	for (size_t i = 0; i < b->t->nrows; i++) {
		const struct perf_row *r = &b->t->rows[i];
		int n = (int)strlen(r->shape) + (r->variant ? (int)strlen(r->variant) + 3 : 0);
		longest = n > longest ? n : longest;
	}
	int room = v->width - fixed - 1;
	b->bar_w = 0;
	if (v->width >= BAR_MIN_WIDTH) {
		int want = longest + 1;
		b->config_w = want < room - 20 ? want : room - 20;
		b->bar_w = room - b->config_w;
		if (b->bar_w > BAR_MAX)
			b->bar_w = BAR_MAX;
	} else {
		b->config_w = longest < room ? longest : room;
	}
	if (b->config_w < 8)
		b->config_w = 8;
	b->bar_scale = log(1.10);
	for (size_t i = 0; i < b->t->nrows; i++) {
		double r = b->t->rows[i].ratio;
		if (!isnan(r) && r > 0 && fabs(log(r)) > b->bar_scale)
			b->bar_scale = fabs(log(r));
	}
}

static void rebuild(struct view *v)
{
	struct bench *b = v->priv;
	free(b->order);
	b->order = xcalloc(b->t->nrows + 1, sizeof(*b->order));
	sort_rows(b);
	layout(v);
	view_set_lines(v, b->t->nrows + trailing_lines(b->t));
	view_redraw(v);
}

static int bench_open(struct view *v, const struct view_arg *arg, struct tp_err *err)
{
	struct bench *b = v->priv;
	b->sort = -1;
	if (arg->model) {
		b->t = arg->model;
	} else if (arg->path) {
		b->path = xstrdup(arg->path);
		b->owned = true;
		b->t = &b->own;
		if (load(b, err) < 0)
			return -1;
	} else {
		tp_err_set(err, TP_EXIT_USAGE, "benchmark view: no table, report or run");
		return -1;
	}
	const char *k = b->t->kernel;
	v->ref = xstrdup(k && *k ? k : arg->path ? arg->path : "benchmark");
	rebuild(v);
	if (b->t->nnotes)
		view_report(v, "%zu note%s below the table", b->t->nnotes, b->t->nnotes == 1 ? "" : "s");
	return 0;
}

/* ---- drawing ---- */

static void fmt_us(char *buf, size_t n, double ms)
{
	if (isnan(ms))
		snprintf(buf, n, "NA");
	else
		snprintf(buf, n, "%.2f", ms * 1000.0);
}

/* "a/b" of two optional values. */
static void pair_str(char *buf, size_t n, double a, double c, int decimals)
{
	char x[24] = "-", y[24] = "-";
	if (!isnan(a))
		snprintf(x, sizeof(x), "%.*f", decimals, a);
	if (!isnan(c))
		snprintf(y, sizeof(y), "%.*f", decimals, c);
	snprintf(buf, n, "%s/%s", x, y);
}

static bool bench_header(struct view *v, struct line_out *out)
{
	struct bench *b = v->priv;
	lo_reset(out, LINE_HEADER);
	for (int c = 0; c < COL__COUNT; c++) {
		char name[32];
		snprintf(name, sizeof(name), "%s%s", col_names[c],
			 b->sort == c ? (b->reverse ? "\xe2\x96\xbc" : "\xe2\x96\xb2") : "");
		int w = c == COL_CONFIG ? b->config_w : col_width[c];
		lo_col(out, LINE_HEADER, w, c <= COL_DTYPE ? ALIGN_LEFT : ALIGN_RIGHT, name);
	}
	if (b->bar_w)
		lo_cell(out, LINE_HEADER, b->bar_w, ALIGN_LEFT,
			"faster \xe2\x86\x90 \xe2\x94\x82 \xe2\x86\x92 slower (log scale)");
	return true;
}

static void repeat(struct line_out *out, enum line_type type, const char *s, int n)
{
	for (int i = 0; i < n; i++)
		lo_adds(out, type, s);
}

/* The ratio as a bar from the 1.00 mark: right when the candidate is
 * slower, left when it is faster. */
static void bar(struct bench *b, struct line_out *out, const struct perf_row *r)
{
	if (isnan(r->ratio)) {
		lo_cell(out, LINE_PERF_MISSING, b->bar_w, ALIGN_LEFT, r->why ? r->why : "NA");
		return;
	}
	int half = (b->bar_w - 1) / 2;
	int len = (int)lround(fabs(log(r->ratio)) / b->bar_scale * half);
	if (len > half)
		len = half;
	enum line_type t = band_type(r->band);
	const char *block = "\xe2\x96\x88";
	if (r->ratio < 1) {
		repeat(out, LINE_DEFAULT, " ", half - len);
		repeat(out, t, block, len);
		lo_adds(out, LINE_DELIMITER, "\xe2\x94\x82");
	} else {
		repeat(out, LINE_DEFAULT, " ", half);
		lo_adds(out, LINE_DELIMITER, "\xe2\x94\x82");
		repeat(out, t, block, len);
	}
}

static void row_line(struct bench *b, const struct perf_row *r, struct line_out *out)
{
	lo_reset(out, LINE_DEFAULT);
	char buf[96];
	if (r->variant)
		snprintf(buf, sizeof(buf), "%s [%s]", r->shape, r->variant);
	else
		snprintf(buf, sizeof(buf), "%s", r->shape);
	lo_col(out, LINE_DEFAULT, b->config_w, ALIGN_LEFT, buf);
	lo_col(out, LINE_DIM, col_width[COL_DTYPE], ALIGN_LEFT, r->dtype);
	fmt_us(buf, sizeof(buf), r->base.ms);
	lo_col(out, LINE_DEFAULT, col_width[COL_BASE], ALIGN_RIGHT, buf);
	fmt_us(buf, sizeof(buf), r->cand.ms);
	lo_col(out, LINE_DEFAULT, col_width[COL_CAND], ALIGN_RIGHT, buf);
	if (isnan(r->ratio))
		snprintf(buf, sizeof(buf), "NA");
	else
		snprintf(buf, sizeof(buf), "%.3fx", r->ratio);
	lo_col(out, band_type(r->band), col_width[COL_RATIO], ALIGN_RIGHT, buf);
	pair_str(buf, sizeof(buf), r->base.noise, r->cand.noise, 1);
	lo_col(out, LINE_DIM, col_width[COL_NOISE], ALIGN_RIGHT, buf);
	pair_str(buf, sizeof(buf), r->base.n < 0 ? NAN : (double)r->base.n,
		 r->cand.n < 0 ? NAN : (double)r->cand.n, 0);
	lo_col(out, LINE_DIM, col_width[COL_SAMPLES], ALIGN_RIGHT, buf);
	pair_str(buf, sizeof(buf), r->base.kernels, r->cand.kernels, 0);
	bool differ = !isnan(r->base.kernels) && !isnan(r->cand.kernels) &&
		      r->base.kernels != r->cand.kernels;
	/* a different launch count is the first thing to look at (an extra
	 * copy, fill or canary launch) */
	lo_col(out, differ ? LINE_FINDING_WARN : LINE_DIM, col_width[COL_KERNELS], ALIGN_RIGHT, buf);
	if (b->bar_w)
		bar(b, out, r);
}

static void bench_line(struct view *v, size_t idx, struct line_out *out)
{
	struct bench *b = v->priv;
	const struct perf_table *t = b->t;
	if (idx < t->nrows) {
		row_line(b, &t->rows[b->order[idx]], out);
		return;
	}
	idx -= t->nrows;
	if (t->nvariants > 1) {
		if (idx == 0) {
			lo_reset(out, LINE_SECTION);
			lo_adds(out, LINE_SECTION, "Variants");
			return;
		}
		if (idx <= t->nvariants) {
			const struct perf_variant_sum *vs = &t->variants[idx - 1];
			lo_reset(out, LINE_DEFAULT);
			lo_addf(out, LINE_LABEL, "  %s ", vs->name);
			if (vs->npaired)
				lo_addf(out, band_type(perf_band_of(vs->geomean)), "geomean %.4f",
					vs->geomean);
			else
				lo_adds(out, LINE_PERF_MISSING, "nothing paired");
			lo_addf(out, LINE_DIM, " over %zu config%s, baseline %s", vs->npaired,
				vs->npaired == 1 ? "" : "s", vs->backend ? vs->backend : "?");
			return;
		}
		idx -= 1 + t->nvariants;
	}
	if (idx == 0) {
		lo_reset(out, LINE_SECTION);
		lo_adds(out, LINE_SECTION, "Notes");
		return;
	}
	lo_reset(out, LINE_FINDING_WARN);
	lo_addf(out, LINE_FINDING_WARN, "  %s", t->notes[idx - 1]);
}

static enum line_type verdict_type(enum perf_verdict v)
{
	return v == PERF_VERDICT_DONE ? LINE_VERDICT_OK
	       : v == PERF_VERDICT_BLOCKED ? LINE_VERDICT_FAIL : LINE_VERDICT_WARN;
}

static bool bench_footer(struct view *v, struct line_out *out)
{
	struct bench *b = v->priv;
	const struct perf_table *t = b->t;
	lo_reset(out, LINE_DEFAULT);
	lo_adds(out, LINE_LABEL, "geomean ");
	if (isnan(t->geomean))
		lo_adds(out, LINE_PERF_MISSING, "NA");
	else
		lo_addf(out, band_type(perf_band_of(t->geomean)), "%.4f", t->geomean);
	if (isnan(t->ci_lo))
		lo_adds(out, LINE_DIM, "  95% CI n/a");
	else
		lo_addf(out, LINE_DIM, "  95%% CI [%.4f, %.4f]", t->ci_lo, t->ci_hi);
	lo_addf(out, LINE_DEFAULT, "  %zu/%zu paired  ", t->npaired, t->nrows);
	lo_adds(out, verdict_type(t->verdict), perf_verdict_name(t->verdict));
	if (t->severity != PERF_BAND_DONE)
		lo_addf(out, band_type(t->severity), " %s", perf_band_name(t->severity));
	/* the rule and how the interval was made, where there is room */
	if (v->width >= 100)
		lo_addf(out, LINE_DIM, "  (DONE: %s <= %.2f)",
			t->strict_ci ? "CI upper bound" : "geomean", PERF_GATE_RATIO);
	if (t->ci_how && v->width >= BAR_MIN_WIDTH)
		lo_addf(out, LINE_DIM, "  CI: %s", t->ci_how);
	return true;
}

static void bench_title(struct view *v, struct sbuf *out)
{
	struct bench *b = v->priv;
	const struct perf_table *t = b->t;
	sb_printf(out, "%s vs %s", *t->base_name ? t->base_name : "baseline",
		  *t->cand_name ? t->cand_name : "candidate");
	if (b->sort >= 0)
		sb_printf(out, ", by %s", col_names[b->sort]);
	else if (b->reverse)
		sb_adds(out, ", recorded order reversed");
}

/* ---- actions ---- */

static const struct perf_row *selected(struct view *v)
{
	struct bench *b = v->priv;
	return v->lineno < b->t->nrows ? &b->t->rows[b->order[v->lineno]] : NULL;
}

static void keep_row(struct view *v, size_t row)
{
	struct bench *b = v->priv;
	for (size_t i = 0; i < b->t->nrows; i++)
		if (b->order[i] == row) {
			view_select(v, i);
			return;
		}
}

static void describe(struct view *v, const struct perf_row *r)
{
	struct sbuf s = SBUF_INIT;
	sb_printf(&s, "%s: ", r->config);
	const struct perf_side *sides[2] = {&r->base, &r->cand};
	for (int i = 0; i < 2; i++) {
		const struct perf_side *d = sides[i];
		sb_printf(&s, "%s%s%s", i ? ", candidate " : "baseline ", d->backend ? d->backend : "",
			  d->backend ? " " : "");
		if (isnan(d->ms))
			sb_adds(&s, "NA");
		else
			sb_printf(&s, "%.4g ms", d->ms);
		if (d->file)
			sb_printf(&s, " (%s:%d)", d->file, d->line);
	}
	if (r->why)
		sb_printf(&s, "; NA: %s", r->why);
	else
		sb_printf(&s, "; ratio %.4f %s", r->ratio, perf_row_verdict(r));
	view_report(v, "%s", sb_str(&s));
	sb_free(&s);
}

static enum request bench_request(struct view *v, enum request req)
{
	struct bench *b = v->priv;
	const struct perf_row *r = selected(v);
	size_t keep = r ? (size_t)(r - b->t->rows) : SIZE_MAX;
	switch (req) {
	case REQ_SORT_NEXT:
		b->sort = b->sort + 1 >= COL__COUNT ? -1 : b->sort + 1;
		break;
	case REQ_SORT_REVERSE:
		b->reverse = !b->reverse;
		break;
	case REQ_ENTER:
		if (r)
			describe(v, r);
		return REQ_NONE;
	case REQ_REFRESH: {
		struct tp_err err;
		int rc;
		if (b->owned) {
			perf_table_free(&b->own);
			rc = load(b, &err);
		} else {
			rc = perf_table_reload(b->t, &err);
		}
		if (rc < 0) {
			view_error(v, "%s", err.msg);
			return REQ_NONE;
		}
		keep = SIZE_MAX;
		rebuild(v);
		view_report(v, "Read again: %zu rows", b->t->nrows);
		return REQ_NONE;
	}
	default:
		return req;
	}
	sort_rows(b);
	view_redraw(v);
	if (keep != SIZE_MAX)
		keep_row(v, keep);
	return REQ_NONE;
}

static void bench_resize(struct view *v)
{
	layout(v);
}

static const char *bench_file(struct view *v, long *line)
{
	const struct perf_row *r = selected(v);
	if (!r)
		return NULL;
	const struct perf_side *s = r->cand.file ? &r->cand : &r->base;
	*line = s->line;
	return s->file;
}

static void bench_done(struct view *v)
{
	struct bench *b = v->priv;
	if (b->owned)
		perf_table_free(&b->own);
	free(b->order);
	free(b->path);
}

const struct view_ops bench_view_ops = {
	.type = "bench",
	.private_size = sizeof(struct bench),
	.stages = "E",
	.noun = "benchmark table",
	.open = bench_open,
	.line = bench_line,
	.request = bench_request,
	.header = bench_header,
	.footer = bench_footer,
	.resize = bench_resize,
	.title = bench_title,
	.file = bench_file,
	.done = bench_done,
};
