/* The pipeline view: one row per stage of the table (latest attempt:
 * runs/cap, status with a spinner while it runs, verdict, owner class,
 * elapsed, tokens, cost), then the run's events newest first (routing
 * decisions, manual actions, gate and validator results) as they happen.
 * The selected stage's transcript follows in the lower pane; `f` toggles
 * whether the cursor follows the running stage.
 *
 * The model is the run (engine/core/session.h): live when this screen
 * drives it (tileport run OP, or a run it attached to), else followed from
 * disk and read-only (another tileport drives it, or --read-only). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/core/session.h"
#include "engine/git/changeset.h"
#include "views/attempt.h"
#include "views/view.h"

struct evline {
	char *text;
	enum line_type type;
};

struct pl {
	struct run_model *m;
	struct evline *ev;
	size_t nev, capev;
	bool follow_run, stopping;
	int lower_seq;
	bool lower_live;
	int64_t lower_due; /* switch the lower pane at this time; 0: no */
	int64_t drawn_sec;
};

static const struct run_state *state_of(const struct pl *pl)
{
	return run_model_state(pl->m);
}

/* Packaging takes a run that ended (cs_run_acceptance says which did). */
static bool run_ended(struct pl *pl)
{
	struct cs_acceptance acc;
	cs_run_acceptance(state_of(pl), NULL, &acc);
	bool ended = acc.ended;
	cs_acceptance_free(&acc);
	return ended;
}

static const struct table *table_of(const struct pl *pl)
{
	return run_model_table(pl->m);
}

static size_t nstages(const struct pl *pl)
{
	const struct table *t = table_of(pl);
	return t ? t->nstages : 0;
}

/* ---- events ---- */


static enum line_type event_type(const char *type, const cJSON *ev)
{
	if (!strcmp(type, "routed"))
		return LINE_ROUTE;
	if (str_starts(type, "manual_"))
		return LINE_MANUAL;
	if (!strcmp(type, "run_finished")) {
		/* coloured as the run's outcome; a log from before outcomes by its end */
		const char *o = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ev, "outcome"));
		const char *f = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ev, "final"));
		int oc = o ? run_outcome_parse(o) : -1;
		if (oc >= 0)
			return outcome_line_type(oc);
		return f && strcmp(f, "STOP") != 0 ? LINE_STATE_OK : LINE_STATE_FAIL;
	}
	if (!strcmp(type, "run_aborted") || !strcmp(type, "cap_reached"))
		return LINE_STATE_FAIL;
	if (!strcmp(type, "soft_marker") || !strcmp(type, "owner_default") ||
	    !strcmp(type, "repair_scheduled") || !strcmp(type, "waiting"))
		return LINE_STATE_WARN;
	if (!strcmp(type, "stage_started"))
		return LINE_STATE_RUNNING;
	return LINE_DIM;
}

static void add_event(struct pl *pl, const cJSON *ev)
{
	const cJSON *type = cJSON_GetObjectItemCaseSensitive(ev, "type");
	const cJSON *msg = cJSON_GetObjectItemCaseSensitive(ev, "msg");
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(ev, "t");
	if (!cJSON_IsString(type))
		return;
	char when[16] = "--:--:--";
	if (cJSON_IsNumber(t)) {
		time_t secs = (time_t)(t->valuedouble / 1000);
		struct tm tm;
		localtime_r(&secs, &tm);
		strftime(when, sizeof(when), "%H:%M:%S", &tm);
	}
	pl->ev = xgrow(pl->ev, &pl->capev, pl->nev + 1, sizeof(*pl->ev));
	pl->ev[pl->nev].text = xasprintf("%s  %s", when,
					 cJSON_IsString(msg) ? msg->valuestring : type->valuestring);
	pl->ev[pl->nev].type = event_type(type->valuestring, ev);
	pl->nev++;
}

static void clear_events(struct pl *pl)
{
	for (size_t i = 0; i < pl->nev; i++)
		free(pl->ev[i].text);
	pl->nev = 0;
}

static void load_events(struct pl *pl)
{
	clear_events(pl);
	const cJSON *ev;
	cJSON_ArrayForEach(ev, run_model_events(pl->m))
		add_event(pl, ev);
}

static void set_lines(struct view *v)
{
	struct pl *pl = v->priv;
	view_set_lines(v, nstages(pl) + 1 + pl->nev);
	view_redraw(v);
}

/* ---- the lower pane ---- */

static void show_lower(struct view *v, bool force)
{
	struct pl *pl = v->priv;
	const struct run_state *st = state_of(pl);
	const struct table *t = table_of(pl);
	if (!t || v->lineno >= t->nstages)
		return;
	const struct stage_def *sd = &t->stages[v->lineno];
	const struct attempt *a = run_model_latest(pl->m, sd->letter);
	if (!a) {
		/* Keep the pane (the layout stays put) and say why it is empty. */
		if (pl->lower_seq == -sd->letter && v->lower)
			return;
		char *msg = xasprintf("Stage %c (%s) has not run in this run", sd->letter,
				      sd->name ? sd->name : "");
		struct view_arg arg = {.name = msg};
		if (v->host->open(v->host, v, VIEW_TRANSCRIPT, &arg, OPEN_SPLIT | OPEN_NOFOCUS | OPEN_REUSE))
			pl->lower_seq = -sd->letter;
		free(msg);
		return;
	}
	/* A stage this screen runs streams its lines to the pane; any other
	 * transcript is read from its file. */
	bool live = run_model_pipeline(pl->m) && run_model_running(pl->m, a);
	if (!force && v->lower && pl->lower_seq == a->seq && pl->lower_live == live)
		return;
	char *dir = run_attempt_dir(st, a);
	struct view_arg arg = {.path = dir, .name = a->dir, .run = live ? pl->m : NULL,
			       .index = a->seq, .line = -1};
	if (v->host->open(v->host, v, VIEW_TRANSCRIPT, &arg, OPEN_SPLIT | OPEN_NOFOCUS | OPEN_REUSE)) {
		pl->lower_seq = a->seq;
		pl->lower_live = live;
	}
	free(dir);
}

static void select_running(struct view *v)
{
	struct pl *pl = v->priv;
	const struct run_state *st = state_of(pl);
	const struct table *t = table_of(pl);
	if (!t || !st->natt)
		return;
	char stage = st->att[st->natt - 1].stage;
	for (size_t i = 0; i < t->nstages; i++)
		if (t->stages[i].letter == stage && v->lineno != i)
			view_select(v, i);
}

static void on_change(struct run_model *m, const struct run_change *c, void *ud)
{
	(void)m;
	struct view *v = ud;
	struct pl *pl = v->priv;
	if (c->kind == RUN_OUTPUT)
		return; /* the transcript pane takes its own lines */
	if (c->kind == RUN_USAGE) {
		const struct table *t = run_model_table(pl->m);
		for (size_t i = 0; t && i < t->nstages; i++)
			if (t->stages[i].letter == c->attempt->stage)
				view_line_dirty(v, i); /* its TOKENS and COST */
		return;
	}
	bool started = false, ended = false;
	if (c->kind == RUN_EVENT) {
		add_event(pl, c->ev);
		const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c->ev, "type"));
		started = type && !strcmp(type, "stage_started");
		ended = type && !strcmp(type, "stage_ended");
		if (type && !strcmp(type, "owner_wanted"))
			attempt_ask_owner(v, pl->m); /* the run waits for this answer */
		/* "overridden; routing goes on" is old news once a stage has
		 * ended since, or the run */
		if (ended || (type && !strcmp(type, "run_finished")))
			v->host->overtaken(v->host);
	} else {
		load_events(pl);
	}
	set_lines(v);
	if ((started || c->kind == RUN_CHANGED) && pl->follow_run)
		select_running(v);
	v->ticking = true;
	/* A new attempt, or the end of the one shown (its file is complete
	 * now): show it afresh. */
	show_lower(v, started || ended);
}

/* ---- ops ---- */

static int pl_open(struct view *v, const struct view_arg *arg, struct tp_err *err)
{
	struct pl *pl = v->priv;
	pl->follow_run = true;
	if (arg->run) {
		pl->m = run_model_ref(arg->run);
	} else if (!arg->path) {
		tp_err_set(err, TP_EXIT_USAGE, "pipeline view: no run given");
		return -1;
	} else {
		pl->m = session_run(v->host->session, arg->path, err);
		if (!pl->m)
			return -1;
		/* Drive it from here if nobody else does (and the screen may);
		 * else it stays followed, and the title says read-only. */
		struct tp_err aerr;
		run_model_attach(pl->m, NULL, &aerr);
	}
	run_model_listen(pl->m, on_change, v);
	load_events(pl);
	const struct run_state *st = state_of(pl);
	v->ref = xstrdup(st->op ? st->op : st->run_dir);
	v->ticking = true;
	set_lines(v);
	select_running(v);
	show_lower(v, true);
	return 0;
}

/* The STAGE column: the longest "X Name" of the table, within what the
 * other columns leave of the width (13 at least). */
static int stage_width(struct view *v)
{
	const struct table *t = table_of(v->priv);
	int longest = 13;
	for (size_t i = 0; t && i < t->nstages; i++) {
		int n = 2 + (t->stages[i].name ? (int)strlen(t->stages[i].name) : 0);
		longest = n > longest ? n : longest;
	}
	/* glyph 2, RUNS 6, STATUS 13, VERDICT 18, OWNER 8, ELAPSED 8, TOKENS 14, COST 8 */
	int others = 2 + 6 + 13 + 18 + 8 + 8 + (v->width >= 100 ? 14 : 0) + 8 + 1;
	int room = v->width - others;
	return longest < room ? longest : room > 13 ? room : 13;
}

static bool pl_header(struct view *v, struct line_out *out)
{
	lo_reset(out, LINE_HEADER);
	int sw = stage_width(v);
	lo_adds(out, LINE_HEADER, "  ");
	lo_col(out, LINE_HEADER, sw, ALIGN_LEFT, "STAGE");
	lo_col(out, LINE_HEADER, 5, ALIGN_RIGHT, "RUNS");
	lo_col(out, LINE_HEADER, 12, ALIGN_LEFT, "STATUS");
	lo_col(out, LINE_HEADER, 17, ALIGN_LEFT, "VERDICT");
	lo_col(out, LINE_HEADER, 7, ALIGN_LEFT, "OWNER");
	lo_col(out, LINE_HEADER, 7, ALIGN_RIGHT, "ELAPSED");
	if (v->width >= 100)
		lo_col(out, LINE_HEADER, 13, ALIGN_RIGHT, "TOKENS IN/OUT");
	lo_cell(out, LINE_HEADER, 8, ALIGN_RIGHT, "COST");
	return true;
}

static enum line_type verdict_type(const struct stage_def *s, const char *verdict)
{
	if (!verdict)
		return LINE_DIM;
	if (stage_is_success(s, verdict))
		return LINE_VERDICT_OK;
	if (strstr(verdict, "FAIL") || strstr(verdict, "BLOCKED") || !strcmp(verdict, "STOP"))
		return LINE_VERDICT_FAIL;
	return LINE_VERDICT_WARN;
}

static void stage_row(struct view *v, const struct stage_def *s, struct line_out *out)
{
	struct pl *pl = v->priv;
	const struct run_state *st = state_of(pl);
	const struct attempt *a = run_model_latest(pl->m, s->letter);
	const char *glyph = "\xc2\xb7", *status = "-";
	enum line_type stype = LINE_STATE_PENDING;
	if (!a) {
		if (st->next.set && st->next.stage == s->letter && !st->final) {
			glyph = "\xe2\x96\xb8";
			status = st->status == RUN_WAITING ? "waiting" : "next";
			stype = LINE_STATE_WARN;
		}
	} else if (a->state == ATTEMPT_SKIPPED) {
		glyph = "\xe2\x86\xb7";
		status = "skipped";
		stype = LINE_STATE_SKIPPED;
	} else if (a->state == ATTEMPT_RUNNING) {
		if (run_model_running(pl->m, a)) {
			/* by the clock, not by frames drawn: the same on every screen */
			glyph = view_spinner((uint64_t)view_now_ms() / 100);
			status = "running";
			stype = LINE_STATE_RUNNING;
		} else {
			glyph = "!";
			status = "interrupted";
			stype = LINE_STATE_WARN;
		}
	} else if (a->verdict && !strcmp(a->verdict, "DEFERRED")) {
		/* the offline part done, the rest waits for the toolchain: no failure */
		glyph = "~";
		status = "deferred";
		stype = LINE_STATE_WARN;
	} else {
		bool ok = a->verdict && stage_is_success(s, a->verdict);
		glyph = ok ? "\xe2\x9c\x93" : "\xe2\x9c\x97";
		status = "done";
		stype = ok ? LINE_STATE_OK : LINE_STATE_FAIL;
	}
	/* A repair retry in words that fit the column: "repairing" while it
	 * runs, "done+repair" after (an interrupted one is just interrupted). */
	if (a && a->repair && !strcmp(status, "running"))
		status = "repairing";
	else if (a && a->repair && a->state == ATTEMPT_DONE)
		status = "done+repair";
	lo_reset(out, LINE_DEFAULT);
	lo_add(out, stype, glyph, strlen(glyph));
	lo_adds(out, LINE_DEFAULT, " ");
	int sw = stage_width(v);
	char name[96];
	snprintf(name, sizeof(name), "%c %s", s->letter, s->name ? s->name : "");
	lo_col(out, LINE_LABEL, sw, ALIGN_LEFT, name);
	char runs[16];
	snprintf(runs, sizeof(runs), "%d/%d", run_count(st, s->letter), s->cap);
	lo_col(out, LINE_DEFAULT, 5, ALIGN_RIGHT, runs);
	lo_col(out, stype, 12, ALIGN_LEFT, status);
	lo_col(out, verdict_type(s, a ? a->verdict : NULL), 17, ALIGN_LEFT,
	       a && a->verdict ? a->verdict : "-");
	char owner[32];
	snprintf(owner, sizeof(owner), "%s%s", a && a->klass ? a->klass : "-",
		 a && a->class_defaulted ? "*" : "");
	lo_col(out, LINE_DEFAULT, 7, ALIGN_LEFT, owner);
	char el[16] = "-";
	if (a && a->started)
		fmt_elapsed(run_model_elapsed_ms(pl->m, a, view_now_ms()), el, sizeof(el));
	lo_col(out, LINE_DIM, 7, ALIGN_RIGHT, el);
	struct run_usage u = run_model_usage(pl->m, s->letter);
	if (v->width >= 100) {
		char a1[16], a2[16], tok[40];
		fmt_count(u.tokens_in, a1, sizeof(a1));
		fmt_count(u.tokens_out, a2, sizeof(a2));
		snprintf(tok, sizeof(tok), "%s/%s", a1, a2);
		lo_col(out, LINE_COST, 13, ALIGN_RIGHT, u.tokens_in || u.tokens_out ? tok : "-");
	}
	char c[32] = "-";
	if (u.cost > 0)
		snprintf(c, sizeof(c), "$%.2f", u.cost);
	lo_cell(out, LINE_COST, 8, ALIGN_RIGHT, c);
}

static void pl_line(struct view *v, size_t idx, struct line_out *out)
{
	struct pl *pl = v->priv;
	const struct table *t = table_of(pl);
	size_t ns = nstages(pl);
	if (idx < ns) {
		stage_row(v, &t->stages[idx], out);
		return;
	}
	if (idx == ns) {
		lo_reset(out, LINE_SECTION);
		lo_addf(out, LINE_SECTION, "Events, newest first (%zu)", pl->nev);
		return;
	}
	const struct evline *e = &pl->ev[pl->nev - 1 - (idx - ns - 1)];
	lo_reset(out, e->type);
	lo_adds(out, e->type, e->text);
}

/* The lower pane follows the cursor once it rests (~80 ms), so flicking
 * through stages costs no file reads and keys stay fast. */
static void pl_select(struct view *v)
{
	struct pl *pl = v->priv;
	pl->lower_due = now_ms() + 80;
	v->ticking = true;
}

/* The selected stage and its latest attempt; stage 0 on the events. */
static struct attempt_target target(struct view *v)
{
	struct pl *pl = v->priv;
	struct attempt_target t = {.m = pl->m};
	const struct table *tb = table_of(pl);
	if (tb && v->lineno < tb->nstages) {
		t.stage = tb->stages[v->lineno].letter;
		const struct attempt *a = run_model_latest(pl->m, t.stage);
		t.seq = a ? a->seq : 0;
	}
	return t;
}

static enum request pl_request(struct view *v, enum request req)
{
	struct pl *pl = v->priv;
	struct pipeline *p = run_model_pipeline(pl->m);
	switch (req) {
	case REQ_ENTER:
	case REQ_VIEW_STAGE: {
		struct attempt_target t = target(v);
		if (!t.seq) {
			view_error(v, "Select a stage that has run");
			return REQ_NONE;
		}
		attempt_view_open(v, VIEW_STAGE, pl->m, run_model_attempt(pl->m, t.seq), 0);
		return REQ_NONE;
	}
	case REQ_VIEW_TRANSCRIPT: {
		struct attempt_target t = target(v);
		const struct attempt *a = t.seq ? run_model_attempt(pl->m, t.seq) : NULL;
		if (!a) {
			view_error(v, "Stage %c has not run yet", t.stage ? t.stage : '?');
			return REQ_NONE;
		}
		char *dir = run_model_attempt_path(pl->m, a, NULL);
		bool live = p && run_model_running(pl->m, a);
		struct view_arg arg = {.path = dir, .name = a->dir, .run = live ? pl->m : NULL,
				       .index = a->seq};
		v->host->open(v->host, v, VIEW_TRANSCRIPT, &arg, 0);
		free(dir);
		return REQ_NONE;
	}
	case REQ_PACKAGE: {
		if (!run_ended(pl)) {
			view_error(v, "The run has not ended: p packages a finished run");
			return REQ_NONE;
		}
		/* The dry run comes first; p in the changeset view commits it. */
		struct view_arg arg = {.run = pl->m};
		v->host->open(v->host, v, VIEW_CHANGESET, &arg, 0);
		return REQ_NONE;
	}
	case REQ_TOGGLE_FOLLOW:
		pl->follow_run = !pl->follow_run;
		if (pl->follow_run)
			select_running(v);
		view_report(v, "%s", pl->follow_run ? "Following the running stage"
						    : "Paused: the cursor stays where you put it");
		v->title_dirty = true;
		return REQ_NONE;
	case REQ_VIEW_CLOSE:
	case REQ_QUIT:
		if (p && pipeline_running(p)) {
			/* Leaving frees an attached run, which kills the running stage;
			 * the attempt stays "running" and resume runs it again. */
			view_confirm_leave(v, "A stage is running; leaving stops it (resume runs it again). "
					      "Leave?", req);
			return REQ_NONE;
		}
		return req;
	case REQ_REFRESH: {
		struct tp_err err;
		if (run_model_refresh(pl->m, &err) < 0)
			view_error(v, "%s", err.msg);
		load_events(pl);
		set_lines(v);
		return REQ_NONE;
	}
	case REQ_MOVE_UP:
	case REQ_MOVE_DOWN:
	case REQ_MOVE_PAGE_UP:
	case REQ_MOVE_PAGE_DOWN:
	case REQ_MOVE_FIRST_LINE:
		/* Moving by hand pauses following the running stage. */
		pl->follow_run = false;
		v->title_dirty = true;
		return req;
	default:
		break;
	}
	struct attempt_target t = target(v);
	return attempt_request(v, &t, req);
}

static bool pl_offers(struct view *v, enum request req)
{
	if (req == REQ_PACKAGE)
		return run_ended(v->priv);
	struct attempt_target t = target(v);
	return attempt_offers(&t, req);
}

static void pl_title(struct view *v, struct sbuf *out)
{
	struct pl *pl = v->priv;
	const struct run_state *st = state_of(pl);
	struct pipeline *p = run_model_pipeline(pl->m);
	/* narrow, an ended run's badge says how it ended: the shorter word */
	bool badge = st->final && st->outcome != OUTCOME_NONE;
	sb_adds(out, st->final && !(badge && v->width < 100) ? st->final : run_status_name(st->status));
	bool deferred = false;
	for (size_t i = 0; i < st->natt; i++)
		deferred |= st->att[i].verdict && !strcmp(st->att[i].verdict, "DEFERRED");
	/* RUNS 0/1 beside a stage that ran: says why */
	bool hint = st->offline && deferred && v->width >= 100;
	if (st->offline)
		sb_adds(out, hint ? " (offline; ~ deferred: not counted in RUNS)" : " (offline)");
	if (st->final && v->width >= 100 && !hint) /* else the key hints say it */
		sb_adds(out, ": p packages");
	const struct attempt *w = p ? pipeline_owner_wanted(p) : NULL;
	if (w && !st->final)
		sb_printf(out, ": C chooses %c%d's owner", w->stage, w->n);
	else if (st->status == RUN_WAITING)
		sb_adds(out, ": C continues");
	else if (p && !st->final && !pipeline_busy(p) && st->status == RUN_RUNNING)
		sb_adds(out, ", nothing running: C continues");
	if (!p)
		sb_adds(out, " [read-only]");
}

/* Paused: the cursor was moved off the running stage of a run that still
 * runs (nothing to follow on an ended one). */
static const char *pl_mode(struct view *v)
{
	struct pl *pl = v->priv;
	return run_model_pipeline(pl->m) && !pl->follow_run && !state_of(pl)->final ? "paused" : NULL;
}

/* A finished run's outcome beside its end state, in the theme's colours. */
static enum line_type pl_badge(struct view *v, struct sbuf *out)
{
	struct pl *pl = v->priv;
	const struct run_state *st = state_of(pl);
	if (!st->final || st->outcome == OUTCOME_NONE)
		return LINE_DEFAULT;
	sb_adds(out, run_outcome_words(st->outcome));
	return outcome_line_type(st->outcome);
}

static void pl_tick(struct view *v)
{
	struct pl *pl = v->priv;
	const struct table *t = table_of(pl);
	if (pl->lower_due && now_ms() >= pl->lower_due) {
		pl->lower_due = 0;
		show_lower(v, false);
		v->title_dirty = true; /* no longer busy: the title bar says so */
	}
	bool running = false;
	for (size_t i = 0; t && i < t->nstages; i++) {
		const struct attempt *a = run_model_latest(pl->m, t->stages[i].letter);
		if (run_model_running(pl->m, a)) {
			running = true;
			view_line_dirty(v, i);
		}
	}
	int64_t sec = view_now_ms() / 1000;
	if (sec != pl->drawn_sec)
		v->title_dirty = true;
	pl->drawn_sec = sec;
	v->ticking = running || pl->lower_due;
}

static bool pl_stop(struct view *v)
{
	struct pl *pl = v->priv;
	struct pipeline *p = run_model_pipeline(pl->m);
	if (!p)
		return false;
	if (!pl->stopping && !pipeline_finished(p)) {
		struct tp_err err;
		pipeline_abort(p, &err);
	}
	pl->stopping = true;
	return pipeline_busy(p);
}

static bool pl_busy(struct view *v)
{
	struct pl *pl = v->priv;
	struct pipeline *p = run_model_pipeline(pl->m);
	return (p && pipeline_busy(p)) || pl->lower_due;
}

static const char *pl_file(struct view *v, long *line)
{
	(void)line;
	struct pl *pl = v->priv;
	struct attempt_target t = target(v);
	const struct attempt *a = t.seq ? run_model_attempt(pl->m, t.seq) : NULL;
	if (!a)
		return NULL;
	static char *path;
	free(path);
	path = run_model_attempt_path(pl->m, a, "transcript.jsonl");
	return path;
}

static void pl_done(struct view *v)
{
	struct pl *pl = v->priv;
	if (pl->m) {
		run_model_unlisten(pl->m, on_change, v);
		run_model_free(pl->m);
	}
	clear_events(pl);
	free(pl->ev);
}

const struct view_ops pipeline_view_ops = {
	.type = "pipeline",
	.private_size = sizeof(struct pl),
	.open = pl_open,
	.line = pl_line,
	.request = pl_request,
	.select = pl_select,
	.header = pl_header,
	.title = pl_title,
	.badge = pl_badge,
	.mode = pl_mode,
	.offers = pl_offers,
	.tick = pl_tick,
	.busy = pl_busy,
	.stop = pl_stop,
	.file = pl_file,
	.done = pl_done,
};
