/* tileport translate / analyze / inventory: the mechanical converter of
 * engine/port on the command line.
 *
 * A refusal is printed exactly as `FILE:LINE:COL: unsupported: <construct>`
 * (no prefix: it is the message a driver chain and an editor read) with
 * exit 1; input that is not Python, or missing files, exit 2. */
#include "cli/cli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	"       tileport translate --tui FILE.py [--kernel NAME] [--op NAME] [--theme NAME]\n"
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
	"  --tui           show the source beside the Rust on the screen (the source view)\n"
	"  --theme NAME    with --tui: default, light, high-contrast, monochrome\n"
	"\n"
	"A construct outside the supported subset (docs/mech.md) stops the translation\n"
	"with FILE:LINE:COL: unsupported: <construct>.\n"
	"\n"
	"exit: 0 translated, 1 unsupported construct, 2 bad usage or input, 3 no terminal (--tui)\n";

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
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
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
			return cli_usage_error("translate", "unknown option");
		}
	}
	if (optind + 1 != argc)
		return cli_usage_error("translate", "expected one FILE.py");
	const char *path = argv[optind];
	if (tui && (json || out))
		return cli_usage_error("translate", "--tui shows the translation; no --json or --out");
	if (strcmp(what, "kernel") != 0 && strcmp(what, "ffi") != 0 && strcmp(what, "wrapper") != 0 &&
	    strcmp(what, "contract") != 0)
		return cli_usage_error("translate", "--emit takes kernel, ffi, wrapper or contract");
	struct tp_err err;
	tp_err_clear(&err);
	struct port_op *op;
	if (port_open(path, kernel, opname, &op, &err) < 0)
		return port_error(&err);
	int rc;
	if (tui) {
		port_close(op);
		(void)theme;
		return cli_usage_error("translate", "--tui: not yet");
	}
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
	return rc;
}
