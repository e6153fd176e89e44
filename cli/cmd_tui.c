/* tileport browse / tileport open: the screens that need no live run
 * (tileport run OP opens its own pipeline view through tui_main). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "tui/tui.h"

static const char browse_usage[] =
	"usage: tileport browse [--out-root DIR] [--theme NAME]\n"
	"\n"
	"Show the runs in the output root: op, state, current stage, age.\n"
	"Enter opens a run's pipeline view. This is what 'tileport' with no\n"
	"command runs.\n"
	"\n"
	"  --out-root DIR   the output root (default: $CUTILE_KERNEL_OUT_ROOT)\n"
	"  --theme NAME     a theme from themes/ or a theme file path\n"
	"\n"
	"Keys: h shows them all. docs/tui.md has the details.\n";

static const char open_usage[] =
	"usage: tileport open [--theme NAME] RUN|FILE\n"
	"\n"
	"Attach to a finished or interrupted run and show its pipeline view, or\n"
	"show a file: a transcript (*.jsonl) with tool calls folded, or any text.\n"
	"RUN is a run directory, or an operator name under the output root.\n"
	"\n"
	"  --out-root DIR   where to look up RUN by name (default: $CUTILE_KERNEL_OUT_ROOT)\n"
	"  --theme NAME     a theme from themes/ or a theme file path\n";

static const char *default_out_root(void)
{
	const char *r = getenv("CUTILE_KERNEL_OUT_ROOT");
	return r && *r ? r : "/workspace/cutile_kernel_out";
}

static int parse(int argc, char **argv, const char *usage, const char **out_root,
		 const char **theme)
{
	static const struct option opts[] = {
		{"out-root", required_argument, NULL, 'o'},
		{"theme", required_argument, NULL, 't'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c;
	while ((c = getopt_long(argc, argv, "o:t:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			*out_root = optarg;
			break;
		case 't':
			*theme = optarg;
			break;
		case 'h':
			cli_print_usage(stdout, usage);
			return -1;
		default:
			return -2;
		}
	}
	return 0;
}

int cmd_browse(int argc, char **argv)
{
	const char *root = NULL, *theme = NULL;
	int r = parse(argc, argv, browse_usage, &root, &theme);
	if (r == -1)
		return TP_EXIT_OK;
	if (r == -2)
		return cli_usage_error(argv[0], "unknown option");
	if (optind < argc)
		return cli_usage_error(argv[0], "unexpected argument '%s'", argv[optind]);
	struct tui_start s = {
		.kind = TUI_START_RUNS,
		.out_root = root ? root : default_out_root(),
		.workspace = cli_globals.workspace,
		.theme = theme,
	};
	return tui_main(&s);
}

int cmd_open(int argc, char **argv)
{
	const char *root = NULL, *theme = NULL;
	int r = parse(argc, argv, open_usage, &root, &theme);
	if (r == -1)
		return TP_EXIT_OK;
	if (r == -2)
		return cli_usage_error(argv[0], "unknown option");
	if (optind + 1 != argc)
		return cli_usage_error(argv[0], "expected one RUN or FILE");
	const char *what = argv[optind];
	struct tui_start s = {
		.workspace = cli_globals.workspace,
		.theme = theme,
	};
	char *byname = NULL;
	if (path_is_file(what)) {
		s.kind = TUI_START_FILE;
		s.path = what;
	} else if (path_is_dir(what)) {
		s.kind = TUI_START_RUN;
		s.run_dir = what;
	} else if (!strchr(what, '/')) {
		byname = path_join(root ? root : default_out_root(), what);
		if (!path_is_dir(byname)) {
			int rc = cli_usage_error(argv[0], "no run '%s' (looked for %s)", what, byname);
			free(byname);
			return rc;
		}
		s.kind = TUI_START_RUN;
		s.run_dir = byname;
	} else {
		return cli_usage_error(argv[0], "no such file or directory: %s", what);
	}
	int rc = tui_main(&s);
	free(byname);
	return rc;
}
