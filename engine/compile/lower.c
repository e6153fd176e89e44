/* The lowering half of `tileport compile`: rust/tileport-lower built once
 * per set of dependencies (its source from the data folder, its dependency
 * the workspace's cutile), one input line per specialisation, and its
 * result lines read into outputs and findings (docs/compile.md). */
#include "engine/compile/compile_int.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/base/files.h"
#include "engine/base/proc.h"

static void join_dims(struct sbuf *sb, const int64_t *v, int n)
{
	for (int i = 0; i < n; i++)
		sb_printf(sb, "%s%lld", i ? "x" : "", (long long)v[i]);
}

/* One line of the lowering program's input (rust/tileport-lower). */
static void job_line(struct sbuf *sb, const struct compile_spec *s, const char *kernel,
		     const char *target, const char *prefix)
{
	sb_printf(sb, "%s\t%s\t%s\t%s\t", s->label, kernel, s->module, s->entry);
	char *g = s->generics && s->generics[0] ? strv_join(s->generics, ",") : xstrdup("-");
	sb_printf(sb, "%s\t", g);
	free(g);
	if (!s->ntensors)
		sb_addc(sb, '-');
	for (size_t i = 0; i < s->ntensors; i++) {
		const struct compile_tensor *t = &s->tensors[i];
		sb_printf(sb, "%s%s:", i ? ";" : "", t->name);
		if (t->shape[0] > 0)
			join_dims(sb, t->shape, t->rank);
		else
			sb_addc(sb, '-');
		sb_addc(sb, ':');
		join_dims(sb, t->strides, t->rank);
	}
	char *sc = s->scalars && s->scalars[0] ? strv_join(s->scalars, ";") : xstrdup("-");
	sb_printf(sb, "\t%s\t-\t%s\t%s\n", sc, target, prefix);
	free(sc);
}

void compile_clear_generated(const char *gen)
{
	/* earlier lowerings: an entry that no longer exists must not leave
	 * its IR behind, nor a kernel rustc refuses */
	for (int sub = 0; sub < 2; sub++) {
		char *dir = sub ? path_join(gen, "supplements") : xstrdup(gen);
		DIR *d = opendir(dir);
		struct dirent *e;
		while (d && (e = readdir(d))) {
			if (str_starts(e->d_name, "generated") &&
			    (str_ends(e->d_name, ".mlir") || str_ends(e->d_name, ".tileirbc"))) {
				char *p = path_join(dir, e->d_name);
				unlink(p);
				free(p);
			}
		}
		if (d)
			closedir(d);
		free(dir);
	}
}

char *compile_lowerer(const struct compile_toolchain *tc, char **env, const char *cache,
		      const struct ws_deps *d, const struct compile_req *rq, struct compile_result *res,
		      struct tp_err *err)
{
	char *src = xasprintf("%s/rust/tileport-lower/src/main.rs", tp_data_dir());
	char *dir = path_join(cache, "lower");
	char *srcdir = path_join(dir, "src");
	char *main_rs = path_join(srcdir, "main.rs");
	char *manifest = path_join(dir, "Cargo.toml");
	char *exe = path_join(cache, "target/debug/tileport-lower");
	size_t len;
	char *text = read_text_file(src, &len, err);
	int rc = text ? mkdir_p(srcdir, 0755, err) : -1;
	if (rc == 0)
		rc = compile_write_if_changed(main_rs, text, err);
	if (rc == 0) {
		char *deps = xasprintf("%s\n", d->cutile_line);
		char *m = compile_manifest("tileport-lower", d, true, deps);
		rc = compile_write_if_changed(manifest, m, err);
		free(m);
		free(deps);
	}
	if (rc == 0) {
		if (!path_is_exec(exe))
			compile_progress(rq, "building the lowering program once for these crates (%s)", dir);
		char **argv = compile_cargo_argv(tc, "build", manifest);
		struct cjob j;
		struct loop *l = loop_new();
		rc = cjob_spawn(l, &j, argv, env, dir, NULL, 60LL * 60 * 1000, err);
		if (rc == 0) {
			struct cjob *one[] = {&j};
			cjob_wait(l, one, 1);
			struct compile_result mine = {0};
			rc = compile_cargo_read(&j, "build", manifest, PHASE_SETUP, NULL, &mine, err);
			res->build_ms = j.st.elapsed_ms;
			for (size_t i = 0; rc == 0 && i < mine.nf; i++)
				if (mine.f[i].error) {
					tp_err_set(err, TP_EXIT_ENV,
						   "the lowering program does not build against %s: %s:%d: %s",
						   d->from, mine.f[i].file ? mine.f[i].file : "?", mine.f[i].line,
						   mine.f[i].message);
					rc = -1;
				}
			compile_result_free(&mine);
		}
		cjob_free(&j);
		loop_free(l);
		strv_free(argv);
	}
	free(text);
	free(src);
	free(srcdir);
	free(main_rs);
	free(manifest);
	free(dir);
	if (rc < 0) {
		free(exe);
		return NULL;
	}
	return exe;
}

char *compile_lower_jobs(const struct compile_req *rq, const char *kernel, const char *cache,
			 const char *gen, struct tp_err *err)
{
	char *sup = path_join(gen, "supplements");
	int rc = mkdir_p(sup, 0755, err);
	free(sup);
	if (rc < 0)
		return NULL;
	compile_clear_generated(gen);
	struct sbuf jobs = SBUF_INIT;
	for (size_t i = 0; i < rq->nspecs; i++) {
		char *prefix = xasprintf("%s/%s", gen, rq->specs[i].label);
		job_line(&jobs, &rq->specs[i], kernel, rq->target ? rq->target : "sm_100", prefix);
		free(prefix);
	}
	char *path = xasprintf("%s/lower-jobs-%ld.txt", cache, (long)getpid());
	rc = write_file_atomic(path, jobs.buf, jobs.len, err);
	sb_free(&jobs);
	if (rc < 0) {
		free(path);
		return NULL;
	}
	return path;
}

static void add_output(struct compile_result *res, const struct compile_spec *s, const char *gen,
		       int64_t ms)
{
	size_t cap = res->nout;
	res->out = xgrow(res->out, &cap, res->nout + 1, sizeof(*res->out));
	struct compile_output *o = &res->out[res->nout++];
	o->label = xstrdup(s->label);
	o->entry = xstrdup(s->entry);
	o->variant = xstrdup(s->variant);
	o->dtype = xstrdup(s->dtype);
	o->primary = s->primary;
	o->mlir = xasprintf("%s/%s.mlir", gen, s->label);
	o->bytecode = xasprintf("%s/%s.tileirbc", gen, s->label);
	o->generics = s->generics ? strv_join(s->generics, ", ") : xstrdup("");
	o->ms = ms;
}

/* The results in the specialisations' order (the program's workers finish
 * in any order). */
void compile_lower_read(const struct compile_req *rq, const struct cjob *j, const char *gen,
			char *const *op_files, struct compile_result *res)
{
	struct got {
		int r;
		int64_t ms;
		struct compile_finding f;
	} *got = xcalloc(rq->nspecs + 1, sizeof(*got));
	for (size_t i = 0; i < rq->nspecs; i++)
		got[i].r = -1;
	for (const char *p = sb_str(&j->out); *p;) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		char *id;
		int64_t ms;
		struct compile_finding f;
		int r = compile_parse_lower_line(p, len, &id, &ms, &f);
		size_t i = 0;
		while (id && i < rq->nspecs && strcmp(rq->specs[i].label, id) != 0)
			i++;
		if (r >= 0 && id && i < rq->nspecs && got[i].r < 0) {
			got[i] = (struct got){r, ms, f};
		} else {
			compile_finding_free(&f);
		}
		free(id);
		p += len + (e != NULL);
	}
	size_t done = 0;
	bool all_ok = true;
	for (size_t i = 0; i < rq->nspecs; i++) {
		if (got[i].r < 0)
			continue;
		done++;
		if (got[i].r == 1) {
			add_output(res, &rq->specs[i], gen, got[i].ms);
			continue;
		}
		struct compile_finding *f = &got[i].f;
		f->spec = xstrdup(rq->specs[i].label);
		f->in_op = !f->file || compile_same_file(f->file, op_files);
		compile_add_finding(res, f);
		all_ok = false;
	}
	free(got);
	if (done < rq->nspecs) {
		char why[128];
		proc_status_str(&j->st, why, sizeof(why));
		char *tail = compile_tail_lines(sb_str(&j->err), 8);
		struct compile_finding f = {.phase = PHASE_LOWER, .error = true, .in_op = true,
					    .code = xstrdup(""),
					    .message = xasprintf("the lowering program stopped (%s) after %zu of "
								 "%zu specialisations: %s",
								 why, done, rq->nspecs, tail)};
		free(tail);
		compile_add_finding(res, &f);
		all_ok = false;
	}
	res->lowered = all_ok;
}
