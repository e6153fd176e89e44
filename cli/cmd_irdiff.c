/* tileport irdiff REF GEN [--json] [--report FILE] [--rows] [--keep-dead-constants]
 * tileport irdiff --tui [--theme NAME] REF GEN
 *
 * Exit codes follow the reference diff_ir.sh: 0 PASS, 2 PASS_WITH_NOTES,
 * 1 FAIL_FIXABLE. The project's "bad usage or input" code is also 2, which
 * would make a typo or an unparsable file look like PASS_WITH_NOTES to a
 * script that routes on the code; irdiff therefore reports usage and input
 * errors with exit 4 (and 3 when libgit2 fails), never with 0, 1 or 2.
 * With --tui the result is read on the screen, and the exit codes are the
 * TUI's: 0 when you quit, 2 bad usage or input, 3 no terminal. */
#include "cli/cli.h"

#include <cjson/cJSON.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/base/files.h"
#include "engine/ir/ir.h"
#include "engine/ir/irdiff.h"
#include "tui/tui.h"

#define IRDIFF_EXIT_INPUT 4

static const char usage_irdiff[] =
	"usage: tileport irdiff REF GEN [--json] [--report FILE] [--rows] [--keep-dead-constants]\n"
	"       tileport irdiff --tui [--theme NAME] [--keep-dead-constants] REF GEN\n"
	"\n"
	"Structural diff of two Tile IR files (cuda_tile text or bytecode), entry by entry:\n"
	"ops aligned over normalised lines, the reference diff_ir.sh rules, the layout gate\n"
	"and checks a word count cannot make (reduce axis, padding, masks, loop hoisting).\n"
	"\n"
	"  --json                  print the result as JSON\n"
	"  --report FILE           also write a diff_report.md skeleton to FILE\n"
	"  --rows                  list the aligned ops in the text report (with --json:\n"
	"                          include them)\n"
	"  --keep-dead-constants   do not drop unused constants before aligning\n"
	"  --tui                   show the diff on the screen: ops side by side, the\n"
	"                          findings below (docs/tui.md, the irdiff view)\n"
	"  --theme NAME            with --tui: default, light, high-contrast, monochrome\n"
	"\n"
	"exit: 0 PASS, 2 PASS_WITH_NOTES, 1 FAIL_FIXABLE (as diff_ir.sh);\n"
	"      4 bad usage or unreadable/invalid input, 3 environment (libgit2) error;\n"
	"      with --tui: 0 quit, 2 bad usage or input, 3 no terminal (as the TUI)\n";

static int run_tui(const char *ref, const char *gen, const char *theme, bool keep_dead)
{
	struct session *session;
	int rc = cli_session(&session, &(struct session_opts){.read_only = true});
	if (rc)
		return rc;
	struct tui_start s = {
		.kind = TUI_START_IRDIFF,
		.session = session,
		.path = ref,
		.path2 = gen,
		.theme = theme,
		.keep_dead_constants = keep_dead,
	};
	rc = tui_main(&s);
	session_close(session);
	return rc;
}

static int input_error(const char *msg)
{
	fprintf(stderr, "tileport irdiff: %s\n", msg);
	return IRDIFF_EXIT_INPUT;
}

int cmd_irdiff(int argc, char **argv)
{
	static const struct option opts[] = {
		{"json", no_argument, NULL, 'j'},
		{"report", required_argument, NULL, 'r'},
		{"rows", no_argument, NULL, 'R'},
		{"keep-dead-constants", no_argument, NULL, 'k'},
		{"tui", no_argument, NULL, 't'},
		{"theme", required_argument, NULL, 'T'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	bool json = false, rows = false, tui = false;
	const char *report = NULL, *theme = NULL;
	/* Usage errors are the TUI's exit 2 when the screen was asked for. */
	int usage_rc = IRDIFF_EXIT_INPUT;
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--tui"))
			usage_rc = TP_EXIT_USAGE;
	struct irdiff_options dopt = {false, false};
	int c;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'r':
			report = optarg;
			break;
		case 'R':
			rows = true;
			break;
		case 'k':
			dopt.keep_dead_constants = true;
			break;
		case 't':
			tui = true;
			break;
		case 'T':
			theme = optarg;
			break;
		case 'h':
			fputs(usage_irdiff, stdout);
			return TP_EXIT_OK;
		default:
			cli_bad_option("irdiff", argv, c);
			return usage_rc;
		}
	}
	if (argc - optind != 2) {
		cli_usage_error("irdiff", "expected REF and GEN");
		return usage_rc;
	}
	const char *rp = argv[optind], *gp = argv[optind + 1];
	if (tui && (json || report || rows)) {
		cli_usage_error("irdiff", "--tui shows the diff on the screen: no --json, --report "
			        "or --rows with it");
		return usage_rc;
	}
	if (theme && !tui) {
		cli_usage_error("irdiff", "--theme goes with --tui");
		return usage_rc;
	}
	if (tui)
		return run_tui(rp, gp, theme, dopt.keep_dead_constants);
	struct tp_err err;
	tp_err_clear(&err);
	struct ir_module *ref, *gen;
	if (!ir_module_load_pair(rp, gp, &ref, &gen, &err))
		return input_error(err.msg);
	dopt.texts = rows; /* only the aligned rows show the ops' text */
	dopt.drop_rows = !rows;
	struct irdiff_result *r = irdiff_modules(ref, gen, &dopt, &err);
	int rc;
	if (!r) {
		fprintf(stderr, "tileport irdiff: %s\n", err.msg);
		rc = TP_EXIT_ENV; /* never 2, which reads as PASS_WITH_NOTES */
		goto out;
	}
	rc = irdiff_exit_code(r->verdict);
	if (json) {
		cJSON *j = irdiff_report_json(r, rp, gp, rows);
		char *s = cJSON_Print(j);
		puts(s);
		free(s);
		cJSON_Delete(j);
	} else {
		struct sbuf sb = SBUF_INIT;
		irdiff_report_text(r, rp, gp, rows ? IRDIFF_TEXT_ROWS : 0, &sb);
		fputs(sb_str(&sb), stdout);
		sb_free(&sb);
	}
	if (report) {
		struct sbuf md = SBUF_INIT;
		irdiff_report_markdown(r, rp, gp, &md);
		if (write_output(report, md.buf ? md.buf : "", md.len, &err) < 0) {
			fprintf(stderr, "tileport irdiff: %s\n", err.msg);
			rc = TP_EXIT_ENV; /* the report could not be written */
		}
		sb_free(&md);
	}
	irdiff_free(r);
out:
	ir_module_free(gen);
	ir_module_free(ref);
	return rc;
}
