/* tileport browse / tileport open: the workbench screen on the runs of an
 * output root, on one run, or on a file. (tileport run OP opens its own
 * pipeline view through tui_main.) A run is attached for manual work the
 * way `tileport resume` would take it over, without starting anything:
 * nothing runs until the user acts. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "engine/batch/batch.h"
#include "engine/core/run.h"
#include "tui/tui.h"

static const char browse_usage[] =
	"usage: tileport browse [--out DIR] [--theme NAME] [--read-only]\n"
	"\n"
	"Show the runs in the output root: op, state, current stage, attempts, age.\n"
	"Enter opens a run's pipeline view. 'tileport' with no command runs this.\n"
	"\n"
	"  --out DIR      the output root (default: $CUTILE_KERNEL_OUT_ROOT, then\n"
	"                 out_root in the config, then WORKSPACE/cutile_kernel_out)\n"
	"  --theme NAME   default, light, high-contrast, monochrome, or a theme file\n"
	"  --read-only    look without attaching: no stepping, nothing written\n"
	"\n"
	"Press h for the keys; docs/tui.md has the details.\n"
	"exit: 0, 2 bad usage or config, 3 no terminal\n";

static const char open_usage[] =
	"usage: tileport open [--out DIR] [--theme NAME] [--read-only] RUN|BATCH|FILE\n"
	"\n"
	"Show a run's pipeline view: a finished or interrupted run, attached for\n"
	"stepping by hand (override, re-spawn, skip, continue, abort); read-only\n"
	"while another tileport drives it. RUN is a run directory or an op name in\n"
	"the output root. BATCH is a batch name in the output root (or its folder):\n"
	"the batch view, one row per operator, followed live (R resumes a run, x\n"
	"cancels one). A FILE is shown as a transcript (*.jsonl, tool calls\n"
	"folded) or as text.\n"
	"\n"
	"  --out DIR      the output root for RUN names\n"
	"  --theme NAME   default, light, high-contrast, monochrome, or a theme file\n"
	"  --read-only    look without attaching: no stepping, nothing written\n"
	"\n"
	"exit: 0, 2 bad usage or no such run or batch, 3 no terminal\n";

static int parse(int argc, char **argv, const char *usage, const char **out_root,
		 const char **theme, bool *read_only)
{
	static const struct option opts[] = {
		{"out", required_argument, NULL, 'o'},
		{"theme", required_argument, NULL, 't'},
		{"read-only", no_argument, NULL, 'r'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c;
	while ((c = getopt_long(argc, argv, ":o:t:rh", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			*out_root = optarg;
			break;
		case 't':
			*theme = optarg;
			break;
		case 'r':
			*read_only = true;
			break;
		case 'h':
			fputs(usage, stdout);
			return -1;
		default:
			return cli_bad_option(argv[0], argv, c);
		}
	}
	return 0;
}

int cmd_browse(int argc, char **argv)
{
	const char *opt_out = NULL, *theme = NULL;
	bool read_only = false;
	int rc = parse(argc, argv, browse_usage, &opt_out, &theme, &read_only);
	if (rc)
		return rc < 0 ? TP_EXIT_OK : rc;
	if (optind < argc)
		return cli_usage_error(argv[0], "unexpected argument '%s'", argv[optind]);
	struct session *session;
	if ((rc = cli_session(&session, &(struct session_opts){.out_root = opt_out, .read_only = read_only,
											.ask = true})))
		return rc;
	struct tui_start s = {.kind = TUI_START_RUNS, .session = session, .theme = theme};
	rc = tui_main(&s);
	session_close(session);
	return rc;
}

int cmd_open(int argc, char **argv)
{
	const char *opt_out = NULL, *theme = NULL;
	bool read_only = false;
	int rc = parse(argc, argv, open_usage, &opt_out, &theme, &read_only);
	if (rc)
		return rc < 0 ? TP_EXIT_OK : rc;
	if (optind + 1 != argc)
		return cli_usage_error(argv[0], "expected one RUN or FILE");
	const char *what = argv[optind];
	char *dir = NULL, *bdir = NULL;
	struct batch *b = NULL;
	struct session *session;
	if ((rc = cli_session(&session, &(struct session_opts){.out_root = opt_out, .read_only = read_only,
											.ask = true})))
		return rc;
	struct tui_start s = {.session = session, .theme = theme};
	/* anything there but a directory is a file to show (the view says
	 * what is wrong with a FIFO or a device) */
	if (access(what, F_OK) == 0 && !path_is_dir(what)) {
		s.kind = TUI_START_FILE;
		s.path = what;
	} else if ((dir = session_run_dir(session, what)) && run_exists(dir)) {
		s.kind = TUI_START_RUN;
		s.run_dir = dir;
	} else if ((bdir = batch_resolve(what, session_out_root(session)))) {
		struct tp_err err;
		if (batch_open(&b, session, bdir, &err) < 0) {
			rc = cli_report(&err);
			goto done;
		}
		batch_follow(b, true);
		s.kind = TUI_START_BATCH;
		s.model = b;
	} else {
		rc = cli_usage_error(argv[0], "no run or batch '%s' (looked for %s/.tileport/state.json "
					     "and %s/%s/%s/batch.json)", what, dir ? dir : what,
				     session_out_root(session), BATCH_FOLDER, what);
		goto done;
	}
	rc = tui_main(&s);
	if (b)
		batch_stop_wait(b); /* runs this screen started (R) stop with it */
done:
	batch_free(b);
	session_close(session);
	free(dir);
	free(bdir);
	return rc;
}
