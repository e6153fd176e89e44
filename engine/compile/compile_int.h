/* Internal to engine/compile: the workspace's crate and the scratch crates
 * (crate.c), shared by the check (compile.c) and its tests. */
#ifndef TILEPORT_COMPILE_COMPILE_INT_H
#define TILEPORT_COMPILE_COMPILE_INT_H

#include "engine/compile/compile.h"

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
 * lowering program are shared by the workspaces that pin the same crates),
 * and a workspace's check crate in it. Not created. Caller frees. */
char *compile_cache_dir(const struct ws_deps *d);
char *compile_ws_check_dir(const char *cache, const char *workspace);

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

#endif
