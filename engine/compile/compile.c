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

#include "engine/base/files.h"
#include "engine/base/loop.h"
#include "engine/base/proc.h"

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

void compile_progress(const struct compile_req *rq, const char *fmt, ...)
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
		compile_progress(rq, "waiting for another tileport compile in this workspace (%s)", path);
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

void compile_add_finding(struct compile_result *res, struct compile_finding *f)
{
	size_t cap = res->nf;
	res->f = xgrow(res->f, &cap, res->nf + 1, sizeof(*res->f));
	res->f[res->nf++] = *f;
	memset(f, 0, sizeof(*f));
}

bool compile_same_file(const char *a, char *const *op_files)
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
char *compile_tail_lines(const char *s, int lines)
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

void cjob_free(struct cjob *j)
{
	if (j->p)
		proc_free(j->p);
	sb_free(&j->out);
	sb_free(&j->err);
	memset(j, 0, sizeof(*j));
}

static void cjob_stdout(struct proc *p, const char *d, size_t n, void *ud)
{
	(void)p;
	sb_add(&((struct cjob *)ud)->out, d, n);
}

static void cjob_stderr(struct proc *p, const char *d, size_t n, void *ud)
{
	(void)p;
	sb_add(&((struct cjob *)ud)->err, d, n);
}

static void cjob_exit(struct proc *p, const struct proc_status *st, void *ud)
{
	(void)p;
	struct cjob *j = ud;
	j->st = *st;
	j->done = true;
}

int cjob_spawn(struct loop *l, struct cjob *j, char *const *argv, char **env, const char *cwd,
	       const char *stdin_path, int64_t timeout_ms, struct tp_err *err)
{
	memset(j, 0, sizeof(*j));
	struct proc_opts o = {.argv = argv, .env = env, .cwd = cwd, .stdin_path = stdin_path,
			      .timeout_ms = timeout_ms, .parent_death_signal = 9,
			      .on_stdout = cjob_stdout, .on_stderr = cjob_stderr, .on_exit = cjob_exit,
			      .ud = j};
	j->p = proc_spawn(l, &o, err);
	return j->p ? 0 : -1;
}

void cjob_wait(struct loop *l, struct cjob *const *jobs, size_t n)
{
	for (;;) {
		bool all = true;
		for (size_t i = 0; i < n; i++)
			all &= !jobs[i] || !jobs[i]->p || jobs[i]->done;
		if (all || (loop_run_once(l, -1) < 0 && errno != EINTR))
			return;
	}
}

char **compile_cargo_argv(const struct compile_toolchain *tc, const char *verb, const char *manifest)
{
	char **v = xcalloc(6, sizeof(char *));
	v[0] = xstrdup(tc->cargo);
	v[1] = xstrdup(verb);
	v[2] = xstrdup("--message-format=json");
	v[3] = xstrdup("--manifest-path");
	v[4] = xstrdup(manifest);
	return v;
}

int compile_cargo_read(const struct cjob *j, const char *what, const char *manifest,
		       enum compile_phase phase, char *const *op_files, struct compile_result *res,
		       struct tp_err *err)
{
	int errors = 0;
	const char *p = sb_str(&j->out);
	while (*p) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		struct compile_finding f;
		if (compile_parse_cargo_line(p, len, manifest, &f) == 1) {
			f.phase = phase;
			f.in_op = !op_files || compile_same_file(f.file, op_files) || !f.file;
			errors += f.error;
			compile_add_finding(res, &f);
		}
		p += len + (e != NULL);
	}
	if (!(j->st.end == PROC_EXITED && j->st.code == 0) && errors == 0) {
		char why[128];
		proc_status_str(&j->st, why, sizeof(why));
		char *tail = compile_tail_lines(sb_str(&j->err), 12);
		tp_err_set(err, TP_EXIT_ENV, "cargo %s of %s failed (%s) without a compiler message:\n%s",
			   what, manifest, why, tail);
		free(tail);
		return -1;
	}
	return 0;
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
			compile_add_finding(res, &f);
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

static void count(struct compile_result *res)
{
	res->errors = res->warnings = res->other_errors = 0;
	for (size_t i = 0; i < res->nf; i++) {
		const struct compile_finding *f = &res->f[i];
		if (f->error && f->in_op)
			res->errors++;
		else if (f->error)
			res->other_errors++;
		else if (f->in_op)
			res->warnings++;
	}
}

/* Type-check and lower at once: the lowering program reads kernel.rs by
 * itself, so it runs while cargo checks (a warm check costs the longer of
 * the two, not their sum); what it made is kept only when rustc found no
 * error in the op's files. */
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
	char *check_dir = path_join(cache, "check");
	char *check_src = path_join(check_dir, "src");
	char *manifest = path_join(check_dir, "Cargo.toml");
	char *target = path_join(cache, "target");
	char **env = cargo_env(&tc, target);
	char **op_files = NULL, **argv = NULL;
	char *lib = NULL, *exe = NULL, *jobs = NULL, *gen = NULL;
	struct cjob check = {0}, lower = {0};
	struct loop *l = NULL;
	int lock = -1;
	int rc = mkdir_p(check_src, 0755, err);
	if (rc == 0)
		rc = (lock = lock_cache(rq, cache, err)) < 0 ? -1 : 0;
	if (rc == 0)
		rc = check_sources(rq, &d, &op_files, &lib, res, err);
	if (rc < 0 || !lib)
		goto out; /* bad input, or lib.rs does not register the op (a finding) */
	char *m = compile_manifest("tileport-check", &d, false, d.deps);
	char *lib_path = path_join(check_src, "lib.rs");
	rc = compile_write_if_changed(manifest, m, err);
	if (rc == 0)
		rc = compile_write_if_changed(lib_path, lib, err);
	free(m);
	free(lib_path);
	if (rc < 0)
		goto out;
	if (!path_is_dir(target))
		compile_progress(rq, "first check with these crates (%s): cargo builds them once in %s "
				     "(a few minutes; later checks take about a second)",
				 d.cutile_line, cache);
	const char *kernel = op_files && op_files[0] ? op_files[0] : rq->kernel_rs;
	if (rq->lower && rq->nspecs) {
		exe = compile_lowerer(&tc, env, cache, &d, rq, res, err);
		if (!exe) {
			rc = -1;
			goto out;
		}
		char *base = rq->out_dir ? xstrdup(rq->out_dir) : path_join(cache, "out");
		gen = path_join(base, "generated");
		free(base);
		jobs = compile_lower_jobs(rq, kernel, cache, gen, err);
		if (!jobs) {
			rc = -1;
			goto out;
		}
	}
	/* `build`, not `check`: the same messages, and the dependencies are
	 * compiled once for this and the lowering program (a check builds them
	 * again as metadata: a minute more, cold); a changed kernel costs the
	 * same either way */
	res->command = xasprintf("cargo build --message-format=json --manifest-path %s", manifest);
	l = loop_new();
	argv = compile_cargo_argv(&tc, "build", manifest);
	int64_t t0 = now_ms();
	rc = cjob_spawn(l, &check, argv, env, check_dir, NULL, CARGO_TIMEOUT_MS, err);
	if (rc == 0 && exe) {
		char *largv[] = {exe, NULL};
		rc = cjob_spawn(l, &lower, largv, env, cache, jobs, LOWER_TIMEOUT_MS, err);
	}
	struct cjob *both[] = {&check, &lower};
	cjob_wait(l, both, 2);
	res->check_ms = now_ms() - t0;
	res->lower_ms = lower.p ? lower.st.elapsed_ms : 0;
	if (rc < 0)
		goto out;
	rc = compile_cargo_read(&check, "build", manifest, PHASE_CHECK, op_files, res, err);
	res->checked = rc == 0;
	count(res);
	if (rc == 0 && exe) {
		if (res->errors == 0)
			compile_lower_read(rq, &lower, gen, op_files, res);
		else
			compile_clear_generated(gen); /* IR of a kernel rustc refuses */
		count(res);
	}
out:
	cjob_free(&check);
	cjob_free(&lower);
	if (l)
		loop_free(l);
	if (jobs)
		unlink(jobs);
	if (lock >= 0)
		close(lock);
	free(jobs);
	free(gen);
	free(exe);
	free(lib);
	strv_free(argv);
	strv_free(op_files);
	strv_free(env);
	free(target);
	free(manifest);
	free(check_src);
	free(check_dir);
	free(cache);
	compile_ws_deps_free(&d);
	compile_toolchain_free(&tc);
	return rc;
}
