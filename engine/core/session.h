/* The session: core's door for everything above it (docs/architecture.md,
 * "The session and the run model"). One per command. session_open resolves, once, the
 * workspace, the output root and the configuration, and checks every
 * setting of every config file: the engine's own keys here, the rest
 * through the caller's check (the screen's [tui] section, its top-level
 * keys, bind lines). Commands and the screen then ask the session, never
 * the files or the environment, where runs are and what a run executes.
 *
 *   struct session_opts o = {.workspace = opt_ws, .out_root = opt_out};
 *   struct session *s;
 *   if (session_open(&s, &o, &err) < 0)
 *           return report(&err);            // names file and line
 *   struct run_model *m = session_run(s, "softmax", &err);  // followed from disk
 *   run_model_listen(m, on_change, view);                   // events, output lines
 *   ... run_model_state(m), run_model_latest(m, 'B'), run_model_to_json(m) ...
 *   run_model_free(m);
 *   session_close(s);
 *
 * A run model is one run, either live (this process drives it: a pipeline
 * on the session's loop) or followed from disk (its state.json and
 * events.jsonl, re-read when they change while anyone listens). Readers
 * never care which: the accessors and the change stream are the same.
 * run_model_attach turns a followed run into a live one. */
#ifndef TILEPORT_CORE_SESSION_H
#define TILEPORT_CORE_SESSION_H

#include <cJSON.h>
#include <stdbool.h>

#include "engine/base/config.h"
#include "engine/base/loop.h"
#include "engine/core/pipeline.h"
#include "engine/core/run.h"
#include "engine/core/table.h"
#include "engine/base/util.h"

struct session;
struct run_model;

/* A setting that is not the engine's (key NULL: a directive line). Returns
 * 1 when the caller's layer owns it and its value is good, 0 when it does
 * not know it, -1 with err (without file and line: the session adds them)
 * when it owns it and the value is bad. */
typedef int (*session_setting_check)(const struct config_entry *e, struct tp_err *err);

struct session_opts {
	const char *workspace;  /* --workspace DIR; NULL: $TILEGYM_PATH, then `workspace` in the
	                         * user config, then the current directory if it holds src/tilegym */
	const char *out_root;   /* --out DIR; NULL: $CUTILE_KERNEL_OUT_ROOT, then `out_root` in
	                         * the config, then WORKSPACE/cutile_kernel_out */
	const char *table_path; /* --table FILE; NULL: the installed table (an existing run: its own) */
	struct stage_commands commands; /* --driver X=SPEC, --validator X=CMD */
	bool read_only;         /* look only: no run is ever attached (runs stay read-only) */
	bool fresh;             /* new runs: an existing run of the op is moved aside first */
	bool again;             /* new runs: convert an operator that has a cuTile Rust port */
	bool ask;               /* a person answers a run's questions (the screen): a missing
	                         * owner tag waits for one instead of stopping the run */
	pipeline_checker checker;            /* the "builtin" validators (engine/check) */
	const struct driver_catalog *catalog; /* the built-in drivers (engine/agents) */
	session_setting_check check_setting; /* the screen's settings, or NULL */
	const char *settings_hint; /* what check_setting knows, for the unknown-setting message */
	struct loop *loop;         /* the loop runs are driven on; NULL: the session's own */
};

/* Reads $XDG_CONFIG_HOME/tileport/config (or ~/.config/tileport/config),
 * then WORKSPACE/.tileport.conf. A malformed line or an unknown setting:
 * -1, "FILE:LINE: ...", exit 2. */
int session_open(struct session **out, const struct session_opts *o, struct tp_err *err);
/* Frees the session (and its loop if it made one). Free its run models first. */
void session_close(struct session *s);

const char *session_workspace(const struct session *s); /* NULL when none was found */
const char *session_out_root(const struct session *s);
/* The variables the config files mark secret (`secret_vars`, every file's),
 * comma-separated, for env_secrets (engine/base/redact.h). */
const char *session_secret_vars(const struct session *s);
/* The output root is the default, WORKSPACE/cutile_kernel_out (no --out,
 * no CUTILE_KERNEL_OUT_ROOT, no out_root in the config): inside the
 * user's checkout. */
bool session_out_root_default(const struct session *s);
/* The built-in drivers the program passed in (NULL: exec: only). */
const struct driver_catalog *session_catalog(const struct session *s);
struct loop *session_loop(const struct session *s);
/* Every entry of both files, in the order read (later entries win). */
const struct config *session_config(const struct session *s);
/* RUN as a command names it, a run directory or an op name in the output
 * root, as a directory. Caller frees. */
char *session_run_dir(const struct session *s, const char *run);

/* Which drivers and validators a run gets. The command line's, else
 * `driver.X` and `validator.X` of the config: for a new run both files; for
 * an existing run (resume, step, the screen attaching) the user's file only,
 * because agents can write the workspace's .tileport.conf and must never
 * change what a run executes. For an existing run a NULL slot keeps the
 * run's own (its state.json); for a new run the catalog's default fills it
 * when the run is created (pipeline_create). A spec may be a chain of
 * built-in drivers ("mech, claude"). */
enum run_origin { RUN_NEW, RUN_EXISTING };
void session_stage_commands(const struct session *s, enum run_origin origin,
			    struct stage_commands *out);

/* ---- opening runs ---- */

/* RUN (a directory or an op name), followed from disk: read-only until
 * attached. Errors: no run there, an unreadable state (exit 2). */
struct run_model *session_run(struct session *s, const char *run, struct tp_err *err);
/* A new run of op, live: pipeline_create's checks, the session's
 * workspace, output root, table and commands for a new run. */
struct run_model *session_new_run(struct session *s, const char *op, struct tp_err *err);

struct run_attach {
	bool online; /* resume --online: re-run the deferred stages with the toolchain */
};
/* Drive a followed run from here (resume, step, the screen's manual
 * actions): its own drivers and validators, or those the session names for
 * an existing run. Fails, and the run stays followed, when another tileport
 * drives it or the session is read-only; run_model_why_read_only says so.
 * Nothing starts until pipeline_start or a manual action. o may be NULL. */
int run_model_attach(struct run_model *m, const struct run_attach *o, struct tp_err *err);

/* Models are shared: every holder takes a reference and frees it. Freeing
 * the last reference of a live run stops a stage still running (the
 * attempt stays "running" in state.json and resume runs it again). */
struct run_model *run_model_ref(struct run_model *m);
void run_model_free(struct run_model *m);

/* ---- reading a run ---- */

const struct run_state *run_model_state(const struct run_model *m);
const struct table *run_model_table(const struct run_model *m);
/* The pipeline of a live run (manual actions go to it), or NULL. */
struct pipeline *run_model_pipeline(const struct run_model *m);
/* Why a followed run is not live (attach failed, read-only session), or NULL. */
const char *run_model_why_read_only(const struct run_model *m);
/* An orchestrator drives it now: this process, or another holding its lock. */
bool run_model_driven(const struct run_model *m);
/* "interrupted" when saved running or waiting and nobody drives it, else
 * the status's name. */
const char *run_model_state_name(const struct run_model *m);

const struct attempt *run_model_attempt(const struct run_model *m, int seq);
/* The latest attempt of a stage, or NULL when it has not run. */
const struct attempt *run_model_latest(const struct run_model *m, char stage);
/* a is the attempt running now (this process's stage, or another's). */
bool run_model_running(const struct run_model *m, const struct attempt *a);

/* How long a's agent ran: until now (ms since the epoch) while it runs,
 * until it ended, and for an interrupted attempt until its last output
 * (its transcript or stderr.log last written), not the time since. 0 when
 * it never started. */
int64_t run_model_elapsed_ms(const struct run_model *m, const struct attempt *a, int64_t now);

/* The stages taken, "A1 -> B1 -> B1(repair) -> STOP". Caller frees. */
char *run_model_path(const struct run_model *m);

/* Tokens and cost of the attempts' agents (run_state_usage), per stage or, for
 * stage 0, the whole run. */
struct run_usage run_model_usage(const struct run_model *m, char stage);

/* A file of an attempt's folder (.tileport/attempts/NN-Xn/NAME; NAME NULL:
 * the folder itself). Caller frees. */
char *run_model_attempt_path(const struct run_model *m, const struct attempt *a, const char *name);

/* The artifacts the table lists for a's stage, templates expanded for
 * this run and globs matched; a pattern that matches nothing is one entry
 * that does not exist. */
struct run_artifact {
	char *path;      /* as on disk (absolute when the run directory is) */
	const char *rel; /* the same relative to the run directory, when inside it */
	bool exists;
	bool optional;   /* the table marks it '?': listed only when present */
};
size_t run_model_artifacts(const struct run_model *m, const struct attempt *a,
			   struct run_artifact **out);
void run_artifacts_free(struct run_artifact *v, size_t n);

/* Every event of events.jsonl so far, oldest first (a cJSON array). */
const cJSON *run_model_events(const struct run_model *m);

/* The run's one JSON form, for status --json, runs --json and the notes
 * and batches built from runs: the state as state.json has it, plus what
 * is derived from it (state, path, per-stage runs and caps, usage, soft
 * markers, deferred steps). Caller deletes. */
cJSON *run_model_to_json(const struct run_model *m);

/* ---- following a run ---- */

enum run_change_kind {
	RUN_CHANGED, /* the state as a whole (re-read from disk, attached): redraw from it */
	RUN_EVENT,   /* one event was appended (ev); the state already has its effect */
	RUN_OUTPUT,  /* a line a running stage printed (live runs): attempt, line, len, is_stderr */
	RUN_USAGE,   /* the running attempt's tokens or cost moved (live runs): attempt */
};
struct run_change {
	enum run_change_kind kind;
	const cJSON *ev;
	const struct attempt *attempt;
	const char *line;
	size_t len;
	bool is_stderr;
};
typedef void (*run_listener)(struct run_model *m, const struct run_change *c, void *ud);
/* One stream of every change, whoever drives the run. A followed run is
 * checked on the session's loop twice a second while anyone listens. A
 * listener may stop listening from its callback, not free the model. */
void run_model_listen(struct run_model *m, run_listener fn, void *ud);
void run_model_unlisten(struct run_model *m, run_listener fn, void *ud);
/* Re-read a followed run now (a refresh key); telling listeners. */
int run_model_refresh(struct run_model *m, struct tp_err *err);

#endif
