/* The reference side offline (docs/refir.md): the operator's cuTile Python
 * kernels compiled by cuTile Python's own compiler (`cuda.tile`, in the
 * workspace's Python) to Tile IR bytecode, without a GPU or a driver, and
 * written as the run's reference/NAME.mlir files the way the reference pipeline's
 * stage A writes them (pipeline.md §3, §4.1); where tileiras is installed,
 * each module assembled for the targets asked for.
 *
 * The compiling is skill/scripts/refir.py, run with the Python found by
 * refir_find_python; the text is tileport's own printer over the bytecode
 * (engine/ir), so the file is what `tileport ir fmt` prints. */
#ifndef TILEPORT_REFIR_REFIR_H
#define TILEPORT_REFIR_REFIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "engine/base/util.h"

/* The bytecode version refir asks cuTile Python for: the newest that
 * tileport's reader takes (docs/bytecode.md). cuTile's JIT would take
 * tileiras's newest (13.4 with CUDA 13.4). */
#define REFIR_BYTECODE_VERSION "13.3"
#define REFIR_SM "sm_100"

/* The Python that compiles: where it was found and what it has. */
struct refir_python {
	char *path;      /* the interpreter */
	char *how;       /* "--python", "TILEPORT_PYTHON", "config python", "workspace venv", "PATH" */
	char *cuda_tile; /* cuda.tile's version; NULL when it does not import */
	char *tileiras;  /* the assembler cuda.tile would run, or NULL */
	char *problem;   /* why it cannot compile (NULL: usable) */
	char *tried;     /* every candidate and why it was passed over, one per line */
};

/* Find it, in this order: `explicit` (--python), $TILEPORT_PYTHON, the
 * config's `python` (config_py), the workspace's venv (.venv, venv), python3
 * on PATH. A candidate named explicitly must work; the implicit ones are
 * probed until one imports cuda.tile. 0: usable; -1 with err (exit 3) naming
 * what was tried and how to get it; out is filled either way. */
int refir_find_python(const char *explicit_py, const char *config_py, const char *workspace,
		      struct refir_python *out, struct tp_err *err);
void refir_python_free(struct refir_python *p);
/* One line for preflight and drivers-style output: "cuda.tile 1.7.0 in
 * PATH (how); tileiras PATH" or the problem and where to get it. */
char *refir_python_describe(const struct refir_python *p);
extern const char refir_how_to_get[]; /* the pip command a user runs */

/* Where skill/scripts/refir.py is (the installed data dir, or the tree's). */
char *refir_script_path(void);

struct refir_opts {
	const char *python;    /* the interpreter (refir_find_python) */
	const char *workspace; /* the TileGym checkout; may be NULL for a FILE.py */
	const char *source;    /* the kernel file, absolute or relative to the workspace */
	const char *out_dir;   /* where NAME.mlir, NAME.tileirbc and refir.json go (RUN/reference) */
	const char *analysis;  /* reference/analysis.json whose kernel_variants say which kernels,
	                        * under which file names, with which constants; NULL: every kernel */
	const char *sm;        /* target of the bytecode's hints; NULL: REFIR_SM */
	const char *bytecode_version; /* NULL: REFIR_BYTECODE_VERSION */
	char *const *assemble; /* targets to assemble for with tileiras (NULL-terminated), or NULL */
	const char *tileiras;  /* the assembler; NULL: no assembling */
	int64_t timeout_ms;    /* for the Python child; 0: 300 s */
};

struct refir_asm {
	char *sm;
	bool ok;
	char *message; /* the assembler's error, first lines */
	int64_t ms;
};

struct refir_kernel {
	char *kernel;   /* the @ct.kernel function */
	char *name;     /* the file stem: reference, reference_{variant} */
	bool ok;
	char *symbol;   /* the entry symbol cuTile mangled */
	char *alias_from; /* the alias repair: the symbol before (no op name in it), or NULL */
	char *orig_bytecode; /* its bytecode, until its text is kept as the .bak */
	char *orig_mlir;  /* OUT/[NAME.]orig_mangled_entry.mlir.bak */
	char *mlir;     /* OUT/NAME.mlir, written */
	char *bytecode; /* OUT/NAME.tileirbc, written */
	char *args;     /* the specialisation, one "param: what" per line */
	char **inferred; /* params whose argument was inferred, not given */
	char *error;    /* cuTile's or the reader's message */
	char *where;    /* FILE:LINE of the error in the kernel's source, or NULL */
	double seconds; /* compiling it (cuTile) */
	struct refir_asm *asm_;
	size_t nasm;
};

struct refir_result {
	char *source;
	char *cuda_tile, *bytecode_version, *sm, *python;
	char *load_error; /* the file did not import: the message */
	char **stubbed;   /* host packages the workspace's Python lacks, stood in for */
	struct refir_kernel *k;
	size_t n, nfailed;
	double load_seconds, total_seconds;
};

/* Compile. 0: every kernel compiled (and assembled); 1: some did not (r
 * says which and why); -1 with err: the run itself failed (bad input 2,
 * no Python 3, a file that cannot be written). Writes OUT/refir.json.
 * r is freed on -1 (nothing to free then), the caller frees it otherwise. */
int refir_compile(const struct refir_opts *o, struct refir_result *r, struct tp_err *err);
void refir_result_free(struct refir_result *r);
char *refir_result_json(const struct refir_result *r); /* caller frees */
void refir_result_print(const struct refir_result *r, FILE *out);

/* Assemble one bytecode file for one target with tileiras, the cubin
 * thrown away (written beside in scratch_dir first): whether the assembler
 * takes the module, and its message when it does not. Either side's
 * bytecode (the reference's, the translation's). 0 taken, 1 refused (a
 * filled in; free a->sm and a->message). */
int refir_assemble(const char *tileiras, const char *bytecode, const char *sm,
		   const char *scratch_dir, struct refir_asm *a);

/* The kernel file of an operator in a workspace: src/tilegym/ops/cutile/OP.py
 * or one of its subfolders (activation/, experimental/). NULL when none. */
char *refir_op_source(const char *workspace, const char *op);

#endif
