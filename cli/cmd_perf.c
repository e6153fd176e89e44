/* tileport perf: pair perf logs, the geomean gate, performance.md. */
#include "cli/cli.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "engine/base/files.h"
#include "engine/perf/compare.h"
#include "engine/perf/perfmd.h"
#include "tui/tui.h"

static const char perf_usage[] =
	"usage: tileport perf [--analysis FILE] [--kernel NAME] [--out FILE] [--json | --tui]\n"
	"                     BASELINE [BASELINE...] CANDIDATE\n"
	"       tileport perf --run RUN [--out FILE] [--json | --tui]\n"
	"\n"
	"Pair the candidate's perf log with the baseline's (pytest -sv --print-record\n"
	"logs, or tileport bench's): records pair by parameter string with the\n"
	"backend token dropped; ratio = candidate / baseline median time; the\n"
	"geomean over the paired configs decides: DONE iff geomean_ratio <= 1.05.\n"
	"A config without a median on either side is an NA row (INVESTIGATE,\n"
	"MISSING_DATA). Prints performance.md in the reference shape.\n"
	"\n"
	"  --analysis FILE  reference/analysis.json: config_to_variant and each\n"
	"                   variant's winning baseline (several BASELINE logs)\n"
	"  --kernel NAME    the operator's name for the report's title (default:\n"
	"                   analysis.json's kernel_name, else the test file's)\n"
	"  --run RUN        a run (its directory, or an op name in the output root):\n"
	"                   its baseline_perf*.txt,\n"
	"                   perf_cutile_rs*.txt and reference/analysis.json\n"
	"  --out FILE       also write the report to FILE (atomically)\n"
	"  --json           the table as JSON instead (docs/formats.md)\n"
	"  --tui            show the benchmark table view\n"
	"\n"
	"exit: 0 DONE, 1 INVESTIGATE or nothing paired (BLOCKED), 2 bad usage or\n"
	"input (the message names file and line)\n";

int cli_bench_tui(struct perf_table *t)
{
	struct session *session;
	int rc = cli_session(&session, &(struct session_opts){.read_only = true});
	if (rc)
		return rc;
	struct tui_start s = {.kind = TUI_START_BENCH, .session = session, .model = t};
	rc = tui_main(&s);
	session_close(session);
	return rc;
}

static int report(const struct perf_table *t, const char *out, bool json)
{
	for (size_t i = 0; i < t->nnotes; i++)
		fprintf(stderr, "tileport perf: note: %s\n", t->notes[i]);
	if (json) {
		char *s = perf_table_json(t);
		puts(s);
		free(s);
	}
	if (!t->npaired) {
		for (size_t i = 0; i < t->nrows; i++)
			fprintf(stderr, "tileport perf: NA %s: %s\n", t->rows[i].config,
				t->rows[i].why ? t->rows[i].why : "not paired");
		fprintf(stderr, "tileport perf: no configuration paired: there is no geomean to "
			"write (stage E: BLOCKED)\n");
		return TP_EXIT_FAILED;
	}
	struct sbuf md = SBUF_INIT;
	perf_md_write(t, &md);
	if (!json)
		fputs(sb_str(&md), stdout);
	int rc = t->verdict == PERF_VERDICT_DONE ? TP_EXIT_OK : TP_EXIT_FAILED;
	struct tp_err err;
	if (out && write_output(out, md.buf, md.len, &err) < 0)
		rc = cli_report(&err);
	sb_free(&md);
	return rc;
}

int cmd_perf(int argc, char **argv)
{
	static const struct option opts[] = {
		{"analysis", required_argument, NULL, 'a'}, {"run", required_argument, NULL, 'r'},
		{"out", required_argument, NULL, 'o'},      {"json", no_argument, NULL, 'j'},
		{"tui", no_argument, NULL, 't'},            {"kernel", required_argument, NULL, 'k'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *analysis = NULL, *run = NULL, *out = NULL, *kernel = NULL;
	bool json = false, tui = false;
	int c;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 'a':
			analysis = optarg;
			break;
		case 'r':
			run = optarg;
			break;
		case 'k':
			kernel = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		case 'j':
			json = true;
			break;
		case 't':
			tui = true;
			break;
		case 'h':
			fputs(perf_usage, stdout);
			return TP_EXIT_OK;
		default:
			return cli_bad_option("perf", argv, c);
		}
	}
	int npos = argc - optind;
	if (tui && (json || out))
		return cli_usage_error("perf", "--tui shows the table; --json and --out print or "
				       "write it (run them without --tui)");
	if (run && (npos || analysis))
		return cli_usage_error("perf", "--run RUN takes no log files and no --analysis");
	if (!run && npos < 2)
		return cli_usage_error("perf", "need a BASELINE and a CANDIDATE perf log");
	struct perf_table t;
	struct tp_err err;
	int rc;
	if (run) {
		/* RUN as every command takes it: a directory (any holding the
		 * reference layout, not only tileport's runs) or an op name */
		char *dir = NULL;
		if (path_is_dir(run)) {
			dir = xstrdup(run);
		} else {
			struct session *session;
			rc = cli_session(&session, &(struct session_opts){.read_only = true});
			if (rc)
				return rc;
			dir = session_run_dir(session, run);
			session_close(session);
		}
		rc = perf_compare_run(dir, &t, &err);
		free(dir);
	} else {
		char **base = xcalloc((size_t)npos, sizeof(char *));
		for (int i = 0; i < npos - 1; i++)
			base[i] = argv[optind + i];
		char *cand[] = {argv[argc - 1], NULL};
		rc = perf_compare(base, cand, analysis, &t, &err);
		free(base);
	}
	if (rc == 0 && kernel) {
		free(t.kernel);
		t.kernel = xstrdup(kernel);
	}
	if (rc < 0) {
		rc = cli_report(&err);
	} else if (tui) {
		rc = cli_bench_tui(&t);
	} else {
		rc = report(&t, out, json);
	}
	perf_table_free(&t);
	return rc;
}
