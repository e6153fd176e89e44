/* tileport batch status / tileport batch report: a batch's runs as they
 * stand, and the summary table a team puts in its status update. */
#include "cli/cli.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/batch/batch.h"

static const char status_usage[] =
	"usage: tileport batch status [NAME] [--json] [--out DIR] [--workspace DIR]\n"
	"\n"
	"Show a batch (the newest in the output root without NAME): each operator's\n"
	"state, stage, attempts per stage, job, node, elapsed time, and the last\n"
	"event of its run or why it ended. The jobs are looked up (squeue,\n"
	"scontrol) and each run's own state read afresh.\n"
	"\n"
	"exit: 0 shown, 2 no such batch, 3 Slurm could not be asked\n";

static const char report_usage[] =
	"usage: tileport batch report [NAME] [--json|--markdown] [--out DIR] [--workspace DIR]\n"
	"\n"
	"A batch (the newest in the output root without NAME), one row per operator:\n"
	"end state, outcome, the stage it reached, attempts per stage, geomean ratio,\n"
	"tokens and cost, elapsed, node, and why it ended where it did; then the\n"
	"totals: operators converted (complete and accepted), the geomean over them,\n"
	"total tokens and cost.\n"
	"\n"
	"exit: 0 shown, 2 no such batch, 3 Slurm could not be asked\n";

static const char *or_dash(const char *s)
{
	return s && *s ? s : "-";
}

static void elapsed(const struct batch_progress *p, char *buf, size_t n)
{
	int64_t ms = batch_progress_elapsed(p, wall_ms());
	if (ms > 0)
		fmt_elapsed(ms, buf, n);
	else
		snprintf(buf, n, "-");
}

static void counts_line(const struct batch *b, struct sbuf *sb)
{
	const struct batch_record *r = batch_record(b);
	size_t per[BST__COUNT] = {0};
	for (size_t i = 0; i < r->nops; i++)
		per[r->ops[i].state]++;
	const char *sep = "";
	for (int s = 0; s < BST__COUNT; s++) {
		if (!per[s])
			continue;
		sb_printf(sb, "%s%zu %s", sep, per[s], batch_state_name((enum batch_state)s));
		sep = ", ";
	}
}

/* What to say about an op in one line: how it ended, why it waits, or
 * what its run did last. */
static const char *note(const struct batch_op *o, const struct batch_progress *p, char *buf,
			size_t n)
{
	if (batch_state_final(o->state) && batch_ended_text(o, p, buf, n))
		return buf;
	if (o->state == BST_RUNNING && p->last_event)
		return p->last_event;
	if (o->why)
		return o->why;
	return p->last_event ? p->last_event : "";
}

/* The OP column: as wide as the longest name (16 at least). */
static int op_width(const struct batch_record *r)
{
	int w = 16;
	for (size_t i = 0; i < r->nops; i++)
		if ((int)strlen(r->ops[i].op) > w)
			w = (int)strlen(r->ops[i].op);
	return w;
}

static void print_status(const struct batch *b)
{
	const struct batch_record *r = batch_record(b);
	int ow = op_width(r);
	struct sbuf sb = SBUF_INIT;
	counts_line(b, &sb);
	printf("batch %s: %s, %zu operator%s, %d at once; %s\n", r->name,
	       batch_executor_name(r->executor), r->nops, r->nops == 1 ? "" : "s", r->jobs, sb_str(&sb));
	sb_free(&sb);
	printf("record %s/batch.json\n", r->dir);
	if (r->nsubs)
		printf("jobs   %zu submission%s, the last job array %s\n", r->nsubs,
		       r->nsubs == 1 ? "" : "s", r->subs[r->nsubs - 1].job);
	if (batch_problem(b))
		printf("note   %s\n", batch_problem(b));
	printf("\n%-*s %-16s %-5s %-14s %-10s %-12s %7s  %s\n", ow, "OP", "STATE", "STAGE", "ATTEMPTS",
	       "JOB", "NODE", "ELAPSED", "NOTE");
	for (size_t i = 0; i < r->nops; i++) {
		const struct batch_op *o = &r->ops[i];
		const struct batch_progress *p = batch_progress(b, i);
		char stage[4] = "-", el[16], buf[600];
		if (p->stage)
			snprintf(stage, sizeof(stage), "%c", p->stage);
		elapsed(p, el, sizeof(el));
		printf("%-*s %-16s %-5s %-14s %-10s %-12s %7s  %s\n", ow, o->op, batch_state_name(o->state),
		       stage, or_dash(p->attempts), or_dash(o->job), or_dash(o->node), el,
		       note(o, p, buf, sizeof(buf)));
	}
}

static void print_json(const struct batch *b)
{
	cJSON *o = batch_to_json(b);
	char *s = cJSON_Print(o);
	puts(s);
	cJSON_free(s);
	cJSON_Delete(o);
}

static int open_refreshed(const char *cmd, const char *name, struct session *s, struct batch **b)
{
	int rc = cli_batch_find(cmd, name, s, b);
	struct tp_err err;
	if (!rc && batch_refresh(*b, &err) < 0)
		rc = cli_report(&err);
	return rc;
}

int cli_batch_status(int argc, char **argv)
{
	bool json = false;
	const char *oopt = NULL;
	const char *wopt = NULL;
	int opt = cli_show_options(argc, argv, "batch status", status_usage, &json, NULL, &oopt, &wopt);
	if (opt)
		return opt < 0 ? TP_EXIT_OK : opt;
	if (argc - optind > 1)
		return cli_usage_error("batch status", "expected at most one batch name");
	struct session *session;
	int rc = cli_session(&session, &(struct session_opts){.out_root = oopt, .workspace = wopt});
	if (rc)
		return rc;
	struct batch *b = NULL;
	rc = open_refreshed("batch status", optind < argc ? argv[optind] : NULL, session, &b);
	if (!rc) {
		if (json)
			print_json(b);
		else
			print_status(b);
	}
	batch_free(b);
	session_close(session);
	return rc;
}

/* ---- report ---- */

struct row {
	char end[32], stage[4], geomean[16], tokens[24], cost[16], el[16], why[600];
	const char *op, *outcome, *attempts, *node;
};

static void fill_row(const struct batch *b, size_t i, struct row *w)
{
	const struct batch_op *o = &batch_record(b)->ops[i];
	const struct batch_progress *p = batch_progress(b, i);
	w->op = o->op;
	snprintf(w->end, sizeof(w->end), "%s", p->final ? p->final : batch_state_name(o->state));
	w->outcome = p->final ? run_outcome_words(p->outcome) : "-";
	snprintf(w->stage, sizeof(w->stage), "%c", p->stage ? p->stage : '-');
	w->attempts = or_dash(p->attempts);
	if (isnan(p->geomean))
		snprintf(w->geomean, sizeof(w->geomean), "-");
	else
		snprintf(w->geomean, sizeof(w->geomean), "%.4f", p->geomean);
	snprintf(w->tokens, sizeof(w->tokens), "%lld", p->tokens_in + p->tokens_out);
	snprintf(w->cost, sizeof(w->cost), "$%.2f", p->cost);
	elapsed(p, w->el, sizeof(w->el));
	w->node = or_dash(o->node);
	/* why it ended where it did: the outcome's reason, else the run's end
	 * or the job's */
	const char *why = p->final && p->outcome_reason ? p->outcome_reason : p->reason ? p->reason : o->why;
	snprintf(w->why, sizeof(w->why), "%s", or_dash(why));
}

static void totals_line(const struct batch *b, struct sbuf *sb)
{
	struct batch_totals t;
	batch_totals(b, &t);
	sb_printf(sb, "%zu of %zu operator%s converted", t.converted, t.ops, t.ops == 1 ? "" : "s");
	if (t.not_accepted || t.offline || t.stopped || t.failed || t.unfinished) {
		sb_adds(sb, " (");
		const char *sep = "";
		if (t.not_accepted)
			sb_printf(sb, "%s%zu complete but not accepted", sep, t.not_accepted), sep = ", ";
		if (t.offline)
			sb_printf(sb, "%s%zu offline complete", sep, t.offline), sep = ", ";
		if (t.stopped)
			sb_printf(sb, "%s%zu stopped", sep, t.stopped), sep = ", ";
		if (t.failed)
			sb_printf(sb, "%s%zu failed before their run began", sep, t.failed), sep = ", ";
		if (t.unfinished)
			sb_printf(sb, "%s%zu unfinished", sep, t.unfinished);
		sb_adds(sb, ")");
	}
	if (t.with_geomean)
		sb_printf(sb, "; geomean %.4f over %zu", t.geomean, t.with_geomean);
	else
		sb_adds(sb, "; no geomean");
	sb_printf(sb, "; %lld tokens (%lld in, %lld out); cost $%.2f", t.tokens_in + t.tokens_out,
		  t.tokens_in, t.tokens_out, t.cost);
}

static void print_report(const struct batch *b, bool markdown)
{
	const struct batch_record *r = batch_record(b);
	int ow = op_width(r);
	struct sbuf tot = SBUF_INIT;
	totals_line(b, &tot);
	if (markdown) {
		printf("## Batch %s\n\n", r->name);
		printf("| Operator | End state | Outcome | Stage | Attempts | Geomean | Tokens | Cost | "
		       "Elapsed | Node | Reason |\n"
		       "|---|---|---|---|---|---:|---:|---:|---:|---|---|\n");
	} else {
		printf("batch %s (%s)\n\n", r->name, batch_executor_name(r->executor));
		printf("%-*s %-18s %-13s %-5s %-14s %8s %10s %8s %8s  %-12s %s\n", ow, "OP", "END STATE",
		       "OUTCOME", "STAGE", "ATTEMPTS", "GEOMEAN", "TOKENS", "COST", "ELAPSED", "NODE", "REASON");
	}
	for (size_t i = 0; i < r->nops; i++) {
		struct row w;
		fill_row(b, i, &w);
		if (markdown) {
			for (char *c = w.why; *c; c++)
				*c = *c == '|' ? '/' : *c; /* a table cell */
			printf("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", w.op, w.end,
			       w.outcome, w.stage, w.attempts, w.geomean, w.tokens, w.cost, w.el, w.node, w.why);
		} else {
			printf("%-*s %-18s %-13s %-5s %-14s %8s %10s %8s %8s  %-12s %s\n", ow, w.op, w.end,
			       w.outcome, w.stage, w.attempts, w.geomean, w.tokens, w.cost, w.el, w.node, w.why);
		}
	}
	if (markdown)
		printf("\n**Totals:** %s.\n", sb_str(&tot));
	else
		printf("\n%s\n", sb_str(&tot));
	sb_free(&tot);
}

int cli_batch_report(int argc, char **argv)
{
	bool json = false, md = false;
	const char *oopt = NULL;
	const char *wopt = NULL;
	int opt = cli_show_options(argc, argv, "batch report", report_usage, &json, &md, &oopt, &wopt);
	if (opt)
		return opt < 0 ? TP_EXIT_OK : opt;
	if (json && md)
		return cli_usage_error("batch report", "--json or --markdown, not both");
	if (argc - optind > 1)
		return cli_usage_error("batch report", "expected at most one batch name");
	struct session *session;
	int rc = cli_session(&session, &(struct session_opts){.out_root = oopt, .workspace = wopt});
	if (rc)
		return rc;
	struct batch *b = NULL;
	rc = open_refreshed("batch report", optind < argc ? argv[optind] : NULL, session, &b);
	if (!rc) {
		if (json)
			print_json(b);
		else
			print_report(b, md);
	}
	batch_free(b);
	session_close(session);
	return rc;
}
