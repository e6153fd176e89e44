/* Every command's session: the options it was given, the screen's settings
 * check and the built-in validators (cli -> tui -> views -> engine). */
#include "cli/cli.h"

#include "engine/check/check.h"
#include "tui/tui.h"

int cli_session(struct session **out, const struct session_opts *given)
{
	struct session_opts o = *given;
	if (!o.workspace)
		o.workspace = cli_globals.workspace;
	o.check_setting = tui_setting_check;
	o.settings_hint = tui_settings_hint;
	o.checker = check_pipeline_checker;
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
