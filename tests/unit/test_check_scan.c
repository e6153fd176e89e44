/* Rust scanning, text helpers, the layout gate and the step vocabulary. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "engine/check/check_impl.h"

static void test_rs_blank(void **state)
{
	(void)state;
	const char *src = "let a = \"// not a comment\"; // gone\n"
			  "/* outer /* nested */ still */ let b = r#\"raw \" /* x */\"#;\n"
			  "let c = '\"'; fn f<'a>(x: &'a str) {}\n";
	char *t = rs_blank(src, strlen(src), false);
	assert_int_equal(strlen(t), strlen(src));
	assert_non_null(strstr(t, "\"// not a comment\""));
	assert_null(strstr(t, "gone"));
	assert_null(strstr(t, "nested"));
	assert_null(strstr(t, "still"));
	assert_non_null(strstr(t, "let b"));
	assert_non_null(strstr(t, "/* x */")); /* inside the raw string */
	assert_non_null(strstr(t, "fn f<'a>(x: &'a str)"));
	free(t);
	t = rs_blank(src, strlen(src), true);
	assert_null(strstr(t, "not a comment"));
	assert_null(strstr(t, "raw"));
	assert_non_null(strstr(t, "let c = ' ';"));
	/* lines are kept */
	assert_int_equal(tx_line_at(t, (size_t)(strstr(t, "let c") - t)), 3);
	free(t);
	/* unterminated things stay in bounds */
	const char *bad[] = {"\"open", "/* open", "r#\"open", "'", "'\\", "r#", "b'x"};
	for (size_t i = 0; i < TP_ARRAY_LEN(bad); i++)
		free(rs_blank(bad[i], strlen(bad[i]), true));
}

static void test_rs_entries(void **state)
{
	(void)state;
	const char *src =
		"#[cutile::module]\npub mod m {\n"
		"    #[cutile::entry()]\n"
		"    pub unsafe fn view_k<E: ElementType, const N: i32>(x: &Tensor<E, {[-1]}>, "
		"y: &'a mut Tensor<E, {[-1]}>) {}\n"
		"    // #[cutile::entry()] fn commented(p: *mut E) {}\n"
		"    #[cutile::entry(optimization_hints = (sm_100 = (occupancy = 2,),))]\n"
		"    #[inline]\n"
		"    pub(crate) unsafe fn ptr_k<E: ElementType, F: Fn() -> i32>(p: *mut E, n: i32) {}\n"
		"    #[cutile :: entry]\n    unsafe fn mixed_k(t: &Tensor<E, {[-1]}>, idx: *const E) {}\n"
		"    #[cutile::entry()] fn stats_k(t: &Tensor<E, {[-1]}>, rstd: *mut  f32, i: *const i32) {}\n"
		"    #[cutile::entry_point] fn not_entry(x: i32) {}\n"
		"    #[cutile::entry()] fn plain(x: i32) {}\n"
		"}\n";
	struct rs_entry *e;
	size_t n = rs_entries(src, strlen(src), &e);
	assert_int_equal(n, 5);
	assert_string_equal(e[0].name, "view_k");
	assert_true(e[0].tensor && !e[0].ptr && !e[0].prim_ptr);
	assert_int_equal(e[0].line, 3);
	assert_string_equal(e[1].name, "ptr_k");
	assert_true(!e[1].tensor && e[1].ptr && !e[1].prim_ptr);
	assert_string_equal(e[2].name, "mixed_k");
	assert_true(e[2].tensor && e[2].ptr && !e[2].prim_ptr);
	/* pointers to primitive types are told apart from the element arrays */
	assert_string_equal(e[3].name, "stats_k");
	assert_true(e[3].tensor && !e[3].ptr && e[3].prim_ptr);
	assert_string_equal(e[4].name, "plain");
	assert_true(!e[4].tensor && !e[4].ptr && !e[4].prim_ptr);
	rs_entries_free(e, n);
	n = rs_entries("#[cutile::entry(", 16, &e);
	assert_int_equal(n, 0);
	rs_entries_free(e, n);
}

static void test_rs_extern(void **state)
{
	(void)state;
	const char *src = "// pub extern \"C\" fn commented(\n"
			  "pub fn helper() {}\n"
			  "#[unsafe(no_mangle)]\npub unsafe extern \"C\" fn cutile_op(\n) -> i32 { 0 }\n"
			  "pub extern \"C\" fn second() {}\n";
	int line = 0;
	char *fn = rs_extern_c_fn(src, strlen(src), &line);
	assert_string_equal(fn, "cutile_op");
	assert_int_equal(line, 4);
	free(fn);
	const char *plain = "pub extern \"C\" fn cutile_x(a: i32) {}";
	fn = rs_extern_c_fn(plain, strlen(plain), NULL);
	assert_string_equal(fn, "cutile_x");
	free(fn);
	assert_null(rs_extern_c_fn("pub fn x() {}", 13, NULL));
}

static void test_text(void **state)
{
	(void)state;
	const char *t = "a PASSED\nb\nc PASSED FAILED\nd PASSED";
	assert_int_equal(tx_count_lines_with(t, "PASSED"), 3);
	assert_int_equal(tx_grep_count(t, "^[a-c] ", 0), 2);
	assert_int_equal(tx_grep_count(t, "PASSED$", 0), 2);
	int line = 0;
	assert_true(tx_grep(t, "^c ", 0, &line));
	assert_int_equal(line, 3);
	assert_false(tx_grep(t, "^PASSED", 0, NULL));
	/* whole-text search crosses lines in bracket expressions */
	assert_true(tx_search("&mut Tensor<E,\n {[-1]}>", "&mut[[:space:]]+Tensor<[^;{]*\\{", 0, NULL));
	assert_false(tx_grep("&mut Tensor<E,\n {[-1]}>", "&mut Tensor<[^;{]*\\{", 0, NULL));
	assert_int_equal(tx_lines("x\ny", 3), 2);
	assert_int_equal(tx_lines("x\ny\n", 4), 2);
	assert_int_equal(tx_lines("", 0), 0);
	char *f = tx_first_line("VERDICT: PASS\r\nrest");
	assert_string_equal(f, "VERDICT: PASS");
	free(f);
	char *e = tx_ere_escape("a.b(c)*");
	assert_string_equal(e, "a\\.b\\(c\\)\\*");
	assert_true(tx_grep("xa.b(c)*y", e, 0, NULL));
	assert_false(tx_grep("xaXb(c)y", e, 0, NULL));
	free(e);
	assert_true(tx_icontains("Root Cause", "root cause"));
	assert_string_equal(tx_basename("/a/b/c.txt"), "c.txt");
	assert_string_equal(tx_basename("c"), "c");
}

static void test_layout(void **state)
{
	(void)state;
	const char *ref = "x strides=[?,1] y\npartition_view<tile=(1x1024), dim_map=[1, 0]>\n"
			  "strides = [%s, 1]\n";
	const char *same = "strides=[16,1]\nstrides=[?, 1]\ntile=( 1x1024 )\ndim_map=[1,0]\n";
	char *diff = NULL;
	size_t nr, ng;
	assert_true(layout_attrs_equal(ref, same, &diff, &nr, &ng));
	assert_null(diff);
	assert_int_equal(nr, 4);
	assert_int_equal(ng, 4);
	const char *other = "strides=[?,?]\nstrides=[?,1]\ntile=(1x512)\ndim_map=[1,0]\n";
	assert_false(layout_attrs_equal(ref, other, &diff, NULL, NULL));
	assert_non_null(strstr(diff, "-tile=(1x1024)"));
	assert_non_null(strstr(diff, "+tile=(1x512)"));
	assert_non_null(strstr(diff, "+strides=[?,?]"));
	free(diff);
	/* words that only end in a key do not count */
	assert_true(layout_attrs_equal("my_tile=(1)", "", NULL, &nr, NULL));
	assert_int_equal(nr, 0);
}

static void test_steps(void **state)
{
	(void)state;
	unsigned s;
	struct tp_err err = {0};
	assert_int_equal(check_steps_parse("deferred: reference-ir, Cargo-Build  pytest,", &s, &err), 0);
	assert_int_equal(s, CHECK_STEP_REFERENCE_IR | CHECK_STEP_CARGO_BUILD | CHECK_STEP_PYTEST);
	char *f = check_steps_format(s);
	assert_string_equal(f, "reference-ir, cargo-build, pytest");
	free(f);
	assert_int_equal(check_steps_parse("perf-log,cargo", &s, &err), -1);
	assert_int_equal(err.code, TP_EXIT_USAGE);
	assert_non_null(strstr(err.msg, "'cargo'"));
	assert_int_equal(check_steps_parse("", &s, &err), 0);
	assert_int_equal(s, 0);
	for (unsigned bit = 1; bit & CHECK_STEPS_ALL; bit <<= 1) {
		unsigned back;
		assert_int_equal(check_steps_parse(check_step_name(bit), &back, &err), 0);
		assert_int_equal(back, bit);
	}
	assert_null(check_step_name(0));
	assert_null(check_step_name(CHECK_STEP_PYTEST | CHECK_STEP_PERF_LOG));
}

static void test_ctx(void **state)
{
	(void)state;
	struct check_ctx c;
	check_ctx_init(&c);
	assert_int_equal(c.host_written, -1);
	check_ctx_set_run(&c, "/work/out/softmax/");
	assert_string_equal(c.run_dir, "/work/out/softmax");
	assert_string_equal(c.out_root, "/work/out");
	assert_string_equal(c.kernel, "softmax");
	char *d = check_ctx_run_dir(&c);
	assert_string_equal(d, "/work/out/softmax");
	free(d);
	check_ctx_free(&c);
	check_ctx_set(&c.out_root, "/o");
	check_ctx_set(&c.kernel, "k");
	d = check_ctx_run_dir(&c);
	assert_string_equal(d, "/o/k");
	free(d);
	check_ctx_set(&c.kernel, "");
	assert_null(c.kernel);
	assert_null(check_ctx_run_dir(&c));
	check_ctx_free(&c);
	setenv("TILEPORT_DEFERRED", "pytest", 1);
	setenv("CUTILE_KERNEL_OUT_ROOT", "", 1);
	struct tp_err err = {0};
	assert_int_equal(check_ctx_from_env(&c, &err), 0);
	assert_int_equal(c.deferred, CHECK_STEP_PYTEST);
	assert_null(c.out_root); /* empty counts as unset */
	setenv("TILEPORT_DEFERRED", "nope", 1);
	assert_int_equal(check_ctx_from_env(&c, &err), -1);
	assert_non_null(strstr(err.msg, "TILEPORT_DEFERRED"));
	unsetenv("TILEPORT_DEFERRED");
	unsetenv("CUTILE_KERNEL_OUT_ROOT");
	check_ctx_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rs_blank), cmocka_unit_test(test_rs_entries),
		cmocka_unit_test(test_rs_extern), cmocka_unit_test(test_text),
		cmocka_unit_test(test_layout),	 cmocka_unit_test(test_steps),
		cmocka_unit_test(test_ctx),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
