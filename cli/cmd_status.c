/* tileport status RUN / tileport runs: read the run store, change nothing. */
#include "cli/cli.h"

#include <cJSON.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "engine/core/run.h"
#include "engine/core/table.h"

static const char status_usage[] =
	"usage: tileport status RUN [--json] [--out DIR] [--workspace DIR]\n"
	"\n"
	"Show a run: its state, attempts per stage against the caps, the path of\n"
	"stages taken, verdicts, gate and validator results, soft markers, deferred\n"
	"items and the final output contract. RUN is a run directory or an op name in\n"
	"the output root (--out, $CUTILE_KERNEL_OUT_ROOT, ...).\n"
	"\n"
	"exit: 0 shown, 2 no such run\n";

static const char runs_usage[] =
	"usage: tileport runs [--out DIR] [--workspace DIR] [--json]\n"
	"\n"
	"List the runs in the output root, newest first: op, state, outcome (accepted,\n"
	"not accepted with the reason below it, pending offline), current stage, age.\n"
	"A run whose state cannot be read is listed as unreadable, with the reason.\n"
	"\n"
	"exit: 0 listed, 2 the output root cannot be read\n";

static void print_status(const struct run_model *m)
{
	const struct run_state *st = run_model_state(m);
	const struct table *t = run_model_table(m);
	const char *state = run_model_state_name(m);
	char *path = run_model_path(m);
	printf("run        %s (%s)\n", st->op, st->run_dir);
	printf("workspace  %s\n", st->workspace ? st->workspace : "-");
	printf("state      %s%s%s%s%s\n", state, st->final ? " " : "", st->final ? st->final : "",
	       st->reason ? ": " : "", st->reason ? st->reason : "");
	if (st->outcome != OUTCOME_NONE)
		printf("outcome    %s%s%s\n", run_outcome_words(st->outcome), st->outcome_reason ? ": " : "",
		       st->outcome_reason ? st->outcome_reason : "");
	if (strcmp(state, "interrupted") == 0)
		printf("           no orchestrator is running; continue with 'tileport resume %s'\n",
		       st->run_dir);
	printf("mode       %s", st->offline ? "offline" : "online");
	for (size_t i = 0; st->missing && st->missing[i]; i++)
		printf("%s%s", i ? ", " : " (missing: ", st->missing[i]);
	printf("%s\n", st->missing && st->missing[0] ? ")" : "");
	printf("path       %s\n", *path ? path : "(nothing ran yet)");
	free(path);
	printf("stages    ");
	for (size_t i = 0; t && i < t->nstages; i++)
		printf(" %c %d/%d", t->stages[i].letter, run_count(st, t->stages[i].letter), t->stages[i].cap);
	printf("\n");
	if (st->natt) {
		printf("\n%-3s %-8s %-17s %-12s %-10s %-8s %-18s %s\n", "#", "attempt", "verdict", "gate",
		       "validator", "class", "action", "exit");
		for (size_t i = 0; i < st->natt; i++) {
			const struct attempt *a = &st->att[i];
			char id[16], cls[16];
			snprintf(id, sizeof(id), "%c%d%s", a->stage, a->n, a->repair ? "r" : "");
			snprintf(cls, sizeof(cls), "%s%s", a->klass ? a->klass : "-", a->class_defaulted ? "*" : "");
			printf("%02d  %-8s %-17s %-12s %-10s %-8s %-18s %s\n", a->seq, id,
			       a->verdict ? a->verdict : a->state == ATTEMPT_RUNNING ? "(running)" : "-",
			       a->gate != GATE_NONE ? gate_outcome_name(a->gate) : "-",
			       a->validator != VALIDATOR_NOT_RUN ? validator_result_name(a->validator) : "-", cls,
			       a->action ? a->action : "-", a->exit ? a->exit : "-");
		}
	}
	bool any = false;
	for (size_t i = 0; i < st->natt; i++)
		for (size_t k = 0; st->att[i].soft && st->att[i].soft[k]; k++) {
			printf("%s%c%d: %s", any ? ", " : "\nsoft markers: ", st->att[i].stage, st->att[i].n,
			       st->att[i].soft[k]);
			any = true;
		}
	if (any)
		printf("\n");
	any = false;
	for (size_t i = 0; i < st->natt; i++) {
		const struct attempt *a = &st->att[i];
		if (!run_deferred_owed(st, i))
			continue;
		printf("%s%c: ", any ? "; " : "\ndeferred:  ", a->stage);
		for (size_t k = 0; a->deferred && a->deferred[k]; k++)
			printf("%s%s", k ? ", " : "", a->deferred[k]);
		if (!a->deferred || !a->deferred[0])
			printf("(unspecified)");
		any = true;
	}
	if (any)
		printf("\n");
	for (size_t i = 0; i < st->natt; i++)
		if (st->att[i].note)
			printf("%snote %c%d: %s\n", i == 0 ? "\n" : "", st->att[i].stage, st->att[i].n,
			       st->att[i].note);
	for (size_t i = 0; i < st->natt; i++)
		if (st->att[i].partial)
			printf("partial %c%d: %d file%s the interrupted attempt left, moved to %s\n",
			       st->att[i].stage, st->att[i].n, st->att[i].npartial,
			       st->att[i].npartial == 1 ? "" : "s", st->att[i].partial);
	if (st->status == RUN_COMPLETE)
		printf("contract   %s (final output contract, see .tileport/contract.txt)\n",
		       validator_result_name(st->contract));
	struct run_usage all = run_model_usage(m, 0);
	if (all.tokens_in || all.tokens_out || all.cost > 0) {
		printf("tokens     %lld in, %lld out, $%.4f:", all.tokens_in, all.tokens_out, all.cost);
		for (size_t i = 0; t && i < t->nstages; i++) {
			struct run_usage u = run_model_usage(m, t->stages[i].letter);
			if (u.tokens_in || u.tokens_out || u.cost > 0)
				printf(" %c %lld/%lld $%.4f", t->stages[i].letter, u.tokens_in, u.tokens_out, u.cost);
		}
		printf("\n");
	}
}

static void print_json(cJSON *o)
{
	char *text = cJSON_Print(o);
	puts(text);
	cJSON_free(text);
	cJSON_Delete(o);
}

/* A listed run in the JSON form status prints, or why it cannot be read. */
static cJSON *run_json_or_why(struct session *s, const struct run_summary *r)
{
	struct tp_err err;
	struct run_model *m = r->error ? NULL : session_run(s, r->run_dir, &err);
	if (m) {
		cJSON *o = run_model_to_json(m);
		run_model_free(m);
		return o;
	}
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "op", r->op);
	cJSON_AddStringToObject(o, "run_dir", r->run_dir);
	cJSON_AddStringToObject(o, "state", "unreadable");
	cJSON_AddStringToObject(o, "error", r->error ? r->error : err.msg);
	return o;
}

int cmd_status(int argc, char **argv)
{
	bool json = false;
	const char *oopt = NULL;
	const char *wopt = NULL;
	int opt = cli_show_options(argc, argv, "status", status_usage, &json, NULL, &oopt, &wopt);
	if (opt)
		return opt < 0 ? TP_EXIT_OK : opt;
	if (argc - optind != 1)
		return cli_usage_error("status", "expected one run (a directory or an op name)");
	struct session *s;
	int rc = cli_session(&s, &(struct session_opts){.out_root = oopt, .workspace = wopt, .read_only = true});
	if (rc)
		return rc;
	struct tp_err err;
	struct run_model *m = session_run(s, argv[optind], &err);
	if (!m) {
		rc = cli_report(&err);
	} else if (json) {
		print_json(run_model_to_json(m));
	} else {
		print_status(m);
	}
	run_model_free(m);
	session_close(s);
	return rc;
}

int cmd_runs(int argc, char **argv)
{
	bool json = false;
	const char *oopt = NULL;
	const char *wopt = NULL;
	int opt = cli_show_options(argc, argv, "runs", runs_usage, &json, NULL, &oopt, &wopt);
	if (opt)
		return opt < 0 ? TP_EXIT_OK : opt;
	if (optind != argc)
		return cli_usage_error("runs", "unexpected argument '%s'", argv[optind]);
	struct session *s;
	int rc = cli_session(&s, &(struct session_opts){.out_root = oopt, .workspace = wopt, .read_only = true});
	if (rc)
		return rc;
	const char *out = session_out_root(s);
	struct run_summary *v;
	size_t n;
	struct tp_err err;
	if (runs_list(out, &v, &n, &err) < 0) {
		rc = cli_report(&err);
	} else if (json) {
		cJSON *arr = cJSON_CreateArray();
		for (size_t i = 0; i < n; i++)
			cJSON_AddItemToArray(arr, run_json_or_why(s, &v[i]));
		print_json(arr);
	} else if (n == 0) {
		printf("no runs in %s\n", out);
	} else {
		printf("%-24s %-18s %-13s %-6s %-5s %s\n", "op", "state", "outcome", "stage", "age",
		       "run directory");
		for (size_t i = 0; i < n; i++) {
			char age[16];
			fmt_age(wall_ms() - v[i].updated, age, sizeof(age));

			char stage[4] = "-";
			if (v[i].stage)
				snprintf(stage, sizeof(stage), "%c", v[i].stage);
			printf("%-24s %-18s %-13s %-6s %-5s %s\n", v[i].op, run_summary_state(&v[i]),
			       run_outcome_words(v[i].outcome), stage, age, v[i].run_dir);
			if (v[i].error)
				printf("%-24s %s\n", "", v[i].error);
			else if (v[i].outcome_reason)
				printf("%-24s %s\n", "", v[i].outcome_reason);
		}
	}
	if (rc == 0)
		runs_free(v, n);
	session_close(s);
	return rc;
}
