/* The IR pairs of a run directory: which reference IR is compared with
 * which generated IR (pipeline.md §1, Agents A, B and C).
 *
 * Reference side, the structural set: every top-level
 * OUT/reference/reference_<v>.mlir, supplements left out
 * (reference_<x>_<dtype>.mlir beside a reference_<x>.mlir); when there is
 * none, OUT/reference/reference.mlir (variant "").
 *
 * Generated side, per variant: OUT/generated/generated_<v>_canon.mlir, else
 * generated_<v>.mlir, else generated_<v>.tileirbc (variant "":
 * generated_canon.mlir, generated.mlir, generated.tileirbc).
 *
 * Variants pair by name. A variant present on one side only is still
 * listed, with the other side NULL, so a caller can say what is missing. */
#ifndef TILEPORT_IR_IRPAIRS_H
#define TILEPORT_IR_IRPAIRS_H

#include <stddef.h>

struct irpair_path {
	char *variant; /* "" for a single-variant kernel */
	char *ref;     /* full path, or NULL when the reference side is missing */
	char *gen;     /* full path, or NULL when the generated side is missing */
};

struct irpair_list {
	struct irpair_path *v;
	size_t n; /* sorted by variant; "" first */
};

/* Never fails: a run without IR gives an empty list. */
void irpairs_of_run(const char *run_dir, struct irpair_list *out);
void irpairs_free(struct irpair_list *l);

/* What the generated side of `variant` would be called, in the order it is
 * looked for ("generated/generated_canon.mlir, generated/generated.mlir,
 * generated/generated.tileirbc"), relative to the run; caller frees. */
char *irpairs_gen_candidates(const char *variant);
/* The reference file of `variant`, relative to the run; caller frees. */
char *irpairs_ref_name(const char *variant);

#endif
