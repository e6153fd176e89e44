/* From perf logs to a paired table: which baseline record each candidate
 * record is compared with. A run can hold baselines of several backends
 * (cuTile Python and Triton-TileIR); stage A picked the faster one per
 * variant and wrote it into analysis.json, so that choice is honoured, and
 * only without it is the lower-geomean backend picked here, the way stage
 * A picks it. */
#include "engine/perf/compare.h"

#include <glob.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cjson/cJSON.h>

#include "engine/base/files.h"
#include "engine/perf/perflog.h"

/* ---- what analysis.json says ---- */

struct amap {
	char **keys, **vals; /* config_to_variant */
	size_t n;
	char **vnames, **vbackends; /* per variant: its winning baseline */
	size_t nv;
	char *backend; /* the top-level winner */
	char *kernel;
};

static const char *str_item(const cJSON *o, const char *name)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
	return cJSON_IsString(v) && *v->valuestring ? v->valuestring : NULL;
}

static void push(char ***v, size_t *n, const char *s)
{
	*v = xrealloc(*v, (*n + 2) * sizeof(**v));
	(*v)[(*n)++] = s ? xstrdup(s) : NULL;
	(*v)[*n] = NULL;
}

static int amap_load(const char *path, struct amap *m, struct tp_err *err)
{
	memset(m, 0, sizeof(*m));
	if (!path)
		return 0;
	struct tp_err e;
	size_t len;
	char *text = read_file(path, &len, &e);
	if (!text) {
		tp_err_set(err, TP_EXIT_USAGE, "%s", e.msg);
		return -1;
	}
	const char *end = NULL;
	cJSON *root = cJSON_ParseWithLengthOpts(text, len, &end, false);
	if (!cJSON_IsObject(root)) {
		size_t off = end ? (size_t)(end - text) : 0;
		int line = 1;
		for (size_t i = 0; i < off && i < len; i++)
			line += text[i] == '\n';
		tp_err_set(err, TP_EXIT_USAGE, "%s:%d: expected a JSON object (analysis.json)", path,
			   line);
		cJSON_Delete(root);
		free(text);
		return -1;
	}
	free(text);
	const char *k = str_item(root, "kernel_name");
	m->kernel = k ? xstrdup(k) : NULL;
	const cJSON *sel = cJSON_GetObjectItemCaseSensitive(root, "reference_backend_selection");
	const char *top = str_item(root, "reference_backend");
	if (!top)
		top = str_item(sel, "winner");
	m->backend = top ? xstrdup(top) : NULL;
	size_t nk = 0, nvs = 0;
	const cJSON *c2v = cJSON_GetObjectItemCaseSensitive(root, "config_to_variant"), *it;
	cJSON_ArrayForEach(it, c2v) {
		if (!cJSON_IsString(it))
			continue;
		push(&m->keys, &nk, it->string);
		push(&m->vals, &nvs, it->valuestring);
	}
	m->n = nk;
	const cJSON *per = cJSON_GetObjectItemCaseSensitive(sel, "per_variant");
	size_t a = 0, b = 0;
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(root, "kernel_variants")) {
		const char *name = str_item(it, "variant_name");
		if (!name)
			continue;
		const char *be = str_item(it, "reference_backend");
		if (!be)
			be = str_item(cJSON_GetObjectItemCaseSensitive(per, name), "winner");
		push(&m->vnames, &a, name);
		push(&m->vbackends, &b, be);
	}
	m->nv = a;
	cJSON_Delete(root);
	return 0;
}

static void amap_free(struct amap *m)
{
	strv_free(m->keys);
	strv_free(m->vals);
	for (size_t i = 0; i < m->nv; i++)
		free(m->vbackends[i]);
	free(m->vbackends);
	strv_free(m->vnames);
	free(m->backend);
	free(m->kernel);
}

/* Does config key `cfg` (tokens split at '-') start with, or contain in
 * order, every token of `key`? */
static bool tokens_match(const char *cfg, const char *key, bool prefix)
{
	size_t nc, nk;
	char **c = str_split(cfg, '-', true, &nc), **k = str_split(key, '-', true, &nk);
	size_t j = 0;
	bool ok = nk > 0;
	for (size_t i = 0; ok && j < nk && i < nc; i++) {
		if (!strcasecmp(c[i], k[j]))
			j++;
		else if (prefix)
			ok = false;
	}
	ok = ok && j == nk;
	strv_free(c);
	strv_free(k);
	return ok;
}

static const char *amap_variant(const struct amap *m, const char *config)
{
	char *cfg = xstrdup(config);
	char *sp = strstr(cfg, " backward");
	if (sp)
		*sp = 0;
	const char *found = NULL;
	for (int pass = 0; pass < 3 && !found; pass++)
		for (size_t i = 0; i < m->n && !found; i++)
			if (pass == 0 ? !strcasecmp(cfg, m->keys[i])
				      : tokens_match(cfg, m->keys[i], pass == 1))
				found = m->vals[i];
	free(cfg);
	return found;
}

static const char *amap_backend(const struct amap *m, const char *variant)
{
	for (size_t i = 0; variant && i < m->nv; i++)
		if (!strcmp(m->vnames[i], variant) && m->vbackends[i])
			return m->vbackends[i];
	return m->backend;
}

/* Variant names shown only when the kernel has several. */
static bool amap_multi(const struct amap *m)
{
	if (m->nv > 1)
		return true;
	for (size_t i = 1; i < m->n; i++)
		if (strcmp(m->vals[i], m->vals[0]))
			return true;
	return false;
}

/* "triton" names the backend a log calls "triton_tileir" too. */
static bool backend_is(const char *log_name, const char *want)
{
	if (!log_name || !want)
		return false;
	size_t n = strlen(want);
	return !strcmp(log_name, want) || (!strncmp(log_name, want, n) && log_name[n] == '_') ||
	       (!strncmp(want, log_name, strlen(log_name)) && want[strlen(log_name)] == '_');
}

/* ---- records of one side ---- */

struct rec_ref {
	const struct perf_record *r;
	const char *file;
	size_t idx; /* in file order over the side */
};

/* One side's records in file order (v) and by configuration (sorted, file
 * order within one configuration), so that pairing thousands of
 * configurations is not quadratic. */
struct side_recs {
	struct perf_log *logs;
	size_t nlogs;
	struct rec_ref *v, *sorted;
	size_t n;
	bool *paired; /* per idx: its configuration has a row */
};

static int cmp_ref(const void *a, const void *b)
{
	const struct rec_ref *x = a, *y = b;
	int c = strcmp(x->r->config, y->r->config);
	return c ? c : (x->idx > y->idx) - (x->idx < y->idx);
}

static int load_side(char *const *files, const char *what, struct side_recs *s,
		     struct perf_table *t, struct tp_err *err)
{
	memset(s, 0, sizeof(*s));
	size_t nf = strv_len(files);
	if (!nf) {
		tp_err_set(err, TP_EXIT_USAGE, "no %s perf log given", what);
		return -1;
	}
	s->logs = xcalloc(nf, sizeof(*s->logs));
	size_t cap = 0;
	for (size_t i = 0; i < nf; i++) {
		struct perf_log *log = &s->logs[i];
		if (perflog_load(files[i], log, err) < 0)
			return -1;
		s->nlogs++;
		if (!log->nrecs) {
			tp_err_set(err, TP_EXIT_USAGE,
				   "%s: no '" PERFLOG_MARKER "' section (was pytest run with -sv "
				   "--print-record?)", files[i]);
			return -1;
		}
		for (size_t j = 0; j < log->nnotes; j++)
			perf_table_note(t, "%s:%d: %s", files[i], log->notes[j].line,
					log->notes[j].msg);
		for (size_t j = 0; j < log->nrecs; j++) {
			s->v = xgrow(s->v, &cap, s->n + 1, sizeof(*s->v));
			s->v[s->n] = (struct rec_ref){&log->recs[j], files[i], s->n};
			s->n++;
		}
	}
	s->sorted = xmalloc((s->n + 1) * sizeof(*s->sorted));
	memcpy(s->sorted, s->v, s->n * sizeof(*s->sorted));
	qsort(s->sorted, s->n, sizeof(*s->sorted), cmp_ref);
	s->paired = xcalloc(s->n + 1, sizeof(*s->paired));
	return 0;
}

static void free_side(struct side_recs *s)
{
	for (size_t i = 0; i < s->nlogs; i++)
		perflog_free(&s->logs[i]);
	free(s->logs);
	free(s->v);
	free(s->sorted);
	free(s->paired);
}

/* The sorted block of one configuration: [*first, return). */
static size_t block(const struct side_recs *s, const char *config, size_t *first)
{
	size_t lo = 0, hi = s->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(s->sorted[mid].r->config, config) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*first = lo;
	while (hi < s->n && !strcmp(s->sorted[hi].r->config, config))
		hi++;
	return hi < lo ? lo : hi;
}

/* The candidate's backend: cutile_rs when present, else the commonest. */
static const char *main_backend(const struct side_recs *s)
{
	struct backend_count {
		const char *name;
		size_t n;
	} seen[16];
	size_t ns = 0;
	for (size_t i = 0; i < s->n; i++) {
		const char *b = s->v[i].r->backend;
		if (!b || !*b)
			continue;
		if (!strcmp(b, "cutile_rs"))
			return b;
		size_t k = 0;
		while (k < ns && strcmp(seen[k].name, b))
			k++;
		if (k == ns && ns < TP_ARRAY_LEN(seen))
			seen[ns++] = (struct backend_count){b, 0};
		if (k < ns)
			seen[k].n++;
	}
	const char *best = "";
	size_t bestn = 0;
	for (size_t k = 0; k < ns; k++)
		if (seen[k].n > bestn)
			best = seen[k].name, bestn = seen[k].n;
	return best;
}

/* The first record (in file order) of a configuration and backend. */
static const struct rec_ref *find(const struct side_recs *s, const char *config,
				  const char *backend, bool any_backend)
{
	size_t first, end = block(s, config, &first);
	for (size_t i = first; i < end; i++)
		if (any_backend || backend_is(s->sorted[i].r->backend, backend))
			return &s->v[s->sorted[i].idx];
	return NULL;
}

static void mark_paired(struct side_recs *s, const char *config)
{
	size_t first, end = block(s, config, &first);
	for (size_t i = first; i < end; i++)
		s->paired[s->sorted[i].idx] = true;
}

static void fill(struct perf_side *d, const struct rec_ref *rr)
{
	const struct perf_record *r = rr->r;
	d->ms = r->problem ? NAN : r->st.median;
	d->noise = r->st.noise;
	d->rel_std = r->st.rel_std;
	d->n = r->st.nrep;
	d->kernels = r->st.kernels;
	d->backend = r->backend && *r->backend ? xstrdup(r->backend) : NULL;
	d->file = xstrdup(rr->file);
	d->line = r->line;
}

/* Backends among the baseline records, the candidate's own left out when
 * others exist (a log of every backend given as the baseline). */
static char **base_backends(const struct side_recs *b, const char *cand)
{
	char **v = NULL;
	size_t n = 0;
	bool other = false;
	for (size_t i = 0; i < b->n; i++)
		other = other || (b->v[i].r->backend && *b->v[i].r->backend &&
				  strcmp(b->v[i].r->backend, cand));
	for (size_t i = 0; i < b->n; i++) {
		const char *be = b->v[i].r->backend;
		if (!be || !*be || (other && !strcmp(be, cand)))
			continue;
		bool seen = false;
		for (size_t j = 0; j < n && !seen; j++)
			seen = !strcmp(v[j], be);
		if (!seen)
			push(&v, &n, be);
	}
	return v;
}

/* Stage A's rule without analysis.json: per variant, the backend with the
 * lowest geomean over the configurations every backend measured. */
static const char *auto_backend(const struct side_recs *b, char **backends, const struct amap *m,
				const char *variant)
{
	size_t nb = strv_len(backends);
	if (nb <= 1)
		return nb ? backends[0] : NULL;
	double *sum = xcalloc(nb, sizeof(*sum));
	for (size_t i = 0; i < b->n; i++) {
		const struct perf_record *r = b->v[i].r;
		const char *rv = amap_variant(m, r->config);
		if (!backend_is(r->backend, backends[0]) || isnan(r->st.median) ||
		    (variant && (!rv || strcmp(rv, variant))))
			continue;
		double lg[64];
		bool all = true;
		for (size_t k = 0; k < nb && k < 64 && all; k++) {
			const struct rec_ref *o = find(b, r->config, backends[k], false);
			all = o && !isnan(o->r->st.median) && o->r->st.median > 0;
			lg[k] = all ? log(o->r->st.median) : 0;
		}
		for (size_t k = 0; all && k < nb && k < 64; k++)
			sum[k] += lg[k];
	}
	size_t best = 0;
	for (size_t k = 1; k < nb; k++)
		if (sum[k] < sum[best])
			best = k;
	free(sum);
	return backends[best];
}

static char *why_of(const char *side, const struct rec_ref *rr)
{
	return xasprintf("%s: %s:%d: %s", side, rr->file, perf_record_problem_line(rr->r), rr->r->problem);
}

/* What pairing one configuration needs, and stage A's rule applied once
 * per variant (it reads every baseline record). */
struct pairing {
	struct side_recs base, cand;
	const char *cb;  /* the candidate's backend */
	char **backends; /* the baseline's */
	struct amap m;
	struct auto_pick {
		const char *variant, *backend;
	} *picks;
	size_t npicks;
};

static const char *picked_backend(struct pairing *p, const char *variant)
{
	for (size_t i = 0; i < p->npicks; i++)
		if (p->picks[i].variant == variant ||
		    (variant && p->picks[i].variant && !strcmp(p->picks[i].variant, variant)))
			return p->picks[i].backend;
	p->picks = xrealloc(p->picks, (p->npicks + 1) * sizeof(*p->picks));
	const char *b = auto_backend(&p->base, p->backends, &p->m, variant);
	p->picks[p->npicks++] = (struct auto_pick){variant, b};
	return b;
}

static void pair_row(struct perf_table *t, struct pairing *p, const char *config)
{
	const struct side_recs *base = &p->base, *cand = &p->cand;
	const struct amap *m = &p->m;
	const char *cb = p->cb;
	struct perf_row *row = perf_table_add(t, config);
	const char *variant = amap_variant(m, config);
	if (variant && amap_multi(m))
		row->variant = xstrdup(variant);
	const struct rec_ref *c = find(cand, config, cb, !*cb);
	const char *want = amap_backend(m, variant);
	bool from_analysis = want != NULL;
	if (!want)
		want = picked_backend(p, variant);
	const struct rec_ref *b = want ? find(base, config, want, false) : NULL;
	if (!b && !from_analysis)
		b = find(base, config, NULL, true);
	if (c)
		fill(&row->cand, c);
	if (b)
		fill(&row->base, b);
	if (!c)
		row->why = xstrdup("no candidate record");
	else if (!b && from_analysis && find(base, config, NULL, true))
		row->why = xasprintf("no %s baseline record (the %s winner in analysis.json)", want,
				     variant ? "variant's" : "kernel's");
	else if (!b)
		row->why = xstrdup("no baseline record");
	else if (c->r->problem)
		row->why = why_of("candidate", c);
	else if (b->r->problem)
		row->why = why_of("baseline", b);
}

/* "tests/ops/test_softmax.py::..." names the operator softmax. */
static char *kernel_of_test(const char *test)
{
	const char *py = test ? strstr(test, ".py::") : NULL;
	if (!py)
		return NULL;
	const char *a = py;
	while (a > test && a[-1] != '/')
		a--;
	if (!str_starts(a, "test_") || a + 5 >= py)
		return NULL;
	return xstrndup(a + 5, (size_t)(py - a - 5));
}

/* Records measured twice (same configuration and backend): the first is
 * used; different numbers are worth a note. */
static void note_duplicates(struct perf_table *t, const struct side_recs *s)
{
	for (size_t i = 0; i < s->n;) {
		size_t first, end = block(s, s->sorted[i].r->config, &first);
		for (size_t a = first; a < end; a++)
			for (size_t b = a + 1; b < end; b++) {
				const struct perf_record *x = s->sorted[a].r, *y = s->sorted[b].r;
				if (strcmp(x->backend, y->backend) || x->st.median == y->st.median)
					continue;
				perf_table_note(t, "%s:%d: %s %s measured again; the first record "
						"(%s:%d) is used", s->sorted[b].file, y->line, y->backend,
						y->config, s->sorted[a].file, x->line);
			}
		i = end > i ? end : i + 1;
	}
}

int perf_compare(char *const *base_files, char *const *cand_files, const char *analysis,
		 struct perf_table *t, struct tp_err *err)
{
	perf_table_init(t);
	size_t n = 0;
	for (size_t i = 0; base_files && base_files[i]; i++)
		push(&t->base_files, &n, base_files[i]);
	n = 0;
	for (size_t i = 0; cand_files && cand_files[i]; i++)
		push(&t->cand_files, &n, cand_files[i]);
	t->analysis = analysis ? xstrdup(analysis) : NULL;
	struct pairing p;
	memset(&p, 0, sizeof(p));
	int rc = -1;
	if (amap_load(analysis, &p.m, err) < 0)
		return -1;
	if (load_side(base_files, "baseline", &p.base, t, err) < 0 ||
	    load_side(cand_files, "candidate", &p.cand, t, err) < 0)
		goto out;
	p.cb = main_backend(&p.cand);
	p.backends = base_backends(&p.base, p.cb);
	note_duplicates(t, &p.base);
	note_duplicates(t, &p.cand);
	for (size_t i = 0; i < p.cand.n; i++) {
		const struct perf_record *r = p.cand.v[i].r;
		if (*p.cb && r->backend && *r->backend && strcmp(r->backend, p.cb)) {
			perf_table_note(t, "%s:%d: %s record in the candidate log ignored (the "
					"candidate is %s)", p.cand.v[i].file, r->line, r->backend, p.cb);
			continue;
		}
		if (!p.cand.paired[i]) {
			pair_row(t, &p, r->config);
			mark_paired(&p.cand, r->config);
			mark_paired(&p.base, r->config);
		}
	}
	for (size_t i = 0; i < p.base.n; i++) {
		const struct perf_record *r = p.base.v[i].r;
		bool ours = !p.backends;
		for (size_t k = 0; p.backends && p.backends[k] && !ours; k++)
			ours = backend_is(r->backend, p.backends[k]);
		if (ours && !p.base.paired[i]) {
			pair_row(t, &p, r->config);
			mark_paired(&p.base, r->config);
		}
	}
	free(t->cand_name);
	t->cand_name = xstrdup(p.cb);
	/* the baseline backends the rows use, in order of first use */
	struct sbuf names = SBUF_INIT;
	for (size_t i = 0; i < t->nrows; i++) {
		const char *be = t->rows[i].base.backend;
		if (!be)
			continue;
		bool dup = false;
		for (size_t j = 0; j < i && !dup; j++)
			dup = t->rows[j].base.backend && !strcmp(t->rows[j].base.backend, be);
		if (!dup)
			sb_printf(&names, "%s%s", names.len ? "/" : "", be);
	}
	free(t->base_name);
	t->base_name = sb_detach(&names);
	if (p.m.kernel)
		t->kernel = xstrdup(p.m.kernel);
	for (size_t i = 0; !t->kernel && i < p.cand.n; i++)
		t->kernel = kernel_of_test(p.cand.v[i].r->test);
	perf_table_finish(t);
	rc = 0;
out:
	strv_free(p.backends);
	free(p.picks);
	free_side(&p.base);
	free_side(&p.cand);
	amap_free(&p.m);
	return rc;
}

/* ---- a run directory ---- */

static void add_glob(char ***v, size_t *n, const char *dir, const char *pattern)
{
	char *pat = path_join(dir, pattern);
	glob_t g;
	if (glob(pat, 0, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc; i++)
			if (file_nonempty(g.gl_pathv[i]))
				push(v, n, g.gl_pathv[i]);
		globfree(&g);
	}
	free(pat);
}

int perf_compare_run(const char *run_dir, struct perf_table *t, struct tp_err *err)
{
	char **base = NULL, **cand = NULL;
	size_t nb = 0, nc = 0;
	add_glob(&base, &nb, run_dir, "baseline_perf_cutile.txt");
	add_glob(&base, &nb, run_dir, "baseline_perf_triton_tileir.txt");
	if (!nb)
		add_glob(&base, &nb, run_dir, "baseline_perf.txt");
	add_glob(&cand, &nc, run_dir, "perf_cutile_rs.txt");
	add_glob(&cand, &nc, run_dir, "perf_cutile_rs_*.txt");
	char *analysis = path_join(run_dir, "reference/analysis.json");
	int rc;
	if (!nb || !nc) {
		perf_table_init(t);
		tp_err_set(err, TP_EXIT_USAGE, "%s: no %s perf log yet (%s)", run_dir,
			   nb ? "candidate" : "baseline",
			   nb ? "perf_cutile_rs.txt: stage E writes it"
			      : "baseline_perf_cutile.txt: stage A writes it");
		rc = -1;
	} else {
		rc = perf_compare(base, cand, path_is_file(analysis) ? analysis : NULL, t, err);
	}
	if (rc == 0) {
		t->run_dir = xstrdup(run_dir);
		if (!t->kernel)
			t->kernel = xstrdup(strrchr(run_dir, '/') ? strrchr(run_dir, '/') + 1 : run_dir);
	}
	free(analysis);
	strv_free(base);
	strv_free(cand);
	return rc;
}

int perf_table_reload(struct perf_table *t, struct tp_err *err)
{
	struct perf_table fresh;
	int rc;
	if (t->run_dir) {
		char *dir = xstrdup(t->run_dir);
		rc = perf_compare_run(dir, &fresh, err);
		free(dir);
	} else if (t->base_files && t->cand_files) {
		rc = perf_compare(t->base_files, t->cand_files, t->analysis, &fresh, err);
	} else {
		tp_err_set(err, TP_EXIT_USAGE, "this table has no files to read again");
		return -1;
	}
	if (rc < 0) {
		perf_table_free(&fresh);
		return -1;
	}
	perf_table_free(t);
	*t = fresh;
	return 0;
}
