/* tileport package RUN: the accepted run as the six-file commit on a
 * tileport/ branch, with the run evidence as a note (engine/git). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "engine/git/changeset.h"

static const char package_usage[] =
	"usage: tileport package RUN [--branch NAME] [--dry-run] [--accept \"reason\"] [--out DIR]\n"
	"\n"
	"Package a finished run as the six-file changeset: one commit on a new branch\n"
	"(tileport/OP by default) from HEAD, holding exactly the op's kernel.rs, ffi.rs,\n"
	"wrapper, lib.rs mod block, __init__.py import and test parametrisation, with the\n"
	"verdict trail, geomean and trailers in its message and the run summary as a note\n"
	"under refs/notes/tileport. The commit is built from those six paths alone: your\n"
	"other staged and unstaged work is neither committed nor touched, and HEAD, the\n"
	"index and the work tree stay as they are.\n"
	"\n"
	"The run's outcome must be accepted (E DONE and the output contract passed); a\n"
	"run that ended another way (not accepted, OFFLINE_COMPLETE's pending, STOP,\n"
	"aborted) is packaged only with --accept and a reason, which\n"
	"goes into the commit and the run's events.jsonl. The workspace's changes for the\n"
	"op must be exactly the six files, their shape must pass the checks of\n"
	"'tileport review', and the in-tree kernel.rs and ffi.rs must equal the run's.\n"
	"Every reason to refuse is listed; a refusal writes nothing.\n"
	"\n"
	"  --branch NAME     the branch to create (default tileport/OP); it must not exist\n"
	"  --dry-run         check everything and show the commit; write nothing\n"
	"  --accept REASON   package a run whose outcome is not accepted\n"
	"  --workspace DIR   the TileGym checkout (default: the run's workspace)\n"
	"  --out DIR         the output root, for RUN given as an op name\n"
	"\n"
	"exit: 0 packaged (or would be), 1 the run or the workspace fails a check,\n"
	"      2 bad usage or input (no such run, branch exists, HEAD detached or unborn),\n"
	"      3 environment (no git identity, not writable)\n";

static void print_plan(const struct cs_package_result *r, bool dry)
{
	const struct changeset *cs = &r->cs;
	if (!cs->subject)
		return;
	printf("%s %s on %s%s\n", r->committed ? "packaged" : dry ? "would package" : "planned",
	       cs->op ? cs->op : "?", cs->branch ? cs->branch : "?",
	       dry ? " (dry run: nothing written)" : "");
	printf("  commit  %.*s %s%s\n", r->committed ? 12 : 7, cs->commit, cs->subject,
	       r->committed ? "" : " (its id once written)");
	printf("  parent  %s\n", *cs->parent ? cs->parent : "(none)");
	for (size_t i = 0; i < cs->nfiles; i++)
		printf("  %-8s %c %s  +%zu -%zu\n", cs_role_name(cs->files[i].role), cs->files[i].status,
		       cs->files[i].path, cs->files[i].added, cs->files[i].deleted);
	if (cs->nfailed)
		printf("  shape   %d of %d checks fail (tileport review shows them)\n", cs->nfailed,
		       CS_SHAPE__COUNT);
	else
		printf("  shape   all %d checks pass\n", CS_SHAPE__COUNT);
	printf("  note    " CS_NOTES_REF "%s\n", r->committed ? "" : " (written with the commit)");
	if (dry) {
		printf("\n");
		const char *m = cs->message ? cs->message : "";
		for (const char *l = m; *l;) {
			const char *nl = strchr(l, '\n');
			int n = nl ? (int)(nl - l) : (int)strlen(l);
			printf("    %.*s\n", n, l);
			l += n + (nl ? 1 : 0);
		}
	}
}

int cmd_package(int argc, char **argv)
{
	static const struct option opts[] = {
		{"branch", required_argument, NULL, 'b'},
		{"dry-run", no_argument, NULL, 'n'},
		{"accept", required_argument, NULL, 'a'},
		{"workspace", required_argument, NULL, 'w'},
		{"out", required_argument, NULL, 'o'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct cs_package_opts o = {0};
	const char *oopt = NULL, *wopt = NULL;
	int c;
	while ((c = getopt_long(argc, argv, ":b:na:w:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'b':
			o.branch = optarg;
			break;
		case 'n':
			o.dry_run = true;
			break;
		case 'a':
			o.accept = optarg;
			break;
		case 'w':
			wopt = optarg;
			break;
		case 'o':
			oopt = optarg;
			break;
		case 'h':
			return fputs(package_usage, stdout), 0;
		default:
			return cli_bad_option("package", argv, c);
		}
	}
	if (argc - optind != 1)
		return cli_usage_error("package", "expected one run (a directory or an op name)");
	if (o.accept && strspn(o.accept, " \t\r\n") == strlen(o.accept))
		return cli_usage_error("package", "--accept needs a reason");
	struct session *s;
	int rc = cli_session(&s, &(struct session_opts){.workspace = wopt, .out_root = oopt, .read_only = true});
	if (rc)
		return rc;
	struct tp_err err;
	tp_err_clear(&err);
	o.run = session_run(s, argv[optind], &err);
	if (!o.run) {
		rc = cli_report(&err);
		session_close(s);
		return rc;
	}
	/* The run's own workspace, unless one is named on the command line. */
	o.workspace = wopt ? wopt : cli_globals.workspace;
	struct cs_package_result r;
	rc = cs_package(&o, &r, &err);
	print_plan(&r, o.dry_run);
	if (rc < 0) {
		if (r.problems) {
			fprintf(stderr, "tileport package: refused, nothing written:\n");
			for (size_t i = 0; r.problems[i]; i++)
				fprintf(stderr, "  - %s\n", r.problems[i]);
			rc = r.code;
		} else {
			rc = cli_report(&err);
		}
	} else if (r.warning) {
		fprintf(stderr, "tileport package: warning: %s\n", r.warning);
	}
	cs_package_result_free(&r);
	run_model_free(o.run);
	session_close(s);
	return rc;
}
