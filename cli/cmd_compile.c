/* tileport compile: the real cuTile Rust compiler over a kernel (and its
 * FFI): cargo's type check, then cutile's own lowering to Tile IR on the CPU
 * (engine/compile, docs/compile.md). Findings print as FILE:LINE:COL, the
 * way editors and the driver chain read them. */
#include "cli/cli.h"

#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/compile/compile.h"
#include "engine/base/files.h"
#include "engine/core/run.h"

static const char usage[] =
	"usage: tileport compile [OPTIONS] OP | RUN | KERNEL.rs\n"
	"\n"
	"Type-check a cuTile Rust kernel with cargo against the crates the workspace's\n"
	"cutile_kernels crate pins, then lower every entry with cutile's own compiler\n"
	"to Tile IR text and bytecode, on the CPU (no GPU, no driver). Nothing in the\n"
	"workspace is written: the files are checked from a scratch crate in the cache\n"
	"($TILEPORT_CACHE_DIR, else ~/.cache/tileport), whose build stays warm.\n"
	"\n"
	"  RUN or OP with a run   the run's kernel.rs (and ffi.rs when there is one); the\n"
	"                         IR goes to RUN/generated/, the report to\n"
	"                         RUN/reports/compile.json (compile_lib.json with\n"
	"                         --registered)\n"
	"  OP without a run       the op's in-tree port, as cutile_kernels/src/lib.rs\n"
	"                         registers it\n"
	"  KERNEL.rs              that file (its #[cutile::module] and entries)\n"
	"\n"
	"  --ffi FILE        type-check this ffi.rs with the kernel\n"
	"  --kernel-only     a run: the kernel alone, not its ffi.rs\n"
	"  --registered      check the op as the workspace's lib.rs registers it (its\n"
	"                    in-tree kernel.rs and ffi.rs)\n"
	"  --no-lower        type-check only\n"
	"  --generics [ENTRY=]G,G,...  the generic arguments to lower with (repeatable;\n"
	"                    default: the analysis's specialisations, else docs/compile.md's)\n"
	"  --dtype D         an element type to lower for (repeatable; default: the\n"
	"                    analysis's, else f16)\n"
	"  --target SM       the GPU architecture (default sm_100)\n"
	"  --out DIR         write generated/ and reports/compile.json under DIR\n"
	"  --json            print the report (tileport.compile/1) instead of the lines\n"
	"\n"
	"exit: 0 compiled (and lowered), 1 the kernel does not compile or lower (the\n"
	"      findings say where), 2 bad usage or input, 3 no toolchain (what to install)\n";

struct opts {
	const char *ffi, *target, *out, *what;
	bool kernel_only, registered, no_lower, json;
	char **generics, **dtypes;
};

static int parse(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{"ffi", required_argument, NULL, 'f'},      {"kernel-only", no_argument, NULL, 'k'},
		{"registered", no_argument, NULL, 'r'},     {"no-lower", no_argument, NULL, 'n'},
		{"generics", required_argument, NULL, 'g'}, {"dtype", required_argument, NULL, 'd'},
		{"target", required_argument, NULL, 't'},   {"out", required_argument, NULL, 'o'},
		{"json", no_argument, NULL, 'j'},           {"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c;
	while ((c = getopt_long(argc, argv, ":h", lo, NULL)) != -1) {
		switch (c) {
		case 'f':
			o->ffi = optarg;
			break;
		case 'k':
			o->kernel_only = true;
			break;
		case 'r':
			o->registered = true;
			break;
		case 'n':
			o->no_lower = true;
			break;
		case 'g':
			o->generics = strv_push(o->generics, optarg);
			break;
		case 'd':
			o->dtypes = strv_push(o->dtypes, optarg);
			break;
		case 't':
			o->target = optarg;
			break;
		case 'o':
			o->out = optarg;
			break;
		case 'j':
			o->json = true;
			break;
		case 'h':
			fputs(usage, stdout);
			return -1;
		default:
			return cli_bad_option("compile", argv, c);
		}
	}
	if (argc - optind != 1)
		return cli_usage_error("compile", "expected one operand: an op, a run or a kernel.rs");
	o->what = argv[optind];
	if (o->target && strncmp(o->target, "sm_", 3) != 0)
		return cli_usage_error("compile", "--target %s: expected sm_NN (sm_90, sm_100 ...)", o->target);
	if (o->registered && o->ffi)
		return cli_usage_error("compile", "--registered checks the in-tree files; --ffi names another");
	return 0;
}

/* What to check, resolved: the files, the workspace, where outputs go. */
struct target {
	char *workspace, *op, *kernel, *ffi, *out_dir, *analysis;
	bool registered;
};

static void target_free(struct target *t)
{
	free(t->workspace);
	free(t->op);
	free(t->kernel);
	free(t->ffi);
	free(t->out_dir);
	free(t->analysis);
}

/* The op a kernel file's module names (`softmax_module` -> softmax). */
static char *op_of_module(const char *module)
{
	size_t n = strlen(module);
	if (n > 7 && !strcmp(module + n - 7, "_module"))
		n -= 7;
	return xstrndup(module, n);
}

static int resolve(const struct opts *o, struct session *s, struct target *t, struct tp_err *err)
{
	memset(t, 0, sizeof(*t));
	const char *ws = session_workspace(s);
	if (path_is_file(o->what)) {
		t->kernel = path_absolute(o->what);
		t->ffi = o->ffi ? path_absolute(o->ffi) : NULL;
		t->workspace = xstrdup(ws ? ws : ".");
		t->out_dir = o->out ? path_absolute(o->out) : NULL;
		if (t->ffi && !path_is_file(t->ffi)) {
			tp_err_set(err, TP_EXIT_USAGE, "%s: not found (--ffi)", o->ffi);
			return -1;
		}
		return 0;
	}
	char *dir = path_is_dir(o->what) ? xstrdup(o->what) : session_run_dir(s, o->what);
	char *kin = dir ? path_join(dir, "kernel.rs") : NULL;
	bool is_run = dir && run_exists(dir);
	if (dir && (is_run || (path_is_dir(o->what) && path_is_file(kin)))) {
		/* a run; or a stage's output folder outside one (a driver run by
		 * hand with tileport agent): the op is the folder's name */
		if (is_run) {
			struct run_state st;
			if (run_state_load(dir, &st, err) < 0) {
				free(dir);
				free(kin);
				return -1;
			}
			t->workspace = xstrdup(st.workspace ? st.workspace : ws ? ws : ".");
			t->op = xstrdup(st.op);
			run_state_free(&st);
		} else {
			char *abs = path_absolute(dir);
			const char *slash = strrchr(abs, '/');
			t->op = xstrdup(slash && slash[1] ? slash + 1 : abs);
			free(abs);
			t->workspace = xstrdup(ws ? ws : ".");
		}
		t->kernel = kin;
		kin = NULL;
		char *ffi = path_join(dir, "ffi.rs");
		if (!o->kernel_only && !o->registered && path_is_file(ffi))
			t->ffi = ffi;
		else
			free(ffi);
		t->analysis = path_join(dir, "reference/analysis.json");
		t->out_dir = o->out ? path_absolute(o->out) : path_absolute(dir);
		t->registered = o->registered;
		free(dir);
		if (t->registered) {
			free(t->kernel);
			t->kernel = xasprintf("%s/src/tilegym/ops/cutile_rs/%s_kernel/kernel.rs",
					      t->workspace, t->op);
		}
		if (!path_is_file(t->kernel)) {
			tp_err_set(err, TP_EXIT_USAGE, "%s: not found (%s)", t->kernel,
				   t->registered ? "stage D writes it" : "stage B writes it");
			return -1;
		}
		return 0;
	}
	free(kin);
	free(dir);
	if (!ws) {
		tp_err_set(err, TP_EXIT_USAGE,
			   "%s: no such file, run or op (no workspace: give --workspace DIR)", o->what);
		return -1;
	}
	char *k = xasprintf("%s/src/tilegym/ops/cutile_rs/%s_kernel/kernel.rs", ws, o->what);
	if (!path_is_file(k)) {
		tp_err_set(err, TP_EXIT_USAGE,
			   "%s: no such file, run in %s, or cuTile Rust port (%s)", o->what,
			   session_out_root(s), k);
		free(k);
		return -1;
	}
	t->workspace = xstrdup(ws);
	t->op = xstrdup(o->what);
	t->kernel = k;
	t->registered = !o->ffi;
	t->ffi = o->ffi ? path_absolute(o->ffi) : NULL;
	t->out_dir = o->out ? path_absolute(o->out) : NULL;
	return 0;
}

static void say(const char *line, void *ud)
{
	(void)ud;
	fprintf(stderr, "tileport compile: %s\n", line);
}

/* A path as the user typed from here: relative below the current folder. */
static const char *shown(const char *path, const char *cwd)
{
	size_t n = strlen(cwd);
	if (path && !strncmp(path, cwd, n) && path[n] == '/')
		return path + n + 1;
	return path;
}

static void print_text(const struct compile_result *r, const struct target *t, size_t nspecs)
{
	char cwd[PATH_MAX];
	if (!getcwd(cwd, sizeof(cwd)))
		cwd[0] = '\0';
	for (size_t i = 0; i < r->nf; i++) {
		const struct compile_finding *f = &r->f[i];
		if (!f->in_op && !f->error)
			continue; /* another file's warnings are not this kernel's business */
		if (f->file)
			printf("%s:%d:%d: ", shown(f->file, cwd), f->line, f->col);
		printf("%s%s%s%s: %s", f->error ? "error" : "warning", *f->code ? "[" : "", f->code,
		       *f->code ? "]" : "", f->message);
		if (f->phase == PHASE_LOWER)
			printf(" (cutile lowering%s%s)", f->spec ? " of " : "", f->spec ? f->spec : "");
		else if (!f->in_op)
			printf(" (outside %s's files)", t->op ? t->op : "the kernel");
		putchar('\n');
	}
	char ck[32], lw[32];
	fmt_elapsed(r->check_ms, ck, sizeof(ck));
	fmt_elapsed(r->lower_ms, lw, sizeof(lw));
	printf("compile: %s: %d error%s, %d warning%s (type check %s", t->op ? t->op : t->kernel,
	       r->errors, r->errors == 1 ? "" : "s", r->warnings, r->warnings == 1 ? "" : "s", ck);
	if (r->nout || r->lower_ms)
		printf(", lowering %s", lw);
	printf(")");
	if (r->other_errors)
		printf("; %d error%s elsewhere in the crate", r->other_errors, r->other_errors == 1 ? "" : "s");
	if (r->nout)
		printf("; %zu of %zu specialisation%s lowered to Tile IR%s%s", r->nout, nspecs,
		       nspecs == 1 ? "" : "s", t->out_dir ? " in " : "",
		       t->out_dir ? shown(t->out_dir, cwd) : "");
	putchar('\n');
}

static int write_report(const struct target *t, const struct compile_result *r, struct tp_err *err)
{
	if (!t->out_dir)
		return 0;
	char *dir = path_join(t->out_dir, "reports");
	/* B's check of the kernel and D's of the registered op side by side */
	char *path = path_join(dir, t->registered ? "compile_lib.json" : "compile.json");
	char *json = compile_result_json(r, t->out_dir);
	int rc = mkdir_p(dir, 0755, err);
	if (rc == 0)
		rc = write_file_atomic(path, json, strlen(json), err);
	free(json);
	free(path);
	free(dir);
	return rc;
}

int cmd_compile(int argc, char **argv)
{
	struct opts o = {0};
	int rc = parse(argc, argv, &o);
	if (rc) {
		strv_free(o.generics);
		strv_free(o.dtypes);
		return rc < 0 ? TP_EXIT_OK : rc;
	}
	struct session *s;
	if ((rc = cli_session(&s, &(struct session_opts){.read_only = true}))) {
		strv_free(o.generics);
		strv_free(o.dtypes);
		return rc;
	}
	struct tp_err err;
	tp_err_clear(&err);
	struct target t;
	struct rs_sig *sigs = NULL;
	size_t nsigs = 0, nspecs = 0;
	struct compile_spec *specs = NULL;
	struct compile_result res = {0};
	if (resolve(&o, s, &t, &err) < 0)
		goto fail;
	size_t len;
	char *src = read_text_file(t.kernel, &len, &err);
	if (!src || rs_sigs_read(t.kernel, src, len, &sigs, &nsigs, &err) < 0) {
		free(src);
		goto fail;
	}
	free(src);
	if (!t.op)
		t.op = op_of_module(nsigs ? sigs[0].module : "kernel");
	if (!o.no_lower && compile_specs_for(sigs, nsigs, t.analysis, o.dtypes, o.generics, &specs,
					     &nspecs, &err) < 0)
		goto fail;
	struct compile_req rq = {.workspace = t.workspace, .op = t.op, .kernel_rs = t.kernel,
				 .ffi_rs = t.ffi, .registration = t.registered, .lower = !o.no_lower,
				 .specs = specs, .nspecs = nspecs, .target = o.target ? o.target : "sm_100",
				 .out_dir = t.out_dir, .progress = say};
	if (compile_run(&rq, &res, &err) < 0)
		goto fail;
	if (write_report(&t, &res, &err) < 0)
		goto fail;
	if (o.json) {
		char *j = compile_result_json(&res, t.out_dir);
		fputs(j, stdout);
		free(j);
	} else {
		print_text(&res, &t, nspecs);
	}
	rc = res.errors || (!o.no_lower && !res.lowered && nspecs) ? TP_EXIT_FAILED : TP_EXIT_OK;
	goto out;
fail:
	rc = cli_report(&err);
out:
	compile_result_free(&res);
	compile_specs_free(specs, nspecs);
	rs_sigs_free(sigs, nsigs);
	target_free(&t);
	strv_free(o.generics);
	strv_free(o.dtypes);
	session_close(s);
	if (rc == TP_EXIT_OK || rc == TP_EXIT_FAILED) {
		struct tp_err ferr;
		tp_err_clear(&ferr);
		if (stdout_flush_check(&ferr) < 0)
			return cli_report(&ferr);
	}
	return rc;
}
