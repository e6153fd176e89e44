/* Where a command finds its workspace and configuration. */
#include "cli/cli.h"

#include "engine/core/run.h"
#include "tui/config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char *cli_workspace(const char *opt)
{
	if (opt && *opt)
		return xstrdup(opt);
	if (cli_globals.workspace)
		return xstrdup(cli_globals.workspace);
	const char *env = getenv("TILEGYM_PATH");
	if (env && *env)
		return xstrdup(env);
	struct config c = {0};
	char *ws = NULL;
	if (config_load_default(&c, NULL, NULL) == 0 && config_get(&c, "workspace"))
		ws = xstrdup(config_get(&c, "workspace"));
	config_free(&c);
	if (ws)
		return ws;
	if (path_is_dir("src/tilegym")) {
		char *cwd = getcwd(NULL, 0);
		return cwd;
	}
	return NULL;
}

static bool stage_key(const char *key, const char *prefix)
{
	size_t n = strlen(prefix);
	return strncmp(key, prefix, n) == 0 && key[n] >= 'A' && key[n] <= 'Z' && !key[n + 1];
}

/* Every setting of every file is someone's: a typo is an error, not a
 * silently ignored line. The screen checks its own values when it starts. */
static int check_keys(const struct config *c, struct tp_err *err)
{
	for (size_t i = 0; i < c->n; i++) {
		const struct config_entry *e = &c->v[i];
		if (!e->key) {
			if (str_starts(e->value, "bind ") || str_starts(e->value, "bind\t"))
				continue;
			tp_err_set(err, TP_EXIT_USAGE, "%s:%d: expected 'key = value' or 'bind KEYMAP KEY "
						       "ACTION', got '%s'", e->file, e->line, e->value);
			return -1;
		}
		const char *k = e->key;
		if (!strcmp(k, "workspace") || !strcmp(k, "out_root") || stage_key(k, "driver.") ||
		    stage_key(k, "validator.") || str_starts(k, "tui.") || tui_config_is_key(k) ||
		    cli_batch_key(k))
			continue;
		tp_err_set(err, TP_EXIT_USAGE,
			   "%s:%d: unknown setting '%s' (expected workspace, out_root, driver.X, "
			   "validator.X, a batch setting: batch.executor, batch.jobs, slurm.partition, "
			   "... (docs/batch.md), or a screen setting: theme, layout, split-size, "
			   "line-numbers, follow, color.AREA)", e->file, e->line, k);
		return -1;
	}
	return 0;
}

int cli_load_config(struct config *c, const char *workspace, struct tp_err *err)
{
	int rc = config_load_default(c, workspace, err);
	if (rc == 0)
		rc = check_keys(c, err);
	if (rc < 0)
		config_free(c); /* entries of the files read before the bad one */
	return rc;
}

void cli_run_commands(const char *drivers[26], const char *validators[26], struct config *user)
{
	if (config_load_default(user, NULL, NULL) < 0)
		config_free(user);
	cli_stage_commands(user, drivers, validators);
}

void cli_stage_commands(const struct config *c, const char *drivers[26], const char *validators[26])
{
	for (int i = 0; i < 26; i++) {
		char key[32];
		snprintf(key, sizeof(key), "driver.%c", 'A' + i);
		if (!drivers[i])
			drivers[i] = config_get(c, key);
		snprintf(key, sizeof(key), "validator.%c", 'A' + i);
		if (!validators[i])
			validators[i] = config_get(c, key);
	}
}

char *cli_out_root(const char *opt_out, const char *workspace)
{
	struct config c = {0};
	char *out;
	if (cli_load_config(&c, workspace && path_is_dir(workspace) ? workspace : NULL, NULL) == 0)
		out = run_out_root(opt_out, workspace, config_get(&c, "out_root"));
	else
		out = run_out_root(opt_out, workspace, NULL);
	config_free(&c);
	return out;
}

bool cli_want_screen(bool headless)
{
	if (headless)
		return false;
	const char *nd = getenv("TILEPORT_NO_DISPLAY");
	return (nd && *nd && strcmp(nd, "0") != 0) || (isatty(STDIN_FILENO) && isatty(STDOUT_FILENO));
}

int cli_stage_assign(const char *cmd, const char *opt, const char *arg, const char *slots[26])
{
	if (!arg || arg[0] < 'A' || arg[0] > 'Z' || arg[1] != '=' || !arg[2])
		return cli_usage_error(cmd, "%s expects X=VALUE with X a stage letter, got '%s'", opt,
				       arg ? arg : "");
	slots[arg[0] - 'A'] = arg + 2;
	return 0;
}
