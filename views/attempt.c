#include "views/attempt.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* What an answer to a prompt acts on: the run is held until then. */
struct step_ctx {
	struct run_model *m;
	struct pipeline *p;
	char stage;
	int seq;
	char *verdict;
};

static struct step_ctx *ctx_new(const struct attempt_target *t)
{
	struct step_ctx *c = xcalloc(1, sizeof(*c));
	c->m = run_model_ref(t->m);
	c->p = run_model_pipeline(t->m);
	c->stage = t->stage;
	c->seq = t->seq;
	return c;
}

static void ctx_free(struct step_ctx *c)
{
	run_model_free(c->m);
	free(c->verdict);
	free(c);
}

static void done(struct view *v, int rc, const struct tp_err *err, const char *what)
{
	if (rc < 0)
		view_error(v, "%s", err->msg);
	else
		view_report(v, "%s", what);
	view_redraw(v);
}

/* An action that hands the run back to routing: the report says where it
 * went. Routing may have ended the run before the action returned, so
 * "routing goes on" would be wrong there and stay up for good (the
 * pipeline view clears a report once a stage or the run has ended since). */
static void done_routed(struct view *v, const struct step_ctx *c, int rc, const struct tp_err *err,
			const char *what)
{
	const struct run_state *st = pipeline_state(c->p);
	char *msg = st->final ? xasprintf("%s; the run ended %s", what, st->final)
			      : xasprintf("%s; routing goes on", what);
	done(v, rc, err, msg);
	free(msg);
}

/* ---- override: verdict, then reason ---- */

static void override_reason(struct view *v, const char *answer, void *ud)
{
	struct step_ctx *c = ud;
	if (v && answer) {
		if (!*answer) {
			view_error(v, "An override needs a reason: nothing changed");
		} else {
			struct tp_err err;
			int rc = pipeline_override(c->p, c->seq, c->verdict, answer, &err);
			char *msg = xasprintf("Verdict overridden to %s", c->verdict);
			done_routed(v, c, rc, &err, msg);
			free(msg);
		}
	}
	ctx_free(c);
}

/* Accept a verdict in any case, or a unique prefix of one. */
static const char *match_verdict(const struct stage_def *s, const char *answer)
{
	char up[64];
	size_t n = 0;
	for (; answer[n] && n < sizeof(up) - 1; n++)
		up[n] = (char)toupper((unsigned char)answer[n]);
	up[n] = '\0';
	const char *found = NULL;
	for (size_t i = 0; s->verdicts && s->verdicts[i]; i++) {
		if (!strcmp(s->verdicts[i], up))
			return s->verdicts[i];
		if (n && !strncmp(s->verdicts[i], up, n)) {
			if (found)
				return NULL;
			found = s->verdicts[i];
		}
	}
	return found;
}

static void override_verdict(struct view *v, const char *answer, void *ud)
{
	struct step_ctx *c = ud;
	if (!v || !answer || !*answer) {
		ctx_free(c);
		return;
	}
	const struct stage_def *s = table_stage(run_model_table(c->m), c->stage);
	const char *verdict = s ? match_verdict(s, answer) : NULL;
	if (!verdict) {
		view_error(v, "'%s' is not a verdict of stage %c", answer, c->stage);
		ctx_free(c);
		return;
	}
	c->verdict = xstrdup(verdict);
	const struct attempt *a = run_model_attempt(c->m, c->seq);
	char *label = xasprintf("Reason for %s %s -> %s: ", a ? a->dir : "?",
				a && a->verdict ? a->verdict : "(none)", verdict);
	v->host->prompt(v->host, v, label, override_reason, c);
	free(label);
}

static void start_override(struct view *v, const struct attempt_target *t)
{
	const struct attempt *a = run_model_attempt(t->m, t->seq);
	if (!a) {
		view_error(v, "Stage %c has no attempt to override", t->stage);
		return;
	}
	const struct stage_def *s = table_stage(run_model_table(t->m), t->stage);
	struct sbuf label = SBUF_INIT;
	sb_printf(&label, "Override %s (%s) with", a->dir, a->verdict ? a->verdict : "no verdict");
	for (size_t i = 0; s && s->verdicts && s->verdicts[i]; i++)
		sb_printf(&label, "%s%s", i ? "|" : " ", s->verdicts[i]);
	sb_adds(&label, ": ");
	v->host->prompt(v->host, v, sb_str(&label), override_verdict, ctx_new(t));
	sb_free(&label);
}

/* ---- a missing owner tag: the class, then the reason ---- */

static void owner_reason(struct view *v, const char *answer, void *ud)
{
	struct step_ctx *c = ud;
	if (v && answer && !*answer)
		view_error(v, "Choosing an owner needs a reason; press C to answer again");
	else if (v && answer) {
		struct tp_err err;
		int rc = pipeline_set_owner(c->p, c->seq, c->verdict, answer, &err);
		char *msg = xasprintf("Owner %s chosen", c->verdict);
		done_routed(v, c, rc, &err, msg);
		free(msg);
	} else if (v) {
		view_report(v, "The run waits for an owner class: press C to answer");
	}
	ctx_free(c);
}

static void owner_class(struct view *v, const char *answer, void *ud)
{
	struct step_ctx *c = ud;
	const struct attempt *a = run_model_attempt(c->m, c->seq);
	const struct stage_def *s = a ? table_stage(run_model_table(c->m), a->stage) : NULL;
	const struct owner_key *k = s && a->verdict ? stage_owner_key(s, a->verdict) : NULL;
	const char *klass = NULL;
	size_t n = answer ? strlen(answer) : 0;
	for (size_t i = 0; k && n && k->classes[i]; i++)
		if (!strncmp(k->classes[i], answer, n))
			klass = k->classes[i];
	if (n && !strncmp("stop", answer, n))
		klass = "stop";
	if (!v || !answer || !klass) {
		if (v && answer)
			view_error(v, "'%s' is no owner here; press C to answer again", answer);
		else if (v)
			view_report(v, "The run waits for an owner class: press C to answer");
		ctx_free(c);
		return;
	}
	c->verdict = xstrdup(klass);
	char *label = xasprintf("Reason for owner %s of %s: ", klass, a->dir);
	v->host->prompt(v->host, v, label, owner_reason, c);
	free(label);
}

void attempt_ask_owner(struct view *v, struct run_model *m)
{
	struct pipeline *p = run_model_pipeline(m);
	const struct attempt *a = p ? pipeline_owner_wanted(p) : NULL;
	if (!a)
		return;
	const struct stage_def *s = table_stage(run_model_table(m), a->stage);
	const struct owner_key *k = stage_owner_key(s, a->verdict);
	struct sbuf label = SBUF_INIT;
	sb_printf(&label, "%c%d %s has no '%s:' in %s. Owner", a->stage, a->n, a->verdict, k->key,
		  s->owner_file);
	for (size_t i = 0; k->classes[i]; i++)
		sb_printf(&label, "%s%s", i ? "|" : " ", k->classes[i]);
	sb_adds(&label, "|stop: ");
	struct attempt_target t = {.m = m, .stage = a->stage, .seq = a->seq};
	v->host->prompt(v->host, v, sb_str(&label), owner_class, ctx_new(&t));
	sb_free(&label);
}

/* ---- skip: reason ---- */

static void skip_reason(struct view *v, const char *answer, void *ud)
{
	struct step_ctx *c = ud;
	if (v && answer) {
		if (!*answer) {
			view_error(v, "A skip needs a reason: nothing changed");
		} else {
			struct tp_err err;
			int rc = pipeline_skip(c->p, c->stage, answer, &err);
			char *msg = xasprintf("Stage %c skipped", c->stage);
			done_routed(v, c, rc, &err, msg);
			free(msg);
		}
	}
	ctx_free(c);
}

/* ---- re-spawn past the cap, abort: confirmations ---- */

static void respawn_confirmed(struct view *v, const char *answer, void *ud)
{
	struct step_ctx *c = ud;
	if (v && answer) {
		struct tp_err err;
		int rc = pipeline_respawn(c->p, c->stage, true, &err);
		char *msg = xasprintf("Re-spawning %c beyond its cap", c->stage);
		done(v, rc, &err, msg);
		free(msg);
	} else if (v) {
		view_report(v, "Not re-spawned");
	}
	ctx_free(c);
}

static void abort_confirmed(struct view *v, const char *answer, void *ud)
{
	struct step_ctx *c = ud;
	if (v && answer) {
		struct tp_err err;
		int rc = pipeline_abort(c->p, &err);
		done(v, rc, &err, "Run aborted; 'tileport resume' continues it");
	} else if (v) {
		view_report(v, "Not aborted");
	}
	ctx_free(c);
}

static void respawn(struct view *v, const struct attempt_target *t, struct pipeline *p)
{
	const struct table *tb = run_model_table(t->m);
	const struct stage_def *s = table_stage(tb, t->stage);
	if (!s) {
		view_error(v, "No stage %c in the table", t->stage);
		return;
	}
	int n = run_count(run_model_state(t->m), t->stage);
	if (n >= s->cap) {
		char *q = xasprintf("Stage %c is at its cap (%d of %d). Spawn it beyond the cap?",
				    t->stage, n, s->cap);
		v->host->confirm(v->host, v, q, respawn_confirmed, ctx_new(t));
		free(q);
		return;
	}
	struct tp_err err;
	int rc = pipeline_respawn(p, t->stage, false, &err);
	char *msg = xasprintf("Re-spawning %c (run %d of %d)", t->stage, n + 1, s->cap);
	done(v, rc, &err, msg);
	free(msg);
}

/* "B", "B and C", "B, C and E" */
static void stage_list(const char *stages, char *buf, size_t n)
{
	size_t k = strlen(stages), at = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < k && at + 8 < n; i++)
		at += (size_t)snprintf(buf + at, n - at, "%s%c", i == 0 ? "" : i + 1 == k ? " and " : ", ",
				       stages[i]);
}

struct view *attempt_view_open(struct view *from, enum view_id id, struct run_model *m,
			       const struct attempt *a, unsigned flags)
{
	struct view_arg arg = {.run = m, .index = a->seq, .path = run_model_state(m)->run_dir};
	return from->host->open(from->host, from, id, &arg, flags);
}

/* view-NAME of a view made for some stages' attempts. */
static void open_attempt_view(struct view *v, const struct attempt_target *t, enum view_id id)
{
	const struct view_ops *ops = view_ops_table[id];
	if (!t->stage) {
		view_error(v, "Select a stage to see its %s", ops->noun);
		return;
	}
	if (!strchr(ops->stages, t->stage)) {
		char list[64];
		stage_list(ops->stages, list, sizeof(list));
		view_error(v, "The %s is shown from stage%s %s (this is stage %c)", ops->noun,
			   strlen(ops->stages) > 1 ? "s" : "", list, t->stage);
		return;
	}
	const struct attempt *a = t->seq ? run_model_attempt(t->m, t->seq) : NULL;
	if (!a) {
		view_error(v, "Stage %c has not run yet", t->stage);
		return;
	}
	attempt_view_open(v, id, t->m, a, 0);
}

static bool stepping(enum request req)
{
	return req == REQ_REVALIDATE || req == REQ_RESPAWN || req == REQ_OVERRIDE || req == REQ_SKIP ||
	       req == REQ_CONTINUE || req == REQ_ABORT;
}

/* Why req cannot apply to the run now, or NULL: what the key hints leave
 * out and what is refused before anything is asked. */
/* The run stopped on a refusal by a driver without a model: re-spawning,
 * continuing or overriding with the same driver repeats it. */
static const struct attempt *refused_end(const struct run_state *st)
{
	const struct attempt *last = st->natt ? &st->att[st->natt - 1] : NULL;
	return st->final && last && last->refused_by ? last : NULL;
}

static const char *refusal(const struct attempt_target *t, enum request req, char *buf, size_t n)
{
	struct pipeline *p = run_model_pipeline(t->m);
	const struct run_state *st = run_model_state(t->m);
	if (!p) {
		snprintf(buf, n, "Read-only: %s", run_model_why_read_only(t->m));
		return buf;
	}
	const struct attempt *r = refused_end(st);
	const char *spec = t->stage ? st->drivers[stage_slot(t->stage)] : NULL;
	if (r && (req == REQ_CONTINUE || req == REQ_SKIP ||
		  (req == REQ_RESPAWN && spec && !strcmp(spec, r->refused_by) && t->stage == r->stage))) {
		snprintf(buf, n, "%c%d was refused by %s (%s), which has no model: the same driver refuses the "
			 "same way. Give stage %c an agent driver: 'tileport run %s --fresh --driver %c=...'",
			 r->stage, r->n, r->refused_by, r->refusal ? r->refusal : "?", r->stage, st->op, r->stage);
		return buf;
	}
	bool ended = st->final != NULL;
	if (req == REQ_SKIP && ended) {
		snprintf(buf, n, "The run has ended (%s): no stage is pending to skip; re-spawn one (S) or "
			 "override a verdict (O) to go on", st->final);
		return buf;
	}
	if (req == REQ_ABORT && ended) {
		snprintf(buf, n, "The run has ended (%s): there is nothing to abort", st->final);
		return buf;
	}
	if (req == REQ_CONTINUE && ended && !pipeline_owner_wanted(p)) {
		snprintf(buf, n, "The run has ended (%s): re-spawn a stage (S) or override a verdict (O) to "
			 "go on", st->final);
		return buf;
	}
	return NULL;
}

bool attempt_offers(const struct attempt_target *t, enum request req)
{
	char buf[8];
	return !stepping(req) || !refusal(t, req, buf, sizeof(buf));
}

enum request attempt_request(struct view *v, const struct attempt_target *t, enum request req)
{
	int id = request_view(req);
	if (id >= 0 && view_ops_table[id]->stages) {
		open_attempt_view(v, t, (enum view_id)id);
		return REQ_NONE;
	}
	if (!stepping(req))
		return req;
	char why[1100];
	if (refusal(t, req, why, sizeof(why))) {
		view_error(v, "%s", why);
		return REQ_NONE;
	}
	struct pipeline *p = run_model_pipeline(t->m);
	if (!t->stage && req != REQ_CONTINUE && req != REQ_ABORT) {
		view_error(v, "Select a stage first");
		return REQ_NONE;
	}
	struct tp_err err;
	int rc;
	switch (req) {
	case REQ_REVALIDATE:
		if (!t->seq) {
			view_error(v, "Stage %c has no attempt to validate", t->stage);
			break;
		}
		rc = pipeline_revalidate(p, t->seq, &err);
		done(v, rc, &err, "Validator started; see the events and validator.txt");
		break;
	case REQ_RESPAWN:
		respawn(v, t, p);
		break;
	case REQ_OVERRIDE:
		start_override(v, t);
		break;
	case REQ_SKIP: {
		char *label = xasprintf("Reason to skip stage %c: ", t->stage);
		v->host->prompt(v->host, v, label, skip_reason, ctx_new(t));
		free(label);
		break;
	}
	case REQ_CONTINUE:
		if (pipeline_owner_wanted(p)) {
			attempt_ask_owner(v, t->m);
			break;
		}
		rc = pipeline_continue(p, &err);
		done(v, rc, &err, "Continuing");
		break;
	case REQ_ABORT:
		v->host->confirm(v->host, v, pipeline_running(p)
				 ? "Abort the run? The running stage is killed; 'tileport resume' continues later."
				 : "Abort the run? Nothing runs now; the run is marked aborted and 'tileport "
				   "resume' continues it.", abort_confirmed, ctx_new(t));
		break;
	default:
		break;
	}
	return REQ_NONE;
}

enum line_type outcome_line_type(enum run_outcome o)
{
	return o == OUTCOME_ACCEPTED ? LINE_STATE_OK : o == OUTCOME_NOT_ACCEPTED ? LINE_STATE_FAIL
		: o == OUTCOME_PENDING ? LINE_STATE_WARN : LINE_DIM;
}
