/* reports/compile.json: what `tileport compile --json` prints and what a run
 * keeps of its check, read back by the stage view (docs/compile.md,
 * "The report"). Paths inside the run directory are relative to it. */
#include "engine/compile/compile.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "engine/base/files.h"
#include "engine/base/json.h"

static const char *rel(const char *path, const char *base)
{
	size_t n = base ? strlen(base) : 0;
	if (path && n && !strncmp(path, base, n) && path[n] == '/')
		return path + n + 1;
	return path;
}

char *compile_result_json(const struct compile_result *res, const char *relative_to)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "schema", "tileport.compile/1");
	cJSON_AddBoolToObject(o, "checked", res->checked);
	cJSON_AddBoolToObject(o, "lowered", res->lowered);
	cJSON_AddNumberToObject(o, "errors", res->errors);
	cJSON_AddNumberToObject(o, "warnings", res->warnings);
	cJSON_AddNumberToObject(o, "other_errors", res->other_errors);
	cJSON_AddNumberToObject(o, "check_ms", (double)res->check_ms);
	cJSON_AddNumberToObject(o, "build_ms", (double)res->build_ms);
	cJSON_AddNumberToObject(o, "lower_ms", (double)res->lower_ms);
	json_put_str(o, "cache", res->cache_dir);
	json_put_str(o, "dependencies", res->deps_from);
	json_put_str(o, "command", res->command);
	cJSON *fs = cJSON_AddArrayToObject(o, "findings");
	for (size_t i = 0; i < res->nf; i++) {
		const struct compile_finding *f = &res->f[i];
		cJSON *j = cJSON_CreateObject();
		cJSON_AddStringToObject(j, "phase", compile_phase_name(f->phase));
		cJSON_AddStringToObject(j, "level", f->error ? "error" : "warning");
		cJSON_AddBoolToObject(j, "in_op", f->in_op);
		json_put_str(j, "file", rel(f->file, relative_to));
		if (f->file) {
			cJSON_AddNumberToObject(j, "line", f->line);
			cJSON_AddNumberToObject(j, "column", f->col);
		}
		json_put_str(j, "code", f->code && *f->code ? f->code : NULL);
		json_put_str(j, "message", f->message);
		json_put_str(j, "rendered", f->rendered);
		json_put_str(j, "spec", f->spec);
		cJSON_AddItemToArray(fs, j);
	}
	cJSON *os = cJSON_AddArrayToObject(o, "outputs");
	for (size_t i = 0; i < res->nout; i++) {
		const struct compile_output *u = &res->out[i];
		cJSON *j = cJSON_CreateObject();
		json_put_str(j, "label", u->label);
		json_put_str(j, "entry", u->entry);
		json_put_str(j, "variant", u->variant);
		json_put_str(j, "dtype", u->dtype);
		cJSON_AddBoolToObject(j, "primary", u->primary);
		json_put_str(j, "generics", u->generics);
		json_put_str(j, "mlir", rel(u->mlir, relative_to));
		json_put_str(j, "bytecode", rel(u->bytecode, relative_to));
		cJSON_AddNumberToObject(j, "ms", (double)u->ms);
		cJSON_AddItemToArray(os, j);
	}
	char *s = cJSON_Print(o);
	cJSON_Delete(o);
	char *t = xasprintf("%s\n", s);
	cJSON_free(s);
	return t;
}

static int num(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble < 1e9 ? (int)v->valuedouble : 0;
}

static bool flag(const cJSON *o, const char *k)
{
	return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, k));
}

int compile_report_load(const char *path, struct compile_result *res, struct tp_err *err)
{
	memset(res, 0, sizeof(*res));
	size_t len;
	char *text = read_text_file(path, &len, err);
	if (!text)
		return -1;
	cJSON *o = json_parse_doc(path, text, len, err);
	free(text);
	if (!o)
		return -1;
	if (!cJSON_IsObject(o)) {
		tp_err_set(err, TP_EXIT_USAGE, "%s:1:1: expected a JSON object (tileport.compile/1)", path);
		cJSON_Delete(o);
		return -1;
	}
	res->checked = flag(o, "checked");
	res->lowered = flag(o, "lowered");
	res->errors = num(o, "errors");
	res->warnings = num(o, "warnings");
	res->other_errors = num(o, "other_errors");
	res->check_ms = num(o, "check_ms");
	res->lower_ms = num(o, "lower_ms");
	res->cache_dir = json_get_str(o, "cache");
	res->deps_from = json_get_str(o, "dependencies");
	res->command = json_get_str(o, "command");
	const cJSON *j, *fs = cJSON_GetObjectItemCaseSensitive(o, "findings");
	size_t n = (size_t)cJSON_GetArraySize(fs);
	res->f = xcalloc(n + 1, sizeof(*res->f));
	cJSON_ArrayForEach(j, fs)
	{
		if (!cJSON_IsObject(j))
			continue;
		struct compile_finding *f = &res->f[res->nf++];
		char *phase = json_get_str(j, "phase"), *level = json_get_str(j, "level");
		for (int p = PHASE_SETUP; p <= PHASE_LOWER; p++)
			if (phase && !strcmp(phase, compile_phase_name(p)))
				f->phase = p;
		f->error = !level || strcmp(level, "warning") != 0;
		free(phase);
		free(level);
		f->in_op = flag(j, "in_op");
		f->file = json_get_str(j, "file");
		f->line = num(j, "line");
		f->col = num(j, "column");
		f->code = json_get_str(j, "code");
		if (!f->code)
			f->code = xstrdup("");
		f->message = json_get_str(j, "message");
		if (!f->message)
			f->message = xstrdup("");
		f->rendered = json_get_str(j, "rendered");
		f->spec = json_get_str(j, "spec");
	}
	const cJSON *os = cJSON_GetObjectItemCaseSensitive(o, "outputs");
	n = (size_t)cJSON_GetArraySize(os);
	res->out = xcalloc(n + 1, sizeof(*res->out));
	cJSON_ArrayForEach(j, os)
	{
		if (!cJSON_IsObject(j))
			continue;
		struct compile_output *u = &res->out[res->nout++];
		u->label = json_get_str(j, "label");
		u->entry = json_get_str(j, "entry");
		u->variant = json_get_str(j, "variant");
		u->dtype = json_get_str(j, "dtype");
		u->primary = flag(j, "primary");
		u->generics = json_get_str(j, "generics");
		u->mlir = json_get_str(j, "mlir");
		u->bytecode = json_get_str(j, "bytecode");
		u->ms = num(j, "ms");
	}
	cJSON_Delete(o);
	return 0;
}
