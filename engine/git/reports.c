/* The run's reports read into the note (docs/changeset.md, "The note"):
 * E's reports/performance.md (through engine/perf's reader), C's
 * generated/diff_report.md (first-line verdict, owner tag, the Checklist
 * Diff tables), and saved `tileport irdiff --json` output
 * (generated/irdiff*.json). Agents write these files, so the reading is
 * tolerant: what is not there is left out. */
#include <cJSON.h>
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/base/files.h"
#include "engine/core/verdict.h"
#include "engine/git/cs_int.h"
#include "engine/perf/perfmd.h"

static char *run_file(const char *run_dir, const char *rel)
{
	char *p = path_join(run_dir, rel);
	char *text = read_file(p, NULL, NULL);
	free(p);
	return text;
}

/* Markdown tables: cb gets each body row with the header cells and the
 * headings (## and ###) it sits under. */
typedef void (*md_row_cb)(void *ctx, const char *h2, const char *h3, char **head, char **cells,
			  size_t n);

static char **md_cells(const char *line, size_t *n)
{
	char *s = str_trim(xstrdup(line));
	size_t len = strlen(s);
	if (len && s[len - 1] == '|')
		s[len - 1] = 0;
	char **v = str_split(*s == '|' ? s + 1 : s, '|', true, n);
	for (size_t i = 0; i < *n; i++)
		str_trim(v[i]);
	free(s);
	return v;
}

static void md_tables(const char *text, md_row_cb cb, void *ctx)
{
	size_t n;
	char **lines = str_split(text, '\n', true, &n);
	char *h2 = xstrdup(""), *h3 = xstrdup("");
	char **head = NULL;
	size_t nhead = 0;
	for (size_t i = 0; i < n; i++) {
		const char *l = lines[i];
		while (*l == ' ')
			l++;
		if (*l != '|') {
			strv_free(head);
			head = NULL;
			if (str_starts(l, "## ") || str_starts(l, "### ")) {
				char **h = l[2] == ' ' ? &h2 : &h3;
				free(*h);
				*h = str_trim(xstrdup(l + (l[2] == ' ' ? 3 : 4)));
				if (h == &h2) {
					free(h3);
					h3 = xstrdup("");
				}
			}
			continue;
		}
		size_t nc;
		char **cells = md_cells(l, &nc);
		if (!head) {
			head = cells;
			nhead = nc;
			continue;
		}
		if (nc && strspn(cells[0], "-: ") == strlen(cells[0]) && *cells[0]) {
			strv_free(cells); /* the |---| separator */
			continue;
		}
		cb(ctx, h2, h3, head, cells, nc < nhead ? nc : nhead);
		strv_free(cells);
	}
	strv_free(head);
	free(h2);
	free(h3);
	strv_free(lines);
}

static bool icontains(const char *s, const char *needle)
{
	size_t n = strlen(needle);
	for (; *s; s++)
		if (!strncasecmp(s, needle, n))
			return true;
	return false;
}

static void add_number_or_null(cJSON *o, const char *key, double v)
{
	if (isnan(v))
		cJSON_AddNullToObject(o, key);
	else
		cJSON_AddNumberToObject(o, key, v);
}

/* Four decimals, as performance.md writes a ratio: the note says what the
 * report says. */
static double ratio4(double r)
{
	return isnan(r) ? r : round(r * 1e4) / 1e4;
}

/* Read with engine/perf's reader, the one `tileport perf` and the benchmark
 * view use, so the note cannot read a report differently from them. A
 * report it refuses is kept as a problem, not dropped. */
cJSON *cs_report_bench(const char *run_dir)
{
	static const char rel[] = "reports/performance.md";
	char *p = path_join(run_dir, rel);
	if (!path_is_file(p)) {
		free(p);
		return NULL;
	}
	cJSON *b = cJSON_CreateObject();
	cJSON_AddStringToObject(b, "file", rel);
	struct perf_table t;
	struct tp_err err;
	if (perf_md_read(p, &t, &err) < 0) {
		cJSON_AddStringToObject(b, "problem", err.msg);
	} else {
		cJSON_AddStringToObject(b, "verdict", perf_verdict_name(t.verdict));
		add_number_or_null(b, "geomean_ratio", t.geomean);
		cJSON_AddStringToObject(b, "severity", perf_band_name(t.severity));
		cJSON *rows = cJSON_AddArrayToObject(b, "rows");
		for (size_t i = 0; i < t.nrows; i++) {
			const struct perf_row *r = &t.rows[i];
			cJSON *o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "config", r->config);
			if (r->variant)
				cJSON_AddStringToObject(o, "variant", r->variant);
			add_number_or_null(o, "baseline_ms", r->base.ms);
			add_number_or_null(o, "cutile_rs_ms", r->cand.ms);
			add_number_or_null(o, "ratio", ratio4(r->ratio));
			cJSON_AddStringToObject(o, "verdict", perf_row_verdict(r));
			cJSON_AddItemToArray(rows, o);
		}
	}
	perf_table_free(&t);
	free(p);
	return b;
}

static double note_num(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

int cs_note_bench_table(const cJSON *note, struct perf_table *t, struct tp_err *err)
{
	perf_table_init(t);
	const cJSON *b = cJSON_GetObjectItemCaseSensitive(note, "bench");
	const cJSON *rows = cJSON_GetObjectItemCaseSensitive(b, "rows"), *r;
	if (!cJSON_GetArraySize(rows)) {
		tp_err_set(err, TP_EXIT_USAGE, "%s",
			   !note ? "No note: nothing recorded about the benchmark"
			   : cs_note_str(b, "problem") ? cs_note_str(b, "problem")
			   : "The note has no bench rows (the run had no reports/performance.md table)");
		return -1;
	}
	const char *op = cs_note_str(cs_note_run(note), "op");
	t->kernel = op ? xstrdup(op) : NULL;
	free(t->base_name);
	free(t->cand_name);
	t->base_name = xstrdup("baseline");
	t->cand_name = xstrdup("cutile-rs");
	cJSON_ArrayForEach(r, rows) {
		struct perf_row *row = perf_table_add(t, cs_note_or(r, "config", "?"));
		if (cs_note_str(r, "variant"))
			row->variant = xstrdup(cs_note_str(r, "variant"));
		row->base.ms = note_num(r, "baseline_ms");
		row->cand.ms = note_num(r, "cutile_rs_ms");
	}
	perf_table_finish(t);
	/* What the report said stands, as perf_md_read keeps it. */
	double g = note_num(b, "geomean_ratio");
	if (!isnan(g))
		t->geomean = g;
	const char *sev = cs_note_str(b, "severity"), *verdict = cs_note_str(b, "verdict");
	for (int i = PERF_BAND_DONE; sev && i <= PERF_BAND_MISSING; i++)
		if (!strcmp(sev, perf_band_name((enum perf_band)i)))
			t->severity = (enum perf_band)i;
	for (int i = PERF_VERDICT_DONE; verdict && i <= PERF_VERDICT_BLOCKED; i++)
		if (!strcmp(verdict, perf_verdict_name((enum perf_verdict)i)))
			t->verdict = (enum perf_verdict)i;
	perf_table_note(t, "from the changeset's note (%s): times and ratios only; the run's "
			"perf logs have the samples and the noise", cs_note_or(b, "file", "?"));
	return 0;
}

static void checklist_row(void *ctx, const char *h2, const char *h3, char **head, char **cells,
			  size_t n)
{
	static const struct {
		const char *header, *key;
	} cols[] = {
		{"item", "item"}, {"reference", "reference"}, {"generated", "generated"},
		{"status", "status"}, {"severity", "severity"}, {"action", "action"},
	};
	if (!icontains(h2, "checklist"))
		return;
	cJSON *r = cJSON_CreateObject();
	if (*h3)
		cJSON_AddStringToObject(r, "entry", h3);
	for (size_t i = 0; i < n; i++)
		for (size_t c = 0; c < TP_ARRAY_LEN(cols); c++)
			if (icontains(head[i], cols[c].header) &&
			    !cJSON_GetObjectItemCaseSensitive(r, cols[c].key)) {
				cJSON_AddStringToObject(r, cols[c].key, cells[i]);
				break;
			}
	cJSON_AddItemToArray(ctx, r);
}

/* Findings of saved `tileport irdiff --json` reports, flattened. */
static void irdiff_findings(const char *run_dir, cJSON *ir)
{
	char *gdir = path_join(run_dir, "generated");
	DIR *d = opendir(gdir);
	struct dirent *de;
	cJSON *all = NULL;
	while (d && (de = readdir(d))) {
		if (!str_starts(de->d_name, "irdiff") || !str_ends(de->d_name, ".json"))
			continue;
		char *rel = xasprintf("generated/%s", de->d_name);
		char *text = run_file(run_dir, rel);
		cJSON *doc = text ? cJSON_Parse(text) : NULL;
		const cJSON *entries = cJSON_GetObjectItemCaseSensitive(doc, "entries"), *e;
		cJSON_ArrayForEach(e, entries) {
			const cJSON *fs = cJSON_GetObjectItemCaseSensitive(e, "findings"), *f;
			const cJSON *en = cJSON_GetObjectItemCaseSensitive(e, "ref");
			cJSON_ArrayForEach(f, fs) {
				if (!cJSON_IsObject(f))
					continue;
				if (!all)
					all = cJSON_AddArrayToObject(ir, "findings");
				cJSON *c = cJSON_Duplicate(f, true);
				cJSON_AddStringToObject(c, "file", rel);
				if (cJSON_IsString(en))
					cJSON_AddStringToObject(c, "entry", en->valuestring);
				cJSON_AddItemToArray(all, c);
			}
		}
		cJSON_Delete(doc);
		free(text);
		free(rel);
	}
	if (d)
		closedir(d);
	free(gdir);
}

cJSON *cs_report_ir(const char *run_dir)
{
	static const char rel[] = "generated/diff_report.md";
	cJSON *ir = cJSON_CreateObject();
	char *text = run_file(run_dir, rel);
	if (text) {
		cJSON_AddStringToObject(ir, "file", rel);
		char *p = path_join(run_dir, rel);
		char *verdict = report_first_verdict(p);
		char *owner = owner_tag_read(p, "owner");
		free(p);
		if (verdict)
			cJSON_AddStringToObject(ir, "verdict", verdict);
		if (owner)
			cJSON_AddStringToObject(ir, "owner", owner);
		free(verdict);
		free(owner);
		md_tables(text, checklist_row, cJSON_AddArrayToObject(ir, "checklist"));
		free(text);
	}
	irdiff_findings(run_dir, ir);
	if (!ir->child) {
		cJSON_Delete(ir);
		return NULL;
	}
	return ir;
}
