/* The help view, generated from the action table and the live keymaps
 * (so it shows the user's own bindings), plus the prompt commands.
 * Enter on a section title folds it. */
#include <stdlib.h>
#include <string.h>

#include "views/view.h"

enum help_kind { H_TITLE, H_KEYMAP, H_GROUP, H_ACTION, H_COMMAND, H_BLANK };

struct help_line {
	enum help_kind kind;
	int keymap;
	enum request req;
	const char *text;  /* group title or command name */
	char *keys;        /* key names, or command arguments */
};

struct help {
	struct help_line *lines;
	size_t n, cap;
	bool folded[VIEW__COUNT + 2]; /* per keymap, + the commands section */
	int keys_w, name_w;
};

static const char *const view_names[VIEW__COUNT] = {
#define VIEW(id, name, keys, help) #name,
#include "views/views.def"
#undef VIEW
};

static void clear_lines(struct help *h)
{
	for (size_t i = 0; i < h->n; i++)
		free(h->lines[i].keys);
	h->n = 0;
}

static struct help_line *add(struct help *h, enum help_kind kind)
{
	h->lines = xgrow(h->lines, &h->cap, h->n + 1, sizeof(*h->lines));
	struct help_line *l = &h->lines[h->n++];
	memset(l, 0, sizeof(*l));
	l->kind = kind;
	return l;
}

static int max_int(int a, int b)
{
	return a > b ? a : b;
}

static void add_keymap(struct view *v, struct help *h, int keymap)
{
	size_t start = h->n;
	struct help_line *title = add(h, H_KEYMAP);
	title->keymap = keymap;
	if (h->folded[keymap])
		return;
	bool generic = keymap == KEYMAP_GENERIC;
	size_t group_at = 0;
	bool group_used = true;
	for (size_t i = 0; i < request_layout_len; i++) {
		const struct request_layout *rl = &request_layout[i];
		if (rl->req == REQ_NONE) {
			if (!group_used)
				h->n = group_at; /* drop an empty group title */
			group_at = h->n;
			group_used = false;
			add(h, H_GROUP)->text = rl->group;
			continue;
		}
		struct sbuf keys = SBUF_INIT;
		v->host->keys_for(v->host, keymap, rl->req, &keys);
		/* The generic map lists every action (unbound ones can be typed
		 * as :name); a view's map lists only its own keys. */
		if (!generic && keys.len == 0) {
			sb_free(&keys);
			continue;
		}
		struct help_line *l = add(h, H_ACTION);
		l->keymap = keymap;
		l->req = rl->req;
		l->keys = sb_detach(&keys);
		h->keys_w = max_int(h->keys_w, (int)strlen(l->keys));
		h->name_w = max_int(h->name_w, (int)strlen(requests[rl->req].name));
		group_used = true;
	}
	if (!group_used)
		h->n = group_at;
	/* A view without keys of its own gets no section. */
	if (h->n == start + 1 && !generic) {
		h->n = start;
		return;
	}
	add(h, H_BLANK);
}

static void build(struct view *v)
{
	struct help *h = v->priv;
	clear_lines(h);
	h->keys_w = 4;
	h->name_w = 8;
	add(h, H_TITLE)->text = "Quick reference for tileport keys (Enter on a title folds it)";
	add(h, H_BLANK);
	add_keymap(v, h, KEYMAP_GENERIC);
	for (int k = 0; k < VIEW__COUNT; k++)
		add_keymap(v, h, k);
	struct help_line *t = add(h, H_KEYMAP);
	t->keymap = VIEW__COUNT + 1;
	if (!h->folded[VIEW__COUNT + 1] && v->host->commands) {
		size_t n;
		const struct command_info *c = v->host->commands(v->host, &n);
		for (size_t i = 0; i < n; i++) {
			struct help_line *l = add(h, H_COMMAND);
			l->text = c[i].name;
			l->keys = xasprintf(":%s%s%s", c[i].name, *c[i].args ? " " : "", c[i].args);
			l->req = (enum request)i;
			h->keys_w = max_int(h->keys_w, 0);
		}
	}
	if (h->keys_w > 24)
		h->keys_w = 24;
	view_set_lines(v, h->n);
	view_redraw(v);
}

static int help_open(struct view *v, const struct view_arg *arg, struct tp_err *err)
{
	(void)arg, (void)err;
	v->ref = xstrdup("key bindings");
	build(v);
	return 0;
}

static void help_line(struct view *v, size_t idx, struct line_out *out)
{
	struct help *h = v->priv;
	const struct help_line *l = &h->lines[idx];
	size_t n;
	switch (l->kind) {
	case H_TITLE:
		lo_reset(out, LINE_SECTION);
		lo_adds(out, LINE_SECTION, l->text);
		break;
	case H_KEYMAP: {
		lo_reset(out, LINE_HELP_GROUP);
		bool folded = h->folded[l->keymap];
		if (l->keymap == VIEW__COUNT + 1)
			lo_addf(out, LINE_HELP_GROUP, "[%c] prompt commands (press : to type one)",
				folded ? '+' : '-');
		else
			lo_addf(out, LINE_HELP_GROUP, "[%c] %s bindings", folded ? '+' : '-',
				l->keymap == KEYMAP_GENERIC ? "generic" : view_names[l->keymap]);
		break;
	}
	case H_GROUP:
		lo_reset(out, LINE_SECTION);
		lo_addf(out, LINE_SECTION, "%s", l->text);
		break;
	case H_ACTION:
		lo_reset(out, LINE_DEFAULT);
		lo_adds(out, LINE_DEFAULT, "    ");
		lo_col(out, LINE_HELP_KEY, h->keys_w, ALIGN_LEFT, l->keys);
		lo_col(out, LINE_HELP_ACTION, h->name_w, ALIGN_LEFT, requests[l->req].name);
		lo_adds(out, LINE_DEFAULT, requests[l->req].help);
		break;
	case H_COMMAND: {
		const struct command_info *c = v->host->commands(v->host, &n);
		lo_reset(out, LINE_DEFAULT);
		lo_adds(out, LINE_DEFAULT, "    ");
		lo_col(out, LINE_HELP_KEY, 30, ALIGN_LEFT, l->keys);
		lo_adds(out, LINE_DEFAULT, c[l->req].help);
		break;
	}
	case H_BLANK:
		lo_reset(out, LINE_DEFAULT);
		break;
	}
}

static enum request help_request(struct view *v, enum request req)
{
	struct help *h = v->priv;
	if ((req == REQ_ENTER || req == REQ_TOGGLE_FOLD) && v->lineno < h->n &&
	    h->lines[v->lineno].kind == H_KEYMAP) {
		int km = h->lines[v->lineno].keymap;
		size_t keep = v->lineno;
		h->folded[km] = !h->folded[km];
		build(v);
		view_select(v, keep);
		return REQ_NONE;
	}
	if (req == REQ_ENTER)
		return REQ_NONE;
	if (req == REQ_REFRESH) {
		build(v);
		return REQ_NONE;
	}
	return req;
}

static void help_done(struct view *v)
{
	struct help *h = v->priv;
	clear_lines(h);
	free(h->lines);
}

const struct view_ops help_view_ops = {
	.type = "help",
	.private_size = sizeof(struct help),
	.open = help_open,
	.line = help_line,
	.request = help_request,
	.done = help_done,
};
