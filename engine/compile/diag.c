/* What cargo and tileport-lower print, read into findings: one JSON object
 * per line each (`cargo check --message-format=json`, and the lowering
 * program's result lines). Hostile input is survived, never trusted: every
 * field is checked for its type (tests/fuzz/fuzz_compile_diag.c). */
#include "engine/compile/compile.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

const char *compile_phase_name(enum compile_phase p)
{
	switch (p) {
	case PHASE_SETUP:
		return "setup";
	case PHASE_CHECK:
		return "check";
	case PHASE_REGISTER:
		return "register";
	case PHASE_LOWER:
		return "lower";
	}
	return "?";
}

void compile_finding_free(struct compile_finding *f)
{
	free(f->file);
	free(f->code);
	free(f->message);
	free(f->rendered);
	free(f->spec);
	memset(f, 0, sizeof(*f));
}

static const char *str_of(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int int_of(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > 1e9)
		return 0;
	return (int)v->valuedouble;
}

/* The first line of a message: findings are one line; the whole text is in
 * `rendered`. */
static char *first_line(const char *s)
{
	size_t n = strcspn(s, "\n");
	return xstrndup(s, n);
}

/* A span in a real file: rustc names macro-generated code "<...>"; its
 * expansion's call site is where the user's code is. */
static const cJSON *real_span(const cJSON *span)
{
	for (int depth = 0; span && depth < 32; depth++) {
		const char *file = str_of(span, "file_name");
		if (file && file[0] && file[0] != '<')
			return span;
		const cJSON *exp = cJSON_GetObjectItemCaseSensitive(span, "expansion");
		span = cJSON_IsObject(exp) ? cJSON_GetObjectItemCaseSensitive(exp, "span") : NULL;
	}
	return NULL;
}

/* rustc's closing summaries are not findings of their own. */
static bool summary_message(const char *msg)
{
	static const char *const starts[] = {"aborting due to", "could not compile",
					     "For more information"};
	for (size_t i = 0; i < TP_ARRAY_LEN(starts); i++)
		if (str_starts(msg, starts[i]))
			return true;
	/* "3 warnings emitted", "1 warning emitted" */
	size_t d = strspn(msg, "0123456789");
	return d > 0 && (str_starts(msg + d, " warning emitted") || str_starts(msg + d, " warnings emitted"));
}

int compile_parse_cargo_line(const char *line, size_t len, const char *manifest,
			     struct compile_finding *f)
{
	memset(f, 0, sizeof(*f));
	cJSON *o = cJSON_ParseWithLength(line, len);
	if (!cJSON_IsObject(o)) {
		cJSON_Delete(o);
		return -1;
	}
	int rc = 0;
	const char *reason = str_of(o, "reason");
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(o, "message");
	const char *level = cJSON_IsObject(m) ? str_of(m, "level") : NULL;
	const char *msg = cJSON_IsObject(m) ? str_of(m, "message") : NULL;
	if (!reason || strcmp(reason, "compiler-message") != 0 || !level || !msg)
		goto out;
	const char *mp = str_of(o, "manifest_path");
	if (manifest && (!mp || strcmp(mp, manifest) != 0))
		goto out;
	bool error = str_starts(level, "error");
	if (!error && strcmp(level, "warning") != 0)
		goto out;
	const cJSON *spans = cJSON_GetObjectItemCaseSensitive(m, "spans");
	const cJSON *primary = NULL, *s;
	cJSON_ArrayForEach(s, spans)
	{
		const cJSON *p = cJSON_GetObjectItemCaseSensitive(s, "is_primary");
		if (cJSON_IsObject(s) && cJSON_IsTrue(p)) {
			primary = s;
			break;
		}
	}
	if (!primary && summary_message(msg))
		goto out;
	f->phase = PHASE_CHECK;
	f->error = error;
	f->message = first_line(msg);
	const cJSON *code = cJSON_GetObjectItemCaseSensitive(m, "code");
	const char *c = cJSON_IsObject(code) ? str_of(code, "code") : NULL;
	f->code = xstrdup(c ? c : "");
	const char *rendered = str_of(m, "rendered");
	f->rendered = rendered ? xstrdup(rendered) : NULL;
	const cJSON *at = real_span(primary);
	if (at) {
		f->file = xstrdup(str_of(at, "file_name"));
		f->line = int_of(at, "line_start");
		f->col = int_of(at, "column_start");
	}
	rc = 1;
out:
	cJSON_Delete(o);
	return rc;
}

int compile_parse_lower_line(const char *line, size_t len, char **id, int64_t *ms,
			     struct compile_finding *f)
{
	memset(f, 0, sizeof(*f));
	*id = NULL;
	*ms = 0;
	cJSON *o = cJSON_ParseWithLength(line, len);
	const char *i = cJSON_IsObject(o) ? str_of(o, "id") : NULL;
	const cJSON *ok = cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, "ok") : NULL;
	if (!i || !cJSON_IsBool(ok)) {
		cJSON_Delete(o);
		return -1;
	}
	*id = xstrdup(i);
	*ms = int_of(o, "ms");
	if (cJSON_IsTrue(ok)) {
		cJSON_Delete(o);
		return 1;
	}
	const char *e = str_of(o, "error");
	f->phase = PHASE_LOWER;
	f->error = true;
	f->code = xstrdup("");
	f->message = first_line(e ? e : "the lowering failed");
	f->rendered = e && strchr(e, '\n') ? xstrdup(e) : NULL;
	const char *file = str_of(o, "file");
	int l = int_of(o, "line");
	if (file && *file && l > 0) {
		f->file = xstrdup(file);
		f->line = l;
		f->col = int_of(o, "column");
	}
	cJSON_Delete(o);
	return 0;
}
