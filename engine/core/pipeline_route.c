/* Routing: the first table row that matches an attempt's result decides
 * what comes next (a spawn under the cap, STOP, PIPELINE_COMPLETE,
 * OFFLINE_COMPLETE), and the end of a run is recorded with the final
 * output contract. Above the record, below the attempt (pipeline_stage.c):
 * it decides, and whoever routed schedules the next step. */
#include "engine/core/pipeline_int.h"

#include <stdlib.h>
#include <string.h>

/* Set the end state (and check the output contract) without saving, so that
 * routing can record the attempt and the end in one atomic save. */
static cJSON *finish_state(struct pipeline *p, const char *final, const char *reason)
{
	struct run_state *st = &p->st;
	pl_set(&st->final, final);
	pl_set(&st->reason, reason);
	st->next.set = false;
	st->status = strcmp(final, "PIPELINE_COMPLETE") == 0  ? RUN_COMPLETE
		     : strcmp(final, "OFFLINE_COMPLETE") == 0 ? RUN_OFFLINE_COMPLETE
							      : RUN_STOPPED;
	cJSON *f = cJSON_CreateObject();
	cJSON_AddStringToObject(f, "final", final);
	if (reason)
		cJSON_AddStringToObject(f, "reason", reason);
	if (strcmp(final, "PIPELINE_COMPLETE") == 0) {
		/* The final output contract is checked and recorded, never repaired. */
		struct check_outcome o = {0};
		int ran = p->table->final_validator ? pl_final_check(p, &o) : -1;
		st->contract = ran < 0 ? VALIDATOR_NOT_RUN : o.status == VALIDATOR_PASS ? VALIDATOR_PASS
										  : VALIDATOR_FAIL;
		cJSON_AddStringToObject(f, "contract", validator_result_name(st->contract));
		if (o.summary)
			cJSON_AddStringToObject(f, "contract_summary", o.summary);
		if (o.text) {
			char *path = run_path(st->run_dir, "contract.txt"); /* .tileport/contract.txt */
			write_file(path, o.text, strlen(o.text), NULL);
			free(path);
		}
		check_outcome_free(&o);
	}
	if (strcmp(final, "OFFLINE_COMPLETE") == 0) {
		cJSON *d = cJSON_AddArrayToObject(f, "deferred");
		for (size_t i = 0; i < st->natt; i++) {
			const struct attempt *a = &st->att[i];
			if (!a->verdict || strcmp(a->verdict, "DEFERRED") != 0)
				continue;
			for (size_t k = 0; a->deferred && a->deferred[k]; k++) {
				char *s = xasprintf("%c:%s", a->stage, a->deferred[k]);
				cJSON_AddItemToArray(d, cJSON_CreateString(s));
				free(s);
			}
		}
	}
	return f;
}

static void finish_emit(struct pipeline *p, cJSON *f)
{
	const struct run_state *st = &p->st;
	bool complete = strcmp(st->final, "PIPELINE_COMPLETE") == 0;
	pl_emit(p, "run_finished", f, "%s%s%s%s%s", st->final, st->reason ? ": " : "",
		st->reason ? st->reason : "", complete ? "; output contract: " : "",
		complete ? validator_result_name(st->contract) : "");
}

void pl_finish(struct pipeline *p, const char *final, const char *reason)
{
	cJSON *f = finish_state(p, final, reason);
	pl_save(p);
	finish_emit(p, f);
}

static bool cond_eval(const struct route_cond *c, void *ud)
{
	struct pipeline *p = ud;
	int n = run_count(&p->st, c->stage);
	return c->kind == COND_NOT_RUN ? n == 0 : n <= 1;
}

bool pl_route(struct pipeline *p, struct attempt *a)
{
	struct run_state *st = &p->st;
	if (a->verdict && strcmp(a->verdict, "DEFERRED") == 0)
		a->counts = false; /* deferred work does not use up the cap */
	a->state = a->state == ATTEMPT_SKIPPED ? ATTEMPT_SKIPPED : ATTEMPT_DONE;
	const struct route_row *r = table_route(p->table, a->stage, a->n, a->verdict, a->klass,
						st->offline, cond_eval, p);
	char action[64];
	const char *final = NULL;
	char *reason = NULL;
	if (!r) {
		snprintf(action, sizeof(action), "STOP");
		final = "STOP";
		reason = xasprintf("no routing row for stage %c attempt %d verdict %s", a->stage, a->n,
				   a->verdict ? a->verdict : "(none)");
	} else {
		route_row_action_str(r, action, sizeof(action));
		a->route_row = r->index;
		a->route_line = r->line;
		if (r->action == ROUTE_SPAWN) {
			const struct stage_def *t = table_stage(p->table, r->target);
			int n = run_count(st, r->target);
			if (st->offline && !t->deferrable) {
				final = "OFFLINE_COMPLETE";
				reason = xasprintf("stage %c needs the toolchain; resume online to run it", t->letter);
			} else if (n >= t->cap) {
				final = "PIPELINE_COMPLETE";
				reason = xasprintf("spawn cap reached: %c ran %d time%s (cap %d)", t->letter, n,
						   n == 1 ? "" : "s", t->cap);
				pl_emit(p, "cap_reached", pl_attempt_fields(a), "%s", reason);
			} else {
				st->next = (struct run_next){.set = true, .stage = t->letter};
			}
		} else if (r->action == ROUTE_STOP) {
			final = "STOP";
			reason = xasprintf("%c returned %s", a->stage, a->verdict);
		} else if (r->action == ROUTE_COMPLETE) {
			final = "PIPELINE_COMPLETE";
		} else {
			final = "OFFLINE_COMPLETE";
			reason = xstrdup("offline work done; deferred steps need the toolchain");
		}
	}
	pl_set(&a->action, action);
	cJSON *f = pl_attempt_fields(a);
	if (a->klass)
		cJSON_AddStringToObject(f, "class", a->klass);
	if (r) {
		cJSON_AddNumberToObject(f, "row", r->index);
		cJSON_AddNumberToObject(f, "line", r->line);
	}
	cJSON_AddStringToObject(f, "action", action);
	char cls[48] = "";
	if (a->klass)
		snprintf(cls, sizeof(cls), " (%s%s)", a->klass, a->class_defaulted ? ", defaulted" : "");
	cJSON *fin = final ? finish_state(p, final, reason) : NULL;
	pl_save(p); /* the attempt's result, the route and any end state at once */
	if (r)
		pl_emit(p, "routed", f, "route %c%d %s%s -> %s (row %d, %s:%d)", a->stage, a->n, a->verdict,
			cls, action, r->index, p->table->path, r->line);
	else
		pl_emit(p, "routed", f, "route %c%d %s%s -> STOP (no row)", a->stage, a->n,
			a->verdict ? a->verdict : "-", cls);
	if (fin)
		finish_emit(p, fin);
	free(reason);
	return !fin;
}
