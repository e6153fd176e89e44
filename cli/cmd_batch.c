/* tileport batch start|resume|cancel (and the dispatch to status and
 * report, cmd_batch_show.c): many runs at once, as child processes of this
 * tileport or as a Slurm job array. docs/batch.md. */
#include "cli/cli.h"

#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/batch/batch.h"
#include "engine/base/operator.h"
#include "tui/tui.h"

static const char batch_usage[] =
	"usage: tileport batch start OPS...|--all [options]\n"
	"       tileport batch status [NAME] [--json]\n"
	"       tileport batch resume NAME [--rerun OP]... [--wait]\n"
	"       tileport batch cancel NAME [OP...]\n"
	"       tileport batch report NAME [--json|--markdown]\n"
	"\n"
	"Run many operators' conversions at once: on this machine (--executor local,\n"
	"N runs at a time as children of one tileport) or on a Slurm cluster (one\n"
	"job array). The batch record is OUT/.tileport-batch/NAME/batch.json.\n"
	"'tileport batch COMMAND --help' shows a command's options; docs/batch.md\n"
	"has the details.\n";

static const char start_usage[] =
	"usage: tileport batch start OPS...|--all [--name NAME] [--workspace DIR] [--out DIR]\n"
	"                            [--executor local|slurm] [--jobs N] [--driver X=SPEC]...\n"
	"                            [--validator X=CMD]... [--table FILE] [--headless] [--wait]\n"
	"                            [--fresh] [--again]\n"
	"                            [--partition P] [--account A] [--qos Q] [--time T]\n"
	"                            [--gres G] [--sbatch-arg ARG]...\n"
	"\n"
	"Start one run per operator under a new batch. An operator is named as for\n"
	"'tileport run': by name, or by its path under src/tilegym/ops/{cutile,triton}/\n"
	"(activation/gelu). --all takes every operator of the workspace with a cuTile\n"
	"Python or Triton kernel (subfolders included; helper modules without a kernel\n"
	"are none) and no cutile-rs port, and says which it left out and why.\n"
	"\n"
	"  --name NAME       the batch's name (default: the start time, YYYYmmdd-HHMMSS)\n"
	"  --fresh           an operator's existing run is moved aside (OUT/OP.1, ...) first\n"
	"  --again           take operators that already have a cuTile Rust port too\n"
	"  --executor E      local (the default when no Slurm is configured) or slurm\n"
	"                    (config: batch.executor; a [slurm] section makes it the default)\n"
	"  --jobs N          runs at once (config: batch.jobs; default 2 locally, all on Slurm)\n"
	"  --driver, --validator, --table   given to every run, as for 'tileport run'\n"
	"  --headless        no screen: one line per change (the default without a terminal)\n"
	"  --wait            slurm: follow the jobs until every run has ended\n"
	"  --partition, --account, --qos, --time, --gres, --sbatch-arg\n"
	"                    sbatch options (config: slurm.partition, ..., slurm.sbatch_args)\n"
	"\n"
	"Slurm: a probe job first checks that the compute nodes see the output root.\n"
	"exit: 0 every run converted (accepted) or ended OFFLINE_COMPLETE (slurm without\n"
	"--wait: submitted), 1 some did not, 2 bad input or a submission Slurm refused,\n"
	"3 environment (no sbatch, controller unreachable, output root not shared)\n";

static const char resume_usage[] =
	"usage: tileport batch resume NAME [--rerun OP]... [--jobs N] [--headless] [--wait]\n"
	"                             [--out DIR]\n"
	"\n"
	"Start again every run of the batch that ended without a verdict of its own\n"
	"(its job was killed, preempted, timed out or lost with its node; cancelled;\n"
	"never started). A run that was mid-stage continues from its own state; a run\n"
	"that ended on a verdict is not run again, except a STOPped one named with\n"
	"--rerun OP, which starts afresh (the stopped run is kept in the batch folder).\n"
	"\n"
	"exit: as 'tileport batch start'\n";

static const char cancel_usage[] =
	"usage: tileport batch cancel NAME [OP...] [--out DIR]\n"
	"\n"
	"Cancel the batch's queued and running runs (or only the named ones): scancel\n"
	"on Slurm, a stop of the local run otherwise. Each run saves its state, so\n"
	"'tileport batch resume NAME' continues them.\n"
	"\n"
	"exit: 0 cancelled, 2 no such batch or operator, 3 scancel failed\n";

static volatile sig_atomic_t interrupted;

static int parse_jobs(const char *text, int *jobs)
{
	char *end;
	long n = strtol(text, &end, 10);
	if (end == text || *end || n < 1 || n > 100000)
		return -1;
	*jobs = (int)n;
	return 0;
}

struct start_args {
	const char *name, *workspace, *out, *executor;
	const char *partition, *account, *qos, *time, *gres;
	char **sbatch_args, **run_args;
	int jobs;
	bool all, headless, wait, fresh, again;
};

static void add_arg(char ***v, const char *a, const char *b)
{
	size_t n = strv_len(*v);
	*v = xrealloc(*v, (n + 3) * sizeof(**v));
	(*v)[n++] = xstrdup(a);
	if (b)
		(*v)[n++] = xstrdup(b);
	(*v)[n] = NULL;
}

/* The command line's Slurm options over the config's. */
static void slurm_options(const struct start_args *a, struct batch_slurm *s)
{
	const char *const *given[] = {&a->partition, &a->account, &a->qos, &a->time, &a->gres};
	char **slot[] = {&s->partition, &s->account, &s->qos, &s->time, &s->gres};
	for (size_t i = 0; i < TP_ARRAY_LEN(slot); i++)
		if (*given[i])
			*slot[i] = (char *)*given[i];
	for (size_t i = 0; a->sbatch_args && a->sbatch_args[i]; i++)
		add_arg(&s->sbatch_args, a->sbatch_args[i], NULL);
}

static void print_change(struct batch *b, size_t op, const char *msg, void *ud)
{
	(void)b, (void)op, (void)ud;
	if (!msg)
		return;
	time_t t = time(NULL);
	struct tm tm;
	localtime_r(&t, &tm);
	char ts[16];
	strftime(ts, sizeof(ts), "%H:%M:%S", &tm);
	printf("%s %s\n", ts, msg);
	fflush(stdout);
}

static void on_signal(struct loop *l, int signo, void *ud)
{
	(void)l;
	interrupted = signo;
	batch_stop(ud);
}

/* Serve the loop until nothing is queued, running, starting or stopping. */
static int follow(struct batch *b, struct loop *l)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	for (size_t i = 0; i < TP_ARRAY_LEN(sigs); i++)
		loop_on_signal(l, sigs[i], on_signal, b);
	batch_follow(b, true);
	while ((!interrupted && batch_going(b)) || batch_settling(b))
		if (loop_run_once(l, -1) < 0)
			break;
	batch_follow(b, false);
	for (size_t i = 0; i < TP_ARRAY_LEN(sigs); i++)
		loop_off_signal(l, sigs[i]);
	return interrupted ? TP_EXIT_FAILED : batch_exit_code(b);
}

/* Advice only where it changes something: resume when a run would start
 * again, else where the reasons are. */
static void unfinished_hint(const struct batch *b)
{
	if (batch_going(b) && batch_record(b)->executor == BATCH_SLURM)
		return;
	const char *name = batch_record(b)->name;
	if (batch_exit_code(b) == TP_EXIT_OK)
		return;
	if (batch_resumable(b, false))
		fprintf(stderr, "tileport: batch %s: not every run ended complete; see 'tileport batch "
				"status %s', continue with 'tileport batch resume %s'\n", name, name, name);
	else
		fprintf(stderr, "tileport: batch %s: not every run ended complete, and each ended on a "
				"verdict of its own: 'tileport batch status %s' says why, run by run%s%s%s\n", name,
			name, batch_resumable(b, true) ? "; 'tileport batch resume " : "",
			batch_resumable(b, true) ? name : "", batch_resumable(b, true) ? " --rerun OP' starts a "
											 "stopped one afresh" : "");
}

/* The batch screen, or one line per change; for Slurm without --wait, a
 * line saying what was submitted. */
static int drive(struct batch *b, struct session *session, bool headless, bool wait)
{
	const struct batch_record *r = batch_record(b);
	int rc;
	if (cli_want_screen(headless)) {
		batch_follow(b, true);
		struct tui_start s = {.kind = TUI_START_BATCH, .session = session, .model = b};
		rc = tui_main(&s);
		batch_stop_wait(b); /* quitting stops what this process runs (it asked) */
		if (rc == TP_EXIT_OK)
			rc = batch_going(b) ? TP_EXIT_OK : batch_exit_code(b);
	} else if (r->executor == BATCH_SLURM && !wait) {
		printf("batch %s: job array %s is in the queue; follow it with 'tileport batch status "
		       "%s'\n", r->name, r->nsubs ? r->subs[r->nsubs - 1].job : "?", r->name);
		return TP_EXIT_OK;
	} else {
		batch_listen(b, print_change, NULL);
		rc = follow(b, session_loop(session));
	}
	unfinished_hint(b);
	return rc;
}

static int parse_start(int argc, char **argv, struct start_args *a)
{
	static const struct option opts[] = {
		{"name", required_argument, NULL, 'n'},     {"workspace", required_argument, NULL, 'w'},
		{"out", required_argument, NULL, 'o'},      {"executor", required_argument, NULL, 'e'},
		{"jobs", required_argument, NULL, 'j'},     {"driver", required_argument, NULL, 'd'},
		{"validator", required_argument, NULL, 'v'}, {"table", required_argument, NULL, 't'},
		{"all", no_argument, NULL, 'a'},            {"headless", no_argument, NULL, 'H'},
		{"wait", no_argument, NULL, 'W'},           {"partition", required_argument, NULL, 'p'},
		{"account", required_argument, NULL, 'A'},  {"qos", required_argument, NULL, 'q'},
		{"time", required_argument, NULL, 'T'},     {"gres", required_argument, NULL, 'g'},
		{"sbatch-arg", required_argument, NULL, 's'}, {"help", no_argument, NULL, 'h'},
		{"fresh", no_argument, NULL, 'F'},          {"again", no_argument, NULL, 'G'},
		{NULL, 0, NULL, 0},
	};
	const char *slots[STAGE_LETTERS];
	int c;
	while ((c = getopt_long(argc, argv, ":n:w:o:e:j:d:v:t:aHWFGp:A:q:T:g:s:h", opts, NULL)) != -1) {
		switch (c) {
		case 'n': a->name = optarg; break;
		case 'w': a->workspace = optarg; break;
		case 'o': a->out = optarg; break;
		case 'e': a->executor = optarg; break;
		case 'a': a->all = true; break;
		case 'H': a->headless = true; break;
		case 'W': a->wait = true; break;
		case 'F': a->fresh = true; break;
		case 'G':
			a->again = true;
			add_arg(&a->run_args, "--again", NULL);
			break;
		case 'p': a->partition = optarg; break;
		case 'A': a->account = optarg; break;
		case 'q': a->qos = optarg; break;
		case 'T': a->time = optarg; break;
		case 'g': a->gres = optarg; break;
		case 's': add_arg(&a->sbatch_args, optarg, NULL); break;
		case 'j':
			if (parse_jobs(optarg, &a->jobs) < 0)
				return cli_usage_error("batch start", "--jobs expects a number >= 1, got '%s'",
						       optarg);
			break;
		case 'd':
		case 'v':
			/* checked as 'tileport run' checks it, then given on verbatim */
			if (cli_stage_assign("batch start", c == 'd' ? "--driver" : "--validator", optarg, slots))
				return TP_EXIT_USAGE;
			add_arg(&a->run_args, c == 'd' ? "--driver" : "--validator", optarg);
			break;
		case 't': {
			char buf[PATH_MAX];
			if (!realpath(optarg, buf))
				return cli_usage_error("batch start", "--table %s: no such file", optarg);
			add_arg(&a->run_args, "--table", buf);
			break;
		}
		case 'h':
			fputs(start_usage, stdout);
			return -1;
		default:
			return cli_bad_option("batch start", argv, c);
		}
	}
	if (a->executor && strcmp(a->executor, "local") && strcmp(a->executor, "slurm"))
		return cli_usage_error("batch start", "--executor expects local or slurm, got '%s'",
				       a->executor);
	if (a->all && optind < argc)
		return cli_usage_error("batch start", "give operators or --all, not both");
	if (!a->all && optind >= argc)
		return cli_usage_error("batch start", "expected operators (or --all)");
	return 0;
}

static int batch_start_main(int argc, char **argv)
{
	struct start_args a = {0};
	int rc = parse_start(argc, argv, &a);
	if (rc) {
		strv_free(a.run_args);
		strv_free(a.sbatch_args);
		return rc < 0 ? TP_EXIT_OK : rc;
	}
	struct session *session = NULL;
	struct batch_config bc = {0};
	struct tp_err err;
	char **ops = NULL;
	struct batch *b = NULL;
	if ((rc = cli_session(&session, &(struct session_opts){.workspace = a.workspace, .out_root = a.out})))
		goto done;
	const char *ws = session_workspace(session);
	if (!ws) {
		fprintf(stderr, "tileport: no workspace: use --workspace DIR or set TILEGYM_PATH\n");
		rc = TP_EXIT_USAGE;
		goto done;
	}
	batch_config_read(session_config(session), &bc);
	slurm_options(&a, &bc.slurm);
	bool is_slurm = a.executor ? !strcmp(a.executor, "slurm")
		      : bc.executor >= 0 ? bc.executor == BATCH_SLURM : bc.slurm_configured;
	if (a.all) {
		char **left_out = NULL;
		if (batch_discover(ws, &ops, a.again ? NULL : &left_out, &err) < 0) {
			rc = cli_report(&err);
			goto done;
		}
		if (a.again) { /* every operator, ported or not */
			strv_free(ops);
			struct ws_operator *all;
			size_t n;
			operator_list(ws, &all, &n, NULL, NULL);
			ops = xcalloc(n + 1, sizeof(*ops));
			for (size_t i = 0; i < n; i++)
				ops[i] = xstrdup(all[i].name);
			operators_free(all, n);
		}
		printf("--all: %zu operator%s", strv_len(ops), strv_len(ops) == 1 ? "" : "s");
		for (size_t i = 0; left_out && left_out[i]; i++)
			printf("%s%s", i ? "; " : "; left out: ", left_out[i]);
		printf("\n");
		fflush(stdout);
		strv_free(left_out);
	} else {
		ops = xcalloc((size_t)(argc - optind) + 1, sizeof(*ops));
		for (int i = optind; i < argc; i++)
			ops[i - optind] = xstrdup(argv[i]);
	}
	int jobs = a.jobs ? a.jobs : bc.jobs ? bc.jobs : is_slurm ? (int)strv_len(ops) : 2;
	struct batch_spec spec = {
		.name = a.name, .ops = ops, .executor = is_slurm ? BATCH_SLURM : BATCH_LOCAL,
		.jobs = jobs, .run_args = a.run_args, .slurm = &bc.slurm, .told = print_change,
		.fresh = a.fresh, .again = a.again,
	};
	if (batch_start(&b, session, &spec, &err) < 0) {
		rc = cli_report(&err);
		goto done;
	}
	cli_out_root_note(session);
	rc = drive(b, session, a.headless, a.wait);
done:
	batch_free(b);
	session_close(session);
	batch_config_free(&bc);
	strv_free(ops);
	strv_free(a.run_args);
	strv_free(a.sbatch_args);
	return rc;
}

int cli_batch_find(const char *cmd, const char *name, struct session *s, struct batch **b)
{
	const char *out = session_out_root(s);
	char *dir = name ? batch_resolve(name, out) : batch_latest(out);
	int rc = 0;
	struct tp_err err;
	if (!dir)
		rc = name ? cli_usage_error(cmd, "no batch '%s' in %s (looked for %s/%s/%s/batch.json)",
					    name, out, out, BATCH_FOLDER, name)
			  : cli_usage_error(cmd, "no batches in %s", out);
	else if (batch_open(b, s, dir, &err) < 0)
		rc = cli_report(&err);
	free(dir);
	return rc;
}

static int batch_resume_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"rerun", required_argument, NULL, 'r'}, {"jobs", required_argument, NULL, 'j'},
		{"headless", no_argument, NULL, 'H'},    {"wait", no_argument, NULL, 'W'},
		{"out", required_argument, NULL, 'o'},   {"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	char **rerun = NULL;
	const char *oopt = NULL;
	bool headless = false, wait = false;
	int jobs = 0, c, rc = 0;
	while ((c = getopt_long(argc, argv, ":r:j:HWo:h", opts, NULL)) != -1) {
		switch (c) {
		case 'r': add_arg(&rerun, optarg, NULL); break;
		case 'H': headless = true; break;
		case 'W': wait = true; break;
		case 'o': oopt = optarg; break;
		case 'j':
			if (parse_jobs(optarg, &jobs) < 0)
				rc = cli_usage_error("batch resume", "--jobs expects a number >= 1, got '%s'",
						     optarg);
			break;
		case 'h': fputs(resume_usage, stdout); strv_free(rerun); return 0;
		default: rc = cli_bad_option("batch resume", argv, c);
		}
	}
	if (!rc && argc - optind != 1)
		rc = cli_usage_error("batch resume", "expected one batch name");
	struct session *session = NULL;
	struct batch *b = NULL;
	if (!rc)
		rc = cli_session(&session, &(struct session_opts){.out_root = oopt});
	if (!rc)
		rc = cli_batch_find("batch resume", argv[optind], session, &b);
	if (!rc) {
		if (jobs)
			batch_set_jobs(b, jobs);
		struct tp_err err;
		size_t started;
		if (batch_resume(b, rerun, &started, &err) < 0) {
			rc = cli_report(&err);
		} else {
			const struct batch_record *r = batch_record(b);
			char *const *kept = batch_resume_kept(b);
			for (size_t i = 0; kept && kept[i]; i++)
				printf("batch %s: not started again: %s\n", r->name, kept[i]);
			if (!started)
				printf("batch %s: nothing to resume: every run ended on a verdict of its own "
				       "or is still going\n", r->name);
			else
				printf("batch %s: %zu run%s %s\n", r->name, started, started == 1 ? "" : "s",
				       r->executor == BATCH_SLURM ? "submitted again" : "resumed");
			rc = started || batch_going(b) ? drive(b, session, headless, wait)
						       : batch_exit_code(b);
		}
	}
	batch_free(b);
	session_close(session);
	strv_free(rerun);
	return rc;
}

static int batch_cancel_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"out", required_argument, NULL, 'o'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *oopt = NULL;
	int c;
	while ((c = getopt_long(argc, argv, ":o:h", opts, NULL)) != -1) {
		if (c == 'o')
			oopt = optarg;
		else if (c == 'h')
			return fputs(cancel_usage, stdout), 0;
		else
			return cli_bad_option("batch cancel", argv, c);
	}
	if (optind >= argc)
		return cli_usage_error("batch cancel", "expected a batch name");
	struct session *session;
	int rc = cli_session(&session, &(struct session_opts){.out_root = oopt});
	if (rc)
		return rc;
	struct batch *b = NULL;
	rc = cli_batch_find("batch cancel", argv[optind], session, &b);
	struct tp_err err;
	if (!rc && batch_refresh(b, &err) < 0)
		rc = cli_report(&err);
	if (!rc) {
		char **ops = argc - optind > 1 ? argv + optind + 1 : NULL;
		int n = batch_cancel(b, ops, &err);
		if (n < 0)
			rc = cli_report(&err);
		else if (n == 0)
			printf("batch %s: nothing is queued or running\n", batch_record(b)->name);
		else
			printf("batch %s: cancelled %d run%s; 'tileport batch resume %s' continues %s\n",
			       batch_record(b)->name, n, n == 1 ? "" : "s", batch_record(b)->name,
			       n == 1 ? "it" : "them");
	}
	batch_free(b);
	session_close(session);
	return rc;
}

int cmd_batch(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(int, char **);
	} subs[] = {
		{"start", batch_start_main},   {"status", cli_batch_status}, {"resume", batch_resume_main},
		{"cancel", batch_cancel_main}, {"report", cli_batch_report},
	};
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fputs(batch_usage, argc < 2 ? stderr : stdout);
		return argc < 2 ? TP_EXIT_USAGE : TP_EXIT_OK;
	}
	for (size_t i = 0; i < TP_ARRAY_LEN(subs); i++) {
		if (!strcmp(argv[1], subs[i].name)) {
			optind = 0;
			return subs[i].fn(argc - 1, argv + 1);
		}
	}
	return cli_usage_error("batch", "unknown command '%s' (expected start, status, resume, "
					"cancel or report)", argv[1]);
}
