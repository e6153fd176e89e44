/* The run evidence a changeset carries: whether the run counts as
 * accepted, the note (the run summary as JSON: stages, verdict trail,
 * drivers and tokens per stage, bench rows and IR findings from the run's
 * reports (reports.c), deferred items) and the commit message (subject,
 * verdict trail, geomean, trailers). */
#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/core/events.h"
#include "engine/core/run.h"
#include "engine/git/cs_int.h"

/* ---- acceptance ---- */

static const struct attempt *last_of(const struct run_state *st, char stage)
{
	for (size_t i = st->natt; i-- > 0;)
		if (st->att[i].stage == stage && st->att[i].state != ATTEMPT_SKIPPED)
			return &st->att[i];
	return NULL;
}

static char *one_line(const char *s)
{
	char *t = str_trim(xstrdup(s));
	for (char *p = t; *p; p++)
		if (*p == '\n' || *p == '\r' || *p == '\t')
			*p = ' ';
	return t;
}

void cs_run_acceptance(const struct run_state *st, const char *reason, struct cs_acceptance *out)
{
	memset(out, 0, sizeof(*out));
	bool aborted = st->status && !strcmp(st->status, "aborted");
	const char *end = st->final ? st->final : aborted ? "aborted" : NULL;
	const struct attempt *e = last_of(st, 'E');
	char *why = reason ? one_line(reason) : NULL;
	out->ended = end != NULL;
	if (!end) {
		out->why = xasprintf("the run has not ended (its status is %s): package a finished run",
				     st->status ? st->status : "unknown");
	} else if (!strcmp(end, "PIPELINE_COMPLETE") && e && e->verdict && !strcmp(e->verdict, "DONE")) {
		out->accepted = true;
		out->why = xstrdup("PIPELINE_COMPLETE with E DONE");
	} else if (why && *why) {
		out->accepted = out->by_hand = true;
		out->why = xasprintf("%s accepted by hand: %s", end, why);
	} else {
		out->why = xasprintf("the run ended %s%s%s, not PIPELINE_COMPLETE with E DONE: accept it by "
				     "hand with --accept \"reason\"", end, e && e->verdict ? ", E " : "",
				     e && e->verdict ? e->verdict : "");
	}
	free(why);
}

void cs_acceptance_free(struct cs_acceptance *a)
{
	free(a->why);
	a->why = NULL;
}

/* ---- the run's own record ---- */

static char *attempt_id(const struct attempt *a)
{
	return xasprintf("%c%d%s", a->stage, a->n, a->repair ? "r" : "");
}

static const char *verdict_shown(const struct attempt *a)
{
	return a->state == ATTEMPT_SKIPPED ? "SKIPPED" : a->verdict ? a->verdict : "-";
}

/* "A1=PASS B1=COMPILED ...": the Verdicts trailer. */
static char *verdicts_trailer(const struct run_state *st)
{
	struct sbuf sb = SBUF_INIT;
	for (size_t i = 0; i < st->natt; i++) {
		char *id = attempt_id(&st->att[i]);
		sb_printf(&sb, "%s%s=%s", i ? " " : "", id, verdict_shown(&st->att[i]));
		free(id);
	}
	return sb_detach(&sb);
}

#define ADD_OPT(o, k, v) do { if (v) cJSON_AddStringToObject(o, k, v); } while (0)

static void stages_json(const struct run_state *st, cJSON *note)
{
	cJSON *stages = cJSON_AddArrayToObject(note, "stages");
	for (int l = 'A'; l <= 'Z'; l++) {
		const struct attempt *last = NULL;
		long long tin = 0, tout = 0;
		double cost = 0;
		int runs = 0;
		for (size_t i = 0; i < st->natt; i++) {
			const struct attempt *a = &st->att[i];
			if (a->stage != l)
				continue;
			last = a;
			tin += a->tokens_in;
			tout += a->tokens_out;
			cost += a->cost;
			runs += a->counts;
		}
		if (!last)
			continue;
		cJSON *s = cJSON_CreateObject();
		char letter[2] = {(char)l, 0};
		cJSON_AddStringToObject(s, "stage", letter);
		cJSON_AddNumberToObject(s, "runs", runs);
		cJSON_AddStringToObject(s, "verdict", verdict_shown(last));
		const char *drv = last->driver ? last->driver : st->drivers[l - 'A'];
		ADD_OPT(s, "driver", drv);
		cJSON_AddNumberToObject(s, "tokens_in", (double)tin);
		cJSON_AddNumberToObject(s, "tokens_out", (double)tout);
		cJSON_AddNumberToObject(s, "cost", cost);
		cJSON_AddItemToArray(stages, s);
	}
}

static void trail_json(const struct run_state *st, cJSON *note)
{
	cJSON *trail = cJSON_AddArrayToObject(note, "trail");
	cJSON *deferred = cJSON_AddArrayToObject(note, "deferred");
	for (size_t i = 0; i < st->natt; i++) {
		const struct attempt *a = &st->att[i];
		cJSON *t = cJSON_CreateObject();
		char *id = attempt_id(a);
		char letter[2] = {a->stage, 0};
		cJSON_AddNumberToObject(t, "seq", a->seq);
		cJSON_AddStringToObject(t, "attempt", id);
		cJSON_AddStringToObject(t, "stage", letter);
		cJSON_AddStringToObject(t, "verdict", verdict_shown(a));
		ADD_OPT(t, "claimed", a->claimed);
		ADD_OPT(t, "class", a->klass);
		ADD_OPT(t, "gate", a->gate);
		ADD_OPT(t, "validator", a->validator);
		ADD_OPT(t, "action", a->action);
		ADD_OPT(t, "note", a->note);
		cJSON_AddBoolToObject(t, "manual", a->manual);
		cJSON_AddItemToArray(trail, t);
		for (size_t k = 0; a->verdict && !strcmp(a->verdict, "DEFERRED") && a->deferred &&
				   a->deferred[k]; k++) {
			cJSON *d = cJSON_CreateObject();
			cJSON_AddStringToObject(d, "stage", letter);
			cJSON_AddStringToObject(d, "step", a->deferred[k]);
			cJSON_AddItemToArray(deferred, d);
		}
		free(id);
	}
}

/* The manual actions of events.jsonl (overrides, skips, ...) with their reasons. */
static void manual_json(const struct run_state *st, cJSON *note)
{
	cJSON *all = events_read(st->run_dir, NULL);
	cJSON *manual = cJSON_AddArrayToObject(note, "manual");
	const cJSON *ev;
	cJSON_ArrayForEach(ev, all) {
		const cJSON *type = cJSON_GetObjectItemCaseSensitive(ev, "type");
		if (!cJSON_IsString(type) || !str_starts(type->valuestring, "manual_"))
			continue;
		cJSON *m = cJSON_CreateObject();
		static const char *const keys[] = {"ts", "type", "reason", "msg"};
		for (size_t k = 0; k < TP_ARRAY_LEN(keys); k++) {
			const cJSON *v = cJSON_GetObjectItemCaseSensitive(ev, keys[k]);
			if (cJSON_IsString(v))
				cJSON_AddStringToObject(m, keys[k], v->valuestring);
		}
		cJSON_AddItemToArray(manual, m);
	}
	cJSON_Delete(all);
}

cJSON *cs_note_build(const struct run_state *st, const struct cs_acceptance *acc)
{
	cJSON *note = cJSON_CreateObject();
	cJSON_AddNumberToObject(note, "schema", CS_NOTE_SCHEMA);
	cJSON_AddStringToObject(note, "tileport_version", TILEPORT_VERSION);
	cJSON_AddStringToObject(note, "op", st->op);
	ADD_OPT(note, "run_dir", st->run_dir);
	ADD_OPT(note, "workspace", st->workspace);
	char when[32];
	iso8601_utc(st->created, when);
	cJSON_AddStringToObject(note, "created", when);
	ADD_OPT(note, "final", st->final);
	ADD_OPT(note, "reason", st->reason);
	cJSON_AddStringToObject(note, "mode", st->offline ? "offline" : "online");
	ADD_OPT(note, "contract", st->contract);
	cJSON *a = cJSON_AddObjectToObject(note, "accepted");
	cJSON_AddStringToObject(a, "by", acc->by_hand ? "hand" : "state");
	cJSON_AddStringToObject(a, "why", acc->why);
	stages_json(st, note);
	trail_json(st, note);
	manual_json(st, note);
	cJSON *miss = cJSON_AddArrayToObject(note, "missing");
	for (size_t i = 0; st->missing && st->missing[i]; i++)
		cJSON_AddItemToArray(miss, cJSON_CreateString(st->missing[i]));
	cJSON *bench = cs_report_bench(st->run_dir);
	const cJSON *g = cJSON_GetObjectItemCaseSensitive(bench, "geomean_ratio");
	if (cJSON_IsNumber(g))
		cJSON_AddNumberToObject(note, "geomean_ratio", g->valuedouble);
	else
		cJSON_AddNullToObject(note, "geomean_ratio");
	if (bench)
		cJSON_AddItemToObject(note, "bench", bench);
	cJSON *ir = cs_report_ir(st->run_dir);
	if (ir)
		cJSON_AddItemToObject(note, "ir", ir);
	cJSON_AddArrayToObject(note, "files"); /* filled once the commit is built */
	return note;
}

/* ---- the commit message ---- */

void cs_trail_format(const cJSON *note, struct sbuf *out)
{
	const cJSON *trail = cJSON_GetObjectItemCaseSensitive(note, "trail"), *t;
	int w = 0;
	cJSON_ArrayForEach(t, trail) {
		int n = (int)strlen(cs_note_or(t, "verdict", "-"));
		n += cs_note_str(t, "class") ? (int)strlen(cs_note_str(t, "class")) + 3 : 0;
		w = n > w ? n : w;
	}
	cJSON_ArrayForEach(t, trail) {
		const char *klass = cs_note_str(t, "class");
		char *v = xasprintf("%s%s%s%s", cs_note_or(t, "verdict", "-"), klass ? " [" : "",
				    klass ? klass : "", klass ? "]" : "");
		sb_printf(out, "  %-4s %-*s -> %s\n", cs_note_or(t, "attempt", "?"), w, v,
			  cs_note_or(t, "action", "-"));
		free(v);
		if (cs_note_str(t, "note")) {
			char *n = one_line(cs_note_str(t, "note"));
			sb_printf(out, "       %s\n", n);
			free(n);
		}
	}
}

char *cs_message_build(const struct run_state *st, const struct cs_acceptance *acc, const cJSON *note)
{
	struct sbuf sb = SBUF_INIT;
	const cJSON *g = cJSON_GetObjectItemCaseSensitive(note, "geomean_ratio");
	char geo[32] = "n/a";
	if (cJSON_IsNumber(g))
		snprintf(geo, sizeof(geo), "%.4f", g->valuedouble);
	char when[32];
	iso8601_utc(st->created, when);
	sb_printf(&sb, "cutile-rs: add %s\n\n", st->op);
	sb_printf(&sb, "The cuTile Rust conversion of %s as its six-file changeset, packaged by\n"
		       "tileport from the run created %s (the note has its evidence).\n\n", st->op, when);
	sb_adds(&sb, "Verdict trail:\n");
	cs_trail_format(note, &sb);
	sb_printf(&sb, "%s%s\n", st->final ? "  => " : "", st->final ? st->final : "");
	if (cJSON_IsNumber(g))
		sb_printf(&sb, "\nGeomean ratio: %s (cutile-rs / baseline, reports/performance.md)\n", geo);
	else
		sb_adds(&sb, "\nGeomean ratio: n/a (the run has no reports/performance.md)\n");
	sb_printf(&sb, "Accepted: %s\n\n", acc->why);
	char *verdicts = verdicts_trailer(st);
	sb_printf(&sb, "Tileport-Run: %s %s %s\n", st->op, st->final ? st->final : "-", when);
	sb_printf(&sb, "Geomean-Ratio: %s\n", geo);
	sb_printf(&sb, "Verdicts: %s\n", verdicts);
	if (acc->by_hand)
		sb_printf(&sb, "Tileport-Accepted: %s\n", acc->why);
	free(verdicts);
	return sb_detach(&sb);
}
