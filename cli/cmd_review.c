/* tileport review [REV] / tileport log: a changeset read back for review
 * (the changeset view on a terminal, text or JSON otherwise), and the
 * changesets on the tileport/ branches. */
#include <cJSON.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "engine/git/changeset.h"
#include "tui/tui.h"

static const char review_usage[] =
	"usage: tileport review [REV] [--plain | --json] [--theme NAME]\n"
	"\n"
	"Read a changeset commit: its files with their roles, the shape checks (exactly\n"
	"six paths, names consistent with the op, one mod block in lib.rs, one import in\n"
	"__init__.py, only cutile-rs lines added to the test file, a #[cutile::module]\n"
	"with an entry in kernel.rs), the per-file diff, and from the note under\n"
	"refs/notes/tileport the verdict trail, the bench table and the IR findings.\n"
	"REV is any commit (an op name finds tileport/OP); without it, the newest\n"
	"changeset on a tileport/ branch. On a terminal it opens the changeset view;\n"
	"--plain prints text, --json the same as JSON.\n"
	"\n"
	"  --workspace DIR   the repository (default: the workspace, else the current\n"
	"                    directory)\n"
	"\n"
	"exit: 0 every shape check passes, 1 one fails, 2 bad usage or no such commit,\n"
	"      3 environment; on the screen 0 quit, 2 bad usage, 3 no terminal\n";

static const char log_usage[] =
	"usage: tileport log [--json]\n"
	"\n"
	"The changesets on the tileport/ branches, newest first, one line each: commit,\n"
	"branch, subject, the Geomean-Ratio and Verdicts trailers, and whether the run\n"
	"was accepted by hand.\n"
	"\n"
	"exit: 0 listed, 2 not a repository, 3 environment\n";

/* The repository to read: --workspace, else the session's workspace, else
 * the current directory. */
static char *repo_dir(const struct session *s)
{
	const char *ws = session_workspace(s);
	return xstrdup(ws ? ws : ".");
}

static void print_json(cJSON *o)
{
	char *s = cJSON_Print(o);
	puts(s);
	cJSON_free(s);
	cJSON_Delete(o);
}

int cmd_review(int argc, char **argv)
{
	static const struct option opts[] = {
		{"plain", no_argument, NULL, 'p'},
		{"json", no_argument, NULL, 'j'},
		{"theme", required_argument, NULL, 't'},
		{"workspace", required_argument, NULL, 'w'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	bool plain = false, json = false;
	const char *theme = NULL, *wopt = NULL;
	int c;
	while ((c = getopt_long(argc, argv, ":pjt:w:h", opts, NULL)) != -1) {
		if (c == 'p')
			plain = true;
		else if (c == 'j')
			json = true;
		else if (c == 't')
			theme = optarg;
		else if (c == 'w')
			wopt = optarg;
		else if (c == 'h')
			return fputs(review_usage, stdout), 0;
		else
			return cli_bad_option("review", argv, c);
	}
	if (plain && json)
		return cli_usage_error("review", "--plain and --json exclude each other");
	if (argc - optind > 1)
		return cli_usage_error("review", "expected at most one revision");
	const char *rev = optind < argc ? argv[optind] : NULL;
	struct session *s;
	int rc = cli_session(&s, &(struct session_opts){.workspace = wopt, .read_only = true});
	if (rc)
		return rc;
	char *dir = repo_dir(s);
	if (!plain && !json && cli_want_screen(false)) {
		struct tui_start ts = {.kind = TUI_START_CHANGESET, .session = s, .path = dir, .rev = rev,
				       .theme = theme};
		rc = tui_main(&ts);
		free(dir);
		session_close(s);
		return rc;
	}
	struct changeset cs;
	struct tp_err err;
	if (cs_review(dir, rev, &cs, &err) < 0) {
		rc = cli_report(&err);
	} else {
		if (json) {
			print_json(cs_to_json(&cs));
		} else {
			struct sbuf sb = SBUF_INIT;
			cs_format_text(&cs, &sb);
			fputs(sb_str(&sb), stdout);
			sb_free(&sb);
		}
		rc = cs.nfailed ? TP_EXIT_FAILED : TP_EXIT_OK;
		cs_free(&cs);
	}
	free(dir);
	session_close(s);
	return rc;
}

int cmd_log(int argc, char **argv)
{
	static const struct option opts[] = {
		{"json", no_argument, NULL, 'j'},
		{"workspace", required_argument, NULL, 'w'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	bool json = false;
	const char *wopt = NULL;
	int c;
	while ((c = getopt_long(argc, argv, ":jw:h", opts, NULL)) != -1) {
		if (c == 'j')
			json = true;
		else if (c == 'w')
			wopt = optarg;
		else if (c == 'h')
			return fputs(log_usage, stdout), 0;
		else
			return cli_bad_option("log", argv, c);
	}
	if (optind != argc)
		return cli_usage_error("log", "unexpected argument '%s'", argv[optind]);
	struct session *s;
	int rc = cli_session(&s, &(struct session_opts){.workspace = wopt, .read_only = true});
	if (rc)
		return rc;
	char *dir = repo_dir(s);
	struct cs_log_entry *v;
	size_t n;
	struct tp_err err;
	if (cs_log(dir, &v, &n, &err) < 0) {
		rc = cli_report(&err);
	} else {
		if (json) {
			print_json(cs_log_json(v, n));
		} else if (!n) {
			printf("no changesets: no tileport/ branch in the repository of %s; 'tileport package "
			       "RUN' makes one from a finished run\n", dir);
		} else {
			struct sbuf sb = SBUF_INIT;
			cs_log_format_text(v, n, &sb);
			fputs(sb_str(&sb), stdout);
			sb_free(&sb);
		}
		cs_log_free(v, n);
	}
	free(dir);
	session_close(s);
	return rc;
}
