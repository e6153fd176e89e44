/* Every command's session: the options it was given, the settings checks
 * of the batch executors and of the screen, and the built-in validators
 * (cli -> tui -> views -> engine). */
#include "cli/cli.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "engine/agents/agent.h"
#include "engine/batch/batch.h"
#include "engine/check/check.h"
#include "engine/git/changeset.h"
#include "tui/tui.h"

/* Settings beyond the engine core's: the agents', the batch executors',
 * then the screen's. Every command reads the same files, so every command
 * knows them all. */
static int setting_check(const struct config_entry *e, struct tp_err *err)
{
	int r = agent_setting_check(e, err);
	if (!r)
		r = batch_setting_check(e, err);
	return r ? r : tui_setting_check(e, err);
}

int cli_session(struct session **out, const struct session_opts *given)
{
	static char *hint;
	if (!hint)
		hint = xasprintf("%s, %s, or %s", agent_settings_hint, batch_settings_hint,
				 tui_settings_hint);
	struct session_opts o = *given;
	if (!o.workspace)
		o.workspace = cli_globals.workspace;
	o.check_setting = setting_check;
	o.settings_hint = hint;
	o.checker = check_pipeline_checker;
	o.catalog = &agent_catalog;
	struct tp_err err;
	if (session_open(out, &o, &err) < 0)
		return cli_report(&err);
	return 0;
}

int cli_stage_assign(const char *cmd, const char *opt, const char *arg,
		     const char *slots[STAGE_LETTERS])
{
	if (!arg || !stage_letter_ok(arg[0]) || arg[1] != '=' || !arg[2])
		return cli_usage_error(cmd, "%s expects X=VALUE with X a stage letter, got '%s'", opt,
				       arg ? arg : "");
	slots[stage_slot(arg[0])] = arg + 2;
	return 0;
}

int cli_show_options(int argc, char **argv, const char *cmd, const char *usage, bool *json,
		     bool *markdown, const char **out, const char **workspace)
{
	static const struct option opts[] = {
		{"json", no_argument, NULL, 'j'},
		{"markdown", no_argument, NULL, 'm'},
		{"out", required_argument, NULL, 'o'},
		{"workspace", required_argument, NULL, 'w'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c;
	while ((c = getopt_long(argc, argv, markdown ? ":jmo:w:h" : ":jo:w:h", opts, NULL)) != -1) {
		if (c == 'j')
			*json = true;
		else if (c == 'm' && markdown)
			*markdown = true;
		else if (c == 'o')
			*out = optarg;
		else if (c == 'w' && workspace)
			*workspace = optarg;
		else if (c == 'h')
			return fputs(usage, stdout), -1;
		else
			return cli_bad_option(cmd, argv, c);
	}
	return 0;
}

void cli_out_root_note(const struct session *s)
{
	if (!session_out_root_default(s))
		return;
	char *exclude = NULL;
	struct tp_err err = {0};
	int rc = cs_ignore_locally(session_out_root(s), &exclude, &err);
	if (rc > 0)
		fprintf(stderr, "tileport: run directories go to %s, the default, inside your checkout (--out, "
				"CUTILE_KERNEL_OUT_ROOT or out_root in the config choose another: docs/pipeline.md); "
				"git leaves it out of 'git status' through %s, which is never committed\n",
			session_out_root(s), exclude);
	else if (rc < 0)
		fprintf(stderr, "tileport: run directories go to %s, inside your checkout; it could not be added "
				"to git's exclude file: %s\n", session_out_root(s), err.msg);
	free(exclude);
}
