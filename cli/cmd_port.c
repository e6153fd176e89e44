/* tileport translate / analyze: the mechanical converter of
 * engine/port on the command line.
 *
 * A refusal is printed exactly as `FILE:LINE:COL: unsupported: <construct>`
 * (no prefix: it is the message a driver chain and an editor read) with
 * exit 1; input that is not Python, or missing files, exit 2. A file
 * whose kernels partly translate gives those kernels, one refusal line per
 * other kernel, and exit 4 (PORT_EXIT_PARTIAL). */
#include "cli/cli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/base/files.h"
#include "engine/base/operator.h"
#include "engine/core/preflight.h"
#include "engine/port/port.h"
#include "tui/tui.h"

static int port_error(const struct tp_err *err)
{
	fprintf(stderr, "%s\n", err->msg[0] ? err->msg : "error");
	return err->code ? err->code : TP_EXIT_FAILED;
}

static int emit(const char *out, const char *text)
{
	if (!out) {
		fputs(text, stdout);
		return TP_EXIT_OK;
	}
	struct tp_err err;
	tp_err_clear(&err);
	if (write_file_atomic(out, text, strlen(text), &err) < 0)
		return cli_report(&err);
	return TP_EXIT_OK;
}

/* ---- translate ---- */

static const char usage_translate[] =
	"usage: tileport translate FILE.py [--kernel NAME] [--op NAME] [--json | --emit WHAT]\n"
	"                          [--out FILE]\n"
	"       tileport translate --tui [--theme NAME] FILE.py\n"
	"\n"
	"Translate the cuTile Python or Triton-TileIR kernels of FILE.py to cuTile Rust:\n"
	"one #[cutile::module] with an entry per kernel and structural variant.\n"
	"\n"
	"  --kernel NAME   only this kernel\n"
	"  --op NAME       the operator (the module is NAME_module; default: the file's name)\n"
	"  --json          print what was translated (kernels, entries, variants, generics,\n"
	"                  the op inventory) instead of the Rust\n"
	"  --emit WHAT     kernel (kernel.rs, the default), ffi (ffi.rs), wrapper (the\n"
	"                  cutile-rs Python wrapper) or contract (the host launch contract)\n"
	"  --out FILE      write to FILE (atomically) instead of stdout\n"
	"  --tui           show the source beside its translation on the screen, lines\n"
	"                  that correspond lit together (docs/tui.md, the source view)\n"
	"  --theme NAME    with --tui: default, light, high-contrast, monochrome\n"
	"\n"
	"A construct outside the supported subset (docs/mech.md) refuses its kernel with\n"
	"FILE:LINE:COL: unsupported: <construct> (kernel NAME) on stderr; the other kernels\n"
	"are still translated and written (--json: \"status\" per kernel).\n"
	"\n"
	"exit: 0 translated, 4 partial (some kernels refused, the others written),\n"
	"      1 nothing translated (every kernel refused, or --kernel's), 2 bad usage or\n"
	"      input; with --tui: 0 quit, 2 bad usage or input, 3 no terminal (as the TUI)\n";

int cmd_translate(int argc, char **argv)
{
	static const struct option opts[] = {
		{"kernel", required_argument, NULL, 'k'}, {"op", required_argument, NULL, 'o'},
		{"json", no_argument, NULL, 'j'},         {"out", required_argument, NULL, 'O'},
		{"tui", no_argument, NULL, 't'},          {"theme", required_argument, NULL, 'T'},
		{"emit", required_argument, NULL, 'e'},
		{"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0},
	};
	const char *kernel = NULL, *opname = NULL, *out = NULL, *theme = NULL, *what = "kernel";
	bool json = false, tui = false;
	int c;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 'k':
			kernel = optarg;
			break;
		case 'o':
			opname = optarg;
			break;
		case 'j':
			json = true;
			break;
		case 'O':
			out = optarg;
			break;
		case 't':
			tui = true;
			break;
		case 'e':
			what = optarg;
			break;
		case 'T':
			theme = optarg;
			break;
		case 'h':
			fputs(usage_translate, stdout);
			return TP_EXIT_OK;
		default:
			return cli_bad_option("translate", argv, c);
		}
	}
	if (optind + 1 != argc)
		return cli_usage_error("translate", "expected one FILE.py");
	const char *path = argv[optind];
	if (tui && (json || out || kernel || opname || strcmp(what, "kernel") != 0))
		return cli_usage_error("translate", "--tui shows the whole file's translation: no "
						    "--json, --out, --emit, --kernel or --op");
	if (tui) {
		struct session *session;
		int rc = cli_session(&session, &(struct session_opts){.read_only = true});
		if (rc)
			return rc;
		struct tui_start s = {.kind = TUI_START_SOURCE, .session = session, .path = path,
				      .theme = theme};
		rc = tui_main(&s);
		session_close(session);
		return rc;
	}
	if (strcmp(what, "kernel") != 0 && strcmp(what, "ffi") != 0 && strcmp(what, "wrapper") != 0 &&
	    strcmp(what, "contract") != 0)
		return cli_usage_error("translate", "--emit takes kernel, ffi, wrapper or contract");
	struct tp_err err;
	tp_err_clear(&err);
	struct port_op *op;
	if ((kernel ? port_open(path, kernel, opname, &op, &err)
		    : port_open_partial(path, opname, &op, &err)) < 0)
		return port_error(&err);
	/* each refused kernel on its own line, as an editor reads it */
	const struct port_refusal *refused;
	size_t nrefused = port_refused(op, &refused);
	for (size_t i = 0; i < nrefused; i++)
		fprintf(stderr, "%s (kernel %s)\n", refused[i].message, refused[i].kernel);
	int rc;
	char *text = NULL;
	if (json)
		text = port_translation_json(op);
	else if (strcmp(what, "ffi") == 0)
		rc = port_ffi_rs(op, &text, &err);
	else if (strcmp(what, "wrapper") == 0)
		rc = port_wrapper_py(op, path, &text, &err);
	else if (strcmp(what, "contract") == 0)
		text = port_launch_contract(op);
	else
		text = port_kernel_rs(op, path);
	if (!text) {
		port_close(op);
		return port_error(&err);
	}
	rc = emit(out, text);
	free(text);
	port_close(op);
	return rc == TP_EXIT_OK && nrefused ? PORT_EXIT_PARTIAL : rc;
}

/* ---- analyze ---- */

static const char usage_analyze[] =
	"usage: tileport analyze OP [--workspace DIR] [--out DIR | --run DIR] [--print]\n"
	"\n"
	"Read the operator's Python (OP by name or by its path under src/tilegym/ops/\n"
	"{cutile,triton}/, subfolders included: its cuTile file, and its Triton one where\n"
	"present) and its test (tests/ops/[SUB/]test_OP.py) into reference/analysis.json\n"
	"(pipeline.md §4.1): kernels, Constants and the values the host passes, structural\n"
	"variants and their dispatch conditions, grid, dtype gates, ops used, test_perf\n"
	"configs, correctness reference and tolerances. Without the cuTile toolchain the\n"
	"reference IR and the measured baselines are marked deferred.\n"
	"\n"
	"  --workspace DIR  the TileGym workspace (default: $TILEGYM_PATH)\n"
	"  --out DIR        the output root: writes DIR/OP/reference/analysis.json\n"
	"                   (default: $CUTILE_KERNEL_OUT_ROOT, then WORKSPACE/cutile_kernel_out)\n"
	"  --run DIR        the run directory itself\n"
	"  --print          print the JSON instead of writing it\n"
	"\n"
	"exit: 0 written, 1 unsupported kernel, 2 bad usage or input\n";

int cmd_analyze(int argc, char **argv)
{
	static const struct option opts[] = {
		{"workspace", required_argument, NULL, 'w'}, {"out", required_argument, NULL, 'o'},
		{"run", required_argument, NULL, 'r'},       {"print", no_argument, NULL, 'p'},
		{"help", no_argument, NULL, 'h'},            {NULL, 0, NULL, 0},
	};
	const char *ws_opt = NULL, *out_opt = NULL, *run_opt = NULL;
	bool print = false;
	int c;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 'w':
			ws_opt = optarg;
			break;
		case 'o':
			out_opt = optarg;
			break;
		case 'r':
			run_opt = optarg;
			break;
		case 'p':
			print = true;
			break;
		case 'h':
			fputs(usage_analyze, stdout);
			return TP_EXIT_OK;
		default:
			return cli_bad_option("analyze", argv, c);
		}
	}
	if (optind + 1 != argc)
		return cli_usage_error("analyze", "expected one OP");
	const char *opname = argv[optind];
	struct session *session;
	int rc = cli_session(&session, &(struct session_opts){.workspace = ws_opt,
							       .out_root = out_opt,
							       .read_only = true});
	if (rc)
		return rc;
	const char *ws = session_workspace(session);
	struct tp_err err;
	tp_err_clear(&err);
	char *run = NULL, *text = NULL;
	if (!ws) {
		fprintf(stderr, "tileport analyze: no workspace (--workspace or TILEGYM_PATH)\n");
		rc = TP_EXIT_USAGE;
		goto done;
	}
	/* offline, the reference IR and the baselines are deferred */
	struct preflight pf;
	preflight_run(&pf, ws, session_out_root(session));
	bool online = pf.online;
	preflight_free(&pf);
	if (port_analyze_workspace(ws, opname, online, &text, &err) < 0) {
		rc = port_error(&err);
		goto done;
	}
	if (print) {
		fputs(text, stdout);
		rc = TP_EXIT_OK;
		goto done;
	}
	/* the run directory is named after the operator, however it was named */
	struct ws_operator wo;
	bool found = operator_find(ws, opname, &wo, NULL) == 0;
	run = run_opt ? xstrdup(run_opt) : path_join(session_out_root(session), found ? wo.name : opname);
	if (found)
		operator_free(&wo);
	char *dir = path_join(run, "reference");
	char *file = path_join(dir, "analysis.json");
	if (mkdir_p(dir, 0755, &err) < 0 || write_file_atomic(file, text, strlen(text), &err) < 0)
		rc = cli_report(&err);
	else
		printf("%s\n", file);
	free(dir);
	free(file);
done:
	free(text);
	free(run);
	session_close(session);
	return rc;
}
