/* What the drivers decide: history trimming that keeps calls with their
 * results, when and how long to retry, prices, the transcript records the
 * claude and codex event streams become, and the secret filter. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/agents/claude.h"
#include "engine/agents/codex.h"
#include "engine/agents/conv.h"
#include "engine/agents/meter.h"
#include "engine/agents/record.h"
#include "engine/agents/retry.h"
#include "tests/unit/testutil.h"

static void turn(struct conv *c, const char *id, size_t out_len)
{
	struct conv_call call = {(char *)id, "run_command", "{\"cmd\":\"x\"}"};
	conv_assistant(c, "", &call, 1);
	char *out = xcalloc(out_len + 1, 1);
	memset(out, 'o', out_len);
	struct conv_result r = {(char *)id, out, false};
	conv_results(c, &r, 1);
	free(out);
}

static void test_trim_keeps_pairs(void **state)
{
	(void)state;
	struct conv c;
	conv_init(&c, "sys");
	conv_user(&c, "the prompt");
	turn(&c, "c1", 1000);
	turn(&c, "c2", 1000);
	conv_user(&c, "a nudge");
	turn(&c, "c3", 1000);
	assert_int_equal(conv_trim(&c, 100000), 0);
	assert_int_equal(conv_trim(&c, 1500), 2);
	/* prompt, then c3's call and result: whole turns went */
	assert_int_equal(c.n, 3);
	assert_int_equal(c.m[0].role, CONV_USER);
	assert_string_equal(c.m[1].calls[0].id, "c3");
	assert_string_equal(c.m[2].results[0].id, "c3");
	/* the latest turn stays, whatever the budget */
	assert_int_equal(conv_trim(&c, 10), 0);
	cJSON *oa = conv_openai(&c);
	char *s = cJSON_PrintUnformatted(oa);
	assert_non_null(strstr(s, "\"role\":\"tool\",\"tool_call_id\":\"c3\""));
	assert_non_null(strstr(s, "trimmed the oldest turns"));
	assert_null(strstr(s, "c1"));
	cJSON_free(s);
	cJSON_Delete(oa);
	cJSON *an = conv_anthropic(&c);
	s = cJSON_PrintUnformatted(an);
	assert_non_null(strstr(s, "{\"type\":\"tool_use\",\"id\":\"c3\",\"name\":\"run_command\",\"input\":{\"cmd\":\"x\"}}"));
	assert_non_null(strstr(s, "{\"type\":\"tool_result\",\"tool_use_id\":\"c3\""));
	cJSON_free(s);
	cJSON_Delete(an);
	conv_free(&c);
}

static void test_retry_policy(void **state)
{
	(void)state;
	long yes[] = {0, 408, 409, 429, 500, 502, 503, 529};
	long no[] = {400, 401, 403, 404, 413, 422};
	for (size_t i = 0; i < TP_ARRAY_LEN(yes); i++)
		assert_true(retry_wanted(yes[i], -1, NULL));
	for (size_t i = 0; i < TP_ARRAY_LEN(no); i++)
		assert_false(retry_wanted(no[i], -1, NULL));
	assert_false(retry_wanted(429, -1, "{\"error\":{\"code\":\"insufficient_quota\"}}"));
	assert_false(retry_wanted(429, -1, "{\"error\":{\"details\":{\"error_code\":\"enforced_spend_limit_reached\"}}}"));
	assert_true(retry_wanted(400, 1, NULL));  /* x-should-retry: true */
	assert_false(retry_wanted(503, 0, NULL)); /* x-should-retry: false */
	assert_int_equal(retry_delay_ms(0, 2000, 0.5), 2000);
	assert_int_equal(retry_delay_ms(3, 0, 0.9), 0);
	assert_int_equal(retry_delay_ms(0, 121000, 0), -1); /* longer than the cap: give up */
	assert_int_equal(retry_delay_ms(0, -1, 0), 500);
	assert_int_equal(retry_delay_ms(2, -1, 0), 2000);
	assert_int_equal(retry_delay_ms(9, -1, 0), 8000);
	assert_int_equal(retry_delay_ms(1, -1, 0.999), 750); /* a quarter off at most */
}

static void test_prices(void **state)
{
	(void)state;
	char *dir = tu_tmpdir();
	char *cfgp = tu_write(dir, "config", "price.local-model = in=0 out=0\n"
					    "price.claude-sonnet-4-5 = in=4, out=20, cache_read=0.4\n");
	struct config cfg = {0};
	struct tp_err err;
	assert_int_equal(config_load_file(&cfg, cfgp, &err), 0);
	struct prices p;
	assert_int_equal(prices_load(&p, &cfg, &err), 0);
	bool known;
	/* a dated id takes the entry it starts with; the config's line wins */
	double c = prices_cost(&p, "claude-sonnet-4-5-20250929", 1000000, 500000, 0, 100000, &known);
	assert_true(known);
	assert_float_equal(c, 0.5 * 4 + 0.5 * 0.4 + 0.1 * 20, 1e-9);
	assert_float_equal(prices_cost(&p, "gpt-4.1", 2000000, 0, 0, 0, NULL), 4.0, 1e-9);
	assert_non_null(prices_find(&p, "gpt-4.1-mini"));
	assert_float_equal(prices_find(&p, "gpt-4.1-mini")->in, 0.4, 1e-9);
	assert_null(prices_find(&p, "gpt-4.10"));
	assert_float_equal(prices_cost(&p, "unknown-model", 1000, 0, 0, 1000, &known), 0, 0);
	assert_false(known);
	prices_free(&p);
	config_free(&cfg);
	free(cfgp);
	cfgp = tu_write(dir, "bad", "\n\nprice.m = in=1 out=cheap\n");
	assert_int_equal(config_load_file(&cfg, cfgp, &err), 0);
	assert_int_equal(prices_load(&p, &cfg, &err), -1);
	assert_non_null(strstr(err.msg, "bad:3: price.m: expected 'in=USD out=USD"));
	assert_non_null(strstr(err.msg, "got 'out=cheap'"));
	config_free(&cfg);
	free(cfgp);
	remove_tree(dir);
	free(dir);
}

/* A recorder writing to memory. */
struct mem {
	char *buf;
	size_t len;
	FILE *f;
	struct recorder r;
};

static void mem_open(struct mem *m)
{
	m->f = open_memstream(&m->buf, &m->len);
	recorder_init(&m->r, m->f);
}

static char *mem_close(struct mem *m)
{
	recorder_free(&m->r);
	fclose(m->f);
	return m->buf;
}

static void feed_lines(void (*fn)(void *, const char *, size_t), void *map, const char *text)
{
	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		fn(map, p, n);
		p += n + (nl ? 1 : 0);
	}
}

static void claude_line(void *m, const char *l, size_t n)
{
	claude_map_line(m, l, n);
}

static void codex_line(void *m, const char *l, size_t n)
{
	codex_map_line(m, l, n);
}

static void test_claude_mapper(void **state)
{
	(void)state;
	struct mem m;
	mem_open(&m);
	struct claude_map cm;
	claude_map_init(&cm, &m.r, NULL);
	feed_lines(claude_line, &cm,
		   "[SandboxDebug] not json\n"
		   "{\"type\":\"system\",\"subtype\":\"init\",\"model\":\"claude-x\",\"claude_code_version\":\"2.1.197\",\"session_id\":\"s1\"}\n"
		   "{\"type\":\"assistant\",\"message\":{\"id\":\"m1\",\"model\":\"claude-x\",\"content\":[{\"type\":\"text\",\"text\":\"Plan\"}],"
		   "\"usage\":{\"input_tokens\":10,\"cache_read_input_tokens\":5,\"output_tokens\":1}}}\n"
		   "{\"type\":\"assistant\",\"message\":{\"id\":\"m1\",\"content\":[{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"Bash\","
		   "\"input\":{\"command\":\"ls\"}}],\"usage\":{\"input_tokens\":10,\"cache_read_input_tokens\":5,\"output_tokens\":1}}}\n"
		   "{\"type\":\"user\",\"message\":{\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"t1\",\"content\":[{\"type\":\"text\",\"text\":\"a\"},{\"type\":\"text\",\"text\":\"b\"}]}]}}\n"
		   "{\"type\":\"system\",\"subtype\":\"api_retry\",\"attempt\":1,\"max_retries\":10,\"retry_delay_ms\":600,\"error_status\":529,\"error\":\"overloaded\"}\n"
		   "{\"type\":\"rate_limit_event\"}\n"
		   "{\"type\":\"result\",\"subtype\":\"error_max_turns\",\"is_error\":true,\"result\":\"VERDICT: FAIL\",\"total_cost_usd\":0.25,"
		   "\"usage\":{\"input_tokens\":30,\"cache_read_input_tokens\":5,\"output_tokens\":40},"
		   "\"permission_denials\":[{\"tool_name\":\"Write\",\"tool_use_id\":\"t9\",\"tool_input\":{\"file_path\":\"/etc/x\"}}]}\n");
	assert_true(cm.result && cm.error);
	assert_int_equal(cm.denials, 1);
	assert_string_equal(cm.final, "VERDICT: FAIL");
	claude_map_free(&cm);
	char *out = mem_close(&m);
	const char *want[] = {
		"{\"type\":\"start\",\"driver\":\"claude\",\"model\":\"claude-x\",\"version\":\"2.1.197\",\"session\":\"s1\"}\n",
		"{\"type\":\"text\",\"text\":\"Plan\"}\n",
		/* usage once per message id, cached input counted in */
		"{\"type\":\"usage\",\"tokens_in\":15,\"tokens_out\":1,\"cost\":0,\"cache_read\":5,\"model\":\"claude-x\"}\n",
		"{\"type\":\"tool_call\",\"id\":\"t1\",\"name\":\"Bash\",\"input\":{\"command\":\"ls\"}}\n",
		"{\"type\":\"tool_result\",\"id\":\"t1\",\"output\":\"a\\nb\",\"is_error\":false}\n",
		"{\"type\":\"retry\",\"attempt\":1,\"of\":10,\"delay_ms\":600,\"status\":529,\"message\":\"overloaded\"}\n",
		/* the result brings the meter to its totals, cost from the CLI */
		"{\"type\":\"usage\",\"tokens_in\":20,\"tokens_out\":39,\"cost\":0.25,\"model\":\"claude-x\"}\n",
		"{\"type\":\"error\",\"message\":\"permission denied: Write {\\\"file_path\\\":\\\"/etc/x\\\"}\"}\n",
		"{\"type\":\"error\",\"message\":\"claude ended in error (error_max_turns)\"}\n",
	};
	struct sbuf all = SBUF_INIT;
	for (size_t i = 0; i < TP_ARRAY_LEN(want); i++)
		sb_adds(&all, want[i]);
	assert_string_equal(out, all.buf);
	sb_free(&all);
	free(out);
}

static void test_codex_mapper(void **state)
{
	(void)state;
	struct mem m;
	mem_open(&m);
	struct prices p;
	assert_int_equal(prices_load(&p, NULL, NULL), 0);
	struct codex_map cm;
	codex_map_init(&cm, &m.r, &p);
	cm.model = "gpt-4.1";
	feed_lines(codex_line, &cm,
		   "{\"type\":\"thread.started\",\"thread_id\":\"th1\"}\n"
		   "{\"type\":\"turn.started\"}\n"
		   "{\"type\":\"item.started\",\"item\":{\"id\":\"i1\",\"type\":\"command_execution\",\"command\":\"bash -lc ls\",\"status\":\"in_progress\"}}\n"
		   "{\"type\":\"item.completed\",\"item\":{\"id\":\"i1\",\"type\":\"command_execution\",\"command\":\"bash -lc ls\",\"aggregated_output\":\"k.rs\\n\",\"exit_code\":2,\"status\":\"completed\"}}\n"
		   "{\"type\":\"item.completed\",\"item\":{\"id\":\"i2\",\"type\":\"file_change\",\"changes\":[{\"path\":\"k.rs\",\"kind\":\"update\"}],\"status\":\"completed\"}}\n"
		   "{\"type\":\"item.completed\",\"item\":{\"id\":\"i3\",\"type\":\"reasoning\",\"text\":\"hmm\"}}\n"
		   "{\"type\":\"item.completed\",\"item\":{\"id\":\"i4\",\"type\":\"error\",\"message\":\"Model metadata not found\"}}\n"
		   "{\"type\":\"item.completed\",\"item\":{\"id\":\"i5\",\"type\":\"agent_message\",\"text\":\"VERDICT: COMPILED\"}}\n"
		   "{\"type\":\"turn.completed\",\"usage\":{\"input_tokens\":1000000,\"cached_input_tokens\":500000,\"output_tokens\":100000}}\n");
	assert_int_equal(cm.turns_completed, 1);
	assert_int_equal(cm.tool_calls, 2);
	assert_string_equal(cm.final, "VERDICT: COMPILED");
	codex_map_free(&cm);
	prices_free(&p);
	char *out = mem_close(&m);
	const char *want =
		"{\"type\":\"start\",\"driver\":\"codex\",\"model\":\"gpt-4.1\",\"session\":\"th1\"}\n"
		"{\"type\":\"tool_call\",\"id\":\"i1\",\"name\":\"command\",\"input\":{\"command\":\"bash -lc ls\"}}\n"
		"{\"type\":\"tool_result\",\"id\":\"i1\",\"output\":\"exit=2\\nk.rs\\n\",\"is_error\":true}\n"
		"{\"type\":\"tool_call\",\"id\":\"i2\",\"name\":\"file_change\",\"input\":{\"changes\":[{\"path\":\"k.rs\",\"kind\":\"update\"}]}}\n"
		"{\"type\":\"tool_result\",\"id\":\"i2\",\"output\":\"update k.rs\\n\",\"is_error\":false}\n"
		"{\"type\":\"error\",\"message\":\"codex: Model metadata not found\"}\n"
		"{\"type\":\"text\",\"text\":\"VERDICT: COMPILED\"}\n"
		/* 0.5M at 2 + 0.5M cached at 0.5 + 0.1M out at 8 per million */
		"{\"type\":\"usage\",\"tokens_in\":1000000,\"tokens_out\":100000,\"cost\":2.05,\"cache_read\":500000,\"model\":\"gpt-4.1\"}\n";
	assert_string_equal(out, want);
	free(out);
}

static void test_recorder_hides_secrets(void **state)
{
	(void)state;
	setenv("TILEPORT_UNIT_API_KEY", "sk-from-the-environment-1234", 1);
	struct mem m;
	mem_open(&m);
	recorder_secret(&m.r, "LLM_API_KEY", "key-from-a-file-5678");
	rec_text(&m.r, "env sk-from-the-environment-1234 and file key-from-a-file-5678");
	rec_tool_result(&m.r, "1", "key-from-a-file-5678", false);
	char *out = mem_close(&m);
	assert_null(strstr(out, "sk-from-the-environment-1234"));
	assert_null(strstr(out, "key-from-a-file-5678"));
	assert_non_null(strstr(out, "env ${TILEPORT_UNIT_API_KEY} and file ${LLM_API_KEY}"));
	free(out);
	unsetenv("TILEPORT_UNIT_API_KEY");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trim_keeps_pairs),
		cmocka_unit_test(test_retry_policy),
		cmocka_unit_test(test_prices),
		cmocka_unit_test(test_claude_mapper),
		cmocka_unit_test(test_codex_mapper),
		cmocka_unit_test(test_recorder_hides_secrets),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
