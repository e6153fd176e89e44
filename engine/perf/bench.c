/* Running the ABBA rounds and turning their traces into the table. Every
 * process gets its own trace name (DIR/NN-SIDE.%p.trace, NN its place in
 * the run), so a directory is enough to compute everything again
 * (bench_load_dir). */
#include "engine/perf/bench.h"

#include <glob.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "engine/base/files.h"
#include "engine/base/proc.h"
#include "engine/perf/stats.h"
#include "engine/perf/trace.h"
#include "engine/perf/trace_format.h"

#ifndef TILEPORT_LIBDIR
#define TILEPORT_LIBDIR "/usr/local/lib/tileport"
#endif

#define LIB_NAME "libtileport_cupti.so"

static const char *const side_word[2] = {"ref", "cand"};
static const char *const side_long[2] = {"reference", "candidate"};

char *bench_find_library(void)
{
	const char *env = getenv("TILEPORT_CUPTI_LIB");
	if (env && *env)
		return path_is_file(env) ? xstrdup(env) : NULL;
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = 0;
		char *slash = strrchr(exe, '/');
		if (slash) {
			*slash = 0;
			char *here = path_join(exe, LIB_NAME);
			if (path_is_file(here))
				return here;
			free(here);
			char *inst = xasprintf("%s/../lib/tileport/%s", exe, LIB_NAME);
			if (path_is_file(inst))
				return inst;
			free(inst);
		}
	}
	char *def = path_join(TILEPORT_LIBDIR, LIB_NAME);
	if (path_is_file(def))
		return def;
	free(def);
	return NULL;
}

/* ---- one process ---- */

static void progress(const struct bench_opts *o, const char *fmt, ...) TP_PRINTF(2, 3);
static void progress(const struct bench_opts *o, const char *fmt, ...)
{
	if (!o->progress)
		return;
	va_list ap;
	va_start(ap, fmt);
	char *m = xvasprintf(fmt, ap);
	va_end(ap);
	o->progress(o->ud, m);
	free(m);
}

static char **traces_of(const char *dir, int seq, enum bench_side side, const char *suffix)
{
	char *pat = xasprintf("%s/%02d-%s.*.trace%s", dir, seq, side_word[side], suffix);
	glob_t g;
	char **v = xcalloc(1, sizeof(*v));
	size_t n = 0;
	if (glob(pat, 0, NULL, &g) == 0) {
		v = xrealloc(v, (g.gl_pathc + 1) * sizeof(*v));
		for (size_t i = 0; i < g.gl_pathc; i++)
			v[n++] = xstrdup(g.gl_pathv[i]);
		v[n] = NULL;
		globfree(&g);
	}
	free(pat);
	return v;
}

static int run_one(const struct bench_opts *o, struct bench_proc *p, struct tp_err *err)
{
	char *trace = xasprintf("%s/%02d-%s.%%p.trace", o->dir, p->seq, side_word[p->side]);
	char seq[16], round[16];
	snprintf(seq, sizeof(seq), "%d", p->seq);
	snprintf(round, sizeof(round), "%d", p->round);
	char **env = env_current();
	env_set(&env, TRACE_ENV, trace);
	env_set(&env, "TILEPORT_BENCH_SIDE", side_word[p->side]);
	env_set(&env, "TILEPORT_BENCH_SEQ", seq);
	env_set(&env, "TILEPORT_BENCH_ROUND", round);
	/* a Kineto daemon would subscribe to CUPTI before us (one subscriber) */
	env_unset(&env, "KINETO_USE_DAEMON");
	if (o->inject)
		env_set(&env, "CUDA_INJECTION64_PATH", o->inject);
	char *argv[] = {"/bin/sh", "-c", (char *)o->cmd[p->side], NULL};
	struct proc_opts po = {.argv = argv, .env = env, .timeout_ms = o->timeout_ms};
	struct sbuf out = SBUF_INIT;
	struct proc_status st;
	int gpu = gpu_default_index();
	gpu_snapshot(gpu, &p->before);
	progress(o, "round %d: %s (process %d)", p->round + 1, side_long[p->side], p->seq + 1);
	int rc = proc_run_sync(&po, &out, &out, &st, err);
	gpu_snapshot(gpu, &p->after);
	char *log = xasprintf("%s/%02d-%s.log", o->dir, p->seq, side_word[p->side]);
	struct tp_err werr;
	if (write_file_atomic(log, out.buf ? out.buf : "", out.len, &werr) < 0)
		fprintf(stderr, "tileport bench: %s\n", werr.msg);
	char buf[96];
	if (rc == 0) {
		proc_status_str(&st, buf, sizeof(buf));
		p->status = xstrdup(buf);
		p->ok = st.end == PROC_EXITED && st.code == 0;
	}
	if (rc == 0 && !p->ok)
		tp_err_set(err, TP_EXIT_ENV, "the %s command failed (%s); its output is in %s",
			   side_long[p->side], p->status, log);
	if (rc == 0 && p->ok) {
		p->traces = traces_of(o->dir, p->seq, p->side, "");
		if (!p->traces[0]) {
			char **partial = traces_of(o->dir, p->seq, p->side, TRACE_PARTIAL_SUFFIX);
			if (partial[0])
				tp_err_set(err, TP_EXIT_ENV, "%s was never flushed: the %s process left "
					   "without running its exit handlers (os._exit?); call "
					   "tileport_cupti_flush() before leaving", partial[0],
					   side_long[p->side]);
			else if (o->inject)
				tp_err_set(err, TP_EXIT_ENV, "the %s command wrote no trace (%s): it "
					   "did not initialise CUDA, or %s was not loaded; see %s",
					   side_long[p->side], trace, o->inject, log);
			else
				tp_err_set(err, TP_EXIT_ENV, "the %s command wrote no trace: with "
					   "--inject none it writes $%s itself (%s)", side_long[p->side],
					   TRACE_ENV, trace);
			strv_free(partial);
			p->ok = false;
		}
	}
	if (rc == 0 && p->ok)
		progress(o, "round %d: %s done, %s", p->round + 1, side_long[p->side], p->status);
	free(log);
	sb_free(&out);
	strv_free(env);
	free(trace);
	return p->ok ? 0 : -1;
}

/* ---- samples ---- */

static struct bench_config *config_of(struct bench_result *r, const char *name)
{
	for (size_t i = 0; i < r->nconfigs; i++)
		if (!strcmp(r->configs[i].config, name))
			return &r->configs[i];
	r->configs = xrealloc(r->configs, (r->nconfigs + 1) * sizeof(*r->configs));
	struct bench_config *c = &r->configs[r->nconfigs++];
	memset(c, 0, sizeof(*c));
	c->config = xstrdup(name);
	return c;
}

/* Append a trace's iterations to process `pidx`'s group on one side. */
static void add_samples(struct bench_samples *s, size_t pidx, const struct trace_config *k)
{
	while (s->nprocs <= pidx) {
		s->ns = xrealloc(s->ns, (s->nprocs + 1) * sizeof(*s->ns));
		s->n = xrealloc(s->n, (s->nprocs + 1) * sizeof(*s->n));
		s->ns[s->nprocs] = NULL;
		s->n[s->nprocs] = 0;
		s->nprocs++;
	}
	if (!k->n)
		return; /* a range without iterations: the process has none */
	s->ns[pidx] = xrealloc(s->ns[pidx], (s->n[pidx] + k->n + 1) * sizeof(double));
	memcpy(s->ns[pidx] + s->n[pidx], k->ns, k->n * sizeof(double));
	s->n[pidx] += k->n;
	s->ops = xrealloc(s->ops, (s->nops + k->n + 1) * sizeof(double));
	memcpy(s->ops + s->nops, k->ops, k->n * sizeof(double));
	s->nops += k->n;
	if (k->top_kernel && !s->top_kernel)
		s->top_kernel = xstrdup(k->top_kernel);
}

static size_t total(const struct bench_samples *s)
{
	size_t t = 0;
	for (size_t i = 0; i < s->nprocs; i++)
		t += s->n[i];
	return t;
}

/* All of a side's samples in one array (caller frees). */
static double *pooled(const struct bench_samples *s, size_t *n)
{
	*n = total(s);
	double *v = xmalloc((*n + 1) * sizeof(*v)), *p = v;
	for (size_t i = 0; i < s->nprocs; i++) {
		if (s->n[i])
			memcpy(p, s->ns[i], s->n[i] * sizeof(*v));
		p += s->n[i];
	}
	return v;
}

static void side_stats(const struct bench_samples *s, const char *name, struct perf_side *d)
{
	size_t n;
	double *v = pooled(s, &n);
	if (n) {
		d->rel_std = 100.0 * stats_stdev(v, n) / stats_mean(v, n);
		d->noise = stats_rel_iqr(v, n);
		d->ms = stats_median(v, n) / 1e6;
		d->n = (long)n;
		double *ops = xmalloc(s->nops * sizeof(*ops));
		memcpy(ops, s->ops, s->nops * sizeof(*ops));
		d->kernels = stats_median(ops, s->nops);
		free(ops);
	}
	d->backend = xstrdup(name);
	free(v);
}

static int read_traces(struct bench_result *r, struct tp_err *err)
{
	struct perf_table *t = &r->table;
	/* process index within its side, for the bootstrap's groups */
	size_t idx[2] = {0, 0};
	for (size_t i = 0; i < r->nprocs; i++) {
		struct bench_proc *p = &r->procs[i];
		size_t pidx = idx[p->side]++;
		for (size_t j = 0; p->traces && p->traces[j]; j++) {
			struct trace tr;
			if (trace_load(p->traces[j], &tr, err) < 0) {
				trace_free(&tr);
				return -1;
			}
			for (size_t e = 0; tr.errors && tr.errors[e]; e++)
				perf_table_note(t, "%s: the library reported: %s", tr.path, tr.errors[e]);
			if (tr.dropped)
				perf_table_note(t, "%s: CUPTI dropped %llu records: iterations may be "
						"missing", tr.path, (unsigned long long)tr.dropped);
			if (tr.no_timestamp)
				perf_table_note(t, "%s: %zu operations without timestamps left out",
						tr.path, tr.no_timestamp);
			if (!tr.flushed || tr.truncated)
				perf_table_note(t, "%s: %s", tr.path, tr.truncated
						? "ends in a cut line (the process was killed?)"
						: "has no flush record (the process did not exit cleanly)");
			struct trace_configs cs;
			trace_assign(&tr, r->flush_bytes, &cs);
			for (size_t k = 0; k < cs.n; k++)
				add_samples(&config_of(r, cs.v[k].config)->side[p->side], pidx, &cs.v[k]);
			for (size_t k = 0; k < cs.nnotes; k++)
				perf_table_note(t, "%s", cs.notes[k]);
			trace_configs_free(&cs);
			trace_free(&tr);
		}
	}
	return 0;
}

static void build_table(struct bench_result *r)
{
	struct perf_table *t = &r->table;
	free(t->base_name);
	free(t->cand_name);
	t->base_name = xstrdup(r->name[BENCH_REF]);
	t->cand_name = xstrdup(r->name[BENCH_CAND]);
	size_t np = 0;
	struct stats_groups *g[2] = {xcalloc(r->nconfigs + 1, sizeof(struct stats_groups)),
				     xcalloc(r->nconfigs + 1, sizeof(struct stats_groups))};
	for (size_t i = 0; i < r->nconfigs; i++) {
		const struct bench_config *c = &r->configs[i];
		struct perf_row *row = perf_table_add(t, c->config);
		side_stats(&c->side[BENCH_REF], r->name[BENCH_REF], &row->base);
		side_stats(&c->side[BENCH_CAND], r->name[BENCH_CAND], &row->cand);
		for (int s = 0; s < 2 && !row->why; s++)
			if (!total(&c->side[s]))
				row->why = xasprintf("no samples from the %s (no range %s%s, or "
						     "nothing measured in it)", side_long[s],
						     TRACE_RANGE_PREFIX, c->config);
		if (row->why)
			continue;
		for (int s = 0; s < 2; s++)
			g[s][np] = (struct stats_groups){(const double *const *)c->side[s].ns,
							 c->side[s].n, c->side[s].nprocs};
		np++;
	}
	struct stats_boot b;
	if (np && stats_bootstrap_geomean(g[BENCH_REF], g[BENCH_CAND], np, r->resamples, 0.95,
					  r->seed, &b) == 0) {
		t->ci_lo = b.lo;
		t->ci_hi = b.hi;
		t->ci_how = xasprintf("bootstrap: %d resamples of the processes, then of their "
				      "samples; seed %llu", r->resamples, (unsigned long long)r->seed);
	}
	t->strict_ci = true;
	free(g[0]);
	free(g[1]);
	perf_table_finish(t);
}

static void result_init(struct bench_result *r, const struct bench_opts *o)
{
	memset(r, 0, sizeof(*r));
	perf_table_init(&r->table);
	for (int s = 0; s < 2; s++) {
		r->cmd[s] = xstrdup(o->cmd[s] ? o->cmd[s] : "");
		r->name[s] = xstrdup(o->name[s] && *o->name[s] ? o->name[s] : side_word[s]);
	}
	r->rounds = o->rounds;
	r->flush_bytes = o->flush_bytes ? o->flush_bytes : TRACE_FLUSH_BYTES;
	r->seed = o->seed;
	r->resamples = o->resamples > 0 ? o->resamples : STATS_BOOT_RESAMPLES;
}

int bench_run(const struct bench_opts *o, struct bench_result *r, struct tp_err *err)
{
	result_init(r, o);
	if (!o->cmd[0] || !o->cmd[1] || o->rounds < 1) {
		tp_err_set(err, TP_EXIT_USAGE, "bench: a reference and a candidate command and "
			   "at least one round are needed");
		return -1;
	}
	if (mkdir_p(o->dir, 0755, err) < 0)
		return -1;
	static const enum bench_side abba[4] = {BENCH_REF, BENCH_CAND, BENCH_CAND, BENCH_REF};
	r->procs = xcalloc((size_t)o->rounds * 4, sizeof(*r->procs));
	for (int round = 0; round < o->rounds; round++)
		for (int k = 0; k < 4; k++) {
			struct bench_proc *p = &r->procs[r->nprocs++];
			p->seq = round * 4 + k;
			p->round = round;
			p->side = abba[k];
			if (run_one(o, p, err) < 0)
				return -1;
		}
	if (read_traces(r, err) < 0)
		return -1;
	build_table(r);
	return 0;
}

void bench_result_free(struct bench_result *r)
{
	for (size_t i = 0; i < r->nprocs; i++) {
		free(r->procs[i].status);
		strv_free(r->procs[i].traces);
	}
	for (size_t i = 0; i < r->nconfigs; i++) {
		struct bench_config *c = &r->configs[i];
		for (int s = 0; s < 2; s++) {
			for (size_t p = 0; p < c->side[s].nprocs; p++)
				free(c->side[s].ns[p]);
			free(c->side[s].ns);
			free(c->side[s].n);
			free(c->side[s].ops);
			free(c->side[s].top_kernel);
		}
		free(c->config);
	}
	free(r->procs);
	free(r->configs);
	for (int s = 0; s < 2; s++) {
		free(r->cmd[s]);
		free(r->name[s]);
	}
	perf_table_free(&r->table);
	memset(r, 0, sizeof(*r));
}

/* ---- a directory written before ---- */

static void gpu_from_json(const cJSON *o, struct gpu_snapshot *s)
{
	memset(s, 0, sizeof(*s));
	s->sm_mhz = s->max_sm_mhz = s->temp_c = -1;
	s->power_w = NAN;
	const cJSON *v;
	if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "ok"))) {
		v = cJSON_GetObjectItemCaseSensitive(o, "problem");
		snprintf(s->problem, sizeof(s->problem), "%s",
			 cJSON_IsString(v) ? v->valuestring : "not recorded");
		return;
	}
	s->ok = true;
#define NUM(f, name)                                                       \
	if (cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(o, name))) \
	s->f = v->valueint
#define STR(f, name)                                                       \
	if (cJSON_IsString(v = cJSON_GetObjectItemCaseSensitive(o, name))) \
	snprintf(s->f, sizeof(s->f), "%s", v->valuestring)
	NUM(index, "index");
	NUM(sm_mhz, "sm_mhz");
	NUM(max_sm_mhz, "max_sm_mhz");
	NUM(temp_c, "temp_c");
	STR(name, "name");
	STR(driver, "driver");
	STR(reasons, "clocks_event_reasons");
#undef NUM
#undef STR
	if (cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(o, "power_w")))
		s->power_w = v->valuedouble;
}

/* bench.json, when the directory has one: commands, names, the
 * processes' status and GPU readings. */
static void read_manifest(const char *dir, const struct bench_opts *o, struct bench_result *r)
{
	char *p = path_join(dir, "bench.json");
	char *text = read_file(p, NULL, NULL);
	free(p);
	cJSON *root = text ? cJSON_Parse(text) : NULL;
	free(text);
	if (!root)
		return;
	for (int s = 0; s < 2; s++) {
		const cJSON *side = cJSON_GetObjectItemCaseSensitive(root, s ? "candidate" : "reference");
		const cJSON *c = cJSON_GetObjectItemCaseSensitive(side, "command");
		const cJSON *n = cJSON_GetObjectItemCaseSensitive(side, "name");
		if (cJSON_IsString(c))
			free(r->cmd[s]), r->cmd[s] = xstrdup(c->valuestring);
		if (cJSON_IsString(n) && !(o->name[s] && *o->name[s]))
			free(r->name[s]), r->name[s] = xstrdup(n->valuestring);
	}
	const cJSON *rounds = cJSON_GetObjectItemCaseSensitive(root, "rounds"), *it;
	if (cJSON_IsNumber(rounds))
		r->rounds = rounds->valueint;
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(root, "processes")) {
		const cJSON *seq = cJSON_GetObjectItemCaseSensitive(it, "seq");
		for (size_t i = 0; cJSON_IsNumber(seq) && i < r->nprocs; i++) {
			struct bench_proc *bp = &r->procs[i];
			if (bp->seq != seq->valueint)
				continue;
			const cJSON *st = cJSON_GetObjectItemCaseSensitive(it, "status");
			if (cJSON_IsString(st))
				free(bp->status), bp->status = xstrdup(st->valuestring);
			gpu_from_json(cJSON_GetObjectItemCaseSensitive(it, "gpu_before"), &bp->before);
			gpu_from_json(cJSON_GetObjectItemCaseSensitive(it, "gpu_after"), &bp->after);
		}
	}
	cJSON_Delete(root);
}

int bench_load_dir(const char *dir, const struct bench_opts *o, struct bench_result *r,
		   struct tp_err *err)
{
	result_init(r, o);
	char *pat = path_join(dir, "[0-9]*-*.trace*");
	glob_t g;
	int gr = glob(pat, 0, NULL, &g);
	free(pat);
	if (gr != 0) {
		tp_err_set(err, TP_EXIT_USAGE, "%s: no NN-ref.PID.trace or NN-cand.PID.trace files "
			   "(what tileport bench --out DIR leaves)", dir);
		return -1;
	}
	int maxseq = -1;
	int rc = 0;
	for (size_t i = 0; i < g.gl_pathc && rc == 0; i++) {
		const char *base = strrchr(g.gl_pathv[i], '/');
		base = base ? base + 1 : g.gl_pathv[i];
		int seq = -1, used = 0;
		char side[8] = "";
		if (sscanf(base, "%d-%7[a-z].%*[0-9].trace%n", &seq, side, &used) < 2 || seq < 0 ||
		    (strcmp(side, "ref") && strcmp(side, "cand"))) {
			tp_err_set(err, TP_EXIT_USAGE, "%s: expected a name NN-ref.PID.trace or "
				   "NN-cand.PID.trace", g.gl_pathv[i]);
			rc = -1;
		} else if (str_ends(base, TRACE_PARTIAL_SUFFIX)) {
			tp_err_set(err, TP_EXIT_ENV, "%s was never flushed: its process left without "
				   "running its exit handlers", g.gl_pathv[i]);
			rc = -1;
		}
		maxseq = seq > maxseq ? seq : maxseq;
	}
	for (int seq = 0; rc == 0 && seq <= maxseq; seq++) {
		enum bench_side sides[2] = {BENCH_REF, BENCH_CAND};
		for (int k = 0; k < 2; k++) {
			char **t = traces_of(dir, seq, sides[k], "");
			if (!t[0]) {
				strv_free(t);
				continue;
			}
			r->procs = xrealloc(r->procs, (r->nprocs + 1) * sizeof(*r->procs));
			struct bench_proc *p = &r->procs[r->nprocs++];
			memset(p, 0, sizeof(*p));
			p->seq = seq;
			p->round = seq / 4;
			p->side = sides[k];
			p->ok = true;
			p->traces = t;
			snprintf(p->before.problem, sizeof(p->before.problem), "not recorded");
			snprintf(p->after.problem, sizeof(p->after.problem), "not recorded");
		}
	}
	globfree(&g);
	if (rc < 0)
		return -1;
	r->rounds = maxseq / 4 + 1;
	read_manifest(dir, o, r);
	if (read_traces(r, err) < 0)
		return -1;
	build_table(r);
	return 0;
}
