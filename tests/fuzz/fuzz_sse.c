/* libFuzzer target: a streamed LLM reply through the line framer and the
 * SSE decoder, cut at a point the first byte chooses, each event given to
 * both assemblers (OpenAI chunks and Anthropic events). */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine/agents/llm_stream.h"
#include "engine/agents/sse.h"

struct both {
	struct llm_turn oa, an;
};

static int on_event(const struct sse_event *ev, void *ud)
{
	struct both *b = ud;
	if (strlen(ev->data) > ev->len)
		__builtin_trap();
	llm_openai_chunk(&b->oa, ev->data, ev->len);
	llm_anthropic_event(&b->an, ev->event, ev->data, ev->len);
	return 0;
}

static void check(struct llm_turn *t)
{
	llm_turn_end(t);
	for (size_t i = 0; i < t->ncalls; i++)
		if (!t->calls[i].id || !*t->calls[i].id || !t->calls[i].name)
			__builtin_trap();
	if (t->tokens_in < 0 || t->tokens_out < 0)
		__builtin_trap();
	llm_turn_free(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	size_t cut = size > 1 ? data[0] % size : 0;
	const char *text = (const char *)data + 1;
	size_t n = size - 1;
	if (cut > n)
		cut = n;
	struct both b = {0};
	struct sse s;
	sse_init(&s, on_event, &b);
	sse_feed(&s, text, cut);
	sse_feed(&s, text + cut, n - cut);
	sse_finish(&s);
	sse_free(&s);
	check(&b.oa);
	check(&b.an);
	return 0;
}
