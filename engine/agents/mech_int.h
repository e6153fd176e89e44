/* Internal to the mech driver (engine/agents/mech*.c): one stage run's
 * state, its transcript and its validator block. */
#ifndef TILEPORT_AGENTS_MECH_INT_H
#define TILEPORT_AGENTS_MECH_INT_H

#include "engine/agents/mech.h"
#include "engine/agents/record.h"
#include "engine/port/port.h"

struct mech_run {
	const struct mech_ctx *c;
	struct recorder *rec;
	int ntools;        /* tool calls so far, for their ids */
	char *source_rel;  /* src/tilegym/ops/{cutile|triton}/{op}.py */
	struct sbuf block; /* the <VALIDATOR_OUTPUT> entries */
	struct sbuf log;   /* reports/agent_logs/agent_X.md: what was done */
	int nonzero;       /* block entries that did not exit 0 */
	const char *deferred; /* "reference-ir, perf-log" */
	char *handover;       /* lines after `unsupported:` in the final
			       * message (a partial translation's partial:
			       * and left: lines), or NULL */
};

/* A "text" record of the transcript. */
void mech_say(struct mech_run *r, const char *fmt, ...) TP_PRINTF(2, 3);
/* Write a run-directory file atomically (creating its folder); logged. */
int mech_write(struct mech_run *r, const char *rel, const char *text, struct tp_err *err);
/* The same for a workspace file. */
int mech_write_ws(struct mech_run *r, const char *rel, const char *text, struct tp_err *err);
/* Run `tileport ARGS...` (NULL-terminated), record it in the validator
 * block ("$ tileport ... 2>&1", its output, "exit=N"); returns the code. */
int mech_tool(struct mech_run *r, const char *const *args);
/* reports/agent_logs/agent_X.md from the log so far (validators read it). */
int mech_log_flush(struct mech_run *r, struct tp_err *err);
/* The final message: `deferred:` (offline), the block, the verdict. */
void mech_final(struct mech_run *r, const char *verdict, const char *unsupported);

/* A port error for the `unsupported:` line of a hand-over:
 * "FILE:LINE:COL: unsupported: X" -> "FILE:LINE:COL: X". Caller frees. */
char *mech_refusal(const char *msg);

/* The compile check of stage B (the kernel alone) or D (the op as the
 * workspace's lib.rs registers it), run as a tool of the stage. */
struct compile_result;
struct compile_finding;
enum mech_compiled { MECH_COMPILED, MECH_FINDINGS, MECH_NO_TOOLCHAIN };
enum mech_compiled mech_compile(struct mech_run *r, bool registered, struct compile_result *res);
/* Has stage A (or a person) put reference/reference*.mlir in the run? */
bool mech_has_reference_ir(const char *run_dir);
/* Whether every CRITICAL of the semantic check's output (there is one) is
 * a place it could not follow (`CRITICAL [sem.unread]`), not a difference:
 * then stage B lets the IR check against cuTile Python's own decide. */
bool mech_sem_only_unread(const char *out);
/* The first error in the op's own files, or NULL. */
const struct compile_finding *mech_first_error(const struct compile_result *res);
/* "FILE:LINE:COL: the translation does not compile: error[E0308]: ..." for
 * the `unsupported:` line of the hand-over. Caller frees. */
char *mech_finding_line(const struct compile_finding *f);
/* The IR check after B: every reference/reference*.mlir against its
 * generated*.mlir with tileport irdiff (lines of report appended); the
 * worst exit, 0 PASS, 2 PASS_WITH_NOTES, 1 FAIL; -1 nothing compared. */
int mech_ir_check(struct mech_run *r, struct sbuf *report);
/* reports/build_log.md of stage B (pipeline.md §2, B). Caller frees. */
char *mech_build_log(const struct mech_run *r, const struct compile_result *res,
		     enum mech_compiled how, const char *ts);
/* Stage A's reference IR with cuTile Python (mech_refir.c): true when every
 * kernel the analysis lists was compiled; report gets the section's text. */
bool mech_refir(struct mech_run *r, struct sbuf *report);

/* kernel.rs, Cargo.toml and src/lib.rs of stage B's crate. */
int mech_write_crate(struct mech_run *r, const char *kernel, struct tp_err *err);
char *mech_utc_now(void);

int mech_stage_b(struct mech_run *r, struct tp_err *err);
/* Stage B for an op whose kernels partly translate (mech_partial.c): the
 * translated kernels in kernel.rs, compiled where the toolchain is, and
 * the rest handed over. Closes op. */
int mech_stage_b_partial(struct mech_run *r, struct port_op *op, struct tp_err *err);
int mech_stage_d(struct mech_run *r, struct tp_err *err);

#endif
