/* engine/port: reading cuTile Python and Triton-TileIR operators, and the
 * mechanical part of converting them to cuTile Rust.
 *
 *   struct port_op *op;
 *   port_open("src/tilegym/ops/cutile/softmax.py", NULL, "softmax", &op, &err);
 *   port_kernel_rs(op)          the kernel.rs text (one module, an entry
 *                               per kernel and structural variant)
 *   port_ffi_rs(op, ...)        the launcher ffi.rs, from the entries and
 *   port_wrapper_py(op, ...)    the host code's launch contract; the
 *                               Python wrapper
 *   port_analysis_json(...)     reference/analysis.json (pipeline.md §4.1)
 *   port_close(op);
 *
 * Every refusal is an error with code TP_EXIT_FAILED and the message
 * `FILE:LINE:COL: unsupported: <construct>`; bad input (a file that is not
 * Python) is TP_EXIT_USAGE. docs/mech.md lists what is supported.
 *
 * Refusals are per kernel: port_open_partial keeps every kernel that
 * lowers and lists the others (port_refused), so that a file with one
 * refused kernel still gives the rest (issue 23). */
#ifndef TILEPORT_PORT_PORT_H
#define TILEPORT_PORT_PORT_H

#include <stdbool.h>
#include <stddef.h>

#include "engine/base/util.h"

struct port_op;

/* Parse `path` and lower its kernels (only `kernel` when not NULL) into an
 * op named `op` (NULL: the file's stem). */
int port_open(const char *path, const char *kernel, const char *op, struct port_op **out,
	      struct tp_err *err);
/* The same for root/rel, named `rel` in messages and outputs. */
int port_open_in(const char *root, const char *rel, const char *kernel, const char *op,
		 struct port_op **out, struct tp_err *err);
/* The same for source text in memory, named `path` in messages. */
int port_open_source(const char *path, const char *src, size_t len, const char *kernel,
		     const char *op, struct port_op **out, struct tp_err *err);
void port_close(struct port_op *op);

/* `tileport translate`'s exit status when some kernels translated and
 * others were refused (1: none translated, or the one asked for refused). */
#define PORT_EXIT_PARTIAL 4

/* A kernel the translator refused. */
struct port_refusal {
	char *kernel;
	int line;        /* its def line */
	char *message;   /* "FILE:LINE:COL: unsupported: construct" */
	char *where;     /* "FILE:LINE:COL" */
	char *construct; /* "construct" */
};
/* Open every kernel that lowers; the ones refused are kept as refusals
 * instead of failing the file. -1 when none lowers (err: the first
 * refusal) or on bad input, as port_open. */
int port_open_partial(const char *path, const char *op, struct port_op **out, struct tp_err *err);
int port_open_in_partial(const char *root, const char *rel, const char *op, struct port_op **out,
			 struct tp_err *err);
int port_open_source_partial(const char *path, const char *src, size_t len, const char *op,
			     struct port_op **out, struct tp_err *err);
/* The refused kernels of a partial open (0 for a whole one). */
size_t port_refused(const struct port_op *op, const struct port_refusal **out);
/* The translated kernels' names, source order, NULL-terminated; caller
 * frees with strv_free. */
char **port_kernel_names(const struct port_op *op);
/* The hand-over line of a partial translation: "WHERE: construct (kernel
 * K, not translated); ...; KERNEL_RS holds the translated kernel(s) A and
 * B". Caller frees. */
char *port_partial_summary(const struct port_op *op, const char *kernel_rs);

const char *port_op_name(const struct port_op *op);
/* "cutile" or "triton". */
const char *port_op_backend(const struct port_op *op);
/* kernel.rs; `source_rel` is the path written in its header comment. */
char *port_kernel_rs(const struct port_op *op, const char *source_rel);
/* What the translation produced, as JSON: kernels, entries with their
 * variants, dispatch conditions, parameters and generics, the inventory. */
char *port_translation_json(const struct port_op *op);

/* One entry of the Rust module. */
struct port_entry {
	const char *kernel;   /* the source kernel */
	const char *name;     /* the Rust entry */
	const char *variant;  /* "" for a single entry */
	const char *dispatch; /* when it runs, in Python terms ("always") */
	const char *pattern;  /* "tensor", "ptr" or "mixed" (rule 12) */
	int line;             /* the source kernel's def line */
	size_t derived;       /* const generics the launcher computes (a tile of N * N) */
};
size_t port_entries(const struct port_op *op, struct port_entry *out, size_t max);

/* Host code: ffi.rs and the Python wrapper from the entries and the host
 * function's launch. -1 with an "unsupported:" error when the host code
 * does something the wrapper cannot repeat. */
int port_ffi_rs(const struct port_op *op, char **out, struct tp_err *err);
int port_wrapper_py(const struct port_op *op, const char *source_rel, char **out,
		    struct tp_err *err);
/* The same for an op of workspace `root`: the imports the copied host
 * code takes from the workspace's modules are checked (one that runs
 * cuTile Python or Triton, another operator's launch helper, comes from
 * that operator's cuTile Rust port, or the wrapper is refused naming it). */
int port_wrapper_py_in(const struct port_op *op, const char *root, const char *source_rel,
		       char **out, struct tp_err *err);
/* The launch contract as text (reports/agent_b.md's host_launch_contract). */
char *port_launch_contract(const struct port_op *op);

/* The registration edits of a workspace (lib.rs mod block, __init__.py
 * import, the cutile-rs parametrisation of the test file): each returns
 * the new text, or NULL when the file already has it. */
char *port_register_lib_rs(const char *text, const char *op);
char *port_register_init_py(const char *text, const char *op);
char *port_register_test_py(const char *text, const char *path, struct tp_err *err);

/* The source of op OP in a TileGym workspace (engine/base/operator.h: OP
 * a name or a path, subfolders included): its cuTile Python file, else its
 * Triton one; NULL when there is none. Caller frees. */
char *port_source_of(const char *workspace, const char *op);
/* Its test, tests/ops/[SUB/]test_OP.py (where it is expected when there is
 * none). Caller frees. */
char *port_test_of(const char *workspace, const char *op);

/* ---- analysis ---- */

struct port_analysis_in {
	const char *op;
	const char *workspace;   /* TILEGYM_PATH */
	const char *cutile_rel;  /* src/tilegym/ops/cutile/{op}.py, NULL when absent */
	const char *triton_rel;  /* src/tilegym/ops/triton/{op}.py, NULL when absent */
	const char *test_rel;    /* tests/ops/test_{op}.py */
	bool toolchain;          /* false: reference IR and baselines are deferred */
};
/* reference/analysis.json as pretty JSON; the translation of the source is
 * needed for the variants, so an unsupported kernel fails it too. */
int port_analysis_json(const struct port_analysis_in *in, char **out, struct tp_err *err);
/* The same for op OP of a workspace, its files found in the TileGym
 * layout (the cuTile source, else the Triton one). */
int port_analyze_workspace(const char *workspace, const char *op, bool toolchain, char **out,
			   struct tp_err *err);

#endif
