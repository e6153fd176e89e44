/* Bytecode reader and printer: one hand-made file per op family, built
 * from the encoding rules (tile-ir-bytecode.md §6.4), decoded and checked
 * against the canonical text (§10.6). */
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

static void test_float_arith_13_1(void **state)
{
	(void)state;
	struct bct t;
	bct_init(&t, 1, BCW_CPP);
	uint32_t f = t.t_f32;
	bct_arg(&t, f);
	bct_arg(&t, f);
	struct sbuf *b = &t.body;
	BCW_V(b, 0x02, f, 0, 0, 0, 1);    /* 2: addf, default rounding */
	BCW_V(b, 0x67, f, 1, 1, 2, 1);    /* 3: subf zero ftz */
	BCW_V(b, 0x4C, f, 0, 4, 3, 3);    /* 4: mulf approx */
	BCW_V(b, 0x14, f, 1, 0, 4, 0);    /* 5: divf ftz */
	BCW_V(b, 0x28, f, 0, 0, 0, 1, 5); /* 6: fma */
	BCW_V(b, 0x64, f, 0, 3, 6);       /* 7: sqrt positive_inf */
	BCW_V(b, 0x5D, f, 1, 7);          /* 8: rsqrt ftz */
	BCW_V(b, 0x18, f, 0, 8);          /* 9: exp2 */
	BCW_V(b, 0x17, f, 9);             /* 10: exp (13.1: no rounding) */
	BCW_V(b, 0x6A, f, 10);            /* 11: tanh (13.1: no rounding) */
	BCW_V(b, 0x45, f, 3, 0, 1);       /* 12: maxf propagate_nan + ftz */
	BCW_V(b, 0x47, f, 1, 0, 1);       /* 13: minf propagate_nan */
	BCW_V(b, 0x4F, f, 0);             /* negf */
	BCW_V(b, 0x00, f, 0);             /* absf */
	BCW_V(b, 0x0D, f, 0);             /* ceil */
	BCW_V(b, 0x27, f, 0);             /* floor */
	BCW_V(b, 0x12, f, 0);             /* cos */
	BCW_V(b, 0x13, f, 0);             /* cosh */
	BCW_V(b, 0x62, f, 0);             /* sin */
	BCW_V(b, 0x63, f, 0);             /* sinh */
	BCW_V(b, 0x69, f, 0);             /* tan */
	BCW_V(b, 0x3F, f, 0);             /* log */
	BCW_V(b, 0x40, f, 0);             /* log2 */
	BCW_V(b, 0x59, f, 0, 1);          /* remf */
	BCW_V(b, 0x54, f, 0, 1);          /* pow */
	BCW_V(b, 0x0E, t.t_i1, 2, 1, 0, 1); /* cmpf less_than ordered */
	RET(&t);
	check(&t, "%0 = addf %arg0, %arg1  : tile<f32>\n"
		  "%1 = subf %0, %arg1 rounding<zero> flush_to_zero : tile<f32>\n"
		  "%2 = mulf %1, %1 rounding<approx> : tile<f32>\n"
		  "%3 = divf %2, %arg0  flush_to_zero : tile<f32>\n"
		  "%4 = fma %arg0, %arg1, %3  : tile<f32>\n"
		  "%5 = sqrt %4 rounding<positive_inf> : tile<f32>\n"
		  "%6 = rsqrt %5 flush_to_zero : tile<f32>\n"
		  "%7 = exp2 %6 : tile<f32>\n"
		  "%8 = exp %7  : tile<f32>\n"
		  "%9 = tanh %8  : tile<f32>\n"
		  "%10 = maxf %arg0, %arg1 flush_to_zero propagate_nan : tile<f32>\n"
		  "%11 = minf %arg0, %arg1 propagate_nan : tile<f32>\n"
		  "%12 = negf %arg0 : tile<f32>\n"
		  "%13 = absf %arg0 : tile<f32>\n"
		  "%14 = ceil %arg0 : tile<f32>\n"
		  "%15 = floor %arg0 : tile<f32>\n"
		  "%16 = cos %arg0 : tile<f32>\n"
		  "%17 = cosh %arg0 : tile<f32>\n"
		  "%18 = sin %arg0 : tile<f32>\n"
		  "%19 = sinh %arg0 : tile<f32>\n"
		  "%20 = tan %arg0 : tile<f32>\n"
		  "%21 = log %arg0 : tile<f32>\n"
		  "%22 = log2 %arg0 : tile<f32>\n"
		  "%23 = remf %arg0, %arg1 : tile<f32>\n"
		  "%24 = pow %arg0, %arg1 : tile<f32>\n"
		  "%25 = cmpf less_than ordered %arg0, %arg1 : tile<f32> -> tile<i1>\n"
		  "return\n");
}

/* exp gains its rounding attribute in 13.3, tanh in 13.2, atan2 is 13.2. */
static void test_float_versions(void **state)
{
	(void)state;
	struct bct t;
	bct_init(&t, 2, BCW_PYTHON);
	bct_arg(&t, t.t_f32);
	BCW_V(&t.body, 0x17, t.t_f32, 0);    /* exp: still no rounding in 13.2 */
	BCW_V(&t.body, 0x6A, t.t_f32, 4, 0); /* tanh approx */
	BCW_V(&t.body, 0x6A, t.t_f32, 5, 0); /* tanh full (default) */
	BCW_V(&t.body, 0x6E, t.t_f32, 0, 0); /* atan2 */
	RET(&t);
	check(&t, "%0 = exp %arg0  : tile<f32>\n"
		  "%1 = tanh %arg0 rounding<approx> : tile<f32>\n"
		  "%2 = tanh %arg0  : tile<f32>\n"
		  "%3 = atan2 %arg0, %arg0 : tile<f32>\n"
		  "return\n");

	bct_init(&t, 3, BCW_CPP);
	bct_arg(&t, t.t_f32);
	BCW_V(&t.body, 0x17, t.t_f32, 4, 0); /* exp approx */
	BCW_V(&t.body, 0x17, t.t_f32, 5, 0); /* exp full */
	RET(&t);
	check(&t, "%0 = exp %arg0 rounding<approx> : tile<f32>\n"
		  "%1 = exp %arg0  : tile<f32>\n"
		  "return\n");
}

static void test_int_arith(void **state)
{
	(void)state;
	struct bct t;
	bct_init(&t, 2, BCW_CPP);
	uint32_t i = t.t_i32;
	bct_arg(&t, i);
	bct_arg(&t, i);
	bct_arg(&t, t.t_i1);
	struct sbuf *b = &t.body;
	BCW_V(b, 0x03, i, 3, 0, 1); /* addi no_wrap */
	BCW_V(b, 0x68, i, 0, 0, 1); /* subi */
	BCW_V(b, 0x4E, i, 1, 0, 1); /* muli nsw */
	BCW_V(b, 0x60, i, 2, 0, 1); /* shli nuw */
	BCW_V(b, 0x50, i, 1, 0);    /* negi nsw (13.2 has the attribute) */
	BCW_V(b, 0x15, i, 1, 1, 0, 1); /* divi signed, rounding zero (default) */
	BCW_V(b, 0x15, i, 0, 2, 0, 1); /* divi unsigned negative_inf */
	BCW_V(b, 0x5A, i, 1, 0, 1); /* remi */
	BCW_V(b, 0x46, i, 0, 0, 1); /* maxi */
	BCW_V(b, 0x48, i, 1, 0, 1); /* mini */
	BCW_V(b, 0x61, i, 0, 0, 1); /* shri */
	BCW_V(b, 0x4D, i, 0, 1);    /* mulhii */
	BCW_V(b, 0x04, i, 0, 1);    /* andi */
	BCW_V(b, 0x52, i, 0, 1);    /* ori */
	BCW_V(b, 0x6C, i, 0, 1);    /* xori */
	BCW_V(b, 0x01, i, 0);       /* absi */
	BCW_V(b, 0x0F, t.t_i1, 5, 1, 0, 1); /* cmpi greater_than_or_equal signed */
	BCW_V(b, 0x5F, i, 2, 0, 1); /* select */
	RET(&t);
	check(&t, "%0 = addi %arg0, %arg1 overflow<no_wrap> : tile<i32>\n"
		  "%1 = subi %arg0, %arg1 : tile<i32>\n"
		  "%2 = muli %arg0, %arg1 overflow<no_signed_wrap> : tile<i32>\n"
		  "%3 = shli %arg0, %arg1 overflow<no_unsigned_wrap> : tile<i32>\n"
		  "%4 = negi %arg0 overflow<no_signed_wrap> : tile<i32>\n"
		  "%5 = divi %arg0, %arg1 signed : tile<i32>\n"
		  "%6 = divi %arg0, %arg1 unsigned rounding<negative_inf> : tile<i32>\n"
		  "%7 = remi %arg0, %arg1 signed : tile<i32>\n"
		  "%8 = maxi %arg0, %arg1 unsigned : tile<i32>\n"
		  "%9 = mini %arg0, %arg1 signed : tile<i32>\n"
		  "%10 = shri %arg0, %arg1 unsigned : tile<i32>\n"
		  "%11 = mulhii %arg0, %arg1 : tile<i32>\n"
		  "%12 = andi %arg0, %arg1 : tile<i32>\n"
		  "%13 = ori %arg0, %arg1 : tile<i32>\n"
		  "%14 = xori %arg0, %arg1 : tile<i32>\n"
		  "%15 = absi %arg0 : tile<i32>\n"
		  "%16 = cmpi greater_than_or_equal %arg0, %arg1, signed : tile<i32> -> tile<i1>\n"
		  "%17 = select %arg2, %arg0, %arg1 : tile<i1>, tile<i32>\n"
		  "return\n");

	/* 13.1: negi has no overflow field; the next byte is the operand */
	bct_init(&t, 1, BCW_CPP);
	bct_arg(&t, t.t_i32);
	BCW_V(&t.body, 0x50, t.t_i32, 0, 0x50, t.t_i32, 1);
	RET(&t);
	check(&t, "%0 = negi %arg0 : tile<i32>\n%1 = negi %0 : tile<i32>\nreturn\n");
}

static void test_conversions(void **state)
{
	(void)state;
	struct bct t;
	bct_init(&t, 1, BCW_PYTHON);
	uint32_t f64 = bct_tile(&t, t.f64, 0);
	bct_arg(&t, t.t_i32);   /* 0 */
	bct_arg(&t, t.t_f32);   /* 1 */
	bct_arg(&t, t.t_i64);   /* 2 */
	bct_arg(&t, t.t_p_f32); /* 3 */
	struct sbuf *b = &t.body;
	BCW_V(b, 0x25, t.t_i64, 1, 0);    /* exti signed */
	BCW_V(b, 0x6B, t.t_i32, 0, 2);    /* trunci */
	BCW_V(b, 0x6B, t.t_i32, 3, 2);    /* trunci no_wrap */
	BCW_V(b, 0x2A, f64, 0, 1);        /* ftof */
	BCW_V(b, 0x2B, t.t_i32, 1, 6, 1); /* ftoi signed, default rounding */
	BCW_V(b, 0x3B, t.t_f32, 0, 1, 0); /* itof unsigned zero */
	BCW_V(b, 0x09, t.t_f32, 0);       /* bitcast */
	BCW_V(b, 0x33, t.t_p_f32, 2);     /* int_to_ptr */
	BCW_V(b, 0x56, t.t_i64, 3);       /* ptr_to_int */
	BCW_V(b, 0x57, t.t_p_f32, 3);     /* ptr_to_ptr */
	RET(&t);
	check(&t, "%0 = exti %arg0 signed : tile<i32> -> tile<i64>\n"
		  "%1 = trunci %arg2 : tile<i64> -> tile<i32>\n"
		  "%2 = trunci %arg2 overflow<no_wrap> : tile<i64> -> tile<i32>\n"
		  "%3 = ftof %arg1  : tile<f32> -> tile<f64>\n"
		  "%4 = ftoi %arg1 signed  : tile<f32> -> tile<i32>\n"
		  "%5 = itof %arg0 unsigned rounding<zero> : tile<i32> -> tile<f32>\n"
		  "%6 = bitcast %arg0 : tile<i32> -> tile<f32>\n"
		  "%7 = int_to_ptr %arg2 : tile<i64> -> tile<ptr<f32>>\n"
		  "%8 = ptr_to_int %arg3 : tile<ptr<f32>> -> tile<i64>\n"
		  "%9 = ptr_to_ptr %arg3 : tile<ptr<f32>> -> tile<ptr<f32>>\n"
		  "return\n");
}

static void test_shape_ops(void **state)
{
	(void)state;
	struct bct t;
	bct_init(&t, 3, BCW_CPP);
	uint32_t t8 = bct_tile(&t, t.f32, 1, 8);
	uint32_t t16i8 = bct_tile(&t, t.i8, 1, 16);
	bct_arg(&t, t.t_f32);    /* 0 */
	bct_arg(&t, t.t_4f32);   /* 1 */
	bct_arg(&t, t.t_2x2f32); /* 2 */
	bct_arg(&t, t.t_i32);    /* 3 */
	bct_arg(&t, t.t_4i32);   /* 4 */
	struct sbuf *b = &t.body;
	BCW_V(b, 0x0B, t.t_4f32, 0);     /* 5 broadcast */
	BCW_V(b, 0x5B, t.t_2x2f32, 1);   /* 6 reshape */
	BCW_V(b, 0x53, t.t_2x2f32);      /* 7 permute [1, 0] */
	bcw_i32s(b, 2, (const int32_t[]){1, 0});
	BCW_V(b, 2);
	BCW_V(b, 0x0C, t8, 0, 1, 5);     /* 8 cat dim 0 */
	BCW_V(b, 0x26, 1, t.t_f32, 2, 1, 3); /* 9 extract */
	BCW_V(b, 0x3A, t.t_4i32);        /* 10 iota */
	BCW_V(b, 0x6F, t16i8, 4);        /* 11 pack */
	BCW_V(b, 0x70, t.t_4i32, 11);    /* 12 unpack */
	BCW_V(b, 0x0B, t.t_4f32, 0);     /* 13 broadcast again: bcast_0 */
	RET(&t);
	check(&t, "%bcast = broadcast %arg0 : tile<f32> -> tile<4xf32>\n"
		  "%reshape = reshape %arg1 : tile<4xf32> -> tile<2x2xf32>\n"
		  "%0 = permute %arg2 [1, 0] : tile<2x2xf32> -> tile<2x2xf32>\n"
		  "%1 = cat %arg1, %bcast dim = 0 : tile<4xf32>, tile<4xf32> -> tile<8xf32>\n"
		  "%2 = extract %arg1[%arg3] : tile<4xf32> -> tile<f32>\n"
		  "%3 = iota : tile<4xi32>\n"
		  "%4 = pack %arg4 : tile<4xi32> -> tile<16xi8>\n"
		  "%5 = unpack %4 : tile<16xi8> -> tile<4xi32>\n"
		  "%bcast_0 = broadcast %arg0 : tile<f32> -> tile<4xf32>\n"
		  "return\n");
}

static uint32_t le_const(struct bct *t, unsigned bytes, unsigned n, ...)
{
	uint8_t buf[512];
	va_list ap;
	va_start(ap, n);
	for (unsigned i = 0; i < n; i++) {
		uint64_t v = va_arg(ap, uint64_t);
		for (unsigned k = 0; k < bytes; k++)
			buf[i * bytes + k] = (uint8_t)(v >> (8 * k));
	}
	va_end(ap);
	return bcw_constant(t->w, buf, (size_t)bytes * n);
}

static void test_constants(void **state)
{
	(void)state;
	struct bct t;
	bct_init(&t, 1, BCW_CPP);
	uint32_t t16i1 = bct_tile(&t, t.i1, 1, 16);
	uint32_t t128i8 = bct_tile(&t, t.i8, 1, 128);
	struct sbuf *b = &t.body;
	BCW_V(b, 0x10, t.t_i32, le_const(&t, 4, 1, (uint64_t)16));
	BCW_V(b, 0x10, t.t_i32, le_const(&t, 4, 1, (uint64_t)16));
	BCW_V(b, 0x10, t.t_i64, le_const(&t, 8, 1, (uint64_t)-1));
	BCW_V(b, 0x10, t.t_4f32, le_const(&t, 4, 1, (uint64_t)0));
	BCW_V(b, 0x10, t.t_f32, le_const(&t, 4, 1, (uint64_t)0xFF800000));
	BCW_V(b, 0x10, t.t_f32, le_const(&t, 4, 1, (uint64_t)0x7FC00000));
	BCW_V(b, 0x10, t.t_f32, le_const(&t, 4, 1, (uint64_t)0x40200000));
	BCW_V(b, 0x10, t.t_f32, le_const(&t, 4, 1, (uint64_t)0x41800000));
	BCW_V(b, 0x10, t.t_f32, le_const(&t, 4, 1, (uint64_t)0x80000000));
	BCW_V(b, 0x10, t.t_4i32, le_const(&t, 4, 4, (uint64_t)1, (uint64_t)2, (uint64_t)3, (uint64_t)4));
	BCW_V(b, 0x10, t.t_4i32, le_const(&t, 4, 4, (uint64_t)7, (uint64_t)7, (uint64_t)7, (uint64_t)7));
	BCW_V(b, 0x10, t.t_4i1, le_const(&t, 1, 1, (uint64_t)1));
	BCW_V(b, 0x10, t.t_4i1, le_const(&t, 1, 1, (uint64_t)0xFF)); /* legacy packed splat */
	BCW_V(b, 0x10, t.t_4i1, le_const(&t, 1, 4, (uint64_t)0, (uint64_t)0, (uint64_t)0, (uint64_t)0));
	BCW_V(b, 0x10, t.t_4i1, le_const(&t, 1, 4, (uint64_t)1, (uint64_t)0, (uint64_t)1, (uint64_t)1));
	BCW_V(b, 0x10, t16i1, le_const(&t, 1, 2, (uint64_t)0x05, (uint64_t)0x80)); /* packed */
	BCW_V(b, 0x10, t.t_2x2f32, le_const(&t, 4, 4, (uint64_t)0x3F800000, (uint64_t)0x40000000,
					      (uint64_t)0x40400000, (uint64_t)0x40800000));
	uint32_t tbf16 = bct_tile(&t, bcw_scalar(t.w, BC_TY_BF16), 0);
	BCW_V(b, 0x10, t.t_f32, le_const(&t, 4, 1, (uint64_t)0x3A800000)); /* 2^-10 */
	BCW_V(b, 0x10, tbf16, le_const(&t, 2, 1, (uint64_t)0x3F82));      /* decimal tie */
	uint8_t packed[16] = {0x01};
	BCW_V(b, 0x10, bct_tile(&t, t.i1, 1, 128), bcw_constant(t.w, packed, sizeof(packed)));
	uint8_t big[128];
	for (int i = 0; i < 128; i++)
		big[i] = (uint8_t)i;
	BCW_V(b, 0x10, t128i8, bcw_constant(t.w, big, sizeof(big)));
	RET(&t);
	struct sbuf want = SBUF_INIT;
	sb_adds(&want, "%cst_16_i32 = constant <i32: 16> : tile<i32>\n"
		       "%cst_16_i32_0 = constant <i32: 16> : tile<i32>\n"
		       "%cst_-1_i64 = constant <i64: -1> : tile<i64>\n"
		       "%cst_0_f32 = constant <f32: 0.000000e+00> : tile<4xf32>\n"
		       "%cst_f32 = constant <f32: 0xFF800000> : tile<f32>\n"
		       "%cst_NaN_f32 = constant <f32: 0x7FC00000> : tile<f32>\n"
		       "%cst_f32_1 = constant <f32: 2.500000e+00> : tile<f32>\n"
		       "%cst_16_f32 = constant <f32: 1.600000e+01> : tile<f32>\n"
		       "%cst_f32_2 = constant <f32: -0.000000e+00> : tile<f32>\n"
		       "%cst_i32 = constant <i32: [1, 2, 3, 4]> : tile<4xi32>\n"
		       "%cst_7_i32 = constant <i32: 7> : tile<4xi32>\n"
		       "%true = constant <i1: true> : tile<4xi1>\n"
		       "%true_3 = constant <i1: true> : tile<4xi1>\n"
		       "%false = constant <i1: false> : tile<4xi1>\n"
		       "%cst_i1 = constant <i1: [true, false, true, true]> : tile<4xi1>\n"
		       "%cst_i1_4 = constant <i1: [true, false, true, false, false, false, false, false, "
		       "false, false, false, false, false, false, false, true]> : tile<16xi1>\n"
		       "%cst_f32_5 = constant <f32: [[1.000000e+00, 2.000000e+00], [3.000000e+00, "
		       "4.000000e+00]]> : tile<2x2xf32>\n"
		       "%cst_f32_6 = constant <f32: 9.765625E-4> : tile<f32>\n"
		       "%cst_bf16 = constant <bf16: 1.015630e+00> : tile<bf16>\n"
		       "%cst_i1_7 = constant <i1: \"0x01");
	for (int i = 1; i < 128; i++)
		sb_adds(&want, "00");
	sb_adds(&want, "\"> : tile<128xi1>\n"
		       "%cst_i8 = constant <i8: \"0x");
	for (int i = 0; i < 128; i++)
		sb_printf(&want, "%02X", i);
	sb_adds(&want, "\"> : tile<128xi8>\nreturn\n");
	check(&t, want.buf);
	sb_free(&want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_float_arith_13_1),
		cmocka_unit_test(test_float_versions),
		cmocka_unit_test(test_int_arith),
		cmocka_unit_test(test_conversions),
		cmocka_unit_test(test_shape_ops),
		cmocka_unit_test(test_constants),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
