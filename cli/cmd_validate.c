/* tileport validate NAME ARGS... : the reference validators, in-process. */
#include "cli/cli.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "engine/check/check.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: tileport validate NAME ARGS... [--json] [--quiet] [--run DIR]\n"
		"                         [--out DIR] [--workspace DIR]\n"
		"                         [--deferred STEPS] [--host-written]\n"
		"\n"
		"Run a stage validator with the arguments of the reference script\n"
		"validate_NAME.sh (NAME with '-' for '_'):\n"
		"%s"
		"\n"
		"options:\n"
		"  --run DIR         the run directory; stands in for KERNEL and the output\n"
		"                    root (KERNEL = its last component); a tileport run's\n"
		"                    own workspace is used unless another is given\n"
		"  --out DIR         the output root (else $CUTILE_KERNEL_OUT_ROOT, `out_root`\n"
		"                    in the config, WORKSPACE/cutile_kernel_out)\n"
		"  --workspace DIR   the TileGym checkout (else $TILEGYM_PATH, `workspace` in\n"
		"                    the config, the current directory if it holds src/tilegym)\n"
		"  --json            findings and verdict as JSON\n"
		"  -q, --quiet       text: omit PASS findings\n"
		"  --deferred STEPS  toolchain steps an offline stage deferred, comma\n"
		"                    separated: reference-ir, generated-ir, layout-gate,\n"
		"                    cargo-build, pytest, perf-log (also $TILEPORT_DEFERRED)\n"
		"  --host-written    B's lane guards: D's host files are expected\n"
		"  -h, --help        this help\n"
		"\n"
		"environment: TILEGYM_PATH, CUTILE_KERNEL_OUT_ROOT, CUTILE_RS_ROOT,\n"
		"CUTILE_RS_KERNELS_DIR, TILEPORT_DEFERRED.\n"
		"\n"
		"exit: 0 pass (warnings and deferred checks included), 1 a check failed,\n"
		"2 bad usage, 3 the environment does not say where to look.\n",
		check_usage_lines());
}

int cmd_validate(int argc, char **argv)
{
	static const struct option opts[] = {
		{"json", no_argument, NULL, 'j'},     {"quiet", no_argument, NULL, 'q'},
		{"run", required_argument, NULL, 'r'}, {"deferred", required_argument, NULL, 'd'},
		{"host-written", no_argument, NULL, 'H'}, {"help", no_argument, NULL, 'h'},
		{"out", required_argument, NULL, 'o'},  {"workspace", required_argument, NULL, 'w'},
		{NULL, 0, NULL, 0},
	};
	bool json = false;
	unsigned flags = 0;
	const char *run = NULL, *deferred = NULL;
	struct session_opts so = {.read_only = true};
	int host = -1;
	int c;
	while ((c = getopt_long(argc, argv, ":qh", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'q':
			flags |= CHECK_TEXT_QUIET;
			break;
		case 'r':
			run = optarg;
			break;
		case 'd':
			deferred = optarg;
			break;
		case 'H':
			host = 1;
			break;
		case 'o':
			so.out_root = optarg;
			break;
		case 'w':
			so.workspace = optarg;
			break;
		case 'h':
			usage(stdout);
			return TP_EXIT_OK;
		default:
			return cli_bad_option("validate", argv, c);
		}
	}
	if (optind >= argc)
		return cli_usage_error("validate", "which validator? (ir, analysis, perf-log, "
						   "agent-b, entry-pattern, diff-report, agent-d, "
						   "agent-e, agent-f, kernel, stage)");
	const char *name = argv[optind];
	if (run && !path_is_dir(run))
		return cli_usage_error("validate", "--run %s: not a directory", run);
	struct session *s;
	int rc = cli_session(&s, &so);
	if (rc)
		return rc;
	struct check_ctx ctx;
	check_ctx_init(&ctx);
	ctx.host_written = host;
	struct tp_err err = {0};
	if (so.workspace || cli_globals.workspace)
		check_ctx_set(&ctx.tilegym, session_workspace(s));
	if (run) {
		check_ctx_set_run(&ctx, run);
		/* a run knows its workspace */
		struct run_state st;
		if (!ctx.tilegym && run_exists(run) && run_state_load(run, &st, NULL) == 0) {
			check_ctx_set(&ctx.tilegym, st.workspace);
			run_state_free(&st);
		}
	}
	if (check_ctx_from_env(&ctx, &err) < 0) {
		check_ctx_free(&ctx);
		session_close(s);
		return cli_usage_error("validate", "%s", err.msg);
	}
	/* where every other command looks: the config's paths, the workspace
	 * found in the current directory, its cutile_kernel_out */
	const char *ws = session_workspace(s);
	if (!ctx.tilegym && ws)
		check_ctx_set(&ctx.tilegym, ws);
	if (!ctx.out_root && !ctx.run_dir &&
	    (so.out_root || ws || config_get(session_config(s), "out_root")))
		check_ctx_set(&ctx.out_root, session_out_root(s));
	session_close(s);
	if (deferred) {
		unsigned steps;
		if (check_steps_parse(deferred, &steps, &err) < 0) {
			check_ctx_free(&ctx);
			return cli_usage_error("validate", "--deferred: %s", err.msg);
		}
		ctx.deferred |= steps; /* beside what earlier stages deferred ($TILEPORT_DEFERRED) */
	}
	struct check_report *r = check_report_new(name);
	rc = check_by_name(name, argc - optind - 1, argv + optind + 1, &ctx, r, &err);
	if (rc < 0) {
		check_report_free(r);
		check_ctx_free(&ctx);
		if (err.code == TP_EXIT_USAGE)
			return cli_usage_error("validate", "%s", err.msg);
		return cli_report(&err);
	}
	if (json) {
		cJSON *j = check_report_json(r);
		char *s = cJSON_Print(j);
		puts(s);
		cJSON_free(s);
		cJSON_Delete(j);
	} else {
		check_print_text(stdout, r, flags);
	}
	rc = check_report_exit(r);
	check_report_free(r);
	check_ctx_free(&ctx);
	return rc;
}
