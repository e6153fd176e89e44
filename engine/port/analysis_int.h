/* Internal to engine/port's analysis (analysis.c, analysis_lit.c): the
 * literal values of an operator's Python, as JSON. */
#ifndef TILEPORT_PORT_ANALYSIS_INT_H
#define TILEPORT_PORT_ANALYSIS_INT_H

#include <cjson/cJSON.h>

#include "engine/port/port_impl.h"

/* The value of n where it is a literal (a number, a string, True/False/
 * None, a tuple or list of them, integer arithmetic, a comprehension over
 * ranges and literal lists, a module constant, a torch dtype as "f16"),
 * else NULL. Caller deletes. */
cJSON *an_literal(const struct pymod *m, const struct py_node *n, int depth);
/* "f16" for torch.float16 (the FFI's spelling), NULL for what is not a
 * torch dtype. Caller frees. */
char *an_dtype_short(const struct pymod *m, const struct py_node *n);
/* The configurations the operator's tuner tries, where it writes them as
 * literals or loops over literals: an array of objects (maybe empty). */
cJSON *an_tuner_configs(const struct pymod *m);

#endif
