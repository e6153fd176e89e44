/* Printing reports: text in the reference scripts' shape, and JSON. */
#include "engine/check/check_impl.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

static void print_finding(FILE *out, const struct check_finding *f)
{
	fprintf(out, "%s [%s] ", check_sev_name(f->sev), f->rule);
	if (f->file && f->line > 0)
		fprintf(out, "%s:%d: ", f->file, f->line);
	else if (f->file)
		fprintf(out, "%s: ", f->file);
	fprintf(out, "%s\n", f->message);
}

static void print_run(FILE *out, const struct check_report *r, const struct check_run *run,
		      unsigned flags)
{
	unsigned deferred = 0;
	size_t ndeferred = 0;
	for (size_t i = run->first; i < run->first + run->count; i++) {
		const struct check_finding *f = &r->findings[i];
		if (f->sev == CHECK_DEFERRED) {
			deferred |= f->step;
			ndeferred++;
		}
		if ((flags & CHECK_TEXT_QUIET) && f->sev == CHECK_PASS)
			continue;
		print_finding(out, f);
	}
	if (run->notes && *run->notes)
		fputs(run->notes, out);
	if (ndeferred) {
		char *steps = check_steps_format(deferred);
		fprintf(out, "DEFERRED: %zu check(s) wait for %s\n", ndeferred, steps);
		free(steps);
	}
	if (run->closing && *run->closing) {
		fputs(run->closing, out);
		if (run->closing[strlen(run->closing) - 1] != '\n')
			fputc('\n', out);
	}
}

void check_print_text(FILE *out, const struct check_report *r, unsigned flags)
{
	if (r->nruns == 1 && strcmp(r->title, r->runs[0].name) == 0) {
		print_run(out, r, &r->runs[0], flags);
		return;
	}
	for (size_t i = 0; i < r->nruns; i++) {
		const struct check_run *run = &r->runs[i];
		fprintf(out, "$ tileport validate %s%s%s 2>&1\n", run->name, *run->args ? " " : "",
			run->args);
		print_run(out, r, run, flags);
		fprintf(out, "exit=%d\n", run->exit_code);
	}
	fprintf(out, "%s: %s (exit %d)\n", r->title, check_sev_name(check_report_verdict(r)),
		check_report_exit(r));
}

static cJSON *steps_json(unsigned steps)
{
	cJSON *a = cJSON_CreateArray();
	for (unsigned bit = 1; bit & CHECK_STEPS_ALL; bit <<= 1)
		if (steps & bit)
			cJSON_AddItemToArray(a, cJSON_CreateString(check_step_name(bit)));
	return a;
}

static cJSON *str_or_null(const char *s)
{
	return s ? cJSON_CreateString(s) : cJSON_CreateNull();
}

static cJSON *lines_json(const char *text)
{
	cJSON *a = cJSON_CreateArray();
	if (!text)
		return a;
	size_t n;
	char **v = str_split(text, '\n', false, &n);
	for (size_t i = 0; i < n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(v[i]));
	strv_free(v);
	return a;
}

cJSON *check_report_json(const struct check_report *r)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "title", r->title);
	cJSON_AddItemToObject(o, "kernel", str_or_null(r->kernel));
	cJSON_AddItemToObject(o, "run_dir", str_or_null(r->run_dir));
	cJSON_AddStringToObject(o, "verdict", check_sev_name(check_report_verdict(r)));
	cJSON_AddNumberToObject(o, "exit_code", check_report_exit(r));
	size_t counts[5];
	check_report_counts(r, counts);
	cJSON *c = cJSON_AddObjectToObject(o, "counts");
	for (int s = CHECK_PASS; s <= CHECK_FAIL; s++)
		cJSON_AddNumberToObject(c, check_sev_name((enum check_sev)s), (double)counts[s]);
	cJSON_AddItemToObject(o, "deferred", steps_json(r->deferred));
	cJSON_AddItemToObject(o, "deferred_hit", steps_json(check_report_deferred_hit(r)));

	cJSON *runs = cJSON_AddArrayToObject(o, "runs");
	for (size_t i = 0; i < r->nruns; i++) {
		const struct check_run *run = &r->runs[i];
		cJSON *j = cJSON_CreateObject();
		cJSON_AddStringToObject(j, "validator", run->name);
		cJSON_AddStringToObject(j, "args", run->args);
		cJSON_AddStringToObject(j, "verdict", check_sev_name(run->verdict));
		cJSON_AddNumberToObject(j, "exit_code", run->exit_code);
		cJSON_AddItemToObject(j, "notes", lines_json(run->notes));
		cJSON_AddItemToObject(j, "closing", lines_json(run->closing));
		cJSON_AddItemToArray(runs, j);
	}
	cJSON *fs = cJSON_AddArrayToObject(o, "findings");
	for (size_t i = 0; i < r->nfindings; i++) {
		const struct check_finding *f = &r->findings[i];
		cJSON *j = cJSON_CreateObject();
		cJSON_AddStringToObject(j, "validator", r->runs[f->run].name);
		cJSON_AddStringToObject(j, "rule", f->rule);
		cJSON_AddStringToObject(j, "severity", check_sev_name(f->sev));
		cJSON_AddItemToObject(j, "file", str_or_null(f->file));
		if (f->line > 0)
			cJSON_AddNumberToObject(j, "line", f->line);
		else
			cJSON_AddNullToObject(j, "line");
		cJSON_AddStringToObject(j, "message", f->message);
		cJSON_AddItemToObject(j, "step", str_or_null(check_step_name(f->step)));
		cJSON_AddItemToArray(fs, j);
	}
	return o;
}
