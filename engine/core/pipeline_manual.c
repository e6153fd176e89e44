/* Actions a person takes on a run (docs/pipeline.md, "Manual actions"):
 * continue, abort, override a verdict with a reason, skip a stage, re-spawn
 * a stage (beyond its cap only when confirmed), re-validate. Each one is
 * recorded in events.jsonl as a manual event, then the run goes on through
 * the same routing as everything else. */
#include "engine/core/pipeline_int.h"

#include <stdlib.h>
#include <string.h>

static int busy_refusal(struct pipeline *p, const char *what, struct tp_err *err)
{
	if (!p->proc && !p->vproc)
		return 0;
	struct attempt *a = p->proc ? pl_cur(p) : run_attempt_by_seq(&p->st, p->vseq);
	tp_err_set(err, TP_EXIT_USAGE, "cannot %s while %c%d is running; abort it first", what,
		   a ? a->stage : '?', a ? a->n : 0);
	return -1;
}

int pipeline_continue(struct pipeline *p, struct tp_err *err)
{
	if (busy_refusal(p, "continue", err) < 0)
		return -1;
	struct run_state *st = &p->st;
	if (st->final) {
		tp_err_set(err, TP_EXIT_USAGE, "the run has ended (%s); override a verdict or re-spawn a "
					       "stage to go on", st->final);
		return -1;
	}
	const struct attempt *w = pipeline_owner_wanted(p);
	if (w) {
		tp_err_set(err, TP_EXIT_USAGE, "%s waits for its owner class to be chosen first", w->dir);
		return -1;
	}
	int pending = p->rerun_seq ? p->rerun_seq : p->rejudge_seq;
	if (!pending && !p->reroute && !st->next.set) {
		tp_err_set(err, TP_EXIT_USAGE, "nothing to continue: no stage is pending");
		return -1;
	}
	p->go_once = true;
	st->status = RUN_RUNNING;
	pl_save(p);
	const struct attempt *last = run_last_attempt(st);
	char l[2] = {pending ? run_attempt_by_seq(st, pending)->stage
		     : st->next.set ? st->next.stage : last ? last->stage : '?', 0};
	cJSON *f = cJSON_CreateObject();
	cJSON_AddStringToObject(f, "stage", l);
	pl_emit(p, "manual_continue", f, "continue by hand: %s next", l);
	p->started = true;
	pl_schedule(p);
	return pl_outcome(p, err);
}

int pipeline_abort(struct pipeline *p, struct tp_err *err)
{
	if (p->proc || p->vproc) {
		/* The attempt stays "running" in state.json: resume runs it again. */
		p->aborting = true;
		struct attempt *a = p->proc ? pl_cur(p) : run_attempt_by_seq(&p->st, p->vseq);
		pl_emit(p, "manual_abort", pl_attempt_fields(a), "abort by hand: stopping %c%d%s", a->stage,
			a->n, p->proc ? "" : "'s validator");
		proc_kill(p->proc ? p->proc : p->vproc);
		return pl_outcome(p, err);
	}
	if (p->st.final) {
		/* an ended run keeps its end and its reason */
		tp_err_set(err, TP_EXIT_USAGE, "the run has ended (%s): there is nothing to abort",
			   p->st.final);
		return -1;
	}
	if (p->step_timer) {
		loop_cancel_timer(p->loop, p->step_timer);
		p->step_timer = 0;
	}
	p->st.status = RUN_ABORTED;
	pl_set(&p->st.reason, "aborted by hand");
	pl_save(p);
	pl_emit(p, "manual_abort", NULL, "abort by hand");
	pl_emit(p, "run_aborted", NULL, "run aborted");
	return pl_outcome(p, err);
}

int pipeline_override(struct pipeline *p, int seq, const char *verdict, const char *reason,
		      struct tp_err *err)
{
	if (busy_refusal(p, "override a verdict", err) < 0)
		return -1;
	struct run_state *st = &p->st;
	struct attempt *a = run_attempt_by_seq(st, seq);
	struct attempt *last = run_last_attempt(st);
	if (!a || a->state == ATTEMPT_RUNNING) {
		tp_err_set(err, TP_EXIT_USAGE, "attempt %d has no verdict to override", seq);
		return -1;
	}
	if (a != last) {
		tp_err_set(err, TP_EXIT_USAGE, "only the latest attempt (%d, %s) can be overridden: routing "
					       "went on from there", last->seq, last->dir);
		return -1;
	}
	const struct stage_def *s = table_stage(p->table, a->stage);
	if (!verdict || !stage_has_verdict(s, verdict, st->offline)) {
		tp_err_set(err, TP_EXIT_USAGE, "'%s' is not a verdict of stage %c", verdict ? verdict : "",
			   a->stage);
		return -1;
	}
	if (!reason || !*reason) {
		tp_err_set(err, TP_EXIT_USAGE, "an override needs a reason");
		return -1;
	}
	char *from = a->verdict ? xstrdup(a->verdict) : xstrdup("(none)");
	pl_set(&a->verdict, verdict);
	a->overruled = false; /* a person chose this verdict */
	if (p->rejudge_seq == a->seq)
		p->rejudge_seq = 0; /* the saved reply is decided by hand instead */
	char *note = xasprintf("verdict overridden by hand (%s -> %s): %s", from, verdict, reason);
	pl_set(&a->note, note);
	free(note);
	a->counts = !a->repair && a->state != ATTEMPT_SKIPPED;
	cJSON *f = pl_attempt_fields(a);
	cJSON_AddStringToObject(f, "from", from);
	cJSON_AddStringToObject(f, "to", verdict);
	cJSON_AddStringToObject(f, "reason", reason);
	pl_reopen(p);
	pl_emit(p, "manual_override", f, "override by hand: %c%d %s -> %s (%s)", a->stage, a->n, from,
		verdict, reason);
	free(from);
	p->started = true;
	pl_classify(p, a);
	if (pl_route(p, a))
		pl_schedule(p);
	return pl_outcome(p, err);
}

int pipeline_skip(struct pipeline *p, char stage, const char *reason, struct tp_err *err)
{
	if (busy_refusal(p, "skip a stage", err) < 0)
		return -1;
	struct run_state *st = &p->st;
	struct attempt *pending = p->rerun_seq ? run_attempt_by_seq(st, p->rerun_seq) : NULL;
	char next = pending ? pending->stage : st->next.set ? st->next.stage : 0;
	if (!next || next != stage) {
		if (next)
			tp_err_set(err, TP_EXIT_USAGE, "stage %c is not pending (the next stage is %c)", stage, next);
		else
			tp_err_set(err, TP_EXIT_USAGE, "no stage is pending; nothing to skip");
		return -1;
	}
	if (!reason || !*reason) {
		tp_err_set(err, TP_EXIT_USAGE, "a skip needs a reason");
		return -1;
	}
	const struct stage_def *s = table_stage(p->table, stage);
	struct attempt *a = pending;
	if (!a)
		a = pl_new_attempt(p);
	p->rerun_seq = 0;
	a->state = ATTEMPT_SKIPPED;
	a->counts = false;
	a->manual = true;
	a->started = a->ended = wall_ms();
	pl_set(&a->verdict, s->success[0]);
	a->gate = GATE_SKIPPED;
	char *note = xasprintf("skipped by hand: %s", reason);
	pl_set(&a->note, note);
	free(note);
	cJSON *f = pl_attempt_fields(a);
	cJSON_AddStringToObject(f, "reason", reason);
	st->status = RUN_RUNNING;
	pl_emit(p, "manual_skip", f, "skip by hand: %c%d routed as %s (%s)", a->stage, a->n, a->verdict,
		reason);
	p->started = true;
	pl_classify(p, a);
	if (pl_route(p, a))
		pl_schedule(p);
	return pl_outcome(p, err);
}

int pipeline_respawn(struct pipeline *p, char stage, bool beyond_cap, struct tp_err *err)
{
	if (busy_refusal(p, "re-spawn a stage", err) < 0)
		return -1;
	const struct stage_def *s = table_stage(p->table, stage);
	if (!s) {
		tp_err_set(err, TP_EXIT_USAGE, "no stage %c in the table", stage);
		return -1;
	}
	/* The stage's driver refused it and has no model: the same driver again
	 * is the same refusal. A driver given since (resume/step --driver, the
	 * user config's driver.X) is another matter. */
	const struct attempt *last = run_latest_attempt(&p->st, stage);
	const char *spec = p->st.drivers[stage_slot(stage)];
	if (last && last->refused_by && spec && !strcmp(spec, last->refused_by)) {
		tp_err_set(err, TP_EXIT_USAGE, "%c%d was refused by %s (%s), which has no model: a re-spawn "
					       "with it refuses the same way; give stage %c another driver first "
					       "('driver.%c = ...' in the user config), or start afresh with one: "
					       "'tileport run %s --fresh --driver %c=...'", stage, last->n,
			   last->refused_by, last->refusal ? last->refusal : "?", stage, stage, p->st.op, stage);
		return -1;
	}
	int n = run_count(&p->st, stage);
	if (n >= s->cap && !beyond_cap) {
		tp_err_set(err, TP_EXIT_USAGE, "stage %c is at its cap (%d of %d): spawning it again goes "
					       "beyond the cap, which must be asked for (step respawn %c "
					       "--beyond-cap; on the screen, S asks)", stage, n, s->cap, stage);
		return -1;
	}
	pl_reopen(p);
	p->rerun_seq = 0;
	p->rejudge_seq = 0;
	p->st.next = (struct run_next){.set = true, .stage = stage, .manual = true, .beyond_cap = n >= s->cap};
	pl_save(p);
	char l[2] = {stage, 0};
	cJSON *f = cJSON_CreateObject();
	cJSON_AddStringToObject(f, "stage", l);
	cJSON_AddBoolToObject(f, "beyond_cap", n >= s->cap);
	pl_emit(p, "manual_respawn", f, "re-spawn by hand: %c (run %d of cap %d%s)", stage, n + 1, s->cap,
		n >= s->cap ? ", beyond the cap" : "");
	p->go_once = true;
	p->started = true;
	pl_schedule(p);
	return pl_outcome(p, err);
}

int pipeline_revalidate(struct pipeline *p, int seq, struct tp_err *err)
{
	if (busy_refusal(p, "re-validate", err) < 0)
		return -1;
	struct attempt *a = run_attempt_by_seq(&p->st, seq);
	if (!a || a->state == ATTEMPT_SKIPPED) {
		tp_err_set(err, TP_EXIT_USAGE, "attempt %d cannot be re-validated", seq);
		return -1;
	}
	pl_validate(p, a, true);
	return pl_outcome(p, err);
}

const struct attempt *pipeline_owner_wanted(const struct pipeline *p)
{
	const struct run_state *st = &p->st;
	const struct attempt *a = st->natt ? &st->att[st->natt - 1] : NULL;
	return a && a->owner_unknown && !p->proc && !p->vproc ? a : NULL;
}

int pipeline_set_owner(struct pipeline *p, int seq, const char *klass, const char *reason,
		       struct tp_err *err)
{
	if (busy_refusal(p, "choose an owner", err) < 0)
		return -1;
	struct run_state *st = &p->st;
	struct attempt *a = run_attempt_by_seq(st, seq);
	if (!a || a != run_last_attempt(st) || !a->owner_unknown) {
		tp_err_set(err, TP_EXIT_USAGE, "attempt %d does not wait for an owner class (only the latest "
					       "attempt whose report tagged none does)", seq);
		return -1;
	}
	const struct stage_def *s = table_stage(p->table, a->stage);
	const struct owner_key *k = stage_owner_key(s, a->verdict);
	bool known = klass && !strcmp(klass, "stop");
	for (size_t i = 0; k && klass && k->classes[i]; i++)
		known |= !strcmp(k->classes[i], klass);
	if (!known) {
		char *classes = k ? strv_join(k->classes, ", ") : xstrdup("");
		tp_err_set(err, TP_EXIT_USAGE, "'%s' is not an owner of %c's %s: choose %s or stop",
			   klass ? klass : "", a->stage, a->verdict, classes);
		free(classes);
		return -1;
	}
	if (!reason || !*reason) {
		tp_err_set(err, TP_EXIT_USAGE, "choosing an owner needs a reason");
		return -1;
	}
	char *note = xasprintf("owner chosen by hand: %s (%s)", klass, reason);
	pl_set(&a->note, note);
	free(note);
	cJSON *f = pl_attempt_fields(a);
	cJSON_AddStringToObject(f, "class", klass);
	cJSON_AddStringToObject(f, "reason", reason);
	pl_reopen(p);
	p->started = true;
	pl_emit(p, "manual_owner", f, "owner chosen by hand: %c%d %s -> %s (%s)", a->stage, a->n,
		a->verdict, klass, reason);
	a->owner_unknown = false;
	if (!strcmp(klass, "stop")) {
		pl_set(&a->action, "STOP");
		char *why = xasprintf("stopped by hand for want of an owner: %s", reason);
		pl_finish(p, "STOP", why);
		free(why);
		return 0;
	}
	pl_set(&a->klass, klass);
	if (pl_route(p, a))
		pl_schedule(p);
	return 0;
}
