/* The view framework below the screen: navigation keeps the cursor in
 * sight, following pins the last line until the user moves up, appended
 * lines mark only their rows dirty, smart-case search, the line builder. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "views/view.h"

static void numbered_line(struct view *v, size_t idx, struct line_out *out)
{
	(void)v;
	lo_addf(out, LINE_DEFAULT, "line %zu%s", idx + 1, idx == 41 ? " Needle" : "");
}

static int selected;
static void count_select(struct view *v)
{
	(void)v;
	selected++;
}

static const struct view_ops numbered = {.type = "test", .line = numbered_line,
					 .select = count_select};

static struct view *make(size_t n, int height)
{
	struct view *v = calloc(1, sizeof(*v));
	v->ops = &numbered;
	v->height = height;
	v->width = 80;
	v->dirty = calloc((size_t)height, 1);
	v->dirty_cap = height;
	view_set_lines(v, n);
	return v;
}

static void drop(struct view *v)
{
	free(v->dirty);
	free(v->search.pattern);
	free(v);
}

static void test_navigation_keeps_cursor_in_sight(void **state)
{
	(void)state;
	struct view *v = make(100, 10);
	view_navigate(v, REQ_MOVE_LAST_LINE);
	assert_int_equal(v->lineno, 99);
	assert_int_equal(v->offset, 90);
	view_navigate(v, REQ_MOVE_PAGE_UP);
	assert_int_equal(v->lineno, 89);
	assert_int_equal(v->offset, 80);
	view_navigate(v, REQ_MOVE_FIRST_LINE);
	assert_int_equal(v->lineno, 0);
	assert_int_equal(v->offset, 0);
	view_navigate(v, REQ_MOVE_UP);
	assert_int_equal(v->lineno, 0);
	for (int i = 0; i < 12; i++)
		view_navigate(v, REQ_MOVE_DOWN);
	assert_int_equal(v->lineno, 12);
	assert_int_equal(v->offset, 3);
	view_navigate(v, REQ_SCROLL_LINE_DOWN);
	assert_int_equal(v->offset, 4);
	assert_int_equal(v->lineno, 12);
	drop(v);
}

static void test_follow_pins_the_end_until_moving_up(void **state)
{
	(void)state;
	struct view *v = make(5, 10);
	v->follow = true;
	view_set_lines(v, 50);
	assert_int_equal(v->lineno, 49);
	assert_int_equal(v->offset, 40);
	view_navigate(v, REQ_MOVE_UP);
	assert_false(v->follow);
	view_set_lines(v, 60);
	assert_int_equal(v->lineno, 48); /* stays where the user put it */
	drop(v);
}

static void test_appended_rows_are_dirty(void **state)
{
	(void)state;
	struct view *v = make(3, 10);
	memset(v->dirty, 0, 10);
	v->redraw = false;
	view_set_lines(v, 5);
	assert_int_equal(v->dirty[2], 0);
	assert_int_equal(v->dirty[3], 1);
	assert_int_equal(v->dirty[4], 1);
	assert_int_equal(v->dirty[5], 0);
	assert_false(v->redraw);
	/* Lines below the screen touch nothing. */
	view_set_lines(v, 30);
	assert_int_equal(v->dirty[9], 1);
	drop(v);
}

static void test_search(void **state)
{
	(void)state;
	struct view *v = make(100, 10);
	view_set_search(v, "needle"); /* lower case: any case matches */
	assert_true(v->search.ignore_case);
	assert_true(view_find(v, false, false));
	assert_int_equal(v->lineno, 41);
	view_set_search(v, "NEEDLE"); /* a capital: exact case */
	assert_false(v->search.ignore_case);
	assert_false(view_find(v, false, true));
	view_set_search(v, "line 5");
	view_select(v, 95);
	assert_true(view_find(v, false, true)); /* wraps to the top */
	assert_int_equal(v->lineno, 4);
	assert_true(view_find(v, true, true)); /* backwards wraps to "line 59" */
	assert_int_equal(v->lineno, 58);
	drop(v);
}

static void test_line_builder(void **state)
{
	(void)state;
	struct line_out lo;
	lo_init(&lo);
	lo_reset(&lo, LINE_DEFAULT);
	lo_adds(&lo, LINE_LABEL, "a");
	lo_adds(&lo, LINE_LABEL, "b"); /* merges into one cell */
	lo_col(&lo, LINE_DIM, 6, ALIGN_RIGHT, "xyz");
	lo_addf(&lo, LINE_DEFAULT, "%d", 42);
	assert_string_equal(sb_str(&lo.text), "abxyz 42");
	assert_int_equal(lo.ncells, 3);
	assert_int_equal(lo.cells[0].len, 2);
	assert_int_equal(lo.cells[1].width, 6);
	assert_int_equal(lo.cells[1].align, ALIGN_RIGHT);
	lo_free(&lo);
	assert_int_equal(line_type_by_name("verdict-fail"), LINE_VERDICT_FAIL);
	assert_int_equal(line_type_by_name("nope"), -1);
	assert_int_equal(request_view(view_request(VIEW_STAGE)), VIEW_STAGE);
	assert_int_equal(request_view(REQ_MOVE_DOWN), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_navigation_keeps_cursor_in_sight),
		cmocka_unit_test(test_follow_pins_the_end_until_moving_up),
		cmocka_unit_test(test_appended_rows_are_dirty),
		cmocka_unit_test(test_search),
		cmocka_unit_test(test_line_builder),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
