/* tileport run OP / tileport resume RUN: drive the pipeline. */
#include "cli/cli.h"

#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/base/loop.h"
#include "engine/core/pipeline.h"
#include "engine/core/run.h"
#include "tui/tui.h"

static const char run_usage[] =
	"usage: tileport run OP [--workspace DIR] [--out DIR] [--headless] [--fresh] [--again]\n"
	"                       [--driver X=SPEC]... [--validator X=CMD]... [--table FILE]\n"
	"\n"
	"Start a conversion run of operator OP: its name (softmax, gelu) where the name\n"
	"is unique, or its path under src/tilegym/ops/{cutile,triton}/ (activation/gelu,\n"
	"src/tilegym/ops/cutile/activation/gelu.py). The run directory is OUT/NAME, OUT\n"
	"being --out, else $CUTILE_KERNEL_OUT_ROOT, else `out_root` in the config, else\n"
	"WORKSPACE/cutile_kernel_out.\n"
	"\n"
	"  --workspace DIR   the TileGym checkout (default: $TILEGYM_PATH)\n"
	"  --out DIR         the output root\n"
	"  --headless        no screen: print one line per event (the default when\n"
	"                    stdin or stdout is not a terminal)\n"
	"  --fresh           OUT/OP holds a run already: move it aside to OUT/OP.1 (.2, ...;\n"
	"                    never deleted) and start a new one\n"
	"  --again           OP already has a cuTile Rust port in the workspace (run refuses\n"
	"                    it, naming the port): convert it anew anyway; stage D writes\n"
	"                    over the port's files\n"
	"  --driver X=SPEC   the agent for stage X (A-F): a built-in driver (mech,\n"
	"                    claude, codex, llm; `tileport drivers` lists them and\n"
	"                    whether they are usable), a chain of them tried in turn\n"
	"                    within one attempt (\"mech, claude\"), or exec:COMMAND, run\n"
	"                    with /bin/sh -c. Also `driver.X = SPEC` in the config.\n"
	"                    Without either, each stage gets the first usable built-in\n"
	"                    driver (offline, mech for A, B and D where it translates\n"
	"                    the op; docs/agents.md).\n"
	"  --validator X=CMD the orchestrator's validator for stage X instead of the\n"
	"                    table's (`builtin`, `none`, or a shell command)\n"
	"  --table FILE      the pipeline table (default: the installed skill/pipeline.json)\n"
	"\n"
	"When the cuTile toolchain or a GPU is missing the run goes offline: stages\n"
	"A, B and D do their offline part and the run ends OFFLINE_COMPLETE.\n"
	"\n"
	"Every finished run has an outcome: accepted (E returned DONE and the final\n"
	"output contract passed), or not accepted with the reason (the stage and\n"
	"verdict the run ended on, or the contract's findings); OFFLINE_COMPLETE is\n"
	"pending until 'tileport resume --online'.\n"
	"\n"
	"exit: 0 accepted or OFFLINE_COMPLETE, 1 not accepted (STOP, a PIPELINE_COMPLETE\n"
	"that is not accepted) or aborted, 2 bad usage or input, 3 environment missing\n"
	"and offline work impossible\n";

static const char resume_usage[] =
	"usage: tileport resume RUN [--online] [--headless] [--driver X=SPEC]...\n"
	"                          [--validator X=CMD]... [--out DIR] [--workspace DIR]\n"
	"                          [--table FILE]\n"
	"\n"
	"Continue a run that was interrupted (killed, aborted, crashed). RUN is a run\n"
	"directory or an op name in the output root. An attempt that was running is\n"
	"run again under the same number.\n"
	"\n"
	"  --online   the run ended OFFLINE_COMPLETE and the toolchain is now present:\n"
	"             re-run the deferred stages, in order, then route as usual\n"
	"  --driver X=SPEC, --validator X=CMD\n"
	"             replace the run's own (kept in its state; the user config's\n"
	"             driver.X/validator.X also apply, the workspace's never)\n"
	"  --out DIR, --workspace DIR   where to find RUN when it is an op name\n"
	"  --table FILE                 the table, if the run's own has moved\n"
	"\n"
	"exit codes as for 'tileport run'\n";

static volatile sig_atomic_t interrupted;

static void print_event(struct run_model *m, const struct run_change *e, void *ud)
{
	FILE *out = ud;
	(void)m;
	if (e->kind != RUN_EVENT)
		return;
	const cJSON *msg = cJSON_GetObjectItemCaseSensitive(e->ev, "msg");
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(e->ev, "t");
	if (!cJSON_IsString(msg))
		return;
	time_t secs = cJSON_IsNumber(t) ? (time_t)(t->valuedouble / 1000) : time(NULL);
	struct tm tm;
	gmtime_r(&secs, &tm);
	char ts[16];
	strftime(ts, sizeof(ts), "%H:%M:%S", &tm);
	fprintf(out, "%s %s\n", ts, msg->valuestring);
	fflush(out);
}

static void on_signal(struct loop *l, int signo, void *ud)
{
	struct pipeline *p = ud;
	(void)l;
	interrupted = signo;
	struct tp_err err;
	if (!pipeline_finished(p))
		pipeline_abort(p, &err);
}

/* The workbench screen on a live run (tileport run/resume without
 * --headless): the user watches and steps; quitting leaves an unfinished
 * run interrupted, to be resumed. */
static int drive_screen(struct run_model *m, struct session *session)
{
	struct pipeline *p = run_model_pipeline(m);
	pipeline_start(p);
	struct tui_start s = {.kind = TUI_START_RUN, .session = session, .run = m};
	int rc = tui_main(&s);
	if (pipeline_failure(p))
		fprintf(stderr, "tileport: %s\n", pipeline_failure(p));
	if (rc != TP_EXIT_OK)
		return rc;
	const struct run_state *st = pipeline_state(p);
	if (!pipeline_finished(p))
		fprintf(stderr, "tileport: run %s left unfinished; continue it with 'tileport resume %s'\n",
			st->run_dir, st->run_dir);
	return pipeline_finished(p) ? pipeline_exit_code(p) : TP_EXIT_FAILED;
}

/* Run the loop until the pipeline has nothing left to do on its own. */
static int drive(struct pipeline *p, struct loop *l)
{
	loop_on_signal(l, SIGINT, on_signal, p);
	loop_on_signal(l, SIGTERM, on_signal, p);
	loop_on_signal(l, SIGHUP, on_signal, p);
	pipeline_start(p);
	while (pipeline_busy(p))
		if (loop_run_once(l, -1) < 0)
			break;
	const struct run_state *st = pipeline_state(p);
	int rc = pipeline_exit_code(p);
	if (pipeline_failure(p))
		fprintf(stderr, "tileport: %s\n", pipeline_failure(p));
	if (interrupted || st->status == RUN_ABORTED) {
		fprintf(stderr, "tileport: run interrupted; continue it with 'tileport resume %s'\n",
			st->run_dir);
		rc = TP_EXIT_FAILED;
	}
	return rc;
}

/* A live run from here on: on the screen, or one line per event (for a new
 * run from its first: where it was created, what it replaced). */
static int go(struct run_model *m, struct session *s, bool headless, bool new_run)
{
	if (cli_want_screen(headless))
		return drive_screen(m, s);
	const cJSON *ev;
	const cJSON *before = new_run ? run_model_events(m) : NULL;
	cJSON_ArrayForEach(ev, before)
		print_event(m, &(struct run_change){.kind = RUN_EVENT, .ev = ev}, stdout);
	run_model_listen(m, print_event, stdout);
	return drive(run_model_pipeline(m), session_loop(s));
}

struct run_args {
	struct session_opts so; /* --workspace, --out, --table, --driver, --validator */
	bool headless, online;
};

static int parse(const char *cmd, const char *usage, int argc, char **argv, struct run_args *a)
{
	static const struct option opts[] = {
		{"workspace", required_argument, NULL, 'w'},
		{"out", required_argument, NULL, 'o'},
		{"headless", no_argument, NULL, 'H'},
		{"driver", required_argument, NULL, 'd'},
		{"validator", required_argument, NULL, 'v'},
		{"table", required_argument, NULL, 't'},
		{"online", no_argument, NULL, 'O'},
		{"fresh", no_argument, NULL, 'F'},
		{"again", no_argument, NULL, 'G'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c;
	while ((c = getopt_long(argc, argv, ":w:o:Hd:v:t:Oh", opts, NULL)) != -1) {
		switch (c) {
		case 'w': a->so.workspace = optarg; break;
		case 'o': a->so.out_root = optarg; break;
		case 'H': a->headless = true; break;
		case 't': a->so.table_path = optarg; break;
		case 'O': a->online = true; break;
		case 'F': a->so.fresh = true; break;
		case 'G': a->so.again = true; break;
		case 'd':
			if (cli_stage_assign(cmd, "--driver", optarg, a->so.commands.drivers))
				return TP_EXIT_USAGE;
			break;
		case 'v':
			if (cli_stage_assign(cmd, "--validator", optarg, a->so.commands.validators))
				return TP_EXIT_USAGE;
			break;
		case 'h':
			fputs(usage, stdout);
			return -1;
		default:
			return cli_bad_option(cmd, argv, c);
		}
	}
	if (a->online && strcmp(cmd, "resume") != 0)
		return cli_usage_error(cmd, "--online applies to 'tileport resume'");
	if (a->so.fresh && strcmp(cmd, "run") != 0)
		return cli_usage_error(cmd, "--fresh applies to 'tileport run'");
	if (a->so.again && strcmp(cmd, "run") != 0)
		return cli_usage_error(cmd, "--again applies to 'tileport run'");
	return 0;
}


int cmd_run(int argc, char **argv)
{
	struct run_args a = {0};
	int rc = parse("run", run_usage, argc, argv, &a);
	if (rc)
		return rc < 0 ? 0 : rc;
	if (argc - optind != 1)
		return cli_usage_error("run", "expected one operator name");
	a.so.ask = cli_want_screen(a.headless);
	struct session *s;
	if ((rc = cli_session(&s, &a.so)))
		return rc;
	struct tp_err err;
	struct run_model *m = session_new_run(s, argv[optind], &err);
	if (m)
		cli_out_root_note(s);
	rc = m ? go(m, s, a.headless, true) : cli_report(&err);
	run_model_free(m);
	session_close(s);
	return rc;
}

int cmd_resume(int argc, char **argv)
{
	struct run_args a = {0};
	int rc = parse("resume", resume_usage, argc, argv, &a);
	if (rc)
		return rc < 0 ? 0 : rc;
	if (argc - optind != 1)
		return cli_usage_error("resume", "expected one run (a directory or an op name)");
	a.so.ask = cli_want_screen(a.headless);
	struct session *s;
	if ((rc = cli_session(&s, &a.so)))
		return rc;
	struct tp_err err;
	struct run_model *m = session_run(s, argv[optind], &err);
	if (!m || run_model_attach(m, &(struct run_attach){.online = a.online}, &err) < 0) {
		rc = cli_report(&err);
	} else if (run_model_state(m)->final) {
		const struct run_state *st = run_model_state(m);
		printf("run %s has already ended: %s%s%s; %s%s%s\n", st->run_dir, st->final,
		       st->reason ? ": " : "", st->reason ? st->reason : "",
		       run_outcome_words(st->outcome), st->outcome_reason ? ": " : "",
		       st->outcome_reason ? st->outcome_reason : "");
		rc = pipeline_exit_code(run_model_pipeline(m));
	} else {
		rc = go(m, s, a.headless, false);
	}
	run_model_free(m);
	session_close(s);
	return rc;
}

static const char step_usage[] =
	"usage: tileport step RUN ACTION [ARGS] [--reason TEXT] [--beyond-cap] [--out DIR]\n"
	"\n"
	"Act on a run by hand, then let it route on (headless). ACTION is one of:\n"
	"  continue                 run the pending stage (or the interrupted attempt)\n"
	"  override SEQ VERDICT     replace the verdict of the latest attempt (needs --reason)\n"
	"  skip STAGE               route the pending STAGE as if it succeeded (needs --reason)\n"
	"  respawn STAGE            run STAGE again; past its cap only with --beyond-cap\n"
	"  revalidate SEQ           run the stage validator of attempt SEQ again\n"
	"  owner SEQ CLASS          the owner class of attempt SEQ whose report tagged none\n"
	"                           (host, kernel, env as the verdict allows, or stop; needs\n"
	"                           --reason): the run waits for it or stopped on it\n"
	"  abort                    mark the run aborted\n"
	"Every action is recorded in events.jsonl as a manual event.\n"
	"\n"
	"exit: as 'tileport run' once the run stops; revalidate: 0 pass, 1 fail\n";

int cmd_step(int argc, char **argv)
{
	static const struct option opts[] = {
		{"reason", required_argument, NULL, 'r'},
		{"beyond-cap", no_argument, NULL, 'b'},
		{"out", required_argument, NULL, 'o'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *reason = NULL, *oopt = NULL;
	bool beyond = false;
	int c;
	while ((c = getopt_long(argc, argv, ":r:bo:h", opts, NULL)) != -1) {
		switch (c) {
		case 'r': reason = optarg; break;
		case 'b': beyond = true; break;
		case 'o': oopt = optarg; break;
		case 'h': fputs(step_usage, stdout); return 0;
		default: return cli_bad_option("step", argv, c);
		}
	}
	int nargs = argc - optind;
	if (nargs < 2)
		return cli_usage_error("step", "expected RUN and an ACTION");
	const char *action = argv[optind + 1];
	char **args = argv + optind + 2;
	int nact = nargs - 2;
	struct {
		const char *name;
		int nargs;
	} acts[] = {{"continue", 0}, {"override", 2}, {"skip", 1}, {"respawn", 1}, {"revalidate", 1}, {"abort", 0},
	    {"owner", 2}};
	int want = -1;
	for (size_t i = 0; i < TP_ARRAY_LEN(acts); i++)
		if (strcmp(acts[i].name, action) == 0)
			want = acts[i].nargs;
	if (want < 0)
		return cli_usage_error("step", "unknown action '%s'", action);
	if (nact != want)
		return cli_usage_error("step", "%s takes %d argument%s", action, want, want == 1 ? "" : "s");
	char stage = 0;
	int seq = 0;
	if (!strcmp(action, "skip") || !strcmp(action, "respawn")) {
		if (!stage_letter_ok(args[0][0]) || args[0][1])
			return cli_usage_error("step", "'%s' is not a stage letter", args[0]);
		stage = args[0][0];
	}
	if (!strcmp(action, "override") || !strcmp(action, "revalidate") || !strcmp(action, "owner")) {
		char *end;
		seq = (int)strtol(args[0], &end, 10);
		if (*end || seq <= 0)
			return cli_usage_error("step", "'%s' is not an attempt number", args[0]);
	}
	struct session *s;
	int rc = cli_session(&s, &(struct session_opts){.out_root = oopt});
	if (rc)
		return rc;
	struct loop *l = session_loop(s);
	struct tp_err err;
	struct run_model *m = session_run(s, argv[optind], &err);
	if (!m || run_model_attach(m, NULL, &err) < 0) {
		rc = cli_report(&err);
		goto done;
	}
	struct pipeline *p = run_model_pipeline(m);
	run_model_listen(m, print_event, stdout);
	int r = 0;
	bool drive_after = true;
	if (!strcmp(action, "override"))
		r = pipeline_override(p, seq, args[1], reason, &err);
	else if (!strcmp(action, "owner"))
		r = pipeline_set_owner(p, seq, args[1], reason, &err);
	else if (!strcmp(action, "skip"))
		r = pipeline_skip(p, stage, reason, &err);
	else if (!strcmp(action, "respawn"))
		r = pipeline_respawn(p, stage, beyond, &err);
	else if (!strcmp(action, "abort"))
		r = pipeline_abort(p, &err), drive_after = false;
	else if (!strcmp(action, "revalidate")) {
		r = pipeline_revalidate(p, seq, &err);
		drive_after = false;
		while (r == 0 && pipeline_busy(p)) /* a command validator runs on the loop */
			if (loop_run_once(l, -1) < 0)
				break;
		if (r == 0 && pipeline_failure(p)) {
			fprintf(stderr, "tileport: %s\n", pipeline_failure(p));
			rc = TP_EXIT_ENV;
		} else if (r == 0) {
			const struct attempt *a = run_model_attempt(m, seq);
			printf("%c%d validator: %s\n", a->stage, a->n, validator_result_name(a->validator));
			rc = a->validator == VALIDATOR_FAIL ? TP_EXIT_FAILED : TP_EXIT_OK;
		}
	}
	if (r < 0)
		rc = cli_report(&err);
	else if (drive_after)
		rc = drive(p, l);
	else if (strcmp(action, "abort") == 0)
		rc = TP_EXIT_FAILED; /* as 'tileport run' exits for an aborted run */
done:
	run_model_free(m);
	session_close(s);
	return rc;
}
