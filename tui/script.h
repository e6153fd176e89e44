/* Script mode (TILEPORT_SCRIPT=FILE): one entry per line, applied in
 * order, each once the program is idle (nothing loading or streaming).
 *   :command args     a prompt command (:save-display FILE, :resize 160x48)
 *   keys              keys in config syntax: j  <Down>  <Enter>  <C-f>;
 *                     several on one line are applied one by one, and any
 *                     other character is typed as itself (text for prompts)
 *   # comment         (a lone # key is written <Hash>)
 * Reaching the end of the script quits. */
#ifndef TILEPORT_TUI_SCRIPT_H
#define TILEPORT_TUI_SCRIPT_H

#include "engine/base/util.h"

struct script;

enum script_item { SCRIPT_END, SCRIPT_KEY, SCRIPT_COMMAND, SCRIPT_ERROR };

struct script *script_open(const char *path, struct tp_err *err);
/* The next entry: a key in *key, or a command in *cmd (valid until the
 * next call). SCRIPT_ERROR sets err (file:line: message). */
enum script_item script_next(struct script *s, int *key, const char **cmd, struct tp_err *err);
/* "file:line" of the entry last returned. */
const char *script_where(struct script *s);
void script_free(struct script *s);

#endif
