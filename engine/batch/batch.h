/* Batches (docs/batch.md): many conversion runs at once, under one record
 * OUT/.tileport-batch/NAME/batch.json that lists each operator, its run
 * directory, its job and its state. Two executors run them:
 *   local  up to N runs at once as child processes of this tileport, on the
 *          shared loop, each `tileport run OP --headless` (or `resume`);
 *   slurm  one job array (sbatch --array=0-K%N) whose task i runs operator
 *          i; squeue and scontrol track it, scancel cancels it.
 * Each run's own state.json stays the truth for how far it got and how it
 * ended: a job's state only explains a run that ended without a verdict.
 *
 * The record is rewritten atomically (temp, fsync, rename) and one tileport
 * at a time changes it (flock on the batch folder's lock): the local
 * executor holds the lock while it runs; Slurm commands take it for one
 * read-change-write. */
#ifndef TILEPORT_BATCH_BATCH_H
#define TILEPORT_BATCH_BATCH_H

#include <cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/base/config.h"
#include "engine/core/session.h"
#include "engine/base/util.h"

#define BATCH_SCHEMA 1
#define BATCH_FOLDER ".tileport-batch" /* under the output root */

enum batch_executor { BATCH_LOCAL, BATCH_SLURM };

enum batch_state {
	BST_PENDING,     /* not started */
	BST_QUEUED,      /* waiting for a slot (local) or in the Slurm queue */
	BST_RUNNING,
	BST_COMPLETE,    /* the run ended PIPELINE_COMPLETE */
	BST_OFFLINE,     /* OFFLINE_COMPLETE */
	BST_STOPPED,     /* STOP on a verdict */
	BST_INTERRUPTED, /* ended without a verdict: killed, preempted, timed out, node lost */
	BST_CANCELLED,   /* cancelled by hand */
	BST_FAILED,      /* its job ended before the run existed (see why) */
	BST__COUNT
};

const char *batch_state_name(enum batch_state s); /* "pending", "offline_complete", ... */
int batch_state_parse(const char *name);          /* -1 when unknown */
const char *batch_executor_name(enum batch_executor e);
/* Ended on a verdict of its own: complete, offline complete, stopped. */
bool batch_state_final(enum batch_state s);
/* Queued or running: a job or child is (or will be) working on it. */
bool batch_state_active(enum batch_state s);

/* Slurm settings (config [slurm] and batch start options). */
struct batch_slurm {
	char *partition, *account, *qos, *time, *gres;
	char **sbatch_args;  /* extra sbatch arguments, in order */
	char *tileport;      /* the tileport binary as the compute nodes see it */
	int64_t poll_ms;     /* squeue/scontrol every poll_ms while following */
	bool probe;          /* check at start that nodes see the output root */
	int64_t probe_timeout_ms, probe_grace_ms;
	char *probe_node;    /* where the probe job ran */
};

/* One sbatch of a job array: task i ran ops[i]. */
struct batch_submission {
	char *job;    /* the array's job id */
	char *script; /* in the batch folder */
	char **ops;
	int64_t at;
};

struct batch_op {
	char *op;
	char *run_dir;        /* OUT/OP */
	enum batch_state state;
	char *job;            /* Slurm "JOBID_TASK", local "pid N"; NULL until started */
	long long pid_start;  /* local: the child's start time, to recognise it */
	char *node;
	char *why;            /* how the last job or child ended, in words */
	int starts;           /* times started or submitted */
	int64_t started, ended;
};

struct batch_record {
	int schema;
	char *version, *name;
	char *dir;            /* OUT/.tileport-batch/NAME, where it was read from */
	enum batch_executor executor;
	char *workspace, *out_root;
	int jobs;             /* runs at once */
	char **run_args;      /* given to every run: --driver X=SPEC, --validator, --table */
	struct batch_slurm slurm;
	struct batch_submission *subs;
	size_t nsubs;
	struct batch_op *ops;
	size_t nops;
	int64_t created, updated;
};

/* Names are letters, digits and "._-", not starting with '.'. */
bool batch_name_ok(const char *name);
char *batch_dir_of(const char *out_root, const char *name); /* caller frees */
/* A BATCH argument: a batch folder, its batch.json, or a name in out_root.
 * NULL when it is none of them. */
char *batch_resolve(const char *arg, const char *out_root);
/* The most recently created batch in out_root, or NULL. */
char *batch_latest(const char *out_root);
int batch_record_load(const char *dir, struct batch_record *r, struct tp_err *err);
/* Write batch.json atomically. lock_fd: the record's lock as this process
 * holds it, checked first (-1 with err when its file was removed or
 * replaced: another tileport may have the batch), or -1 for a record no
 * other process can know of yet. */
int batch_record_save(struct batch_record *r, int lock_fd, struct tp_err *err);
void batch_record_free(struct batch_record *r);

/* --all: every operator with a cuTile Python or Triton kernel
 * (src/tilegym/ops/{cutile,triton}/, subfolders included; helper modules
 * without a kernel are none, engine/base/operator.h) and no cutile-rs port
 * yet (src/tilegym/ops/cutile_rs/OP_kernel/ or OP.py), sorted by name.
 * left_out (may be NULL): the operators not taken, each with why. */
int batch_discover(const char *workspace, char ***ops, char ***left_out, struct tp_err *err);

/* What an op's run says: its run model (engine/core/session.h), followed
 * while the batch is, and the geomean of its reports/performance.md. */
struct batch_progress {
	bool exists;          /* the run has a readable state.json */
	char *error;          /* why it could not be read */
	char *final, *reason;
	enum run_outcome outcome; /* whether the run converted its operator (a run that
				     ends PIPELINE_COMPLETE need not have) */
	char *outcome_reason;
	char stage;           /* of the latest attempt; 0 before any */
	char *verdict;        /* of the latest attempt */
	char *attempts;       /* counted runs per stage: "A1 B2 D1" */
	bool locked;          /* an orchestrator holds the run */
	int64_t running_since; /* start of an attempt still running, else 0 */
	double geomean;       /* geomean_ratio of reports/performance.md; NAN: none */
	long long tokens_in, tokens_out;
	double cost;
	int64_t elapsed_ms;   /* attempts' time, the running one up to now */
	char *last_event;     /* the msg of the last event */
	/* The run stopped on a refusal by a driver without a model (mech):
	 * the driver, the stage and "FILE:LINE:COL: construct". */
	char *refused_by, *refusal;
	char refused_stage;
};

/* Time spent in the run's attempts, a running one counted up to now. */
int64_t batch_progress_elapsed(const struct batch_progress *p, int64_t now);

/* ---- settings: [batch] and [slurm] of the config files ---- */

/* For session_open's check (engine/core/session.h): 1 a batch setting with
 * a good value, 0 not one, -1 a bad value (err says what was expected). */
int batch_setting_check(const struct config_entry *e, struct tp_err *err);
extern const char batch_settings_hint[];
/* The settings as the (checked) config has them; strings are the
 * config's. executor -1 and jobs 0 when unset. */
struct batch_config {
	int executor;
	int jobs;
	bool slurm_configured; /* any slurm.* setting: Slurm is the default */
	struct batch_slurm slurm;
};
void batch_config_read(const struct config *c, struct batch_config *out);
void batch_config_free(struct batch_config *c);

/* A batch on the session's loop: followed (its jobs observed, its runs'
 * models listened to) and, for the local executor, driven (its runs are
 * children of this process). */
struct batch;

/* Every change: msg is a line for people ("softmax: running"), op its
 * index; or msg is NULL (op SIZE_MAX) for a change not worth a line (a
 * run's progress, a job's node). */
typedef void (*batch_listener)(struct batch *b, size_t op, const char *msg, void *ud);

struct batch_spec {
	const char *name;       /* NULL: the start time, YYYYmmdd-HHMMSS */
	char *const *ops;
	enum batch_executor executor;
	int jobs;
	char *const *run_args;
	bool fresh;             /* an operator's existing run is moved aside (OP.1 ...) first */
	bool again;             /* operators with a cuTile Rust port are taken too (give
	                         * --again in run_args as well) */
	const struct batch_slurm *slurm;
	batch_listener told;    /* hears what the start does (the probe job's wait, the
	                         * submission) until batch_start returns; may be NULL */
	void *told_ud;
};

/* Start a batch in the session's workspace and output root: check every
 * operator and (Slurm) that sbatch works and a compute node sees the
 * output root, then write the record and start (local) or submit (Slurm)
 * every run. Nothing is written when a check fails; errors carry exit 2
 * (input, rejected submission) or 3 (environment). Local runs begin once
 * the session's loop runs. */
int batch_start(struct batch **out, struct session *s, const struct batch_spec *spec,
		struct tp_err *err);
/* An existing batch (status, report, resume, cancel, the batch view). */
int batch_open(struct batch **out, struct session *s, const char *dir, struct tp_err *err);
/* Frees, before its session is closed. Local children still running are
 * killed (batch_stop_wait stops them so that they save first). */
void batch_free(struct batch *b);

const struct batch_record *batch_record(const struct batch *b);
const struct batch_progress *batch_progress(const struct batch *b, size_t i);
/* Why the last observation failed (squeue unreachable, ...), or NULL. */
const char *batch_problem(const struct batch *b);
/* Does this process run the batch's local children? */
bool batch_driving(const struct batch *b);
/* Some op is queued or running. */
bool batch_going(const struct batch *b);
/* A child is being started or stopped right now (script mode waits). */
bool batch_settling(const struct batch *b);
/* 0 when every op converted (complete and accepted) or ended offline complete,
 * else 1: as `tileport run` exits. */
int batch_exit_code(const struct batch *b);

/* Observe once now (jobs, runs) and wait for the answer; the record is
 * saved when this process may write it. */
int batch_refresh(struct batch *b, struct tp_err *err);
/* Keep observing on the loop (for views and --wait). */
void batch_follow(struct batch *b, bool on);

/* Resume: start (local) or re-submit (Slurm) every run that ended without
 * a verdict of its own, and re-run from scratch the STOPped ones named in
 * rerun (their old run directory is kept in the batch folder). Finished
 * runs are never run again; a run that was mid-stage continues from its
 * own state. *started gets how many runs were (re)started. */
int batch_resume(struct batch *b, char *const *rerun, size_t *started, struct tp_err *err);
/* The ops the last resume left alone because their failure cannot change
 * by starting them again (a refusal the batch's drivers would repeat, a
 * refused input), each "OP ...why...; what would"; NULL when none. */
char *const *batch_resume_kept(const struct batch *b);
/* How many ops a plain resume would start now; named: how many stopped
 * ones --rerun OP would start afresh (none whose refusal would repeat). */
size_t batch_resumable(const struct batch *b, bool named);
/* The same for one op (the batch view's R): a stopped one is re-run. */
int batch_resume_op(struct batch *b, size_t i, struct tp_err *err);
/* Cancel the named ops (NULL: every active one): scancel, or stop the
 * local run (it saves its state, and resume continues it). Returns how
 * many were cancelled, or -1 (a named op that is not queued or running:
 * exit 2). */
int batch_cancel(struct batch *b, char *const *ops, struct tp_err *err);
/* Runs at once from now on (resume --jobs). */
void batch_set_jobs(struct batch *b, int jobs);
/* Local: stop every child now (a signal, the screen quitting); each saves
 * its run. Returns at once; batch_settling is true until they are gone. */
void batch_stop(struct batch *b);
/* batch_stop, then serve the loop until the children are gone (not from
 * inside a loop callback). */
void batch_stop_wait(struct batch *b);

/* Listeners hear every change (batch_listener, above). */
void batch_listen(struct batch *b, batch_listener fn, void *ud);
void batch_unlisten(struct batch *b, batch_listener fn, void *ud);

struct batch_totals {
	size_t ops;
	size_t converted;     /* complete and accepted (docs/pipeline.md, "The outcome") */
	size_t not_accepted;  /* complete, but not accepted (or ended before outcomes) */
	size_t offline, stopped;
	size_t failed;        /* its job or child ended before its run existed */
	size_t unfinished;    /* pending, queued, running, interrupted, cancelled */
	size_t with_geomean;
	double geomean;       /* over the converted ops that have one; NAN: none */
	long long tokens_in, tokens_out;
	double cost;
	int64_t elapsed_ms;
};
void batch_totals(const struct batch *b, struct batch_totals *t);
/* The op's run ended PIPELINE_COMPLETE and was accepted. */
bool batch_op_converted(const struct batch_op *o, const struct batch_progress *p);
/* How the op's run ended, in words: "PIPELINE_COMPLETE, not accepted: WHY"
 * for a complete run (its outcome), "FINAL: REASON" for another end ("-"
 * for a final state its run does not name). False, buf empty, before. */
bool batch_ended_text(const struct batch_op *o, const struct batch_progress *p, char *buf,
		      size_t n);
/* The batch as `batch status --json` and `batch report --json` print it:
 * the record's fields, one object per op with its progress, and totals. */
cJSON *batch_to_json(const struct batch *b);

#endif
