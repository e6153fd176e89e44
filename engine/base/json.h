/* The few cJSON steps every state file's reader and writer repeats: a
 * string or a list of strings put only when there is one, and read back as
 * copies, with anything of another type taken as absent. */
#ifndef TILEPORT_CORE_JSON_H
#define TILEPORT_CORE_JSON_H

#include <cJSON.h>

/* o[k] = v; nothing when v is NULL. */
void json_put_str(cJSON *o, const char *k, const char *v);
/* o[k] = [v...]; nothing when v is NULL. */
void json_put_strv(cJSON *o, const char *k, char *const *v);
/* A copy of the string o[k], or NULL. */
char *json_get_str(const cJSON *o, const char *k);
/* Copies of the strings of the array o[k] (other items skipped),
 * NULL-terminated; NULL when o[k] is no array. */
char **json_get_strv(const cJSON *o, const char *k);

#endif
