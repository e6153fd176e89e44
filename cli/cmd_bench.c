/* tileport bench: time two commands' GPU work under CUPTI in ABBA rounds. */
#include "cli/cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "engine/perf/bench.h"
#include "engine/perf/stats.h"
#include "engine/perf/trace.h"

static const char bench_usage[] =
	"usage: tileport bench --ref CMD --cand CMD [--rounds N] [--out DIR] [--json | --tui]\n"
	"                      [--ref-name NAME] [--cand-name NAME] [--inject LIB|none]\n"
	"                      [--seed N] [--resamples N] [--flush-bytes N] [--timeout SECONDS]\n"
	"       tileport bench --from DIR [--out DIR] [--json | --tui] [--seed N] ...\n"
	"\n"
	"Run the reference and the candidate command (/bin/sh -c) in ABBA rounds\n"
	"(ref, cand, cand, ref) under the CUPTI injection library, which records\n"
	"every kernel, copy and memset and the NVTX ranges. Each command marks a\n"
	"configuration with a range `tileport:<config>` around its timed repetitions,\n"
	"each repetition an L2 flush (a memset of 2x L2) and the operation\n"
	"(docs/perf.md; runners in samples/bench). Per config: the median device\n"
	"time per iteration, noise (IQR/median), samples and kernels per iteration;\n"
	"ratio = candidate / reference; the geomean and its bootstrap 95% CI.\n"
	"PASS when the CI's upper bound is <= 1.05 (strict); the point estimate's\n"
	"band (the reference rule) is printed beside it. Any C, Rust or Python\n"
	"program is timed the same way: the library measures the process.\n"
	"\n"
	"  --ref CMD, --cand CMD   the two commands\n"
	"  --rounds N              ABBA rounds (default 2: 4 processes a side)\n"
	"  --ref-name, --cand-name labels, the backend names in the perf logs\n"
	"                          (default ref, cand)\n"
	"  --out DIR               keep everything in DIR: traces, command output,\n"
	"                          bench.json, perf_NAME.txt for each side (the\n"
	"                          perf-log format tileport perf reads)\n"
	"  --from DIR              compute again from a DIR an earlier --out left\n"
	"  --inject LIB|none       the injection library (default: $TILEPORT_CUPTI_LIB,\n"
	"                          beside tileport, PREFIX/lib/tileport); none: the\n"
	"                          commands write their own trace to $TILEPORT_TRACE\n"
	"  --seed N, --resamples N the bootstrap's seed and size (20261129, 2000)\n"
	"  --flush-bytes N         memsets this large are flushes (default 64M; K/M/G)\n"
	"  --timeout SECONDS       per process (default 600; 0: none)\n"
	"  --json                  everything as JSON, raw samples included\n"
	"  --tui                   show the benchmark table view at the end\n"
	"\n"
	"exit: 0 PASS, 1 FAIL (or nothing paired), 2 bad usage or input, 3 could not\n"
	"measure (no library, a command failed or wrote no trace)\n";

static void progress(void *ud, const char *msg)
{
	(void)ud;
	fprintf(stderr, "tileport bench: %s\n", msg);
}

static int number(const char *opt, const char *s, unsigned long long max, unsigned long long *v)
{
	unsigned long long x;
	if (str_size(s, &x) < 0 || x > max)
		return cli_usage_error("bench", "%s: expected a number up to %llu, got '%s'", opt, max,
				       s);
	*v = x;
	return 0;
}

struct args {
	struct bench_opts o;
	const char *from, *out;
	bool json, tui;
	char *lib;
};

static int parse(int argc, char **argv, struct args *a)
{
	static const struct option opts[] = {
		{"ref", required_argument, NULL, 'R'},       {"cand", required_argument, NULL, 'C'},
		{"rounds", required_argument, NULL, 'n'},    {"out", required_argument, NULL, 'o'},
		{"from", required_argument, NULL, 'f'},      {"inject", required_argument, NULL, 'i'},
		{"ref-name", required_argument, NULL, 'A'},  {"cand-name", required_argument, NULL, 'B'},
		{"seed", required_argument, NULL, 's'},      {"resamples", required_argument, NULL, 'b'},
		{"flush-bytes", required_argument, NULL, 'F'}, {"timeout", required_argument, NULL, 'T'},
		{"json", no_argument, NULL, 'j'},            {"tui", no_argument, NULL, 't'},
		{"help", no_argument, NULL, 'h'},            {NULL, 0, NULL, 0},
	};
	a->o.rounds = 2;
	a->o.seed = STATS_BOOT_SEED;
	a->o.resamples = STATS_BOOT_RESAMPLES;
	a->o.flush_bytes = TRACE_FLUSH_BYTES;
	a->o.timeout_ms = 600 * 1000;
	const char *inject = NULL;
	unsigned long long v = 0;
	int c;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 'R':
			a->o.cmd[0] = optarg;
			break;
		case 'C':
			a->o.cmd[1] = optarg;
			break;
		case 'A':
			a->o.name[0] = optarg;
			break;
		case 'B':
			a->o.name[1] = optarg;
			break;
		case 'n':
			if (number("--rounds", optarg, 1000, &v))
				return 2;
			if (v < 1)
				return cli_usage_error("bench", "--rounds: at least 1");
			a->o.rounds = (int)v;
			break;
		case 's':
			if (number("--seed", optarg, UINT64_MAX, &v))
				return 2;
			a->o.seed = v;
			break;
		case 'b':
			if (number("--resamples", optarg, 1000000, &v))
				return 2;
			if (v < 100)
				return cli_usage_error("bench", "--resamples: at least 100");
			a->o.resamples = (int)v;
			break;
		case 'F':
			if (number("--flush-bytes", optarg, 1ull << 40, &v))
				return 2;
			if (v < 1)
				return cli_usage_error("bench", "--flush-bytes: at least 1");
			a->o.flush_bytes = v;
			break;
		case 'T':
			if (number("--timeout", optarg, 7 * 24 * 3600, &v))
				return 2;
			a->o.timeout_ms = (int64_t)v * 1000;
			break;
		case 'o':
			a->out = optarg;
			break;
		case 'f':
			a->from = optarg;
			break;
		case 'i':
			inject = optarg;
			break;
		case 'j':
			a->json = true;
			break;
		case 't':
			a->tui = true;
			break;
		case 'h':
			fputs(bench_usage, stdout);
			return -1;
		default:
			return cli_bad_option("bench", argv, c);
		}
	}
	if (optind < argc)
		return cli_usage_error("bench", "unexpected argument '%s'", argv[optind]);
	if (a->json && a->tui)
		return cli_usage_error("bench", "--json and --tui do not go together");
	if (a->from && (a->o.cmd[0] || a->o.cmd[1]))
		return cli_usage_error("bench", "--from DIR runs no commands: drop --ref and --cand");
	if (!a->from && (!a->o.cmd[0] || !a->o.cmd[1]))
		return cli_usage_error("bench", "need --ref CMD and --cand CMD (or --from DIR)");
	if (a->from || (inject && !strcmp(inject, "none")))
		return 0;
	a->lib = inject ? xstrdup(inject) : bench_find_library();
	if (!a->lib || !path_is_file(a->lib)) {
		fprintf(stderr, "tileport bench: %s%s\n", a->lib ? a->lib : "libtileport_cupti.so",
			a->lib ? ": no such file"
			       : " not found: it is built where the CUDA toolkit with CUPTI is "
				 "found (make; CUDA_TOOLKIT_PATH), or name it with --inject LIB or "
				 "$TILEPORT_CUPTI_LIB; --inject none runs commands that write their "
				 "own trace (docs/gpu.md)");
		return TP_EXIT_ENV;
	}
	a->o.inject = a->lib;
	return 0;
}

int cmd_bench(int argc, char **argv)
{
	struct args a;
	memset(&a, 0, sizeof(a));
	int rc = parse(argc, argv, &a);
	if (rc)
		return free(a.lib), rc < 0 ? TP_EXIT_OK : rc;
	char *tmp = NULL;
	if (!a.from && !a.out) {
		const char *td = getenv("TMPDIR");
		char *t = xasprintf("%s/tileport-bench-XXXXXX", td && *td ? td : "/tmp");
		tmp = mkdtemp(t) ? t : (free(t), NULL);
		if (!tmp) {
			fprintf(stderr, "tileport bench: cannot make a temporary directory: %s\n",
				strerror(errno));
			free(a.lib);
			return TP_EXIT_ENV;
		}
	}
	a.o.dir = a.out ? a.out : tmp;
	a.o.progress = progress;
	struct bench_result r;
	struct tp_err err;
	rc = a.from ? bench_load_dir(a.from, &a.o, &r, &err) : bench_run(&a.o, &r, &err);
	if (rc == 0 && a.out)
		rc = bench_write(&r, a.out, &err);
	if (rc < 0) {
		rc = cli_report(&err);
	} else if (a.tui) {
		rc = cli_bench_tui(&r.table);
	} else {
		if (a.json) {
			char *j = bench_json(&r);
			puts(j);
			free(j);
		} else {
			bench_print(&r, stdout);
		}
		rc = r.table.verdict == PERF_VERDICT_DONE ? TP_EXIT_OK : TP_EXIT_FAILED;
	}
	bench_result_free(&r);
	if (tmp && rc == TP_EXIT_ENV) {
		/* the failing command's output and the traces so far */
		fprintf(stderr, "tileport bench: kept %s\n", tmp);
	} else if (tmp) {
		remove_tree(tmp);
	}
	free(tmp);
	free(a.lib);
	return rc;
}
