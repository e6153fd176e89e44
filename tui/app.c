/* Views, focus, the status line and action dispatch. */
#include "tui/app.h"

#include <poll.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "engine/core/session.h"
#include "tui/display.h"
#include "tui/keys.h"

void app_report(struct app *a, bool error, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg = xvasprintf(fmt, ap);
	va_end(ap);
	free(a->message);
	a->message = msg;
	a->message_error = error;
	a->status_dirty = true;
}

static void free_view(struct view *v)
{
	if (v->ops->done)
		v->ops->done(v);
	free(v->priv);
	free(v->ref);
	free(v->dirty);
	free(v->search.pattern);
	free(v);
}

static void forget_view(struct app *a, struct view *v)
{
	for (size_t i = 0; i < a->nviews; i++) {
		if (a->views[i] == v) {
			memmove(&a->views[i], &a->views[i + 1], (a->nviews - i - 1) * sizeof(*a->views));
			a->nviews--;
			break;
		}
	}
	/* Nothing may keep pointing at it. */
	for (size_t i = 0; i < a->nviews; i++) {
		struct view *o = a->views[i];
		if (o->parent == v)
			o->parent = v->parent;
		if (o->lower == v)
			o->lower = NULL;
		if (o->upper == v)
			o->upper = NULL;
	}
	if (a->prompt.view == v) {
		/* Its question goes unanswered: let it free what it holds. */
		struct prompt p = a->prompt;
		memset(&a->prompt, 0, sizeof(a->prompt));
		if (p.cb)
			p.cb(v, NULL, p.ctx);
		prompt_free(&p);
		a->status_dirty = true;
	}
	free_view(v);
}

void app_focus(struct app *a, struct view *v)
{
	if (a->focus == v)
		return;
	if (a->focus)
		view_redraw(a->focus);
	a->focus = v;
	if (v)
		view_redraw(v);
	a->status_dirty = true;
}

struct view *app_open_view(struct app *a, struct view *from, enum view_id id,
			   const struct view_arg *arg, unsigned flags)
{
	static const struct view_arg none;
	if (!arg)
		arg = &none;
	if (!from)
		from = a->focus;
	/* A lower pane opens below the view that asked, never below itself. */
	struct view *top = from && from->upper ? from->upper : from;
	if ((flags & OPEN_SPLIT) && !top)
		flags &= ~(unsigned)OPEN_SPLIT;
	struct view *reuse = NULL;
	if ((flags & OPEN_SPLIT) && (flags & OPEN_REUSE) && top->lower && top->lower->id == id)
		reuse = top->lower;

	struct view *v = xcalloc(1, sizeof(*v));
	v->ops = view_ops_table[id];
	v->id = id;
	v->host = &a->host;
	v->priv = v->ops->private_size ? xcalloc(1, v->ops->private_size) : NULL;
	v->line_numbers = a->cfg.line_numbers;
	v->follow = false;
	/* Size it before open so follow and selection land right. */
	struct view *geom = reuse ? reuse : (flags & OPEN_SPLIT) ? top->lower : a->main;
	v->height = geom ? geom->height : (LINES > 2 ? LINES - 2 : 1);
	v->width = geom ? geom->width : COLS;
	struct tp_err err;
	tp_err_clear(&err);
	if (v->ops->open(v, arg, &err) < 0) {
		app_report(a, true, "%s", err.msg[0] ? err.msg : "cannot open the view");
		free_view(v);
		return NULL;
	}
	a->views = xgrow(a->views, &a->capviews, a->nviews + 1, sizeof(*a->views));
	a->views[a->nviews++] = v;

	if (flags & OPEN_SPLIT) {
		struct view *old = top->lower;
		top->lower = v;
		v->upper = top;
		if (old) {
			if (a->focus == old)
				a->focus = NULL;
			forget_view(a, old);
		}
		if (!(flags & OPEN_NOFOCUS) || !a->focus)
			app_focus(a, v);
	} else {
		v->parent = a->main;
		a->main = v;
		a->maximized = false;
		app_focus(a, v);
	}
	view_clamp(v);
	a->layout_dirty = true;
	return v;
}

void app_close_view(struct app *a, struct view *v)
{
	if (v->upper) {
		struct view *top = v->upper;
		top->lower = NULL;
		if (a->focus == v)
			app_focus(a, top);
		forget_view(a, v);
		a->layout_dirty = true;
		return;
	}
	if (v != a->main)
		return;
	struct view *back = v->parent;
	if (!back) {
		a->quit = true;
		return;
	}
	if (v->lower) {
		struct view *low = v->lower;
		v->lower = NULL;
		forget_view(a, low);
	}
	a->main = back;
	a->focus = NULL;
	app_focus(a, back);
	forget_view(a, v);
	a->maximized = false;
	a->layout_dirty = true;
	screen_redraw_all(a);
}

/* ---- host interface given to views ---- */

/* The app a view's host belongs to: the host is a member of it. */
static struct app *app_of(struct view_host *h)
{
	return (struct app *)((char *)h - offsetof(struct app, host));
}

static void host_overtaken(struct view_host *h)
{
	struct app *a = app_of(h);
	if (a->message && !a->message_error) {
		free(a->message);
		a->message = NULL;
		a->status_dirty = true;
	}
}

static void host_report(struct view_host *h, bool error, const char *msg)
{
	app_report(app_of(h), error, "%s", msg);
}

static struct view *host_open(struct view_host *h, struct view *from, enum view_id id,
			      const struct view_arg *arg, unsigned flags)
{
	return app_open_view(app_of(h), from, id, arg, flags);
}

static void host_prompt(struct view_host *h, struct view *v, const char *label,
			view_answer_cb cb, void *ctx)
{
	prompt_open(app_of(h), PROMPT_TEXT, label, cb, v, ctx);
}

static void host_confirm(struct view_host *h, struct view *v, const char *question,
			 view_answer_cb cb, void *ctx)
{
	prompt_open(app_of(h), PROMPT_CONFIRM, question, cb, v, ctx);
}

static int host_external(struct view_host *h, enum external_kind kind, const char *path, long line)
{
	return external_open(app_of(h), kind, path, line);
}

static void host_close(struct view_host *h, struct view *v)
{
	app_close_view(app_of(h), v);
}

static void host_quit(struct view_host *h)
{
	app_of(h)->quit = true;
}

static void host_keys_for(struct view_host *h, int keymap, enum request req, struct sbuf *out)
{
	(void)h;
	int keys[8];
	size_t n = keys_bound(keymap, req, keys, TP_ARRAY_LEN(keys));
	for (size_t i = 0; i < n; i++) {
		char name[32];
		key_label(keys[i], name, sizeof(name));
		sb_printf(out, "%s%s", i ? " " : "", name);
	}
}

static const struct command_info *host_commands(struct view_host *h, size_t *n)
{
	(void)h;
	return command_list(n);
}

void app_host_init(struct app *a)
{
	a->host.keys_for = host_keys_for;
	a->host.commands = host_commands;
	a->host.quit = host_quit;
	a->host.report = host_report;
	a->host.overtaken = host_overtaken;
	a->host.open = host_open;
	a->host.prompt = host_prompt;
	a->host.confirm = host_confirm;
	a->host.external = host_external;
	a->host.close = host_close;
	a->host.session = a->start->session;
}

void app_free_views(struct app *a)
{
	while (a->nviews)
		forget_view(a, a->views[a->nviews - 1]);
	free(a->views);
	a->views = NULL;
	a->main = a->focus = NULL;
}

/* ---- actions ---- */

static void search_answer(struct view *v, const char *answer, void *ctx)
{
	bool backward = ctx != NULL;
	if (!v || !answer)
		return;
	if (*answer)
		view_set_search(v, answer);
	view_find(v, backward, false);
}

static void open_file_of(struct app *a, struct view *v, enum external_kind kind)
{
	long line = 0;
	const char *path = v->ops->file ? v->ops->file(v, &line) : NULL;
	if (!path) {
		app_report(a, true, "No file behind the selected line");
		return;
	}
	external_open(a, kind, path, line);
}

/* view-NAME that the focused view did not handle: go back to a view of
 * that kind if one is open below, else open it when it needs nothing
 * selected. */
static void show_view(struct app *a, enum view_id id)
{
	for (struct view *p = a->main; p; p = p->parent) {
		if (p->id == id) {
			while (a->main != p)
				app_close_view(a, a->main);
			return;
		}
	}
	if (id == VIEW_RUNS && a->start) {
		struct view_arg arg = {.path = session_out_root(a->start->session)};
		app_open_view(a, NULL, id, &arg, 0);
		return;
	}
	app_report(a, true, "Nothing selected to show in the %s view", requests[view_request(id)].name + 5);
}

void app_request(struct app *a, enum request req)
{
	struct view *v = a->focus;
	if (v && v->ops->request)
		req = v->ops->request(v, req);
	if (req == REQ_NONE)
		return;
	if (v && view_navigate(v, req))
		return;
	switch (req) {
	case REQ_QUIT:
		a->quit = true;
		break;
	case REQ_VIEW_CLOSE:
		if (v)
			app_close_view(a, v);
		else
			a->quit = true;
		break;
	case REQ_VIEW_NEXT:
		if (a->main && a->main->lower && !a->maximized)
			app_focus(a, a->focus == a->main ? a->main->lower : a->main);
		break;
	case REQ_MAXIMIZE:
		if (a->main && a->main->lower) {
			a->maximized = !a->maximized;
			if (a->maximized && a->focus == a->main->lower) {
				/* The lower pane becomes the main view. */
				struct view *low = a->main->lower;
				a->main->lower = NULL;
				low->upper = NULL;
				low->parent = a->main;
				a->main = low;
				a->maximized = false;
			}
			a->layout_dirty = true;
		}
		break;
	case REQ_SCREEN_REDRAW:
		screen_redraw_all(a);
		break;
	case REQ_PROMPT:
		prompt_open(a, PROMPT_COMMAND, ":", NULL, NULL, NULL);
		break;
	case REQ_SEARCH:
	case REQ_SEARCH_BACK:
		if (v)
			prompt_open(a, req == REQ_SEARCH ? PROMPT_SEARCH : PROMPT_SEARCH_BACK,
				    req == REQ_SEARCH ? "/" : "?", search_answer, v,
				    req == REQ_SEARCH ? NULL : (void *)1);
		break;
	case REQ_FIND_NEXT:
	case REQ_FIND_PREV:
		if (v)
			view_find(v, req == REQ_FIND_PREV, true);
		break;
	case REQ_TOGGLE_LINENO:
		if (v) {
			v->line_numbers = !v->line_numbers;
			view_redraw(v);
		}
		break;
	case REQ_TOGGLE_FOLLOW:
		if (v) {
			v->follow = !v->follow;
			if (v->follow && v->nlines)
				view_select(v, v->nlines - 1);
			v->title_dirty = true;
			app_report(a, false, "%s", v->follow ? "Following new output" : "Paused");
		}
		break;
	case REQ_EDIT:
	case REQ_PAGER:
		if (v)
			open_file_of(a, v, req == REQ_EDIT ? EXTERNAL_EDITOR : EXTERNAL_PAGER);
		break;
	case REQ_VIEW_HELP:
		app_open_view(a, v, VIEW_HELP, NULL, 0);
		break;
	default:
		if (request_view(req) >= 0) {
			show_view(a, (enum view_id)request_view(req));
			break;
		}
		if (req > REQ_NONE && req < REQ__COUNT)
			app_report(a, true, "'%s' does nothing in the %s view", requests[req].name,
				   v ? v->ops->type : "current");
		break;
	}
}

void app_key(struct app *a, int key)
{
	if (key == KEY_FN + KEY_RESIZE) {
		a->layout_dirty = true;
		return;
	}
	if (prompt_key(a, key))
		return;
	/* A new key replaces the old message. */
	if (a->message) {
		free(a->message);
		a->message = NULL;
		a->status_dirty = true;
	}
	enum request req = keys_lookup(a->focus ? a->focus->id : (enum view_id)KEYMAP_GENERIC, key);
	if (req == REQ_NONE) {
		char name[32];
		key_label(key, name, sizeof(name));
		app_report(a, true, "Unknown key %s: press h for help", name);
		return;
	}
	app_request(a, req);
}

/* ---- loading and liveness ---- */

/* A key is waiting on the terminal (keys ncurses already buffered are read
 * after every pass anyway). */
static bool input_pending(void)
{
	int fd = display_input_fd();
	if (fd < 0)
		return false;
	struct pollfd p = {fd, POLLIN, 0};
	return poll(&p, 1, 0) > 0;
}

bool app_pump(struct app *a, int64_t budget_ms)
{
	/* Loading goes in short slices and stops as soon as a key arrives:
	 * a key never waits for more than one slice. */
	int64_t end = now_ms() + budget_ms;
	bool more;
	do {
		more = false;
		for (size_t i = 0; i < a->nviews; i++) {
			struct view *v = a->views[i];
			if (!v->loading || !v->ops->pump)
				continue;
			v->loading = v->ops->pump(v, 2);
			more |= v->loading;
		}
	} while (more && now_ms() < end && !input_pending());
	return more;
}

bool app_busy(struct app *a)
{
	for (size_t i = 0; i < a->nviews; i++) {
		struct view *v = a->views[i];
		if (v->loading || (v->ops->busy && v->ops->busy(v)))
			return true;
	}
	return a->external_running;
}

bool app_idle_for_script(struct app *a)
{
	return !app_busy(a) && !a->quit;
}

void app_tick(struct app *a)
{
	for (size_t i = 0; i < a->nviews; i++) {
		struct view *v = a->views[i];
		if (v->ticking && v->ops->tick)
			v->ops->tick(v);
	}
}
