/* The price table: USD per million tokens per model, from built-in
 * defaults and `price.MODEL = in=3 out=15 cache_read=0.3 cache_write=3.75`
 * lines in the config (a config line wins over a default). A model id
 * matches an entry that equals it or that it starts with at a '-' or '@'
 * boundary ("claude-sonnet-4-5-20250929" takes "claude-sonnet-4-5"); the
 * longest entry wins. Unknown models cost nothing (shown as "-"): local
 * servers are free and guessing would mislead. */
#ifndef TILEPORT_AGENTS_METER_H
#define TILEPORT_AGENTS_METER_H

#include <stdbool.h>
#include <stddef.h>

#include "engine/base/config.h"
#include "engine/base/util.h"

struct price {
	char *model;
	double in, out, cache_read, cache_write; /* USD per million tokens */
	const char *source; /* "default" or FILE:LINE */
};

struct prices {
	struct price *v;
	size_t n, cap;
};

/* One price line's value ("in=3 out=15 ..."); key names it in the error.
 * Fills in, out and the cache prices. */
int price_parse(const char *key, const char *value, struct price *out, struct tp_err *err);
/* Defaults, then the config's price.* lines; a malformed one is an error
 * naming its file and line (exit 2). cfg may be NULL. */
int prices_load(struct prices *p, const struct config *cfg, struct tp_err *err);
void prices_free(struct prices *p);
const struct price *prices_find(const struct prices *p, const char *model);
/* Cost of one usage: tokens_in counts every input token, cache_read and
 * cache_write the parts of it read from or written to a prompt cache.
 * *known (may be NULL) says whether the model had a price. */
double prices_cost(const struct prices *p, const char *model, long long tokens_in, long long cache_read,
		   long long cache_write, long long tokens_out, bool *known);

#endif
