/* The run's one JSON form: the state as state.json holds it, and what
 * readers derive from it, computed here once. */
#include "engine/core/session_int.h"

#include <stdlib.h>
#include <string.h>

static void put_usage(cJSON *o, struct run_usage u)
{
	cJSON_AddNumberToObject(o, "tokens_in", (double)u.tokens_in);
	cJSON_AddNumberToObject(o, "tokens_out", (double)u.tokens_out);
	cJSON_AddNumberToObject(o, "cost", u.cost);
}

char *run_model_path(const struct run_model *m)
{
	const struct run_state *st = run_model_state(m);
	struct sbuf sb = SBUF_INIT;
	for (size_t i = 0; i < st->natt; i++) {
		const struct attempt *a = &st->att[i];
		sb_printf(&sb, "%s%c%d%s", i ? " -> " : "", a->stage, a->n,
			  a->repair ? "(repair)" : a->state == ATTEMPT_SKIPPED ? "(skipped)" : "");
		/* a run resumed online: which attempts did only the offline part */
		if (a->offline && !st->offline)
			sb_adds(&sb, "(offline)");
	}
	if (st->final)
		sb_printf(&sb, "%s%s", st->natt ? " -> " : "", st->final);
	return sb_detach(&sb);
}

cJSON *run_model_to_json(const struct run_model *m)
{
	const struct run_state *st = run_model_state(m);
	const struct table *t = run_model_table(m);
	cJSON *o = run_state_to_json(st);
	cJSON_AddStringToObject(o, "state", run_model_state_name(m));
	cJSON_AddBoolToObject(o, "driven", run_model_driven(m));
	if (st->natt) {
		char l[2] = {st->att[st->natt - 1].stage, 0};
		cJSON_AddStringToObject(o, "stage", l);
	}
	char *path = run_model_path(m);
	cJSON_AddStringToObject(o, "path", path);
	free(path);

	cJSON *stages = cJSON_AddObjectToObject(o, "stages");
	for (size_t i = 0; t && i < t->nstages; i++) {
		const struct stage_def *s = &t->stages[i];
		cJSON *j = cJSON_CreateObject();
		cJSON_AddNumberToObject(j, "runs", run_count(st, s->letter));
		cJSON_AddNumberToObject(j, "cap", s->cap);
		put_usage(j, run_model_usage(m, s->letter));
		char l[2] = {s->letter, 0};
		cJSON_AddItemToObject(stages, l, j);
	}

	cJSON *atts = cJSON_GetObjectItemCaseSensitive(o, "attempts");
	cJSON *soft = cJSON_AddArrayToObject(o, "soft_markers");
	cJSON *def = cJSON_AddArrayToObject(o, "deferred");
	for (size_t i = 0; i < st->natt; i++) {
		const struct attempt *a = &st->att[i];
		char l[2] = {a->stage, 0};
		int64_t el = run_model_elapsed_ms(m, a, wall_ms());
		if (el > 0)
			cJSON_AddNumberToObject(cJSON_GetArrayItem(atts, (int)i), "elapsed_ms", (double)el);
		for (size_t k = 0; a->soft && a->soft[k]; k++) {
			cJSON *j = cJSON_CreateObject();
			cJSON_AddNumberToObject(j, "seq", a->seq);
			cJSON_AddStringToObject(j, "stage", l);
			cJSON_AddStringToObject(j, "marker", a->soft[k]);
			cJSON_AddItemToArray(soft, j);
		}
		if (!run_deferred_owed(st, i))
			continue;
		for (size_t k = 0; a->deferred && a->deferred[k]; k++) {
			cJSON *j = cJSON_CreateObject();
			cJSON_AddStringToObject(j, "stage", l);
			cJSON_AddStringToObject(j, "step", a->deferred[k]);
			cJSON_AddItemToArray(def, j);
		}
	}
	put_usage(o, run_model_usage(m, 0));
	return o;
}
