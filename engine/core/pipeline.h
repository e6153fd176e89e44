/* The orchestrator (docs/architecture.md, "Modules and their doors"): a
 * deterministic state machine over the pipeline table. It spawns one stage
 * at a time through its driver, applies the acceptance gate to the reply,
 * runs the stage's validator itself, reads the owner class, routes by the
 * table under the spawn caps, applies one repair retry per letter and the
 * soft markers, checks the final output contract, and records everything in
 * the run store. It runs on the shared event loop; listeners (the headless
 * printer, the TUI) see every event and every line a stage prints.
 *
 * Crash safety: state.json is rewritten atomically at every step; an
 * attempt that was running when the orchestrator died is re-run under the
 * same number on resume, after its leftover process group is killed. */
#ifndef TILEPORT_CORE_PIPELINE_H
#define TILEPORT_CORE_PIPELINE_H

#include <cJSON.h>
#include <stdbool.h>

#include "engine/core/driver.h"
#include "engine/base/loop.h"
#include "engine/core/run.h"
#include "engine/core/table.h"
#include "engine/base/util.h"

struct pipeline;

/* A stage's own validation, supplied by engine/check through the CLI (core
 * cannot depend on it). Returns 0 when it ran; status says the outcome
 * (VALIDATOR_PASS, VALIDATOR_FAIL or VALIDATOR_DEFERRED). */
struct check_request {
	const char *op, *run_dir, *out_root, *workspace;
	char stage; /* 0 for the final output contract */
	char *const *deferred;
	bool offline;
};
struct check_outcome {
	enum validator_result status;
	char *text;    /* report as the reference scripts print it */
	char *json;    /* findings as a JSON array, or NULL */
	char *summary; /* one line */
};
typedef int (*pipeline_checker)(const struct check_request *rq, struct check_outcome *out);
void check_outcome_free(struct check_outcome *o);

/* The driver spec and the validator command per stage letter (NULL: none
 * given; docs/pipeline.md, "Drivers"). */
struct stage_commands {
	const char *drivers[STAGE_LETTERS];
	const char *validators[STAGE_LETTERS];
};

struct pipeline_opts {
	const char *op;         /* new runs */
	const char *workspace;  /* TileGym checkout */
	const char *out_root;   /* where the run directory goes */
	const char *table_path; /* NULL: table_default_path() */
	struct stage_commands commands; /* override the run's own where set */
	bool hold;              /* wait for pipeline_continue() before each spawn */
	bool online;            /* resume: re-run the deferred stages with the toolchain */
	bool ask;               /* a person answers (the screen): a missing owner tag waits */
	bool fresh;             /* new runs: an existing run of the op is moved aside (OP.1,
	                         * OP.2 ...), never deleted */
	bool again;             /* new runs: convert an operator that already has a cuTile
	                         * Rust port (recorded in the run: its lane checks know) */
	int64_t kill_grace_ms;  /* TERM -> KILL delay for stages (0: 2000) */
	pipeline_checker checker; /* the "builtin" validators; NULL: not in this build */
	const char *secret_vars; /* more variables whose values are secret (redact.h) */
	char *const *secret_files; /* NAME=PATH: files whose content is secret, named
	                          * NAME (the llm driver's key file) */
	long long transcript_max; /* a transcript's cap in bytes; 0: the default, <0: none */
	const struct driver_catalog *catalog; /* built-in drivers and defaults; NULL: exec only */
};
#define PIPELINE_TRANSCRIPT_MAX (64LL << 20)

enum pipeline_event_kind {
	PEV_EVENT,  /* a record appended to events.jsonl (ev) */
	PEV_OUTPUT, /* a line a running stage printed (line, len, is_stderr) */
	PEV_METER,  /* the running attempt's tokens or cost went up (seq, stage) */
};
struct pipeline_event {
	enum pipeline_event_kind kind;
	const cJSON *ev;
	const char *line;
	size_t len;
	bool is_stderr;
	int seq;    /* attempt the line belongs to */
	char stage;
};
typedef void (*pipeline_listener)(struct pipeline *p, const struct pipeline_event *e, void *ud);

/* Is arg an operator of the workspace that a run may take (a name or a
 * path, engine/base/operator.h), its name in *name (caller frees; name may
 * be NULL)? -1 with an exit-2 message naming what was looked for when not,
 * and when the operator already has a cuTile Rust port, unless `again`. */
int pipeline_check_op(const char *workspace, const char *arg, bool again, char **name,
		      struct tp_err *err);

/* Start a new run of opts->op. Checks the table, the workspace, the op and
 * the drivers before writing anything; errors carry exit 2 (input) or 3
 * (environment, including "offline work impossible"). */
int pipeline_create(struct pipeline **out, struct loop *l, const struct pipeline_opts *o,
		    struct tp_err *err);
/* Take over an existing run (resume or attach). Its interrupted attempt, if
 * any, is re-run when the pipeline starts (or on continue when holding). */
int pipeline_resume(struct pipeline **out, struct loop *l, const char *run_dir,
		    const struct pipeline_opts *o, struct tp_err *err);
void pipeline_listen(struct pipeline *p, pipeline_listener fn, void *ud);
/* Stop telling fn/ud (a view that closes before the run ends). */
void pipeline_unlisten(struct pipeline *p, pipeline_listener fn, void *ud);
/* Begin routing on the loop (spawns are scheduled, never run inline). */
void pipeline_start(struct pipeline *p);
void pipeline_free(struct pipeline *p);

bool pipeline_busy(const struct pipeline *p);     /* a stage or validator is running, or a step is due */
bool pipeline_finished(const struct pipeline *p); /* complete, offline complete, stopped or aborted */
/* 0 for an accepted run or OFFLINE_COMPLETE, 1 for any other end (STOP, a
 * PIPELINE_COMPLETE that is not accepted, aborted), 3 state not saved. */
int pipeline_exit_code(const struct pipeline *p);
/* Why the run stopped because its state or events could not be saved (a
 * full disk), or NULL: the exit code is then TP_EXIT_ENV. A manual action
 * returns it as its error; a driver of the loop says it once at the end. */
const char *pipeline_failure(const struct pipeline *p);
const struct run_state *pipeline_state(const struct pipeline *p);
const struct table *pipeline_table(const struct pipeline *p);
/* The attempt running now, or NULL. */
const struct attempt *pipeline_running(const struct pipeline *p);

/* Manual actions (docs/pipeline.md, "Manual actions"). Each records a manual
 * event in events.jsonl. They fail (with a message) while a stage runs,
 * except abort. */
int pipeline_continue(struct pipeline *p, struct tp_err *err);
int pipeline_abort(struct pipeline *p, struct tp_err *err);
int pipeline_override(struct pipeline *p, int seq, const char *verdict, const char *reason,
		      struct tp_err *err);
int pipeline_skip(struct pipeline *p, char stage, const char *reason, struct tp_err *err);
int pipeline_respawn(struct pipeline *p, char stage, bool beyond_cap, struct tp_err *err);
int pipeline_revalidate(struct pipeline *p, int seq, struct tp_err *err);
/* The owner class of the latest attempt when its report tagged none (the
 * table's missing_owner = stop): one of the verdict's classes, or "stop";
 * with a reason, recorded like an override. The run may be waiting for it
 * or have stopped on it. */
int pipeline_set_owner(struct pipeline *p, int seq, const char *klass, const char *reason,
		       struct tp_err *err);
/* The attempt whose owner class the run waits for (or stopped on), or NULL. */
const struct attempt *pipeline_owner_wanted(const struct pipeline *p);

#endif
