/* `tileport compile`'s work: the scratch crates written, `cargo check
 * --message-format=json` read into findings with the kernel's own
 * FILE:LINE:COL, the lowering program built once and run over every
 * specialisation, its Tile IR text and bytecode written to the run's
 * generated/ folder (docs/compile.md). One check at a time per workspace:
 * the cache folder is locked while cargo runs in it. */
#include "engine/compile/compile_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/core/files.h"
#include "engine/core/proc.h"

#define CARGO_TIMEOUT_MS (60LL * 60 * 1000) /* a cold build on a slow machine */
#define LOWER_TIMEOUT_MS (30LL * 60 * 1000)

void compile_result_free(struct compile_result *res)
{
	for (size_t i = 0; i < res->nf; i++)
		compile_finding_free(&res->f[i]);
	free(res->f);
	for (size_t i = 0; i < res->nout; i++) {
		struct compile_output *o = &res->out[i];
		free(o->label);
		free(o->entry);
		free(o->variant);
		free(o->dtype);
		free(o->mlir);
		free(o->bytecode);
		free(o->generics);
	}
	free(res->out);
	free(res->cache_dir);
	free(res->deps_from);
	free(res->command);
	memset(res, 0, sizeof(*res));
}

static void progress(const struct compile_req *rq, const char *fmt, ...) TP_PRINTF(2, 3);
static void progress(const struct compile_req *rq, const char *fmt, ...)
{
	if (!rq->progress)
		return;
	va_list ap;
	va_start(ap, fmt);
	char *s = xvasprintf(fmt, ap);
	va_end(ap);
	rq->progress(s, rq->ud);
	free(s);
}

/* The cache's lock: one cargo at a time per workspace (a batch runs
 * several ops), waiting for the holder rather than failing. */
static int lock_cache(const struct compile_req *rq, const char *cache, struct tp_err *err)
{
	char *path = path_join(cache, ".lock");
	int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		tp_err_set(err, TP_EXIT_ENV, "%s: cannot lock: %s", path,
			   fd < 0 ? strerror(errno) : "not a regular file");
		if (fd >= 0)
			close(fd);
		free(path);
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		progress(rq, "waiting for another tileport compile in this workspace (%s)", path);
		while (flock(fd, LOCK_EX) < 0 && errno == EINTR)
			;
	}
	free(path);
	return fd;
}

static char **cargo_env(const struct compile_toolchain *tc, const char *target_dir)
{
	char **env = env_current();
	env_set(&env, "CARGO_TARGET_DIR", target_dir);
	env_set(&env, "CARGO_TERM_COLOR", "never");
	const char *cuda = getenv("CUDA_TOOLKIT_PATH");
	if ((!cuda || !*cuda) && tc->cuda_include) {
		/* cuda-bindings' build script insists on the variable */
		char *root = xstrdup(tc->cuda_include);
		char *slash = strrchr(root, '/');
		if (slash)
			*slash = '\0';
		env_set(&env, "CUDA_TOOLKIT_PATH", root);
		free(root);
	}
	const char *lc = getenv("LIBCLANG_PATH");
	if ((!lc || !*lc) && tc->libclang) {
		char *dir = xstrdup(tc->libclang);
		char *slash = strrchr(dir, '/');
		if (slash)
			*slash = '\0';
		env_set(&env, "LIBCLANG_PATH", dir);
		free(dir);
	}
	/* rustc beside the cargo we found */
	char *bin = xstrdup(tc->cargo);
	char *slash = strrchr(bin, '/');
	if (slash) {
		*slash = '\0';
		const char *path = getenv("PATH");
		char *p = xasprintf("%s:%s", bin, path ? path : "/usr/bin:/bin");
		env_set(&env, "PATH", p);
		free(p);
	}
	free(bin);
	return env;
}

static void add_finding(struct compile_result *res, struct compile_finding *f)
{
	size_t cap = res->nf;
	res->f = xgrow(res->f, &cap, res->nf + 1, sizeof(*res->f));
	res->f[res->nf++] = *f;
	memset(f, 0, sizeof(*f));
}

static bool same_file(const char *a, char *const *op_files)
{
	char ra[PATH_MAX];
	if (!a || !realpath(a, ra))
		return false;
	for (size_t i = 0; op_files[i]; i++)
		if (!strcmp(ra, op_files[i]))
			return true;
	return false;
}

/* The last lines of what a tool printed on stderr, for a setup failure. */
static char *tail_lines(const char *s, int lines)
{
	size_t n = strlen(s);
	while (n && s[n - 1] == '\n')
		n--;
	size_t i = n;
	for (int k = 0; i > 0 && k < lines; i--)
		if (s[i - 1] == '\n' && ++k == lines)
			break;
	return xstrndup(s + i, n - i);
}

/* Run cargo with ARGS in the crate folder; its JSON messages become
 * findings of `phase`. -1 (exit 3, stderr's tail) when cargo failed
 * without saying why in a message: a build script, the registry, a lock. */
static int cargo(const struct compile_toolchain *tc, char **env, const char *dir, const char *what,
		 char *const *args, const char *manifest, enum compile_phase phase, char *const *op_files,
		 struct compile_result *res, int64_t *ms, struct tp_err *err)
{
	char *argv[16];
	size_t n = 0;
	argv[n++] = tc->cargo;
	for (size_t i = 0; args[i] && n < 14; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	struct sbuf out = SBUF_INIT, errout = SBUF_INIT;
	struct proc_status st;
	struct proc_opts o = {.argv = argv, .env = env, .cwd = dir, .timeout_ms = CARGO_TIMEOUT_MS,
			      .parent_death_signal = 9};
	int64_t t0 = now_ms();
	int rc = proc_run_sync(&o, &out, &errout, &st, err);
	*ms = now_ms() - t0;
	if (rc < 0) {
		sb_free(&out);
		sb_free(&errout);
		return -1;
	}
	int errors = 0;
	const char *p = sb_str(&out);
	while (*p) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		struct compile_finding f;
		if (compile_parse_cargo_line(p, len, manifest, &f) == 1) {
			f.phase = phase;
			f.in_op = !op_files || same_file(f.file, op_files) || !f.file;
			errors += f.error;
			add_finding(res, &f);
		}
		p += len + (e != NULL);
	}
	rc = 0;
	if (!(st.end == PROC_EXITED && st.code == 0) && errors == 0) {
		char why[128];
		proc_status_str(&st, why, sizeof(why));
		char *tail = tail_lines(sb_str(&errout), 12);
		tp_err_set(err, TP_EXIT_ENV, "cargo %s in %s failed (%s) without a compiler message:\n%s",
			   what, dir, why, tail);
		free(tail);
		rc = -1;
	}
	sb_free(&out);
	sb_free(&errout);
	return rc;
}

/* The op's own files as real paths, and the scratch lib.rs that includes
 * them. */
static int check_sources(const struct compile_req *rq, struct ws_deps *d, char ***op_files,
			 char **lib, struct compile_result *res, struct tp_err *err)
{
	(void)d;
	char *kd = compile_kernels_dir(rq->workspace);
	char *cr = path_join(kd, "..");
	char *ffi_util = path_join(cr, "ffi_util.rs");
	char *files[3] = {NULL, NULL, NULL};
	int rc = 0;
	if (rq->registration) {
		char *lib_path = path_join(kd, "src/lib.rs");
		size_t len;
		char *text = path_is_file(lib_path) ? read_text_file(lib_path, &len, err) : NULL;
		char *sub = xasprintf("%s_kernel", rq->op);
		char *decl = xasprintf("mod %s", rq->op);
		if (!text) {
			if (!err->msg[0])
				tp_err_set(err, TP_EXIT_USAGE, "%s: not found (the crate the op registers in)",
					   lib_path);
			rc = -1;
		} else if (!strstr(text, decl) && !strstr(text, sub)) {
			struct compile_finding f = {.phase = PHASE_REGISTER, .error = true, .in_op = true,
						    .file = xstrdup(lib_path), .line = 1, .col = 1,
						    .code = xstrdup(""),
						    .message = xasprintf("%s does not register %s: expected "
									 "`mod %s { include!(\"../../%s/"
									 "kernel.rs\"); include!(\"../../%s/"
									 "ffi.rs\"); }`",
									 "lib.rs", rq->op, rq->op, sub, sub)};
			add_finding(res, &f);
			*lib = NULL;
		} else {
			char *libdir = path_join(kd, "src");
			*lib = compile_lib_rs_absolute(text, libdir);
			free(libdir);
			char *k = xasprintf("%s/%s/kernel.rs", cr, sub);
			char *fr = xasprintf("%s/%s/ffi.rs", cr, sub);
			files[0] = k;
			files[1] = fr;
		}
		free(text);
		free(sub);
		free(decl);
		free(lib_path);
	} else {
		if (rq->ffi_rs && !path_is_file(ffi_util)) {
			tp_err_set(err, TP_EXIT_USAGE,
				   "%s: not found (the FFI helpers every ffi.rs uses: TensorDesc, "
				   "borrow_tensor, rc)",
				   ffi_util);
			rc = -1;
		} else {
			char rk[PATH_MAX], rf[PATH_MAX], ru[PATH_MAX];
			if (!realpath(rq->kernel_rs, rk) || (rq->ffi_rs && !realpath(rq->ffi_rs, rf)) ||
			    (rq->ffi_rs && !realpath(ffi_util, ru))) {
				tp_err_set(err, TP_EXIT_USAGE, "%s: %s", rq->ffi_rs && !path_is_file(rq->ffi_rs)
									 ? rq->ffi_rs : rq->kernel_rs,
					   strerror(errno));
				rc = -1;
			} else {
				*lib = compile_lib_rs(rq->op, rq->ffi_rs ? ru : NULL, rk, rq->ffi_rs ? rf : NULL);
				files[0] = xstrdup(rk);
				files[1] = rq->ffi_rs ? xstrdup(rf) : NULL;
			}
		}
	}
	free(kd);
	free(cr);
	free(ffi_util);
	char **v = xcalloc(3, sizeof(char *));
	size_t n = 0;
	for (int i = 0; i < 2; i++) {
		char real[PATH_MAX];
		if (files[i] && realpath(files[i], real))
			v[n++] = xstrdup(real);
		free(files[i]);
	}
	*op_files = v;
	return rc;
}

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

/* Earlier lowerings of this run: an entry that no longer exists must not
 * leave its IR behind. */
static void clear_generated(const char *gen)
{
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

/* The lowering program, built once per workspace: its source is the data
 * folder's rust/tileport-lower, its dependency the workspace's cutile. */
static char *build_lowerer(const struct compile_toolchain *tc, char **env, const char *cache,
			   const struct ws_deps *d, const struct compile_req *rq,
			   struct compile_result *res, struct tp_err *err)
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
			progress(rq, "building the lowering program once for this workspace (%s)", dir);
		char *args[] = {"build", "--message-format=json", "--manifest-path", manifest, NULL};
		struct compile_result mine = {0};
		int64_t ms;
		rc = cargo(tc, env, dir, "build (the lowering program)", args, manifest, PHASE_SETUP, NULL,
			   &mine, &ms, err);
		res->build_ms = ms;
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

static int lower_all(const struct compile_req *rq, const char *exe, char **env, const char *cache,
		     const char *kernel, char *const *op_files, struct compile_result *res,
		     struct tp_err *err)
{
	char *base = rq->out_dir ? xstrdup(rq->out_dir) : path_join(cache, "out");
	char *gen = path_join(base, "generated");
	char *sup = path_join(gen, "supplements");
	free(base);
	int rc = mkdir_p(sup, 0755, err);
	if (rc == 0)
		clear_generated(gen);
	struct sbuf jobs = SBUF_INIT;
	for (size_t i = 0; i < rq->nspecs; i++) {
		char *prefix = xasprintf("%s/%s", gen, rq->specs[i].label);
		job_line(&jobs, &rq->specs[i], kernel, rq->target ? rq->target : "sm_100", prefix);
		free(prefix);
	}
	char *jobs_path = xasprintf("%s/lower-jobs-%ld.txt", cache, (long)getpid());
	if (rc == 0)
		rc = write_file_atomic(jobs_path, jobs.buf, jobs.len, err);
	sb_free(&jobs);
	struct sbuf out = SBUF_INIT, errout = SBUF_INIT;
	struct proc_status st = {0};
	if (rc == 0) {
		char *argv[] = {(char *)exe, NULL};
		struct proc_opts o = {.argv = argv, .env = env, .cwd = cache, .stdin_path = jobs_path,
				      .timeout_ms = LOWER_TIMEOUT_MS, .parent_death_signal = 9};
		int64_t t0 = now_ms();
		rc = proc_run_sync(&o, &out, &errout, &st, err);
		res->lower_ms = now_ms() - t0;
	}
	size_t done = 0;
	bool all_ok = rc == 0;
	for (const char *p = sb_str(&out); rc == 0 && *p;) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		char *id;
		int64_t ms;
		struct compile_finding f;
		int r = compile_parse_lower_line(p, len, &id, &ms, &f);
		const struct compile_spec *s = NULL;
		for (size_t i = 0; id && i < rq->nspecs && !s; i++)
			if (!strcmp(rq->specs[i].label, id))
				s = &rq->specs[i];
		if (r == 1 && s) {
			add_output(res, s, gen, ms);
			done++;
		} else if (r == 0) {
			f.spec = id ? xstrdup(id) : NULL;
			f.in_op = !f.file || same_file(f.file, op_files);
			add_finding(res, &f);
			all_ok = false;
			done++;
		}
		free(id);
		p += len + (e != NULL);
	}
	if (rc == 0 && done < rq->nspecs) {
		char why[128];
		proc_status_str(&st, why, sizeof(why));
		char *tail = tail_lines(sb_str(&errout), 8);
		struct compile_finding f = {.phase = PHASE_LOWER, .error = true, .in_op = true,
					    .code = xstrdup(""),
					    .message = xasprintf("the lowering program stopped (%s) after %zu of "
								 "%zu specialisations: %s",
								 why, done, rq->nspecs, tail)};
		free(tail);
		add_finding(res, &f);
		all_ok = false;
	}
	res->lowered = rc == 0 && all_ok;
	sb_free(&out);
	sb_free(&errout);
	unlink(jobs_path);
	free(jobs_path);
	free(gen);
	free(sup);
	return rc;
}

int compile_run(const struct compile_req *rq, struct compile_result *res, struct tp_err *err)
{
	memset(res, 0, sizeof(*res));
	struct compile_toolchain tc;
	if (!compile_toolchain_find(&tc)) {
		char *lines = strv_join(tc.missing, "\n  ");
		tp_err_set(err, TP_EXIT_ENV, "the compile check cannot run here; missing:\n  %s", lines);
		free(lines);
		compile_toolchain_free(&tc);
		return -1;
	}
	struct ws_deps d;
	if (compile_ws_deps(rq->workspace, &d, err) < 0) {
		compile_toolchain_free(&tc);
		return -1;
	}
	res->deps_from = xstrdup(d.from);
	char *cache = compile_cache_dir(&d);
	res->cache_dir = xstrdup(cache);
	char *check_dir = compile_ws_check_dir(cache, rq->workspace);
	char *check_src = path_join(check_dir, "src");
	char *target = path_join(cache, "target");
	char **env = cargo_env(&tc, target);
	char **op_files = NULL;
	char *lib = NULL;
	int lock = -1;
	int rc = mkdir_p(check_src, 0755, err);
	if (rc == 0)
		rc = (lock = lock_cache(rq, cache, err)) < 0 ? -1 : 0;
	if (rc == 0)
		rc = check_sources(rq, &d, &op_files, &lib, res, err);
	if (rc == 0 && lib) {
		char *manifest = path_join(check_dir, "Cargo.toml");
		char *m = compile_manifest("tileport-check", &d, false, d.deps);
		char *lib_path = path_join(check_src, "lib.rs");
		rc = compile_write_if_changed(manifest, m, err);
		if (rc == 0)
			rc = compile_write_if_changed(lib_path, lib, err);
		if (rc == 0) {
			if (!path_is_dir(target))
				progress(rq, "first check with these crates (%s): cargo builds them once in %s "
					     "(a few minutes; later checks take about a second)",
					 d.cutile_line, cache);
			/* `build`, not `check`: the same messages, and the dependencies
			 * are compiled once for this and the lowering program (a check
			 * builds them again as metadata: a minute more, cold); a changed
			 * kernel costs the same either way */
			char *args[] = {"build", "--message-format=json", "--manifest-path", manifest, NULL};
			res->command = xasprintf("cargo build --message-format=json --manifest-path %s",
						 manifest);
			rc = cargo(&tc, env, check_dir, "check", args, manifest, PHASE_CHECK, op_files, res,
				   &res->check_ms, err);
			res->checked = rc == 0;
		}
		free(manifest);
		free(m);
		free(lib_path);
	}
	for (size_t i = 0; i < res->nf; i++) {
		const struct compile_finding *f = &res->f[i];
		if (f->error && f->in_op)
			res->errors++;
		else if (f->error)
			res->other_errors++;
		else if (f->in_op)
			res->warnings++;
	}
	if (rc == 0 && res->checked && rq->lower && res->errors == 0 && rq->nspecs) {
		char *exe = build_lowerer(&tc, env, cache, &d, rq, res, err);
		const char *kernel = op_files && op_files[0] ? op_files[0] : rq->kernel_rs;
		rc = exe ? lower_all(rq, exe, env, cache, kernel, op_files, res, err) : -1;
		free(exe);
		for (size_t i = 0; i < res->nf; i++)
			if (res->f[i].phase == PHASE_LOWER && res->f[i].error)
				res->errors++;
	}
	if (lock >= 0)
		close(lock);
	free(lib);
	strv_free(op_files);
	strv_free(env);
	free(target);
	free(check_src);
	free(check_dir);
	free(cache);
	compile_ws_deps_free(&d);
	compile_toolchain_free(&tc);
	return rc;
}
