/* Reading fields of JSON that agents and servers send: a wrong type is
 * the same as an absent field, and counts are finite, non-negative and
 * bounded, whatever arrives. */
#ifndef TILEPORT_AGENTS_JSON_GET_H
#define TILEPORT_AGENTS_JSON_GET_H

#include <cJSON.h>
#include <stdbool.h>
#include <stddef.h>

/* The string at key, or NULL. */
const char *json_str(const cJSON *o, const char *key);
/* A token count or similar: 0 unless a number in [0, 1e12]. */
long long json_count(const cJSON *o, const char *key);

/* A set of ids seen so far (message ids, item ids). */
struct idset {
	char **v;
	size_t n, cap;
};
/* Add id; true when it was not there yet. */
bool idset_add(struct idset *s, const char *id);
void idset_free(struct idset *s);

#endif
