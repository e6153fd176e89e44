#include "tui/keys.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "views/width.h"

static const struct {
	const char *name;
	int key;
} key_names[] = {
	{"Enter", KEYC_ENTER},
	{"Tab", KEYC_TAB},
	{"Esc", KEYC_ESC},
	{"Escape", KEYC_ESC},
	{"Space", ' '},
	{"Backspace", KEY_FN + KEY_BACKSPACE},
	{"BackTab", KEY_FN + KEY_BTAB},
	{"Up", KEY_FN + KEY_UP},
	{"Down", KEY_FN + KEY_DOWN},
	{"Left", KEY_FN + KEY_LEFT},
	{"Right", KEY_FN + KEY_RIGHT},
	{"PgUp", KEY_FN + KEY_PPAGE},
	{"PageUp", KEY_FN + KEY_PPAGE},
	{"PgDown", KEY_FN + KEY_NPAGE},
	{"PageDown", KEY_FN + KEY_NPAGE},
	{"Home", KEY_FN + KEY_HOME},
	{"End", KEY_FN + KEY_END},
	{"Insert", KEY_FN + KEY_IC},
	{"Delete", KEY_FN + KEY_DC},
	{"Del", KEY_FN + KEY_DC},
	{"Resize", KEY_FN + KEY_RESIZE},
	{"LessThan", '<'},
	{"Lt", '<'},
	{"Hash", '#'},
};

int key_parse(const char **s, int *key, struct tp_err *err)
{
	const char *p = *s;
	if (!*p) {
		tp_err_set(err, TP_EXIT_USAGE, "expected a key");
		return -1;
	}
	if (p[0] == '<' && p[1] && p[1] != '>') {
		const char *end = strchr(p, '>');
		if (end) {
			size_t n = (size_t)(end - p - 1);
			char name[32];
			if (n >= sizeof(name))
				goto bad;
			memcpy(name, p + 1, n);
			name[n] = '\0';
			*s = end + 1;
			for (size_t i = 0; i < TP_ARRAY_LEN(key_names); i++) {
				if (strcasecmp(name, key_names[i].name) == 0) {
					*key = key_names[i].key;
					return 0;
				}
			}
			if ((name[0] == 'C' || name[0] == 'c') && name[1] == '-' && name[2] && !name[3]) {
				char c = name[2];
				if (c >= 'a' && c <= 'z')
					c = (char)(c - 'a' + 'A');
				if (c < '@' || c > '_')
					goto bad;
				*key = c & 0x1f;
				return 0;
			}
			if ((name[0] == 'F' || name[0] == 'f') && name[1]) {
				char *e;
				long f = strtol(name + 1, &e, 10);
				if (!*e && f >= 1 && f <= 63) {
					*key = KEY_FN + KEY_F((int)f);
					return 0;
				}
			}
		bad:
			tp_err_set(err, TP_EXIT_USAGE,
				   "unknown key '%.*s' (expected a character or <Name>, such as <Enter>, "
				   "<Up>, <PgDown>, <C-x> or <F1>)",
				   (int)(end - p + 1), p);
			return -1;
		}
	}
	if (p[0] == '^' && p[1] >= '@' && p[1] <= '~' && p[1] != '^') {
		char c = p[1];
		if (c >= 'a' && c <= 'z')
			c = (char)(c - 'a' + 'A');
		if (c <= '_') {
			*key = c & 0x1f;
			*s = p + 2;
			return 0;
		}
	}
	wchar_t wc;
	size_t len = utf8_next(p, strlen(p), &wc);
	*key = (int)wc;
	*s = p + len;
	return 0;
}

int key_parse_one(const char *s, int *key, struct tp_err *err)
{
	const char *p = s;
	if (key_parse(&p, key, err) < 0)
		return -1;
	if (*p) {
		tp_err_set(err, TP_EXIT_USAGE, "expected one key, got '%s'", s);
		return -1;
	}
	return 0;
}

void key_label(int key, char *buf, size_t n)
{
	/* Prefer the first (canonical) name in the table. */
	for (size_t i = 0; i < TP_ARRAY_LEN(key_names); i++) {
		if (key_names[i].key == key && key != '<' && key != '#') {
			snprintf(buf, n, "<%s>", key_names[i].name);
			return;
		}
	}
	if (key >= KEY_FN + KEY_F(1) && key <= KEY_FN + KEY_F(63)) {
		snprintf(buf, n, "<F%d>", key - KEY_FN - KEY_F(0));
		return;
	}
	if (KEY_IS_FN(key)) {
		snprintf(buf, n, "<Key-%d>", key - KEY_FN);
		return;
	}
	if (key > 0 && key < 0x20) {
		snprintf(buf, n, "<C-%c>", (char)('a' + key - 1));
		return;
	}
	char mb[8];
	mbstate_t st;
	memset(&st, 0, sizeof(st));
	size_t len = wcrtomb(mb, (wchar_t)key, &st);
	if (len == (size_t)-1)
		snprintf(buf, n, "<U+%04X>", (unsigned)key);
	else
		snprintf(buf, n, "%.*s", (int)len, mb);
}

int key_from_curses(int rc, unsigned code)
{
	if (rc == KEY_CODE_YES) {
		switch (code) {
		case KEY_ENTER:
			return KEYC_ENTER;
		case KEY_BACKSPACE:
			return KEY_FN + KEY_BACKSPACE;
		default:
			return KEY_FN + (int)code;
		}
	}
	switch (code) {
	case '\n':
		return KEYC_ENTER;
	case 0x7f:
	case 0x08:
		return KEY_FN + KEY_BACKSPACE;
	default:
		return (int)code;
	}
}

/* ---- keymaps ---- */

static const char *const view_names[VIEW__COUNT] = {
#define VIEW(id, name, keys, help) #name,
#include "views/views.def"
#undef VIEW
};

int keymap_by_name(const char *name)
{
	if (strcmp(name, "generic") == 0)
		return KEYMAP_GENERIC;
	for (int i = 0; i < VIEW__COUNT; i++)
		if (strcmp(name, view_names[i]) == 0)
			return i;
	return -1;
}

const char *keymap_name(int keymap)
{
	if (keymap == KEYMAP_GENERIC)
		return "generic";
	return keymap >= 0 && keymap < VIEW__COUNT ? view_names[keymap] : "?";
}

struct binding {
	int key;
	enum request req;
};

static struct keymap {
	struct binding *b;
	size_t n, cap;
} keymaps[KEYMAP__COUNT];

void keys_bind(int keymap, int key, enum request req)
{
	struct keymap *m = &keymaps[keymap];
	for (size_t i = 0; i < m->n; i++) {
		if (m->b[i].key == key) {
			m->b[i].req = req;
			return;
		}
	}
	m->b = xgrow(m->b, &m->cap, m->n + 1, sizeof(*m->b));
	m->b[m->n++] = (struct binding){key, req};
}

void keys_free(void)
{
	for (int i = 0; i < KEYMAP__COUNT; i++) {
		free(keymaps[i].b);
		memset(&keymaps[i], 0, sizeof(keymaps[i]));
	}
}

void keys_init(void)
{
	keys_free();
	for (int r = 1; r < REQ__COUNT; r++) {
		const struct request_info *ri = &requests[r];
		size_t nmaps, nkeys;
		char **maps = str_split(ri->keymaps, ' ', false, &nmaps);
		char **keys = str_split(ri->keys, ' ', false, &nkeys);
		for (size_t m = 0; m < nmaps; m++) {
			int km = keymap_by_name(maps[m]);
			if (km < 0)
				tp_die("requests.def: %s: unknown keymap '%s'", ri->name, maps[m]);
			for (size_t k = 0; k < nkeys; k++) {
				int key;
				struct tp_err e;
				if (key_parse_one(keys[k], &key, &e) < 0)
					tp_die("requests.def: %s: %s", ri->name, e.msg);
				keys_bind(km, key, (enum request)r);
			}
		}
		strv_free(maps);
		strv_free(keys);
	}
}

int keys_parse_bind(const char *keymap, const char *key, const char *action, int *kmp, int *kp,
		    enum request *req, struct tp_err *err)
{
	int km = keymap_by_name(keymap);
	if (km < 0) {
		struct sbuf sb = SBUF_INIT;
		for (int i = 0; i < KEYMAP__COUNT; i++)
			sb_printf(&sb, "%s%s", i ? ", " : "", keymap_name(i));
		tp_err_set(err, TP_EXIT_USAGE, "unknown keymap '%s' (expected one of: %s)", keymap,
			   sb_str(&sb));
		sb_free(&sb);
		return -1;
	}
	int k;
	if (key_parse_one(key, &k, err) < 0)
		return -1;
	enum request r = REQ_NONE;
	if (strcmp(action, "none") != 0) {
		r = request_by_name(action);
		if (r == REQ_NONE) {
			tp_err_set(err, TP_EXIT_USAGE,
				   "unknown action '%s' (expected an action name such as move-down or "
				   "view-help, or none; the help view lists them all)", action);
			return -1;
		}
	}
	*kmp = km;
	*kp = k;
	*req = r;
	return 0;
}

int keys_bind_words(const char *keymap, const char *key, const char *action, struct tp_err *err)
{
	int km, k;
	enum request r;
	if (keys_parse_bind(keymap, key, action, &km, &k, &r, err) < 0)
		return -1;
	keys_bind(km, k, r);
	return 0;
}

static bool find_binding(int keymap, int key, enum request *req)
{
	const struct keymap *m = &keymaps[keymap];
	for (size_t i = 0; i < m->n; i++) {
		if (m->b[i].key == key) {
			*req = m->b[i].req;
			return true;
		}
	}
	return false;
}

enum request keys_lookup(enum view_id view, int key)
{
	enum request r = REQ_NONE;
	if ((int)view >= 0 && view < VIEW__COUNT && find_binding((int)view, key, &r))
		return r;
	if (find_binding(KEYMAP_GENERIC, key, &r))
		return r;
	return REQ_NONE;
}

size_t keys_bound(int keymap, enum request req, int *out, size_t max)
{
	size_t n = 0;
	const struct keymap *m = &keymaps[keymap];
	for (size_t i = 0; i < m->n && n < max; i++)
		if (m->b[i].req == req)
			out[n++] = m->b[i].key;
	return n;
}
