/* The real cuTile Rust compiler in the loop (docs/compile.md): a kernel.rs
 * (and its ffi.rs) type-checked by cargo against the crates the workspace's
 * cutile_kernels crate pins, and every entry lowered to Tile IR text and
 * bytecode by the crate's own compiler (cutile::compile_api), on the CPU.
 *
 * Nothing of the user's tree is written: the op's files are included by
 * absolute path from a scratch crate in the cache ($TILEPORT_CACHE_DIR, else
 * $XDG_CACHE_HOME/tileport, else ~/.cache/tileport), one per workspace, over
 * one target folder per set of pinned crates that stays warm between checks. The lowering program
 * (rust/tileport-lower in the data folder) is built there once and reads
 * kernel files at run time, as the code #[cutile::module] generates does. */
#ifndef TILEPORT_COMPILE_COMPILE_H
#define TILEPORT_COMPILE_COMPILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/base/util.h"

/* ---- the toolchain ---- */

/* What the compile check needs on this machine, and where each missing
 * piece comes from. */
struct compile_toolchain {
	char *cargo;         /* path of cargo, NULL when none */
	char *cargo_version; /* "1.95.0" */
	char *cuda_include;  /* the folder with cuda.h */
	char *curand_include; /* the folder with curand.h (CUDA's, or one on
	                         BINDGEN_EXTRA_CLANG_ARGS) */
	char *libclang;      /* libclang.so that bindgen loads */
	char **missing;      /* NULL-terminated: "cargo >= 1.89: ..." per missing piece */
};
#define COMPILE_MIN_CARGO "1.89"

/* Look everything up; true when the check can run (nothing missing). */
bool compile_toolchain_find(struct compile_toolchain *tc);
void compile_toolchain_free(struct compile_toolchain *tc);

/* ---- the kernel's entries ---- */

enum rs_generic_kind { RSG_TYPE, RSG_CONST };
struct rs_generic {
	char *name;
	enum rs_generic_kind kind;
	char *type; /* of a const generic: "i32", "bool" ... */
};
enum rs_param_kind { RSP_TENSOR, RSP_PTR, RSP_SCALAR, RSP_OTHER };
struct rs_param {
	char *name;
	enum rs_param_kind kind;
	int rank;   /* &Tensor<E, {[..]}>: the number of dimensions; -1 unknown */
	char *type; /* the type as written, whitespace squeezed */
};
struct rs_sig {
	char *module; /* the #[cutile::module] it sits in */
	char *name;
	int line;
	struct rs_generic *gen;
	size_t ngen;
	struct rs_param *par;
	size_t npar;
};
/* Every #[cutile::entry] function of a Rust source, in order. -1 with err
 * (FILE:LINE:COL) when there is no #[cutile::module] or a signature cannot be
 * read. */
int rs_sigs_read(const char *path, const char *src, size_t len, struct rs_sig **out, size_t *n,
		 struct tp_err *err);
void rs_sigs_free(struct rs_sig *v, size_t n);

/* ---- one specialisation of one entry ---- */

struct compile_tensor {
	char *name;
	int rank;
	int64_t shape[8]; /* 0: unknown (strides only) */
	int64_t strides[8];
};
struct compile_spec {
	char *entry;   /* the Rust entry */
	char *module;
	char *variant; /* "" single */
	char *dtype;   /* the element type given to type generics: "f16" */
	char *label;   /* file stem: generated, generated_VARIANT, generated_f32 ... */
	bool primary;  /* the one at the reference pipeline's file name */
	char **generics; /* in the entry's order */
	struct compile_tensor *tensors;
	size_t ntensors;
	char **scalars;  /* "name=value" integer scalars as launched */
	char *why;       /* where the values came from, for the report */
};
void compile_specs_free(struct compile_spec *v, size_t n);

/* The specialisations to lower for the entries of a kernel file: from the
 * run's reference/analysis.json `specializations` when it has them, else one
 * per entry and dtype with the defaults docs/compile.md names (every type
 * generic the dtype, const generics 64 / false, tensors contiguous 1024 per
 * dimension). `overrides` ("ENTRY=GEN,GEN,..." or "GEN,..." for every entry)
 * replace the generics. -1 with err when an override does not fit. */
int compile_specs_for(const struct rs_sig *sigs, size_t nsigs, const char *analysis_path,
		      char *const *dtypes, char *const *overrides, struct compile_spec **out,
		      size_t *n, struct tp_err *err);

/* ---- the check ---- */

enum compile_phase { PHASE_SETUP, PHASE_CHECK, PHASE_REGISTER, PHASE_LOWER };
struct compile_finding {
	enum compile_phase phase;
	bool error;     /* an error (else a warning) */
	bool in_op;     /* in the op's own files (else elsewhere in the crate) */
	char *file;     /* absolute, as the compiler named it; NULL: no place */
	int line, col;  /* 1-based */
	char *code;     /* "E0308", "" */
	char *message;  /* one line */
	char *rendered; /* the compiler's whole text, NULL when none */
	char *spec;     /* lowering: the spec's label */
};
struct compile_output {
	char *label, *entry, *variant, *dtype;
	bool primary;
	char *mlir, *bytecode; /* paths written */
	char *generics;        /* "f16, 1024" */
	int64_t ms;
};
struct compile_result {
	struct compile_finding *f;
	size_t nf;
	struct compile_output *out;
	size_t nout;
	int errors, warnings, other_errors; /* other_errors: outside the op's files */
	bool checked, lowered;
	int64_t check_ms, build_ms, lower_ms;
	char *cache_dir;  /* the target folder and lowering program of these dependencies */
	char *deps_from;  /* the Cargo.toml whose [dependencies] were used, or "default pins" */
	char *command;    /* the cargo command line, for the build log */
};

struct compile_req {
	const char *workspace; /* the TileGym checkout (its cutile_kernels crate and ffi_util.rs) */
	const char *op;
	const char *kernel_rs; /* the kernel file */
	const char *ffi_rs;    /* its FFI, or NULL: the kernel alone */
	bool registration;     /* check the op as the workspace lib.rs registers it
	                        * (its in-tree files) instead of kernel_rs/ffi_rs */
	bool lower;            /* lower every spec to Tile IR */
	const struct compile_spec *specs;
	size_t nspecs;
	const char *target;    /* "sm_100" */
	const char *out_dir;   /* lowered files go to out_dir/generated/; NULL: the cache */
	void (*progress)(const char *line, void *ud); /* "building the crates once ..." */
	void *ud;
};
/* Type-check, then lower. Returns 0 when the check ran (findings or not),
 * -1 with err when it could not (TP_EXIT_ENV: no toolchain; TP_EXIT_USAGE:
 * bad input, such as a crate without the cutile dependency). */
int compile_run(const struct compile_req *rq, struct compile_result *res, struct tp_err *err);
void compile_result_free(struct compile_result *res);

/* reports/compile.json of a run: the result as JSON (read back by the stage
 * view), and the reading. */
char *compile_result_json(const struct compile_result *res, const char *relative_to);
int compile_report_load(const char *path, struct compile_result *res, struct tp_err *err);

/* ---- parsing what the tools print (diag.c; fuzzed) ---- */

/* One line of `cargo check --message-format=json`: a compiler message of
 * the package whose Cargo.toml is `manifest` (NULL: any) becomes a finding
 * (1); other lines, and other packages' messages (a patched dependency's
 * warnings), are skipped (0); -1 not JSON. */
int compile_parse_cargo_line(const char *line, size_t len, const char *manifest,
			     struct compile_finding *f);
/* One line of tileport-lower: 1 ok, 0 a failure made a finding, -1 not
 * its output. *id and *ms are set in both cases (caller frees *id). */
int compile_parse_lower_line(const char *line, size_t len, char **id, int64_t *ms,
			     struct compile_finding *f);
void compile_finding_free(struct compile_finding *f);
const char *compile_phase_name(enum compile_phase p);

#endif
