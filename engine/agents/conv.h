/* The built-in agent's conversation: the prompt, then assistant turns
 * (text and tool calls) each followed by the results of its calls, as the
 * OpenAI chat and Anthropic messages APIs want them. Trimming drops the
 * oldest turns whole, a turn together with the results that answer it, so
 * that no call is ever sent without its result or a result without its
 * call (both APIs refuse either). */
#ifndef TILEPORT_AGENTS_CONV_H
#define TILEPORT_AGENTS_CONV_H

#include <cJSON.h>
#include <stdbool.h>
#include <stddef.h>

enum conv_role { CONV_USER, CONV_ASSISTANT, CONV_RESULTS };

struct conv_call {
	char *id, *name;
	char *args; /* a JSON object, as text */
};

struct conv_result {
	char *id;
	char *output;
	bool is_error;
};

struct conv_msg {
	enum conv_role role;
	char *text;                  /* user text, assistant text (may be "") */
	struct conv_call *calls;     /* assistant */
	size_t ncalls;
	struct conv_result *results; /* results */
	size_t nresults;
};

struct conv {
	char *system;
	struct conv_msg *m;
	size_t n, cap;
	size_t trimmed; /* turns dropped so far */
};

void conv_init(struct conv *c, const char *system);
void conv_user(struct conv *c, const char *text);
/* Copies text and calls. */
void conv_assistant(struct conv *c, const char *text, const struct conv_call *calls, size_t ncalls);
void conv_results(struct conv *c, const struct conv_result *res, size_t n);
void conv_free(struct conv *c);

/* Rough size the next request will have, in bytes of text. */
size_t conv_size(const struct conv *c);
/* Drop the oldest turns (after the first user message, never the latest
 * turn) until conv_size() <= budget. Returns how many turns went. */
size_t conv_trim(struct conv *c, size_t budget);

/* The "messages" array of each API. */
cJSON *conv_openai(const struct conv *c);
cJSON *conv_anthropic(const struct conv *c);

#endif
