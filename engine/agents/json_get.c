#include "engine/agents/json_get.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/base/util.h"

const char *json_str(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

long long json_count(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < 0)
		return 0;
	return v->valuedouble > 1e12 ? (long long)1e12 : (long long)v->valuedouble;
}

bool idset_add(struct idset *s, const char *id)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->v[i], id))
			return false;
	s->v = xgrow(s->v, &s->cap, s->n + 1, sizeof(*s->v));
	s->v[s->n++] = xstrdup(id);
	return true;
}

void idset_free(struct idset *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	memset(s, 0, sizeof(*s));
}
