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
			char *msg = xasprintf("Verdict overridden to %s; routing goes on", c->verdict);
			done(v, rc, &err, msg);
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
			char *msg = xasprintf("Stage %c skipped; routing goes on", c->stage);
			done(v, rc, &err, msg);
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

enum request attempt_request(struct view *v, const struct attempt_target *t, enum request req)
{
	int id = request_view(req);
	if (id >= 0 && view_ops_table[id]->stages) {
		open_attempt_view(v, t, (enum view_id)id);
		return REQ_NONE;
	}
	switch (req) {
	case REQ_REVALIDATE:
	case REQ_RESPAWN:
	case REQ_OVERRIDE:
	case REQ_SKIP:
	case REQ_CONTINUE:
	case REQ_ABORT:
		break;
	default:
		return req;
	}
	struct pipeline *p = run_model_pipeline(t->m);
	if (!p) {
		view_error(v, "Read-only: %s", run_model_why_read_only(t->m));
		return REQ_NONE;
	}
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
		rc = pipeline_continue(p, &err);
		done(v, rc, &err, "Continuing");
		break;
	case REQ_ABORT:
		v->host->confirm(v->host, v, "Abort the run? The running stage is killed; "
				 "'tileport resume' continues later.", abort_confirmed, ctx_new(t));
		break;
	default:
		break;
	}
	return REQ_NONE;
}
