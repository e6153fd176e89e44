/* Command-line front end: the subcommand table and the helpers every
 * command shares (usage errors, --help handling, global options). */
#ifndef TILEPORT_CLI_CLI_H
#define TILEPORT_CLI_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "engine/core/session.h"
#include "engine/base/util.h"

#define CMD(name, fn, summary) int fn(int argc, char **argv);
#include "cli/commands.def"
#undef CMD

/* Options given before the subcommand. */
struct cli_globals {
	const char *workspace; /* --workspace DIR, or NULL */
};
extern struct cli_globals cli_globals;

/* Print "tileport CMD: message" plus a hint to stderr; returns TP_EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...) TP_PRINTF(2, 3);
/* getopt_long (with ':' first in the option string, so that it prints
 * nothing itself) returned c, '?' or ':': say which option was wrong and
 * how, once; returns TP_EXIT_USAGE. */
int cli_bad_option(const char *cmd, char *const *argv, int c);
/* Print an error record to stderr and return its exit code (never 0). */
int cli_report(const struct tp_err *err);

/* Open the command's session (session_opts with what the command was
 * given; the global --workspace when it has none). 0, or the exit code
 * after printing why (a config error names file and line). */
int cli_session(struct session **out, const struct session_opts *o);
/* Whether to open the screen: not when the command line says no_screen
 * (--headless, --plain); otherwise on a terminal, or on the virtual screen
 * of TILEPORT_NO_DISPLAY. */
bool cli_want_screen(bool no_screen);
struct perf_table;
/* The benchmark table view of a table (perf --tui, bench --tui), on a
 * read-only session. Returns the TUI's exit code. */
int cli_bench_tui(struct perf_table *t);
/* Parse "X=VALUE" for --driver/--validator into slots[letter]. */
int cli_stage_assign(const char *cmd, const char *opt, const char *arg,
		     const char *slots[STAGE_LETTERS]);
/* The options of a command that shows data: --json, --out DIR,
 * --workspace DIR (where the output root is when --out is not given),
 * --help, and --markdown when markdown is not NULL. 0 parsed (optind at
 * the first operand), -1 when --help was printed, else the exit code of a
 * usage error. */
int cli_show_options(int argc, char **argv, const char *cmd, const char *usage, bool *json,
		     bool *markdown, const char **out, const char **workspace);

/* Where runs go when nothing names the output root: inside the user's
 * checkout. The first time, git is told to leave it out of `git status`
 * (info/exclude), and the user is told so, once, on stderr. */
void cli_out_root_note(const struct session *s);

/* tileport batch (cmd_batch.c, cmd_batch_show.c). */
struct batch;
/* Open the batch NAME (a name or its folder; NULL: the newest) of the
 * session's output root. 0, or the exit code after printing why. */
int cli_batch_find(const char *cmd, const char *name, struct session *s, struct batch **b);
int cli_batch_status(int argc, char **argv);
int cli_batch_report(int argc, char **argv);

#endif
