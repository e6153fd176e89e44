/* tileport preflight [--json]: what the pipeline needs and what is missing. */
#include "cli/cli.h"

#include <getopt.h>
#include <stdlib.h>

#include "engine/core/preflight.h"

static const char usage[] =
	"usage: tileport preflight [--workspace DIR] [--out DIR] [--json]\n"
	"\n"
	"Check the reference environment (TILEGYM_PATH, TILEIRAS_BIN, CUDA_TILE_OPT_BIN,\n"
	"TRITON_TILEIR_PYTHONPATH, CUDA_TOOLKIT_PATH, CUTILE_KERNEL_OUT_ROOT) plus\n"
	"cargo, python and a GPU, and say whether a run would be online, offline\n"
	"(toolchain missing: A, B, D do their offline part) or impossible.\n"
	"\n"
	"exit: 0 everything present, 3 something is missing (offline or impossible)\n";

int cmd_preflight(int argc, char **argv)
{
	static const struct option opts[] = {
		{"workspace", required_argument, NULL, 'w'},
		{"out", required_argument, NULL, 'o'},
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *wopt = NULL, *oopt = NULL;
	bool json = false;
	int c;
	while ((c = getopt_long(argc, argv, ":w:o:jh", opts, NULL)) != -1) {
		switch (c) {
		case 'w': wopt = optarg; break;
		case 'o': oopt = optarg; break;
		case 'j': json = true; break;
		case 'h': fputs(usage, stdout); return 0;
		default: return cli_bad_option("preflight", argv, c);
		}
	}
	if (optind != argc)
		return cli_usage_error("preflight", "unexpected argument '%s'", argv[optind]);
	struct session *s;
	int rc = cli_session(&s, &(struct session_opts){.workspace = wopt, .out_root = oopt});
	if (rc)
		return rc;
	struct preflight pf;
	preflight_run(&pf, session_workspace(s), session_out_root(s));
	if (json) {
		char *s = preflight_json(&pf);
		puts(s);
		free(s);
	} else {
		preflight_print(&pf, stdout);
	}
	rc = pf.online ? TP_EXIT_OK : TP_EXIT_ENV;
	preflight_free(&pf);
	session_close(s);
	return rc;
}
