/* The run store (design §4.2): a run directory OUT = OUT_ROOT/{op}/ in the
 * reference layout, plus .tileport/ for our own state:
 *   state.json     the run state, schema-versioned, rewritten atomically
 *   events.jsonl   append-only event log (engine/core/events.h)
 *   attempts/NN-Xn[r]/  prompt.md, transcript.jsonl, stderr.log,
 *                  validator.txt, verdict.json of one spawn
 *   commands.log   every command line the run started
 *   lock           flock: one live orchestrator per run */
#ifndef TILEPORT_CORE_RUN_H
#define TILEPORT_CORE_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cJSON.h>

#include "engine/core/util.h"

#define RUN_SCHEMA 1

enum attempt_state {
	ATTEMPT_RUNNING, /* spawned; no result recorded yet */
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
	char *claimed;          /* the VERDICT the agent returned */
	char *verdict;          /* the verdict routed on */
	char *klass;            /* owner class routed on */
	bool class_defaulted;   /* the tag was missing; the table's default applied */
	char *gate;             /* accepted, soft_missing, repair, soft_failed */
	char *gate_reason;
	char *validator;        /* pass, fail, deferred, missing, none */
	char **soft;            /* soft markers recorded for this attempt */
	char **deferred;        /* toolchain steps the agent deferred */
	long long tokens_in, tokens_out;
	double cost;
	int route_row, route_line; /* 0 when no row fired (repair, cap, manual) */
	char *action;              /* "spawn B", "STOP", "repair", ... */
	char *note;                /* why, in words */
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
	char *status; /* running, waiting, complete, offline_complete, stopped, aborted */
	char *final;  /* PIPELINE_COMPLETE, OFFLINE_COMPLETE, STOP or NULL */
	char *reason; /* why the run ended or waits, in words */
	bool offline;
	char **missing; /* preflight items missing when the run was (re)started */
	int64_t created, updated;
	struct run_next next;
	struct attempt *att;
	size_t natt, capatt;
	int repairs[26];   /* repair retries used per letter */
	char *drivers[26]; /* driver spec per stage letter, as configured */
	char *validators[26];
	char *contract; /* final output contract: pass, fail, not_run */
	bool hold;      /* wait for "continue" before each spawn */
};

/* Paths inside a run directory; caller frees. */
char *run_path(const char *run_dir, const char *rel);
char *run_attempt_dir(const struct run_state *st, const struct attempt *a);

void run_state_init(struct run_state *st);
void run_state_free(struct run_state *st);
int run_state_save(const struct run_state *st, struct tp_err *err);
int run_state_load(const char *run_dir, struct run_state *st, struct tp_err *err);
bool run_exists(const char *run_dir);

struct attempt *run_add_attempt(struct run_state *st);
struct attempt *run_attempt_by_seq(struct run_state *st, int seq);
struct attempt *run_last_attempt(struct run_state *st);
/* Tokens and cost summed over the attempts of one stage, or of the whole
 * run when stage is 0. */
struct run_meter {
	long long tokens_in, tokens_out;
	double cost;
};
void run_meter(const struct run_state *st, char stage, struct run_meter *m);
/* {"A": {tokens_in, tokens_out, cost}, ..., "run": {...}} for the stages
 * that used any (state.json and status --json carry it). */
cJSON *run_meter_json(const struct run_state *st);

/* Counted attempts of a stage (the cap and the routing conditions use this). */
int run_count(const struct run_state *st, char stage);
void attempt_add_soft(struct attempt *a, const char *marker);
/* "running", "done", "skipped" */
const char *attempt_state_name(enum attempt_state s);

/* One orchestrator per run: flock on .tileport/lock. Returns the fd, or -1
 * with a message naming the holder's pid when another one holds it. */
int run_lock(const char *run_dir, struct tp_err *err);
void run_unlock(int fd);
/* Is the lock held by a live process right now (without taking it)? */
bool run_locked(const char *run_dir);

/* Runs in an output root, newest first. */
struct run_summary {
	char *op, *run_dir, *status, *final;
	char *error; /* status "unreadable": why its state.json could not be read */
	char stage;   /* stage of the latest attempt, or 0 */
	bool running; /* an orchestrator holds the lock */
	int64_t updated;
	int attempts;
};
int runs_list(const char *out_root, struct run_summary **out, size_t *n, struct tp_err *err);
/* The state to show: "interrupted" for a run saved as running or waiting
 * that no orchestrator holds (it died), else the final state or status. */
const char *run_display_state(const char *status, const char *final, bool locked);
void runs_free(struct run_summary *v, size_t n);

/* Where runs live: --out, else $CUTILE_KERNEL_OUT_ROOT, else the config's
 * out_root, else WORKSPACE/cutile_kernel_out. Caller frees. */
char *run_out_root(const char *opt_out, const char *workspace, const char *config_out);
/* Resolve a RUN argument: a run directory, or an op name under out_root. */
char *run_resolve(const char *arg, const char *out_root);

/* Start time of a process (field 22 of /proc/PID/stat), or -1. */
long long proc_start_time(long pid);

#endif
