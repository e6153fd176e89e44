/* The one-line prompt on the status row: `:` commands, `/` and `?`
 * searches, free text (an override reason) and yes/no questions. It is a
 * mode of the main loop, not a nested loop, so streaming goes on while
 * the user types. */
#include <stdlib.h>
#include <string.h>

#include "tui/app.h"
#include "tui/draw.h"
#include "tui/keys.h"
#include "views/width.h"

void prompt_free(struct prompt *p)
{
	free(p->label);
	sb_free(&p->text);
	memset(p, 0, sizeof(*p));
}

void prompt_open(struct app *a, enum prompt_kind kind, const char *label, view_answer_cb cb,
		 struct view *v, void *ctx)
{
	struct prompt *p = &a->prompt;
	if (p->kind != PROMPT_NONE && p->cb)
		p->cb(p->view, NULL, p->ctx);
	prompt_free(p);
	p->kind = kind;
	p->label = xstrdup(label);
	p->cb = cb;
	p->view = v;
	p->ctx = ctx;
	a->status_dirty = true;
}

/* Close the prompt first: the answer may open the next one. */
static void finish(struct app *a, const char *answer)
{
	struct prompt p = a->prompt;
	memset(&a->prompt, 0, sizeof(a->prompt));
	a->status_dirty = true;
	if (p.kind == PROMPT_COMMAND) {
		if (answer && *answer) {
			struct tp_err err;
			tp_err_clear(&err);
			if (command_run(a, answer, &err) < 0)
				app_report(a, true, "%s", err.msg);
		}
	} else if (p.cb) {
		p.cb(p.view, answer, p.ctx);
	}
	prompt_free(&p);
}

static void delete_last_char(struct sbuf *t)
{
	if (!t->len)
		return;
	size_t i = t->len - 1;
	while (i > 0 && ((unsigned char)t->buf[i] & 0xc0) == 0x80)
		i--;
	t->len = i;
	t->buf[i] = '\0';
}

bool prompt_key(struct app *a, int key)
{
	struct prompt *p = &a->prompt;
	if (p->kind == PROMPT_NONE)
		return false;
	a->status_dirty = true;
	if (p->kind == PROMPT_CONFIRM) {
		finish(a, key == 'y' || key == 'Y' ? "y" : NULL);
		return true;
	}
	switch (key) {
	case KEYC_ENTER:
		finish(a, sb_str(&p->text));
		return true;
	case KEYC_ESC:
	case 0x07: /* C-g */
		finish(a, NULL);
		return true;
	case KEY_FN + KEY_BACKSPACE:
		if (!p->text.len && p->kind != PROMPT_TEXT)
			finish(a, NULL);
		else
			delete_last_char(&p->text);
		return true;
	case 0x15: /* C-u */
		sb_reset(&p->text);
		return true;
	case 0x17: /* C-w: delete the last word */
		while (p->text.len && p->text.buf[p->text.len - 1] == ' ')
			delete_last_char(&p->text);
		while (p->text.len && p->text.buf[p->text.len - 1] != ' ')
			delete_last_char(&p->text);
		return true;
	default:
		break;
	}
	if (KEY_IS_FN(key) || key < 0x20 || key == 0x7f)
		return true; /* ignore other special keys while typing */
	char mb[8];
	mbstate_t st;
	memset(&st, 0, sizeof(st));
	size_t n = wcrtomb(mb, (wchar_t)key, &st);
	if (n != (size_t)-1)
		sb_add(&p->text, mb, n);
	return true;
}

void prompt_draw(struct app *a)
{
	struct prompt *p = &a->prompt;
	struct line_out lo;
	lo_init(&lo);
	lo_reset(&lo, LINE_STATUS);
	lo_adds(&lo, LINE_PROMPT, p->label);
	if (p->kind == PROMPT_CONFIRM) {
		lo_adds(&lo, LINE_PROMPT, " [y/N]");
		lo_adds(&lo, LINE_STATUS, " ");
	}
	/* Show the end of long input: what is being typed stays in sight. */
	size_t label_cols = str_columns(lo.text.buf, lo.text.len, 0);
	const char *t = sb_str(&p->text);
	size_t n = p->text.len;
	size_t room = (size_t)COLS > label_cols + 2 ? (size_t)COLS - label_cols - 2 : 1;
	while (n && str_columns(t, n, 0) > room) {
		wchar_t wc;
		size_t k = utf8_next(t, n, &wc);
		t += k;
		n -= k;
	}
	lo_add(&lo, LINE_STATUS, t, n);
	draw_line(a->status, 0, 0, COLS, &lo, NULL);
	int x = (int)str_columns(lo.text.buf, lo.text.len, 0);
	lo_free(&lo);
	wmove(a->status, 0, x < COLS ? x : COLS - 1);
	curs_set(1);
}
