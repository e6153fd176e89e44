/* What tileport bench prints and writes, and reading its directory back. */
#include "engine/perf/bench.h"

#include <glob.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "engine/base/files.h"
#include "engine/perf/perfmd.h"
#include "engine/perf/stats.h"
#include "engine/perf/trace.h"

static const char *const side_word[2] = {"ref", "cand"};

/* ---- the terminal table ---- */

/* clocks_event_reasons.active: 0x0000000000000000 when nothing holds the
 * clock back (the GPU idle bit aside, which an idle reading shows). */
static bool reasons_clear(const char *s)
{
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	unsigned long long v = strtoull(s, NULL, 16);
	return (v & ~1ull) == 0;
}

static void gpu_summary(const struct bench_result *r, FILE *out)
{
	int lo = -1, hi = -1, tlo = -1, thi = -1, max = -1;
	const struct gpu_snapshot *any = NULL;
	size_t n = 0;
	bool throttled = false;
	for (size_t i = 0; i < r->nprocs; i++) {
		const struct gpu_snapshot *s[2] = {&r->procs[i].before, &r->procs[i].after};
		for (int k = 0; k < 2; k++) {
			if (!s[k]->ok)
				continue;
			any = any ? any : s[k];
			n++;
			if (s[k]->sm_mhz >= 0) {
				lo = lo < 0 || s[k]->sm_mhz < lo ? s[k]->sm_mhz : lo;
				hi = s[k]->sm_mhz > hi ? s[k]->sm_mhz : hi;
			}
			if (s[k]->temp_c >= 0) {
				tlo = tlo < 0 || s[k]->temp_c < tlo ? s[k]->temp_c : tlo;
				thi = s[k]->temp_c > thi ? s[k]->temp_c : thi;
			}
			max = s[k]->max_sm_mhz > max ? s[k]->max_sm_mhz : max;
			throttled = throttled || !reasons_clear(s[k]->reasons);
		}
	}
	if (!any) {
		const struct gpu_snapshot *s = r->nprocs ? &r->procs[0].before : NULL;
		fprintf(out, "GPU: not recorded (%s)\n", s && *s->problem ? s->problem : "no reading");
		return;
	}
	fprintf(out, "GPU %d: %s, driver %s; SM clock %d-%d MHz (max %d) and %d-%d C over %zu "
		"readings; clock event reasons %s\n", any->index, any->name, any->driver, lo, hi, max,
		tlo, thi, n, throttled ? "seen (see bench.json)" : "none");
}

static void pair_col(FILE *out, int width, double a, double c, int decimals)
{
	char x[24] = "-", y[24] = "-", buf[64];
	if (!isnan(a))
		snprintf(x, sizeof(x), "%.*f", decimals, a);
	if (!isnan(c))
		snprintf(y, sizeof(y), "%.*f", decimals, c);
	snprintf(buf, sizeof(buf), "%s/%s", x, y);
	fprintf(out, " %*s", width, buf);
}

void bench_print(const struct bench_result *r, FILE *out)
{
	const struct perf_table *t = &r->table;
	size_t per_side = r->nprocs / 2;
	fprintf(out, "tileport bench: %zu configs, %d round%s ABBA (%zu processes a side); "
		"device time per iteration (the sum of its kernels, copies and memsets, L2 "
		"flushes of >= %llu MiB left out)\n", t->nrows, r->rounds, r->rounds == 1 ? "" : "s",
		per_side, (unsigned long long)(r->flush_bytes >> 20));
	fprintf(out, "reference (%s): %s\ncandidate (%s): %s\n", r->name[0], r->cmd[0], r->name[1],
		r->cmd[1]);
	gpu_summary(r, out);
	int w = 6;
	for (size_t i = 0; i < t->nrows; i++)
		w = (int)strlen(t->rows[i].shape) > w ? (int)strlen(t->rows[i].shape) : w;
	fprintf(out, "\n%-*s %-8s %10s %10s %8s %11s %11s %13s\n", w, "config", "dtype", "ref us",
		"cand us", "ratio", "noise% r/c", "kern/it r/c", "samples r/c");
	for (size_t i = 0; i < t->nrows; i++) {
		const struct perf_row *row = &t->rows[i];
		fprintf(out, "%-*s %-8s", w, row->shape, row->dtype);
		const double ms[2] = {row->base.ms, row->cand.ms};
		for (int k = 0; k < 2; k++) {
			if (isnan(ms[k]))
				fprintf(out, " %10s", "NA");
			else
				fprintf(out, " %10.2f", ms[k] * 1000.0);
		}
		if (isnan(row->ratio))
			fprintf(out, " %8s", "NA");
		else
			fprintf(out, " %7.4fx", row->ratio);
		pair_col(out, 11, row->base.noise, row->cand.noise, 1);
		pair_col(out, 11, row->base.kernels, row->cand.kernels, 0);
		pair_col(out, 13, row->base.n < 0 ? NAN : (double)row->base.n,
			 row->cand.n < 0 ? NAN : (double)row->cand.n, 0);
		bool differ = !isnan(row->base.kernels) && !isnan(row->cand.kernels) &&
			      row->base.kernels != row->cand.kernels;
		fprintf(out, "%s\n", row->why ? "  NA" : differ ? "  ! kernels/iter differ" : "");
	}
	for (size_t i = 0; i < t->nrows; i++)
		if (t->rows[i].why)
			fprintf(out, "NA %s: %s\n", t->rows[i].config, t->rows[i].why);
	for (size_t i = 0; i < t->nnotes; i++)
		fprintf(out, "note: %s\n", t->notes[i]);
	fprintf(out, "\n");
	if (!t->npaired) {
		fprintf(out, "nothing paired: no configuration has samples on both sides\n");
		return;
	}
	fprintf(out, "geomean ratio %.4f (candidate / reference device time; above 1 the "
		"candidate is slower), %zu of %zu configs paired\n", t->geomean, t->npaired, t->nrows);
	if (isnan(t->ci_lo))
		fprintf(out, "95%% CI: n/a\n");
	else
		fprintf(out, "95%% CI [%.4f, %.4f]: %s\n", t->ci_lo, t->ci_hi, t->ci_how);
	bool pass = t->verdict == PERF_VERDICT_DONE;
	const char *band = perf_band_name(perf_band_of(t->geomean));
	if (isnan(t->ci_hi))
		fprintf(out, "FAIL (strict rule: the CI's upper bound must be <= %.2f; there is no "
			"CI)", PERF_GATE_RATIO);
	else
		fprintf(out, "%s (strict rule: the CI's upper bound %.4f %s %.2f)", pass ? "PASS" : "FAIL",
			t->ci_hi, t->ci_hi <= PERF_GATE_RATIO ? "<=" : ">", PERF_GATE_RATIO);
	fprintf(out, "; the point estimate alone (the reference rule, geomean <= %.2f): %s%s\n",
		PERF_GATE_RATIO, band, t->severity == PERF_BAND_MISSING ? ", with MISSING_DATA" : "");
	fprintf(out, "geomean_ratio=%.4f\n", t->geomean);
}

/* ---- JSON ---- */

static cJSON *gpu_json(const struct gpu_snapshot *s)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddBoolToObject(o, "ok", s->ok);
	if (!s->ok) {
		cJSON_AddStringToObject(o, "problem", s->problem);
		return o;
	}
	cJSON_AddNumberToObject(o, "index", s->index);
	cJSON_AddStringToObject(o, "name", s->name);
	cJSON_AddStringToObject(o, "driver", s->driver);
	cJSON_AddNumberToObject(o, "sm_mhz", s->sm_mhz);
	cJSON_AddNumberToObject(o, "max_sm_mhz", s->max_sm_mhz);
	cJSON_AddNumberToObject(o, "temp_c", s->temp_c);
	cJSON_AddItemToObject(o, "power_w", isnan(s->power_w) ? cJSON_CreateNull()
							      : cJSON_CreateNumber(s->power_w));
	cJSON_AddStringToObject(o, "clocks_event_reasons", s->reasons);
	return o;
}

static cJSON *result_json(const struct bench_result *r)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "tool", "tileport bench");
	cJSON_AddNumberToObject(o, "format", 1);
	for (int s = 0; s < 2; s++) {
		cJSON *side = cJSON_AddObjectToObject(o, s ? "candidate" : "reference");
		cJSON_AddStringToObject(side, "command", r->cmd[s]);
		cJSON_AddStringToObject(side, "name", r->name[s]);
	}
	cJSON_AddNumberToObject(o, "rounds", r->rounds);
	cJSON_AddNumberToObject(o, "flush_bytes", (double)r->flush_bytes);
	cJSON_AddNumberToObject(o, "seed", (double)r->seed);
	cJSON_AddNumberToObject(o, "resamples", r->resamples);
	cJSON *procs = cJSON_AddArrayToObject(o, "processes");
	for (size_t i = 0; i < r->nprocs; i++) {
		const struct bench_proc *p = &r->procs[i];
		cJSON *j = cJSON_CreateObject();
		cJSON_AddNumberToObject(j, "seq", p->seq);
		cJSON_AddNumberToObject(j, "round", p->round);
		cJSON_AddStringToObject(j, "side", side_word[p->side]);
		cJSON_AddItemToObject(j, "status", p->status ? cJSON_CreateString(p->status)
							      : cJSON_CreateNull());
		cJSON *tr = cJSON_AddArrayToObject(j, "traces");
		for (size_t k = 0; p->traces && p->traces[k]; k++) {
			const char *base = strrchr(p->traces[k], '/');
			cJSON_AddItemToArray(tr, cJSON_CreateString(base ? base + 1 : p->traces[k]));
		}
		cJSON_AddItemToObject(j, "gpu_before", gpu_json(&p->before));
		cJSON_AddItemToObject(j, "gpu_after", gpu_json(&p->after));
		cJSON_AddItemToArray(procs, j);
	}
	cJSON_AddItemToObject(o, "table", perf_table_cjson(&r->table));
	cJSON *samples = cJSON_AddArrayToObject(o, "samples_ns");
	for (size_t i = 0; i < r->nconfigs; i++) {
		const struct bench_config *c = &r->configs[i];
		cJSON *j = cJSON_CreateObject();
		cJSON_AddStringToObject(j, "config", c->config);
		for (int s = 0; s < 2; s++) {
			cJSON *groups = cJSON_AddArrayToObject(j, side_word[s]);
			for (size_t p = 0; p < c->side[s].nprocs; p++) {
				cJSON *a = cJSON_CreateArray();
				for (size_t k = 0; k < c->side[s].n[p]; k++)
					cJSON_AddItemToArray(a, cJSON_CreateNumber(c->side[s].ns[p][k]));
				cJSON_AddItemToArray(groups, a);
			}
		}
		cJSON_AddItemToArray(samples, j);
	}
	return o;
}

char *bench_json(const struct bench_result *r)
{
	return perf_json_take(result_json(r));
}

/* ---- perf logs ---- */

static void write_section(struct sbuf *sb, const struct bench_result *r, int s,
			  const struct bench_config *c)
{
	const struct bench_samples *sm = &c->side[s];
	size_t n = 0;
	for (size_t p = 0; p < sm->nprocs; p++)
		n += sm->n[p];
	if (!n)
		return;
	double *v = xmalloc(n * sizeof(*v)), *w = v;
	for (size_t p = 0; p < sm->nprocs; p++) {
		if (sm->n[p])
			memcpy(w, sm->ns[p], sm->n[p] * sizeof(*v));
		w += sm->n[p];
	}
	double mean = stats_mean(v, n), sd = stats_stdev(v, n);
	double lo = v[0], hi = v[0];
	for (size_t i = 1; i < n; i++) {
		lo = v[i] < lo ? v[i] : lo;
		hi = v[i] > hi ? v[i] : hi;
	}
	double noise = stats_rel_iqr(v, n), median = stats_median(v, n);
	double *ops = xmalloc((sm->nops + 1) * sizeof(*ops));
	memcpy(ops, sm->ops, sm->nops * sizeof(*ops));
	double kpi = stats_median(ops, sm->nops);
	free(ops);
	free(v);
	cJSON *root = cJSON_CreateObject();
	cJSON *fw = cJSON_AddObjectToObject(root, r->name[s]);
	cJSON *st = cJSON_AddObjectToObject(fw, "forward");
	cJSON_AddNumberToObject(st, "median", median / 1e6);
	cJSON_AddNumberToObject(st, "mean", mean / 1e6);
	if (!isnan(sd)) {
		cJSON_AddNumberToObject(st, "std", sd / 1e6);
		cJSON_AddNumberToObject(st, "rel_std", 100.0 * sd / mean);
	}
	cJSON_AddNumberToObject(st, "min", lo / 1e6);
	cJSON_AddNumberToObject(st, "max", hi / 1e6);
	cJSON_AddNumberToObject(st, "nrep", (double)n);
	if (!isnan(noise))
		cJSON_AddNumberToObject(st, "noise", noise);
	cJSON_AddNumberToObject(st, "kernels_per_iter", kpi);
	if (sm->top_kernel)
		cJSON_AddStringToObject(st, "kernel_name", sm->top_kernel);
	char *json = cJSON_PrintUnformatted(root);
	cJSON_Delete(root);
	sb_printf(sb, "tileport-bench::%s[%s-%s]\n", side_word[s], c->config, r->name[s]);
	sb_adds(sb, "==================== " "Performance Test Results" " ====================\n");
	sb_printf(sb, "test: tileport-bench::%s[%s-%s]\n%s\nPASSED\n", side_word[s], c->config,
		  r->name[s], json);
	cJSON_free(json);
}

int bench_write(const struct bench_result *r, const char *dir, struct tp_err *err)
{
	for (int s = 0; s < 2; s++) {
		struct sbuf sb = SBUF_INIT;
		sb_printf(&sb, "tileport bench: the %s, %s (%s), %d round(s) ABBA\n",
			  s ? "candidate" : "reference", r->name[s], r->cmd[s], r->rounds);
		for (size_t i = 0; i < r->nconfigs; i++)
			write_section(&sb, r, s, &r->configs[i]);
		char *p = xasprintf("%s/perf_%s.txt", dir, r->name[s]);
		int rc = write_file_atomic(p, sb_str(&sb), sb.len, err);
		free(p);
		sb_free(&sb);
		if (rc < 0)
			return -1;
	}
	char *json = bench_json(r);
	char *p = path_join(dir, "bench.json");
	int rc = write_file_atomic(p, json, strlen(json), err);
	free(p);
	free(json);
	return rc;
}
