/* The operators of a TileGym workspace: where an operator's reference
 * kernels are (src/tilegym/ops/{cutile,triton}/, subfolders such as
 * activation/ and experimental/ included), where its test is (tests/ops/,
 * the same subfolder), and whether it already has a cuTile Rust port
 * (src/tilegym/ops/cutile_rs/). Every command that names an operator
 * (run, batch, open, the validators, mech's stages) finds it here, so that
 * all of them accept the same names:
 *
 *   gelu                                 by name, where the name is unique
 *   activation/gelu, activation/gelu.py  by its path under ops/{cutile,triton}/
 *   src/tilegym/ops/cutile/activation/gelu.py  (relative or absolute)
 *
 * An operator is a Python file with a kernel (a @ct.kernel or @triton.jit
 * decorator): helper modules (utils.py, __init__.py, a file of device
 * functions) are not operators. Its identity is its name: the cuTile Rust
 * side is flat (cutile_rs/{name}_kernel/), so the files of one backend
 * that share a name are ambiguous and refused, naming each of them. */
#ifndef TILEPORT_CORE_OPERATOR_H
#define TILEPORT_CORE_OPERATOR_H

#include <stdbool.h>
#include <stddef.h>

#include "engine/base/util.h"

struct ws_operator {
	char *name;       /* "gelu" */
	char *sub;        /* "activation", "" at the top of ops/{cutile,triton}/ */
	char *cutile_rel; /* src/tilegym/ops/cutile/activation/gelu.py, or NULL */
	char *triton_rel; /* src/tilegym/ops/triton/.../gelu.py, or NULL */
	char *test_rel;   /* tests/ops/activation/test_gelu.py: the one found, else where
	                   * it is expected */
	bool test_found;
	/* The cuTile Rust port already in the workspace, as paths relative to
	 * it (cutile_rs/gelu_kernel/, cutile_rs/gelu.py); NULL when none. */
	char **port;
};

/* Is `name` an operator name (letters, digits and '_')? */
bool operator_name_ok(const char *name);

/* The operator `arg` names in workspace ws (the forms above). Errors
 * (TP_EXIT_USAGE): not found (what was looked for), a file without a
 * kernel, a name two files of one backend share (both named). */
int operator_find(const char *ws, const char *arg, struct ws_operator *out, struct tp_err *err);

/* Every operator of the workspace, sorted by name; helper modules are
 * left out, and so are names that are ambiguous (listed in *ambiguous when
 * not NULL, caller frees). -1 when ws has no src/tilegym/ops. */
int operator_list(const char *ws, struct ws_operator **out, size_t *n, char ***ambiguous,
		  struct tp_err *err);

/* The source a conversion reads: the cuTile Python file, else Triton's. */
const char *operator_source(const struct ws_operator *o);
/* "src/tilegym/ops/cutile_rs/gelu_kernel/, src/tilegym/ops/cutile_rs/gelu.py" */
char *operator_port_text(const struct ws_operator *o);

void operator_free(struct ws_operator *o);
void operators_free(struct ws_operator *v, size_t n);

#endif
