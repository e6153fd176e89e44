/* The stream layer of the built-in agent: the line framer, the SSE decoder
 * (at every split of the bytes), and the two assemblers that rebuild a
 * response and its tool calls from fragments, quirks included. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/agents/llm_stream.h"
#include "engine/agents/sse.h"
#include "engine/base/lines.h"

static void collect(const char *line, size_t n, void *ud)
{
	struct sbuf *sb = ud;
	sb_add(sb, line, n);
	sb_addc(sb, '|');
}

static void test_lines_split_anywhere(void **state)
{
	(void)state;
	const char text[] = "one\ntwo\r\n\nthree";
	for (size_t cut = 0; cut <= strlen(text); cut++) {
		struct lines l = {SBUF_INIT, 0};
		struct sbuf got = SBUF_INIT;
		lines_feed(&l, text, cut, collect, &got);
		lines_feed(&l, text + cut, strlen(text) - cut, collect, &got);
		lines_flush(&l, collect, &got);
		assert_string_equal(sb_str(&got), "one|two\r||three|");
		sb_free(&got);
		lines_free(&l);
	}
}

static void test_lines_cap_cuts_pieces(void **state)
{
	(void)state;
	struct lines l = {SBUF_INIT, 4};
	struct sbuf got = SBUF_INIT;
	lines_feed(&l, "abcdefghij\nk\n", 13, collect, &got);
	assert_string_equal(sb_str(&got), "abcd|efgh|ij|k|");
	sb_free(&got);
	lines_free(&l);
}

static int on_ev(const struct sse_event *ev, void *ud)
{
	struct sbuf *sb = ud;
	sb_printf(sb, "[%s:%s]", ev->event, ev->data);
	return 0;
}

static void test_sse_every_split(void **state)
{
	(void)state;
	/* comments, CRLF, a lone CR, multi-line data, an event without data,
	 * "field" without a space, and a last event never dispatched */
	const char text[] = ": keep-alive\r\nevent: a\r\ndata: 1\r\ndata:2\r\n\r\n"
			    "event: nodata\n\n"
			    "data: x\rdata: y\r\r"
			    "id: 7\nretry: 10\nevent: b\ndata: {\"k\": 1}\n\n"
			    "data: never dispatched";
	for (size_t cut = 0; cut <= strlen(text); cut++) {
		struct sbuf got = SBUF_INIT;
		struct sse s;
		sse_init(&s, on_ev, &got);
		sse_feed(&s, text, cut);
		sse_feed(&s, text + cut, strlen(text) - cut);
		sse_finish(&s);
		assert_string_equal(sb_str(&got), "[a:1\n2][:x\ny][b:{\"k\": 1}]");
		sse_free(&s);
		sb_free(&got);
	}
}

static int stop_first(const struct sse_event *ev, void *ud)
{
	(void)ev;
	(*(int *)ud)++;
	return 1;
}

static void test_sse_stop(void **state)
{
	(void)state;
	int n = 0;
	struct sse s;
	sse_init(&s, stop_first, &n);
	sse_feed(&s, "data: 1\n\ndata: 2\n\n", 18);
	sse_finish(&s);
	assert_int_equal(n, 1);
	sse_free(&s);
}

/* One event past 16 MiB, on a line of its own or spread over data lines,
 * is named as such, never handed on cut (it used to arrive as a 16 MiB
 * piece and read as "not JSON"). */
static void test_sse_event_too_big(void **state)
{
	(void)state;
	size_t n = SSE_EVENT_MAX + 100;
	char *big = malloc(n + 16);
	memcpy(big, "data: ", 6);
	memset(big + 6, 'x', n);
	memcpy(big + 6 + n, "\n\n", 3);
	int calls = 0;
	struct sse s;
	sse_init(&s, stop_first, &calls);
	for (size_t at = 0; at < n + 8; at += 65536)
		sse_feed(&s, big + at, n + 8 - at < 65536 ? n + 8 - at : 65536);
	sse_finish(&s);
	assert_true(s.too_big);
	assert_int_equal(calls, 0);
	sse_free(&s);
	/* many lines of one event */
	sse_init(&s, stop_first, &calls);
	memcpy(big + 6 + (1 << 20), "\n", 1);
	for (int i = 0; i < 17 && !s.too_big; i++)
		sse_feed(&s, big, 7 + (1 << 20));
	sse_feed(&s, "\n", 1);
	assert_true(s.too_big);
	assert_int_equal(calls, 0);
	sse_free(&s);
	free(big);
}

/* A response past llm.max_response, and one call's arguments past
 * llm.max_tool_args: over says which, and nothing more is taken in. */
static void test_caps(void **state)
{
	(void)state;
	struct llm_turn t = {0};
	t.max_bytes = 1000;
	t.max_args = 100;
	char chunk[512];
	for (int i = 0; i < 20; i++) {
		snprintf(chunk, sizeof(chunk), "{\"choices\":[{\"delta\":{\"content\":\"%s\"}}]}",
			 "0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789");
		assert_int_equal(llm_openai_chunk(&t, chunk, strlen(chunk)), 0);
	}
	assert_non_null(t.over);
	assert_non_null(strstr(t.over, "passed 1000 bytes (llm.max_response)"));
	assert_true(t.text.len <= 1000);
	llm_turn_free(&t);
	assert_int_equal(t.max_bytes, 1000); /* the caps stay */
	t.max_bytes = 100000;
	const char *frag = "{\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_1\","
			   "\"function\":{\"name\":\"write_file\",\"arguments\":"
			   "\"{\\\"content\\\": \\\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"}}]}}]}";
	const char *more = "{\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,"
			   "\"function\":{\"arguments\":\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"}}]}}]}";
	assert_int_equal(llm_openai_chunk(&t, frag, strlen(frag)), 0);
	assert_null(t.over);
	assert_int_equal(llm_openai_chunk(&t, more, strlen(more)), 0);
	assert_non_null(t.over);
	assert_non_null(strstr(t.over, "tool call call_1 (write_file) passed 100 bytes (llm.max_tool_args)"));
	assert_true(t.calls[0].args.len <= 100);
	llm_turn_free(&t);
	/* the Anthropic stream the same way */
	t.max_args = 50;
	const char *start = "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\","
			    "\"id\":\"toolu_1\",\"name\":\"read_file\",\"input\":{}}}";
	const char *delta = "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\","
			    "\"partial_json\":\"{\\\"path\\\": \\\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"}}";
	assert_int_equal(llm_anthropic_event(&t, "content_block_start", start, strlen(start)), 0);
	assert_int_equal(llm_anthropic_event(&t, "content_block_delta", delta, strlen(delta)), 0);
	assert_int_equal(llm_anthropic_event(&t, "content_block_delta", delta, strlen(delta)), 0);
	assert_non_null(t.over);
	assert_non_null(strstr(t.over, "toolu_1 (read_file)"));
	llm_turn_free(&t);
}

static void feed_openai(struct llm_turn *t, const char *const *chunks)
{
	for (size_t i = 0; chunks[i]; i++)
		assert_int_equal(llm_openai_chunk(t, chunks[i], strlen(chunks[i])), 0);
	llm_turn_end(t);
}

static void test_openai_fragments(void **state)
{
	(void)state;
	const char *chunks[] = {
		"{\"model\":\"m1\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Hel\"}}]}",
		"{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"lo\"}}]}",
		"{\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_a\",\"type\":\"function\","
		"\"function\":{\"name\":\"read_file\",\"arguments\":\"\"}}]}}]}",
		"{\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":1,\"id\":\"call_b\",\"function\":{\"name\":\"list_dir\","
		"\"arguments\":\"{}\"}}]}}]}",
		"{\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\\\"pa\"}}]}}]}",
		"{\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"th\\\":\\\"k.rs\\\"}\"}}]}}]}",
		"{\"choices\":[{\"delta\":{},\"finish_reason\":\"tool_calls\"}],\"usage\":null}",
		"{\"choices\":[],\"usage\":{\"prompt_tokens\":91,\"completion_tokens\":14,"
		"\"prompt_tokens_details\":{\"cached_tokens\":40}}}",
		" [DONE]",
		NULL,
	};
	struct llm_turn t = {0};
	feed_openai(&t, chunks);
	assert_string_equal(sb_str(&t.text), "Hello");
	assert_int_equal(t.ncalls, 2);
	assert_string_equal(t.calls[0].id, "call_a");
	assert_string_equal(t.calls[0].name, "read_file");
	assert_string_equal(sb_str(&t.calls[0].args), "{\"path\":\"k.rs\"}");
	assert_null(t.calls[0].bad_args);
	assert_string_equal(sb_str(&t.calls[1].args), "{}");
	assert_true(t.done && t.usage_seen);
	assert_int_equal(t.tokens_in, 91);
	assert_int_equal(t.tokens_out, 14);
	assert_int_equal(t.cache_read, 40);
	assert_string_equal(t.model, "m1");
	llm_turn_free(&t);
}

static void test_openai_quirks(void **state)
{
	(void)state;
	/* no index anywhere, every call numbered 0, object arguments, "stop" */
	const char *chunks[] = {
		"{\"choices\":[{\"delta\":{\"tool_calls\":[{\"id\":\"a\",\"function\":{\"name\":\"x\",\"arguments\":\"{\\\"n\\\":\"}}]}}]}",
		"{\"choices\":[{\"delta\":{\"tool_calls\":[{\"function\":{\"arguments\":\"1}\"}}]}}]}",
		"{\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"b\",\"function\":{\"name\":\"y\",\"arguments\":{\"m\":2}}}]}}]}",
		"{\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c\",\"function\":{\"name\":\"z\",\"arguments\":\"[1]\"}}]}}]}",
		"{\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"name\":\"w\",\"arguments\":\"{bad\"}}]}}]}",
		"{\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}",
		NULL,
	};
	struct llm_turn t = {0};
	feed_openai(&t, chunks);
	assert_int_equal(t.ncalls, 3);
	assert_string_equal(sb_str(&t.calls[0].args), "{\"n\":1}");
	assert_string_equal(sb_str(&t.calls[1].args), "{\"m\":2}");
	assert_string_equal(t.calls[2].id, "c");
	/* the fragment without an id belongs to the last call with that index */
	assert_string_equal(sb_str(&t.calls[2].args), "[1]{bad");
	assert_non_null(t.calls[2].bad_args);
	assert_string_equal(t.stop_reason, "stop");
	assert_false(t.done); /* no [DONE]: the caller treats it as cut */
	llm_turn_free(&t);
}

static void test_openai_errors(void **state)
{
	(void)state;
	struct llm_turn t = {0};
	assert_int_equal(llm_openai_chunk(&t, "{\"choices\": [", 13), -1);
	const char *e = "{\"error\":{\"message\":\"quota\",\"type\":\"insufficient_quota\",\"code\":\"insufficient_quota\"}}";
	assert_int_equal(llm_openai_chunk(&t, e, strlen(e)), 0);
	assert_string_equal(t.error, "insufficient_quota: quota");
	assert_true(t.error_final);
	llm_turn_free(&t);
}

static void anth(struct llm_turn *t, const char *ev, const char *data)
{
	assert_int_equal(llm_anthropic_event(t, ev, data, strlen(data)), 0);
}

static void test_anthropic_blocks(void **state)
{
	(void)state;
	struct llm_turn t = {0};
	anth(&t, "message_start", "{\"type\":\"message_start\",\"message\":{\"model\":\"claude-x\",\"usage\":"
				  "{\"input_tokens\":50,\"cache_read_input_tokens\":20,\"output_tokens\":1}}}");
	anth(&t, "ping", "{\"type\":\"ping\"}");
	anth(&t, "content_block_start", "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}");
	anth(&t, "content_block_delta", "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hi\"}}");
	anth(&t, "content_block_stop", "{\"type\":\"content_block_stop\",\"index\":0}");
	anth(&t, "content_block_start", "{\"type\":\"content_block_start\",\"index\":1,\"content_block\":"
					"{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"run_command\",\"input\":{}}}");
	anth(&t, "content_block_start", "{\"type\":\"content_block_start\",\"index\":2,\"content_block\":"
					"{\"type\":\"tool_use\",\"id\":\"toolu_2\",\"name\":\"list_dir\",\"input\":{}}}");
	anth(&t, "content_block_delta", "{\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"cmd\\\":\"}}");
	anth(&t, "content_block_delta", "{\"type\":\"content_block_delta\",\"index\":2,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"\"}}");
	anth(&t, "content_block_delta", "{\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"\\\"ls\\\"}\"}}");
	anth(&t, "message_delta", "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"},\"usage\":{\"output_tokens\":33}}");
	anth(&t, "some_new_event", "{\"type\":\"some_new_event\"}");
	anth(&t, "message_stop", "{\"type\":\"message_stop\"}");
	llm_turn_end(&t);
	assert_string_equal(sb_str(&t.text), "Hi");
	assert_int_equal(t.ncalls, 2);
	assert_string_equal(sb_str(&t.calls[0].args), "{\"cmd\":\"ls\"}");
	assert_string_equal(sb_str(&t.calls[1].args), "{}");
	assert_int_equal(t.tokens_in, 50);
	assert_int_equal(t.cache_read, 20);
	assert_int_equal(t.tokens_out, 33);
	assert_string_equal(t.stop_reason, "tool_use");
	assert_true(t.done);
	llm_turn_free(&t);

	anth(&t, "error", "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}");
	assert_string_equal(t.error, "overloaded_error: Overloaded");
	assert_false(t.error_final);
	llm_turn_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines_split_anywhere),
		cmocka_unit_test(test_lines_cap_cuts_pieces),
		cmocka_unit_test(test_sse_every_split),
		cmocka_unit_test(test_sse_stop),
		cmocka_unit_test(test_sse_event_too_big),
		cmocka_unit_test(test_caps),
		cmocka_unit_test(test_openai_fragments),
		cmocka_unit_test(test_openai_quirks),
		cmocka_unit_test(test_openai_errors),
		cmocka_unit_test(test_anthropic_blocks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
