/* tileport review's output: a changeset as text (the files and their
 * roles, the shape checks, the run evidence from the note, the per-file
 * diffs) and as JSON. */
#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/git/cs_int.h"

const char *cs_note_str(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

const cJSON *cs_note_run(const cJSON *note)
{
	return cJSON_GetObjectItemCaseSensitive(note, "run");
}

const char *cs_note_or(const cJSON *o, const char *key, const char *dflt)
{
	const char *s = cs_note_str(o, key);
	return s ? s : dflt;
}

static void num_cell(const cJSON *o, const char *key, char *buf, size_t n)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	if (cJSON_IsNumber(v))
		snprintf(buf, n, "%.4f", v->valuedouble);
	else
		snprintf(buf, n, "NA");
}

/* The last attempt of a stage in the note's run, or NULL. */
static const cJSON *last_attempt(const cJSON *note, const char *stage)
{
	const cJSON *a, *last = NULL;
	cJSON_ArrayForEach(a, cs_note_attempts(note))
		if (!strcmp(cs_note_or(a, "stage", ""), stage))
			last = a;
	return last;
}

static double num_or0(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

static void evidence_run(const cJSON *note, struct sbuf *out)
{
	const cJSON *run = cs_note_run(note);
	const char *final = cs_note_str(run, "final"), *contract = cs_note_str(run, "contract");
	char created[32];
	iso8601_utc((int64_t)num_or0(run, "created"), created);
	sb_printf(out, "  run       %s %s, created %s, %s%s%s\n", cs_note_or(run, "op", "?"),
		  final ? final : "(not ended)", created, cs_note_or(run, "mode", "?"),
		  contract ? ", output contract " : "", contract ? contract : "");
	if (cs_note_str(run, "run_dir"))
		sb_printf(out, "  run dir   %s\n", cs_note_str(run, "run_dir"));
	const cJSON *acc = cJSON_GetObjectItemCaseSensitive(note, "accepted");
	if (cs_note_str(acc, "why"))
		sb_printf(out, "  accepted  %s\n", cs_note_str(acc, "why"));
	const cJSON *s;
	cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(run, "stages")) {
		const cJSON *last = last_attempt(note, s->string);
		if (!last)
			continue;
		const char *driver = cs_note_str(last, "driver");
		if (!driver)
			driver = cs_note_str(cJSON_GetObjectItemCaseSensitive(run, "drivers"), s->string);
		sb_printf(out, "  stage %s   %-14s runs %.0f  tokens %.0f/%.0f  $%.2f  %s\n", s->string,
			  cs_attempt_verdict(last), num_or0(s, "runs"), num_or0(s, "tokens_in"),
			  num_or0(s, "tokens_out"), num_or0(s, "cost"), driver ? driver : "");
	}
	const cJSON *d;
	bool any = false;
	cJSON_ArrayForEach(d, cJSON_GetObjectItemCaseSensitive(run, "deferred")) {
		sb_printf(out, "%s%s %s", any ? ", " : "  deferred  ", cs_note_or(d, "stage", "?"),
			  cs_note_or(d, "step", "?"));
		any = true;
	}
	if (any)
		sb_adds(out, "\n");
}

static void evidence_trail(const cJSON *note, struct sbuf *out)
{
	sb_adds(out, "\nVerdict trail\n");
	cs_trail_format(note, out);
	const cJSON *m;
	cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(note, "manual"))
		if (cs_note_str(m, "msg"))
			sb_printf(out, "  by hand: %s\n", cs_note_str(m, "msg"));
}

static void evidence_bench(const cJSON *note, struct sbuf *out)
{
	const cJSON *b = cJSON_GetObjectItemCaseSensitive(note, "bench");
	if (!b) {
		sb_adds(out, "\nBenchmark: none recorded (the run has no reports/performance.md)\n");
		return;
	}
	if (cs_note_str(b, "problem")) {
		sb_printf(out, "\nBenchmark (%s): not read: %s\n", cs_note_or(b, "file", "?"),
			  cs_note_str(b, "problem"));
		return;
	}
	char geo[32];
	num_cell(b, "geomean_ratio", geo, sizeof(geo));
	sb_printf(out, "\nBenchmark (%s): verdict %s, geomean %s, severity %s\n",
		  cs_note_or(b, "file", "?"), cs_note_or(b, "verdict", "-"), geo,
		  cs_note_or(b, "severity", "-"));
	const cJSON *rows = cJSON_GetObjectItemCaseSensitive(b, "rows"), *r;
	int cw = 6;
	cJSON_ArrayForEach(r, rows)
		if (cs_note_str(r, "config") && (int)strlen(cs_note_str(r, "config")) > cw)
			cw = (int)strlen(cs_note_str(r, "config"));
	sb_printf(out, "  %-*s  %11s  %12s  %7s  %s\n", cw, "config", "baseline ms", "cutile-rs ms", "ratio",
		  "verdict");
	cJSON_ArrayForEach(r, rows) {
		char a[32], c[32], q[32];
		num_cell(r, "baseline_ms", a, sizeof(a));
		num_cell(r, "cutile_rs_ms", c, sizeof(c));
		num_cell(r, "ratio", q, sizeof(q));
		sb_printf(out, "  %-*s  %11s  %12s  %7s  %s\n", cw, cs_note_or(r, "config", "?"), a,
			  c, q, cs_note_or(r, "verdict", "-"));
	}
}

static void evidence_ir(const cJSON *note, struct sbuf *out)
{
	const cJSON *ir = cJSON_GetObjectItemCaseSensitive(note, "ir");
	if (!ir) {
		sb_adds(out, "\nIR findings: none recorded (no generated/diff_report.md or irdiff JSON)\n");
		return;
	}
	const cJSON *list = cJSON_GetObjectItemCaseSensitive(ir, "checklist"), *r;
	int items = cJSON_GetArraySize(list), differ = 0;
	cJSON_ArrayForEach(r, list)
		differ += cs_note_str(r, "status") && strcasecmp(cs_note_str(r, "status"), "MATCH") != 0;
	sb_printf(out, "\nIR findings (%s): verdict %s%s%s, %d checklist item(s), %d not MATCH\n",
		  cs_note_or(ir, "file", "irdiff JSON"), cs_note_or(ir, "verdict", "-"),
		  cs_note_str(ir, "owner") ? ", owner " : "", cs_note_or(ir, "owner", ""), items, differ);
	cJSON_ArrayForEach(r, list) {
		if (!cs_note_str(r, "status") || !strcasecmp(cs_note_str(r, "status"), "MATCH"))
			continue;
		sb_printf(out, "  %-14s %-8s %s: %s / %s  (%s)\n", cs_note_str(r, "status"),
			  cs_note_or(r, "severity", "-"), cs_note_or(r, "item", "?"),
			  cs_note_or(r, "reference", "-"),
			  cs_note_or(r, "generated", "-"), cs_note_or(r, "action", "-"));
	}
	cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(ir, "findings"))
		sb_printf(out, "  %-14s %-8s %s\n", cs_note_or(r, "rule", "?"),
			  cs_note_or(r, "severity", "-"), cs_note_or(r, "message", ""));
}

void cs_format_text(const struct changeset *cs, struct sbuf *out)
{
	char when[32];
	time_t t = (time_t)cs->time;
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	sb_printf(out, "commit %s%s%s%s\n", cs->commit, cs->branch ? " (" : "", cs->branch ? cs->branch : "",
		  cs->branch ? ")" : "");
	sb_printf(out, "Author: %s\nDate:   %s\n\n    %s\n", cs->author ? cs->author : "?", when,
		  cs->subject ? cs->subject : "");
	sb_printf(out, "\nFiles (%zu)\n", cs->nfiles);
	size_t pw = 0;
	for (size_t i = 0; i < cs->nfiles; i++)
		if (strlen(cs->files[i].path) > pw)
			pw = strlen(cs->files[i].path);
	for (size_t i = 0; i < cs->nfiles; i++) {
		const struct cs_file *f = &cs->files[i];
		sb_printf(out, "  %-8s %c  %-*s  +%zu -%zu%s\n", cs_role_name(f->role), f->status, (int)pw, f->path,
			  f->added, f->deleted, f->binary ? " (binary)" : "");
	}
	if (cs->nfailed)
		sb_printf(out, "\nShape checks: %d of %d fail\n", cs->nfailed, CS_SHAPE__COUNT);
	else
		sb_printf(out, "\nShape checks: all %d pass\n", CS_SHAPE__COUNT);
	for (int i = 0; i < CS_SHAPE__COUNT; i++)
		sb_printf(out, "  %-4s  %-11s  %s\n", cs->checks[i].ok ? "ok" : "FAIL",
			  cs_shape_name((enum cs_shape)i), cs->checks[i].detail ? cs->checks[i].detail : "");
	if (cs->note) {
		sb_adds(out, "\nRun evidence (" CS_NOTES_REF ")\n");
		evidence_run(cs->note, out);
		evidence_trail(cs->note, out);
		evidence_bench(cs->note, out);
		evidence_ir(cs->note, out);
	} else {
		sb_printf(out, "\nRun evidence: %s\n", cs->note_problem ? cs->note_problem : "none");
	}
	if (cs->reference_path)
		sb_printf(out, "\nReference: %s (parent tree)\n", cs->reference_path);
	sb_adds(out, "\n");
	for (size_t i = 0; i < cs->nfiles; i++)
		sb_adds(out, cs->files[i].patch ? cs->files[i].patch : "");
}

cJSON *cs_to_json(const struct changeset *cs)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "commit", cs->commit);
	if (*cs->parent)
		cJSON_AddStringToObject(o, "parent", cs->parent);
	else
		cJSON_AddNullToObject(o, "parent");
	if (cs->branch)
		cJSON_AddStringToObject(o, "branch", cs->branch);
	else
		cJSON_AddNullToObject(o, "branch");
	if (cs->op)
		cJSON_AddStringToObject(o, "op", cs->op);
	cJSON_AddStringToObject(o, "subject", cs->subject ? cs->subject : "");
	cJSON_AddStringToObject(o, "message", cs->message ? cs->message : "");
	cJSON_AddStringToObject(o, "author", cs->author ? cs->author : "");
	cJSON_AddNumberToObject(o, "time", (double)cs->time);
	cJSON *files = cJSON_AddArrayToObject(o, "files");
	for (size_t i = 0; i < cs->nfiles; i++) {
		const struct cs_file *f = &cs->files[i];
		cJSON *j = cJSON_CreateObject();
		char st[2] = {f->status, 0};
		cJSON_AddStringToObject(j, "path", f->path);
		cJSON_AddStringToObject(j, "role", cs_role_name(f->role));
		cJSON_AddStringToObject(j, "status", st);
		cJSON_AddNumberToObject(j, "added", (double)f->added);
		cJSON_AddNumberToObject(j, "deleted", (double)f->deleted);
		cJSON_AddBoolToObject(j, "binary", f->binary);
		cJSON_AddStringToObject(j, "patch", f->patch ? f->patch : "");
		cJSON_AddItemToArray(files, j);
	}
	cJSON *checks = cJSON_AddArrayToObject(o, "checks");
	for (int i = 0; i < CS_SHAPE__COUNT; i++) {
		cJSON *c = cJSON_CreateObject();
		cJSON_AddStringToObject(c, "name", cs_shape_name((enum cs_shape)i));
		cJSON_AddStringToObject(c, "requires", cs_shape_help((enum cs_shape)i));
		cJSON_AddBoolToObject(c, "ok", cs->checks[i].ok);
		cJSON_AddStringToObject(c, "detail", cs->checks[i].detail ? cs->checks[i].detail : "");
		cJSON_AddItemToArray(checks, c);
	}
	cJSON_AddNumberToObject(o, "failed", cs->nfailed);
	if (cs->note)
		cJSON_AddItemToObject(o, "note", cJSON_Duplicate(cs->note, true));
	else
		cJSON_AddNullToObject(o, "note");
	if (cs->note_problem)
		cJSON_AddStringToObject(o, "note_problem", cs->note_problem);
	if (cs->reference_path)
		cJSON_AddStringToObject(o, "reference", cs->reference_path);
	return o;
}
