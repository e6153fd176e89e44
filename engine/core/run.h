/* The run store (docs/architecture.md, "The run directory"): a run
 * directory OUT = OUT_ROOT/{op}/ in the reference layout, plus .tileport/
 * for our own state:
 *   state.json     the run state, schema-versioned, rewritten atomically
 *   events.jsonl   append-only event log (engine/core/events.h)
 *   attempts/NN-Xn[r]/  prompt.md, transcript.jsonl, stderr.log,
 *                  validator.txt, verdict.json of one spawn
 *   commands.log   every command line the run started
 *   lock           flock: one live orchestrator per run */
#ifndef TILEPORT_CORE_RUN_H
#define TILEPORT_CORE_RUN_H

#include <cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/core/table.h"
#include "engine/base/util.h"

#define RUN_SCHEMA 1

/* The run store's vocabulary: every word state.json, status output and the
 * screen use for a run's status, a gate outcome and a validator result
 * comes from one name table each (run_status_name, gate_outcome_name,
 * validator_result_name); *_parse maps a word back, -1 when unknown. */

enum run_status {
	RUN_RUNNING,          /* "running" */
	RUN_WAITING,          /* "waiting": holding for continue */
	RUN_COMPLETE,         /* "complete": ended PIPELINE_COMPLETE */
	RUN_OFFLINE_COMPLETE, /* "offline_complete": ended OFFLINE_COMPLETE */
	RUN_STOPPED,          /* "stopped": ended STOP */
	RUN_ABORTED,          /* "aborted" by hand (resume continues it) */
};
const char *run_status_name(enum run_status s);
int run_status_parse(const char *name);

/* What the acceptance gate made of an attempt's reply. */
enum gate_outcome {
	GATE_NONE,                /* "none": not gated (yet) */
	GATE_ACCEPT,              /* "accepted": a block with every exit 0 */
	GATE_ACCEPT_SOFT_MISSING, /* "soft_missing": no block, clean success text */
	GATE_REPAIR,              /* "repair": respawn once to repair the return */
	GATE_SOFT_FAILED,         /* "soft_failed": the repair was spent; routed anyway */
	GATE_SKIPPED,             /* "skipped": a person skipped the stage */
};
const char *gate_outcome_name(enum gate_outcome o);
int gate_outcome_parse(const char *name);

/* What the orchestrator's own validator said (of an attempt, or of the
 * final output contract). */
enum validator_result {
	VALIDATOR_NOT_RUN,     /* "not_run" */
	VALIDATOR_PASS,        /* "pass" */
	VALIDATOR_FAIL,        /* "fail" */
	VALIDATOR_DEFERRED,    /* "deferred": passes, except checks of steps deferred offline */
	VALIDATOR_NONE,        /* "none": no validator configured for the stage */
	VALIDATOR_UNAVAILABLE, /* "unavailable": built-in validators not in this build */
};
const char *validator_result_name(enum validator_result r);
int validator_result_parse(const char *name);

/* Whether a finished run converted its operator (docs/pipeline.md, "The
 * outcome"): PIPELINE_COMPLETE is where routing ends, not a judgement. */
enum run_outcome {
	OUTCOME_NONE,         /* "none": not finished (or finished before outcomes existed) */
	OUTCOME_ACCEPTED,     /* "accepted": the table's accepting verdict, contract passed */
	OUTCOME_NOT_ACCEPTED, /* "not_accepted": the reason says which stage, verdict or check */
	OUTCOME_PENDING,      /* "pending": OFFLINE_COMPLETE; the online stages decide */
};
const char *run_outcome_name(enum run_outcome o);
int run_outcome_parse(const char *name);
/* "accepted", "not accepted", "pending", "-": the word people read. */
const char *run_outcome_words(enum run_outcome o);

enum attempt_state {
	ATTEMPT_RUNNING, /* spawned; no result recorded yet */
	ATTEMPT_JUDGED,  /* the agent ended and its reply was judged (verdict saved);
	                  * the validator and the routing are still to come */
	ATTEMPT_DONE,    /* finished and routed */
	ATTEMPT_SKIPPED, /* a manual skip stands in for it */
};

struct attempt {
	int seq;      /* NN: order of spawns in the run, from 1 */
	char stage;   /* X */
	int n;        /* counted runs of X including this one */
	bool repair;  /* the reformat/repair retry of the previous spawn */
	bool counts;  /* counts against the cap (not repair, not deferred) */
	bool manual;  /* started by a person (re-spawn, skip) */
	bool offline; /* ran with TILEPORT_OFFLINE=1 */
	enum attempt_state state;
	char *dir;    /* "NN-Xn" or "NN-Xnr", under .tileport/attempts/ */
	char *driver; /* driver spec used */
	int64_t started, ended; /* wall-clock ms */
	long pid;               /* process group of the running agent */
	long long pid_start;    /* its start time (clock ticks), to recognise it */
	char *exit;             /* "exit 0", "timed out after 3.0s", ... */
	char *stderr_tail;      /* the last lines of stderr.log when it did not exit 0 */
	char *claimed;          /* the VERDICT the agent returned */
	char *verdict;          /* the verdict routed on */
	char *klass;            /* owner class routed on */
	bool class_defaulted;   /* the tag was missing; the table's default applied */
	bool overruled;         /* the validator failed a success claim: verdict substituted */
	bool owner_unknown;     /* its report tags no owner and nobody chose one yet */
	enum gate_outcome gate;
	char *gate_reason;
	enum validator_result validator;
	char **soft;            /* soft markers recorded for this attempt */
	char **deferred;        /* toolchain steps the agent deferred */
	long long tokens_in, tokens_out;
	double cost;
	int route_row, route_line; /* 0 when no row fired (repair, cap, manual) */
	char *action;              /* "spawn B", "STOP", "repair", ... */
	char *note;                /* why, in words */
	/* The reply's `unsupported:` line, "FILE:LINE:COL: construct": the
	 * driver could not do this operator's stage. */
	char *refusal;
	/* The driver that refused, when it is deterministic (mech): running it
	 * again on the same input refuses the same way, so nothing repeats it. */
	char *refused_by;
	char *partial;             /* where an interrupted run's leftovers went, or NULL */
	int npartial;              /* how many files */
};

struct run_next {
	bool set;
	char stage;
	bool repair;
	bool manual;
	bool beyond_cap;
};

struct run_state {
	int schema;
	char *version;
	char *op, *workspace, *out_root, *run_dir, *table;
	enum run_status status;
	char *final;  /* PIPELINE_COMPLETE, OFFLINE_COMPLETE, STOP or NULL */
	char *reason; /* why the run ended or waits, in words */
	bool offline;
	char **missing; /* preflight items missing when the run was (re)started */
	int64_t created, updated;
	struct run_next next;
	struct attempt *att;
	size_t natt, capatt;
	int repairs[STAGE_LETTERS];   /* repair retries used per letter */
	char *drivers[STAGE_LETTERS]; /* driver spec per stage letter, as configured */
	/* the run took drivers[X] by default (no --driver, no driver.X): resume
	 * --online chooses it again, for a run with the toolchain */
	bool drivers_default[STAGE_LETTERS];
	char *validators[STAGE_LETTERS];
	enum validator_result contract; /* the final output contract (of a complete run) */
	enum run_outcome outcome;       /* set when the run ends */
	char *outcome_reason;           /* why it is not accepted (or pending), in words */
	bool hold;      /* wait for "continue" before each spawn */
	/* run --again: the cuTile Rust port the workspace had when the run
	 * was created (paths relative to it); NULL for an operator without. */
	char **port_before;
};

/* Paths inside a run directory; caller frees. */
char *run_path(const char *run_dir, const char *rel);
char *run_attempt_dir(const struct run_state *st, const struct attempt *a);
/* Where a repair keeps what it removes: the latest attempt's folder, or
 * .tileport when there is none. Caller frees. */
char *run_keep_dir(const struct run_state *st);

void run_state_init(struct run_state *st);
void run_state_free(struct run_state *st);
/* The state as state.json holds it (caller deletes). */
cJSON *run_state_to_json(const struct run_state *st);
int run_state_save(const struct run_state *st, struct tp_err *err);
int run_state_load(const char *run_dir, struct run_state *st, struct tp_err *err);
bool run_exists(const char *run_dir);
/* run --fresh: the run at run_dir goes to run_dir.N, the first free N,
 * whole and untouched (*aside: where; caller frees); refused while an
 * orchestrator holds it. */
int run_move_aside(const char *run_dir, char **aside, struct tp_err *err);

struct attempt *run_add_attempt(struct run_state *st);
struct attempt *run_attempt_by_seq(struct run_state *st, int seq);
struct attempt *run_last_attempt(struct run_state *st);
/* The latest attempt of a stage, or NULL when it has not run. */
struct attempt *run_latest_attempt(struct run_state *st, char stage);
/* Tokens and cost of the attempts' agents, summed for one stage, or for
 * the whole run when stage is 0. */
struct run_usage {
	long long tokens_in, tokens_out;
	double cost;
};
struct run_usage run_state_usage(const struct run_state *st, char stage);
/* Counted attempts of a stage (the cap and the routing conditions use this). */
int run_count(const struct run_state *st, char stage);
void attempt_add_soft(struct attempt *a, const char *marker);
/* Attempt i deferred steps that are still owed: it answered DEFERRED and
 * its stage has not run again online since (resume --online re-does them). */
bool run_deferred_owed(const struct run_state *st, size_t i);
/* "running", "judged", "done", "skipped" */
const char *attempt_state_name(enum attempt_state s);

/* One orchestrator per run: flock on the .tileport directory itself, which
 * cannot be deleted from under a live run as a lock file could; our pid is
 * written to .tileport/lock for the message another tileport gives.
 * Refuses a run whose own files are not regular files (run_check_files).
 * Returns the fd, or -1 with a message naming the holder's pid when another
 * one holds it. */
int run_lock(const char *run_dir, struct tp_err *err);
void run_unlock(int fd);
/* Is the lock held by a live process right now (without taking it)? */
bool run_locked(const char *run_dir);
/* The lock fd still locks the directory at RUN/.tileport (it was not
 * moved away and replaced): 0, or -1 with the reason. Checked at every
 * state save of a live run. */
int run_lock_check(const char *run_dir, int fd, struct tp_err *err);
/* RUN/.tileport is a directory and each of its own files (state.json,
 * events.jsonl, commands.log, lock, contract.txt) that exists is a regular
 * file, never a link: 0, or -1 naming the first that is not. */
int run_check_files(const char *run_dir, struct tp_err *err);

/* Runs in an output root, newest first. */
struct run_summary {
	char *op, *run_dir, *final;
	enum run_status status;
	char *error; /* its state.json could not be read: why (the run is "unreadable") */
	char stage;   /* stage of the latest attempt, or 0 */
	enum run_outcome outcome;
	char *outcome_reason;
	bool running; /* an orchestrator holds the lock */
	int64_t updated;
	int attempts;
};
int runs_list(const char *out_root, struct run_summary **out, size_t *n, struct tp_err *err);
/* The state to show: "interrupted" for a run saved as running or waiting
 * that no orchestrator holds (it died), else the final state (when given)
 * or the status. */
const char *run_display_state(enum run_status status, const char *final, bool locked);
/* The same for a listed run; "unreadable" when its state could not be read. */
const char *run_summary_state(const struct run_summary *s);
void runs_free(struct run_summary *v, size_t n);


/* Start time of a process (field 22 of /proc/PID/stat), or -1. */
long long proc_start_time(long pid);

#endif
