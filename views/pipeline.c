/* The pipeline view: one row per stage of the table (latest attempt:
 * runs/cap, status with a spinner while it runs, verdict, owner class,
 * elapsed, tokens, cost), then the run's events newest first (routing
 * decisions, manual actions, gate and validator results) as they happen.
 * The selected stage's transcript follows in the lower pane; `f` toggles
 * whether the cursor follows the running stage.
 *
 * The model is a live pipeline (tileport run OP, or a run this screen
 * attached to) or, when another tileport drives the run, its state.json
 * and events.jsonl re-read as they change (read-only). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "engine/core/events.h"
#include "engine/core/pipeline.h"
#include "engine/core/run.h"
#include "engine/core/table.h"
#include "views/source.h"
#include "views/step.h"
#include "views/view.h"

#define RELOAD_MS 500

struct evline {
	char *text;
	enum line_type type;
};

struct pl {
	struct pipeline *p;
	bool owned;
	bool listening; /* a pipeline the CLI owns may outlive this view */
	char *why_ro;
	struct run_state ro;
	bool have_ro;
	struct table *ro_table;
	int64_t ro_mtime, ro_checked;
	long long ro_events_size;
	char *run_dir;
	struct evline *ev;
	size_t nev, capev;
	bool follow_run, stopping;
	int lower_seq;
	bool lower_live;
	int64_t lower_due; /* switch the lower pane at this time; 0: no */
	unsigned spin;
	int64_t drawn_sec;
};

static const char *const spinner[] = {
	"\xe2\xa0\x8b", "\xe2\xa0\x99", "\xe2\xa0\xb9", "\xe2\xa0\xb8", "\xe2\xa0\xbc",
	"\xe2\xa0\xb4", "\xe2\xa0\xa6", "\xe2\xa0\xa7", "\xe2\xa0\x87", "\xe2\xa0\x8f",
};

static const struct run_state *state_of(const struct pl *pl)
{
	return pl->p ? pipeline_state(pl->p) : pl->have_ro ? &pl->ro : NULL;
}

static const struct table *table_of(const struct pl *pl)
{
	return pl->p ? pipeline_table(pl->p) : pl->ro_table;
}

static size_t nstages(const struct pl *pl)
{
	const struct table *t = table_of(pl);
	return t ? t->nstages : 0;
}

static const struct attempt *latest(const struct run_state *st, char stage)
{
	for (size_t i = st->natt; i-- > 0;)
		if (st->att[i].stage == stage)
			return &st->att[i];
	return NULL;
}

static const struct attempt *by_seq(const struct run_state *st, int seq)
{
	for (size_t i = 0; i < st->natt; i++)
		if (st->att[i].seq == seq)
			return &st->att[i];
	return NULL;
}

static bool is_running(const struct pl *pl, const struct attempt *a)
{
	if (a->state != ATTEMPT_RUNNING)
		return false;
	if (pl->p) {
		const struct attempt *r = pipeline_running(pl->p);
		return r && r->seq == a->seq;
	}
	/* Read-only: running if another orchestrator holds the run. */
	return pl->why_ro && run_locked(pl->run_dir);
}

/* ---- events ---- */

static enum line_type event_type(const char *type, const cJSON *ev)
{
	if (!strcmp(type, "routed"))
		return LINE_ROUTE;
	if (str_starts(type, "manual_"))
		return LINE_MANUAL;
	if (!strcmp(type, "run_finished")) {
		const cJSON *f = cJSON_GetObjectItemCaseSensitive(ev, "final");
		return cJSON_IsString(f) && strcmp(f->valuestring, "STOP") != 0 ? LINE_STATE_OK
										 : LINE_STATE_FAIL;
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
	cJSON *all = events_read(pl->run_dir, NULL);
	const cJSON *ev;
	cJSON_ArrayForEach(ev, all)
		add_event(pl, ev);
	cJSON_Delete(all);
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
	if (!st || !t || v->lineno >= t->nstages)
		return;
	const struct stage_def *sd = &t->stages[v->lineno];
	const struct attempt *a = latest(st, sd->letter);
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
	bool live = pl->p && is_running(pl, a);
	if (!force && v->lower && pl->lower_seq == a->seq && pl->lower_live == live)
		return;
	char *dir = run_attempt_dir(st, a);
	struct view_arg arg = {.path = dir, .name = a->dir, .model = live ? (void *)pl->p : NULL,
			       .line = -1};
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
	if (!st || !t || !st->natt)
		return;
	char stage = st->att[st->natt - 1].stage;
	for (size_t i = 0; i < t->nstages; i++)
		if (t->stages[i].letter == stage && v->lineno != i)
			view_select(v, i);
}

static void on_event(struct pipeline *p, const struct pipeline_event *e, void *ud)
{
	(void)p;
	struct view *v = ud;
	struct pl *pl = v->priv;
	const struct run_state *st = state_of(pl);
	if (e->kind == PEV_OUTPUT) {
		if (e->is_stderr)
			return;
		const struct attempt *a = st ? by_seq(st, e->seq) : NULL;
		if (a && v->host->feed)
			v->host->feed(v->host, a->dir, e->line, e->len);
		return;
	}
	add_event(pl, e->ev);
	set_lines(v);
	const cJSON *type = cJSON_GetObjectItemCaseSensitive(e->ev, "type");
	bool started = cJSON_IsString(type) && !strcmp(type->valuestring, "stage_started");
	bool ended = cJSON_IsString(type) && !strcmp(type->valuestring, "stage_ended");
	if (started && pl->follow_run)
		select_running(v);
	v->ticking = true;
	/* A new attempt, or the end of the one shown (its file is complete
	 * now): show it afresh. */
	show_lower(v, started || ended);
}

/* ---- read-only model ---- */

static int64_t mtime_ms(const char *path, long long *size)
{
	struct stat sb;
	if (stat(path, &sb) < 0)
		return 0;
	if (size)
		*size = (long long)sb.st_size;
	return (int64_t)sb.st_mtim.tv_sec * 1000 + sb.st_mtim.tv_nsec / 1000000;
}

static int load_readonly(struct pl *pl, struct tp_err *err)
{
	char *sp = run_path(pl->run_dir, "state.json");
	char *ep = run_path(pl->run_dir, "events.jsonl");
	long long evsize = 0;
	int64_t m = mtime_ms(sp, NULL);
	mtime_ms(ep, &evsize);
	int rc = 0;
	if (!pl->have_ro || m != pl->ro_mtime) {
		struct run_state st;
		if (run_state_load(pl->run_dir, &st, err) < 0) {
			rc = -1;
		} else {
			if (pl->have_ro)
				run_state_free(&pl->ro);
			pl->ro = st;
			pl->have_ro = true;
			pl->ro_mtime = m;
		}
	}
	if (rc == 0 && !pl->ro_table) {
		char *tp = pl->ro.table && path_is_file(pl->ro.table) ? xstrdup(pl->ro.table)
								      : table_default_path();
		pl->ro_table = table_load(tp, err);
		free(tp);
		if (!pl->ro_table)
			rc = -1;
	}
	if (rc == 0 && evsize != pl->ro_events_size) {
		load_events(pl);
		pl->ro_events_size = evsize;
	}
	pl->ro_checked = now_ms();
	free(sp);
	free(ep);
	return rc;
}

/* ---- ops ---- */

static int pl_open(struct view *v, const struct view_arg *arg, struct tp_err *err)
{
	struct pl *pl = v->priv;
	pl->follow_run = true;
	if (!arg->path && !arg->model) {
		tp_err_set(err, TP_EXIT_USAGE, "pipeline view: no run given");
		return -1;
	}
	pl->p = arg->model;
	if (!pl->p && arg->path && v->host->attach) {
		struct tp_err aerr;
		tp_err_clear(&aerr);
		pl->p = v->host->attach(v->host, arg->path, &aerr);
		pl->owned = pl->p != NULL;
		if (!pl->p)
			pl->why_ro = xstrdup(aerr.msg[0] ? aerr.msg : "cannot attach");
	} else if (!pl->p) {
		pl->why_ro = xstrdup("nothing can drive runs from here");
	}
	if (pl->p) {
		pl->run_dir = xstrdup(pipeline_state(pl->p)->run_dir);
		pipeline_listen(pl->p, on_event, v);
		pl->listening = true;
		load_events(pl);
	} else {
		pl->run_dir = xstrdup(arg->path);
		if (load_readonly(pl, err) < 0)
			return -1;
		v->ticking = true;
	}
	const struct run_state *st = state_of(pl);
	v->ref = xstrdup(st->op ? st->op : pl->run_dir);
	v->ticking = true;
	set_lines(v);
	select_running(v);
	show_lower(v, true);
	return 0;
}

static bool pl_header(struct view *v, struct line_out *out)
{
	lo_reset(out, LINE_HEADER);
	int sw = v->width >= 140 ? 30 : v->width >= 100 ? 22 : 13;
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
	const struct attempt *a = latest(st, s->letter);
	const char *glyph = "\xc2\xb7", *status = "-";
	enum line_type stype = LINE_STATE_PENDING;
	char buf[64];
	if (!a) {
		if (st->next.set && st->next.stage == s->letter && !st->final) {
			glyph = "\xe2\x96\xb8";
			status = st->status && !strcmp(st->status, "waiting") ? "waiting" : "next";
			stype = LINE_STATE_WARN;
		}
	} else if (a->state == ATTEMPT_SKIPPED) {
		glyph = "\xe2\x86\xb7";
		status = "skipped";
		stype = LINE_STATE_SKIPPED;
	} else if (a->state == ATTEMPT_RUNNING) {
		if (is_running(pl, a)) {
			glyph = spinner[pl->spin % TP_ARRAY_LEN(spinner)];
			status = "running";
			stype = LINE_STATE_RUNNING;
		} else {
			glyph = "!";
			status = "interrupted";
			stype = LINE_STATE_WARN;
		}
	} else {
		bool ok = a->verdict && stage_is_success(s, a->verdict);
		glyph = ok ? "\xe2\x9c\x93" : "\xe2\x9c\x97";
		status = "done";
		stype = ok ? LINE_STATE_OK : LINE_STATE_FAIL;
	}
	if (a && a->repair && a->state != ATTEMPT_SKIPPED) {
		snprintf(buf, sizeof(buf), "%s+repair", status);
		status = buf;
	}
	lo_reset(out, LINE_DEFAULT);
	lo_add(out, stype, glyph, strlen(glyph));
	lo_adds(out, LINE_DEFAULT, " ");
	int sw = v->width >= 140 ? 30 : v->width >= 100 ? 22 : 13;
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
	if (a && a->started) {
		int64_t end = a->state == ATTEMPT_RUNNING ? view_now_ms() : a->ended;
		if (end >= a->started)
			fmt_elapsed(end - a->started, el, sizeof(el));
	}
	lo_col(out, LINE_DIM, 7, ALIGN_RIGHT, el);
	long long tin = 0, tout = 0;
	double cost = 0;
	for (size_t i = 0; i < st->natt; i++) {
		if (st->att[i].stage == s->letter) {
			tin += st->att[i].tokens_in;
			tout += st->att[i].tokens_out;
			cost += st->att[i].cost;
		}
	}
	if (v->width >= 100) {
		char a1[16], a2[16], tok[40];
		fmt_count(tin, a1, sizeof(a1));
		fmt_count(tout, a2, sizeof(a2));
		snprintf(tok, sizeof(tok), "%s/%s", a1, a2);
		lo_col(out, LINE_COST, 13, ALIGN_RIGHT, tin || tout ? tok : "-");
	}
	char c[32] = "-";
	if (cost > 0)
		snprintf(c, sizeof(c), "$%.2f", cost);
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

static struct step_target target(struct view *v)
{
	struct pl *pl = v->priv;
	struct step_target t = {.p = pl->p, .why_readonly = pl->why_ro};
	const struct table *tb = table_of(pl);
	const struct run_state *st = state_of(pl);
	size_t row = v->lineno < nstages(pl) ? v->lineno : 0;
	if (tb && tb->nstages) {
		t.stage = tb->stages[row].letter;
		const struct attempt *a = latest(st, t.stage);
		t.seq = a ? a->seq : 0;
	}
	return t;
}

/* Leaving frees an attached pipeline, which kills the running stage;
 * the attempt stays "running" in state.json and resume runs it again. */
static void leave_confirmed(struct view *v, const char *answer, void *ud)
{
	if (!v || !answer)
		return;
	if (ud)
		v->host->quit(v->host);
	else
		v->host->close(v->host, v);
}

static enum request pl_request(struct view *v, enum request req)
{
	struct pl *pl = v->priv;
	switch (req) {
	case REQ_ENTER:
	case REQ_VIEW_STAGE: {
		struct step_target t = target(v);
		if (v->lineno >= nstages(pl) || !t.seq) {
			view_error(v, "Select a stage that has run");
			return REQ_NONE;
		}
		const struct attempt *a = by_seq(state_of(pl), t.seq);
		char *dir = run_attempt_dir(state_of(pl), a);
		struct view_arg arg = {.path = dir, .name = a->dir, .model = pl->p, .index = a->seq};
		v->host->open(v->host, v, VIEW_STAGE, &arg, 0);
		free(dir);
		return REQ_NONE;
	}
	case REQ_VIEW_TRANSCRIPT: {
		struct step_target t = target(v);
		const struct run_state *st = state_of(pl);
		const struct attempt *a = t.seq ? by_seq(st, t.seq) : NULL;
		if (!a) {
			view_error(v, "Stage %c has not run yet", t.stage ? t.stage : '?');
			return REQ_NONE;
		}
		char *dir = run_attempt_dir(st, a);
		bool live = pl->p && is_running(pl, a);
		struct view_arg arg = {.path = dir, .name = a->dir, .model = live ? (void *)pl->p : NULL};
		v->host->open(v->host, v, VIEW_TRANSCRIPT, &arg, 0);
		free(dir);
		return REQ_NONE;
	}
	case REQ_VIEW_IRDIFF: {
		struct step_target t = target(v);
		if (v->lineno >= nstages(pl) || (t.stage != 'B' && t.stage != 'C')) {
			view_error(v, "Select stage B or C to see the IR diff");
			return REQ_NONE;
		}
		struct view_arg arg = {.path = pl->run_dir};
		v->host->open(v->host, v, VIEW_IRDIFF, &arg, 0);
		return REQ_NONE;
	}
	case REQ_VIEW_SOURCE: {
		struct step_target t = target(v);
		const struct run_state *st = state_of(pl);
		if (v->lineno >= nstages(pl) || t.stage != 'B' || !st) {
			view_error(v, "Select stage B to see the source beside its Rust");
			return REQ_NONE;
		}
		source_open_run(v, st->workspace, st->op, pl->run_dir);
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
		if (pl->p && pipeline_running(pl->p)) {
			v->host->confirm(v->host, v, "A stage is running; leaving stops it (resume runs it "
					 "again). Leave?", leave_confirmed, req == REQ_QUIT ? (void *)1 : NULL);
			return REQ_NONE;
		}
		return req;
	case REQ_REFRESH:
		if (!pl->p) {
			pl->ro_mtime = 0;
			pl->ro_events_size = -1;
			struct tp_err err;
			if (load_readonly(pl, &err) < 0)
				view_error(v, "%s", err.msg);
		} else {
			load_events(pl);
		}
		set_lines(v);
		return REQ_NONE;
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
	struct step_target t = target(v);
	return step_request(v, &t, req);
}

static void pl_title(struct view *v, struct sbuf *out)
{
	struct pl *pl = v->priv;
	const struct run_state *st = state_of(pl);
	sb_adds(out, st->final ? st->final : st->status ? st->status : "?");
	if (st->offline)
		sb_adds(out, " (offline)");
	if (st->status && !strcmp(st->status, "waiting"))
		sb_adds(out, ": C continues");
	else if (pl->p && !st->final && !pipeline_busy(pl->p) && st->status &&
		 !strcmp(st->status, "running"))
		sb_adds(out, ", nothing running: C continues");
	if (!pl->p)
		sb_adds(out, " [read-only]");
	else if (!pl->follow_run)
		sb_adds(out, " [paused]");
}

static void pl_tick(struct view *v)
{
	struct pl *pl = v->priv;
	const struct run_state *st = state_of(pl);
	const struct table *t = table_of(pl);
	if (!pl->p && now_ms() - pl->ro_checked >= RELOAD_MS) {
		int64_t m = pl->ro_mtime;
		long long es = pl->ro_events_size;
		struct tp_err err;
		if (load_readonly(pl, &err) == 0 && (m != pl->ro_mtime || es != pl->ro_events_size)) {
			set_lines(v);
			if (pl->follow_run)
				select_running(v);
			show_lower(v, false);
		}
		st = state_of(pl);
	}
	if (pl->lower_due && now_ms() >= pl->lower_due) {
		pl->lower_due = 0;
		show_lower(v, false);
		v->title_dirty = true; /* no longer busy: the title drops [paused] */
	}
	bool running = false;
	for (size_t i = 0; t && st && i < t->nstages; i++) {
		const struct attempt *a = latest(st, t->stages[i].letter);
		if (a && is_running(pl, a)) {
			running = true;
			view_line_dirty(v, i);
		}
	}
	if (running)
		pl->spin++;
	int64_t sec = view_now_ms() / 1000;
	if (sec != pl->drawn_sec)
		v->title_dirty = true;
	pl->drawn_sec = sec;
	v->ticking = running || !pl->p || pl->lower_due;
}

static bool pl_stop(struct view *v)
{
	struct pl *pl = v->priv;
	if (!pl->p)
		return false;
	if (!pl->stopping && !pipeline_finished(pl->p)) {
		struct tp_err err;
		pipeline_abort(pl->p, &err);
	}
	pl->stopping = true;
	return pipeline_busy(pl->p);
}

static bool pl_busy(struct view *v)
{
	struct pl *pl = v->priv;
	return (pl->p && pipeline_busy(pl->p)) || pl->lower_due;
}

static const char *pl_file(struct view *v, long *line)
{
	(void)line;
	struct pl *pl = v->priv;
	struct step_target t = target(v);
	const struct run_state *st = state_of(pl);
	const struct attempt *a = t.seq ? by_seq(st, t.seq) : NULL;
	if (!a)
		return NULL;
	static char *path;
	free(path);
	char *dir = run_attempt_dir(st, a);
	path = path_join(dir, "transcript.jsonl");
	free(dir);
	return path;
}

static void pl_done(struct view *v)
{
	struct pl *pl = v->priv;
	if (pl->listening)
		pipeline_unlisten(pl->p, on_event, v);
	if (pl->owned)
		pipeline_free(pl->p);
	if (pl->have_ro)
		run_state_free(&pl->ro);
	table_free(pl->ro_table);
	clear_events(pl);
	free(pl->ev);
	free(pl->why_ro);
	free(pl->run_dir);
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
	.tick = pl_tick,
	.busy = pl_busy,
	.stop = pl_stop,
	.file = pl_file,
	.done = pl_done,
};
