/* The transcript view's G while the file is still being indexed: the end
 * shows at once (indexed on its own, below a gap line), tool calls there
 * keep their results, a fold opened there and the cursor's record survive
 * the head catching up, and search crosses the gap. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/testutil.h"
#include "views/view.h"

static void host_report(struct view_host *h, bool error, const char *msg)
{
	(void)h, (void)error, (void)msg;
}

static struct view_host host = {.report = host_report};

static struct view *open_view(const char *path)
{
	struct view *v = xcalloc(1, sizeof(*v));
	v->ops = &transcript_view_ops;
	v->id = VIEW_TRANSCRIPT;
	v->host = &host;
	v->priv = xcalloc(1, transcript_view_ops.private_size);
	v->height = 20;
	v->width = 120;
	v->dirty = xcalloc(20, 1);
	v->dirty_cap = 20;
	struct view_arg arg = {.path = path};
	struct tp_err err;
	if (transcript_view_ops.open(v, &arg, &err) < 0)
		fail_msg("%s", err.msg);
	return v;
}

static void close_view(struct view *v)
{
	transcript_view_ops.done(v);
	free(v->priv);
	free(v->ref);
	free(v->dirty);
	free(v->search.pattern);
	free(v);
}

static void load_all(struct view *v)
{
	while (v->loading)
		v->loading = transcript_view_ops.pump(v, 100);
}

static char *line_text(struct view *v, size_t idx)
{
	struct line_out lo;
	lo_init(&lo);
	view_format(v, idx, &lo);
	char *s = xstrdup(sb_str(&lo.text));
	lo_free(&lo);
	return s;
}

static size_t find_line(struct view *v, const char *text)
{
	for (size_t i = 0; i < v->nlines; i++) {
		char *s = line_text(v, i);
		bool hit = strstr(s, text) != NULL;
		free(s);
		if (hit)
			return i;
	}
	return SIZE_MAX;
}

/* ~5 MB: far more than open's first slice indexes (it reads for 5 ms).
 * A call about 430 KB before the end has its result about 75 KB before it:
 * the first window from the end holds the result only. */
static char *write_transcript(const char *dir)
{
	char *path = path_join(dir, "transcript.jsonl");
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("{\"type\":\"text\",\"text\":\"NEEDLE near the top\"}\n", f);
	long bytes = 0;
	for (int i = 0; bytes < (5L << 20); i++) {
		if (i % 10 == 3)
			bytes += fprintf(f, "{\"type\":\"tool_call\",\"id\":\"c%d\",\"name\":\"read\","
					    "\"input\":{\"path\":\"op_%d.py\"}}\n", i, i);
		else if (i % 10 == 4)
			bytes += fprintf(f, "{\"type\":\"tool_result\",\"id\":\"c%d\",\"output\":"
					    "\"a\\nb\"}\n", i - 1);
		else
			bytes += fprintf(f, "{\"type\":\"text\",\"text\":\"step %d: checking the "
					    "kernel against the reference\"}\n", i);
	}
	fputs("{\"type\":\"tool_call\",\"id\":\"far\",\"name\":\"grep\",\"input\":{\"q\":\"late\"}}\n", f);
	for (int i = 0; i < 6000; i++)
		fprintf(f, "{\"type\":\"text\",\"text\":\"tail step %d: more of the same words\"}\n", i);
	fputs("{\"type\":\"tool_result\",\"id\":\"far\",\"output\":\"late one\\nlate two\"}\n", f);
	for (int i = 0; i < 1500; i++)
		fprintf(f, "{\"type\":\"text\",\"text\":\"last steps %d: nearly done now\"}\n", i);
	fputs("{\"type\":\"text\",\"text\":\"END OF TRANSCRIPT\"}\n", f);
	fclose(f);
	return path;
}

static void test_end_first(void **state)
{
	(void)state;
	char *dir = tu_tmpdir();
	char *path = write_transcript(dir);
	struct view *v = open_view(path);
	assert_true(v->loading);

	/* G: the end is there before the file is indexed */
	assert_int_equal(transcript_view_ops.request(v, REQ_MOVE_LAST_LINE), REQ_MOVE_LAST_LINE);
	view_navigate(v, REQ_MOVE_LAST_LINE);
	assert_true(v->loading);
	char *s = line_text(v, v->lineno);
	assert_string_equal(s, "END OF TRANSCRIPT");
	free(s);
	size_t gap = find_line(v, "reading the file");
	assert_true(gap != SIZE_MAX && gap < v->lineno);

	/* the late tool call below the gap has its result, not an orphan */
	size_t call = find_line(v, "grep q=late");
	assert_true(call != SIZE_MAX && call > gap);
	s = line_text(v, call);
	assert_non_null(strstr(s, "\xe2\x9c\x93"));
	free(s);
	assert_int_equal(find_line(v, "\xe2\x97\x82 result"), SIZE_MAX);

	/* search crosses the gap into the head */
	view_set_search(v, "NEEDLE");
	ssize_t hit = transcript_view_ops.find(v, v->lineno, true, &v->search);
	assert_int_equal(hit, 0);

	/* open the late call, keep the cursor on it, let the head catch up */
	view_select(v, call);
	v->follow = false;
	assert_int_equal(transcript_view_ops.request(v, REQ_TOGGLE_FOLD), REQ_NONE);
	s = line_text(v, v->lineno + 2);
	assert_string_equal(s, "  \xe2\x94\x82 late one");
	free(s);
	load_all(v);
	assert_int_equal(find_line(v, "reading the file"), SIZE_MAX);
	s = line_text(v, v->lineno);
	assert_non_null(strstr(s, "grep"));
	free(s);
	s = line_text(v, v->lineno + 2);
	assert_string_equal(s, "  \xe2\x94\x82 late one");
	free(s);

	/* the same as a view that indexed it all from the start */
	struct view *w = open_view(path);
	load_all(w);
	size_t wcall = find_line(w, "grep q=late");
	view_select(w, wcall);
	transcript_view_ops.request(w, REQ_TOGGLE_FOLD);
	assert_int_equal(w->nlines, v->nlines);
	assert_int_equal(wcall, v->lineno);
	close_view(w);
	close_view(v);
	remove_tree(dir);
	free(path);
	free(dir);
}

/* A file indexed by the time G comes needs no second index. */
static void test_small_file_plain(void **state)
{
	(void)state;
	char *dir = tu_tmpdir();
	char *path = tu_write(dir, "transcript.jsonl",
			      "{\"type\":\"text\",\"text\":\"one\"}\n{\"type\":\"text\",\"text\":\"two\"}\n");
	struct view *v = open_view(path);
	load_all(v);
	transcript_view_ops.request(v, REQ_MOVE_LAST_LINE);
	view_navigate(v, REQ_MOVE_LAST_LINE);
	assert_int_equal(v->nlines, 2);
	assert_int_equal(find_line(v, "reading the file"), SIZE_MAX);
	char *s = line_text(v, v->lineno);
	assert_string_equal(s, "two");
	free(s);
	close_view(v);
	remove_tree(dir);
	free(path);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_end_first),
		cmocka_unit_test(test_small_file_plain),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
