/* Bytecode through the model printer: memory, view, token, atomic and misc
 * ops (segmented operands, flag bits, inline hints, predicates) per version. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "engine/ir/irdiff.h"
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

/* Untagged hints payload: {arch: {key: value...}} with one arch. */
static void hints_payload(struct bct *t, struct sbuf *b, const char *arch, bool tma,
			  unsigned latency)
{
	BCW_V(b, 1, bcw_string(t->w, arch), 10, tma ? 2 : 1);
	if (tma)
		BCW_V(b, bcw_string(t->w, "allow_tma"), 3, 0);
	BCW_V(b, bcw_string(t->w, "latency"), 1, t->i32, latency);
}

static void test_views_and_pointers_13_1(void **state)
{
	(void)state;
	struct bct t;
	bct_init(&t, 1, BCW_CPP);
	int64_t shp[2] = {BC_DYNAMIC, 4}, str[2] = {4, 1};
	uint32_t tv = bcw_tensor_view(t.w, t.f32, 2, shp, str);
	uint32_t pv = bcw_partition_view(t.w, 2, (const int32_t[]){1, 4}, tv, NULL, -1);
	uint32_t t1x4 = bct_tile(&t, t.f32, 2, 1, 4);
	uint32_t p = bct_arg(&t, t.t_p_f32), n = bct_arg(&t, t.t_i32);
	uint32_t ptrs = bct_arg(&t, t.t_4p_f32), mask = bct_arg(&t, t.t_4i1);
	uint32_t vals = bct_arg(&t, t.t_4f32), offs = bct_arg(&t, t.t_4i32);
	uint32_t v = t.nargs;
	struct sbuf *b = &t.body;
	uint32_t tok = v++;
	BCW_V(b, 0x44, t.token);
	uint32_t as = v++;
	BCW_V(b, 0x06, t.t_p_f32, 8, 16, 0, p);
	uint32_t tview = v++;
	BCW_V(b, 0x43, 1, tv, as, 1, n, 0);
	uint32_t pview = v++;
	BCW_V(b, 0x42, pv, tview);
	uint32_t bx = v++, by = v++;
	v++;
	BCW_V(b, 0x30, t.t_i32, t.t_i32, t.t_i32);
	uint32_t tile = v++, rtok = v++;
	BCW_V(b, 0x3E, 2, t1x4, t.token, 4, 0, pview, 2, bx, by, tok);
	v++;
	BCW_V(b, 0x66, 1, t.token, 3, 3, 1);
	hints_payload(&t, b, "sm_100", true, 3);
	BCW_V(b, tile, pview, 2, bx, by);
	uint32_t s0 = v++, s1 = v++;
	BCW_V(b, 0x2F, 2, t.t_i32, t.t_i32, tview);
	v++;
	BCW_V(b, 0x03, t.t_i32, 0, s0, s1);
	v += 2;
	BCW_V(b, 0x2D, 2, t.t_i32, t.t_i32, pview);
	v += 3;
	BCW_V(b, 0x2E, t.t_i32, t.t_i32, t.t_i32);
	v++;
	BCW_V(b, 0x3C, 1, t.token, 2, tok, rtok);
	v++;
	uint32_t ltok = v++;
	BCW_V(b, 0x3D, t.t_4f32, t.token, 0x15, 2, 2, ptrs, mask, tok);
	v += 2;
	BCW_V(b, 0x3D, t.t_4f32, t.token, 0x0C, 0, ptrs, mask, vals);
	v++;
	BCW_V(b, 0x65, t.token, 0x0A, 1);
	hints_payload(&t, b, "sm_90", false, 2);
	BCW_V(b, ptrs, vals, ltok);
	v += 2;
	BCW_V(b, 0x08, t.t_4f32, t.token, 1, 1, 1, 4, ptrs, vals, mask);
	v += 2;
	BCW_V(b, 0x07, t.t_4f32, t.token, 2, 4, 0, ptrs, vals, vals, tok);
	BCW_V(b, 0x51, t.t_4p_f32, ptrs, offs);
	BCW_V(b, 0x2C, t.t_p_f32, bcw_string(t.w, "g"));
	RET(&t);
	uint8_t cbytes[16] = {0, 0, 0x80, 0x3f, 0, 0, 0, 0x40, 0, 0, 0x40, 0x40, 0, 0, 0x80, 0x40};
	bcw_global(t.w, "g", t.t_4f32, bcw_constant(t.w, cbytes, 16), 16, 0, false);
	const char *pvt = "partition_view<tile=(1x4), tensor_view<?x4xf32, strides=[4,1]>>";
	char *want = xasprintf(
		"%%0 = make_token : token\n"
		"%%assume = assume div_by<16>, %%arg0 : tile<ptr<f32>>\n"
		"%%tview = make_tensor_view %%assume, shape = [%%arg1, 4], strides = [4, 1] : tile<i32> -> tensor_view<?x4xf32, strides=[4,1]>\n"
		"%%pview = make_partition_view %%tview : %s\n"
		"%%blockId_x, %%blockId_y, %%blockId_z = get_tile_block_id : tile<i32>\n"
		"%%tile, %%result_token = load_view_tko weak %%pview[%%blockId_x, %%blockId_y] token = %%0 : %s, tile<i32> -> tile<1x4xf32>, token\n"
		"%%1 = store_view_tko release device %%tile, %%pview[%%blockId_x, %%blockId_y] optimization_hints = <sm_100 = {allow_tma = false, latency = 3}> : tile<1x4xf32>, %s, tile<i32> -> token\n"
		"%%2:2 = get_tensor_shape %%tview : tensor_view<?x4xf32, strides=[4,1]> -> tile<i32>\n"
		"%%3 = addi %%2#0, %%2#1 : tile<i32>\n"
		"%%4:2 = get_index_space_shape %%pview : %s -> tile<i32>\n"
		"%%gridSize_x, %%gridSize_y, %%gridSize_z = get_num_tile_blocks : tile<i32>\n"
		"%%5 = join_tokens %%0, %%result_token : token\n"
		"%%result, %%result_token_0 = load_ptr_tko acquire sys %%arg2, %%arg3 token=%%0 : tile<4xptr<f32>>, tile<4xi1> -> tile<4xf32>, token\n"
		"%%result_1, %%result_token_2 = load_ptr_tko weak %%arg2, %%arg3, %%arg4 : tile<4xptr<f32>>, tile<4xi1>, tile<4xf32> -> tile<4xf32>, token\n"
		"%%6 = store_ptr_tko relaxed %%arg2, %%arg4 token=%%result_token_0 optimization_hints = <sm_90 = {latency = 2}> : tile<4xptr<f32>>, tile<4xf32> -> token\n"
		"%%result_3, %%result_token_4 = atomic_rmw_tko relaxed device %%arg2, addf, %%arg4, %%arg3 : tile<4xptr<f32>>, tile<4xf32>, tile<4xi1> -> tile<4xf32>, token\n"
		"%%result_5, %%result_token_6 = atomic_cas_tko acq_rel tl_blk %%arg2, %%arg4, %%arg4 token=%%0 : tile<4xptr<f32>>, tile<4xf32> -> tile<4xf32>, token\n"
		"%%7 = offset %%arg2, %%arg5 : tile<4xptr<f32>>, tile<4xi32> -> tile<4xptr<f32>>\n"
		"%%8 = get_global @g : tile<ptr<f32>>\n"
		"return\n",
		pvt, pvt, pvt, pvt);
	check(&t, want);
	free(want);
}

static void test_module_header_and_globals(void **state)
{
	(void)state;
	/* 13.3: producer section, private constant global, non-zero tag */
	struct bct t;
	bct_init(&t, 3, BCW_CPP);
	uint8_t five[4] = {5, 0, 0, 0};
	bcw_global(t.w, "c", t.t_i32, bcw_constant(t.w, five, 4), 0, 1, true);
	bcw_global(t.w, "d", t.t_i32, bcw_constant(t.w, five, 4), 8, 0, true);
	bcw_producer(t.w, "tileport \"test\"");
	bct_arg(&t, t.t_f32);
	RET(&t);
	struct sbuf file = SBUF_INIT;
	bct_bytes(&t, &file);
	file.buf[10] = 5; /* 13.3.5 still reads as 13.3 */
	struct tp_err err = {0};
	char *text = bct_text(file.buf, file.len, &err);
	assert_non_null(text);
	assert_string_equal(text,
			    "cuda_tile.module @kernels attributes {producer = \"tileport \\22test\\22\"} {\n"
			    "  global private  constant @c <i32: 5> : tile<i32>\n"
			    "  global  constant @d alignment = 8 <i32: 5> : tile<i32>\n"
			    "  entry @k(%arg0: tile<f32>) {\n"
			    "    return\n"
			    "  }\n"
			    "}\n");
	free(text);
	sb_free(&file);
}

static void test_views_13_3(void **state)
{
	(void)state;
	struct bct t;
	bct_init(&t, 3, BCW_PYTHON);
	int64_t shp[2] = {16, 16}, str[2] = {16, 1};
	uint32_t tv = bcw_tensor_view(t.w, t.f32, 2, shp, str);
	uint32_t sv = bcw_strided_view(t.w, 2, (const int32_t[]){2, 4}, (const int32_t[]){2, 1}, tv,
				       NULL, 4);
	uint32_t gsv = bcw_gather_scatter_view(t.w, 2, (const int32_t[]){8, 16}, tv, 0, 0);
	uint32_t pv = bcw_partition_view(t.w, 2, (const int32_t[]){4, 2}, tv, (const int32_t[]){1, 0},
					 2);
	uint32_t t4x2 = bct_tile(&t, t.f32, 2, 4, 2);
	uint32_t p = bct_arg(&t, t.t_p_f32), n = bct_arg(&t, t.t_i32), x = bct_arg(&t, t.t_f32);
	uint32_t v = t.nargs;
	struct sbuf *b = &t.body;
	uint32_t tok = v++;
	BCW_V(b, 0x44, t.token);
	uint32_t tview = v++;
	BCW_V(b, 0x43, 1, tv, p, 0, 0);
	v++;
	BCW_V(b, 0x74, sv, tview);
	v++;
	BCW_V(b, 0x73, gsv, tview);
	uint32_t pview = v++;
	BCW_V(b, 0x42, pv, tview);
	v++;
	BCW_V(b, 0x71, t.t_p_f32, 1, 64, 16);
	v++;
	BCW_V(b, 0x75, 1, t.token, 1, 1, 1, 4, pview, 2, n, n, x, tok);
	v += 2;
	BCW_V(b, 0x3E, 2, t4x2, t.token, 1, 2, 1, pview, 2, n, n);
	v++;
	BCW_V(b, 0x55, 1, t.token, 0, bcw_string(t.w, "v=%f\n"), 1, x);
	BCW_V(b, 0x49, t.t_f32, 1, x, x, x); /* mmaf fast_acc (13.3 flags) */
	BCW_V(b, 0x72, t.t_f32, x, x, x, x, x);
	RET(&t);
	const char *tvt = "tensor_view<16x16xf32, strides=[16,1]>";
	const char *pvt = "partition_view<tile=(4x2), padding_value = nan, tensor_view<16x16xf32, strides=[16,1]>, dim_map=[1, 0]>";
	char *want = xasprintf(
		"%%0 = make_token : token\n"
		"%%tview = make_tensor_view %%arg0, shape = [16, 16], strides = [16, 1] : %s\n"
		"%%sview = make_strided_view %%tview : strided_view<tile=(2x4), traversal_strides=[2,1], padding_value = neg_inf, %s>\n"
		"%%gsview = make_gather_scatter_view %%tview : gather_scatter_view<tile=(8x16), padding_value = zero, %s, sparse_dim=0>\n"
		"%%pview = make_partition_view %%tview : %s\n"
		"%%1 = alloca num_elem = 64, alignment = 16 global : tile<ptr<f32>>\n"
		"%%2 = atomic_red_view_tko relaxed device %%pview[%%arg1, %%arg1], addf, %%arg2 token = %%0 : tile<f32>, %s, tile<i32> -> token\n"
		"%%tile, %%result_token = load_view_tko acquire device %%pview[%%arg1, %%arg1] : %s, tile<i32> -> tile<4x2xf32>, token\n"
		"%%3 = print_tko \"v=%%f\\0A\", %%arg2 : tile<f32> -> token\n"
		"%%4 = mmaf %%arg2, %%arg2, %%arg2 fast_acc : tile<f32>, tile<f32>, tile<f32>\n"
		"%%5 = mmaf_scaled %%arg2, %%arg2, %%arg2, %%arg2, %%arg2 : tile<f32>, tile<f32>, tile<f32>, tile<f32>, tile<f32>\n"
		"return\n",
		tvt, tvt, tvt, pvt, pvt, pvt);
	check(&t, want);
	free(want);
}

/* 13.1 and 13.2 partition_view layout: a presence byte before the padding. */
static void test_partition_view_legacy_layout(void **state)
{
	(void)state;
	for (unsigned minor = 1; minor <= 2; minor++) {
		struct bct t;
		bct_init(&t, minor, BCW_CPP);
		int64_t shp[1] = {BC_DYNAMIC}, str[1] = {1};
		uint32_t tv = bcw_tensor_view(t.w, t.f16, 1, shp, str);
		uint32_t a = bcw_partition_view(t.w, 1, (const int32_t[]){8}, tv, NULL, 1);
		uint32_t c = bcw_partition_view(t.w, 1, (const int32_t[]){8}, tv, NULL, -1);
		bct_arg(&t, a);
		bct_arg(&t, c);
		RET(&t);
		struct sbuf file = SBUF_INIT;
		bct_bytes(&t, &file);
		struct tp_err err = {0};
		char *text = bct_text(file.buf, file.len, &err);
		assert_non_null(text);
		assert_string_equal(text,
				    "cuda_tile.module @kernels {\n"
				    "  entry @k(%arg0: partition_view<tile=(8), padding_value = neg_zero, tensor_view<?xf16, strides=[1]>>, "
				    "%arg1: partition_view<tile=(8), tensor_view<?xf16, strides=[1]>>) {\n"
				    "    return\n"
				    "  }\n"
				    "}\n");
		free(text);
		sb_free(&file);
	}
}

static void test_misc_13_1(void **state)
{
	(void)state;
	struct bct t;
	bct_init(&t, 1, BCW_PYTHON);
	uint32_t t22i8 = bct_tile(&t, t.i8, 2, 2, 2), t22i32 = bct_tile(&t, t.i32, 2, 2, 2);
	uint32_t c = bct_arg(&t, t.t_i1), x = bct_arg(&t, t.t_f32), m = bct_arg(&t, t.t_2x2f32);
	uint32_t a8 = bct_arg(&t, t22i8), a32 = bct_arg(&t, t22i32), n = bct_arg(&t, t.t_i32);
	uint32_t v = t.nargs;
	struct sbuf *b = &t.body;
	BCW_V(b, 0x05, bcw_string(t.w, "bad \"x\"\n\\"), c);
	BCW_V(b, 0x55, 0, bcw_string(t.w, "x=%f"), 1, x); /* 13.1 print: no result, no flags */
	BCW_V(b, 0x55, 0, bcw_string(t.w, "hi"), 0);
	BCW_V(b, 0x49, t.t_2x2f32, m, m, m); /* mmaf: no flags before 13.3 */
	v++;
	BCW_V(b, 0x4A, t22i32, 1, 0, a8, a8, a32);
	v++;
	uint32_t as = v++;
	BCW_V(b, 0x06, t.t_i32, 8, 4, 3, 8, 2, n);
	v++;
	BCW_V(b, 0x06, t.t_i32, 9);
	bcw_i64s(b, 2, (const int64_t[]){2, 4});
	BCW_V(b, n);
	v++;
	BCW_V(b, 0x06, t.t_i32, 12, 2, 200, n);
	v++;
	BCW_V(b, 0x06, t.t_i32, 12, 3, 5, 10, n);
	v++;
	BCW_V(b, 0x06, t.t_i32, 8, 16, 0, as);
	uint8_t sixteen[4] = {16, 0, 0, 0};
	uint32_t cst = v++;
	BCW_V(b, 0x10, t.t_i32, bcw_constant(t.w, sixteen, 4));
	BCW_V(b, 0x06, t.t_i32, 8, 16, 0, cst);
	v++;
	uint32_t sum = v++;
	BCW_V(b, 0x03, t.t_i32, 0, n, n);
	BCW_V(b, 0x06, t.t_i32, 8, 16, 0, sum);
	RET(&t);
	check(&t, "assert %arg0, \"bad \\22x\\22\\0A\\\\\" : tile<i1>\n"
		  "%0 = print_tko \"x=%f\", %arg1 : tile<f32> -> token\n"
		  "%1 = print_tko \"hi\" -> token\n"
		  "%2 = mmaf %arg2, %arg2, %arg2 : tile<2x2xf32>, tile<2x2xf32>, tile<2x2xf32>\n"
		  "%3 = mmai %arg3, %arg3, %arg4 signed unsigned : tile<2x2xi8>, tile<2x2xi8>, tile<2x2xi32>\n"
		  "%assume = assume div_by<4, every 4 along 1>, %arg5 : tile<i32>\n"
		  "%assume_0 = assume same_elements<[2, 4]>, %arg5 : tile<i32>\n"
		  "%assume_1 = assume bounded<?, 100>, %arg5 : tile<i32>\n"
		  "%assume_2 = assume bounded<-3, 5>, %arg5 : tile<i32>\n"
		  "%assume_assume = assume div_by<16>, %assume : tile<i32>\n"
		  "%cst_16_i32 = constant <i32: 16> : tile<i32>\n"
		  "%assume_cst_16_i32 = assume div_by<16>, %cst_16_i32 : tile<i32>\n"
		  "%4 = addi %arg5, %arg5 : tile<i32>\n"
		  "%assume_3 = assume div_by<16>, %4 : tile<i32>\n"
		  "return\n");
}

/* 13.2: print_tko has a token result, a flags field and an optional token. */
static void test_print_tko_13_2(void **state)
{
	(void)state;
	struct bct t;
	bct_init(&t, 2, BCW_CPP);
	uint32_t x = bct_arg(&t, t.t_f32);
	uint32_t tok = t.nargs;
	BCW_V(&t.body, 0x44, t.token);
	BCW_V(&t.body, 0x55, 1, t.token, 1, bcw_string(t.w, "x=%f"), 1, x, tok);
	BCW_V(&t.body, 0x55, 1, t.token, 0, bcw_string(t.w, "y"), 0);
	BCW_V(&t.body, 0x29, 0, 1, 3, x, x, x, 1, 1, 1, t.t_f32, 1, 0x11, 0, 0); /* unsigned for */
	RET(&t);
	check(&t, "%0 = make_token : token\n"
		  "%1 = print_tko \"x=%f\", %arg0 token=%0 : tile<f32> -> token\n"
		  "%2 = print_tko \"y\" -> token\n"
		  "for unsigned %loopIdx in (%arg0 to %arg0, step %arg0) : tile<f32> {\n"
		  "}\n"
		  "return\n");
}

/* Entry hints carry every tagged attribute kind. */
static void test_entry_hints_all_attr_kinds(void **state)
{
	(void)state;
	struct bct t;
	bct_init(&t, 1, BCW_CPP);
	uint8_t c4[16] = {1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0};
	uint32_t k = bcw_constant(t.w, c4, 16);
	struct sbuf *h = &t.hints;
	BCW_V(h, 11, 2, bcw_string(t.w, "sm_100"), 10, 9);
	BCW_V(h, bcw_string(t.w, "h"), 1, t.i1);
	sb_addc(h, 1);
	BCW_V(h, bcw_string(t.w, "a"), 1, t.i32, 0xFFFFFFFFu);
	BCW_V(h, bcw_string(t.w, "b"), 2, t.f32);
	bcw_svarint(h, 0x3FC00000);
	BCW_V(h, bcw_string(t.w, "c"), 3);
	sb_addc(h, 1);
	BCW_V(h, bcw_string(t.w, "d"), 4, t.t_4f32);
	BCW_V(h, bcw_string(t.w, "e"), 5, bcw_string(t.w, "s"));
	BCW_V(h, bcw_string(t.w, "f"), 6, 2, 1, t.i64, 1, 2, t.f16);
	bcw_svarint(h, 0x4000);
	BCW_V(h, bcw_string(t.w, "g"), 7, t.t_4i32, k);
	BCW_V(h, bcw_string(t.w, "i"), 1, t.i8, 0x80);
	BCW_V(h, bcw_string(t.w, "default"), 10, 0);
	RET(&t);
	struct sbuf file = SBUF_INIT;
	bct_bytes(&t, &file);
	/* Only integers and booleans occur in real hints; how the official
	 * printer spells the other kinds there is not known. The model printer
	 * writes them in MLIR's generic attribute syntax, every typed number
	 * with its type (`1 : i64`, where a standalone MLIR attribute would
	 * elide i64), and the text parser reads that back (docs/bytecode.md). */
	struct tp_err err = {0};
	char *text = bct_text(file.buf, file.len, &err);
	assert_non_null(text);
	assert_string_equal(text,
			    "cuda_tile.module @kernels {\n"
			    "  entry @k() optimization_hints=<default = {}, sm_100 = {a = -1, b = 1.500000e+00 : f32, "
			    "c = true, d = tile<4xf32>, e = \"s\", f = [1 : i64, 2.000000e+00 : f16], "
			    "g = dense<[1, 2, 3, 4]> : tile<4xi32>, h = true, i = -128}> {\n"
			    "    return\n"
			    "  }\n"
			    "}\n");
	free(text);
	sb_free(&file);
}

/* k(%arg0: ptr, %arg1: i32): a view with the given padding, one load. */
static struct ir_module *padded_kernel(int padding)
{
	struct bct t;
	bct_init(&t, 3, BCW_PYTHON);
	int64_t shp[2] = {BC_DYNAMIC, 4}, str[2] = {4, 1};
	uint32_t tv = bcw_tensor_view(t.w, t.f32, 2, shp, str);
	uint32_t pv = bcw_partition_view(t.w, 2, (const int32_t[]){1, 4}, tv, NULL, padding);
	uint32_t t1x4 = bct_tile(&t, t.f32, 2, 1, 4);
	uint32_t p = bct_arg(&t, t.t_p_f32), n = bct_arg(&t, t.t_i32);
	uint32_t v = t.nargs;
	struct sbuf *b = &t.body;
	uint32_t tok = v++;
	BCW_V(b, 0x44, t.token);
	uint32_t tview = v++;
	BCW_V(b, 0x43, 1, tv, p, 1, n, 0);
	uint32_t pview = v++;
	BCW_V(b, 0x42, pv, tview);
	BCW_V(b, 0x3E, 2, t1x4, t.token, 4, 0, pview, 2, n, n, tok);
	RET(&t);
	struct sbuf file = SBUF_INIT;
	bct_bytes(&t, &file);
	struct tp_err err;
	struct ir_module *m = ir_module_from_buffer("k.tileirbc", file.buf, file.len, &err);
	if (!m)
		fail_msg("%s", err.msg);
	sb_free(&file);
	return m;
}

/* Some printers write `masked` where the bytecode has a padding value and
 * drop the value: against the bytecode that is a note, never CRITICAL; a
 * view without any padding is a real difference. */
static void test_masked_text_against_bytecode(void **state)
{
	(void)state;
	static const char text[] =
		"cuda_tile.module @kernels {\n"
		"  entry @k(%0: tile<ptr<f32>>, %1: tile<i32>) {\n"
		"    %2 = make_token : token\n"
		"    %3 = make_tensor_view %0, shape = [%1, 4], strides = [4, 1] : tile<i32> -> tensor_view<?x4xf32, strides=[4,1]>\n"
		"    %4 = make_partition_view %3 : partition_view<masked tile=(1x4), tensor_view<?x4xf32, strides=[4,1]>, dim_map=[0, 1]>\n"
		"    %5, %6 = load_view_tko weak %4[%1, %1] token=%2 : partition_view<masked tile=(1x4), tensor_view<?x4xf32, strides=[4,1]>, dim_map=[0, 1]>, tile<i32> -> tile<1x4xf32>, token\n"
		"    return\n  }\n}\n";
	struct tp_err err;
	struct ir_module *masked = ir_text_parse("k.mlir", text, strlen(text), &err);
	assert_non_null(masked);
	struct ir_module *zero = padded_kernel(0), *none = padded_kernel(-1);
	const struct ir_module *pairs[2][2] = {{masked, zero}, {zero, masked}};
	for (int k = 0; k < 2; k++) {
		struct irdiff_result *r = irdiff_modules(pairs[k][0], pairs[k][1], NULL, &err);
		assert_non_null(r);
		assert_int_equal(r->verdict, IRDIFF_PASS);
		assert_int_equal(r->ncritical + r->nwarn + r->ninfo, 0);
		assert_int_equal(r->nnote, 1);
		assert_string_equal(r->findings[0].rule, "padding-value");
		assert_non_null(strstr(r->findings[0].message, "zero"));
		irdiff_free(r);
	}
	struct irdiff_result *r = irdiff_modules(masked, none, NULL, &err);
	assert_int_equal(r->verdict, IRDIFF_FAIL_FIXABLE);
	assert_int_equal(r->findings[0].severity, IRDIFF_CRITICAL);
	assert_string_equal(r->findings[0].rule, "padding-value");
	irdiff_free(r);
	ir_module_free(masked);
	ir_module_free(zero);
	ir_module_free(none);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_views_and_pointers_13_1),
		cmocka_unit_test(test_module_header_and_globals),
		cmocka_unit_test(test_views_13_3),
		cmocka_unit_test(test_partition_view_legacy_layout),
		cmocka_unit_test(test_misc_13_1),
		cmocka_unit_test(test_print_tko_13_2),
		cmocka_unit_test(test_entry_hints_all_attr_kinds),
		cmocka_unit_test(test_masked_text_against_bytecode),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
