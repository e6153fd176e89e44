/* Internal to engine/port: the source op inventory. Each side of a
 * conversion — the Python kernel through its lowered form, the Rust kernel
 * through a scan of its calls — is read into one sequence of tile-level
 * ops (load with padding, convert, reduce on an axis, mma, store, ...)
 * with the source line each came from, and the two sequences are aligned.
 * Plumbing that only restates shapes (reshape, broadcast, splat,
 * constants) and element-wise operators written as operators (+ - *) are
 * left out: both languages spell them differently and the IR diff covers
 * them. */
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

/* Python side: an entry's lowered ops in order. */
void inv_from_entry(const struct tkernel *k, const struct tentry *e, struct inv_list *out);
/* Rust side: every #[cutile::entry] function of a source (caller frees
 * each list and the array). */
size_t inv_from_rust(const char *src, size_t len, struct inv_list **out);

enum inv_sev { INV_INFO, INV_WARN, INV_CRITICAL };

struct inv_finding {
	enum inv_sev sev;
	char *rule;      /* "inventory.missing", "inventory.extra", "inventory.attr" */
	char *message;
	int py_line, rs_line; /* 0 when the op is on one side only */
};

/* An aligned pair: a Python op and the Rust op it corresponds to (either
 * index SIZE_MAX when one side has no counterpart). */
struct inv_pair {
	size_t py, rs;
	bool attr_differs;
};

struct inv_match {
	struct inv_pair *pairs;
	size_t npairs;
	struct inv_finding *findings;
	size_t nfindings;
	int ncritical, nwarn, ninfo;
};

/* Align two sequences (longest common subsequence on op names, then
 * attributes compared) and report what differs. */
void inv_compare(const struct inv_list *py, const struct inv_list *rs, struct inv_match *out);
void inv_match_free(struct inv_match *m);
const char *inv_sev_name(enum inv_sev s);

#endif
