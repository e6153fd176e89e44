#include "engine/agents/llm.h"

#include <cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/agents/agent.h"
#include "engine/agents/conv.h"
#include "engine/agents/http.h"
#include "engine/agents/llm_stream.h"
#include "engine/agents/retry.h"
#include "engine/agents/sse.h"
#include "engine/agents/tools.h"
#include "engine/base/files.h"

static const char *env_or_cfg(const struct config *cfg, const char *env, const char *key)
{
	const char *v = env ? getenv(env) : NULL;
	if (v && *v)
		return v;
	v = cfg ? config_get(cfg, key) : NULL;
	return v && *v ? v : NULL;
}

static char *read_key_file(const char *path, struct tp_err *err)
{
	char *text = read_file(path, NULL, err);
	if (!text) {
		tp_err_set(err, TP_EXIT_ENV, "llm.api_key_file %s: cannot read it", path);
		return NULL;
	}
	str_trim(text);
	if (!*text) {
		tp_err_set(err, TP_EXIT_ENV, "llm.api_key_file %s: empty", path);
		free(text);
		return NULL;
	}
	return text;
}

int llm_settings_load(const struct config *cfg, struct llm_settings *s, struct tp_err *err)
{
	memset(s, 0, sizeof(*s));
	const char *proto = env_or_cfg(cfg, "TILEPORT_LLM_PROTOCOL", "llm.protocol");
	const char *oa = getenv("OPENAI_API_KEY"), *an = getenv("ANTHROPIC_API_KEY");
	if (proto && strcmp(proto, "openai") && strcmp(proto, "anthropic")) {
		tp_err_set(err, TP_EXIT_USAGE, "llm protocol '%s': expected openai or anthropic "
					       "(TILEPORT_LLM_PROTOCOL, llm.protocol)", proto);
		return -1;
	}
	/* with only an Anthropic key about, that is the API meant */
	s->protocol = proto ? (!strcmp(proto, "anthropic") ? LLM_ANTHROPIC : LLM_OPENAI)
			    : (an && *an && !(oa && *oa)) ? LLM_ANTHROPIC : LLM_OPENAI;
	bool anth = s->protocol == LLM_ANTHROPIC;
	const char *base = env_or_cfg(cfg, "TILEPORT_LLM_BASE_URL", "llm.base_url");
	const char *key = getenv("TILEPORT_LLM_API_KEY");
	const char *file = cfg ? config_get(cfg, "llm.api_key_file") : NULL;
	if (key && *key) {
		s->key = xstrdup(key);
		s->key_source = xstrdup("TILEPORT_LLM_API_KEY");
	} else if (file && *file) {
		if (!(s->key = read_key_file(file, err)))
			return -1;
		s->key_source = xasprintf("llm.api_key_file %s", file);
	} else if ((key = anth ? an : oa) && *key) {
		s->key = xstrdup(key);
		s->key_source = xstrdup(anth ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY");
	}
	s->configured = base || s->key;
	s->base_url = xstrdup(base ? base : anth ? "https://api.anthropic.com" : "https://api.openai.com/v1");
	size_t n = strlen(s->base_url);
	while (n && s->base_url[n - 1] == '/')
		s->base_url[--n] = '\0';
	/* Anthropic bases are given with or without /v1 (llama.cpp, Ollama) */
	s->url = anth ? xasprintf("%s%s/messages", s->base_url, str_ends(s->base_url, "/v1") ? "" : "/v1")
		      : xasprintf("%s/chat/completions", s->base_url);
	const char *model = env_or_cfg(cfg, "TILEPORT_LLM_MODEL", "llm.model");
	s->model = xstrdup(model ? model : anth ? "claude-sonnet-4-5" : "gpt-4.1");
	return 0;
}

void llm_settings_free(struct llm_settings *s)
{
	free(s->base_url);
	free(s->url);
	free(s->model);
	free(s->key);
	free(s->key_source);
	memset(s, 0, sizeof(*s));
}

void llm_probe(const struct agent_probe *q, struct driver_status *st)
{
	memset(st, 0, sizeof(*st));
	struct llm_settings s;
	struct tp_err err;
	if (llm_settings_load(q->cfg, &s, &err) < 0) {
		st->why = xstrdup(err.msg);
		return;
	}
	st->path = xstrdup(s.url);
	st->available = s.configured;
	if (!s.configured)
		st->why = xstrdup("no endpoint: set TILEPORT_LLM_BASE_URL (a local server: llama.cpp, vLLM, "
				  "Ollama) or an API key (TILEPORT_LLM_API_KEY, OPENAI_API_KEY, ANTHROPIC_API_KEY)");
	else
		st->why = xasprintf("%s, model %s, key %s", s.protocol == LLM_ANTHROPIC ? "anthropic" : "openai",
				    s.model, s.key_source ? s.key_source : "none");
	llm_settings_free(&s);
}

/* ---- one request ---- */

static const char system_prompt[] =
	"You are a coding agent run by tileport, a workbench that converts GPU tile kernels to cuTile "
	"Rust, one pipeline stage at a time. You act only through your tools: read_file, write_file, "
	"edit_file, list_dir and run_command. Paths are relative to the run directory (OUT), or "
	"absolute under the run directory, the workspace, or the skill (read-only); the tools refuse "
	"anything else. Commands run in the run directory with a timeout. Do the stage the user "
	"message describes, following its Step-0 files. When the work is done, answer without a tool "
	"call: that last message is the stage's reply and must end with the <VALIDATOR_OUTPUT> block "
	"and the VERDICT line, exactly as the OUTPUT PROTOCOL says.";

struct stream_ctx {
	struct llm_turn *turn;
	enum llm_protocol protocol;
	struct sse sse;
	bool malformed;
	struct agent_ctx *agent;
};

static int on_event(const struct sse_event *ev, void *ud)
{
	struct stream_ctx *s = ud;
	int rc = s->protocol == LLM_OPENAI ? llm_openai_chunk(s->turn, ev->data, ev->len)
					   : llm_anthropic_event(s->turn, ev->event, ev->data, ev->len);
	if (rc < 0)
		s->malformed = true;
	return rc < 0 || s->turn->over;
}

static void on_data(const char *d, size_t n, void *ud)
{
	sse_feed(&((struct stream_ctx *)ud)->sse, d, n);
}

/* The loop runs between chunks, so a signal sets ctx->stop at once; a
 * stream past a cap is dropped there too, not read to its end. */
static bool cancelled(void *ud)
{
	struct stream_ctx *s = ud;
	loop_run_once(s->agent->loop, 0);
	return s->agent->stop || s->turn->over || s->sse.too_big;
}

static char *request_body(const struct llm_settings *ls, const struct conv *c, long max_tokens)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "model", ls->model);
	if (ls->protocol == LLM_ANTHROPIC) {
		cJSON_AddNumberToObject(o, "max_tokens", (double)max_tokens);
		cJSON_AddStringToObject(o, "system", c->system);
		cJSON_AddItemToObject(o, "messages", conv_anthropic(c));
		cJSON_AddItemToObject(o, "tools", tools_anthropic());
	} else {
		cJSON_AddItemToObject(o, "messages", conv_openai(c));
		cJSON_AddItemToObject(o, "tools", tools_openai());
		cJSON_AddStringToObject(o, "tool_choice", "auto");
		cJSON_AddObjectToObject(o, "stream_options");
		cJSON_AddBoolToObject(cJSON_GetObjectItem(o, "stream_options"), "include_usage", true);
		cJSON_AddNumberToObject(o, "max_tokens", (double)max_tokens);
	}
	cJSON_AddBoolToObject(o, "stream", true);
	char *s = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	char *body = xstrdup(s);
	cJSON_free(s);
	return body;
}

/* An error body in a few words: the API's message when it sent JSON. */
static char *error_text(long status, const char *body)
{
	cJSON *o = cJSON_Parse(body);
	const cJSON *e = cJSON_GetObjectItemCaseSensitive(o, "error");
	const cJSON *m = cJSON_IsObject(e) ? cJSON_GetObjectItemCaseSensitive(e, "message") : e;
	char *s = cJSON_IsString(m) ? xasprintf("HTTP %ld: %s", status, m->valuestring)
				    : xasprintf("HTTP %ld: %.200s", status, body);
	cJSON_Delete(o);
	for (char *p = s; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	return s;
}

/* The backoff waits, unless a test says not to (it still records them). */
static int64_t waited(int64_t ms)
{
	const char *t = getenv("TILEPORT_TEST_BACKOFF");
	return t && !strcmp(t, "0") ? 0 : ms;
}

static int ask(struct agent_ctx *ctx, const struct llm_settings *ls, const struct conv *c, struct llm_turn *turn,
	       char **failure)
{
	long retries = agent_setting_long(ctx, "llm.retries", 4);
	long max_tokens = agent_setting_long(ctx, "llm.max_tokens", 8192);
	turn->max_bytes = agent_setting_size(ctx, "llm.max_response", LLM_MAX_RESPONSE);
	turn->max_args = agent_setting_size(ctx, "llm.max_tool_args", LLM_MAX_TOOL_ARGS);
	char *body = request_body(ls, c, max_tokens);
	char *hdr[6] = {0};
	size_t nh = 0;
	hdr[nh++] = xstrdup("Content-Type: application/json");
	hdr[nh++] = xstrdup("Accept: text/event-stream");
	if (ls->protocol == LLM_ANTHROPIC) {
		hdr[nh++] = xstrdup("anthropic-version: 2023-06-01");
		if (ls->key)
			hdr[nh++] = xasprintf("x-api-key: %s", ls->key);
	} else if (ls->key) {
		hdr[nh++] = xasprintf("Authorization: Bearer %s", ls->key);
	}
	unsigned seed = (unsigned)getpid() ^ (unsigned)now_ms();
	int rc = -1;
	for (int attempt = 0; attempt <= retries && !ctx->stop; attempt++) {
		llm_turn_free(turn);
		struct stream_ctx s = {.turn = turn, .protocol = ls->protocol, .agent = ctx};
		sse_init(&s.sse, on_event, &s);
		struct http_request rq = {ls->url, body, hdr, 30, agent_setting_long(ctx, "llm.stall_s", 300),
					  on_data, cancelled, &s};
		struct http_response rs;
		int h = http_post(&rq, &rs);
		sse_finish(&s.sse);
		char *why = NULL;
		bool again = false;
		/* a cap passed or an event too big: the server will do it again */
		if (turn->over && !ctx->stop) {
			why = xstrdup(turn->over);
		} else if (s.sse.too_big && !ctx->stop) {
			why = xasprintf("the server sent one stream event of more than %zu MiB, the most tileport "
					"reads; not retried", SSE_EVENT_MAX >> 20);
		} else if (rs.cancelled || ctx->stop) {
			why = xstrdup("stopped");
		} else if (h < 0 && !s.malformed) {
			why = xasprintf("no complete response: %s", rs.error);
			again = true;
		} else if (rs.status < 200 || rs.status >= 300) {
			why = error_text(rs.status, sb_str(&rs.error_body));
			again = retry_wanted(rs.status, rs.should_retry, sb_str(&rs.error_body));
		} else if (s.malformed) {
			why = xstrdup("the stream carried an event that is not JSON");
			again = true;
		} else if (turn->error) {
			why = xasprintf("the stream reported an error: %s", turn->error);
			again = !turn->error_final && retry_wanted(0, rs.should_retry, turn->error);
		} else if (!turn->done && h == 0 && turn->stop_reason && ls->protocol == LLM_OPENAI) {
			/* a server that closes after its finish_reason without [DONE]: complete */
		} else if (!turn->done && !turn->ncalls && !turn->text.len) {
			why = xstrdup("the stream ended before its last event");
			again = true;
		} else if (!turn->done) {
			why = xstrdup("the stream was cut before its last event");
			again = true;
		}
		sse_free(&s.sse);
		if (!why) {
			http_response_free(&rs);
			rc = 0;
			break;
		}
		double rnd = (double)rand_r(&seed) / ((double)RAND_MAX + 1);
		int64_t delay = again && attempt < retries ? retry_delay_ms(attempt, rs.retry_after_ms, rnd) : -1;
		if (again && attempt < retries && delay < 0) {
			char *w = xasprintf("%s; the server asks to wait %.0f s, longer than %d s", why,
					    (double)rs.retry_after_ms / 1000, RETRY_CAP_MS / 1000);
			free(why);
			why = w;
		}
		long status = rs.status;
		http_response_free(&rs);
		if (delay < 0) {
			free(*failure);
			*failure = why;
			break;
		}
		rec_retry(ctx->rec, attempt + 1, (int)retries, delay, status, why);
		free(why);
		if (!agent_wait(ctx, waited(delay)))
			break;
	}
	if (rc < 0 && !*failure)
		*failure = xstrdup("stopped");
	for (size_t i = 0; i < nh; i++)
		free(hdr[i]);
	free(body);
	return rc;
}

/* ---- the loop ---- */

static bool json_valid_object(const char *s)
{
	cJSON *o = cJSON_Parse(s);
	bool ok = cJSON_IsObject(o);
	cJSON_Delete(o);
	return ok;
}

int llm_run(struct agent_ctx *ctx)
{
	struct llm_settings ls;
	struct tp_err err;
	if (llm_settings_load(ctx->cfg, &ls, &err) < 0) {
		rec_error(ctx->rec, "%s", err.msg);
		return err.code;
	}
	if (ls.key && ls.key_source && str_starts(ls.key_source, "llm.api_key_file"))
		recorder_secret(ctx->rec, "LLM_API_KEY", ls.key);
	char *prompt = read_file(ctx->prompt_path, NULL, &err);
	struct tools tools;
	if (!prompt || tools_init(&tools, ctx->run_dir, ctx->workspace, ctx->skill_dir, ctx->loop, &err) < 0) {
		rec_error(ctx->rec, "%s", err.msg);
		free(prompt);
		llm_settings_free(&ls);
		return TP_EXIT_ENV;
	}
	tools.secrets = ctx->rec->secrets;
	tools.command_log = ctx->command_log;
	tools.kill_grace_ms = ctx->kill_grace_ms;
	tools.stop = &ctx->stop;
	const char *confine = agent_setting(ctx, NULL, "llm.confine_commands");
	if (confine && !strcmp(confine, "off")) {
		strv_free(tools.write_roots);
		tools.write_roots = NULL;
	}
	rec_start(ctx->rec, "llm", ls.model, ls.protocol == LLM_ANTHROPIC ? "anthropic" : "openai");
	struct conv c;
	conv_init(&c, system_prompt);
	conv_user(&c, prompt);
	free(prompt);
	long max_turns = agent_setting_long(ctx, "llm.max_turns", 60);
	long budget = agent_setting_long(ctx, "llm.context_chars", 400000);
	const char *mc = agent_setting(ctx, NULL, "llm.max_cost");
	double max_cost = mc ? strtod(mc, NULL) : 0;
	char *final = NULL, *failure = NULL;
	int rc = TP_EXIT_OK;
	long turn_no = 0;
	bool no_usage_said = false;
	for (; turn_no < max_turns && !ctx->stop; turn_no++) {
		size_t dropped = conv_trim(&c, (size_t)budget);
		if (dropped)
			rec_text(ctx->rec, "(trimmed the oldest turns of the conversation to fit llm.context_chars)");
		struct llm_turn t = {0};
		if (ask(ctx, &ls, &c, &t, &failure) < 0) {
			llm_turn_free(&t);
			break;
		}
		llm_turn_end(&t);
		const char *model = t.model ? t.model : ls.model;
		struct usage u = {t.tokens_in + t.cache_read + t.cache_write, t.tokens_out, t.cache_read,
				  t.cache_write, 0, model};
		if (ls.protocol == LLM_OPENAI)
			u.tokens_in = t.tokens_in; /* OpenAI counts cached tokens inside prompt_tokens */
		u.cost = prices_cost(ctx->prices, model, u.tokens_in, u.cache_read, u.cache_write, u.tokens_out, NULL);
		if (!t.usage_seen && !no_usage_said) {
			rec_error(ctx->rec, "the server sends no usage; tokens are not counted");
			no_usage_said = true;
		}
		rec_usage(ctx->rec, &u);
		rec_text(ctx->rec, sb_str(&t.text));
		free(final);
		final = xstrdup(sb_str(&t.text));
		if (!t.ncalls) {
			llm_turn_free(&t);
			break;
		}
		struct conv_call *calls = xcalloc(t.ncalls, sizeof(*calls));
		struct conv_result *res = xcalloc(t.ncalls, sizeof(*res));
		for (size_t i = 0; i < t.ncalls; i++) {
			const struct llm_call *lc = &t.calls[i];
			bool ok = !lc->bad_args && json_valid_object(lc->args.buf);
			calls[i] = (struct conv_call){lc->id, lc->name, ok ? lc->args.buf : "{}"};
			rec_tool_call(ctx->rec, lc->id, lc->name, sb_str(&lc->args));
			struct tool_result tr = {0};
			if (!ok) {
				const char *why = lc->bad_args ? lc->bad_args : "the arguments are not valid JSON";
				tr.output = xasprintf("%s: %s; send the call again with a JSON object", lc->name, why);
				tr.is_error = true;
			} else {
				tools_exec(&tools, lc->name, lc->args.buf, &tr);
			}
			rec_tool_result(ctx->rec, lc->id, tr.output, tr.is_error);
			res[i] = (struct conv_result){lc->id, tr.output, tr.is_error};
		}
		conv_assistant(&c, sb_str(&t.text), calls, t.ncalls);
		conv_results(&c, res, t.ncalls);
		for (size_t i = 0; i < t.ncalls; i++)
			free(res[i].output);
		free(res);
		free(calls);
		llm_turn_free(&t);
		if (max_cost > 0 && ctx->rec->cost >= max_cost) {
			failure = xasprintf("spent $%.4f, the limit is $%.4f (llm.max_cost)", ctx->rec->cost,
					    max_cost);
			break;
		}
	}
	if (!failure && turn_no >= max_turns)
		failure = xasprintf("%ld turns without a final answer (llm.max_turns)", max_turns);
	if (failure && !ctx->stop) {
		rec_error(ctx->rec, "llm: %s", failure);
		rc = TP_EXIT_FAILED;
	}
	rec_final(ctx->rec, final ? final : "");
	free(final);
	free(failure);
	conv_free(&c);
	tools_free(&tools);
	llm_settings_free(&ls);
	return rc;
}
