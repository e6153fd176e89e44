/* Routing: the first table row that matches an attempt's result decides
 * what comes next (a spawn under the cap, STOP, PIPELINE_COMPLETE,
 * OFFLINE_COMPLETE), and the end of a run is recorded with the final
 * output contract. Above the record, below the attempt (pipeline_stage.c):
 * it decides, and whoever routed schedules the next step. */
#include "engine/base/files.h"
#include "engine/core/pipeline_int.h"

#include <stdlib.h>
#include <string.h>

/* "D2 returned FAIL (host)" */
static void describe(struct sbuf *sb, const struct attempt *a)
{
	sb_printf(sb, "%c%d ", a->stage, a->n);
	if (a->state == ATTEMPT_SKIPPED)
		sb_adds(sb, "was skipped by hand");
	else
		sb_printf(sb, "returned %s", a->verdict ? a->verdict : "no verdict");
	if (a->klass)
		sb_printf(sb, " (%s)", a->klass);
}

/* "the output contract failed 15 checks: kernel.rs missing; ...; and 12
 * more" from the contract's findings (at most three named). */
static void contract_failed(struct sbuf *sb, const struct check_outcome *o)
{
	cJSON *fs = o->json ? cJSON_Parse(o->json) : NULL, *f;
	struct sbuf named = SBUF_INIT;
	int n = 0;
	cJSON_ArrayForEach(f, fs)
	{
		const char *sev = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "severity"));
		const char *msg = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "message"));
		if (!sev || strcmp(sev, "FAIL") != 0 || !msg)
			continue;
		if (++n <= 3)
			sb_printf(&named, "%s%s", n > 1 ? "; " : "", msg);
	}
	cJSON_Delete(fs);
	if (n)
		sb_printf(sb, "the output contract failed %d check%s: %s", n, n == 1 ? "" : "s",
			  sb_str(&named));
	else
		sb_printf(sb, "the output contract failed (%s)",
			  o->summary ? o->summary : "see .tileport/contract.txt");
	if (n > 3)
		sb_printf(sb, "; and %d more", n - 3);
	sb_free(&named);
}

/* The outcome of a run that just ended: accepted only when the table's
 * accepting stage (E) ended with an accepting verdict (DONE) and the output
 * contract passed; otherwise why not, naming the stage, verdict or check. */
static void judge(struct pipeline *p, const struct check_outcome *contract)
{
	struct run_state *st = &p->st;
	const struct table *t = p->table;
	struct sbuf why = SBUF_INIT;
	st->outcome = OUTCOME_NOT_ACCEPTED;
	struct attempt *last = run_last_attempt(st);
	struct attempt *acc = t->accept_stage ? run_latest_attempt(st, t->accept_stage) : NULL;
	bool accepting = false;
	for (size_t i = 0; acc && acc->verdict && t->accept_verdicts[i]; i++)
		accepting |= strcmp(acc->verdict, t->accept_verdicts[i]) == 0;
	if (!strcmp(st->final, "OFFLINE_COMPLETE")) {
		st->outcome = OUTCOME_PENDING;
		sb_adds(&why, "the deferred steps need the toolchain: tileport resume --online");
	} else if (!strcmp(st->final, "STOP")) {
		if (last && last->refused_by) {
			sb_printf(&why, "%c%d: %s %s: %s", last->stage, last->n, last->refused_by,
				  last->refusal && str_starts(last->refusal, "FAIL [") ? "failed" : "refused",
				  last->refusal ? last->refusal : "?");
		} else if (last && last->route_row && last->action && !strcmp(last->action, "STOP")) {
			describe(&why, last);
			sb_adds(&why, "; the run stopped");
		} else {
			sb_printf(&why, "the run stopped: %s", st->reason ? st->reason : "STOP");
		}
	} else if (t->accept_stage && !acc) {
		sb_printf(&why, "%c never ran: ", t->accept_stage);
		if (st->reason)
			sb_adds(&why, st->reason);
		else if (last)
			describe(&why, last);
	} else if (t->accept_stage && !accepting) {
		describe(&why, acc);
	} else if (st->contract == VALIDATOR_NOT_RUN) {
		sb_adds(&why, "the output contract was not checked");
	} else if (st->contract != VALIDATOR_PASS) {
		contract_failed(&why, contract);
	} else {
		st->outcome = OUTCOME_ACCEPTED;
	}
	pl_set(&st->outcome_reason, why.len ? sb_str(&why) : NULL);
	sb_free(&why);
}

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
	struct check_outcome o = {0};
	if (strcmp(final, "PIPELINE_COMPLETE") == 0) {
		/* The final output contract is checked and recorded, never repaired. */
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
	}
	judge(p, &o);
	check_outcome_free(&o);
	cJSON_AddStringToObject(f, "outcome", run_outcome_name(st->outcome));
	if (st->outcome_reason)
		cJSON_AddStringToObject(f, "outcome_reason", st->outcome_reason);
	if (strcmp(final, "OFFLINE_COMPLETE") == 0) {
		cJSON *d = cJSON_AddArrayToObject(f, "deferred");
		for (size_t i = 0; i < st->natt; i++) {
			const struct attempt *a = &st->att[i];
			if (!run_deferred_owed(st, i))
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
	/* a reason that only repeats the end's is not said twice */
	const char *why = st->outcome_reason;
	if (why && st->reason && strstr(why, st->reason))
		why = NULL;
	pl_emit(p, "run_finished", f, "%s%s%s%s%s; %s%s%s", st->final, st->reason ? ": " : "",
		st->reason ? st->reason : "", complete ? "; output contract: " : "",
		complete ? validator_result_name(st->contract) : "", run_outcome_words(st->outcome),
		why ? ": " : "", why ? why : "");
}

void pl_finish(struct pipeline *p, const char *final, const char *reason)
{
	cJSON *f = finish_state(p, final, reason);
	pl_save(p);
	finish_emit(p, f);
}

/* The attempt's end and the run's, saved at once; the run_finished fields. */
static cJSON *stop_save(struct pipeline *p, struct attempt *a, const char *reason)
{
	a->state = a->state == ATTEMPT_SKIPPED ? ATTEMPT_SKIPPED : ATTEMPT_DONE;
	pl_set(&a->action, "STOP");
	cJSON *fin = finish_state(p, "STOP", reason);
	pl_save(p);
	tp_crashpoint_at("routed");
	return fin;
}

static void stop_log(struct pipeline *p, struct attempt *a, const char *how, cJSON *extra, cJSON *fin)
{
	cJSON *f = pl_attempt_fields(a);
	cJSON_AddStringToObject(f, "action", "STOP");
	cJSON *it;
	cJSON_ArrayForEach(it, extra)
		cJSON_AddItemToObject(f, it->string, cJSON_Duplicate(it, true));
	cJSON_Delete(extra);
	pl_emit(p, "routed", f, "route %c%d %s -> STOP (%s)", a->stage, a->n, a->verdict ? a->verdict : "-", how);
	finish_emit(p, fin);
}

void pl_stop_attempt(struct pipeline *p, struct attempt *a, const char *how, const char *reason, cJSON *extra)
{
	cJSON *fin = stop_save(p, a, reason);
	stop_log(p, a, how, extra, fin);
}

static bool cond_eval(const struct route_cond *c, void *ud)
{
	struct pipeline *p = ud;
	int n = run_count(&p->st, c->stage);
	return c->kind == COND_NOT_RUN ? n == 0 : n <= 1;
}

/* a's report tags no owner and the table says not to guess: a person
 * chooses (the screen asks; `tileport step RUN owner SEQ CLASS`). Routing
 * waits for the answer, or, with nobody to ask, the run stops. */
static bool owner_wanted(struct pipeline *p, struct attempt *a)
{
	struct run_state *st = &p->st;
	const struct stage_def *s = table_stage(p->table, a->stage);
	const struct owner_key *k = stage_owner_key(s, a->verdict);
	char *classes = strv_join(k->classes, ", ");
	char *why = xasprintf("%c%d returned %s without an owner tag ('%s:' in %s)", a->stage, a->n,
			      a->verdict, k->key, s->owner_file);
	cJSON *f = pl_attempt_fields(a);
	cJSON_AddStringToObject(f, "key", k->key);
	cJSON_AddStringToObject(f, "file", s->owner_file);
	cJSON_AddStringToObject(f, "classes", classes);
	if (p->ask) {
		st->status = RUN_WAITING;
		st->next.set = false;
		char *reason = xasprintf("%s: choose the owner (%s) or stop", why, classes);
		pl_set(&st->reason, reason);
		pl_save(p);
		pl_emit(p, "owner_wanted", f, "%s", reason);
		free(reason);
	} else {
		char *reason = xasprintf("%s; the table's missing_owner is stop: choose one with 'tileport step "
					 "%s owner %d CLASS --reason TEXT'", why, st->run_dir, a->seq);
		cJSON *fin = stop_save(p, a, reason);
		pl_emit(p, "owner_wanted", f, "%s; nobody to ask: the run stops", why);
		stop_log(p, a, "no owner tag, nobody to ask", NULL, fin);
		free(reason);
	}
	free(why);
	free(classes);
	return false;
}

/* a's driver refused and has no model: every route that runs it again
 * repeats the refusal (the owner question, a respawn of the stage), so
 * the run stops here, saying what would finish the job. */
static bool refusal_stop(struct pipeline *p, struct attempt *a)
{
	a->owner_unknown = false;
	char *reason = pl_refusal_reason(p, a);
	char *how = xasprintf("%s %s: %s", a->refused_by, str_starts(a->refusal, "FAIL [") ? "failed" : "refused",
			      a->refusal);
	cJSON *f = cJSON_CreateObject();
	cJSON_AddStringToObject(f, "refusal", a->refusal);
	cJSON_AddStringToObject(f, "refused_by", a->refused_by);
	pl_stop_attempt(p, a, how, reason, f);
	free(how);
	free(reason);
	return false;
}

/* What an offline run has shown, from its latest B: compiled and lowered
 * (B COMPILED), and the IR checked against cuTile Python's own (no
 * reference IR deferred). */
static char *offline_done(const struct run_state *st)
{
	const struct attempt *b = NULL;
	for (size_t i = 0; i < st->natt; i++)
		if (st->att[i].stage == 'B' && st->att[i].verdict)
			b = &st->att[i];
	if (!b || strcmp(b->verdict, "COMPILED") != 0)
		return xstrdup("offline work done");
	bool ref = true;
	for (size_t i = 0; b->deferred && b->deferred[i]; i++)
		ref &= strcmp(b->deferred[i], "reference-ir") != 0;
	return xstrdup(ref ? "offline work done: translated, type-checked, lowered, and its Tile IR "
			     "checked against cuTile Python's own"
			   : "offline work done: translated, type-checked and lowered (no reference IR "
			     "to check it against)");
}

bool pl_route(struct pipeline *p, struct attempt *a)
{
	struct run_state *st = &p->st;
	if (a->verdict && strcmp(a->verdict, "DEFERRED") == 0)
		a->counts = false; /* deferred work does not use up the cap */
	a->state = a->state == ATTEMPT_SKIPPED ? ATTEMPT_SKIPPED : ATTEMPT_DONE;
	if (a->refused_by && !(a->verdict && stage_is_success(table_stage(p->table, a->stage), a->verdict)) &&
	    !(a->verdict && !strcmp(a->verdict, "DEFERRED")))
		return refusal_stop(p, a);
	if (a->owner_unknown)
		return owner_wanted(p, a);
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
			reason = offline_done(st);
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
	char cls[96] = "";
	if (a->klass)
		snprintf(cls, sizeof(cls), " (%s%s)", a->klass, a->class_defaulted ? ", defaulted" : "");
	if (a->overruled) {
		/* say that the agent never returned the verdict routed on */
		size_t n = strlen(cls);
		snprintf(cls + n, sizeof(cls) - n, " [overruled: %s claimed]", a->claimed ? a->claimed : "?");
		cJSON_AddBoolToObject(f, "overruled", true);
	}
	cJSON *fin = final ? finish_state(p, final, reason) : NULL;
	pl_save(p); /* the attempt's result, the route and any end state at once */
	tp_crashpoint_at("routed");
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
