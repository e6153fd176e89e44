/* The batch view: one row per operator of a batch (state with a spinner
 * while it runs, current stage, attempts per stage, verdict, geomean,
 * tokens, node, elapsed), updating live, and below them what is known of
 * the selected one (its run, its job, why it ended, its last event).
 * Enter opens the run's pipeline view, R resumes the selected run (a
 * stopped one starts afresh, after a question), x cancels it.
 *
 * The model is an engine batch (engine/batch/batch.h) that the command
 * opened and follows on the shared loop; the view only reads it and sends
 * it requests. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/batch/batch.h"
#include "views/view.h"

#define DETAIL_LINES 6 /* the section title and five fields */

struct bv {
	struct batch *b;
	size_t cur; /* the op the details and actions are about */
};

static size_t nops(const struct bv *bv)
{
	return batch_record(bv->b)->nops;
}

static void set_lines(struct view *v)
{
	struct bv *bv = v->priv;
	view_set_lines(v, nops(bv) + DETAIL_LINES);
	view_redraw(v);
}

static void on_change(struct batch *b, size_t op, const char *msg, void *ud)
{
	(void)b, (void)op, (void)msg;
	set_lines(ud);
}

static int bv_open(struct view *v, const struct view_arg *arg, struct tp_err *err)
{
	struct bv *bv = v->priv;
	if (!arg->model) {
		tp_err_set(err, TP_EXIT_USAGE, "batch view: no batch given");
		return -1;
	}
	bv->b = arg->model;
	batch_listen(bv->b, on_change, v);
	v->ref = xstrdup(batch_record(bv->b)->name);
	v->ticking = true;
	set_lines(v);
	return 0;
}

/* ---- columns ---- */

struct widths {
	int op, state, stage, att, verdict, geo, tok, node, el;
};

static struct widths widths(const struct view *v)
{
	if (v->width >= 140)
		return (struct widths){24, 11, 5, 14, 17, 7, 7, 16, 7};
	if (v->width >= 110)
		return (struct widths){18, 11, 5, 14, 17, 7, 7, 12, 7};
	return (struct widths){12, 11, 5, 11, 11, 7, 6, 0, 7};
}

static bool bv_header(struct view *v, struct line_out *out)
{
	struct widths w = widths(v);
	lo_reset(out, LINE_HEADER);
	lo_adds(out, LINE_HEADER, "  ");
	lo_col(out, LINE_HEADER, w.op, ALIGN_LEFT, "OP");
	lo_col(out, LINE_HEADER, w.state, ALIGN_LEFT, "STATE");
	lo_col(out, LINE_HEADER, w.stage, ALIGN_LEFT, "STAGE");
	lo_col(out, LINE_HEADER, w.att, ALIGN_LEFT, "ATTEMPTS");
	lo_col(out, LINE_HEADER, w.verdict, ALIGN_LEFT, "VERDICT");
	lo_col(out, LINE_HEADER, w.geo, ALIGN_RIGHT, "GEOMEAN");
	lo_col(out, LINE_HEADER, w.tok, ALIGN_RIGHT, "TOKENS");
	if (w.node)
		lo_col(out, LINE_HEADER, w.node, ALIGN_LEFT, "NODE");
	lo_cell(out, LINE_HEADER, w.el, ALIGN_RIGHT, "ELAPSED");
	return true;
}

/* The words and colour of a state in a row (offline_complete is long). */
static const char *state_word(enum batch_state s)
{
	return s == BST_OFFLINE ? "offline" : batch_state_name(s);
}

/* A run that ended PIPELINE_COMPLETE without being accepted (its output
 * contract failed, E did not say DONE ...) converted nothing: a warning,
 * not a tick. */
static bool complete_unaccepted(const struct batch_op *o, const struct batch_progress *p)
{
	return o->state == BST_COMPLETE && !batch_op_converted(o, p);
}

static enum line_type state_type(const struct batch_op *o, const struct batch_progress *p)
{
	if (complete_unaccepted(o, p))
		return LINE_STATE_WARN;
	switch (o->state) {
	case BST_RUNNING:
		return LINE_STATE_RUNNING;
	case BST_COMPLETE:
		return LINE_STATE_OK;
	case BST_OFFLINE:
	case BST_INTERRUPTED:
	case BST_QUEUED:
		return LINE_STATE_WARN;
	case BST_STOPPED:
	case BST_FAILED:
		return LINE_STATE_FAIL;
	case BST_CANCELLED:
		return LINE_STATE_SKIPPED;
	default:
		return LINE_STATE_PENDING;
	}
}

static const char *glyph(const struct batch_op *o, const struct batch_progress *p)
{
	if (complete_unaccepted(o, p))
		return "!";
	switch (o->state) {
	case BST_RUNNING:
		/* from the (possibly frozen) clock, so a still screen stays still */
		return view_spinner((uint64_t)view_now_ms() / 100);
	case BST_COMPLETE:
	case BST_OFFLINE:
		return "\xe2\x9c\x93";
	case BST_STOPPED:
	case BST_FAILED:
		return "\xe2\x9c\x97";
	case BST_INTERRUPTED:
		return "!";
	case BST_CANCELLED:
		return "\xe2\x86\xb7";
	case BST_QUEUED:
		return "\xe2\x96\xb8";
	default:
		return "\xc2\xb7";
	}
}

/* A verdict is coloured by how its run ended: its success verdicts are
 * the table's, which the run knows and the batch does not. */
static enum line_type verdict_type(const struct batch_op *o, const struct batch_progress *p,
				    const char *verdict)
{
	enum batch_state s = o->state;
	if (!verdict)
		return LINE_DIM;
	if (complete_unaccepted(o, p))
		return LINE_DEFAULT;
	return s == BST_COMPLETE || s == BST_OFFLINE ? LINE_VERDICT_OK
	       : s == BST_STOPPED || s == BST_FAILED ? LINE_VERDICT_FAIL
						     : LINE_DEFAULT;
}

static void op_row(struct view *v, size_t i, struct line_out *out)
{
	struct bv *bv = v->priv;
	const struct batch_op *o = &batch_record(bv->b)->ops[i];
	const struct batch_progress *p = batch_progress(bv->b, i);
	struct widths w = widths(v);
	enum line_type st = state_type(o, p);
	char buf[32];
	lo_reset(out, LINE_DEFAULT);
	const char *g = glyph(o, p);
	lo_add(out, st, g, strlen(g));
	lo_adds(out, LINE_DEFAULT, " ");
	lo_col(out, LINE_LABEL, w.op, ALIGN_LEFT, o->op);
	lo_col(out, st, w.state, ALIGN_LEFT, state_word(o->state));
	char stage[2] = {p->stage ? p->stage : '-', 0};
	lo_col(out, LINE_DEFAULT, w.stage, ALIGN_LEFT, stage);
	lo_col(out, LINE_DEFAULT, w.att, ALIGN_LEFT, p->attempts && *p->attempts ? p->attempts : "-");
	lo_col(out, verdict_type(o, p, p->verdict), w.verdict, ALIGN_LEFT, p->verdict ? p->verdict : "-");
	if (isnan(p->geomean))
		snprintf(buf, sizeof(buf), "-");
	else
		snprintf(buf, sizeof(buf), "%.4f", p->geomean);
	lo_col(out, LINE_DEFAULT, w.geo, ALIGN_RIGHT, buf);
	long long tok = p->tokens_in + p->tokens_out;
	if (tok)
		fmt_count(tok, buf, sizeof(buf));
	else
		snprintf(buf, sizeof(buf), "-");
	lo_col(out, LINE_COST, w.tok, ALIGN_RIGHT, buf);
	if (w.node)
		lo_col(out, LINE_DIM, w.node, ALIGN_LEFT, o->node ? o->node : "-");
	int64_t el = batch_progress_elapsed(p, view_now_ms());
	if (el > 0)
		fmt_elapsed(el, buf, sizeof(buf));
	else
		snprintf(buf, sizeof(buf), "-");
	lo_cell(out, LINE_DIM, w.el, ALIGN_RIGHT, buf);
}

static void field(struct line_out *out, const char *label, enum line_type t, const char *value)
{
	lo_reset(out, LINE_DEFAULT);
	lo_col(out, LINE_LABEL, 8, ALIGN_LEFT, label);
	lo_adds(out, t, value && *value ? value : "-");
}

static void detail(struct view *v, size_t k, struct line_out *out)
{
	struct bv *bv = v->priv;
	const struct batch_record *r = batch_record(bv->b);
	if (!r->nops) {
		lo_reset(out, LINE_EMPTY);
		return;
	}
	const struct batch_op *o = &r->ops[bv->cur];
	const struct batch_progress *p = batch_progress(bv->b, bv->cur);
	char buf[512];
	switch (k) {
	case 0:
		lo_reset(out, LINE_SECTION);
		lo_addf(out, LINE_SECTION, "%s", o->op);
		if (batch_problem(bv->b))
			lo_addf(out, LINE_STATUS_ERROR, "  (%s)", batch_problem(bv->b));
		break;
	case 1:
		field(out, "run", LINE_DIM, o->run_dir);
		break;
	case 2:
		if (o->job)
			snprintf(buf, sizeof(buf), "%s%s%s, started %d time%s", o->job, o->node ? " on " : "",
				 o->node ? o->node : "", o->starts, o->starts == 1 ? "" : "s");
		field(out, "job", LINE_DEFAULT, o->job ? buf : "not started");
		break;
	case 3:
		if (p->final && batch_ended_text(o, p, buf, sizeof(buf)))
			field(out, "ended", state_type(o, p), buf);
		else
			field(out, "ended", LINE_DIM, o->why);
		break;
	case 4:
		field(out, "last", LINE_DIM, p->error ? p->error : p->last_event);
		break;
	default:
		lo_reset(out, LINE_DIM);
		lo_addf(out, LINE_DIM, "%s executor, %d at once.  Enter: pipeline view  R: resume  x: cancel",
			batch_executor_name(r->executor), r->jobs);
		break;
	}
}

static void bv_line(struct view *v, size_t idx, struct line_out *out)
{
	struct bv *bv = v->priv;
	if (idx < nops(bv))
		op_row(v, idx, out);
	else
		detail(v, idx - nops(bv), out);
}

static void bv_select(struct view *v)
{
	struct bv *bv = v->priv;
	if (v->lineno < nops(bv) && v->lineno != bv->cur) {
		bv->cur = v->lineno;
		for (size_t k = 0; k < DETAIL_LINES; k++)
			view_line_dirty(v, nops(bv) + k);
	}
}

/* ---- actions ---- */

static void after(struct view *v, int rc, const struct tp_err *err, const char *what)
{
	if (rc < 0)
		view_error(v, "%s", err->msg);
	else
		view_report(v, "%s", what);
	set_lines(v);
}

static void resume_confirmed(struct view *v, const char *answer, void *ud)
{
	(void)ud;
	if (!v || !answer)
		return;
	struct bv *bv = v->priv;
	struct tp_err err;
	int rc = batch_resume_op(bv->b, bv->cur, &err);
	char *msg = xasprintf("%s: started again", batch_record(bv->b)->ops[bv->cur].op);
	after(v, rc, &err, msg);
	free(msg);
}

static void cancel_confirmed(struct view *v, const char *answer, void *ud)
{
	(void)ud;
	if (!v || !answer)
		return;
	struct bv *bv = v->priv;
	const char *op = batch_record(bv->b)->ops[bv->cur].op;
	char *ops[] = {(char *)op, NULL};
	struct tp_err err;
	char *msg = xasprintf("%s: cancelled; R resumes it", op);
	int rc = batch_cancel(bv->b, ops, &err);
	after(v, rc, &err, msg);
	free(msg);
}

static size_t going(const struct bv *bv)
{
	size_t n = 0;
	for (size_t i = 0; i < nops(bv); i++)
		n += batch_state_active(batch_record(bv->b)->ops[i].state);
	return n;
}

static enum request bv_request(struct view *v, enum request req)
{
	struct bv *bv = v->priv;
	const struct batch_record *r = batch_record(bv->b);
	const struct batch_op *o = r->nops ? &r->ops[bv->cur] : NULL;
	switch (req) {
	case REQ_ENTER:
	case REQ_VIEW_PIPELINE:
		if (!o || !batch_progress(bv->b, bv->cur)->exists) {
			view_error(v, "%s has no run yet", o ? o->op : "nothing");
			return REQ_NONE;
		}
		v->host->open(v->host, v, VIEW_PIPELINE,
			      &(struct view_arg){.path = o->run_dir, .name = o->op}, 0);
		return REQ_NONE;
	case REQ_RESUME_RUN:
		if (!o)
			return REQ_NONE;
		if (o->state == BST_STOPPED) {
			char *q = xasprintf("%s stopped on a verdict; run it again from the start (the "
					    "stopped run is kept in the batch folder)?", o->op);
			v->host->confirm(v->host, v, q, resume_confirmed, NULL);
			free(q);
		} else {
			resume_confirmed(v, "y", NULL);
		}
		return REQ_NONE;
	case REQ_CANCEL_RUN:
		if (!o || !batch_state_active(o->state)) {
			view_error(v, "%s is %s: nothing to cancel", o ? o->op : "nothing",
				   o ? batch_state_name(o->state) : "-");
			return REQ_NONE;
		}
		char *q = xasprintf("Cancel %s (%s)? Its run saves its state; R resumes it.", o->op,
				    o->job ? o->job : "queued");
		v->host->confirm(v->host, v, q, cancel_confirmed, NULL);
		free(q);
		return REQ_NONE;
	case REQ_REFRESH: {
		struct tp_err err;
		if (batch_refresh(bv->b, &err) < 0)
			view_error(v, "%s", err.msg);
		set_lines(v);
		return REQ_NONE;
	}
	case REQ_VIEW_CLOSE:
	case REQ_QUIT:
		if (batch_driving(bv->b) && going(bv)) {
			char *q2 = xasprintf("%zu run%s going here; leaving stops them ('tileport batch "
					     "resume %s' continues them). Leave?", going(bv),
					     going(bv) == 1 ? " is" : "s are", r->name);
			view_confirm_leave(v, q2, req);
			free(q2);
			return REQ_NONE;
		}
		return req;
	default:
		return req;
	}
}

static void bv_title(struct view *v, struct sbuf *out)
{
	struct bv *bv = v->priv;
	const struct batch_record *r = batch_record(bv->b);
	size_t per[BST__COUNT] = {0}, unaccepted = 0;
	for (size_t i = 0; i < r->nops; i++) {
		per[r->ops[i].state]++;
		unaccepted += complete_unaccepted(&r->ops[i], batch_progress(bv->b, i));
	}
	/* what goes on, what is done, what resume would pick up */
	size_t later = per[BST_PENDING] + per[BST_INTERRUPTED] + per[BST_CANCELLED] + per[BST_FAILED];
	const struct {
		size_t n;
		const char *what;
	} parts[] = {
		{per[BST_RUNNING], "running"}, {per[BST_QUEUED], "queued"},
		{per[BST_COMPLETE] - unaccepted, "converted"}, {unaccepted, "not accepted"},
		{per[BST_OFFLINE], "offline"},
		{per[BST_STOPPED], "stopped"}, {later, "to resume"},
	};
	const char *sep = "";
	for (size_t i = 0; i < TP_ARRAY_LEN(parts); i++) {
		if (!parts[i].n)
			continue;
		sb_printf(out, "%s%zu %s", sep, parts[i].n, parts[i].what);
		sep = ", ";
	}
}

static void bv_tick(struct view *v)
{
	struct bv *bv = v->priv;
	for (size_t i = 0; i < nops(bv); i++)
		if (batch_record(bv->b)->ops[i].state == BST_RUNNING)
			view_line_dirty(v, i); /* spinner, elapsed */
}

static bool bv_busy(struct view *v)
{
	return batch_settling(((struct bv *)v->priv)->b);
}

static bool bv_stop(struct view *v)
{
	struct bv *bv = v->priv;
	batch_stop(bv->b);
	return batch_settling(bv->b);
}

static void bv_done(struct view *v)
{
	struct bv *bv = v->priv;
	batch_unlisten(bv->b, on_change, v);
}

const struct view_ops batch_view_ops = {
	.type = "batch",
	.private_size = sizeof(struct bv),
	.open = bv_open,
	.line = bv_line,
	.request = bv_request,
	.select = bv_select,
	.header = bv_header,
	.title = bv_title,
	.tick = bv_tick,
	.busy = bv_busy,
	.stop = bv_stop,
	.done = bv_done,
};
