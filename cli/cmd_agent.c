/* tileport agent: the stage child that runs built-in drivers;
 * tileport drivers: which drivers this machine can use. */
#include "cli/cli.h"

#include <cJSON.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "engine/agents/agent.h"
#include "engine/agents/http.h"
#include "engine/base/files.h"
#include "engine/core/prompt.h"

static const char agent_usage[] =
	"usage: tileport agent --stage X --run RUN --driver D[,D2...] [--attempt DIR]\n"
	"\n"
	"Run stage X of a run through built-in drivers and write the stage's\n"
	"transcript (JSON lines: start, text, tool_call, tool_result, usage, retry,\n"
	"handover, error, final) on stdout. The orchestrator runs this for every\n"
	"stage whose driver is built in; by hand it builds the spawn prompt itself\n"
	"and keeps it in --attempt DIR (default RUN/.tileport/agent/X).\n"
	"\n"
	"  --driver D[,D2]  a chain: D2 runs when D ends with a FAIL verdict and an\n"
	"                   'unsupported:' line, reading D's final message in front of\n"
	"                   its prompt (drivers: see 'tileport drivers'); the last link\n"
	"                   may be exec:COMMAND\n"
	"\n"
	"Settings come from the environment and the user config only (docs/agents.md).\n"
	"\n"
	"exit: 0 the driver gave its final message, 1 it failed or was stopped,\n"
	"2 bad usage, 3 the driver cannot run here (not installed, too old, no key)\n";

static const char drivers_usage[] =
	"usage: tileport drivers [--json]\n"
	"\n"
	"List the agent drivers: the built-in ones with their version, where they\n"
	"were found and why they are or are not usable, then exec:COMMAND. A new\n"
	"run without --driver flags takes, per stage, the first usable one.\n"
	"\n"
	"exit: 0 a driver that takes any stage is usable, 3 none is (mech, which takes\n"
	"only stages A, B and D offline, does not count)\n";

static void on_signal(struct loop *l, int signo, void *ud)
{
	struct agent_ctx *ctx = ud;
	(void)l, (void)signo;
	ctx->stop = true; /* whatever waits on the loop sees it and kills its process */
}

/* The stage's prompt: the orchestrator's (TILEPORT_PROMPT), else built
 * here from the run's table as a first attempt. */
static char *prompt_for(const struct run_model *m, char stage, const char *attempt_dir, const char *skill,
			struct tp_err *err)
{
	const char *given = getenv("TILEPORT_PROMPT");
	if (given && path_is_file(given))
		return xstrdup(given);
	const struct run_state *st = run_model_state(m);
	const struct table *t = run_model_table(m);
	const struct stage_def *s = table_stage(t, stage);
	if (!s) {
		tp_err_set(err, TP_EXIT_USAGE, "stage %c is not in the table %s", stage, t->path);
		return NULL;
	}
	struct prompt_ctx pc = {st->op, st->workspace, st->out_root, st->run_dir, skill, run_count(st, stage) + 1,
				false, NULL, NULL, st->offline, st->missing};
	char *text = prompt_build(s, &pc);
	char *path = path_join(attempt_dir, "prompt.md");
	int rc = mkdir_p(attempt_dir, 0755, err) == 0 ? write_file(path, text, strlen(text), err) : -1;
	free(text);
	if (rc < 0) {
		free(path);
		return NULL;
	}
	return path;
}

/* Run the chain on the run's stage; the session and the run are open. */
static int run_stage(struct session *se, const struct run_model *m, char stage, const struct driver *d,
		     const char *attempt)
{
	const struct run_state *st = run_model_state(m);
	const char *skill_env = getenv("TILEPORT_SKILL_DIR");
	char *skill = skill_env && *skill_env ? xstrdup(skill_env) : path_join(tp_data_dir(), "skill");
	const char *adir_env = getenv("TILEPORT_ATTEMPT_DIR");
	char *adir = attempt ? xstrdup(attempt) : adir_env && *adir_env ? xstrdup(adir_env)
			       : xasprintf("%s/.tileport/agent/%c", st->run_dir, stage);
	struct prices prices = {0};
	struct tp_err err;
	int rc;
	char *prompt = prompt_for(m, stage, adir, skill, &err);
	if (!prompt || prices_load(&prices, session_config(se), &err) < 0) {
		rc = cli_report(&err);
	} else {
		http_global_init();
		struct recorder rec;
		recorder_init(&rec, stdout);
		struct loop *l = session_loop(se);
		char *log = run_path(st->run_dir, "commands.log");
		struct agent_ctx ctx = {.stage = stage, .op = st->op, .run_dir = st->run_dir,
					.workspace = st->workspace, .offline = st->offline, .skill_dir = skill,
					.attempt_dir = adir, .prompt_path = prompt, .command_log = log, .cfg = session_config(se),
					.prices = &prices, .rec = &rec, .loop = l, .kill_grace_ms = 1000};
		/* the orchestrator stops a stage with TERM, the terminal with INT */
		int sigs[] = {SIGTERM, SIGINT, SIGHUP};
		for (size_t i = 0; i < TP_ARRAY_LEN(sigs); i++)
			loop_on_signal(l, sigs[i], on_signal, &ctx);
		rc = agent_run_chain(&ctx, d->chain);
		for (size_t i = 0; i < TP_ARRAY_LEN(sigs); i++)
			loop_off_signal(l, sigs[i]);
		if (ctx.stop)
			rc = TP_EXIT_FAILED;
		free(log);
		recorder_free(&rec);
	}
	prices_free(&prices);
	free(prompt);
	free(adir);
	free(skill);
	return rc;
}

int cmd_agent(int argc, char **argv)
{
	static const struct option opts[] = {
		{"stage", required_argument, NULL, 's'},
		{"run", required_argument, NULL, 'r'},
		{"driver", required_argument, NULL, 'd'},
		{"attempt", required_argument, NULL, 'a'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *stage_s = NULL, *run_arg = NULL, *drivers = NULL, *attempt = NULL;
	int c;
	while ((c = getopt_long(argc, argv, ":s:r:d:a:h", opts, NULL)) != -1) {
		switch (c) {
		case 's': stage_s = optarg; break;
		case 'r': run_arg = optarg; break;
		case 'd': drivers = optarg; break;
		case 'a': attempt = optarg; break;
		case 'h': fputs(agent_usage, stdout); return 0;
		default: return cli_bad_option("agent", argv, c);
		}
	}
	if (optind != argc)
		return cli_usage_error("agent", "unexpected argument '%s'", argv[optind]);
	if (!stage_s || !stage_letter_ok(stage_s[0]) || stage_s[1])
		return cli_usage_error("agent", "--stage expects a stage letter, got '%s'", stage_s ? stage_s : "");
	if (!run_arg || !drivers)
		return cli_usage_error("agent", "--run and --driver are required");
	struct driver d;
	struct tp_err err;
	if (driver_parse(drivers, &agent_catalog, &d, &err) < 0)
		return cli_report(&err);
	if (d.kind != DRIVER_BUILTIN) {
		driver_free(&d);
		return cli_usage_error("agent", "agent runs built-in drivers; exec:COMMAND runs without it");
	}
	struct session *se;
	struct session_opts so = {.read_only = true};
	int rc = cli_session(&se, &so);
	if (rc) {
		driver_free(&d);
		return rc;
	}
	/* the drivers' tools and permission rules need absolute paths */
	char *given = session_run_dir(se, run_arg);
	char *dir = realpath(given, NULL);
	struct run_model *m = session_run(se, dir ? dir : given, &err);
	if (!m) {
		rc = cli_report(&err);
	} else {
		rc = run_stage(se, m, stage_s[0], &d, attempt);
		run_model_free(m);
	}
	free(dir);
	free(given);
	session_close(se);
	driver_free(&d);
	return rc;
}

int cmd_drivers(int argc, char **argv)
{
	static const struct option opts[] = {
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	bool json = false;
	int c;
	while ((c = getopt_long(argc, argv, ":jh", opts, NULL)) != -1) {
		if (c == 'j')
			json = true;
		else if (c == 'h')
			return fputs(drivers_usage, stdout), 0;
		else
			return cli_bad_option("drivers", argv, c);
	}
	if (optind != argc)
		return cli_usage_error("drivers", "unexpected argument '%s'", argv[optind]);
	struct session *se;
	struct session_opts so = {.read_only = true};
	int rc = cli_session(&se, &so);
	if (rc)
		return rc;
	size_t n;
	const struct agent_driver *v = agent_drivers(&n);
	struct agent_probe q = {session_config(se), true};
	cJSON *arr = cJSON_CreateArray();
	bool any = false;
	if (!json)
		printf("%-8s %-6s %-10s %s\n", "driver", "usable", "version", "where / why");
	for (size_t i = 0; i < n; i++) {
		struct driver_status st;
		v[i].probe(&q, &st);
		any |= st.available && !v[i].hands_over; /* mech alone does not make a run */
		if (json) {
			cJSON *o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "name", v[i].name);
			cJSON_AddStringToObject(o, "summary", v[i].summary);
			cJSON_AddBoolToObject(o, "usable", st.available);
			if (st.version)
				cJSON_AddStringToObject(o, "version", st.version);
			if (st.path)
				cJSON_AddStringToObject(o, "path", st.path);
			if (st.why)
				cJSON_AddStringToObject(o, st.available ? "note" : "why", st.why);
			cJSON_AddItemToArray(arr, o);
		} else {
			printf("%-8s %-6s %-10s %s%s%s\n", v[i].name, st.available ? "yes" : "no",
			       st.version ? st.version : "-", st.path ? st.path : "",
			       st.path && st.why ? "\n" "                           " : "", st.why ? st.why : "");
		}
		driver_status_free(&st);
	}
	if (json) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "name", "exec");
		cJSON_AddStringToObject(o, "summary", "any command: --driver X=exec:COMMAND");
		cJSON_AddBoolToObject(o, "usable", true);
		cJSON_AddItemToArray(arr, o);
		char *s = cJSON_Print(arr);
		puts(s);
		cJSON_free(s);
	} else {
		printf("%-8s %-6s %-10s %s\n", "exec", "yes", "-", "any command: --driver X=exec:COMMAND");
	}
	cJSON_Delete(arr);
	session_close(se);
	return any ? TP_EXIT_OK : TP_EXIT_ENV;
}
