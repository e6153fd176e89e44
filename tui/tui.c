/* tui_main and the main loop (docs/architecture.md, "Data flow"; tig's
 * get_input shape): let the engine and loading views work -> draw dirty rows
 * -> one doupdate() -> wait on the shared poll loop (short while anything
 * streams) -> keys. */
#include "tui/tui.h"

#include <curses.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "engine/base/loop.h"
#include "engine/core/session.h"
#include "engine/perf/perfmd.h"
#include "tui/app.h"
#include "tui/display.h"
#include "tui/keys.h"
#include "tui/script.h"

#define FRAME_MS 16   /* at most ~60 frames a second while output streams */
#define TICK_MS 100   /* spinners and elapsed times */
#define PUMP_MS 12    /* loading work per pass: keys stay answered */

static const int quit_signals[] = {SIGINT, SIGTERM, SIGHUP};

/* Wall clock, so a benchmark can line key sends up with frames. */
static int64_t now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void on_quit_signal(struct loop *l, int signo, void *data)
{
	(void)l;
	struct app *a = data;
	/* ^C while $EDITOR runs belongs to the editor. */
	if (a->external_running && signo == SIGINT)
		return;
	a->quit_signal = signo;
}

static void on_stdin(struct loop *l, int fd, short revents, void *data)
{
	(void)l, (void)fd, (void)revents;
	((struct app *)data)->input_ready = true;
}

static void read_keys(struct app *a)
{
	if (!a->status)
		return;
	for (;;) {
		wint_t wc;
		int rc = wget_wch(a->status, &wc);
		if (rc == ERR)
			break;
		int key = key_from_curses(rc, (unsigned)wc);
		/* A script owns the keyboard; only resizes get through. */
		if (a->script && key != KEY_FN + KEY_RESIZE)
			continue;
		if (!a->key_time_us)
			a->key_time_us = now_us();
		app_key(a, key);
		if (a->quit)
			break;
	}
	a->input_ready = false;
}

/* One script entry, if the program is idle. Returns -1 on a script error. */
static int script_step(struct app *a, struct tp_err *err)
{
	if (!a->script || !app_idle_for_script(a))
		return 0;
	int key;
	const char *cmd;
	switch (script_next(a->script, &key, &cmd, err)) {
	case SCRIPT_END:
		a->quit = true;
		return 0;
	case SCRIPT_ERROR:
		return -1;
	case SCRIPT_KEY:
		app_key(a, key);
		return 0;
	case SCRIPT_COMMAND: {
		struct tp_err e;
		tp_err_clear(&e);
		if (command_run(a, cmd, &e) < 0) {
			tp_err_set(err, TP_EXIT_USAGE, "%s: %s", script_where(a->script), e.msg);
			return -1;
		}
		return 0;
	}
	}
	return 0;
}

static void log_latency(struct app *a)
{
	if (!a->key_time_us)
		return;
	if (a->latency_log)
		fprintf(a->latency_log, "%lld %lld\n", (long long)a->key_time_us, (long long)now_us());
	a->key_time_us = 0;
}

static int run(struct app *a)
{
	struct tp_err err;
	tp_err_clear(&err);
	a->last_tick = a->last_frame = now_ms();
	bool more = false;
	while (!a->quit && !a->quit_signal) {
		bool streaming = more || app_busy(a);
		int64_t now = now_ms();
		/* Draw at once after a key (before any more loading work); at most
		 * every FRAME_MS while output streams. */
		if (!streaming || a->key_time_us || now - a->last_frame >= FRAME_MS ||
		    a->layout_dirty) {
			if (screen_draw(a))
				a->last_frame = now;
			log_latency(a);
		}
		more = app_pump(a, PUMP_MS);
		streaming = streaming || more;
		int wait = -1;
		bool script_ready = a->script && app_idle_for_script(a) && !a->prompt.kind;
		if (more || script_ready || (a->script && a->prompt.kind))
			wait = 0;
		else if (streaming)
			wait = FRAME_MS;
		for (size_t i = 0; i < a->nviews && wait != 0; i++) {
			if (a->views[i]->ticking) {
				int64_t left = TICK_MS - (now - a->last_tick);
				if (left < 0)
					left = 0;
				if (wait < 0 || left < wait)
					wait = (int)left;
			}
		}
		if (loop_run_once(a->loop, wait) < 0) {
			app_report(a, true, "event loop error");
			return TP_EXIT_FAILED;
		}
		if (!display_virtual())
			read_keys(a);
		now = now_ms();
		if (now - a->last_tick >= TICK_MS) {
			a->last_tick = now;
			app_tick(a);
		}
		if (script_step(a, &err) < 0) {
			display_done();
			fprintf(stderr, "tileport: script %s\n", err.msg);
			return TP_EXIT_USAGE;
		}
	}
	return a->exit_code;
}

/* A signal ends the program: let views stop what they drive (a live run
 * is aborted and its state saved), serving the loop for at most 5 s. */
static void stop_views(struct app *a)
{
	int64_t end = now_ms() + 5000;
	for (;;) {
		bool busy = false;
		for (size_t i = 0; i < a->nviews; i++)
			if (a->views[i]->ops->stop && a->views[i]->ops->stop(a->views[i]))
				busy = true;
		if (!busy || now_ms() >= end)
			break;
		loop_run_once(a->loop, 50);
	}
}

/* Without a terminal, what shows the same thing as text. */
static void no_screen_hint(const struct tui_start *s, struct tp_err *err)
{
	const char *hint = NULL;
	switch (s->kind) {
	case TUI_START_RUNS:
		hint = "'tileport runs' lists them (--json for scripts)";
		break;
	case TUI_START_RUN:
		hint = "'tileport status RUN' shows a run (--json for scripts), 'tileport run|resume "
		       "--headless' drives one";
		break;
	case TUI_START_FILE:
		hint = "read the file with a pager";
		break;
	case TUI_START_IRDIFF:
		hint = "'tileport irdiff' without --tui prints the diff (--json for scripts)";
		break;
	case TUI_START_SOURCE:
		hint = "'tileport translate' and 'tileport inventory' print the Rust and the check";
		break;
	case TUI_START_CHANGESET:
		hint = "'tileport review' prints the changeset (--plain or --json)";
		break;
	case TUI_START_BENCH:
		hint = "without --tui the command prints the table (--json for scripts)";
		break;
	case TUI_START_BATCH:
		hint = "'tileport batch status NAME' shows a batch (--json for scripts), 'tileport batch "
		       "start|resume --headless' drives one";
		break;
	}
	char *msg = xasprintf("%s: %s", err->msg, hint);
	tp_err_set(err, err->code, "%.900s", msg);
	free(msg);
}

static int open_first_view(struct app *a, const struct tui_start *s)
{
	struct view_arg arg = {0};
	enum view_id id;
	switch (s->kind) {
	case TUI_START_RUNS:
		id = VIEW_RUNS;
		arg.path = session_out_root(s->session);
		break;
	case TUI_START_RUN:
		id = VIEW_PIPELINE;
		arg.path = s->run_dir;
		arg.run = s->run;
		break;
	case TUI_START_BATCH:
		id = VIEW_BATCH;
		arg.model = s->model;
		break;
	case TUI_START_IRDIFF:
		id = VIEW_IRDIFF;
		arg.path = s->path;
		arg.path2 = s->path2;
		arg.index = s->keep_dead_constants ? 1 : 0; /* the view's flag */
		break;
	case TUI_START_SOURCE:
		id = VIEW_SOURCE;
		arg.path = s->path;
		arg.path2 = s->path2;
		break;
	case TUI_START_CHANGESET:
		id = VIEW_CHANGESET;
		arg.path = s->path;
		arg.name = s->rev;
		break;
	case TUI_START_BENCH:
		id = VIEW_BENCH;
		arg.path = s->path;
		arg.model = s->model;
		break;
	case TUI_START_FILE:
	default:
		id = s->path && str_ends(s->path, ".jsonl") ? VIEW_TRANSCRIPT
		     : s->path && perf_md_sniff(s->path)  ? VIEW_BENCH
							   : VIEW_TEXT;
		arg.path = s->path;
		break;
	}
	return app_open_view(a, NULL, id, &arg, 0) ? 0 : -1;
}

static bool env_on(const char *name)
{
	const char *v = getenv(name);
	return v && *v && strcmp(v, "0") != 0;
}

static void teardown(struct app *a)
{
	app_free_views(a);
	screen_free(a);
	display_done();
	for (size_t i = 0; i < TP_ARRAY_LEN(quit_signals); i++)
		loop_off_signal(a->loop, quit_signals[i]);
	int fd = STDIN_FILENO;
	loop_remove_fd(a->loop, fd);
	prompt_free(&a->prompt);
	free(a->message);
	theme_free(&a->theme);
	tui_config_free(&a->cfg);
	keys_free();
	script_free(a->script);
	if (a->latency_log)
		fclose(a->latency_log);
}

int tui_main(const struct tui_start *s)
{
	struct app app;
	struct app *a = &app;
	memset(a, 0, sizeof(*a));
	a->start = s;
	struct tp_err err;
	tp_err_clear(&err);
	keys_init();
	tui_config_init(&a->cfg);
	a->loop = session_loop(s->session);
	int rc = TP_EXIT_USAGE;
	if (tui_config_apply(&a->cfg, session_config(s->session), &err) < 0)
		goto fail;
	a->use_color = !theme_no_color_env();
	const char *theme = s->theme ? s->theme : a->cfg.theme;
	if (!a->use_color)
		theme = "monochrome";
	if (theme_load(&a->theme, theme, &err) < 0)
		goto fail;
	for (size_t i = 0; i < a->cfg.ncolors; i++)
		if (theme_set(&a->theme, a->cfg.colors[i].area, a->cfg.colors[i].spec, &err) < 0)
			goto fail;
	const char *script = getenv("TILEPORT_SCRIPT");
	if (script && *script && !(a->script = script_open(script, &err)))
		goto fail;
	const char *lat = getenv("TILEPORT_LATENCY_LOG");
	if (lat && *lat && !(a->latency_log = fopen(lat, "w"))) {
		tp_err_set(&err, TP_EXIT_ENV, "cannot write %s", lat);
		goto fail;
	}
	/* a line per key, readable while the screen runs */
	if (a->latency_log)
		setvbuf(a->latency_log, NULL, _IOLBF, 0);
	if (display_init(env_on("TILEPORT_NO_DISPLAY"), &err) < 0) {
		rc = err.code ? err.code : TP_EXIT_ENV;
		no_screen_hint(s, &err);
		goto fail;
	}
	theme_apply(&a->theme, a->use_color);
	app_host_init(a);
	for (size_t i = 0; i < TP_ARRAY_LEN(quit_signals); i++)
		loop_on_signal(a->loop, quit_signals[i], on_quit_signal, a);
	if (!display_virtual())
		loop_add_fd(a->loop, STDIN_FILENO, POLLIN, on_stdin, a);
	screen_layout(a);
	if (open_first_view(a, s) < 0) {
		tp_err_set(&err, TP_EXIT_USAGE, "%s", a->message ? a->message : "cannot open the view");
		rc = TP_EXIT_USAGE;
		goto fail;
	}
	rc = run(a);
	int signo = a->quit_signal;
	if (signo)
		stop_views(a);
	teardown(a);
	if (signo) {
		/* Restored; now die of the signal as if we never caught it. */
		signal(signo, SIG_DFL);
		raise(signo);
	}
	return rc;
fail:
	teardown(a);
	fprintf(stderr, "tileport: %s\n", err.msg);
	return rc;
}
