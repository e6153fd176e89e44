/* Reading perf logs (docs/formats.md, "Perf logs"). The log is a pytest
 * transcript, so the reader is lenient about everything around the
 * sections and strict about what a section holds: the payload must be the
 * JSON object record_property("benchmark", ...) was given. */
#include "engine/base/files.h"
#include "engine/perf/perflog.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

/* Lines as (start, length) over a text that need not end in NUL. */
struct lines {
	const char *text;
	size_t len;
	size_t *start; /* nlines + 1 entries: start[i+1] - start[i] includes the '\n' */
	size_t n;
};

static void split_lines(const char *text, size_t len, struct lines *ls)
{
	size_t cap = 0;
	ls->text = text;
	ls->len = len;
	ls->start = NULL;
	ls->n = 0;
	size_t at = 0;
	while (at < len) {
		ls->start = xgrow(ls->start, &cap, ls->n + 2, sizeof(*ls->start));
		ls->start[ls->n++] = at;
		const char *nl = memchr(text + at, '\n', len - at);
		at = nl ? (size_t)(nl - text) + 1 : len;
	}
	ls->start = xgrow(ls->start, &cap, ls->n + 1, sizeof(*ls->start));
	ls->start[ls->n] = len;
}

/* Line i without its newline (and CR). */
static size_t line_len(const struct lines *ls, size_t i)
{
	size_t a = ls->start[i], b = ls->start[i + 1];
	while (b > a && (ls->text[b - 1] == '\n' || ls->text[b - 1] == '\r'))
		b--;
	return b - a;
}

static bool has(const char *s, size_t n, const char *needle)
{
	size_t k = strlen(needle);
	for (size_t i = 0; i + k <= n; i++)
		if (memcmp(s + i, needle, k) == 0)
			return true;
	return false;
}

static void note(struct perf_log *log, size_t *cap, int line, const char *fmt, ...)
	TP_PRINTF(4, 5);
static void note(struct perf_log *log, size_t *cap, int line, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	log->notes = xgrow(log->notes, cap, log->nnotes + 1, sizeof(*log->notes));
	log->notes[log->nnotes].line = line;
	log->notes[log->nnotes].msg = xvasprintf(fmt, ap);
	log->nnotes++;
	va_end(ap);
}

/* A pytest node id in the line: "path.py::Class::test[params]", with any
 * status word or text after it dropped. NULL when there is none. */
static char *node_id(const char *s, size_t n)
{
	const char *end = s + n;
	for (const char *p = s; p + 2 < end; p++) {
		if (p[0] != ':' || p[1] != ':')
			continue;
		const char *a = p;
		while (a > s && !isspace((unsigned char)a[-1]))
			a--;
		const char *b = p;
		int depth = 0;
		while (b < end && (depth > 0 || !isspace((unsigned char)*b))) {
			depth += *b == '[' ? 1 : *b == ']' ? -1 : 0;
			b++;
		}
		/* a test file's id, or an id with parameters; not C++ names
		 * (at::native::...) that logs print */
		size_t n = (size_t)(b - a);
		bool py = false;
		for (const char *q = a; q + 4 < b && !py; q++)
			py = memcmp(q, ".py::", 5) == 0;
		if (py || (n > 2 && b[-1] == ']'))
			return xstrndup(a, n);
		p = b > p ? b - 1 : p;
	}
	return NULL;
}

static char *params_of(const char *id)
{
	const char *open = strchr(id, '[');
	const char *close = strrchr(id, ']');
	if (!open || !close || close < open)
		return NULL;
	return xstrndup(open + 1, (size_t)(close - open - 1));
}

/* ---- configuration keys ---- */

static const char *const backend_names[] = {"cutile_rs", "cutile-rs", "triton_tileir", "cutile",
					    "triton", "torch", "pytorch", NULL};

/* Remove the '-'-delimited token spelled `b` (or with '-' for '_') from s. */
static bool drop_token(char *s, const char *b)
{
	char alt[64];
	snprintf(alt, sizeof(alt), "%s", b);
	for (char *p = alt; *p; p++)
		if (*p == '_')
			*p = '-';
	const char *forms[] = {b, alt};
	for (size_t f = 0; f < 2; f++) {
		size_t k = strlen(forms[f]);
		for (char *p = s; (p = strstr(p, forms[f])) != NULL; p++) {
			bool left = p == s || p[-1] == '-';
			bool right = p[k] == '\0' || p[k] == '-';
			if (!left || !right)
				continue;
			char *from = p, *to = p + k;
			if (*to == '-')
				to++;
			else if (from > s)
				from--;
			memmove(from, to, strlen(to) + 1);
			return true;
		}
	}
	return false;
}

char *perflog_config_key(const char *params, const char *backend)
{
	char *s = xstrdup(params ? params : "");
	if (backend && *backend && drop_token(s, backend))
		return s;
	for (size_t i = 0; backend_names[i]; i++)
		if (drop_token(s, backend_names[i]))
			break;
	return s;
}

static const char *const dtype_names[] = {
	"float16", "bfloat16", "float32", "float64", "float8_e4m3fn", "float8_e5m2", "half",
	"float", "double", "f16", "bf16", "f32", "f64", "fp16", "fp32", "fp64", "fp8", "tf32",
	"e4m3", "e5m2", "int8", "int16", "int32", "int64", "uint8", "bool", NULL};

static bool is_dtype(const char *s, size_t n)
{
	if (n > 6 && memcmp(s, "torch.", 6) == 0)
		s += 6, n -= 6;
	for (size_t i = 0; dtype_names[i]; i++)
		if (strlen(dtype_names[i]) == n && memcmp(dtype_names[i], s, n) == 0)
			return true;
	return false;
}

const char *perf_config_dtype(const char *key, size_t *len)
{
	for (const char *p = key; *p;) {
		const char *e = strchr(p, '-');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		if (is_dtype(p, n)) {
			*len = n;
			return p;
		}
		p += n + (e ? 1 : 0);
	}
	*len = 0;
	return NULL;
}

char *perf_config_shape(const char *key)
{
	size_t n;
	const char *d = perf_config_dtype(key, &n);
	char *s = xstrdup(key);
	if (!d)
		return s;
	char *from = s + (d - key), *to = from + n;
	if (*to == '-')
		to++;
	else if (from > s)
		from--;
	memmove(from, to, strlen(to) + 1);
	return s;
}

/* ---- sections ---- */

static double num(const cJSON *o, const char *name)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static void read_stats(const cJSON *o, struct perf_stats *st)
{
	st->median = num(o, "median");
	st->mean = num(o, "mean");
	st->std = num(o, "std");
	st->min = num(o, "min");
	st->max = num(o, "max");
	st->rel_std = num(o, "rel_std");
	st->noise = num(o, "noise");
	if (isnan(st->noise))
		st->noise = st->rel_std;
	double n = num(o, "nrep");
	/* a count no long holds is no count (the log is input: it may say 1e57) */
	st->nrep = isnan(n) || n < 0 || n >= 9.2e18 ? -1 : (long)n;
	st->kernels = num(o, "kernels_per_iter");
	const cJSON *kt = cJSON_GetObjectItemCaseSensitive(o, "kernel_times");
	if (isnan(st->kernels) && cJSON_IsArray(kt) && cJSON_GetArraySize(kt) > 0) {
		double sum = 0;
		bool all = true;
		const cJSON *e;
		cJSON_ArrayForEach(e, kt) {
			double c = num(e, "count");
			all = all && !isnan(c);
			sum += isnan(c) ? 0 : c;
		}
		if (all)
			st->kernels = sum;
	}
	const cJSON *kn = cJSON_GetObjectItemCaseSensitive(o, "kernel_name");
	st->kernel_name = cJSON_IsString(kn) ? xstrdup(kn->valuestring) : NULL;
}

struct reader {
	struct perf_log *log;
	size_t rcap, ncap;
};

static struct perf_record *add_record(struct reader *r, int line, const char *test)
{
	struct perf_log *log = r->log;
	log->recs = xgrow(log->recs, &r->rcap, log->nrecs + 1, sizeof(*log->recs));
	struct perf_record *rec = &log->recs[log->nrecs++];
	memset(rec, 0, sizeof(*rec));
	rec->line = line;
	rec->test = test ? xstrdup(test) : NULL;
	rec->params = test ? params_of(test) : NULL;
	rec->st.median = rec->st.mean = rec->st.std = rec->st.min = rec->st.max = NAN;
	rec->st.rel_std = rec->st.noise = rec->st.kernels = NAN;
	rec->st.nrep = -1;
	return rec;
}

static void set_key(struct perf_record *rec)
{
	/* no payload to name the framework: the parameter string may */
	for (size_t i = 0; rec->backend && !*rec->backend && rec->params && backend_names[i]; i++) {
		char *s = xstrdup(rec->params);
		if (drop_token(s, backend_names[i])) {
			free(rec->backend);
			rec->backend = xstrdup(backend_names[i]);
			for (char *c = rec->backend; *c; c++)
				*c = *c == '-' ? '_' : *c;
		}
		free(s);
	}
	free(rec->config);
	rec->config = perflog_config_key(rec->params ? rec->params : rec->test, rec->backend);
	if (rec->backward) {
		char *k = xasprintf("%s backward", rec->config);
		free(rec->config);
		rec->config = k;
	}
}

/* cJSON takes a raw control character inside a string, which JSON (and
 * json.dumps) never has: a name with one would break the lines of a report. */
static bool has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return true;
	return false;
}

static void add_payload(struct reader *r, int line, const char *test, const cJSON *root)
{
	bool any = false;
	const cJSON *fw;
	cJSON_ArrayForEach(fw, root) {
		if (!cJSON_IsObject(fw))
			continue;
		if (has_control(fw->string)) {
			struct perf_record *rec = add_record(r, line, test);
			rec->backend = xstrdup("");
			set_key(rec);
			rec->problem = xstrdup("a framework name with a control character in it "
					       "(not valid JSON)");
			any = true;
			continue;
		}
		/* {framework: {"forward": stats, "backward": stats}}, or stats directly */
		const cJSON *dirs[2] = {cJSON_GetObjectItemCaseSensitive(fw, "forward"),
					cJSON_GetObjectItemCaseSensitive(fw, "backward")};
		if (!dirs[0] && !dirs[1] && cJSON_GetObjectItemCaseSensitive(fw, "median"))
			dirs[0] = fw;
		for (int d = 0; d < 2; d++) {
			if (!cJSON_IsObject(dirs[d]))
				continue;
			struct perf_record *rec = add_record(r, line, test);
			rec->backend = xstrdup(fw->string);
			rec->backward = d == 1;
			read_stats(dirs[d], &rec->st);
			set_key(rec);
			if (isnan(rec->st.median))
				rec->problem = xasprintf("no numeric \"median\" in the %s %s stats",
							 fw->string, d ? "backward" : "forward");
			any = true;
		}
	}
	if (!any) {
		struct perf_record *rec = add_record(r, line, test);
		rec->backend = xstrdup("");
		set_key(rec);
		rec->problem = xstrdup("expected {framework: {\"forward\": {\"median\": ...}}}");
	}
}

/* The section whose marker is on line m: test id, payload, outcome. Returns
 * the line after the payload. */
static size_t read_section(struct reader *r, const struct lines *ls, size_t m, const char *last_id)
{
	struct perf_log *log = r->log;
	const char *ml = ls->text + ls->start[m];
	char *test = node_id(ml, line_len(ls, m));
	size_t i = m + 1;
	/* optional "test: NODEID" lines and blank lines before the payload */
	for (; i < ls->n; i++) {
		const char *s = ls->text + ls->start[i];
		size_t n = line_len(ls, i);
		while (n && isspace((unsigned char)*s))
			s++, n--;
		if (!n)
			continue;
		if (n > 5 && memcmp(s, "test:", 5) == 0) {
			const char *v = s + 5;
			size_t k = n - 5;
			while (k && isspace((unsigned char)*v))
				v++, k--;
			while (k && isspace((unsigned char)v[k - 1]))
				k--;
			free(test);
			test = xstrndup(v, k);
			continue;
		}
		break;
	}
	if (!test && last_id)
		test = xstrdup(last_id);
	size_t first_rec = log->nrecs;
	size_t next = i;
	const char *p = i < ls->n ? memchr(ls->text + ls->start[i], '{', line_len(ls, i)) : NULL;
	if (!p) {
		struct perf_record *rec = add_record(r, (int)m + 1, test);
		rec->backend = xstrdup("");
		set_key(rec);
		rec->problem = xstrdup("expected the benchmark record (a JSON object) after '" PERFLOG_MARKER "'");
		rec->problem_line = i < ls->n ? (int)i + 1 : (int)m + 1;
	} else {
		const char *end = NULL;
		size_t avail = ls->len - (size_t)(p - ls->text);
		cJSON *root = cJSON_ParseWithLengthOpts(p, avail, &end, false);
		if (!root || !cJSON_IsObject(root)) {
			struct perf_record *rec = add_record(r, (int)m + 1, test);
			rec->backend = xstrdup("");
			set_key(rec);
			rec->problem = xstrdup("the benchmark record is not valid JSON (expected one object, as "
					       "json.dumps prints it)");
			rec->problem_line = (int)i + 1;
			next = i + 1;
		} else {
			add_payload(r, (int)m + 1, test, root);
			size_t off = (size_t)(end - ls->text);
			while (next < ls->n && ls->start[next + 1] <= off)
				next++;
			if (next < ls->n && ls->start[next] < off)
				next++;
		}
		cJSON_Delete(root);
	}
	/* The outcome: the first PASSED or FAILED/ERROR line before the next section. */
	enum perf_outcome out = PERF_OUTCOME_UNKNOWN;
	for (size_t j = next; j < ls->n; j++) {
		const char *s = ls->text + ls->start[j];
		size_t n = line_len(ls, j);
		if (has(s, n, PERFLOG_MARKER))
			break;
		if (has(s, n, "PASSED")) {
			out = PERF_OUTCOME_PASSED;
			break;
		}
		if (has(s, n, "FAILED") || has(s, n, "ERROR")) {
			out = PERF_OUTCOME_FAILED;
			break;
		}
	}
	for (size_t k = first_rec; k < log->nrecs; k++) {
		struct perf_record *rec = &log->recs[k];
		rec->outcome = out;
		if (out == PERF_OUTCOME_FAILED && !rec->problem)
			rec->problem = xstrdup("the test FAILED");
	}
	if (!test)
		note(log, &r->ncap, (int)m + 1, "no test id for this section (expected a "
		     "'test: NODEID' line or the node id before it)");
	free(test);
	return next > m ? next : m + 1;
}

void perflog_parse(const char *path, const char *text, size_t len, struct perf_log *out)
{
	memset(out, 0, sizeof(*out));
	out->path = xstrdup(path ? path : "");
	struct lines ls;
	split_lines(text, len, &ls);
	struct reader r = {.log = out};
	/* The counts first, over every line, as the reference script greps. */
	for (size_t i = 0; i < ls.n; i++) {
		const char *s = text + ls.start[i];
		size_t n = line_len(&ls, i);
		out->sections += has(s, n, PERFLOG_MARKER);
		out->passed += has(s, n, "PASSED");
		out->skipped += has(s, n, "SKIPPED");
		if (has(s, n, "FAILED")) {
			out->failed++;
			if (!out->first_failed_line)
				out->first_failed_line = (int)i + 1;
		}
	}
	char *last_id = NULL;
	for (size_t i = 0; i < ls.n;) {
		const char *s = text + ls.start[i];
		size_t n = line_len(&ls, i);
		if (has(s, n, PERFLOG_MARKER)) {
			i = read_section(&r, &ls, i, last_id);
			continue;
		}
		char *id = node_id(s, n);
		if (id) {
			free(last_id);
			last_id = id;
		}
		i++;
	}
	free(last_id);
	free(ls.start);
}

int perflog_load(const char *path, struct perf_log *out, struct tp_err *err)
{
	size_t len;
	struct tp_err e;
	char *text = read_file(path, &len, &e);
	if (!text) {
		memset(out, 0, sizeof(*out));
		tp_err_set(err, TP_EXIT_USAGE, "%s", e.msg);
		return -1;
	}
	perflog_parse(path, text, len, out);
	free(text);
	return 0;
}

void perflog_free(struct perf_log *log)
{
	for (size_t i = 0; i < log->nrecs; i++) {
		struct perf_record *r = &log->recs[i];
		free(r->test);
		free(r->params);
		free(r->backend);
		free(r->config);
		free(r->problem);
		free(r->st.kernel_name);
	}
	for (size_t i = 0; i < log->nnotes; i++)
		free(log->notes[i].msg);
	free(log->recs);
	free(log->notes);
	free(log->path);
	memset(log, 0, sizeof(*log));
}

int perf_record_problem_line(const struct perf_record *r)
{
	return r->problem_line ? r->problem_line : r->line;
}
