/* The session: core's door for everything above it (docs/architecture.md,
 * "The session"). One per command. session_open resolves, once, the
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
 *   ... session_out_root(s), session_stage_commands(s, RUN_NEW, &cmd) ...
 *   session_close(s);
 */
#ifndef TILEPORT_CORE_SESSION_H
#define TILEPORT_CORE_SESSION_H

#include <stdbool.h>

#include "engine/core/config.h"
#include "engine/core/loop.h"
#include "engine/core/pipeline.h"
#include "engine/core/util.h"

struct session;

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
	pipeline_checker checker;            /* the "builtin" validators (engine/check) */
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
 * run's own (its state.json); for a new run it means no driver. This is the
 * one place that decides: default drivers and driver chains extend it. */
enum run_origin { RUN_NEW, RUN_EXISTING };
void session_stage_commands(const struct session *s, enum run_origin origin,
			    struct stage_commands *out);
/* The pipeline options for a run of this session: its table, commands and
 * checker (op, workspace and output root set for a new run). */
void session_pipeline_opts(const struct session *s, enum run_origin origin,
			   struct pipeline_opts *out);

#endif
