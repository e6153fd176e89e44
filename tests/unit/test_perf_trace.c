#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/perf/trace.h"
#include "engine/perf/trace_format.h"

static char *fixture(const char *name)
{
	const char *top = getenv("TILEPORT_TOP");
	return xasprintf("%s/tests/fixtures/trace/%s", top ? top : ".", name);
}

static const struct trace_config *find(const struct trace_configs *c, const char *name)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->v[i].config, name))
			return &c->v[i];
	fail_msg("no config %s", name);
	return NULL;
}

static bool has_note(const struct trace_configs *c, const char *text)
{
	for (size_t i = 0; i < c->nnotes; i++)
		if (strstr(c->notes[i], text))
			return true;
	return false;
}

static void test_basic_fixture(void **state)
{
	(void)state;
	char *p = fixture("basic.trace");
	struct trace t;
	struct tp_err err;
	assert_int_equal(trace_load(p, &t, &err), 0);
	assert_int_equal(t.pid, 4242);
	assert_non_null(strstr(t.libcupti, "nvidia/cu13/lib/libcupti.so.13"));
	assert_int_equal(t.nranges, 3);
	assert_int_equal(t.nops, 18); /* 11 kernels (one without timestamps left out), 6 memsets, a copy */
	assert_int_equal(t.no_timestamp, 1);
	assert_int_equal(t.dropped, 2);
	assert_int_equal(t.overheads, 1);
	assert_int_equal(t.overhead_ns, 2000);
	assert_true(t.flushed);
	assert_int_equal(t.after_flush, 0);
	assert_false(t.truncated);
	assert_non_null(t.errors);
	assert_non_null(strstr(t.errors[0], "CUPTI_ERROR_NOT_SUPPORTED"));
	for (size_t i = 1; i < t.nops; i++) /* sorted though written out of order */
		assert_true(t.ops[i - 1].start <= t.ops[i].start);
	bool escaped = false;
	for (size_t i = 0; i < t.nops; i++)
		escaped = escaped || (t.ops[i].name && !strcmp(t.ops[i].name, "reduce\tkernel<\\0>"));
	assert_true(escaped);

	struct trace_configs c;
	trace_assign(&t, TRACE_FLUSH_BYTES, &c);
	assert_int_equal(c.n, 2); /* "warmup" is the program's own range */
	const struct trace_config *a = find(&c, "4096-1024-float16");
	assert_int_equal(a->n, 3);
	assert_float_equal(a->ns[0], 30, 0);
	assert_float_equal(a->ns[1], 31, 0);
	assert_float_equal(a->ns[2], 29, 0);
	assert_float_equal(a->ops[1], 1, 0);
	assert_string_equal(a->top_kernel, "softmax_kernel");
	const struct trace_config *b = find(&c, "8192-1024-float16");
	assert_int_equal(b->n, 2);
	/* kernel 50 + small memset 2 + copy 10 + kernel 40; then 48 + 40 (the
	 * kernel straddling the range's end is not inside it) */
	assert_float_equal(b->ns[0], 102, 0);
	assert_float_equal(b->ops[0], 4, 0);
	assert_float_equal(b->ns[1], 88, 0);
	assert_float_equal(b->ops[1], 2, 0);
	assert_string_equal(b->top_kernel, "softmax_kernel");
	assert_true(has_note(&c, "basic.trace:18: range tileport:8192-1024-float16: 1 operation(s) "
			     "before its first flush left out"));
	trace_configs_free(&c);

	/* a flush threshold above the flushes: no iteration can be told apart */
	trace_assign(&t, 1ull << 30, &c);
	assert_int_equal(find(&c, "4096-1024-float16")->n, 0);
	assert_true(has_note(&c, "has no L2 flush"));
	trace_configs_free(&c);
	trace_free(&t);
	free(p);
}

static void test_unflushed_fixture(void **state)
{
	(void)state;
	char *p = fixture("unflushed.trace");
	struct trace t;
	struct tp_err err;
	assert_int_equal(trace_load(p, &t, &err), 0);
	assert_true(t.truncated);
	assert_true(t.flushed);
	assert_int_equal(t.after_flush, 4);
	struct trace_configs c;
	trace_assign(&t, TRACE_FLUSH_BYTES, &c);
	assert_int_equal(c.n, 1);
	assert_string_equal(c.v[0].config, "after-flush");
	assert_float_equal(c.v[0].ns[0], 15, 0);
	assert_true(has_note(&c, "range tileport:left-open was never popped"));
	trace_configs_free(&c);
	trace_free(&t);
	free(p);
}

static void test_nodriver_fixture(void **state)
{
	(void)state;
	char *p = fixture("nodriver.trace");
	struct trace t;
	struct tp_err err;
	assert_int_equal(trace_load(p, &t, &err), 0);
	assert_int_equal(t.nops, 0);
	assert_true(t.flushed);
	size_t n = 0;
	while (t.errors && t.errors[n])
		n++;
	assert_int_equal(n, 5);
	assert_non_null(strstr(t.errors[0], "CONCURRENT_KERNEL"));
	trace_free(&t);
	free(p);
}

static void expect_error(const char *text, const char *want)
{
	struct trace t;
	struct tp_err err;
	tp_err_clear(&err);
	assert_int_equal(trace_parse("f.trace", text, strlen(text), &t, &err), -1);
	if (!strstr(err.msg, want))
		fail_msg("'%s' lacks '%s'", err.msg, want);
	assert_int_equal(err.code, TP_EXIT_USAGE);
	trace_free(&t);
}

static void test_errors_name_file_and_line(void **state)
{
	(void)state;
	expect_error("", "f.trace:0: expected '#tileport-trace<TAB>1' (the file is empty)");
	expect_error("#tileport-trace\t2\n", "f.trace:1: expected '#tileport-trace<TAB>1'");
	expect_error("#tileport-trace\t1\nK\t1\t2\t0\n", "f.trace:2: expected K start end");
	expect_error("#tileport-trace\t1\nM\tpid\t1\nS\t5\t4\t0\t1\t7\t1\t8\t0\n",
		     "f.trace:3: expected end >= start");
	expect_error("#tileport-trace\t1\nE\t3\t100\n",
		     "f.trace:2: expected an E record to end a range an earlier R record started");
	expect_error("#tileport-trace\t1\nR\t1\t100\tx\nE\t1\t50\n",
		     "f.trace:3: expected a range end at or after its start");
	expect_error("#tileport-trace\t1\nKx\t1\n", "f.trace:2: expected a one-letter record kind");
	expect_error("#tileport-trace\t1\nS\t1\t2\t0\t1\t7\t1\t99999999999999999999999\t0\n",
		     "f.trace:2: expected S|C start end");
	/* a record kind of a later version is skipped, not an error */
	const char *later = "#tileport-trace\t1\nZ\twhatever\nF\t0\t0\n";
	struct trace t;
	struct tp_err err;
	assert_int_equal(trace_parse("f.trace", later, strlen(later), &t, &err), 0);
	trace_free(&t);
}

/* What the library prints (the same format strings) is what the reader reads. */
static void test_writer_formats_read_back(void **state)
{
	(void)state;
	char name[64], buf[4096];
	struct sbuf sb = SBUF_INIT;
	snprintf(buf, sizeof(buf), TRACE_FMT_HEADER, TRACE_MAGIC, TRACE_VERSION);
	sb_adds(&sb, buf);
	snprintf(buf, sizeof(buf), TRACE_FMT_META_NUM, "pid", 99L);
	sb_adds(&sb, buf);
	snprintf(buf, sizeof(buf), TRACE_FMT_META_STR, "libcupti", trace_escape("/a\tb", name));
	sb_adds(&sb, buf);
	snprintf(buf, sizeof(buf), TRACE_FMT_RANGE_START, 7u, 1000ull,
		 trace_escape("tileport:cfg\\with\ttab", name));
	sb_adds(&sb, buf);
	snprintf(buf, sizeof(buf), TRACE_FMT_MEMSET, 1100ull, 1200ull, 0u, 1u, 7u, 1u,
		 (unsigned long long)TRACE_FLUSH_BYTES, 0u);
	sb_adds(&sb, buf);
	snprintf(buf, sizeof(buf), TRACE_FMT_KERNEL, 1300ull, 1342ull, 0u, 1u, 7u, 2u, 0u, 4, 2, 1,
		 128, 1, 1, trace_escape("void k<\n>()", name));
	sb_adds(&sb, buf);
	snprintf(buf, sizeof(buf), TRACE_FMT_MEMCPY, 1350ull, 1358ull, 0u, 1u, 7u, 3u, 64ull, 8u);
	sb_adds(&sb, buf);
	snprintf(buf, sizeof(buf), TRACE_FMT_RANGE_END, 7u, 1400ull);
	sb_adds(&sb, buf);
	snprintf(buf, sizeof(buf), TRACE_FMT_MARK, 1500ull, "mark");
	sb_adds(&sb, buf);
	snprintf(buf, sizeof(buf), TRACE_FMT_OVERHEAD, 10ull, 30ull, 3u);
	sb_adds(&sb, buf);
	snprintf(buf, sizeof(buf), TRACE_FMT_DROPPED, (size_t)5);
	sb_adds(&sb, buf);
	snprintf(buf, sizeof(buf), TRACE_FMT_ERROR, "cuptiX", "why");
	sb_adds(&sb, buf);
	snprintf(buf, sizeof(buf), TRACE_FMT_FLUSH, 9ull, 5ull);
	sb_adds(&sb, buf);
	struct trace t;
	struct tp_err err;
	assert_int_equal(trace_parse("w.trace", sb.buf, sb.len, &t, &err), 0);
	assert_int_equal(t.pid, 99);
	assert_string_equal(t.libcupti, "/a\tb");
	assert_int_equal(t.nranges, 1);
	assert_string_equal(t.ranges[0].name, "tileport:cfg\\with\ttab");
	assert_int_equal(t.nops, 3);
	assert_string_equal(t.ops[1].name, "void k<\n>()");
	assert_int_equal(t.ops[2].kind, TRACE_OP_MEMCPY);
	assert_int_equal(t.dropped, 5);
	assert_int_equal(t.overhead_ns, 20);
	assert_string_equal(t.errors[0], "cuptiX: why");
	assert_true(t.flushed);
	struct trace_configs c;
	trace_assign(&t, TRACE_FLUSH_BYTES, &c);
	assert_int_equal(c.n, 1);
	assert_string_equal(c.v[0].config, "cfg\\with\ttab");
	assert_float_equal(c.v[0].ns[0], 42 + 8, 0);
	trace_configs_free(&c);
	trace_free(&t);
	sb_free(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_basic_fixture),
		cmocka_unit_test(test_unflushed_fixture),
		cmocka_unit_test(test_nodriver_fixture),
		cmocka_unit_test(test_errors_name_file_and_line),
		cmocka_unit_test(test_writer_formats_read_back),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
