/* Keys and keymaps. A key is a Unicode code point for characters, or
 * KEY_FN + a curses key code for function keys. Keys are written in
 * config syntax: j  G  <Enter>  <C-f>  ^F  <Space>  <PgDown>  <F1>.
 *
 * Keymaps: "generic" plus one per view (named like the view). Lookup
 * tries the view's keymap, then the generic one. The defaults come from
 * the action table (views/requests.def, views/views.def). */
#ifndef TILEPORT_TUI_KEYS_H
#define TILEPORT_TUI_KEYS_H

#include <stdbool.h>
#include <stddef.h>

#include "engine/base/util.h"
#include "views/view.h"

#define KEY_FN 0x200000
#define KEY_IS_FN(k) ((k) >= KEY_FN)

/* Canonical codes the input layer normalises to. */
#define KEYC_ENTER '\r'
#define KEYC_TAB '\t'
#define KEYC_ESC 0x1b

/* Keymap ids: 0..VIEW__COUNT-1 are the views' keymaps, then
 * KEYMAP_GENERIC (views/view.h). */
#define KEYMAP__COUNT (VIEW__COUNT + 1)

/* Parse one key at *s and advance past it. Returns 0, or -1 (err). */
int key_parse(const char **s, int *key, struct tp_err *err);
/* A whole word that must be exactly one key ("<C-x>", "q"). */
int key_parse_one(const char *s, int *key, struct tp_err *err);
/* Config-syntax name of a key ("<Enter>", "j", "<C-f>"). */
void key_label(int key, char *buf, size_t n);
/* Map what curses returned (wget_wch) to our key code. */
int key_from_curses(int rc, unsigned code);

/* -1 when unknown. */
int keymap_by_name(const char *name);
const char *keymap_name(int keymap);

/* Reset every keymap to the defaults. */
void keys_init(void);
void keys_free(void);
/* Bind (or, with REQ_NONE, unbind) a key in a keymap. */
void keys_bind(int keymap, int key, enum request req);
/* `bind KEYMAP KEY ACTION` arguments; errors say what was expected. */
int keys_bind_words(const char *keymap, const char *key, const char *action, struct tp_err *err);
/* The same check without binding anything. */
int keys_parse_bind(const char *keymap, const char *key, const char *action, int *km, int *k,
		    enum request *req, struct tp_err *err);
/* The action for a key in a view (its keymap, then generic). */
enum request keys_lookup(enum view_id view, int key);
/* Keys bound to req in one keymap (not following generic): up to max. */
size_t keys_bound(int keymap, enum request req, int *out, size_t max);

#endif
