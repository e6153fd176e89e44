/* Bytecode reader: the reference's worked examples byte for byte — the
 * 126-byte 13.1 file of §11, the op records of §6.6 and the head of the
 * cuTile Python matmul file of §11 — printed by the shared model's printer,
 * and float printing (§10.5). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "engine/ir/ir.h"
#include "tests/unit/bctest.h"

static char *fixture_path(const char *name)
{
	const char *top = getenv("TILEPORT_TOP");
	return xasprintf("%s/tests/fixtures/bytecode/%s", top && *top ? top : ".", name);
}

static void test_spec11_file(void **state)
{
	(void)state;
	char *path = fixture_path("spec11_negi_13_1.tileirbc");
	struct tp_err err = {0};
	struct bc_module *m = bc_load_file(path, &err);
	if (!m)
		print_error("%s\n", err.msg);
	assert_non_null(m);
	assert_int_equal(m->len, 126);
	assert_int_equal(m->minor, 1);
	assert_int_equal(m->nfuncs, 1);
	assert_int_equal(m->funcs[0].body.nops, 4);
	/* the constant's raw bytes live at 0x41 */
	assert_int_equal(m->consts[0].offset, 0x41);
	assert_int_equal(m->funcs[0].body.ops[1].offset, 0x19);
	char *out = bct_print(m);
	assert_string_equal(out, "cuda_tile.module @kernels {\n"
				     "  entry @basic() {\n"
				     "    %cst_i32 = constant <i32: [1, 2]> : tile<2xi32>\n"
				     "    %0 = negi %cst_i32 : tile<2xi32>\n"
				     "    %1 = negi %cst_i32 : tile<2xi32>\n"
				     "    return\n"
				     "  }\n"
				     "}\n");
	free(out);
	bc_module_free(m);
	free(path);
}

/* The §6.6 records need a type table whose indices match the examples. */
struct s66 {
	struct bc_writer *w;
	uint32_t ty[24]; /* argument type of value i */
	struct sbuf text;
};

static void s66_entry(struct s66 *s, const char *name, unsigned nargs, const uint8_t *rec,
		      size_t len)
{
	uint32_t sig = bcw_func_type(s->w, nargs, s->ty, 0, NULL);
	struct sbuf body = SBUF_INIT;
	sb_add(&body, rec, len);
	BCW_V(&body, 0x5C, 0, 0);
	bcw_func(s->w, name, sig, 0, NULL, &body);
	sb_free(&body);
}

/* `s` with every "PV" replaced by the partition view type (malloc'd). */
static char *expand_pv(const char *s, const char *pv)
{
	struct sbuf out = SBUF_INIT;
	for (const char *p = s; *p; p++) {
		if (strncmp(p, "PV", 2) == 0) {
			sb_adds(&out, pv);
			p++;
		} else {
			sb_addc(&out, *p);
		}
	}
	return sb_detach(&out);
}

static void test_spec66_records(void **state)
{
	(void)state;
	struct s66 s = {bcw_new(3, BCW_PYTHON), {0}, SBUF_INIT};
	struct bc_writer *w = s.w;
	/* strings 0..7: 1 = sm_100, 5 = allow_tma, 6 = latency, 7 = format */
	const char *strs[8] = {"e0", "sm_100", "s2", "s3", "s4", "allow_tma", "latency", "tile=%f"};
	for (int i = 0; i < 8; i++)
		assert_int_equal(bcw_string(w, strs[i]), i);
	int64_t shp[2] = {BC_DYNAMIC, 16}, str[2] = {16, 1}, d1x16[2] = {1, 16}, d1[1] = {1};
	assert_int_equal(bcw_scalar(w, BC_TY_I1), 0);
	assert_int_equal(bcw_scalar(w, BC_TY_I32), 1);
	assert_int_equal(bcw_scalar(w, BC_TY_F32), 2);
	assert_int_equal(bcw_scalar(w, BC_TY_TOKEN), 3);
	assert_int_equal(bcw_ptr(w, 2), 4);
	assert_int_equal(bcw_tile(w, 4, 0, NULL), 5);
	assert_int_equal(bcw_tile(w, 1, 0, NULL), 6);
	assert_int_equal(bcw_tile(w, 2, 0, NULL), 7);
	assert_int_equal(bcw_tensor_view(w, 2, 2, shp, str), 8);
	assert_int_equal(bcw_partition_view(w, 2, (const int32_t[]){1, 16}, 8, NULL, -1), 9);
	assert_int_equal(bcw_tile(w, 2, 2, d1x16), 10);
	assert_int_equal(bcw_tile(w, 0, 0, NULL), 11);
	assert_int_equal(bcw_tile(w, 2, 1, d1), 12);
	uint32_t argty[24] = {5, 6, 3, 5, 8, 9, 6, 6, 6, 10, 10, 6, 6, 6, 10, 7, 9, 6, 6, 6, 6, 6, 11, 6};
	memcpy(s.ty, argty, sizeof(argty));

	static const uint8_t mtv[] = {0x43, 0x01, 0x08, 0x03, 0x01, 0x01, 0x00};
	static const uint8_t mpv[] = {0x42, 0x09, 0x04};
	static const uint8_t lvt[] = {0x3E, 0x02, 0x0A, 0x03, 0x06, 0x00, 0x01, 0x01, 0x0A, 0x02, 0x05,
				      0x03, 0x00, 0x06, 0x01, 0x01, 0x03, 0x05, 0x02, 0x06, 0x07, 0x02};
	static const uint8_t fr[] = {0x29, 0x01, 0x0A, 0x01, 0x04, 0x0B, 0x0C, 0x0D, 0x09, 0x01, 0x01, 0x02,
				     0x06, 0x0A, 0x02, 0x02, 0x0A, 0x01, 0x00, 0x0F, 0x0F, 0x11, 0x00,
				     0x01, 0x10};
	static const uint8_t red[] = {0x58, 0x01, 0x0C, 0x01, 0x01, 0x02, 0x02, 0x80, 0x80, 0x80, 0xF8,
				      0x1F, 0x01, 0x0E, 0x01, 0x01, 0x02, 0x07, 0x07, 0x02, 0x45, 0x07,
				      0x01, 0x0F, 0x10, 0x6D, 0x00, 0x01, 0x11};
	static const uint8_t iff[] = {0x32, 0x00, 0x16, 0x02, 0x01, 0x00, 0x01, 0x6D,
				      0x00, 0x00, 0x01, 0x00, 0x01, 0x6D, 0x00, 0x00};
	static const uint8_t prt[] = {0x55, 0x01, 0x03, 0x01, 0x07, 0x01, 0x06, 0x02};
	static const uint8_t svt[] = {0x66, 0x01, 0x03, 0x01, 0x00, 0x01, 0x0E, 0x05, 0x02, 0x06, 0x07};
	static const uint8_t alc[] = {0x71, 0x05, 0x01, 0x40, 0x10};
	static const uint8_t arv[] = {0x75, 0x01, 0x03, 0x01, 0x01, 0x01, 0x04, 0x10, 0x02, 0x06, 0x07,
				      0x0E, 0x02};
	s66_entry(&s, "e0", 4, mtv, sizeof(mtv));
	s66_entry(&s, "e1", 5, mpv, sizeof(mpv));
	s66_entry(&s, "e2", 8, lvt, sizeof(lvt));
	s66_entry(&s, "e3", 14, fr, sizeof(fr));
	s66_entry(&s, "e4", 15, red, sizeof(red));
	s66_entry(&s, "e5", 23, iff, sizeof(iff));
	s66_entry(&s, "e6", 8, prt, sizeof(prt));
	s66_entry(&s, "e7", 15, svt, sizeof(svt));
	s66_entry(&s, "e8", 0, alc, sizeof(alc));
	s66_entry(&s, "e9", 17, arv, sizeof(arv));
	struct sbuf file = SBUF_INIT;
	bcw_finish(w, &file);
	bcw_free(w);
	struct tp_err err = {0};
	char *text = bct_text(file.buf, file.len, &err);
	if (!text)
		print_error("%s\n", err.msg);
	assert_non_null(text);
	const char *pv = "partition_view<tile=(1x16), tensor_view<?x16xf32, strides=[16,1]>>";
	const char *want[] = {
		"    %tview = make_tensor_view %arg3, shape = [%arg1, 16], strides = [16, 1] : tile<i32> -> tensor_view<?x16xf32, strides=[16,1]>\n",
		"    %pview = make_partition_view %arg4 : partition_view<tile=(1x16), tensor_view<?x16xf32, strides=[16,1]>>\n",
		"    %tile, %result_token = load_view_tko weak %arg5[%arg6, %arg7] token = %arg2 optimization_hints = <sm_100 = {allow_tma = false, latency = 3}> : PV, tile<i32> -> tile<1x16xf32>, token\n",
		"    %for = for unsigned %loopIdx in (%arg11 to %arg12, step %arg13) : tile<i32> iter_values(%iterArg0 = %arg9) -> (tile<1x16xf32>) {\n"
		"      %0 = addf %iterArg0, %iterArg0  flush_to_zero : tile<1x16xf32>\n"
		"      continue %0 : tile<1x16xf32>\n"
		"    }\n",
		"    %reduce = reduce %arg14 dim=1 identities=[0xFF800000 : f32] : tile<1x16xf32> -> tile<1xf32> \n"
		"    (%reduce_lhs: tile<f32>, %reduce_rhs: tile<f32>) {\n"
		"      %0 = maxf %reduce_lhs, %reduce_rhs propagate_nan : tile<f32>\n"
		"      yield %0 : tile<f32>\n"
		"    }\n",
		"    if %arg22 {\n    } else {\n    }\n",
		"    %0 = print_tko \"tile=%f\", %arg6 token=%arg2 : tile<i32> -> token\n",
		"    %0 = store_view_tko weak device %arg14, %arg5[%arg6, %arg7] : tile<1x16xf32>, PV, tile<i32> -> token\n",
		"    %0 = alloca num_elem = 64, alignment = 16 global : tile<ptr<f32>>\n",
		"    %0 = atomic_red_view_tko relaxed device %arg16[%arg6, %arg7], addf, %arg14 token = %arg2 : tile<1x16xf32>, PV, tile<i32> -> token\n",
	};
	/* the whole module: each entry's arguments typed from the table above
	 * (the names per §10.3), its record's text, then the return */
	static const char *const tyname[13] = {
		[3] = "token", [5] = "tile<ptr<f32>>", [6] = "tile<i32>", [7] = "tile<f32>",
		[8] = "tensor_view<?x16xf32, strides=[16,1]>", [9] = "PV", [10] = "tile<1x16xf32>",
		[11] = "tile<i1>",
	};
	static const unsigned nargs[10] = {4, 5, 8, 14, 15, 23, 8, 15, 0, 17};
	struct sbuf all = SBUF_INIT;
	sb_adds(&all, "cuda_tile.module @kernels {\n");
	for (size_t i = 0; i < TP_ARRAY_LEN(want); i++) {
		struct sbuf e = SBUF_INIT;
		sb_printf(&e, "  entry @e%zu(", i);
		for (unsigned k = 0; k < nargs[i]; k++)
			sb_printf(&e, "%s%%arg%u: %s", k ? ", " : "", k, tyname[argty[k]]);
		sb_printf(&e, ") {\n%s    return\n  }\n", want[i]);
		char *entry = expand_pv(e.buf, pv);
		/* this entry's part of the printed module */
		char *head = xasprintf("  entry @e%zu(", i);
		const char *at = strstr(text, head);
		const char *end = at ? strstr(at + 1, "\n  entry @") : NULL;
		char *got = at ? xstrndup(at, end ? (size_t)(end - at) + 1 : strlen(at) - 2) : xstrdup("");
		if (strcmp(got, entry) != 0)
			print_error("--- want\n%s--- got\n%s---\n", entry, got);
		assert_string_equal(got, entry);
		sb_adds(&all, entry);
		free(got);
		free(head);
		free(entry);
		sb_free(&e);
	}
	sb_adds(&all, "}\n");
	assert_string_equal(text, all.buf);
	sb_free(&all);
	free(text);
	sb_free(&file);
}

/* The head of the 13.1 cuTile Python matmul file (§11, second table). */
static void test_spec11_matmul_head(void **state)
{
	(void)state;
	struct bc_writer *w = bcw_new(1, BCW_PYTHON);
	const char *strs[5] = {"s0", "s1", "matmul_kernel", "s3", "sm_75"};
	for (int i = 0; i < 5; i++)
		assert_int_equal(bcw_string(w, strs[i]), i);
	assert_int_equal(bcw_scalar(w, BC_TY_I32), 0);
	assert_int_equal(bcw_scalar(w, BC_TY_F16), 1);
	assert_int_equal(bcw_ptr(w, 1), 2);
	assert_int_equal(bcw_scalar(w, BC_TY_F32), 3);
	assert_int_equal(bcw_tile(w, 2, 0, NULL), 4);
	assert_int_equal(bcw_tile(w, 0, 0, NULL), 5);
	assert_int_equal(bcw_scalar(w, BC_TY_I1), 6);
	assert_int_equal(bcw_scalar(w, BC_TY_I64), 7);
	assert_int_equal(bcw_tile(w, 3, 0, NULL), 8);
	uint32_t args[18];
	for (int i = 0; i < 18; i++)
		args[i] = i == 0 ? 4 : 5;
	assert_int_equal(bcw_func_type(w, 18, args, 0, NULL), 9);
	assert_int_equal(bcw_scalar(w, BC_TY_TOKEN), 10);
	uint8_t sixteen[4] = {0x10, 0, 0, 0};
	assert_int_equal(bcw_constant(w, sixteen, 4), 0);
	static const uint8_t ops[] = {0x44, 0x0A, 0x10, 0x05, 0x00, 0x06, 0x04, 0x08, 0x10, 0x00, 0x00,
				      0x06, 0x05, 0x0C, 0x01, 0x00, 0x01, 0x06, 0x05, 0x08, 0x10, 0x00,
				      0x15, 0x5C, 0x00, 0x00};
	struct sbuf body = SBUF_INIT, hints = SBUF_INIT;
	sb_add(&body, ops, sizeof(ops));
	static const uint8_t h[] = {0x0B, 0x01, 0x04, 0x0A, 0x00};
	sb_add(&hints, h, sizeof(h));
	uint32_t dummy = bcw_debug_attr(w, 0, NULL, 0);
	uint64_t refs[7] = {0, 0, dummy, 0, 0, 0, 0};
	assert_int_equal(bcw_debug_list(w, 7, refs), 1);
	bcw_func(w, "matmul_kernel", 9, 1, &hints, &body);
	struct sbuf file = SBUF_INIT;
	bcw_finish(w, &file);
	bcw_free(w);
	/* function record as in the reference: 1 function, name 2, type 9,
	 * flags kernel+hints, debug list 1, hints tag 11 {sm_75 = {}} */
	static const uint8_t rec[] = {0x01, 0x02, 0x09, 0x06, 0x01, 0x0B, 0x01, 0x04, 0x0A, 0x00};
	assert_memory_equal(file.buf + 16, rec, sizeof(rec));
	struct tp_err err = {0};
	struct bc_module *m = bc_decode(file.buf, file.len, "matmul", &err);
	assert_non_null(m);
	assert_int_equal(m->funcs[0].loc, 1);
	assert_int_equal(m->funcs[0].body.ops[1].loc, dummy);
	assert_int_equal(m->ndi, 1);
	char *out = bct_print(m);
	struct sbuf hdr = SBUF_INIT;
	sb_adds(&hdr, "cuda_tile.module @kernels {\n"
		      "  entry @matmul_kernel(%arg0: tile<ptr<f16>>");
	for (int i = 1; i < 18; i++)
		sb_printf(&hdr, ", %%arg%d: tile<i32>", i);
	sb_adds(&hdr, ") optimization_hints=<sm_75 = {}> {\n"
		      "    %0 = make_token : token\n"
		      "    %cst_16_i32 = constant <i32: 16> : tile<i32>\n"
		      "    %assume = assume div_by<16>, %arg0 : tile<ptr<f16>>\n"
		      "    %assume_0 = assume bounded<0, ?>, %arg1 : tile<i32>\n"
		      "    %assume_assume = assume div_by<16>, %assume_0 : tile<i32>\n"
		      "    return\n"
		      "  }\n"
		      "}\n");
	assert_string_equal(out, hdr.buf);
	sb_free(&hdr);
	free(out);
	bc_module_free(m);
	sb_free(&body);
	sb_free(&hints);
	sb_free(&file);
}

static void expect_float(enum ir_elem e, uint64_t bits, const char *want)
{
	struct sbuf out = SBUF_INIT;
	ir_print_float(&out, e, bits);
	bool same = strcmp(out.buf, want) == 0;
	if (!same)
		print_error("%s bits 0x%llx: want %s got %s\n", ir_elem_name(e),
			    (unsigned long long)bits, want, out.buf);
	sb_free(&out);
	assert_true(same);
}

static void test_float_printing(void **state)
{
	(void)state;
	expect_float(IR_F32, 0x3F800000, "1.000000e+00");
	expect_float(IR_F32, 0x40490FDB, "3.14159274");
	expect_float(IR_F32, 0x3DCCCCCD, "1.000000e-01");
	expect_float(IR_F32, 0xFF800000, "0xFF800000");
	expect_float(IR_F32, 0x7FC00000, "0x7FC00000");
	expect_float(IR_F32, 0x80000000, "-0.000000e+00");
	expect_float(IR_F32, 0x00000001, "1.401300e-45");
	expect_float(IR_F32, 0x3F820000, "1.015625");
	expect_float(IR_F32, 0xC0490FD0, "-3.141590e+00");
	expect_float(IR_F64, 0x4005BF0A8B145769ull, "2.7182818284590451");
	expect_float(IR_F64, 0x41D26580B4C00000ull, "0x41D26580B4C00000");
	expect_float(IR_F64, 0x4415AF1D78B58C40ull, "1.000000e+20");
	expect_float(IR_F64, 0x423CBE991A148000ull, "123456789012.5");
	expect_float(IR_F64, 0x3FB999999999999Aull, "1.000000e-01");
	expect_float(IR_F64, 0x0000000000000001ull, "4.940660e-324");
	expect_float(IR_F64, 0x7FEFFFFFFFFFFFFFull, "1.7976931348623157E+308");
	/* a decimal tie: APFloat rounds half up where printf would round to even */
	expect_float(IR_BF16, 0x3F82, "1.015630e+00");
	expect_float(IR_F16, 0x3555, "3.332520e-01");
	expect_float(IR_F16, 0x7BFF, "6.550400e+04");
	expect_float(IR_F16, 0x0001, "5.960460e-08");
	expect_float(IR_F16, 0x7C00, "0x7C00");
	expect_float(IR_TF32, 0x1FE00, "1.500000e+00");
	expect_float(IR_TF32, 0x3FE00, "0x3FE00");
	expect_float(IR_TF32, 0x1F555, "3.332520e-01");
	expect_float(IR_F8E4M3FN, 0x7E, "4.480000e+02");
	expect_float(IR_F8E4M3FN, 0x7F, "0x7F");
	expect_float(IR_F8E5M2, 0x7C, "0x7C");
	expect_float(IR_F8E5M2, 0x3C, "1.000000e+00");
	expect_float(IR_F8E8M0FNU, 0x7F, "1.000000e+00");
	expect_float(IR_F8E8M0FNU, 0xFF, "0xFF");
	expect_float(IR_F8E8M0FNU, 0x00, "5.877470e-39");
	expect_float(IR_F4E2M1FN, 0x7, "6.000000e+00");
	expect_float(IR_F4E2M1FN, 0xF, "-6.000000e+00");
	expect_float(IR_F4E2M1FN, 0x1, "5.000000e-01");
	expect_float(IR_F4E2M1FN, 0x8, "-0.000000e+00");
	/* an untyped float attribute holds f64 bits */
	expect_float(IR_ELEM_NONE, 0x3FF8000000000000ull, "1.500000e+00");
	/* f8E5M3FNU (13.4 preview, no bytecode tag) takes the same exact path:
	 * 0.1015625 is a decimal tie that APFloat rounds up (printf: 1.015620) */
	expect_float(IR_F8E5M3FNU, 0x5D, "1.015630e-01");
	expect_float(IR_F8E5M3FNU, 0x01, "7.629390e-06");
	expect_float(IR_F8E5M3FNU, 0x78, "1.000000e+00");
	expect_float(IR_F8E5M3FNU, 0xFE, "1.146880e+05");
	expect_float(IR_F8E5M3FNU, 0xFF, "0xFF");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spec11_file),
		cmocka_unit_test(test_spec66_records),
		cmocka_unit_test(test_spec11_matmul_head),
		cmocka_unit_test(test_float_printing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
