#include "engine/agents/llm_stream.h"

#include "engine/agents/json_get.h"

#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What one call counts for besides its arguments, id and name: its slot,
 * and the search for it that every fragment makes; at the default cap a
 * response holds at most some two thousand calls (models make a few). */
#define CALL_BYTES 4096

static void fmt_size(size_t n, char *buf, size_t len)
{
	if (n >= ((size_t)1 << 20) && n % ((size_t)1 << 20) == 0)
		snprintf(buf, len, "%zu MiB", n >> 20);
	else if (n >= 1024 && n % 1024 == 0)
		snprintf(buf, len, "%zu KiB", n >> 10);
	else
		snprintf(buf, len, "%zu bytes", n);
}

/* n more bytes in the response (and in call c's arguments, when c): false
 * once a cap is passed, and then t->over says which. */
static bool take(struct llm_turn *t, struct llm_call *c, size_t n)
{
	if (t->over)
		return false;
	t->bytes += n;
	char size[32];
	if (c && t->max_args && c->args.len + n > t->max_args) {
		fmt_size(t->max_args, size, sizeof(size));
		t->over = xasprintf("the arguments of tool call %.64s (%.64s) passed %s (llm.max_tool_args); the "
				    "stream was stopped and nothing of it is sent back",
				    c->id ? c->id : "?", c->name ? c->name : "?", size);
	} else if (t->max_bytes && t->bytes > t->max_bytes) {
		fmt_size(t->max_bytes, size, sizeof(size));
		t->over = xasprintf("the response passed %s (llm.max_response); the stream was stopped", size);
	}
	return !t->over;
}

static void add_text(struct llm_turn *t, const char *s)
{
	size_t n = strlen(s);
	if (take(t, NULL, n))
		sb_add(&t->text, s, n);
}

static void add_args(struct llm_turn *t, struct llm_call *c, const char *s)
{
	size_t n = strlen(s);
	if (take(t, c, n))
		sb_add(&c->args, s, n);
}

static struct llm_call *new_call(struct llm_turn *t, int index)
{
	t->calls = xgrow(t->calls, &t->capcalls, t->ncalls + 1, sizeof(*t->calls));
	struct llm_call *c = &t->calls[t->ncalls++];
	memset(c, 0, sizeof(*c));
	c->index = index;
	take(t, NULL, CALL_BYTES);
	return c;
}

static void set(char **field, const char *v)
{
	if (v) {
		free(*field);
		*field = xstrdup(v);
	}
}

static void set_error(struct llm_turn *t, const cJSON *err)
{
	const char *msg = cJSON_IsObject(err) ? json_str(err, "message")
			  : cJSON_IsString(err) ? err->valuestring : NULL;
	const char *type = cJSON_IsObject(err) ? json_str(err, "type") : NULL;
	const char *code = cJSON_IsObject(err) ? json_str(err, "code") : NULL;
	free(t->error);
	/* a message is a line for a person, however much the server sent */
	t->error = xasprintf("%.200s%s%.2000s", type ? type : "error", msg ? ": " : "", msg ? msg : "");
	/* money and bad requests do not clear by waiting */
	t->error_final = (code && (!strcmp(code, "insufficient_quota") || !strcmp(code, "context_length_exceeded"))) ||
			 (type && (!strcmp(type, "invalid_request_error") || !strcmp(type, "authentication_error") ||
				   !strcmp(type, "permission_error") || !strcmp(type, "insufficient_quota")));
}

/* ---- OpenAI chat completions ---- */

/* The slot a fragment belongs to. */
static struct llm_call *openai_slot(struct llm_turn *t, const cJSON *tc)
{
	const cJSON *ix = cJSON_GetObjectItemCaseSensitive(tc, "index");
	const char *id = json_str(tc, "id");
	int index = cJSON_IsNumber(ix) && ix->valuedouble >= 0 && ix->valuedouble < 1e6 ? (int)ix->valuedouble : -1;
	if (id && *id) {
		for (size_t i = 0; i < t->ncalls; i++)
			if (t->calls[i].id && !strcmp(t->calls[i].id, id))
				return &t->calls[i];
		/* a new id is a new call, even when the server numbers every call 0 */
		struct llm_call *c = new_call(t, index);
		c->id = xstrdup(id);
		take(t, NULL, strlen(id));
		return c;
	}
	if (index >= 0)
		for (size_t i = t->ncalls; i-- > 0;)
			if (t->calls[i].index == index)
				return &t->calls[i];
	if (index < 0 && t->ncalls)
		return &t->calls[t->ncalls - 1];
	return new_call(t, index);
}

static void openai_fragment(struct llm_turn *t, const cJSON *tc)
{
	struct llm_call *c = openai_slot(t, tc);
	const cJSON *fn = cJSON_GetObjectItemCaseSensitive(tc, "function");
	if (!cJSON_IsObject(fn))
		return;
	const char *name = json_str(fn, "name");
	if (name && *name && !c->name) {
		c->name = xstrdup(name);
		take(t, NULL, strlen(name));
	}
	const cJSON *args = cJSON_GetObjectItemCaseSensitive(fn, "arguments");
	if (cJSON_IsString(args)) {
		add_args(t, c, args->valuestring);
	} else if (args && !cJSON_IsNull(args)) {
		char *j = cJSON_PrintUnformatted(args);
		sb_reset(&c->args);
		add_args(t, c, j);
		cJSON_free(j);
	}
}

static void openai_usage(struct llm_turn *t, const cJSON *u)
{
	if (!cJSON_IsObject(u))
		return;
	t->usage_seen = true;
	t->tokens_in = json_count(u, "prompt_tokens");
	t->tokens_out = json_count(u, "completion_tokens");
	const cJSON *d = cJSON_GetObjectItemCaseSensitive(u, "prompt_tokens_details");
	if (cJSON_IsObject(d))
		t->cache_read = json_count(d, "cached_tokens");
}

int llm_openai_chunk(struct llm_turn *t, const char *data, size_t n)
{
	while (n && (*data == ' ' || *data == '\t'))
		data++, n--;
	if (n == 6 && memcmp(data, "[DONE]", 6) == 0) {
		t->done = true;
		return 0;
	}
	cJSON *o = cJSON_ParseWithLength(data, n);
	if (!cJSON_IsObject(o)) {
		cJSON_Delete(o);
		return -1;
	}
	const cJSON *err = cJSON_GetObjectItemCaseSensitive(o, "error");
	if (err && !cJSON_IsNull(err))
		set_error(t, err);
	set(&t->model, json_str(o, "model"));
	openai_usage(t, cJSON_GetObjectItemCaseSensitive(o, "usage"));
	const cJSON *choices = cJSON_GetObjectItemCaseSensitive(o, "choices"), *ch;
	cJSON_ArrayForEach(ch, choices)
	{
		const cJSON *delta = cJSON_GetObjectItemCaseSensitive(ch, "delta");
		if (!cJSON_IsObject(delta))
			delta = cJSON_GetObjectItemCaseSensitive(ch, "message"); /* a whole reply */
		const char *fin = json_str(ch, "finish_reason");
		set(&t->stop_reason, fin);
		if (!cJSON_IsObject(delta))
			continue;
		const char *content = json_str(delta, "content");
		if (content)
			add_text(t, content);
		const cJSON *tcs = cJSON_GetObjectItemCaseSensitive(delta, "tool_calls"), *tc;
		cJSON_ArrayForEach(tc, tcs)
			if (cJSON_IsObject(tc))
				openai_fragment(t, tc);
	}
	cJSON_Delete(o);
	return 0;
}

/* ---- Anthropic messages ---- */

static struct llm_call *block_call(struct llm_turn *t, int index)
{
	for (size_t i = t->ncalls; i-- > 0;)
		if (t->calls[i].index == index)
			return &t->calls[i];
	return NULL;
}

static void anthropic_usage(struct llm_turn *t, const cJSON *u, bool start)
{
	if (!cJSON_IsObject(u))
		return;
	t->usage_seen = true;
	if (cJSON_GetObjectItemCaseSensitive(u, "input_tokens"))
		t->tokens_in = json_count(u, "input_tokens");
	if (cJSON_GetObjectItemCaseSensitive(u, "cache_read_input_tokens"))
		t->cache_read = json_count(u, "cache_read_input_tokens");
	if (cJSON_GetObjectItemCaseSensitive(u, "cache_creation_input_tokens"))
		t->cache_write = json_count(u, "cache_creation_input_tokens");
	/* message_delta's output count is cumulative; message_start's is a stub */
	if (!start || !t->tokens_out)
		t->tokens_out = json_count(u, "output_tokens");
}

int llm_anthropic_event(struct llm_turn *t, const char *event, const char *data, size_t n)
{
	cJSON *o = cJSON_ParseWithLength(data, n);
	if (!cJSON_IsObject(o)) {
		cJSON_Delete(o);
		return -1;
	}
	const char *type = json_str(o, "type");
	if (!type)
		type = event;
	const cJSON *ix = cJSON_GetObjectItemCaseSensitive(o, "index");
	int index = cJSON_IsNumber(ix) && ix->valuedouble >= 0 && ix->valuedouble < 1e6 ? (int)ix->valuedouble : -1;
	if (!strcmp(type, "message_start")) {
		const cJSON *m = cJSON_GetObjectItemCaseSensitive(o, "message");
		set(&t->model, json_str(m, "model"));
		anthropic_usage(t, cJSON_GetObjectItemCaseSensitive(m, "usage"), true);
	} else if (!strcmp(type, "content_block_start")) {
		const cJSON *b = cJSON_GetObjectItemCaseSensitive(o, "content_block");
		const char *bt = json_str(b, "type");
		if (bt && !strcmp(bt, "tool_use")) {
			struct llm_call *c = new_call(t, index);
			c->id = xstrdup(json_str(b, "id") ? json_str(b, "id") : "");
			c->name = xstrdup(json_str(b, "name") ? json_str(b, "name") : "");
			take(t, NULL, strlen(c->id) + strlen(c->name));
			const cJSON *in = cJSON_GetObjectItemCaseSensitive(b, "input");
			/* a whole input in the start block (no deltas follow) */
			if (cJSON_IsObject(in) && in->child) {
				char *j = cJSON_PrintUnformatted(in);
				add_args(t, c, j);
				cJSON_free(j);
			}
		} else if (bt && !strcmp(bt, "text")) {
			const char *s = json_str(b, "text");
			if (s)
				add_text(t, s);
		}
	} else if (!strcmp(type, "content_block_delta")) {
		const cJSON *d = cJSON_GetObjectItemCaseSensitive(o, "delta");
		const char *dt = json_str(d, "type");
		if (dt && !strcmp(dt, "text_delta") && json_str(d, "text")) {
			add_text(t, json_str(d, "text"));
		} else if (dt && !strcmp(dt, "input_json_delta") && json_str(d, "partial_json")) {
			struct llm_call *c = block_call(t, index);
			if (c)
				add_args(t, c, json_str(d, "partial_json"));
		}
	} else if (!strcmp(type, "message_delta")) {
		const cJSON *d = cJSON_GetObjectItemCaseSensitive(o, "delta");
		set(&t->stop_reason, json_str(d, "stop_reason"));
		anthropic_usage(t, cJSON_GetObjectItemCaseSensitive(o, "usage"), false);
	} else if (!strcmp(type, "message_stop")) {
		t->done = true;
	} else if (!strcmp(type, "error")) {
		set_error(t, cJSON_GetObjectItemCaseSensitive(o, "error"));
	}
	/* ping, content_block_stop, thinking deltas and new types: nothing to keep */
	cJSON_Delete(o);
	return 0;
}

void llm_turn_end(struct llm_turn *t)
{
	for (size_t i = 0; i < t->ncalls; i++) {
		struct llm_call *c = &t->calls[i];
		if (!c->id || !*c->id) {
			free(c->id);
			c->id = xasprintf("call_%zu", i + 1);
		}
		if (!c->name)
			c->name = xstrdup("");
		const char *a = sb_str(&c->args);
		size_t k = strspn(a, " \t\r\n");
		if (!a[k]) {
			sb_reset(&c->args);
			sb_adds(&c->args, "{}");
			continue;
		}
		cJSON *o = cJSON_ParseWithLength(c->args.buf, c->args.len);
		if (!cJSON_IsObject(o))
			c->bad_args = xstrdup(o ? "the arguments are JSON but not an object"
						: "the arguments are not valid JSON");
		cJSON_Delete(o);
	}
}

void llm_turn_free(struct llm_turn *t)
{
	for (size_t i = 0; i < t->ncalls; i++) {
		free(t->calls[i].id);
		free(t->calls[i].name);
		free(t->calls[i].bad_args);
		sb_free(&t->calls[i].args);
	}
	free(t->calls);
	sb_free(&t->text);
	free(t->stop_reason);
	free(t->model);
	free(t->error);
	free(t->over);
	size_t max_bytes = t->max_bytes, max_args = t->max_args;
	memset(t, 0, sizeof(*t));
	t->max_bytes = max_bytes;
	t->max_args = max_args;
}
