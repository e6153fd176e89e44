/* The workbench screen: the one entry point the CLI calls.
 *
 *   struct tui_start s = {.kind = TUI_START_RUNS, .out_root = root};
 *   return tui_main(&s);
 *
 * tui_main starts curses (or the virtual screen under
 * TILEPORT_NO_DISPLAY=1), reads the config and theme, opens the first
 * view, runs the event loop until the user quits, restores the terminal
 * and returns an exit code (TP_EXIT_*). With TILEPORT_SCRIPT=FILE, keys
 * and :commands come from FILE, each applied once nothing is loading or
 * streaming; the program quits at the end of the script. */
#ifndef TILEPORT_TUI_TUI_H
#define TILEPORT_TUI_TUI_H

#include <stdbool.h>

struct loop;
struct pipeline;
struct tp_err;

enum tui_start_kind {
	TUI_START_RUNS,     /* the runs in out_root */
	TUI_START_RUN,      /* a finished or interrupted run: run_dir */
	TUI_START_PIPELINE, /* a live run: pipeline + loop (tileport run OP) */
	TUI_START_FILE,     /* a file: transcript view for *.jsonl, else text */
	TUI_START_IRDIFF,   /* the IR diff of two files: path (reference), path2 */
	TUI_START_SOURCE,   /* a Python kernel (path) beside its Rust (path2, or
	                     * NULL: translated in memory) */
};

struct tui_start {
	enum tui_start_kind kind;
	const char *out_root;       /* TUI_START_RUNS */
	const char *run_dir;        /* TUI_START_RUN (also the live run's directory) */
	const char *path;           /* TUI_START_FILE, TUI_START_IRDIFF (the reference),
	                             * TUI_START_SOURCE (the Python) */
	const char *path2;          /* TUI_START_IRDIFF: the generated side;
	                             * TUI_START_SOURCE: the Rust */
	bool keep_dead_constants;   /* TUI_START_IRDIFF: as irdiff --keep-dead-constants */
	struct pipeline *pipeline;  /* TUI_START_PIPELINE: driven by the caller's loop */
	struct loop *loop;          /* the loop to run on; NULL: the TUI makes one */
	const char *workspace;      /* where .tileport.conf is read; NULL: cwd */
	const char *theme;          /* overrides the config's theme; NULL: config */
	/* Attach to a run directory (Enter in the runs view, tileport open
	 * RUN): build a pipeline on `l` with the CLI's options, or fail (the
	 * run is then shown read-only). The TUI frees what it attached with
	 * pipeline_free. NULL: runs are always read-only. */
	int (*attach)(const char *run_dir, struct loop *l, struct pipeline **out, struct tp_err *err);
};

/* Returns TP_EXIT_OK when the user quits, TP_EXIT_USAGE for bad config,
 * theme or script (message on stderr naming file and line), TP_EXIT_ENV
 * without a terminal. A run's own outcome is the caller's to report
 * (pipeline_exit_code).
 *
 * TUI_START_PIPELINE: create the pipeline on `loop` and call
 * pipeline_start (or not: the user then starts it with C); tui_main
 * listens to it and runs the loop until the user quits; the caller frees
 * it afterwards (which stops a stage still running). tui_main registers
 * SIGINT, SIGTERM and SIGHUP on the loop while it runs (a signal aborts a
 * live run, waits up to 5 s for it to stop, restores the terminal and
 * re-raises) and removes them before returning: register your own again
 * if you keep running the loop. */
int tui_main(const struct tui_start *s);

#endif
