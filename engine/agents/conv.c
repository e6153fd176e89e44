#include "engine/agents/conv.h"

#include <stdlib.h>
#include <string.h>

#include "engine/base/util.h"

void conv_init(struct conv *c, const char *system)
{
	memset(c, 0, sizeof(*c));
	c->system = xstrdup(system ? system : "");
}

static struct conv_msg *add(struct conv *c, enum conv_role role)
{
	c->m = xgrow(c->m, &c->cap, c->n + 1, sizeof(*c->m));
	struct conv_msg *m = &c->m[c->n++];
	memset(m, 0, sizeof(*m));
	m->role = role;
	return m;
}

void conv_user(struct conv *c, const char *text)
{
	add(c, CONV_USER)->text = xstrdup(text);
}

void conv_assistant(struct conv *c, const char *text, const struct conv_call *calls, size_t ncalls)
{
	struct conv_msg *m = add(c, CONV_ASSISTANT);
	m->text = xstrdup(text ? text : "");
	m->calls = xcalloc(ncalls + 1, sizeof(*m->calls));
	for (size_t i = 0; i < ncalls; i++)
		m->calls[i] = (struct conv_call){xstrdup(calls[i].id), xstrdup(calls[i].name),
						 xstrdup(calls[i].args)};
	m->ncalls = ncalls;
}

void conv_results(struct conv *c, const struct conv_result *res, size_t n)
{
	struct conv_msg *m = add(c, CONV_RESULTS);
	m->results = xcalloc(n + 1, sizeof(*m->results));
	for (size_t i = 0; i < n; i++)
		m->results[i] = (struct conv_result){xstrdup(res[i].id), xstrdup(res[i].output), res[i].is_error};
	m->nresults = n;
}

static void msg_free(struct conv_msg *m)
{
	free(m->text);
	for (size_t i = 0; i < m->ncalls; i++) {
		free(m->calls[i].id);
		free(m->calls[i].name);
		free(m->calls[i].args);
	}
	free(m->calls);
	for (size_t i = 0; i < m->nresults; i++) {
		free(m->results[i].id);
		free(m->results[i].output);
	}
	free(m->results);
}

void conv_free(struct conv *c)
{
	for (size_t i = 0; i < c->n; i++)
		msg_free(&c->m[i]);
	free(c->m);
	free(c->system);
	memset(c, 0, sizeof(*c));
}

static size_t msg_size(const struct conv_msg *m)
{
	size_t n = m->text ? strlen(m->text) : 0;
	for (size_t i = 0; i < m->ncalls; i++)
		n += strlen(m->calls[i].args) + strlen(m->calls[i].name) + 32;
	for (size_t i = 0; i < m->nresults; i++)
		n += strlen(m->results[i].output) + 32;
	return n;
}

size_t conv_size(const struct conv *c)
{
	size_t n = strlen(c->system);
	for (size_t i = 0; i < c->n; i++)
		n += msg_size(&c->m[i]);
	return n;
}

/* Length of the turn starting at i: an assistant message and what answers
 * it (its results, or a user nudge), up to the next assistant message. */
static size_t turn_len(const struct conv *c, size_t i)
{
	size_t k = i + 1;
	while (k < c->n && c->m[k].role != CONV_ASSISTANT)
		k++;
	return k - i;
}

size_t conv_trim(struct conv *c, size_t budget)
{
	size_t dropped = 0;
	/* m[0] is the prompt; turns start at the first assistant message */
	while (conv_size(c) > budget && c->n > 1 && c->m[1].role == CONV_ASSISTANT) {
		size_t len = turn_len(c, 1);
		if (1 + len >= c->n)
			break; /* the latest turn stays */
		for (size_t k = 1; k < 1 + len; k++)
			msg_free(&c->m[k]);
		memmove(&c->m[1], &c->m[1 + len], (c->n - 1 - len) * sizeof(*c->m));
		c->n -= len;
		dropped++;
	}
	c->trimmed += dropped;
	return dropped;
}

static const char *trim_note(const struct conv *c, size_t i)
{
	return c->trimmed && i == 0 ? "\n\n(tileport trimmed the oldest turns of this conversation to fit "
				      "the context; re-read a file if you need it again.)"
				    : "";
}

static char *user_text(const struct conv *c, size_t i)
{
	return xasprintf("%s%s", c->m[i].text, trim_note(c, i));
}

cJSON *conv_openai(const struct conv *c)
{
	cJSON *a = cJSON_CreateArray();
	if (*c->system) {
		cJSON *s = cJSON_CreateObject();
		cJSON_AddStringToObject(s, "role", "system");
		cJSON_AddStringToObject(s, "content", c->system);
		cJSON_AddItemToArray(a, s);
	}
	for (size_t i = 0; i < c->n; i++) {
		const struct conv_msg *m = &c->m[i];
		if (m->role == CONV_USER) {
			cJSON *o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "role", "user");
			char *t = user_text(c, i);
			cJSON_AddStringToObject(o, "content", t);
			free(t);
			cJSON_AddItemToArray(a, o);
		} else if (m->role == CONV_ASSISTANT) {
			cJSON *o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "role", "assistant");
			if (*m->text || !m->ncalls)
				cJSON_AddStringToObject(o, "content", m->text);
			else
				cJSON_AddNullToObject(o, "content");
			if (m->ncalls) {
				cJSON *tcs = cJSON_AddArrayToObject(o, "tool_calls");
				for (size_t k = 0; k < m->ncalls; k++) {
					cJSON *tc = cJSON_CreateObject();
					cJSON_AddStringToObject(tc, "id", m->calls[k].id);
					cJSON_AddStringToObject(tc, "type", "function");
					cJSON *fn = cJSON_AddObjectToObject(tc, "function");
					cJSON_AddStringToObject(fn, "name", m->calls[k].name);
					cJSON_AddStringToObject(fn, "arguments", m->calls[k].args);
					cJSON_AddItemToArray(tcs, tc);
				}
			}
			cJSON_AddItemToArray(a, o);
		} else {
			for (size_t k = 0; k < m->nresults; k++) {
				cJSON *o = cJSON_CreateObject();
				cJSON_AddStringToObject(o, "role", "tool");
				cJSON_AddStringToObject(o, "tool_call_id", m->results[k].id);
				cJSON_AddStringToObject(o, "content", m->results[k].output);
				cJSON_AddItemToArray(a, o);
			}
		}
	}
	return a;
}

cJSON *conv_anthropic(const struct conv *c)
{
	cJSON *a = cJSON_CreateArray();
	for (size_t i = 0; i < c->n; i++) {
		const struct conv_msg *m = &c->m[i];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "role", m->role == CONV_ASSISTANT ? "assistant" : "user");
		cJSON *content = cJSON_AddArrayToObject(o, "content");
		if (m->role == CONV_USER) {
			cJSON *b = cJSON_CreateObject();
			cJSON_AddStringToObject(b, "type", "text");
			char *t = user_text(c, i);
			cJSON_AddStringToObject(b, "text", t);
			free(t);
			cJSON_AddItemToArray(content, b);
		} else if (m->role == CONV_ASSISTANT) {
			/* the API refuses an empty assistant message */
			if (*m->text || !m->ncalls) {
				cJSON *b = cJSON_CreateObject();
				cJSON_AddStringToObject(b, "type", "text");
				cJSON_AddStringToObject(b, "text", *m->text ? m->text : "(no text)");
				cJSON_AddItemToArray(content, b);
			}
			for (size_t k = 0; k < m->ncalls; k++) {
				cJSON *b = cJSON_CreateObject();
				cJSON_AddStringToObject(b, "type", "tool_use");
				cJSON_AddStringToObject(b, "id", m->calls[k].id);
				cJSON_AddStringToObject(b, "name", m->calls[k].name);
				cJSON *in = cJSON_Parse(m->calls[k].args);
				if (!cJSON_IsObject(in)) {
					cJSON_Delete(in);
					in = cJSON_CreateObject();
				}
				cJSON_AddItemToObject(b, "input", in);
				cJSON_AddItemToArray(content, b);
			}
		} else {
			for (size_t k = 0; k < m->nresults; k++) {
				cJSON *b = cJSON_CreateObject();
				cJSON_AddStringToObject(b, "type", "tool_result");
				cJSON_AddStringToObject(b, "tool_use_id", m->results[k].id);
				cJSON_AddStringToObject(b, "content", m->results[k].output);
				if (m->results[k].is_error)
					cJSON_AddBoolToObject(b, "is_error", true);
				cJSON_AddItemToArray(content, b);
			}
		}
		cJSON_AddItemToArray(a, o);
	}
	return a;
}
