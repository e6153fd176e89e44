/* tileport status RUN / tileport runs: read the run store, change nothing. */
#include "cli/cli.h"

#include <cJSON.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "engine/core/run.h"
#include "engine/core/table.h"

static const char status_usage[] =
	"usage: tileport status RUN [--json] [--out DIR]\n"
	"\n"
	"Show a run: its state, attempts per stage against the caps, the path of\n"
	"stages taken, verdicts, gate and validator results, soft markers, deferred\n"
	"items and the final output contract. RUN is a run directory or an op name in\n"
	"the output root (--out, $CUTILE_KERNEL_OUT_ROOT, ...).\n"
	"\n"
	"exit: 0 shown, 2 no such run\n";

static const char runs_usage[] =
	"usage: tileport runs [--out DIR] [--json]\n"
	"\n"
	"List the runs in the output root, newest first: op, state, current stage, age.\n"
	"A run whose state cannot be read is listed as unreadable, with the reason.\n"
	"\n"
	"exit: 0 listed, 2 the output root cannot be read\n";

static void age_str(int64_t ms, char *buf, size_t n)
{
	int64_t s = (wall_ms() - ms) / 1000;
	if (s < 0)
		s = 0;
	if (s < 120)
		snprintf(buf, n, "%llds", (long long)s);
	else if (s < 7200)
		snprintf(buf, n, "%lldm", (long long)(s / 60));
	else if (s < 172800)
		snprintf(buf, n, "%lldh", (long long)(s / 3600));
	else
		snprintf(buf, n, "%lldd", (long long)(s / 86400));
}

static char *path_str(const struct run_state *st)
{
	struct sbuf sb = SBUF_INIT;
	for (size_t i = 0; i < st->natt; i++) {
		const struct attempt *a = &st->att[i];
		sb_printf(&sb, "%s%c%d%s", i ? " -> " : "", a->stage, a->n,
			  a->repair ? "(repair)" : a->state == ATTEMPT_SKIPPED ? "(skipped)" : "");
	}
	if (st->final)
		sb_printf(&sb, "%s%s", st->natt ? " -> " : "", st->final);
	return sb_detach(&sb);
}

static cJSON *status_json(const struct run_state *st, const struct table *t, bool locked)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "op", st->op);
	cJSON_AddStringToObject(o, "run_dir", st->run_dir);
	cJSON_AddStringToObject(o, "workspace", st->workspace ? st->workspace : "");
	cJSON_AddStringToObject(o, "state", run_display_state(st->status, NULL, locked));
	cJSON_AddStringToObject(o, "status", st->status);
	if (st->final)
		cJSON_AddStringToObject(o, "final", st->final);
	if (st->reason)
		cJSON_AddStringToObject(o, "reason", st->reason);
	cJSON_AddStringToObject(o, "mode", st->offline ? "offline" : "online");
	cJSON *miss = cJSON_AddArrayToObject(o, "missing");
	for (size_t i = 0; st->missing && st->missing[i]; i++)
		cJSON_AddItemToArray(miss, cJSON_CreateString(st->missing[i]));
	char *path = path_str(st);
	cJSON_AddStringToObject(o, "path", path);
	free(path);
	cJSON *per = cJSON_AddObjectToObject(o, "stages");
	for (size_t i = 0; t && i < t->nstages; i++) {
		cJSON *s = cJSON_CreateObject();
		cJSON_AddNumberToObject(s, "runs", run_count(st, t->stages[i].letter));
		cJSON_AddNumberToObject(s, "cap", t->stages[i].cap);
		char l[2] = {t->stages[i].letter, 0};
		cJSON_AddItemToObject(per, l, s);
	}
	cJSON *att = cJSON_AddArrayToObject(o, "attempts");
	cJSON *soft = cJSON_AddArrayToObject(o, "soft_markers");
	cJSON *def = cJSON_AddArrayToObject(o, "deferred");
	for (size_t i = 0; i < st->natt; i++) {
		const struct attempt *a = &st->att[i];
		cJSON *j = cJSON_CreateObject();
		char l[2] = {a->stage, 0};
		cJSON_AddNumberToObject(j, "seq", a->seq);
		cJSON_AddStringToObject(j, "stage", l);
		cJSON_AddNumberToObject(j, "attempt", a->n);
		cJSON_AddStringToObject(j, "dir", a->dir);
		cJSON_AddBoolToObject(j, "repair", a->repair);
		cJSON_AddBoolToObject(j, "manual", a->manual);
		cJSON_AddStringToObject(j, "state", attempt_state_name(a->state));
#define OPT(k, v) if (v) cJSON_AddStringToObject(j, k, v)
		OPT("claimed", a->claimed);
		OPT("verdict", a->verdict);
		OPT("class", a->klass);
		OPT("gate", a->gate);
		OPT("validator", a->validator);
		OPT("action", a->action);
		OPT("exit", a->exit);
		OPT("note", a->note);
#undef OPT
		if (a->ended > a->started)
			cJSON_AddNumberToObject(j, "elapsed_ms", (double)(a->ended - a->started));
		cJSON_AddNumberToObject(j, "tokens_in", (double)a->tokens_in);
		cJSON_AddNumberToObject(j, "tokens_out", (double)a->tokens_out);
		cJSON_AddNumberToObject(j, "cost", a->cost);
		cJSON_AddItemToArray(att, j);
		for (size_t k = 0; a->soft && a->soft[k]; k++) {
			cJSON *m = cJSON_CreateObject();
			cJSON_AddNumberToObject(m, "seq", a->seq);
			cJSON_AddStringToObject(m, "stage", l);
			cJSON_AddStringToObject(m, "marker", a->soft[k]);
			cJSON_AddItemToArray(soft, m);
		}
		if (a->verdict && strcmp(a->verdict, "DEFERRED") == 0)
			for (size_t k = 0; a->deferred && a->deferred[k]; k++) {
				cJSON *m = cJSON_CreateObject();
				cJSON_AddStringToObject(m, "stage", l);
				cJSON_AddStringToObject(m, "step", a->deferred[k]);
				cJSON_AddItemToArray(def, m);
			}
	}
	if (st->contract)
		cJSON_AddStringToObject(o, "contract", st->contract);
	cJSON_AddItemToObject(o, "meter", run_meter_json(st));
	return o;
}

static void print_status(const struct run_state *st, const struct table *t, bool locked)
{
	const char *state = run_display_state(st->status, NULL, locked);
	printf("run        %s (%s)\n", st->op, st->run_dir);
	printf("workspace  %s\n", st->workspace ? st->workspace : "-");
	printf("state      %s%s%s%s%s\n", state, st->final ? " " : "", st->final ? st->final : "",
	       st->reason ? ": " : "", st->reason ? st->reason : "");
	if (strcmp(state, "interrupted") == 0)
		printf("           no orchestrator is running; continue with 'tileport resume %s'\n",
		       st->run_dir);
	printf("mode       %s", st->offline ? "offline" : "online");
	for (size_t i = 0; st->missing && st->missing[i]; i++)
		printf("%s%s", i ? ", " : " (missing: ", st->missing[i]);
	printf("%s\n", st->missing && st->missing[0] ? ")" : "");
	char *path = path_str(st);
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
			       a->gate ? a->gate : "-", a->validator ? a->validator : "-", cls,
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
		if (!a->verdict || strcmp(a->verdict, "DEFERRED") != 0)
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
	if (st->contract)
		printf("contract   %s (final output contract, see .tileport/contract.txt)\n", st->contract);
	struct run_meter m;
	run_meter(st, 0, &m);
	if (m.tokens_in || m.tokens_out || m.cost > 0) {
		printf("tokens     %lld in, %lld out, $%.4f:", m.tokens_in, m.tokens_out, m.cost);
		for (size_t i = 0; t && i < t->nstages; i++) {
			struct run_meter s;
			run_meter(st, t->stages[i].letter, &s);
			if (s.tokens_in || s.tokens_out || s.cost > 0)
				printf(" %c %lld/%lld $%.4f", t->stages[i].letter, s.tokens_in, s.tokens_out, s.cost);
		}
		printf("\n");
	}
}

int cmd_status(int argc, char **argv)
{
	static const struct option opts[] = {
		{"json", no_argument, NULL, 'j'},
		{"out", required_argument, NULL, 'o'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	bool json = false;
	const char *oopt = NULL;
	int c;
	while ((c = getopt_long(argc, argv, "jo:h", opts, NULL)) != -1) {
		if (c == 'j')
			json = true;
		else if (c == 'o')
			oopt = optarg;
		else if (c == 'h')
			return fputs(status_usage, stdout), 0;
		else
			return cli_usage_error("status", "unknown option");
	}
	if (argc - optind != 1)
		return cli_usage_error("status", "expected one run (a directory or an op name)");
	char *ws = cli_workspace(NULL);
	char *out = cli_out_root(oopt, ws);
	char *dir = run_resolve(argv[optind], out);
	struct run_state st;
	struct tp_err err;
	int rc = 0;
	if (!run_exists(dir)) {
		fprintf(stderr, "tileport: %s: no tileport run here (no .tileport/state.json)\n", dir);
		rc = TP_EXIT_USAGE;
	} else if (run_state_load(dir, &st, &err) < 0) {
		rc = cli_report(&err);
	} else {
		struct table *t = st.table ? table_load(st.table, NULL) : NULL;
		if (!t) {
			char *def = table_default_path();
			t = table_load(def, NULL);
			free(def);
		}
		bool locked = run_locked(dir);
		if (json) {
			cJSON *o = status_json(&st, t, locked);
			char *s = cJSON_Print(o);
			puts(s);
			cJSON_free(s);
			cJSON_Delete(o);
		} else {
			print_status(&st, t, locked);
		}
		table_free(t);
		run_state_free(&st);
	}
	free(dir);
	free(out);
	free(ws);
	return rc;
}

int cmd_runs(int argc, char **argv)
{
	static const struct option opts[] = {
		{"json", no_argument, NULL, 'j'},
		{"out", required_argument, NULL, 'o'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	bool json = false;
	const char *oopt = NULL;
	int c;
	while ((c = getopt_long(argc, argv, "jo:h", opts, NULL)) != -1) {
		if (c == 'j')
			json = true;
		else if (c == 'o')
			oopt = optarg;
		else if (c == 'h')
			return fputs(runs_usage, stdout), 0;
		else
			return cli_usage_error("runs", "unknown option");
	}
	if (optind != argc)
		return cli_usage_error("runs", "unexpected argument '%s'", argv[optind]);
	char *ws = cli_workspace(NULL);
	char *out = cli_out_root(oopt, ws);
	struct run_summary *v;
	size_t n;
	struct tp_err err;
	int rc = 0;
	if (runs_list(out, &v, &n, &err) < 0) {
		rc = cli_report(&err);
	} else if (json) {
		cJSON *arr = cJSON_CreateArray();
		for (size_t i = 0; i < n; i++) {
			cJSON *o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "op", v[i].op);
			cJSON_AddStringToObject(o, "run_dir", v[i].run_dir);
			cJSON_AddStringToObject(o, "state", run_display_state(v[i].status, NULL, v[i].running));
			if (v[i].final)
				cJSON_AddStringToObject(o, "final", v[i].final);
			char l[2] = {v[i].stage, 0};
			cJSON_AddStringToObject(o, "stage", l);
			cJSON_AddNumberToObject(o, "attempts", v[i].attempts);
			cJSON_AddNumberToObject(o, "updated", (double)v[i].updated);
			if (v[i].error)
				cJSON_AddStringToObject(o, "error", v[i].error);
			cJSON_AddItemToArray(arr, o);
		}
		char *s = cJSON_Print(arr);
		puts(s);
		cJSON_free(s);
		cJSON_Delete(arr);
	} else if (n == 0) {
		printf("no runs in %s\n", out);
	} else {
		printf("%-24s %-18s %-6s %-5s %s\n", "op", "state", "stage", "age", "run directory");
		for (size_t i = 0; i < n; i++) {
			char age[16];
			age_str(v[i].updated, age, sizeof(age));

			char stage[4] = "-";
			if (v[i].stage)
				snprintf(stage, sizeof(stage), "%c", v[i].stage);
			printf("%-24s %-18s %-6s %-5s %s\n", v[i].op,
			       run_display_state(v[i].status, v[i].final, v[i].running), stage, age,
			       v[i].run_dir);
			if (v[i].error)
				printf("%-24s %s\n", "", v[i].error);
		}
	}
	if (rc == 0)
		runs_free(v, n);
	free(out);
	free(ws);
	return rc;
}
