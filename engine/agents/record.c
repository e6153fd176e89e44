#include "engine/agents/record.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "engine/base/proc.h"

void recorder_init(struct recorder *r, FILE *f)
{
	memset(r, 0, sizeof(*r));
	r->f = f;
	char **env = env_current();
	r->secrets = env_secrets(env, NULL);
	strv_free(env);
}

void recorder_secret(struct recorder *r, const char *name, const char *value)
{
	size_t n = strv_len(r->secrets);
	r->secrets = xrealloc(r->secrets, (n + 2) * sizeof(char *));
	r->secrets[n] = xasprintf("%s=%s", name, value);
	r->secrets[n + 1] = NULL;
}

void recorder_free(struct recorder *r)
{
	strv_free(r->secrets);
	free(r->final);
	memset(r, 0, sizeof(*r));
}

void rec_emit(struct recorder *r, cJSON *o)
{
	char *s = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	char *red = redact_secrets(s, r->secrets);
	cJSON_free(s);
	fputs(red, r->f);
	fputc('\n', r->f);
	fflush(r->f);
	free(red);
}

static cJSON *typed(const char *type)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "type", type);
	return o;
}

void rec_start(struct recorder *r, const char *driver, const char *model, const char *version)
{
	cJSON *o = typed("start");
	cJSON_AddStringToObject(o, "driver", driver);
	if (model && *model)
		cJSON_AddStringToObject(o, "model", model);
	if (version && *version)
		cJSON_AddStringToObject(o, "version", version);
	rec_emit(r, o);
}

void rec_text(struct recorder *r, const char *text)
{
	if (!text || !*text)
		return;
	cJSON *o = typed("text");
	cJSON_AddStringToObject(o, "text", text);
	rec_emit(r, o);
}

void rec_tool_call(struct recorder *r, const char *id, const char *name, const char *args_json)
{
	cJSON *o = typed("tool_call");
	cJSON_AddStringToObject(o, "id", id ? id : "");
	cJSON_AddStringToObject(o, "name", name ? name : "");
	cJSON *in = args_json ? cJSON_Parse(args_json) : NULL;
	if (in)
		cJSON_AddItemToObject(o, "input", in);
	else
		cJSON_AddStringToObject(o, "input", args_json ? args_json : "");
	r->tool_calls++;
	rec_emit(r, o);
}

void rec_tool_result(struct recorder *r, const char *id, const char *output, bool is_error)
{
	cJSON *o = typed("tool_result");
	cJSON_AddStringToObject(o, "id", id ? id : "");
	cJSON_AddStringToObject(o, "output", output ? output : "");
	cJSON_AddBoolToObject(o, "is_error", is_error);
	rec_emit(r, o);
}

void rec_usage(struct recorder *r, const struct usage *u)
{
	if (!u->tokens_in && !u->tokens_out && u->cost == 0)
		return;
	cJSON *o = typed("usage");
	cJSON_AddNumberToObject(o, "tokens_in", (double)u->tokens_in);
	cJSON_AddNumberToObject(o, "tokens_out", (double)u->tokens_out);
	cJSON_AddNumberToObject(o, "cost", u->cost);
	if (u->cache_read)
		cJSON_AddNumberToObject(o, "cache_read", (double)u->cache_read);
	if (u->cache_write)
		cJSON_AddNumberToObject(o, "cache_write", (double)u->cache_write);
	if (u->model && *u->model)
		cJSON_AddStringToObject(o, "model", u->model);
	r->tokens_in += u->tokens_in;
	r->tokens_out += u->tokens_out;
	r->cost += u->cost;
	rec_emit(r, o);
}

void rec_error(struct recorder *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg = xvasprintf(fmt, ap);
	va_end(ap);
	cJSON *o = typed("error");
	cJSON_AddStringToObject(o, "message", msg);
	free(msg);
	rec_emit(r, o);
}

void rec_retry(struct recorder *r, int attempt, int of, int64_t delay_ms, long status, const char *why)
{
	cJSON *o = typed("retry");
	cJSON_AddNumberToObject(o, "attempt", attempt);
	cJSON_AddNumberToObject(o, "of", of);
	cJSON_AddNumberToObject(o, "delay_ms", (double)delay_ms);
	if (status)
		cJSON_AddNumberToObject(o, "status", (double)status);
	cJSON_AddStringToObject(o, "message", why ? why : "");
	rec_emit(r, o);
}

void rec_handover(struct recorder *r, const char *from, const char *to, const char *reason,
		  const char *verdict)
{
	cJSON *o = typed("handover");
	cJSON_AddStringToObject(o, "from", from);
	cJSON_AddStringToObject(o, "to", to);
	cJSON_AddStringToObject(o, "reason", reason ? reason : "");
	if (verdict)
		cJSON_AddStringToObject(o, "verdict", verdict);
	rec_emit(r, o);
}

void rec_final(struct recorder *r, const char *text)
{
	free(r->final);
	r->final = xstrdup(text ? text : "");
	if (!r->hold_final)
		rec_commit_final(r);
}

void rec_commit_final(struct recorder *r)
{
	cJSON *o = typed("final");
	cJSON_AddStringToObject(o, "text", r->final ? r->final : "");
	rec_emit(r, o);
}
