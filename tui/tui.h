/* The workbench screen: the one door the CLI uses.
 *
 *   struct tui_start s = {.kind = TUI_START_RUNS, .session = session};
 *   return tui_main(&s);
 *
 * tui_main starts curses (or the virtual screen under
 * TILEPORT_NO_DISPLAY=1), takes its settings from the session's config
 * and loads the theme, opens the first
 * view, runs the event loop until the user quits, restores the terminal
 * and returns an exit code (TP_EXIT_*). With TILEPORT_SCRIPT=FILE, keys
 * and :commands come from FILE, each applied once nothing is loading or
 * streaming; the program quits at the end of the script. */
#ifndef TILEPORT_TUI_TUI_H
#define TILEPORT_TUI_TUI_H

#include <stdbool.h>

struct config_entry;
struct run_model;
struct session;
struct tp_err;

enum tui_start_kind {
	TUI_START_RUNS,     /* the runs in the session's output root */
	TUI_START_RUN,      /* a run: `run`, or run_dir (attached unless another drives it) */
	TUI_START_FILE,     /* a file: transcript view for *.jsonl, else text */
	TUI_START_IRDIFF,   /* the IR diff of two files: path (reference), path2 */
	TUI_START_SOURCE,   /* a Python kernel (path) beside its Rust (path2, or
	                     * NULL: translated in memory) */
	TUI_START_BATCH,    /* a batch (engine/batch/batch.h), followed live */
	TUI_START_CHANGESET, /* a changeset commit for review: path (repository), rev */
	TUI_START_BENCH,    /* a benchmark table: model (struct perf_table *, the
			     * caller's), else path (a performance.md or a run) */
};

struct tui_start {
	enum tui_start_kind kind;
	struct session *session;    /* config, output root, loop, runs (required); a
	                             * read-only session never attaches a run */
	struct run_model *run;      /* TUI_START_RUN: a run already open (tileport run OP) */
	const char *run_dir;        /* TUI_START_RUN without `run` */
	const char *path;           /* TUI_START_FILE, TUI_START_IRDIFF (the reference),
	                             * TUI_START_SOURCE (the Python) */
	const char *path2;          /* TUI_START_IRDIFF: the generated side;
	                             * TUI_START_SOURCE: the Rust */
	const char *rev;            /* TUI_START_CHANGESET: the commit (NULL: the newest changeset) */
	bool keep_dead_constants;   /* TUI_START_IRDIFF: as irdiff --keep-dead-constants */
	void *model;                /* TUI_START_BENCH: the table to show; TUI_START_BATCH:
	                             * the batch (engine/batch), opened on the session */
	const char *theme;          /* overrides the config's theme; NULL: config */
};

/* Returns TP_EXIT_OK when the user quits, TP_EXIT_USAGE for bad config,
 * theme or script (message on stderr naming file and line), TP_EXIT_ENV
 * without a terminal. A run's own outcome is the caller's to report
 * (pipeline_exit_code).
 *
 * TUI_START_RUN with a live `run`: start it (or not: the user then starts
 * it with C); tui_main follows it and runs the session's loop until the
 * user quits; the run is still the caller's afterwards (freeing it stops a
 * stage still running). tui_main registers
 * SIGINT, SIGTERM and SIGHUP on the loop while it runs (a signal aborts a
 * live run, waits up to 5 s for it to stop, restores the terminal and
 * re-raises) and removes them before returning: register your own again
 * if you keep running the loop. */
int tui_main(const struct tui_start *s);

/* The screen's settings, for session_open (engine/core/session.h): its
 * session_setting_check and the words for the unknown-setting message. */
int tui_setting_check(const struct config_entry *e, struct tp_err *err);
extern const char tui_settings_hint[];

#endif
