/* The llm driver: tileport's own agent loop over an LLM HTTP API, with the
 * confined tools of engine/agents/tools.h. Settings (environment first,
 * then the user config):
 *   TILEPORT_LLM_PROTOCOL  llm.protocol   openai (chat completions) | anthropic (messages)
 *   TILEPORT_LLM_BASE_URL  llm.base_url   default https://api.openai.com/v1, https://api.anthropic.com
 *   TILEPORT_LLM_MODEL     llm.model
 *   TILEPORT_LLM_API_KEY   llm.api_key_file (a file holding the key), else
 *                          OPENAI_API_KEY / ANTHROPIC_API_KEY by protocol
 * and llm.max_turns, llm.max_cost (USD), llm.max_tokens, llm.context_chars,
 * llm.retries, llm.stall_s, llm.max_response and llm.max_tool_args (the
 * caps on one response and on one call's arguments: llm_stream.h). */
#ifndef TILEPORT_AGENTS_LLM_H
#define TILEPORT_AGENTS_LLM_H

#include <stdbool.h>

#include "engine/base/config.h"
#include "engine/base/util.h"

enum llm_protocol { LLM_OPENAI, LLM_ANTHROPIC };

/* The caps' defaults: far above a real response (8192 tokens are some
 * 32 KB), far below what a hostile server can send. */
#define LLM_MAX_RESPONSE ((size_t)8 << 20)
#define LLM_MAX_TOOL_ARGS ((size_t)4 << 20)

struct llm_settings {
	enum llm_protocol protocol;
	char *base_url, *url; /* the endpoint requests go to */
	char *model;
	char *key;            /* NULL: no key (local servers) */
	char *key_source;     /* which variable or file it came from */
	bool configured;      /* a base URL or a key was given */
};

/* Read the settings; a bad protocol or an unreadable key file is an error. */
int llm_settings_load(const struct config *cfg, struct llm_settings *s, struct tp_err *err);
void llm_settings_free(struct llm_settings *s);

#endif
