/* One model response, assembled from a streamed reply: the text, the tool
 * calls (their arguments concatenated from fragments and parsed only when
 * the stream ends), the usage and how the response ended. Two wire formats
 * feed it: OpenAI chat-completion chunks and Anthropic message events.
 *
 * Whether the model wants tools is decided from the calls collected, never
 * from finish_reason: "compatible" servers say "stop" with tool calls, omit
 * the call index or number every call 0, and send arguments as an object.
 *
 * A response is capped (max_bytes: its text, its calls and their
 * arguments together) and so is one call's arguments (max_args): past
 * either, over says which and nothing more is taken in, so a hostile
 * server cannot grow it without bound (docs/agents.md, "llm"). */
#ifndef TILEPORT_AGENTS_LLM_STREAM_H
#define TILEPORT_AGENTS_LLM_STREAM_H

#include <stdbool.h>
#include <stddef.h>

#include "engine/base/util.h"

struct llm_call {
	char *id, *name;
	struct sbuf args; /* JSON text of the arguments, as received */
	int index;        /* the stream's index or block number; -1 when none */
	char *bad_args;   /* after llm_turn_end: why args are not a JSON object */
};

struct llm_turn {
	struct sbuf text;
	struct llm_call *calls;
	size_t ncalls, capcalls;
	long long tokens_in, tokens_out, cache_read, cache_write;
	bool usage_seen;
	char *stop_reason;
	char *model;
	bool done;         /* the terminal event arrived ([DONE], message_stop) */
	char *error;       /* an error reported inside the stream */
	bool error_final;  /* that error will not clear by retrying */
	size_t max_bytes, max_args; /* the caps; 0: none */
	size_t bytes;      /* what the response holds so far, against max_bytes */
	char *over;        /* set when a cap was passed: which, in words */
};

/* One SSE event of an OpenAI chat-completions stream (its data). Returns -1
 * when the data is not the JSON the format promises. */
int llm_openai_chunk(struct llm_turn *t, const char *data, size_t n);
/* One SSE event of an Anthropic messages stream. */
int llm_anthropic_event(struct llm_turn *t, const char *event, const char *data, size_t n);
/* The stream is over: parse each call's arguments (an empty string is {}). */
void llm_turn_end(struct llm_turn *t);
/* Free what the turn holds; its caps stay. */
void llm_turn_free(struct llm_turn *t);

#endif
