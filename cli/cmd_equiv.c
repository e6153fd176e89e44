/* tileport equiv (and its old name, inventory): does a cuTile Rust kernel
 * compute what its Python source computes? The semantic check of
 * engine/sem on the command line. */
#include "cli/cli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/base/files.h"
#include "engine/sem/sem.h"

/* after the usage line, which names the command as it was called */
static const char usage_equiv[] =
	"\n"
	"Read the Python kernels (cuTile or Triton) and the Rust kernel (by anyone: the\n"
	"translator, an agent, a person) into one normalised graph of tile operations and\n"
	"match them node by node from the stores backwards:\n"
	"  CRITICAL  they compute something different (both lines, both values)\n"
	"  WARN      a hint differs (latency, TMA, flush-to-zero, rounding, an assumption)\n"
	"  NOTE      the same computation spelled differently, and why it is the same\n"
	"The launcher ffi.rs beside the kernel, when there is one, says which shapes and\n"
	"strides the kernel's scalar parameters carry.\n"
	"\n"
	"  --ffi FILE   the launcher to read (default: ffi.rs beside KERNEL.rs)\n"
	"  --no-ffi     read no launcher\n"
	"  --json       the findings, their values and lines, and the line pairs as JSON\n"
	"\n"
	"exit: 0 MATCH or MATCH_WITH_NOTES (warnings), 1 MISMATCH (a critical finding, or\n"
	"      a construct the check cannot follow), 2 bad usage or input (a file that is\n"
	"      not Python or not Rust: FILE:LINE: what was expected)\n";

int cmd_equiv(int argc, char **argv)
{
	static const struct option opts[] = {
		{"json", no_argument, NULL, 'j'},
		{"ffi", required_argument, NULL, 'f'},
		{"no-ffi", no_argument, NULL, 'n'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *name = argc > 0 && argv[0] ? argv[0] : "equiv";
	bool json = false, no_ffi = false;
	const char *ffi = NULL;
	int c;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'f':
			ffi = optarg;
			break;
		case 'n':
			no_ffi = true;
			break;
		case 'h':
			printf("usage: tileport %s SOURCE.py KERNEL.rs [--ffi FFI.rs | --no-ffi] [--json]\n%s", name,
			       strcmp(name, "equiv") ? "       (the old name of tileport equiv: the same command)\n"
						     : "       tileport inventory ...   (the same command, by its old name)\n");
			fputs(usage_equiv, stdout);
			return TP_EXIT_OK;
		default:
			return cli_bad_option(name, argv, c);
		}
	}
	if (optind + 2 != argc)
		return cli_usage_error(name, "expected SOURCE.py KERNEL.rs");
	if (ffi && no_ffi)
		return cli_usage_error(name, "--ffi and --no-ffi exclude each other");
	const char *py = argv[optind], *rs = argv[optind + 1];
	struct tp_err err;
	tp_err_clear(&err);
	struct sem_report r;
	int rc;
	if (no_ffi) {
		size_t pl, rl;
		char *pt = read_file(py, &pl, &err);
		char *rt = pt ? read_file(rs, &rl, &err) : NULL;
		if (!pt || !rt) {
			free(pt);
			fprintf(stderr, "%s\n", err.msg);
			return TP_EXIT_USAGE;
		}
		struct sem_input in = {py, pt, pl, rs, rt, rl, NULL, 0};
		rc = sem_check(&in, &r, &err);
		free(pt);
		free(rt);
	} else {
		rc = sem_check_files(py, rs, ffi, &r, &err);
	}
	if (rc < 0) {
		fprintf(stderr, "%s\n", err.msg[0] ? err.msg : "error");
		sem_report_free(&r);
		return err.code ? err.code : TP_EXIT_USAGE;
	}
	char *text = json ? sem_report_json(&r, py, rs) : sem_report_text(&r, py, rs);
	fputs(text, stdout);
	free(text);
	rc = r.ncritical ? TP_EXIT_FAILED : TP_EXIT_OK;
	sem_report_free(&r);
	return rc;
}
