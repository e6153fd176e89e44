/* Internal to engine/port: the translated op shared by its writers
 * (emit_rs.c kernel.rs, host_*.c ffi.rs and wrapper, analysis.c,
 * inventory). Other modules use engine/port/port.h only. */
#ifndef TILEPORT_PORT_PORT_IMPL_H
#define TILEPORT_PORT_PORT_IMPL_H

#include "engine/port/inv.h"
#include "engine/port/lower.h"
#include "engine/port/port.h"
#include "engine/port/pymod.h"

struct port_op {
	struct pymod m;
	char *path;
	char *name;
	enum tfrontend fe;
	struct tkernel **k;
	size_t nk;
	/* opened partially (port_open_partial): the kernels that did not
	 * lower, in source order */
	struct port_refusal *refused;
	size_t nrefused;
};

#define PORT_LAUNCH_MAX_ARGS 128

/* The host code's launch of a kernel: `ct.launch(stream, grid, K, args)`
 * or Triton's `K[grid](args, NAME=value)`. */
struct port_launch {
	const struct pm_func *host;
	const struct py_node *call;
	const struct py_node *stream;    /* NULL for Triton */
	const struct py_node *grid;
	const struct py_node *args_expr; /* ct.launch: the arguments as written (a tuple, a name, a `+`) */
	/* ct.launch: the argument of each of the kernel's source parameters,
	 * through the local names and `+` the host builds them with */
	const struct py_node *args[PORT_LAUNCH_MAX_ARGS];
	size_t nargs;
	const struct py_node *args_from; /* the assignment that gave them; NULL: the launch's own tuple */
	bool triton;
};
int port_launch_of(const struct port_op *op, const struct tkernel *k, struct port_launch *out,
		   struct tp_err *err);
/* host_args.c: fill l->args from l->args_expr for kernel k, choosing
 * among the tuples the bindings of a name may give it the one that fits
 * k's parameters; -1 with FILE:LINE:COL when none does, when two differ
 * and fit equally, or when the arguments are built otherwise. */
int port_launch_args(const struct port_op *op, const struct tkernel *k, struct port_launch *l,
		     struct tp_err *err);
/* The element types the host accepts (its `x.dtype in (...)` gate), at
 * most max; the float types when it has none. */
size_t port_host_dtypes(const struct port_op *op, const struct pm_func *h, enum tdt *out,
			size_t max);
/* The export of kernel i: cutile_{op}, cutile_{op}_{kernel} for the others. */
const char *port_ffi_symbol(const struct port_op *op, size_t kernel, char *buf, size_t n);

/* The Rust module holding every kernel's entries. */
char *port_emit_module(const struct port_op *op, const char *source_rel);
/* The kernel's params as an entry lists them: the source's, then each
 * pointer array's synthesized extents and strides. Returns the count. */
size_t port_params_in_order(const struct tkernel *k, size_t *out, size_t max);
/* emit_view.c: the tensor view an entry builds from a pointer array
 * read through views too (TOP_TENSOR_VIEW), and the partition a view load
 * of it reads (true: a PartitionMut, loaded with load_view_tko_mut). */
void emit_tensor_view(struct sbuf *out, int indent, const struct tkernel *k, const struct top *op);
bool emit_view_partition(struct sbuf *out, int indent, const struct top *op);
/* rule 12: "tensor", "ptr" or "mixed" for an entry's parameters. */
const char *port_entry_pattern(const struct tkernel *k, const struct tentry *e);

#endif
