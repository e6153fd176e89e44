/* The runs view: every run in the output root (engine/core/run.h
 * runs_list), newest first: op, state (a dot when an orchestrator holds
 * it now), outcome (with its reason on wide screens), current stage,
 * attempts, age and directory. Enter opens the run's pipeline
 * view. The list is re-read every two seconds and on refresh, keeping the
 * cursor on the same run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/core/run.h"
#include "views/attempt.h"
#include "views/view.h"

#define RESCAN_MS 2000

struct runs {
	char *root;
	struct run_summary *v;
	size_t n;
	int64_t scanned, drawn_sec;
	char *error;
};

static enum line_type state_type(const struct run_summary *r)
{
	if (r->error)
		return LINE_STATE_WARN;
	if ((r->running && !r->final) || r->status == RUN_RUNNING)
		return LINE_STATE_RUNNING;
	if (r->status == RUN_COMPLETE || r->status == RUN_OFFLINE_COMPLETE)
		return LINE_STATE_OK;
	if (r->status == RUN_STOPPED || r->status == RUN_ABORTED)
		return LINE_STATE_FAIL;
	return LINE_STATE_WARN;
}


/* Column widths for the screen's width: the outcome's reason and the
 * attempt count only where there is room; the directory takes the rest. */
struct layout {
	int op, outcome;
	bool attempts;
};

static struct layout layout_for(const struct view *v)
{
	struct layout l = {16, 12, v->width >= 100};
	if (v->width >= 140) {
		/* the reason says why a run ended where it did: it gets what the
		 * other columns and 30 columns of the directory leave */
		int room = v->width - (24 + 19 + 5 + 8 + 5 + 6) - 30;
		l = (struct layout){24, room > 44 ? room : 44, true};
	}
	return l;
}

static void scan(struct view *v)
{
	struct runs *r = v->priv;
	char *keep = NULL;
	if (v->lineno < r->n)
		keep = xstrdup(r->v[v->lineno].run_dir);
	runs_free(r->v, r->n);
	r->v = NULL;
	r->n = 0;
	free(r->error);
	r->error = NULL;
	struct tp_err err;
	if (runs_list(r->root, &r->v, &r->n, &err) < 0)
		r->error = xstrdup(err.msg);
	r->scanned = now_ms();
	size_t n = r->n ? r->n : 1; /* one line says there are none */
	view_set_lines(v, n);
	view_redraw(v);
	for (size_t i = 0; keep && i < r->n; i++) {
		if (!strcmp(r->v[i].run_dir, keep)) {
			view_select(v, i);
			break;
		}
	}
	free(keep);
}

static int runs_open(struct view *v, const struct view_arg *arg, struct tp_err *err)
{
	struct runs *r = v->priv;
	if (!arg->path) {
		tp_err_set(err, TP_EXIT_USAGE, "runs view: no output root");
		return -1;
	}
	r->root = xstrdup(arg->path);
	v->ref = xstrdup(arg->path);
	v->ticking = true;
	scan(v);
	return 0;
}

static bool runs_header(struct view *v, struct line_out *out)
{
	struct layout l = layout_for(v);
	lo_reset(out, LINE_HEADER);
	lo_col(out, LINE_HEADER, l.op, ALIGN_LEFT, "OP");
	lo_col(out, LINE_HEADER, 19, ALIGN_LEFT, "STATE");
	lo_col(out, LINE_HEADER, l.outcome, ALIGN_LEFT, "OUTCOME");
	lo_col(out, LINE_HEADER, 5, ALIGN_LEFT, "STAGE");
	if (l.attempts)
		lo_col(out, LINE_HEADER, 8, ALIGN_RIGHT, "ATTEMPTS");
	lo_col(out, LINE_HEADER, 5, ALIGN_RIGHT, "AGE");
	lo_adds(out, LINE_HEADER, "DIRECTORY");
	return true;
}

static void runs_line(struct view *v, size_t idx, struct line_out *out)
{
	struct runs *r = v->priv;
	if (!r->n) {
		lo_reset(out, LINE_EMPTY);
		if (r->error)
			lo_adds(out, LINE_STATUS_ERROR, r->error);
		else
			lo_addf(out, LINE_EMPTY, "No runs in %s yet: start one with 'tileport run OP'",
				r->root);
		return;
	}
	const struct run_summary *s = &r->v[idx];
	struct layout l = layout_for(v);
	lo_reset(out, LINE_DEFAULT);
	lo_col(out, LINE_DEFAULT, l.op, ALIGN_LEFT, s->op);
	char state[64];
	/* the dot: an orchestrator drives it now (a finished run held by a
	 * screen that looks at it is not live) */
	snprintf(state, sizeof(state), "%s%s", s->running && !s->final ? "\xe2\x97\x8f " : "",
		 run_summary_state(s));
	lo_col(out, state_type(s), 19, ALIGN_LEFT, state);
	char *outcome = xasprintf("%s%s%s", run_outcome_words(s->outcome),
				  l.outcome > 12 && s->outcome_reason ? ": " : "",
				  l.outcome > 12 && s->outcome_reason ? s->outcome_reason : "");
	lo_col(out, outcome_line_type(s->outcome), l.outcome, ALIGN_LEFT, outcome);
	free(outcome);
	char stage[4] = {s->stage ? s->stage : '-', 0};
	lo_col(out, LINE_LABEL, 5, ALIGN_LEFT, stage);
	if (l.attempts) {
		char att[16];
		snprintf(att, sizeof(att), "%d", s->attempts);
		lo_col(out, LINE_DEFAULT, 8, ALIGN_RIGHT, att);
	}
	char age[16];
	fmt_age(view_now_ms() - s->updated, age, sizeof(age));
	lo_col(out, LINE_DIM, 5, ALIGN_RIGHT, age);
	int rest = v->width - (l.op + 19 + l.outcome + 5 + (l.attempts ? 8 : 0) + 5 + 6);
	lo_cell(out, LINE_DIM, rest > 8 ? rest : 8, ALIGN_TAIL, s->run_dir);
}

static enum request runs_request(struct view *v, enum request req)
{
	struct runs *r = v->priv;
	switch (req) {
	case REQ_ENTER:
	case REQ_VIEW_PIPELINE:
		if (v->lineno < r->n) {
			struct view_arg arg = {.path = r->v[v->lineno].run_dir, .name = r->v[v->lineno].op};
			v->host->open(v->host, v, VIEW_PIPELINE, &arg, 0);
		} else {
			view_error(v, "No run selected");
		}
		return REQ_NONE;
	case REQ_REFRESH:
		scan(v);
		return REQ_NONE;
	default:
		return req;
	}
}

static void runs_tick(struct view *v)
{
	struct runs *r = v->priv;
	if (now_ms() - r->scanned >= RESCAN_MS)
		scan(v);
	else if (view_now_ms() / 1000 != r->drawn_sec)
		view_redraw(v); /* ages move */
	r->drawn_sec = view_now_ms() / 1000;
}

static void runs_title(struct view *v, struct sbuf *out)
{
	struct runs *r = v->priv;
	size_t live = 0;
	for (size_t i = 0; i < r->n; i++)
		live += r->v[i].running && !r->v[i].final;
	sb_printf(out, "%zu run%s", r->n, r->n == 1 ? "" : "s");
	if (live)
		sb_printf(out, ", %zu live", live);
}

static void runs_done(struct view *v)
{
	struct runs *r = v->priv;
	runs_free(r->v, r->n);
	free(r->root);
	free(r->error);
}

const struct view_ops runs_view_ops = {
	.type = "runs",
	.private_size = sizeof(struct runs),
	.open = runs_open,
	.line = runs_line,
	.request = runs_request,
	.header = runs_header,
	.title = runs_title,
	.tick = runs_tick,
	.done = runs_done,
};
