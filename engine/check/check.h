/* Stage validators and the final output contract.
 *
 * One validator per reference script (validate_ir.sh, validate_analysis.sh,
 * validate_perf_log.sh, validate_agent_b.sh, validate_entry_pattern.sh,
 * validate_diff_report.sh, validate_agent_d.sh, validate_agent_e.sh,
 * validate_agent_f.sh, validate_kernel.sh), with the same PASS/WARN/FAIL
 * meaning (pipeline.md §1, §3, §4). Every check records a finding; a
 * report collects the findings of one or more validator runs, gives a
 * verdict and the exit code, and prints as text (ending with the reference
 * script's closing lines) or JSON.
 *
 * Offline runs: a check whose subject is a toolchain step named in the
 * context's `deferred` set reports DEFERRED instead of FAIL (or WARN);
 * every other check still applies. Rule ids, the step vocabulary and every
 * reading of a reference inconsistency are listed in
 * skill/references/validators.md. */
#ifndef TILEPORT_CHECK_CHECK_H
#define TILEPORT_CHECK_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "engine/base/util.h"

struct cJSON;

/* Ordered by weight: the verdict of a run is its heaviest finding, with
 * INFO counting as PASS. */
enum check_sev {
	CHECK_PASS,
	CHECK_INFO,
	CHECK_WARN,
	CHECK_DEFERRED,
	CHECK_FAIL,
};
const char *check_sev_name(enum check_sev sev); /* "PASS", "INFO", ... */

/* Toolchain steps an offline stage may defer (its `deferred:` line). */
enum check_step {
	CHECK_STEP_REFERENCE_IR = 1u << 0, /* "reference-ir": A's Tile IR dump */
	CHECK_STEP_GENERATED_IR = 1u << 1, /* "generated-ir": B's pipeline test + translate */
	CHECK_STEP_LAYOUT_GATE = 1u << 2,  /* "layout-gate": B's semantic-layout gate */
	CHECK_STEP_CARGO_BUILD = 1u << 3,  /* "cargo-build": B's and D's cargo builds, the cdylib */
	CHECK_STEP_PYTEST = 1u << 4,       /* "pytest": D's correctness run */
	CHECK_STEP_PERF_LOG = 1u << 5,     /* "perf-log": A's baselines and E's measurement */
};
#define CHECK_STEPS_ALL 0x3fu

/* Name of one step bit, NULL for anything else. */
const char *check_step_name(unsigned step);
/* Parse "reference-ir, cargo-build" (comma or space separated, case-
 * insensitive, an optional leading "deferred:" allowed) into step bits.
 * Unknown names are an error (code TP_EXIT_USAGE) naming the word. */
int check_steps_parse(const char *list, unsigned *steps, struct tp_err *err);
/* "reference-ir, cargo-build" in vocabulary order; caller frees. */
char *check_steps_format(unsigned steps);

/* Where to look. Every string is owned (malloc'd) by the context: set
 * them with check_ctx_set(); NULL means unset. */
struct check_ctx {
	char *kernel;      /* {k}, the operator / kernel name */
	char *out_root;    /* CUTILE_KERNEL_OUT_ROOT */
	char *run_dir;     /* OUT; defaults to out_root/kernel */
	char *tilegym;     /* TILEGYM_PATH (the workspace) */
	char *rs_root;     /* CUTILE_RS_ROOT (read by no check; reported) */
	char *kernels_dir; /* CUTILE_RS_KERNELS_DIR; NULL = the in-tree crate */
	unsigned deferred; /* enum check_step bits deferred by the stage */
	/* B's lane guards (ffi.rs, wrapper, test wiring, __init__ import)
	 * forbid host files that D writes. 1: D has already run in this run
	 * (or the op already has a cutile-rs backend), so those files are
	 * expected and the guards only report INFO; 0: enforce; -1: infer
	 * from D's reports in the run directory (the CLI default). */
	int host_written;
};

void check_ctx_init(struct check_ctx *ctx);
void check_ctx_free(struct check_ctx *ctx);
/* Replace an owned string field (value NULL or "" clears it). */
void check_ctx_set(char **field, const char *value);
/* Fill unset fields from TILEGYM_PATH, CUTILE_KERNEL_OUT_ROOT,
 * CUTILE_RS_ROOT, CUTILE_RS_KERNELS_DIR and TILEPORT_DEFERRED (empty
 * variables count as unset). Fails only on a bad TILEPORT_DEFERRED. */
int check_ctx_from_env(struct check_ctx *ctx, struct tp_err *err);
/* `--run DIR`: run_dir = DIR, out_root = its parent, and the kernel name
 * (when not set) = its last component. */
void check_ctx_set_run(struct check_ctx *ctx, const char *dir);
/* The run directory (run_dir, else out_root/kernel), or NULL when not
 * known; caller frees. */
char *check_ctx_run_dir(const struct check_ctx *ctx);

/* One finding. `file` may be NULL (not about a file); `line` 0 means the
 * whole file. `step` is the toolchain step the check is about (0: none). */
struct check_finding {
	char *rule;      /* stable id, e.g. "kernel.ffi-abi" */
	enum check_sev sev;
	char *file;
	int line;
	char *message;
	unsigned step;
	size_t run;      /* index into check_report.runs */
};

/* One validator invocation: what `tileport validate NAME ARGS` would print. */
struct check_run {
	char *name;        /* "ir", "agent-b", ... */
	char *args;        /* positional arguments, space separated */
	size_t first, count; /* its findings: findings[first .. first+count) */
	char *notes;       /* summary lines printed before the closing */
	char *closing;     /* the reference script's closing line(s) */
	enum check_sev verdict;
	int exit_code;     /* 0 or 1, as the reference script */
};

struct check_report {
	char *title;       /* "ir", "kernel", "stage B", ... */
	struct check_finding *findings;
	size_t nfindings, findings_cap;
	struct check_run *runs;
	size_t nruns, runs_cap;
	char *run_dir;     /* the run directory checked, if any */
	char *kernel;
	unsigned deferred; /* the context's deferred steps */
};

struct check_report *check_report_new(const char *title);
void check_report_free(struct check_report *r);
/* Heaviest finding over all runs (INFO counts as PASS). */
enum check_sev check_report_verdict(const struct check_report *r);
/* 1 when any run fails, else 0 (DEFERRED and WARN exit 0). */
int check_report_exit(const struct check_report *r);
/* Number of findings of each severity, indexed by enum check_sev. */
void check_report_counts(const struct check_report *r, size_t counts[5]);
/* Steps that actually produced DEFERRED findings. */
unsigned check_report_deferred_hit(const struct check_report *r);

enum check_text_flags {
	CHECK_TEXT_QUIET = 1 << 0, /* omit PASS findings */
};
/* A single run prints its findings, notes and closing lines like the
 * reference script; a report of several runs (a stage) prints each run as
 * a `<VALIDATOR_OUTPUT>` body entry: `$ tileport validate NAME ARGS`, the
 * output, `exit=N`. Finding lines read `SEV [rule] file:line: message`. */
void check_print_text(FILE *out, const struct check_report *r, unsigned flags);
/* {title, kernel, run_dir, verdict, exit_code, counts, deferred, runs[],
 * findings[{validator, rule, severity, file, line, message, step}]};
 * caller frees with cJSON_Delete. */
struct cJSON *check_report_json(const struct check_report *r);

/* The validators. Each appends one run to `r` and returns its exit code
 * (0 or 1), or -1 with `err` set when the environment does not say where
 * to look (code TP_EXIT_ENV: no run directory, or no TILEGYM_PATH for
 * `kernel`). `kernel` arguments may be NULL to use ctx->kernel. */
int check_ir(const struct check_ctx *ctx, const char *file, const char *kernel,
	     struct check_report *r, struct tp_err *err);
int check_analysis(const struct check_ctx *ctx, struct check_report *r, struct tp_err *err);
/* label NULL: the file name without its extension. */
int check_perf_log(const struct check_ctx *ctx, const char *file, const char *label,
		   struct check_report *r, struct tp_err *err);
int check_agent_b(const struct check_ctx *ctx, struct check_report *r, struct tp_err *err);
int check_entry_pattern(const struct check_ctx *ctx, struct check_report *r, struct tp_err *err);
int check_diff_report(const struct check_ctx *ctx, struct check_report *r, struct tp_err *err);
int check_agent_d(const struct check_ctx *ctx, struct check_report *r, struct tp_err *err);
int check_agent_e(const struct check_ctx *ctx, struct check_report *r, struct tp_err *err);
int check_agent_f(const struct check_ctx *ctx, struct check_report *r, struct tp_err *err);
/* The final output contract (validate_kernel.sh, all 19 checks). */
int check_kernel(const struct check_ctx *ctx, struct check_report *r, struct tp_err *err);

/* Everything stage A..F must pass (pipeline.md §1, "Validators it must
 * actually execute" and the minimum-evidence table):
 *   A  ir on every structural reference IR, analysis, perf-log on each
 *      non-empty baseline_perf_cutile.txt / baseline_perf_triton_tileir.txt
 *   B  agent-b (which runs entry-pattern)   C  diff-report
 *   D  agent-d   E  perf-log on perf_cutile_rs.txt and
 *      baseline_perf_cutile.txt, then agent-e   F  agent-f
 * Returns the report's exit code, or -1 (err set) for an unknown stage
 * (TP_EXIT_USAGE) or a missing environment (TP_EXIT_ENV). */
int check_stage(char stage, const struct check_ctx *ctx, struct check_report *r,
		struct tp_err *err);

/* The orchestrator's built-in validator (a `pipeline_checker`, see
 * engine/core/pipeline.h): stage A..F, or the final contract when
 * rq->stage is 0. rq->deferred names the steps the stage deferred (unknown
 * names are ignored and noted); an offline run's final contract defers
 * every step. Fills text (as `tileport validate` prints it), json (the
 * findings array), summary and status. The CLI hands it to every session
 * (session_opts.checker, engine/core/session.h), which gives it to the
 * runs it drives. */
struct check_request;
struct check_outcome;
int check_pipeline_checker(const struct check_request *rq, struct check_outcome *out);

/* Dispatch by reference name ("ir", "perf-log", ..., "kernel", "stage")
 * with the reference script's positional arguments; what `tileport
 * validate` runs. Wrong argument counts and unknown names fail with
 * TP_EXIT_USAGE. */
int check_by_name(const char *name, int argc, char **argv, const struct check_ctx *ctx,
		  struct check_report *r, struct tp_err *err);
/* The usage line of each name, one per line (for --help). */
const char *check_usage_lines(void);


/* ---- IR pairs of a run (irpairs.c) ---- */

/* The IR pairs of a run directory: which reference IR is compared with
 * which generated IR (pipeline.md §1, Agents A, B and C).
 *
 * Reference side, the structural set as validate_entry_pattern.sh decides
 * it: every top-level OUT/reference/reference_<v>.mlir, supplements left out
 * (reference_<x>_<dtype>.mlir beside a reference_<x>.mlir, and any file
 * analysis.json names under a "supplement" key); when there is none,
 * OUT/reference/reference.mlir (variant "").
 *
 * Generated side, per variant: OUT/generated/generated_<v>_canon.mlir, else
 * generated_<v>.mlir, else generated_<v>.tileirbc (variant "":
 * generated_canon.mlir, generated.mlir, generated.tileirbc).
 *
 * Variants pair by name. A variant present on one side only is still
 * listed, with the other side NULL, so a caller can say what is missing. */
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
