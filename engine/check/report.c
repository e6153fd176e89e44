/* Reports: findings grouped in validator runs, verdicts, and the per-run
 * recorder (struct ck) the validators write through. */
#include "engine/check/check_impl.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "engine/base/files.h"

const char *check_sev_name(enum check_sev sev)
{
	switch (sev) {
	case CHECK_PASS:
		return "PASS";
	case CHECK_INFO:
		return "INFO";
	case CHECK_WARN:
		return "WARN";
	case CHECK_DEFERRED:
		return "DEFERRED";
	case CHECK_FAIL:
		return "FAIL";
	}
	return "?";
}

struct check_report *check_report_new(const char *title)
{
	struct check_report *r = xcalloc(1, sizeof(*r));
	r->title = xstrdup(title ? title : "");
	return r;
}

void check_report_free(struct check_report *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nfindings; i++) {
		free(r->findings[i].rule);
		free(r->findings[i].file);
		free(r->findings[i].message);
	}
	for (size_t i = 0; i < r->nruns; i++) {
		free(r->runs[i].name);
		free(r->runs[i].args);
		free(r->runs[i].notes);
		free(r->runs[i].closing);
	}
	free(r->findings);
	free(r->runs);
	free(r->title);
	free(r->run_dir);
	free(r->kernel);
	free(r);
}

static enum check_sev verdict_of(const struct check_finding *f, size_t n)
{
	enum check_sev v = CHECK_PASS;
	for (size_t i = 0; i < n; i++)
		if (f[i].sev > v && f[i].sev != CHECK_INFO)
			v = f[i].sev;
	return v;
}

enum check_sev check_report_verdict(const struct check_report *r)
{
	return verdict_of(r->findings, r->nfindings);
}

int check_report_exit(const struct check_report *r)
{
	for (size_t i = 0; i < r->nruns; i++)
		if (r->runs[i].exit_code)
			return 1;
	return 0;
}

void check_report_counts(const struct check_report *r, size_t counts[5])
{
	memset(counts, 0, 5 * sizeof(counts[0]));
	for (size_t i = 0; i < r->nfindings; i++)
		counts[r->findings[i].sev]++;
}

unsigned check_report_deferred_hit(const struct check_report *r)
{
	unsigned hit = 0;
	for (size_t i = 0; i < r->nfindings; i++)
		if (r->findings[i].sev == CHECK_DEFERRED)
			hit |= r->findings[i].step;
	return hit;
}

/* ---- the recorder ---- */

void ck_begin(struct ck *k, const struct check_ctx *ctx, struct check_report *r,
	      const char *name, const char *args)
{
	memset(k, 0, sizeof(*k));
	k->ctx = ctx;
	k->r = r;
	r->runs = xgrow(r->runs, &r->runs_cap, r->nruns + 1, sizeof(*r->runs));
	k->run = r->nruns++;
	struct check_run *run = &r->runs[k->run];
	memset(run, 0, sizeof(*run));
	run->name = xstrdup(name);
	run->args = xstrdup(args ? args : "");
	run->first = r->nfindings;
	char *out = check_ctx_run_dir(ctx);
	if (out)
		k->out = ck_keep(k, out, free);
	if (ctx->kernel)
		k->kernel = ck_fmt(k, "%s", ctx->kernel);
	r->deferred = ctx->deferred;
	if (!r->run_dir && k->out)
		r->run_dir = xstrdup(k->out);
	if (!r->kernel && k->kernel)
		r->kernel = xstrdup(k->kernel);
}

static void free_file(void *p)
{
	struct ck_file *f = p;
	free(f->path);
	free(f->data);
	free(f);
}

int ck_end(struct ck *k, const char *closing)
{
	struct check_report *r = k->r;
	struct check_run *run = &r->runs[k->run];
	run->count = r->nfindings - run->first;
	run->verdict = verdict_of(r->findings + run->first, run->count);
	run->exit_code = run->verdict == CHECK_FAIL;
	run->notes = sb_detach(&k->notes);
	run->closing = xstrdup(closing ? closing : "");
	for (size_t i = k->narena; i-- > 0;)
		k->arena[i].release(k->arena[i].p);
	free(k->arena);
	free(k->files);
	return run->exit_code;
}

size_t ck_count(const struct ck *k, enum check_sev sev)
{
	size_t n = 0;
	for (size_t i = k->r->runs[k->run].first; i < k->r->nfindings; i++)
		n += k->r->findings[i].sev == sev;
	return n;
}

void ck_add(struct ck *k, enum check_sev sev, unsigned step, const char *rule,
	    const char *file, int line, const char *fmt, ...)
{
	struct check_report *r = k->r;
	r->findings = xgrow(r->findings, &r->findings_cap, r->nfindings + 1,
			    sizeof(*r->findings));
	struct check_finding *f = &r->findings[r->nfindings++];
	if ((sev == CHECK_FAIL || sev == CHECK_WARN) && (step & k->ctx->deferred))
		sev = CHECK_DEFERRED;
	va_list ap;
	va_start(ap, fmt);
	f->message = xvasprintf(fmt, ap);
	va_end(ap);
	f->rule = xstrdup(rule);
	f->sev = sev;
	f->file = file ? xstrdup(file) : NULL;
	f->line = line;
	f->step = step;
	f->run = k->run;
}

void ck_note(struct ck *k, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sb_vprintf(&k->notes, fmt, ap);
	va_end(ap);
	sb_addc(&k->notes, '\n');
}

void *ck_keep(struct ck *k, void *p, void (*release)(void *))
{
	if (!p)
		return NULL;
	k->arena = xgrow(k->arena, &k->arena_cap, k->narena + 1, sizeof(*k->arena));
	k->arena[k->narena].p = p;
	k->arena[k->narena].release = release;
	k->narena++;
	return p;
}

char *ck_fmt(struct ck *k, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = xvasprintf(fmt, ap);
	va_end(ap);
	return ck_keep(k, s, free);
}

const char *ck_out(struct ck *k, const char *rel)
{
	if (!k->out)
		return NULL;
	return ck_keep(k, path_join(k->out, rel), free);
}

const char *ck_tg(struct ck *k, const char *rel)
{
	if (!k->ctx->tilegym)
		return NULL;
	return ck_keep(k, path_join(k->ctx->tilegym, rel), free);
}

const char *ck_kernels_dir(struct ck *k)
{
	if (k->ctx->kernels_dir)
		return k->ctx->kernels_dir;
	return ck_tg(k, "src/tilegym/ops/cutile_rs/cutile_kernels");
}

const struct ck_file *ck_load(struct ck *k, const char *path)
{
	static const struct ck_file none = {NULL, NULL, 0, false};
	if (!path)
		return &none;
	for (size_t i = 0; i < k->nfiles; i++)
		if (strcmp(k->files[i]->path, path) == 0)
			return k->files[i];
	struct ck_file *f = xcalloc(1, sizeof(*f));
	f->path = xstrdup(path);
	f->exists = path_is_file(path);
	/* Something at the path that cannot be read as text fails the check
	 * that wanted it: never a pass by default. */
	struct tp_err err;
	if (access(path, F_OK) == 0 && !(f->data = read_text_file(path, &f->len, &err))) {
		f->exists = false;
		/* the finding names the file already: "f: is a FIFO", not "f: f: ..." */
		const char *why = err.msg;
		size_t n = strlen(path);
		if (strncmp(why, path, n) == 0 && why[n] == ':' && why[n + 1] == ' ')
			why += n + 2;
		ck_add(k, CHECK_FAIL, 0, "file.read", path, 0, "%s", why);
	}
	ck_keep(k, f, free_file);
	k->files = xgrow(k->files, &k->files_cap, k->nfiles + 1, sizeof(*k->files));
	k->files[k->nfiles++] = f;
	return f;
}

bool ck_nonempty(const struct ck_file *f)
{
	return f->data && f->len > 0;
}

static void json_delete(void *p)
{
	cJSON_Delete(p);
}

/* The parse error position as line and column from cJSON's error pointer. */
static const char *json_error_at(struct ck *k, const struct ck_file *f)
{
	const char *at = cJSON_GetErrorPtr();
	if (!at || at < f->data || at > f->data + f->len)
		return ck_fmt(k, "not valid JSON");
	size_t off = (size_t)(at - f->data);
	int line = tx_line_at(f->data, off);
	const char *bol = at;
	while (bol > f->data && bol[-1] != '\n')
		bol--;
	return ck_fmt(k, "not valid JSON at line %d, column %d", line, (int)(at - bol) + 1);
}

struct cJSON *ck_analysis(struct ck *k, const char **why)
{
	if (!k->analysis_loaded) {
		k->analysis_loaded = true;
		const struct ck_file *f = ck_load(k, ck_out(k, "reference/analysis.json"));
		const char *end = NULL;
		cJSON *j = f->data ? cJSON_ParseWithLengthOpts(f->data, f->len, &end, false) : NULL;
		size_t rest = j ? (size_t)(end - f->data) : 0;
		while (j && rest < f->len && strchr(" \t\r\n", f->data[rest]))
			rest++;
		if (!f->data) {
			k->analysis_why = "missing";
		} else if (!j) {
			k->analysis_why = json_error_at(k, f);
		} else if (rest < f->len) {
			int line, col;
			text_line_col(f->data, rest, &line, &col);
			k->analysis_why = ck_fmt(k, "unexpected data after the JSON value at line %d, "
					       "column %d", line, col);
			cJSON_Delete(j);
			j = NULL;
		} else if (!cJSON_IsObject(j)) {
			k->analysis_why = "not a JSON object";
		}
		if (j && !cJSON_IsObject(j)) {
			cJSON_Delete(j);
			j = NULL;
		}
		k->analysis = ck_keep(k, j, json_delete);
	}
	if (why)
		*why = k->analysis_why;
	return k->analysis;
}

size_t ck_variant_count(struct ck *k)
{
	cJSON *a = ck_analysis(k, NULL);
	cJSON *v = a ? cJSON_GetObjectItemCaseSensitive(a, "kernel_variants") : NULL;
	return cJSON_IsArray(v) ? (size_t)cJSON_GetArraySize(v) : 0;
}

enum check_sev ck_verdict_since(const struct ck *k, size_t from)
{
	enum check_sev v = CHECK_PASS;
	for (size_t i = from; i < k->r->nfindings; i++)
		if (k->r->findings[i].sev > v && k->r->findings[i].sev != CHECK_INFO)
			v = k->r->findings[i].sev;
	return v;
}
