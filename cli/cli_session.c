/* Every command's session: the options it was given, the screen's settings
 * check and the built-in validators (cli -> tui -> views -> engine). */
#include "cli/cli.h"

#include "engine/agents/agent.h"
#include "engine/check/check.h"
#include "tui/tui.h"

/* Settings beyond the engine's: the agents', then the screen's. */
static int setting_check(const struct config_entry *e, struct tp_err *err)
{
	int r = agent_setting_check(e, err);
	return r ? r : tui_setting_check(e, err);
}

int cli_session(struct session **out, const struct session_opts *given)
{
	static char hint[256];
	if (!*hint)
		snprintf(hint, sizeof(hint), "%s, or %s", agent_settings_hint, tui_settings_hint);
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
