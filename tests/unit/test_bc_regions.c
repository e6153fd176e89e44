/* Bytecode reader and printer: regions, blocks, block arguments, value
 * numbering (§6.5, §7) and the printer's naming algorithm (§10.2). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "tests/unit/bctest.h"

#define RET(t) BCW_V(&(t)->body, 0x5C, 0, 0)

static void check(struct bct *t, const char *want)
{
	char *got = bct_body(t);
	if (strcmp(got, want) != 0)
		print_error("--- want\n%s--- got\n%s---\n", want, got);
	assert_string_equal(got, want);
	free(got);
}

static void test_for_iter_values(void **state)
{
	(void)state;
	struct bct t;
	bct_init(&t, 1, BCW_CPP);
	uint32_t f = t.t_f32, i = t.t_i32;
	bct_arg(&t, i);
	bct_arg(&t, i);
	bct_arg(&t, i);
	bct_arg(&t, f);
	/* for: 1 result, 13.1 has no flags; 4 operands; region: block (iv, iter) */
	BCW_V(&t.body, 0x29, 1, f, 4, 0, 1, 2, 3, 1, 1, 2, i, f, 2);
	BCW_V(&t.body, 0x02, f, 0, 0, 5, 5); /* addf iter, iter -> 6 */
	BCW_V(&t.body, 0x11, 0, 1, 6);       /* continue %6 */
	/* after the region its values are gone: the result is value 4 */
	BCW_V(&t.body, 0x02, f, 0, 0, 4, 3);
	RET(&t);
	check(&t, "%for = for %loopIdx in (%arg0 to %arg1, step %arg2) : tile<i32> iter_values(%iterArg0 = %arg3) -> (tile<f32>) {\n"
		  "  %1 = addf %iterArg0, %iterArg0  : tile<f32>\n"
		  "  continue %1 : tile<f32>\n"
		  "}\n"
		  "%0 = addf %for, %arg3  : tile<f32>\n"
		  "return\n");
}

static void test_nested_for_names(void **state)
{
	(void)state;
	struct bct t;
	bct_init(&t, 1, BCW_CPP);
	uint32_t i = t.t_i32;
	bct_arg(&t, i);
	bct_arg(&t, i);
	bct_arg(&t, i);
	struct sbuf *b = &t.body;
	/* outer for (iv = 3): inner for (iv = 4): addi 3, 4 */
	BCW_V(b, 0x29, 0, 3, 0, 1, 2, 1, 1, 1, i, 2);
	BCW_V(b, 0x29, 0, 3, 0, 1, 2, 1, 1, 1, i, 2);
	BCW_V(b, 0x03, i, 0, 3, 4);
	BCW_V(b, 0x11, 0, 0);
	BCW_V(b, 0x11, 0, 0);
	/* a sibling for reuses the name loopIdx */
	BCW_V(b, 0x29, 0, 3, 0, 1, 2, 1, 1, 1, i, 1, 0x11, 0, 0);
	RET(&t);
	check(&t, "for %loopIdx in (%arg0 to %arg1, step %arg2) : tile<i32> {\n"
		  "  for %loopIdx_0 in (%arg0 to %arg1, step %arg2) : tile<i32> {\n"
		  "    %0 = addi %loopIdx, %loopIdx_0 : tile<i32>\n"
		  "  }\n"
		  "}\n"
		  "for %loopIdx in (%arg0 to %arg1, step %arg2) : tile<i32> {\n"
		  "}\n"
		  "return\n");
}

static void test_loop_if_break(void **state)
{
	(void)state;
	struct bct t;
	bct_init(&t, 1, BCW_PYTHON);
	uint32_t i = t.t_i32;
	bct_arg(&t, i);
	struct sbuf *b = &t.body;
	BCW_V(b, 0x41, 1, i, 1, 0, 1, 1, 1, i, 4); /* loop: 1 result, init %0, block arg 1 */
	BCW_V(b, 0x0F, t.t_i1, 2, 1, 1, 1);        /* 2 = cmpi */
	BCW_V(b, 0x32, 0, 2, 2, 1, 0, 1, 0x0A, 0, 1, 1, 0); /* if %2 { break %1 } (no else) */
	BCW_V(b, 0x03, i, 0, 1, 1);                /* 3 = addi */
	BCW_V(b, 0x11, 0, 1, 3);                   /* continue %3 */
	BCW_V(b, 0x41, 0, 0, 1, 1, 0, 1, 0x0A, 0, 0); /* loop { break } */
	RET(&t);
	check(&t, "%0 = loop iter_values(%arg1 = %arg0) : tile<i32> -> tile<i32> {\n"
		  "  %1 = cmpi less_than %arg1, %arg1, signed : tile<i32> -> tile<i1>\n"
		  "  if %1 {\n"
		  "    break %arg1 : tile<i32>\n"
		  "  }\n"
		  "  %2 = addi %arg1, %arg1 : tile<i32>\n"
		  "  continue %2 : tile<i32>\n"
		  "}\n"
		  "loop {\n"
		  "  break\n"
		  "}\n"
		  "return\n");
}

static void test_if_else_results(void **state)
{
	(void)state;
	struct bct t;
	bct_init(&t, 2, BCW_CPP);
	uint32_t i = t.t_i32;
	bct_arg(&t, t.t_i1);
	bct_arg(&t, i);
	struct sbuf *b = &t.body;
	BCW_V(b, 0x32, 2, i, i, 0, 2);
	BCW_V(b, 1, 0, 1, 0x6D, 0, 2, 1, 1);            /* then: yield %1, %1 */
	BCW_V(b, 1, 0, 2, 0x03, i, 0, 1, 1, 0x6D, 0, 2, 2, 1); /* else: addi; yield */
	BCW_V(b, 0x03, i, 0, 2, 3);                      /* uses both results */
	BCW_V(b, 0x32, 0, 0, 2, 1, 0, 1, 0x6D, 0, 0, 0); /* if with empty then, no else */
	RET(&t);
	check(&t, "%0:2 = if %arg0 -> (tile<i32>, tile<i32>) {\n"
		  "  yield %arg1, %arg1 : tile<i32>, tile<i32>\n"
		  "} else {\n"
		  "  %2 = addi %arg1, %arg1 : tile<i32>\n"
		  "  yield %2, %arg1 : tile<i32>, tile<i32>\n"
		  "}\n"
		  "%1 = addi %0#0, %0#1 : tile<i32>\n"
		  "if %arg0 {\n"
		  "}\n"
		  "return\n");
}

static void test_reduce_and_scan(void **state)
{
	(void)state;
	struct bct t;
	bct_init(&t, 1, BCW_CPP);
	uint32_t f = t.t_f32, i = t.t_i32;
	bct_arg(&t, t.t_4f32);
	bct_arg(&t, t.t_4i32);
	struct sbuf *b = &t.body;
	/* reduce two operands: identities 0.0 : f32 and 0 : i32 */
	BCW_V(b, 0x58, 2, f, i, 0, 2, 2, t.f32, 0, 1, t.i32, 0, 2, 0, 1);
	BCW_V(b, 1, 1, 4, f, f, i, i, 3);
	BCW_V(b, 0x02, f, 0, 0, 2, 3);
	BCW_V(b, 0x03, i, 0, 4, 5);
	BCW_V(b, 0x6D, 0, 2, 6, 7);
	/* a single-operand reduce with a -inf identity: names restart in the body */
	BCW_V(b, 0x58, 1, f, 1, 1, 2, t.f32);
	bcw_svarint(b, 0xFF800000);
	BCW_V(b, 1, 0, 1, 1, 2, f, f, 2, 0x45, f, 1, 4, 5, 0x6D, 0, 1, 6);
	/* scan, reverse: block arguments are plain argN */
	BCW_V(b, 0x5E, 1, t.t_4i32, 0, 1, 1, 1, t.i32, 1, 1, 1, 1, 1, 2, i, i, 2);
	BCW_V(b, 0x4E, i, 0, 5, 6);
	BCW_V(b, 0x6D, 0, 1, 7);
	RET(&t);
	check(&t, "%reduce:2 = reduce %arg0, %arg1 dim=0 identities=[0.000000e+00 : f32, 0 : i32] : tile<4xf32>, tile<4xi32> -> tile<f32>, tile<i32> \n"
		  "(%reduce_lhs0: tile<f32>, %reduce_rhs0: tile<f32>, %reduce_lhs1: tile<i32>, %reduce_rhs1: tile<i32>) {\n"
		  "  %1 = addf %reduce_lhs0, %reduce_rhs0  : tile<f32>\n"
		  "  %2 = addi %reduce_lhs1, %reduce_rhs1 : tile<i32>\n"
		  "  yield %1, %2 : tile<f32>, tile<i32>\n"
		  "}\n"
		  "%reduce_0 = reduce %arg0 dim=1 identities=[0xFF800000 : f32] : tile<4xf32> -> tile<f32> \n"
		  "(%reduce_lhs: tile<f32>, %reduce_rhs: tile<f32>) {\n"
		  "  %1 = maxf %reduce_lhs, %reduce_rhs propagate_nan : tile<f32>\n"
		  "  yield %1 : tile<f32>\n"
		  "}\n"
		  "%0 = scan %arg1 dim=0 reverse=true identities=[1 : i32] : tile<4xi32> -> tile<4xi32> \n"
		  "(%arg2: tile<i32>, %arg3: tile<i32>) {\n"
		  "  %1 = muli %arg2, %arg3 : tile<i32>\n"
		  "  yield %1 : tile<i32>\n"
		  "}\n"
		  "return\n");
}

/* Operands can reach values of enclosing blocks but not of siblings: the
 * same index means different values in then and else (§6.5). */
static void test_sibling_regions_reuse_indices(void **state)
{
	(void)state;
	struct bct t;
	bct_init(&t, 1, BCW_CPP);
	uint32_t i = t.t_i32;
	bct_arg(&t, t.t_i1);
	bct_arg(&t, i);
	struct sbuf *b = &t.body;
	BCW_V(b, 0x32, 1, i, 0, 2);
	BCW_V(b, 1, 0, 2, 0x03, i, 0, 1, 1, 0x6D, 0, 1, 2);       /* then: 2 = addi */
	BCW_V(b, 1, 0, 2, 0x68, i, 0, 1, 1, 0x6D, 0, 1, 2);       /* else: 2 = subi */
	BCW_V(b, 0x4E, i, 0, 2, 2);                              /* 3 = muli of the if result */
	RET(&t);
	check(&t, "%0 = if %arg0 -> (tile<i32>) {\n"
		  "  %2 = addi %arg1, %arg1 : tile<i32>\n"
		  "  yield %2 : tile<i32>\n"
		  "} else {\n"
		  "  %2 = subi %arg1, %arg1 : tile<i32>\n"
		  "  yield %2 : tile<i32>\n"
		  "}\n"
		  "%1 = muli %0, %0 : tile<i32>\n"
		  "return\n");
}

/* The same module written in each version's layout (for's flags, negi's
 * overflow, tanh's and exp's rounding, print's token result and flags,
 * mmaf's flags, the partition_view padding layout, the global record)
 * decodes to the same text. */
static char *same_module(unsigned minor)
{
	struct bct t;
	bct_init(&t, minor, minor == 2 ? BCW_PYTHON : BCW_CPP);
	int64_t shp[1] = {BC_DYNAMIC}, str[1] = {1};
	uint32_t tv = bcw_tensor_view(t.w, t.f32, 1, shp, str);
	uint32_t pv = bcw_partition_view(t.w, 1, (const int32_t[]){4}, tv, NULL, 3);
	bcw_global(t.w, "g", t.t_i32, bcw_constant(t.w, "\x2a\0\0\0", 4), 0, 0, false);
	uint32_t i = t.t_i32, f = t.t_f32;
	uint32_t a = bct_arg(&t, i), x = bct_arg(&t, f), m = bct_arg(&t, t.t_2x2f32);
	bct_arg(&t, pv);
	struct sbuf *b = &t.body;
	uint32_t v = t.nargs;
	if (minor >= 2)
		BCW_V(b, 0x50, i, 0, a); /* negi: overflow none written */
	else
		BCW_V(b, 0x50, i, a);
	v++;
	if (minor >= 2)
		BCW_V(b, 0x6A, f, 5, x); /* tanh full */
	else
		BCW_V(b, 0x6A, f, x);
	v++;
	if (minor >= 3)
		BCW_V(b, 0x17, f, 5, x); /* exp full */
	else
		BCW_V(b, 0x17, f, x);
	v++;
	if (minor >= 3)
		BCW_V(b, 0x49, t.t_2x2f32, 0, m, m, m); /* mmaf: flags 0 */
	else
		BCW_V(b, 0x49, t.t_2x2f32, m, m, m);
	v++;
	if (minor >= 2)
		BCW_V(b, 0x55, 1, t.token, 0, bcw_string(t.w, "x"), 1, x); /* print_tko */
	else
		BCW_V(b, 0x55, 0, bcw_string(t.w, "x"), 1, x);
	if (minor >= 2)
		v++; /* only 13.2+ files give the token a value index */
	BCW_V(b, 0x29, 0);
	if (minor >= 2)
		BCW_V(b, 0); /* for: flags */
	BCW_V(b, 3, a, a, a, 1, 1, 1, i, 2, 0x03, i, 0, v, v, 0x11, 0, 0);
	BCW_V(b, 0x5C, 0, 0);
	return bct_body(&t);
}

static void test_same_module_each_version(void **state)
{
	(void)state;
	const char *want = "%0 = negi %arg0 : tile<i32>\n"
			   "%1 = tanh %arg1  : tile<f32>\n"
			   "%2 = exp %arg1  : tile<f32>\n"
			   "%3 = mmaf %arg2, %arg2, %arg2 : tile<2x2xf32>, tile<2x2xf32>, tile<2x2xf32>\n"
			   "%4 = print_tko \"x\", %arg1 : tile<f32> -> token\n"
			   "for %loopIdx in (%arg0 to %arg0, step %arg0) : tile<i32> {\n"
			   "  %5 = addi %loopIdx, %loopIdx : tile<i32>\n"
			   "}\n"
			   "return\n";
	for (unsigned minor = 1; minor <= 3; minor++) {
		char *got = same_module(minor);
		bool same = strcmp(got, want) == 0;
		if (!same)
			print_error("13.%u:\n%s", minor, got);
		free(got);
		assert_true(same);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_for_iter_values),
		cmocka_unit_test(test_nested_for_names),
		cmocka_unit_test(test_loop_if_break),
		cmocka_unit_test(test_if_else_results),
		cmocka_unit_test(test_reduce_and_scan),
		cmocka_unit_test(test_sibling_regions_reuse_indices),
		cmocka_unit_test(test_same_module_each_version),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
