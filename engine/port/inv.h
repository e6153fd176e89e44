/* Internal to engine/port: the op list of a lowered entry, one tile-level
 * op (load with padding, convert, reduce on an axis, mma, store, ...) with
 * the source line it came from, for `tileport translate --json`. Plumbing
 * that only restates shapes (reshape, broadcast, splat, constants) is left
 * out. Whether a Rust kernel computes what its source does is engine/sem's
 * semantic check, not this list. */
#ifndef TILEPORT_PORT_INV_H
#define TILEPORT_PORT_INV_H

#include <stdbool.h>
#include <stddef.h>

#include "engine/port/tir.h"

struct inv_item {
	char *op;        /* "load", "reduce", "convert", "mma", "for" ... */
	char *attr;      /* "padding=neg_inf", "max axis=1", "f32"; "" when none */
	int line, col;   /* in its own source */
	bool implicit;   /* Python side: added by the translation, not written */
	int depth;       /* loop/branch nesting */
};

struct inv_list {
	char *entry;     /* the Rust entry, or the Python kernel (and variant) */
	struct inv_item *v;
	size_t n, cap;
};

/* The inventory name of a Rust function the translation and kernels use
 * ("true_div" -> "div", "lt_tile" -> "cmp" with attr "lt"); NULL for
 * functions that are plumbing. attr may be NULL. */
const char *inv_name_for_fn(const char *fn, const char **attr);

void inv_add(struct inv_list *l, const char *op, const char *attr, int line, int col,
	     bool implicit, int depth);
void inv_list_free(struct inv_list *l);

/* An entry's lowered ops in order. */
void inv_from_entry(const struct tkernel *k, const struct tentry *e, struct inv_list *out);

#endif
