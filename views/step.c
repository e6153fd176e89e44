#include "views/step.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

struct step_ctx {
	struct pipeline *p;
	char stage;
	int seq;
	char *verdict;
};

static struct step_ctx *ctx_new(const struct step_target *t)
{
	struct step_ctx *c = xcalloc(1, sizeof(*c));
	c->p = t->p;
	c->stage = t->stage;
	c->seq = t->seq;
	return c;
}

static void ctx_free(struct step_ctx *c)
{
	free(c->verdict);
	free(c);
}

static const struct attempt *attempt_of(struct pipeline *p, int seq)
{
	const struct run_state *st = pipeline_state(p);
	for (size_t i = 0; i < st->natt; i++)
		if (st->att[i].seq == seq)
			return &st->att[i];
	return NULL;
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
	const struct stage_def *s = table_stage(pipeline_table(c->p), c->stage);
	const char *verdict = s ? match_verdict(s, answer) : NULL;
	if (!verdict) {
		view_error(v, "'%s' is not a verdict of stage %c", answer, c->stage);
		ctx_free(c);
		return;
	}
	c->verdict = xstrdup(verdict);
	const struct attempt *a = attempt_of(c->p, c->seq);
	char *label = xasprintf("Reason for %s %s -> %s: ", a ? a->dir : "?",
				a && a->verdict ? a->verdict : "(none)", verdict);
	v->host->prompt(v->host, v, label, override_reason, c);
	free(label);
}

static void start_override(struct view *v, const struct step_target *t)
{
	const struct attempt *a = attempt_of(t->p, t->seq);
	if (!a) {
		view_error(v, "Stage %c has no attempt to override", t->stage);
		return;
	}
	const struct stage_def *s = table_stage(pipeline_table(t->p), t->stage);
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

static void respawn(struct view *v, const struct step_target *t)
{
	const struct table *tb = pipeline_table(t->p);
	const struct stage_def *s = table_stage(tb, t->stage);
	if (!s) {
		view_error(v, "No stage %c in the table", t->stage);
		return;
	}
	int n = run_count(pipeline_state(t->p), t->stage);
	if (n >= s->cap) {
		char *q = xasprintf("Stage %c is at its cap (%d of %d). Spawn it beyond the cap?",
				    t->stage, n, s->cap);
		v->host->confirm(v->host, v, q, respawn_confirmed, ctx_new(t));
		free(q);
		return;
	}
	struct tp_err err;
	int rc = pipeline_respawn(t->p, t->stage, false, &err);
	char *msg = xasprintf("Re-spawning %c (run %d of %d)", t->stage, n + 1, s->cap);
	done(v, rc, &err, msg);
	free(msg);
}

enum request step_request(struct view *v, const struct step_target *t, enum request req)
{
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
	if (!t->p) {
		view_error(v, "Read-only: %s", t->why_readonly ? t->why_readonly : "no live pipeline");
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
		rc = pipeline_revalidate(t->p, t->seq, &err);
		done(v, rc, &err, "Validator run again; see the events and validator.txt");
		break;
	case REQ_RESPAWN:
		respawn(v, t);
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
		rc = pipeline_continue(t->p, &err);
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
