/* Internal to engine/compile: the workspace's crate and the scratch crates
 * (crate.c), shared by the check (compile.c) and its tests. */
#ifndef TILEPORT_COMPILE_COMPILE_INT_H
#define TILEPORT_COMPILE_COMPILE_INT_H

#include "engine/compile/compile.h"
#include "engine/base/proc.h"

/* The [dependencies] of the workspace's cutile_kernels crate. */
struct ws_deps {
	char *deps;        /* the section's lines, verbatim */
	char *patch;       /* its [patch...] sections, or NULL */
	char *cutile_line; /* `cutile = "=0.2.0"` */
	char *edition;
	char *from;        /* the Cargo.toml read, or a sentence for the default pins */
};
/* -1 (exit 2, FILE:LINE) for a crate without the cutile dependency; a
 * workspace without the crate gets tileport's default pins. */
int compile_ws_deps(const char *workspace, struct ws_deps *d, struct tp_err *err);
void compile_ws_deps_free(struct ws_deps *d);

/* The cache folder of a set of dependencies (its target folder and the
 * lowering program and one check crate are shared by the workspaces that
 * pin the same crates; the cache's lock keeps them to one check at a
 * time). Not created. Caller frees. */
char *compile_cache_dir(const struct ws_deps *d);

/* CUTILE_RS_KERNELS_DIR, else WORKSPACE/src/tilegym/ops/cutile_rs/cutile_kernels. */
char *compile_kernels_dir(const char *workspace);

/* A scratch crate's Cargo.toml: a lib (src/lib.rs) or a bin (src/main.rs)
 * named `name` with the given dependency lines. */
char *compile_manifest(const char *name, const struct ws_deps *d, bool bin, const char *deps);
/* The scratch lib.rs of one op: ffi_util (when there is an ffi), then
 * `pub mod OP { include!(kernel); include!(ffi); }`, by absolute path. */
char *compile_lib_rs(const char *op, const char *ffi_util, const char *kernel, const char *ffi);
/* The workspace lib.rs with its #[path] and include! paths made absolute. */
char *compile_lib_rs_absolute(const char *text, const char *dir);
int compile_write_if_changed(const char *path, const char *text, struct tp_err *err);

/* ---- the children (compile.c) ---- */

/* A child of the check with its output collected on a loop. */
struct proc;
struct loop;
struct cjob {
	struct proc *p;
	struct sbuf out, err;
	struct proc_status st;
	bool done;
};
int cjob_spawn(struct loop *l, struct cjob *j, char *const *argv, char **env, const char *cwd,
	       const char *stdin_path, int64_t timeout_ms, struct tp_err *err);
/* Run the loop until every job that started has ended. */
void cjob_wait(struct loop *l, struct cjob *const *jobs, size_t n);
void cjob_free(struct cjob *j);
/* `cargo VERB --message-format=json --manifest-path M`. */
char **compile_cargo_argv(const struct compile_toolchain *tc, const char *verb, const char *manifest);
/* cargo's messages of the package `manifest` into findings of `phase`;
 * -1 (exit 3, stderr's tail) when cargo failed without a message. */
int compile_cargo_read(const struct cjob *j, const char *what, const char *manifest,
		       enum compile_phase phase, char *const *op_files, struct compile_result *res,
		       struct tp_err *err);
void compile_add_finding(struct compile_result *res, struct compile_finding *f);
bool compile_same_file(const char *a, char *const *op_files);
char *compile_tail_lines(const char *s, int lines);
void compile_progress(const struct compile_req *rq, const char *fmt, ...) TP_PRINTF(2, 3);

/* ---- the lowering (lower.c) ---- */

/* The lowering program, built once per set of dependencies; its path, or
 * NULL (exit 3). */
char *compile_lowerer(const struct compile_toolchain *tc, char **env, const char *cache,
		      const struct ws_deps *d, const struct compile_req *rq, struct compile_result *res,
		      struct tp_err *err);
/* The input file of one lowering (caller unlinks and frees), generated/
 * made and emptied of earlier lowerings. */
char *compile_lower_jobs(const struct compile_req *rq, const char *kernel, const char *cache,
			 const char *gen, struct tp_err *err);
void compile_lower_read(const struct compile_req *rq, const struct cjob *j, const char *gen,
			char *const *op_files, struct compile_result *res);
void compile_clear_generated(const char *gen);

#endif
