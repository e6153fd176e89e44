/* The run evidence a changeset carries: whether the run counts as
 * accepted, the note (the run in its one JSON form, run_model_to_json:
 * stages, verdict trail, drivers and tokens per stage, deferred items;
 * with the bench rows and IR findings of the run's reports, reports.c) and
 * the commit message (subject, verdict trail, geomean, trailers). */
#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/core/session.h"
#include "engine/git/cs_int.h"

/* ---- acceptance ---- */

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
	const char *end = st->final ? st->final : st->status == RUN_ABORTED ? "aborted" : NULL;
	char *why = reason ? one_line(reason) : NULL;
	out->ended = end != NULL;
	if (!end) {
		out->why = xasprintf("the run has not ended (its status is %s): package a finished run",
				     run_status_name(st->status));
	} else if (st->outcome == OUTCOME_ACCEPTED) {
		/* the run's own outcome decides (docs/pipeline.md, "The outcome") */
		out->accepted = true;
		out->why = xstrdup("PIPELINE_COMPLETE with E DONE");
	} else if (why && *why) {
		out->accepted = out->by_hand = true;
		out->why = xasprintf("%s accepted by hand: %s", end, why);
	} else {
		/* an aborted run has no outcome; nor has one that ended before runs had one */
		const char *word = st->outcome == OUTCOME_NONE ? "not accepted" : run_outcome_words(st->outcome);
		out->why = xasprintf("the run ended %s, %s%s%s: accept it by hand with --accept \"reason\"", end,
				     word, st->outcome_reason ? ": " : "", st->outcome_reason ? st->outcome_reason : "");
	}
	free(why);
}

void cs_acceptance_free(struct cs_acceptance *a)
{
	free(a->why);
	a->why = NULL;
}

/* ---- the note ---- */

static const char *verdict_shown(const struct attempt *a)
{
	return a->state == ATTEMPT_SKIPPED ? "SKIPPED" : a->verdict ? a->verdict : "-";
}

/* "A1=PASS B1=COMPILED ...": the Verdicts trailer. */
static char *verdicts_trailer(const struct run_state *st)
{
	struct sbuf sb = SBUF_INIT;
	for (size_t i = 0; i < st->natt; i++) {
		const struct attempt *a = &st->att[i];
		sb_printf(&sb, "%s%c%d%s=%s", i ? " " : "", a->stage, a->n, a->repair ? "r" : "",
			  verdict_shown(a));
	}
	return sb_detach(&sb);
}

/* The manual actions of events.jsonl (overrides, skips, ...) with their
 * reasons: the state keeps only their effect. */
static void manual_json(const struct run_model *m, cJSON *note)
{
	cJSON *manual = cJSON_AddArrayToObject(note, "manual");
	const cJSON *ev;
	cJSON_ArrayForEach(ev, run_model_events(m)) {
		const char *type = cs_note_str(ev, "type");
		if (!type || !str_starts(type, "manual_"))
			continue;
		cJSON *o = cJSON_CreateObject();
		static const char *const keys[] = {"ts", "type", "reason", "msg"};
		for (size_t k = 0; k < TP_ARRAY_LEN(keys); k++)
			if (cs_note_str(ev, keys[k]))
				cJSON_AddStringToObject(o, keys[k], cs_note_str(ev, keys[k]));
		cJSON_AddItemToArray(manual, o);
	}
}

cJSON *cs_note_build(const struct run_model *m, const struct cs_acceptance *acc)
{
	const struct run_state *st = run_model_state(m);
	cJSON *note = cJSON_CreateObject();
	cJSON_AddNumberToObject(note, "schema", CS_NOTE_SCHEMA);
	cJSON_AddStringToObject(note, "tileport_version", TILEPORT_VERSION);
	cJSON_AddItemToObject(note, "run", run_model_to_json(m));
	cJSON *a = cJSON_AddObjectToObject(note, "accepted");
	cJSON_AddStringToObject(a, "by", acc->by_hand ? "hand" : "state");
	cJSON_AddStringToObject(a, "why", acc->why);
	manual_json(m, note);
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

void cs_attempt_label(const cJSON *a, char *buf, size_t n)
{
	const cJSON *num = cJSON_GetObjectItemCaseSensitive(a, "attempt");
	snprintf(buf, n, "%s%d%s", cs_note_or(a, "stage", "?"), cJSON_IsNumber(num) ? num->valueint : 0,
		 cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "repair")) ? "r" : "");
}

const char *cs_attempt_verdict(const cJSON *a)
{
	const char *state = cs_note_str(a, "state");
	return state && !strcmp(state, "skipped") ? "SKIPPED" : cs_note_or(a, "verdict", "-");
}

const cJSON *cs_note_attempts(const cJSON *note)
{
	return cJSON_GetObjectItemCaseSensitive(cs_note_run(note), "attempts");
}

void cs_trail_format(const cJSON *note, struct sbuf *out)
{
	const cJSON *t;
	int w = 0;
	cJSON_ArrayForEach(t, cs_note_attempts(note)) {
		int n = (int)strlen(cs_attempt_verdict(t));
		n += cs_note_str(t, "class") ? (int)strlen(cs_note_str(t, "class")) + 3 : 0;
		w = n > w ? n : w;
	}
	cJSON_ArrayForEach(t, cs_note_attempts(note)) {
		const char *klass = cs_note_str(t, "class");
		char *v = xasprintf("%s%s%s%s", cs_attempt_verdict(t), klass ? " [" : "", klass ? klass : "",
				    klass ? "]" : "");
		char id[32];
		cs_attempt_label(t, id, sizeof(id));
		sb_printf(out, "  %-4s %-*s -> %s\n", id, w, v, cs_note_or(t, "action", "-"));
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
	const char *bench_problem = cs_note_str(cJSON_GetObjectItemCaseSensitive(note, "bench"), "problem");
	if (cJSON_IsNumber(g))
		sb_printf(&sb, "\nGeomean ratio: %s (cutile-rs / baseline, reports/performance.md)\n", geo);
	else if (bench_problem)
		sb_printf(&sb, "\nGeomean ratio: n/a (reports/performance.md was not read: %s)\n", bench_problem);
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
