/* Configuration files (docs/architecture.md, "Configuration"): `key = value`
 * lines, `[section]` headers that prefix the keys that follow
 * ("section.key"), `#` comments, and directive lines without '=' (such as
 * `bind VIEW KEY ACTION`), which are kept verbatim for the layer that
 * understands them. Later files override earlier ones; environment variables
 * win over both (the caller decides which keys an environment variable maps
 * to). */
#ifndef TILEPORT_CORE_CONFIG_H
#define TILEPORT_CORE_CONFIG_H

#include <stddef.h>

#include "engine/base/util.h"

struct config_entry {
	char *key;   /* "theme", "driver.A"; NULL for a directive line */
	char *value; /* the value, or the whole directive line */
	char *file;
	int line;
};

struct config {
	struct config_entry *v;
	size_t n, cap;
};

/* Parse one file and append its entries. A missing file is not an error.
 * A malformed line is: "FILE:LINE: expected 'key = value' ...", exit 2. */
int config_load_file(struct config *c, const char *path, struct tp_err *err);
/* The user's file: $XDG_CONFIG_HOME/tileport/config, else
 * ~/.config/tileport/config; NULL when neither variable is set. Caller frees.
 * (The workspace's is WORKSPACE/.tileport.conf; engine/core/session.h reads
 * both.) */
char *config_user_path(void);
/* Last value set for key, or NULL. */
const char *config_get(const struct config *c, const char *key);
/* Last entry for key (for its file and line), or NULL. */
const struct config_entry *config_find(const struct config *c, const char *key);
void config_free(struct config *c);

#endif
