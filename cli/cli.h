/* Command-line front end: the subcommand table and the helpers every
 * command shares (usage errors, --help handling, global options). */
#ifndef TILEPORT_CLI_CLI_H
#define TILEPORT_CLI_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "engine/core/util.h"

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
/* Print an error record to stderr and return its exit code (never 0). */
int cli_report(const struct tp_err *err);

#include "engine/core/config.h"

/* The workspace: --workspace (per command, else global), else $TILEGYM_PATH,
 * else `workspace` in the user config, else the current directory when it
 * looks like a TileGym checkout (has src/tilegym). NULL when none. */
char *cli_workspace(const char *opt);
/* User config, then WORKSPACE/.tileport.conf. On a malformed file: -1 with
 * the error naming file and line, and nothing kept in c. */
int cli_load_config(struct config *c, const char *workspace, struct tp_err *err);
/* Driver and validator commands for an existing run (resume, step, open):
 * the command line's, else `driver.X`/`validator.X` of the *user* config
 * only. The workspace's .tileport.conf, which agents can write, never
 * changes what an existing run executes. Slots left NULL keep the run's. */
void cli_run_commands(const char *drivers[26], const char *validators[26], struct config *user);
/* Fill the slots the command line left NULL from `driver.X`/`validator.X` of c. */
void cli_stage_commands(const struct config *c, const char *drivers[26], const char *validators[26]);
/* The output root as every command finds it: --out, $CUTILE_KERNEL_OUT_ROOT,
 * `out_root` in the config, WORKSPACE/cutile_kernel_out. Caller frees. */
char *cli_out_root(const char *opt_out, const char *workspace);
/* Parse "X=VALUE" for --driver/--validator into slots[letter]. */
int cli_stage_assign(const char *cmd, const char *opt, const char *arg, const char *slots[26]);
/* Without --headless the screen is used when there is one to use (or the
 * virtual one, TILEPORT_NO_DISPLAY=1). */
bool cli_want_screen(bool headless);

/* tileport batch (cmd_batch.c, cmd_batch_show.c). */
struct batch;
struct loop;
/* Is key one of the batch.* and slurm.* settings? */
bool cli_batch_key(const char *key);
/* Open the batch NAME (a name or folder; NULL: the newest) of the output
 * root (--out, else as every command finds it). Returns an exit code. */
int cli_batch_find(const char *cmd, const char *name, const char *opt_out, struct loop *l,
		   struct batch **b);
int cli_batch_status(int argc, char **argv);
int cli_batch_report(int argc, char **argv);

#endif
