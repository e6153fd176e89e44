#include "engine/base/json.h"

#include "engine/base/util.h"

void json_put_str(cJSON *o, const char *k, const char *v)
{
	if (v)
		cJSON_AddStringToObject(o, k, v);
}

void json_put_strv(cJSON *o, const char *k, char *const *v)
{
	if (!v)
		return;
	cJSON *a = cJSON_AddArrayToObject(o, k);
	for (size_t i = 0; v[i]; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(v[i]));
}

char *json_get_str(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsString(v) ? xstrdup(v->valuestring) : NULL;
}

char **json_get_strv(const cJSON *o, const char *k)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, k);
	if (!cJSON_IsArray(a))
		return NULL;
	char **v = xcalloc((size_t)cJSON_GetArraySize(a) + 1, sizeof(*v));
	size_t n = 0;
	const cJSON *it;
	cJSON_ArrayForEach(it, a)
		if (cJSON_IsString(it))
			v[n++] = xstrdup(it->valuestring);
	return v;
}
