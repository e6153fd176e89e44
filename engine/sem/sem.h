/* engine/sem: does a cuTile Rust kernel compute what its Python source
 * computes?
 *
 * Both sides — a cuTile Python or Triton kernel, and a cuTile Rust module
 * written by the translator, an agent or a person — are read into one
 * normalised graph of tile operations (operands in order, constants,
 * shapes, axes, permutations, index expressions, masks, paddings, element
 * types and conversions, loop bounds and carried values, control flow,
 * hints) and matched node by node from the stores backwards:
 *
 *   CRITICAL  the two compute something different: both lines and the two
 *             values ("store index (bid_n, bid_m) vs (bid_m, bid_n)")
 *   WARN      a hint differs (latency, TMA, divisibility, flush-to-zero,
 *             rounding), named; or a formula that differs only at the edges
 *   NOTE      equal computations spelled differently, with why they are
 *             equal (exp vs exp2 times log2(e), a permuted load vs a load
 *             and a permute, a folded constant, a parameter named anew)
 *
 *   struct sem_report r;
 *   sem_check_files("softmax.py", "kernel.rs", NULL, &r, &err);
 *   sem_verdict(&r)          "MATCH", "MATCH_WITH_NOTES" (warnings) or "MISMATCH"
 *   sem_report_text(&r, ...) one finding a line, then the summary
 *   sem_report_free(&r);
 *
 * Where a Rust module comes with its launcher (ffi.rs beside kernel.rs),
 * the launcher says which array shapes and strides its scalar parameters
 * carry. docs/mech.md ("The semantic check") lists the equivalences and
 * the assumptions. */
#ifndef TILEPORT_SEM_SEM_H
#define TILEPORT_SEM_SEM_H

#include <stdbool.h>
#include <stddef.h>

#include "engine/base/util.h"

enum sem_sev { SEM_NOTE, SEM_WARN, SEM_CRITICAL };

struct sem_finding {
	enum sem_sev sev;
	const char *rule;         /* "sem.value", "sem.hint", "sem.same" ... */
	const char *message;
	const char *source_value; /* for a difference: what each side computes */
	const char *rust_value;
	int py_line, rs_line;     /* 0 when the finding has no line there */
	size_t entry;             /* index into entries */
};

/* A line of the source and the line of the Rust that computes the same
 * value (the source view lights them together). */
struct sem_link {
	int py_line, rs_line;
	size_t entry;
	bool differs;
};

/* A Rust entry and the source kernel it was matched with. */
struct sem_entry {
	const char *source;  /* the kernel ("" when the Rust entry has none) */
	const char *rust;    /* the entry ("" when the kernel has no entry) */
	const char *covers;  /* "" or the constants the entry is specialised for */
	int py_first, py_last, rs_first, rs_last;
	int ncritical, nwarn, nnote;
};

struct sem_report {
	struct sem_entry *entries;
	size_t nentries;
	struct sem_finding *findings;
	size_t nfindings;
	struct sem_link *links;
	size_t nlinks;
	int ncritical, nwarn, nnote;
	bool with_ffi;       /* a launcher gave the parameter bindings */
	void *priv;
};

struct sem_input {
	const char *py_name; /* for messages */
	const char *py_text;
	size_t py_len;
	const char *rs_name;
	const char *rs_text;
	size_t rs_len;
	const char *ffi_text; /* the launcher, or NULL */
	size_t ffi_len;
};

/* Compare. -1 only for input that is not Python or not Rust at all
 * (TP_EXIT_USAGE, FILE:LINE: what was expected); a construct the reader
 * cannot follow is a finding, not an error. */
int sem_check(const struct sem_input *in, struct sem_report *out, struct tp_err *err);
/* The same for files; ffi_path NULL: ffi.rs beside the kernel, if any. */
int sem_check_files(const char *py_path, const char *rs_path, const char *ffi_path,
		    struct sem_report *out, struct tp_err *err);
void sem_report_free(struct sem_report *r);

const char *sem_verdict(const struct sem_report *r);
const char *sem_sev_name(enum sem_sev s);
/* Text (a finding a line, then the summary and verdict) and JSON. */
char *sem_report_text(const struct sem_report *r, const char *py_path, const char *rs_path);
char *sem_report_json(const struct sem_report *r, const char *py_path, const char *rs_path);

#endif
