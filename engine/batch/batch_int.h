/* Inside engine/batch: the batch on a loop, the executor interface, and
 * the pure rules (job states, resume decisions, Slurm output) that the unit
 * tests check on their own. */
#ifndef TILEPORT_BATCH_BATCH_INT_H
#define TILEPORT_BATCH_BATCH_INT_H

#include "engine/batch/batch.h"

/* What an op's job (or local child) is doing, as far as it can be seen. */
enum job_phase {
	JOB_NONE,      /* never started */
	JOB_WAITING,   /* queued */
	JOB_RUNNING,
	JOB_CANCELLED, /* ended by scancel or by hand */
	JOB_ENDED,     /* ended any other way (exit, timeout, node failure, preemption) */
	JOB_GONE,      /* no longer known: purged by Slurm, or its tileport is gone */
};

/* The op's state: a run that ended on a verdict has that state, whatever
 * its job did; otherwise the job says. */
enum batch_state batch_state_from(const struct batch_progress *p, enum job_phase phase);

enum batch_resume_action { BRA_KEEP, BRA_RESUME, BRA_RERUN };
/* What resume does with an op; named is true when --rerun named it;
 * repeats: its run stopped on a refusal that a run with the batch's
 * drivers would repeat (batch_refusal_repeats). -1 (exit 2) when --rerun
 * names one that cannot be re-run or would fail the same way. A failure
 * that cannot change is kept with why in *kept (caller frees; may be
 * NULL), so that resume says so. */
int batch_resume_decide(const struct batch_op *o, const struct batch_progress *p, bool named, bool repeats,
			enum batch_resume_action *act, char **kept, struct tp_err *err);

/* ---- Slurm output ---- */
struct slurm_job {
	char *id;     /* "JOBID_TASK" (or "JOBID" for a job without an array) */
	char *state;  /* RUNNING, NODE_FAIL, ... */
	char *node, *reason, *exit;
};
void slurm_jobs_free(struct slurm_job *v, size_t n);
/* squeue -h -r -o '%i|%T|%N|%r' */
void slurm_parse_squeue(const char *text, struct slurm_job **out, size_t *n);
/* scontrol -o show job ID: one record per line, KEY=VALUE words; a task
 * range still pending ("ArrayTaskId=2-5%2") gives one job per task. */
void slurm_parse_scontrol(const char *text, struct slurm_job **out, size_t *n);
/* The job id of `sbatch --parsable` ("ID" or "ID;CLUSTER"), or NULL. */
char *slurm_parse_jobid(const char *text);
enum job_phase slurm_phase(const char *state);
/* A failed sbatch: TP_EXIT_ENV when the controller could not be reached,
 * TP_EXIT_USAGE when it refused what was asked (partition, account, ...). */
int slurm_error_code(const char *stderr_text);

/* ---- the batch on a loop ---- */
struct batch_exec {
	/* Start (local) or submit (Slurm) ops idx[0..n), already QUEUED. */
	int (*launch)(struct batch *b, const size_t *idx, size_t n, struct tp_err *err);
	int (*cancel)(struct batch *b, size_t i, struct tp_err *err);
	/* Look at the jobs; batch_observed() follows, maybe later on the loop. */
	void (*observe)(struct batch *b);
	bool (*settling)(const struct batch *b);
	void (*stop)(struct batch *b);
	void (*free)(struct batch *b);
};
extern const struct batch_exec batch_local_exec, batch_slurm_exec;

struct batch_ls {
	batch_listener fn;
	void *ud;
};

struct local_state;
struct slurm_state;

/* An op's run model, once its run exists. */
struct op_run {
	struct batch *b;
	size_t i;
	struct run_model *m;
};

struct batch {
	struct session *s;
	struct loop *loop;  /* the session's */
	struct batch_record rec;
	struct batch_progress *prog; /* one per op */
	struct op_run *runs;         /* one per op */
	const struct batch_exec *exec;
	int lock_fd;        /* held for good: this process drives the batch */
	bool following;
	bool observing;     /* an observation is under way */
	int64_t observed_at;
	int jobs_override;  /* batch_set_jobs: wins over the record's */
	bool dirty;         /* the record changed since it was written */
	uint64_t timer;
	char *problem;
	struct batch_ls *ls;
	size_t nls, capls;
	struct local_state *local;
	struct slurm_state *slurm;
	char **kept; /* the last resume's ops whose failure cannot change, each with why */
};

char *batch_path(const struct batch_record *r, const char *rel); /* in the batch folder */
/* Take the record's lock: -1 with a message naming the holder when another
 * tileport has it. */
int batch_lock(const struct batch_record *r, struct tp_err *err);
/* Is fd still the record's lock (its file not removed or replaced)?
 * batch_record_save checks it before every write, as a run's lock is. */
int batch_lock_check(const struct batch_record *r, int fd, struct tp_err *err);
void batch_progress_free(struct batch_progress *p);
/* Op i's progress from its run (opening its model once the run exists;
 * now: re-read the run first). True when anything changed. */
bool batch_progress_read(struct batch *b, size_t i, bool now);
/* Its run model said it changed (ctl.c tells listeners). */
void batch_progress_changed(struct batch *b, size_t i);
/* Let go of op i's run (it was moved aside: a re-run). */
void batch_progress_forget(struct batch *b, size_t i);
/* Tell listeners: a line for people, or (batch_changed) a quiet change. */
void batch_note(struct batch *b, size_t op, const char *fmt, ...) TP_PRINTF(3, 4);
void batch_changed(struct batch *b);
/* Set an op's state (and why), telling listeners when it changed. */
void batch_set_state(struct batch *b, size_t i, enum batch_state s, const char *why);
/* An observation ended (problem: NULL or why it failed). */
void batch_observed(struct batch *b, const char *problem);
/* Write the record if this process may: it drives the batch, or it takes
 * the lock for this one write (re-reading it first, so that nothing
 * another tileport wrote is lost). */
int batch_save(struct batch *b, struct tp_err *err);
/* The arguments of `tileport run OP` / `tileport resume RUN` for op i, as
 * a NULL-terminated vector after the program name (caller frees). */
char **batch_run_argv(const struct batch *b, size_t i, const char *prog);
/* Where a child's or task's output goes. */
char *batch_log_path(const struct batch *b, size_t i);

#endif
