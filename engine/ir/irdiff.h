/* Structural diff of two Tile IR modules (reference vs generated), entry by
 * entry: op alignment over normalised op lines, the reference diff_ir.sh
 * rule set (pipeline.md §6), the layout gate, and checks a word-counting
 * script cannot make. Also the model an IR diff view draws: per entry, the
 * aligned rows (both sides' line ranges and canonical texts) and the
 * findings.
 *
 * A finding is a difference between the two sides, or a defect of the
 * generated side the reference rules name whatever the reference holds
 * (a scalar `assume div_by`). Where the text of one side cannot tell (a
 * `masked` view whose printer dropped the padding value) the finding is a
 * NOTE; two identical or merely renamed modules are PASS. */
#ifndef TILEPORT_IR_IRDIFF_H
#define TILEPORT_IR_IRDIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/base/util.h"
#include "engine/ir/ir.h"

/* How the diff names an op: the registry's name (an alias folded into it,
 * "pow" for fpowf), an unknown op its own. */
static inline const char *irdiff_op_name(const struct ir_op *op)
{
	return op->code == IR_OP_UNKNOWN ? ir_op_name(op) : op->def->name;
}

/* The value an operand stands for, assume chains looked through. */
static inline const struct ir_value *irdiff_through_assume(const struct ir_value *v)
{
	const struct ir_op *d;
	while ((d = ir_value_def(v)) && d->code == IR_OP_ASSUME && d->noperands)
		v = d->operands[0];
	return v;
}

struct cJSON;

enum irdiff_severity {
	IRDIFF_CRITICAL, /* FAIL_FIXABLE */
	IRDIFF_WARN,     /* PASS_WITH_NOTES (reference: WARN, MISSING_HINT, WORKAROUND) */
	IRDIFF_INFO,     /* shown, no effect on the verdict (reference: INFO(delta)) */
	IRDIFF_NOTE,     /* one side's text cannot tell (no effect on the verdict) */
};

enum irdiff_verdict {
	IRDIFF_PASS,
	IRDIFF_PASS_WITH_NOTES,
	IRDIFF_FAIL_FIXABLE,
};

enum irdiff_row_kind {
	IRDIFF_ROW_EQUAL,    /* same normalised line on both sides */
	IRDIFF_ROW_CHANGED,  /* same op, different operands/attributes/types */
	IRDIFF_ROW_REF_ONLY,
	IRDIFF_ROW_GEN_ONLY,
};

/* One side of an aligned row. */
struct irdiff_side {
	bool present;           /* false: the row exists on the other side only */
	int depth;              /* region nesting inside the entry (body = 0) */
	const struct ir_op *op; /* NULL for absent sides and for closing-brace rows */
	uint32_t first, last;   /* source lines (1-based, inclusive); 0 = unknown (bytecode) */
	const char *text;       /* canonical text (ir_op_line), "}" or "} else {"; NULL when
				   absent, and for ops unless irdiff_options.texts */
};

struct irdiff_row {
	enum irdiff_row_kind kind;
	struct irdiff_side ref, gen;
};

struct irdiff_finding {
	const char *rule;      /* stable id: "op-count", "hint-occupancy", ... (docs/ir.md) */
	enum irdiff_severity severity;
	uint32_t ref_first, ref_last; /* source line range on each side, 0 = none */
	uint32_t gen_first, gen_last;
	char *message;
	int entry;             /* index in irdiff_result.entries, -1 = whole module */
	int row;               /* index in that entry's rows, -1 = none */
};

/* One line of the op-count table (the reference script's "Op Ref Gen Delta
 * Verdict" table). */
struct irdiff_count {
	const char *op;      /* "load_view_tko", "mma" (= mmaf + mmai + mmaf_scaled), ... */
	const char *family;  /* "critical", "arith", "info" */
	int ref, gen;
	char verdict[24];    /* "OK", "CRITICAL_DIFF", "WORKAROUND(+1)", "INFO(-2)" */
};

struct irdiff_entry {
	const char *ref_name, *gen_name; /* NULL when the entry exists on one side only */
	const struct ir_op *ref, *gen;
	size_t nrows;
	struct irdiff_row *rows;   /* NULL when irdiff_options.drop_rows */
	size_t ncounts;
	struct irdiff_count *counts;
	size_t nequal, nchanged, nref_only, ngen_only;
	bool aligned_myers; /* aligned by libgit2's Myers diff, not patience: under 1 line
			       in 64 is unique on both sides (docs/ir.md) */
};

struct irdiff_result {
	const struct ir_module *ref, *gen; /* borrowed: keep them alive as long as the result */
	size_t nentries;
	struct irdiff_entry *entries;
	size_t nfindings;
	struct irdiff_finding *findings; /* ordered by entry, then by rule */
	enum irdiff_verdict verdict;
	int ncritical, nwarn, ninfo, nnote;
	const char *alignment; /* which libgit2 diff algorithm aligned the ops (owned) */
	void *priv;            /* owns the rows' texts */
};

struct irdiff_options {
	bool keep_dead_constants; /* default false: unused constants are dropped, as
				     cuda-tile-opt --canonicalize would */
	bool texts;               /* give every op row its canonical text (views, --rows):
				     printing it is most of the cost of a diff */
	bool whole_entries;       /* give libgit2 whole entries, common ends too (the rows
				     are the same; the tests compare the two) */
	bool drop_rows;           /* free each entry's rows once its rules have run (its
				     row counts stay; rows is NULL): for reports that list
				     findings only, so that a many-entry diff holds one
				     entry's rows at a time */
};

/* Diff two modules. NULL on failure (err set; a libgit2 error is TP_EXIT_ENV). */
struct irdiff_result *irdiff_modules(const struct ir_module *ref, const struct ir_module *gen,
				     const struct irdiff_options *opt, struct tp_err *err);
void irdiff_free(struct irdiff_result *r);

/* Findings of entry i: pointer to the first and the count (findings are
 * grouped by entry). */
const struct irdiff_finding *irdiff_entry_findings(const struct irdiff_result *r, int entry,
						   size_t *n);

const char *irdiff_verdict_name(enum irdiff_verdict v);   /* "PASS", ... */
const char *irdiff_severity_name(enum irdiff_severity s); /* "CRITICAL", ... */
/* The reference diff_ir.sh exit codes: PASS 0, PASS_WITH_NOTES 2, FAIL_FIXABLE 1. */
int irdiff_exit_code(enum irdiff_verdict v);
/* "VERDICT: FAIL_FIXABLE (2 critical diff(s))" as the reference script words it. */
char *irdiff_verdict_line(const struct irdiff_result *r);

/* Entry names equal modulo the mangling of pipeline.md §1 (cuTile Python's
 * plain name, Triton-TileIR's "_name_Kt1_..." and cutile-rs's
 * "name_kernel_<hash>"); returns a score, 0 = no match, higher = better. */
int irdiff_name_match(const char *ref, const char *gen);

/* Reports. */
enum {
	IRDIFF_TEXT_ROWS = 1 << 0, /* also list the aligned rows */
};
void irdiff_report_text(const struct irdiff_result *r, const char *ref_path,
			const char *gen_path, unsigned flags, struct sbuf *out);
struct cJSON *irdiff_report_json(const struct irdiff_result *r, const char *ref_path,
				 const char *gen_path, bool with_rows);
/* A diff_report.md skeleton in the reference shape (pipeline.md §1, Agent C):
 * first line VERDICT, then Inputs, IR Validation, Automated Diff,
 * Structural Comparison, Checklist Diff, Root Cause Analysis, Impact
 * Assessment, Verdict. */
/* The ops of the reference validate_ir.sh's key-op list (load/store_ptr_tko,
 * load/store_view_tko, mmaf, reduce, make_partition_view) in every entry,
 * counted as ops: the same number `tileport validate ir` prints. */
int irdiff_key_ops(const struct ir_module *m);

void irdiff_report_markdown(const struct irdiff_result *r, const char *ref_path,
			    const char *gen_path, struct sbuf *out);

#endif
