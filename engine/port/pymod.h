/* Internal to engine/port: a Python module as the translator sees it — its
 * imports (so that `ct.load`, `cuda.tile.load` and a `from cuda.tile
 * import load` all read as one API name), its module-level constants, and
 * its functions sorted into kernels (`@ct.kernel`, `@triton.jit`), device
 * functions (`@ct.function`, plain helpers) and host functions (those that
 * launch a kernel). */
#ifndef TILEPORT_PORT_PYMOD_H
#define TILEPORT_PORT_PYMOD_H

#include "engine/port/py.h"
#include "engine/port/tir.h"

enum pm_role { PM_KERNEL, PM_DEVICE, PM_HOST, PM_OTHER };

struct pm_func {
	const struct py_node *def;
	char *name;
	enum pm_role role;
	enum tfrontend fe;            /* kernels */
	const struct py_node *deco;   /* the kernel decorator (a call or a name) */
	const struct py_node *register_impl; /* @register_impl(...) call, if any */
	int cls;                      /* a method: the index of its class in classes; -1 */
};

/* A module-level class (an autograd.Function, an nn.Module): the host code
 * of TileGym's operators launches from their methods. */
struct pm_class {
	char *name;
	const struct py_node *def;
};

struct pm_const {
	char *name;
	const struct py_node *value;
};

struct pm_import {
	char *local;  /* the bound name */
	char *target; /* the canonical dotted name it stands for */
};

struct pymod_deps;
struct pymod {
	struct py_module py;
	/* sibling modules loaded for their functions (pymod_imported_func);
	 * a cache, filled through a const pymod too */
	struct pymod_deps *deps;
	struct pm_import *imports;
	size_t nimports;
	struct pm_func *funcs; /* module-level functions, then the methods of classes */
	size_t nfuncs;
	struct pm_class *classes;
	size_t nclasses;
	struct pm_const *consts;
	size_t nconsts;
};

/* Parse a file and sort its contents. -1 with err as py_parse_file. */
int pymod_load(struct pymod *m, const char *path, struct tp_err *err);
int pymod_parse(struct pymod *m, const char *path, const char *src, size_t len,
		struct tp_err *err);
void pymod_free(struct pymod *m);

/* The API name a dotted expression stands for, with the usual short
 * prefixes: "ct.load" (cuda.tile), "tl.load" (triton.language),
 * "triton.jit", "torch.float32", "math.inf", or the plain dotted text for
 * anything else; NULL when it is not a dotted name. Caller frees. */
char *pymod_canon(const struct pymod *m, const struct py_node *n);
/* Does the expression name `api` ("ct.load")? */
bool pymod_is(const struct pymod *m, const struct py_node *n, const char *api);
/* A module-level function (never a method) by name. */
const struct pm_func *pymod_func(const struct pymod *m, const char *name);
/* A function imported by a relative import (`from .gelu import f`; name
 * the local name), from the sibling file, loaded once and kept with m;
 * its module in *owner. NULL when name is no such import or the file
 * does not read. */
const struct pm_func *pymod_imported_func(const struct pymod *m, const char *name,
					  const struct pymod **owner);
const struct pm_const *pymod_const(const struct pymod *m, const char *name);
/* Kernels in source order. */
size_t pymod_kernels(const struct pymod *m, const struct pm_func **out, size_t max);

#endif
