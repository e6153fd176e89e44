/* Writing and reading performance.md, and the JSON form of a table. */
#include "engine/base/files.h"
#include "engine/perf/perfmd.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cjson/cJSON.h>

/* A time the way the table prints it: four significant digits, trailing
 * zeros kept (0.05700), so that the rows read back give the ratios. */
static void fmt_ms(struct sbuf *sb, double ms)
{
	if (isnan(ms)) {
		sb_adds(sb, "NA");
		return;
	}
	int d = ms > 0 ? 3 - (int)floor(log10(ms)) : 4;
	sb_printf(sb, "%.*f", d < 0 ? 0 : d > 9 ? 9 : d, ms);
}

/* '|' would end a cell. */
static void cell(struct sbuf *sb, const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			sb_addc(sb, '\\');
		sb_addc(sb, *s);
	}
}

static void file_list(struct sbuf *sb, char *const *v)
{
	for (size_t i = 0; v && v[i]; i++)
		sb_printf(sb, "%s%s", i ? ", " : "", v[i]);
}

void perf_md_write(const struct perf_table *t, struct sbuf *out)
{
	sb_printf(out, "VERDICT: %s\n", perf_verdict_name(t->verdict));
	sb_printf(out, "## Performance Results: %s\n\n", t->kernel && *t->kernel ? t->kernel : "?");
	sb_adds(out, "| Config | baseline (ms) | cutile-rs (ms) | ratio | verdict |\n");
	sb_adds(out, "|---|---|---|---|---|\n");
	for (size_t i = 0; i < t->nrows; i++) {
		const struct perf_row *r = &t->rows[i];
		sb_adds(out, "| ");
		cell(out, r->config);
		if (r->variant) {
			sb_adds(out, " [");
			cell(out, r->variant);
			sb_adds(out, "]");
		}
		sb_adds(out, " | ");
		fmt_ms(out, r->base.ms);
		sb_adds(out, " | ");
		fmt_ms(out, r->cand.ms);
		if (isnan(r->ratio))
			sb_adds(out, " | NA");
		else
			sb_printf(out, " | %.2fx", r->ratio);
		sb_printf(out, " | %s |\n", perf_row_verdict(r));
	}
	sb_printf(out, "\ngeomean_ratio=%.4f\n", t->geomean);
	sb_printf(out, "Geo-mean ratio: %.2fx\n", t->geomean);
	sb_printf(out, "Severity: %s\n\n", perf_band_name(t->severity));
	sb_printf(out, "Ratio = candidate (%s) / baseline (%s) median device time; above 1 the "
		  "candidate is slower. Only the geomean decides: DONE iff geomean_ratio <= %.2f; "
		  "%zu of %zu configs paired.\n", *t->cand_name ? t->cand_name : "?",
		  *t->base_name ? t->base_name : "?", PERF_GATE_RATIO, t->npaired, t->nrows);
	if (!isnan(t->ci_lo))
		sb_printf(out, "95%% CI of the geomean: [%.4f, %.4f] (%s).\n", t->ci_lo, t->ci_hi,
			  t->ci_how ? t->ci_how : "");
	for (size_t v = 0; t->nvariants > 1 && v < t->nvariants; v++) {
		const struct perf_variant_sum *vs = &t->variants[v];
		sb_printf(out, "Variant %s (baseline %s): ", vs->name, vs->backend ? vs->backend : "?");
		if (vs->npaired)
			sb_printf(out, "geo-mean %.4f over %zu config%s.\n", vs->geomean, vs->npaired,
				  vs->npaired == 1 ? "" : "s");
		else
			sb_adds(out, "no paired config.\n");
	}
	for (size_t i = 0; i < t->nrows; i++)
		if (t->rows[i].why)
			sb_printf(out, "NA %s: %s.\n", t->rows[i].config, t->rows[i].why);
	if (t->base_files || t->analysis) {
		sb_adds(out, "Inputs: baseline ");
		file_list(out, t->base_files);
		sb_adds(out, "; candidate ");
		file_list(out, t->cand_files);
		if (t->analysis)
			sb_printf(out, "; analysis %s", t->analysis);
		sb_adds(out, ".\n");
	}
}

/* ---- reading ---- */

bool perf_md_sniff(const char *path)
{
	size_t len;
	char *text = read_file(path, &len, NULL);
	if (!text)
		return false;
	bool ok = str_starts(text, "VERDICT:") &&
		  (str_starts(text, "geomean_ratio=") || strstr(text, "\ngeomean_ratio="));
	free(text);
	return ok;
}

/* Split a table row into trimmed cells (outer pipes dropped, \| kept as |). */
static char **row_cells(const char *line, size_t *n)
{
	char **v = NULL;
	size_t cap = 0;
	*n = 0;
	const char *p = line;
	while (*p == ' ')
		p++;
	if (*p == '|')
		p++;
	struct sbuf sb = SBUF_INIT;
	for (;; p++) {
		if (*p == '\\' && p[1] == '|') {
			sb_addc(&sb, '|');
			p++;
			continue;
		}
		if (*p == '|' || *p == 0) {
			char *c = sb_detach(&sb);
			str_trim(c);
			if (*p == 0 && !*c) {
				free(c);
				break;
			}
			v = xgrow(v, &cap, *n + 2, sizeof(*v));
			v[(*n)++] = c;
			v[*n] = NULL;
			if (*p == 0)
				break;
			continue;
		}
		sb_addc(&sb, *p);
	}
	sb_free(&sb);
	return v;
}

static double md_num(const char *s)
{
	if (!s || !strcasecmp(s, "NA") || !*s)
		return NAN;
	char *end;
	double v = strtod(s, &end);
	return end == s ? NAN : v;
}

struct md_cols {
	int config, base, cand, ratio;
};

static bool header_cols(char **c, size_t n, struct md_cols *k)
{
	*k = (struct md_cols){-1, -1, -1, -1};
	for (size_t i = 0; i < n; i++) {
		if (!strcasecmp(c[i], "config"))
			k->config = (int)i;
		else if (!strncasecmp(c[i], "baseline", 8))
			k->base = (int)i;
		else if (!strncasecmp(c[i], "ratio", 5))
			k->ratio = (int)i;
		else if (strstr(c[i], "(ms)") && k->cand < 0)
			k->cand = (int)i;
	}
	return k->config >= 0 && k->base >= 0 && k->cand >= 0;
}

/* The perf logs the report was made from, when they can still be read:
 * its Inputs line (paths tried beside the report and beside its run
 * directory), else the run directory the report sits in. */
static bool enrich_from_logs(const char *path, const char *inputs, struct perf_table *logs)
{
	char *dir = xstrdup(path);
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = 0;
	else
		strcpy(dir, ".");
	char *run = xasprintf("%s/..", dir);
	struct tp_err err;
	bool ok = false;
	if (inputs) {
		/* "baseline A, B; candidate C; analysis D." */
		char *s = xstrdup(inputs);
		size_t len = strlen(s);
		if (len && s[len - 1] == '.')
			s[len - 1] = 0;
		char **parts[3] = {NULL, NULL, NULL};
		size_t np;
		char **seg = str_split(s, ';', false, &np);
		const char *names[3] = {"baseline ", "candidate ", "analysis "};
		for (size_t i = 0; i < np; i++) {
			char *g = str_trim(seg[i]);
			for (int k = 0; k < 3; k++) {
				if (!str_starts(g, names[k]))
					continue;
				size_t nf;
				char **f = str_split(g + strlen(names[k]), ',', false, &nf);
				for (size_t j = 0; j < nf; j++)
					str_trim(f[j]);
				parts[k] = f;
			}
		}
		strv_free(seg);
		free(s);
		const char *roots[] = {dir, run, "."};
		for (size_t r = 0; r < 3 && !ok && parts[0] && parts[1]; r++) {
			char **files[2] = {parts[0], parts[1]};
			char **resolved[2] = {NULL, NULL};
			bool all = true;
			for (int k = 0; k < 2; k++) {
				size_t nf = strv_len(files[k]);
				resolved[k] = xcalloc(nf + 1, sizeof(char *));
				for (size_t j = 0; j < nf; j++) {
					resolved[k][j] = files[k][j][0] == '/' ? xstrdup(files[k][j])
						: path_join(roots[r], files[k][j]);
					all = all && path_is_file(resolved[k][j]);
				}
			}
			char *an = NULL;
			if (parts[2] && parts[2][0])
				an = parts[2][0][0] == '/' ? xstrdup(parts[2][0])
							   : path_join(roots[r], parts[2][0]);
			if (all) {
				ok = perf_compare(resolved[0], resolved[1],
						  an && path_is_file(an) ? an : NULL, logs, &err) == 0;
				if (!ok)
					perf_table_free(logs);
			}
			free(an);
			strv_free(resolved[0]);
			strv_free(resolved[1]);
		}
		for (int k = 0; k < 3; k++)
			strv_free(parts[k]);
	}
	if (!ok) {
		ok = perf_compare_run(run, logs, &err) == 0;
		if (!ok)
			perf_table_free(logs);
	}
	free(dir);
	free(run);
	return ok;
}

static void copy_side(struct perf_side *d, const struct perf_side *s)
{
	d->noise = s->noise;
	d->rel_std = s->rel_std;
	d->n = s->n;
	d->kernels = s->kernels;
	if (!d->backend && s->backend)
		d->backend = xstrdup(s->backend);
	if (!d->file && s->file) {
		d->file = xstrdup(s->file);
		d->line = s->line;
	}
}

/* Fill the report's rows from the logs' (same configuration), and say
 * where the report and the logs disagree. */
static void merge(struct perf_table *t, const struct perf_table *logs, const char *path)
{
	for (size_t i = 0; i < t->nrows; i++) {
		struct perf_row *r = &t->rows[i];
		for (size_t j = 0; j < logs->nrows; j++) {
			const struct perf_row *l = &logs->rows[j];
			if (strcmp(l->config, r->config))
				continue;
			copy_side(&r->base, &l->base);
			copy_side(&r->cand, &l->cand);
			if (!r->variant && l->variant)
				r->variant = xstrdup(l->variant);
			/* the report prints 4 significant digits */
			if (!isnan(l->cand.ms) && !isnan(r->cand.ms) &&
			    fabs(l->cand.ms - r->cand.ms) > 5e-4 * fabs(l->cand.ms))
				perf_table_note(t, "%s: %s: the report says %.4g ms, the candidate log "
						"%.4g ms", path, r->config, r->cand.ms, l->cand.ms);
			break;
		}
	}
	free(t->base_name);
	t->base_name = xstrdup(logs->base_name);
	free(t->cand_name);
	t->cand_name = xstrdup(logs->cand_name);
	for (size_t i = 0; i < logs->nnotes; i++)
		perf_table_note(t, "%s", logs->notes[i]);
}

static bool line_is(const char *l, const char *prefix, const char **rest)
{
	if (!str_starts(l, prefix))
		return false;
	*rest = l + strlen(prefix);
	return true;
}

int perf_md_read(const char *path, struct perf_table *t, struct tp_err *err)
{
	perf_table_init(t);
	size_t len;
	char *text = read_file(path, &len, err);
	if (!text)
		return -1;
	size_t n;
	char **lines = str_split(text, '\n', true, &n);
	free(text);
	int rc = -1;
	for (size_t i = 0; i < n; i++) {
		size_t k = strlen(lines[i]);
		if (k && lines[i][k - 1] == '\r')
			lines[i][k - 1] = 0;
	}
	const char *v = NULL;
	if (!n || !line_is(lines[0], "VERDICT: ", &v) ||
	    (strcmp(v, "DONE") && strcmp(v, "INVESTIGATE") && strcmp(v, "BLOCKED"))) {
		tp_err_set(err, TP_EXIT_USAGE, "%s:1: expected 'VERDICT: DONE' or 'VERDICT: "
			   "INVESTIGATE' (a performance.md)", path);
		goto out;
	}
	enum perf_verdict verdict = !strcmp(v, "DONE") ? PERF_VERDICT_DONE
				   : !strcmp(v, "INVESTIGATE") ? PERF_VERDICT_INVESTIGATE
							       : PERF_VERDICT_BLOCKED;
	struct md_cols cols;
	bool in_table = false;
	double geomean = NAN;
	const char *severity = NULL, *inputs = NULL, *rest;
	int geo_line = 0;
	for (size_t i = 1; i < n; i++) {
		const char *l = lines[i];
		if (line_is(l, "## Performance Results: ", &rest) && !t->kernel && *rest) {
			t->kernel = xstrdup(rest);
		} else if (l[0] == '|') {
			size_t nc;
			char **c = row_cells(l, &nc);
			if (!in_table) {
				in_table = header_cols(c, nc, &cols);
			} else if (nc && strspn(c[0], "-: ") == strlen(c[0])) {
				/* the |---| rule */
			} else if ((size_t)cols.config < nc) {
				char *cfg = xstrdup(c[cols.config]);
				char *var = NULL;
				char *br = strstr(cfg, " [");
				if (br && cfg[strlen(cfg) - 1] == ']') {
					var = xstrndup(br + 2, strlen(br + 2) - 1);
					*br = 0;
				}
				struct perf_row *r = perf_table_add(t, cfg);
				r->variant = var;
				r->base.ms = (size_t)cols.base < nc ? md_num(c[cols.base]) : NAN;
				r->cand.ms = (size_t)cols.cand < nc ? md_num(c[cols.cand]) : NAN;
				r->base.file = xstrdup(path);
				r->cand.file = xstrdup(path);
				r->base.line = r->cand.line = (int)i + 1;
				free(cfg);
			}
			strv_free(c);
		} else if (line_is(l, "geomean_ratio=", &rest)) {
			if (geo_line)
				perf_table_note(t, "%s:%zu: a second geomean_ratio= line (the first, "
						"line %d, is used)", path, i + 1, geo_line);
			else
				geomean = md_num(rest), geo_line = (int)i + 1;
		} else if (line_is(l, "Severity: ", &rest)) {
			severity = rest;
		} else if (line_is(l, "Inputs: ", &rest)) {
			inputs = rest;
		} else if (line_is(l, "NA ", &rest)) {
			const char *colon = strstr(rest, ": ");
			for (size_t j = 0; colon && j < t->nrows; j++)
				if (strlen(t->rows[j].config) == (size_t)(colon - rest) &&
				    !strncmp(t->rows[j].config, rest, (size_t)(colon - rest)) &&
				    !t->rows[j].why) {
					size_t wl = strlen(colon + 2);
					t->rows[j].why = xstrndup(colon + 2, wl && colon[1 + wl] == '.'
									      ? wl - 1 : wl);
				}
		}
	}
	if (!in_table) {
		tp_err_set(err, TP_EXIT_USAGE, "%s: no '| Config | baseline (ms) | cutile-rs (ms) "
			   "| ratio | verdict |' table", path);
		goto out;
	}
	struct perf_table logs;
	if (enrich_from_logs(path, inputs, &logs)) {
		merge(t, &logs, path);
		perf_table_free(&logs);
	}
	perf_table_finish(t);
	/* What the report says is what is shown; disagreement is a note. */
	if (!geo_line) {
		perf_table_note(t, "%s: no geomean_ratio= line", path);
	} else if (fabs(geomean - t->geomean) > 5e-5 + 1e-3 * fabs(geomean)) {
		perf_table_note(t, "%s:%d: geomean_ratio=%.4f, but its rows give %.4f", path,
				geo_line, geomean, t->geomean);
	}
	if (geo_line) {
		t->geomean = geomean;
		if (!isnan(t->ci_lo) && (geomean < t->ci_lo || geomean > t->ci_hi)) {
			t->ci_lo = t->ci_hi = NAN;
			free(t->ci_how);
			t->ci_how = NULL;
		}
	}
	for (int b = PERF_BAND_DONE; severity && b <= PERF_BAND_MISSING; b++)
		if (!strcmp(severity, perf_band_name((enum perf_band)b)))
			t->severity = (enum perf_band)b;
	t->verdict = verdict;
	rc = 0;
out:
	strv_free(lines);
	return rc;
}

/* ---- JSON ---- */

static cJSON *num_or_null(double v)
{
	return isnan(v) ? cJSON_CreateNull() : cJSON_CreateNumber(v);
}

static cJSON *str_or_null(const char *s)
{
	return s ? cJSON_CreateString(s) : cJSON_CreateNull();
}

static cJSON *side_json(const struct perf_side *s)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddItemToObject(o, "median_ms", num_or_null(s->ms));
	cJSON_AddItemToObject(o, "noise_pct", num_or_null(s->noise));
	cJSON_AddItemToObject(o, "rel_std_pct", num_or_null(s->rel_std));
	cJSON_AddItemToObject(o, "samples", s->n < 0 ? cJSON_CreateNull()
						     : cJSON_CreateNumber((double)s->n));
	cJSON_AddItemToObject(o, "kernels_per_iter", num_or_null(s->kernels));
	cJSON_AddItemToObject(o, "backend", str_or_null(s->backend));
	cJSON_AddItemToObject(o, "file", str_or_null(s->file));
	cJSON_AddItemToObject(o, "line", s->file ? cJSON_CreateNumber(s->line) : cJSON_CreateNull());
	return o;
}

cJSON *perf_table_cjson(const struct perf_table *t)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddItemToObject(o, "kernel", str_or_null(t->kernel));
	cJSON_AddStringToObject(o, "verdict", perf_verdict_name(t->verdict));
	cJSON_AddStringToObject(o, "severity", perf_band_name(t->severity));
	cJSON_AddItemToObject(o, "geomean_ratio", num_or_null(t->geomean));
	cJSON *ci = isnan(t->ci_lo) ? cJSON_CreateNull() : cJSON_CreateArray();
	if (!isnan(t->ci_lo)) {
		cJSON_AddItemToArray(ci, cJSON_CreateNumber(t->ci_lo));
		cJSON_AddItemToArray(ci, cJSON_CreateNumber(t->ci_hi));
	}
	cJSON_AddItemToObject(o, "ci95", ci);
	cJSON_AddItemToObject(o, "ci_method", str_or_null(t->ci_how));
	cJSON_AddNumberToObject(o, "gate", PERF_GATE_RATIO);
	cJSON_AddStringToObject(o, "ratio", "candidate / baseline median time");
	cJSON_AddStringToObject(o, "baseline", t->base_name);
	cJSON_AddStringToObject(o, "candidate", t->cand_name);
	cJSON_AddNumberToObject(o, "paired", (double)t->npaired);
	cJSON *rows = cJSON_AddArrayToObject(o, "rows");
	for (size_t i = 0; i < t->nrows; i++) {
		const struct perf_row *r = &t->rows[i];
		cJSON *j = cJSON_CreateObject();
		cJSON_AddStringToObject(j, "config", r->config);
		cJSON_AddStringToObject(j, "shape", r->shape);
		cJSON_AddStringToObject(j, "dtype", r->dtype);
		cJSON_AddItemToObject(j, "variant", str_or_null(r->variant));
		cJSON_AddItemToObject(j, "baseline", side_json(&r->base));
		cJSON_AddItemToObject(j, "candidate", side_json(&r->cand));
		cJSON_AddItemToObject(j, "ratio", num_or_null(r->ratio));
		cJSON_AddStringToObject(j, "band", perf_band_name(r->band));
		cJSON_AddStringToObject(j, "verdict", perf_row_verdict(r));
		cJSON_AddItemToObject(j, "why", str_or_null(r->why));
		cJSON_AddItemToArray(rows, j);
	}
	cJSON *vs = cJSON_AddArrayToObject(o, "variants");
	for (size_t i = 0; i < t->nvariants; i++) {
		cJSON *j = cJSON_CreateObject();
		cJSON_AddStringToObject(j, "name", t->variants[i].name);
		cJSON_AddItemToObject(j, "baseline", str_or_null(t->variants[i].backend));
		cJSON_AddItemToObject(j, "geomean_ratio", num_or_null(t->variants[i].geomean));
		cJSON_AddNumberToObject(j, "paired", (double)t->variants[i].npaired);
		cJSON_AddItemToArray(vs, j);
	}
	cJSON *notes = cJSON_AddArrayToObject(o, "notes");
	for (size_t i = 0; i < t->nnotes; i++)
		cJSON_AddItemToArray(notes, cJSON_CreateString(t->notes[i]));
	return o;
}

char *perf_json_take(cJSON *o)
{
	char *s = cJSON_Print(o);
	cJSON_Delete(o);
	char *out = xstrdup(s ? s : "null");
	cJSON_free(s);
	return out;
}

char *perf_table_json(const struct perf_table *t)
{
	return perf_json_take(perf_table_cjson(t));
}
