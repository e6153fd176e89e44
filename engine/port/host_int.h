/* Internal to engine/port's host writers (host_py.c, host_imports.c): the
 * imports of the Python wrapper. */
#ifndef TILEPORT_PORT_HOST_INT_H
#define TILEPORT_PORT_HOST_INT_H

#include "engine/port/py.h"

/* What the wrapper's imports are written from. */
struct host_imports {
	const struct py_module *pm; /* the reference's module */
	const char *pkg;            /* its package, "tilegym.ops.cutile.activation"; NULL unknown */
	const char *src_root;       /* the folder holding the top package (WS/src); NULL unknown */
	char *const *used;          /* the names the copied host code reads */
};

/* The package of a source path: src/tilegym/ops/cutile/x.py ->
 * tilegym.ops.cutile (NULL when it is not under src/). Caller frees. */
char *host_package_of(const char *source_rel);

/* Import statement s of the reference as the wrapper (in ops/cutile_rs/)
 * writes it, onto out: only the names the copied code reads; a relative
 * module made absolute; the small helpers the wrapper writes itself onto
 * `helpers` instead (next_power_of_2, cdiv); a name from a module of the
 * workspace that runs cuTile Python or Triton (another operator's host
 * code: its launches run there) taken from that operator's cuTile Rust
 * port, or refused with its place when there is none. -1 on a refusal. */
int host_import(const struct host_imports *in, const struct py_node *s, struct sbuf *out,
		struct sbuf *helpers, struct tp_err *err);

#endif
