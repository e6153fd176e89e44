/* Bytecode reader: every rejection path names the byte offset and the
 * reason (tile-ir-bytecode.md §9.2), the version rules, and robustness
 * against truncated or corrupted files (no crash, no read past the end). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/bctest.h"

static void expect_error(const void *buf, size_t len, const char *want)
{
	char *msg = bct_error(buf, len);
	bool ok = strstr(msg, want) != NULL;
	if (!ok)
		print_error("want error containing: %s\ngot: %s\n", want, msg);
	free(msg);
	assert_true(ok);
}

static void expect_sb_error(struct sbuf *file, const char *want)
{
	expect_error(file->buf, file->len, want);
	sb_free(file);
}

static void header(struct sbuf *f, unsigned minor)
{
	sb_add(f, BC_MAGIC, BC_MAGIC_LEN);
	sb_addc(f, 13);
	sb_addc(f, (char)minor);
	sb_addc(f, 0);
	sb_addc(f, 0);
}

static void raw(struct sbuf *f, size_t n, const uint8_t *b)
{
	sb_add(f, b, n);
}
#define RAW(f, ...) raw((f), sizeof((const uint8_t[]){__VA_ARGS__}), (const uint8_t[]){__VA_ARGS__})

/* ---- header and framing ------------------------------------------------ */

static void test_reference_negative_inputs(void **state)
{
	(void)state;
	/* the repository's header-level invalid files (§9.2 table) */
	static const uint8_t nine[] = {0x7E, 0x54, 0x69, 0x6C, 0x65, 0x49, 0x52, 0x00, 0x01};
	expect_error(nine, sizeof(nine), "offset 0 (0x0): invalid magic number at position 0");
	struct sbuf f = SBUF_INIT;
	sb_add(&f, BC_MAGIC, BC_MAGIC_LEN);
	RAW(&f, 0x12, 0x00, 0x00, 0x00);
	expect_sb_error(&f, "offset 8 (0x8): unsupported Tile version 18.0.0, this reader supports versions [13.1 - 13.3]");
	header(&f, 1);
	RAW(&f, 0x7F, 0x01, 0x00);
	expect_sb_error(&f, "offset 12 (0xc): unknown section ID: 127");
	header(&f, 1);
	RAW(&f, 0x00, 0xFF, 0xFF, 0xFF, 0x7F, 0x01, 0x02, 0x03);
	expect_sb_error(&f, "offset 12 (0xc): end section is not the last section");
}

static void test_header_and_versions(void **state)
{
	(void)state;
	struct sbuf f = SBUF_INIT;
	expect_error("", 0, "invalid magic number at position 0");
	expect_error("\x7fTile", 5, "invalid magic number at position 5");
	expect_error("\x7fTileIR\0\x0d\x01", 10, "offset 10 (0xa): file ends inside the 12-byte header");
	for (unsigned minor = 0; minor <= 5; minor++) {
		header(&f, minor);
		RAW(&f, 0x00);
		if (minor >= 1 && minor <= 3) {
			expect_sb_error(&f, "string section is mandatory");
		} else {
			char want[64];
			snprintf(want, sizeof(want), "unsupported Tile version 13.%u.0", minor);
			expect_sb_error(&f, want);
		}
	}
	/* a newer tag does not change the version class; 13.4 is refused */
	sb_add(&f, BC_MAGIC, BC_MAGIC_LEN);
	RAW(&f, 13, 4, 9, 0, 0);
	expect_sb_error(&f, "unsupported Tile version 13.4.9");
	sb_add(&f, BC_MAGIC, BC_MAGIC_LEN);
	RAW(&f, 250, 0, 0, 0, 0);
	expect_sb_error(&f, "unsupported Tile version 250.0.0");
}

static void test_section_framing(void **state)
{
	(void)state;
	struct sbuf f = SBUF_INIT;
	header(&f, 1);
	expect_sb_error(&f, "offset 12 (0xc): missing end section");
	header(&f, 1);
	RAW(&f, 0x80);
	expect_sb_error(&f, "end section has the alignment flag set");
	header(&f, 1);
	RAW(&f, 0x81, 0x10, 0x04, 0x00);
	expect_sb_error(&f, "offset 13 (0xd): string section length 16 exceeds remaining data size");
	header(&f, 1);
	RAW(&f, 0x81, 0x01, 0x03, 0x00, 0x00);
	expect_sb_error(&f, "offset 14 (0xe): string section alignment 3 is not a power of two");
	header(&f, 1);
	RAW(&f, 0x81, 0x00, 0x40, 0x00);
	expect_sb_error(&f, "string section padding runs past the end of the file");
	header(&f, 1);
	RAW(&f, 0x01, 0x01, 0x00, 0x00);
	expect_sb_error(&f, "offset 12 (0xc): string section must be aligned to a multiple of 4");
	header(&f, 1);
	RAW(&f, 0x82, 0x01, 0x04, 0x00, 0x00);
	expect_sb_error(&f, "function section must be aligned to a multiple of 8");
	header(&f, 1);
	RAW(&f, 0x81, 0x01, 0x04, 0xCB, 0x00, 0x00);
	expect_sb_error(&f, "function section is mandatory");
	header(&f, 1);
	RAW(&f, 0x81, 0x01, 0x04, 0xCB, 0x00, 0x81, 0x01, 0x04, 0x00, 0x00);
	expect_sb_error(&f, "offset 17 (0x11): duplicate string section");
	header(&f, 1);
	RAW(&f, 0x81, 0x80);
	expect_sb_error(&f, "offset 13 (0xd): data ends inside a varint");
	header(&f, 1);
	RAW(&f, 0x81, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00);
	expect_sb_error(&f, "offset 13 (0xd): varint longer than 10 bytes");
	header(&f, 1);
	RAW(&f, 0x81, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x02, 0x00);
	expect_sb_error(&f, "offset 13 (0xd): varint does not fit in 64 bits");
	header(&f, 1);
	RAW(&f, 0x81, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01, 0x00);
	expect_sb_error(&f, "string section length 18446744073709551615 exceeds remaining data size");
	header(&f, 1);
	RAW(&f, 0x88, 0x00, 0x00);
	expect_sb_error(&f, "unknown section ID: 8");
}

/* A file with one string "k", one type and one function record. */
static void mini(struct sbuf *f, unsigned minor, const uint8_t *types, size_t ntypes_bytes,
		 const uint8_t *func, size_t nfunc)
{
	header(f, minor);
	RAW(f, 0x81, 0x09, 0x04, 0xCB, 0x01, 0xCB, 0xCB, 0xCB, 0x00, 0x00, 0x00, 0x00, 'k');
	if (types) {
		sb_addc(f, (char)0x85);
		bcw_varint(f, ntypes_bytes);
		RAW(f, 0x04);
		while (f->len % 4)
			sb_addc(f, (char)0xCB);
		sb_add(f, types, ntypes_bytes);
	}
	sb_addc(f, (char)0x82);
	bcw_varint(f, nfunc);
	RAW(f, 0x08);
	while (f->len % 8)
		sb_addc(f, (char)0xCB);
	sb_add(f, func, nfunc);
	sb_addc(f, 0);
}

static void test_tables(void **state)
{
	(void)state;
	struct sbuf f = SBUF_INIT;
	/* one type: () -> () */
	static const uint8_t ty[] = {0x01, 0xCB, 0xCB, 0xCB, 0, 0, 0, 0, 0x10, 0x00, 0x00};
	static const uint8_t ok_fn[] = {0x01, 0x00, 0x00, 0x02, 0x00, 0x03, 0x5C, 0x00, 0x00};
	mini(&f, 1, ty, sizeof(ty), ok_fn, sizeof(ok_fn));
	struct tp_err err = {0};
	char *text = bct_text(f.buf, f.len, &err);
	if (!text)
		print_error("%s\n", err.msg);
	assert_string_equal(text ? text : "",
			    "cuda_tile.module @kernels {\n  entry @k() {\n    return\n  }\n}\n");
	free(text);
	sb_free(&f);

	static const uint8_t nonentry[] = {0x01, 0x00, 0x00, 0x00, 0x00, 0x03, 0x5C, 0x00, 0x00};
	mini(&f, 1, ty, sizeof(ty), nonentry, sizeof(nonentry));
	expect_sb_error(&f, "un-expected non-entry function 'k'");
	static const uint8_t badname[] = {0x01, 0x05, 0x00, 0x02, 0x00, 0x03, 0x5C, 0x00, 0x00};
	mini(&f, 1, ty, sizeof(ty), badname, sizeof(badname));
	expect_sb_error(&f, "string index 5 out of range (1 strings)");
	static const uint8_t badsig[] = {0x01, 0x00, 0x01, 0x02, 0x00, 0x03, 0x5C, 0x00, 0x00};
	mini(&f, 1, ty, sizeof(ty), badsig, sizeof(badsig));
	expect_sb_error(&f, "type index 1 out of range (1 types)");
	static const uint8_t longbody[] = {0x01, 0x00, 0x00, 0x02, 0x00, 0x09, 0x5C, 0x00, 0x00};
	mini(&f, 1, ty, sizeof(ty), longbody, sizeof(longbody));
	expect_sb_error(&f, "function body length 9 exceeds the 3 bytes left");
	static const uint8_t emptybody[] = {0x01, 0x00, 0x00, 0x02, 0x00, 0x00};
	mini(&f, 1, ty, sizeof(ty), emptybody, sizeof(emptybody));
	expect_sb_error(&f, "invalid block structure: empty block");
	static const uint8_t nfunc[] = {0x09, 0x00};
	mini(&f, 1, ty, sizeof(ty), nfunc, sizeof(nfunc));
	expect_sb_error(&f, "function count 9 cannot fit");
	static const uint8_t dict_hints[] = {0x01, 0x00, 0x00, 0x06, 0x00, 0x0A, 0x00, 0x03, 0x5C, 0x00, 0x00};
	mini(&f, 1, ty, sizeof(ty), dict_hints, sizeof(dict_hints));
	expect_sb_error(&f, "hints of function 'k' are not optimization hints (tag 10)");

	/* the signature must be a function type */
	static const uint8_t ty_i32[] = {0x01, 0xCB, 0xCB, 0xCB, 0, 0, 0, 0, 0x03};
	mini(&f, 1, ty_i32, sizeof(ty_i32), ok_fn, sizeof(ok_fn));
	expect_sb_error(&f, "signature of function 'k' (type 0) is not a function type");
	/* type table shape */
	static const uint8_t ty_order[] = {0x02, 0xCB, 0xCB, 0xCB, 2, 0, 0, 0, 1, 0, 0, 0, 0x10, 0, 0};
	mini(&f, 1, ty_order, sizeof(ty_order), ok_fn, sizeof(ok_fn));
	expect_sb_error(&f, "type offset 1 of entry 1 is out of order or past the data");
	static const uint8_t ty_empty[] = {0x02, 0xCB, 0xCB, 0xCB, 0, 0, 0, 0, 0, 0, 0, 0, 0x10, 0, 0};
	mini(&f, 1, ty_empty, sizeof(ty_empty), ok_fn, sizeof(ok_fn));
	expect_sb_error(&f, "type 0 is empty");
	static const uint8_t ty_count[] = {0x7F, 0xCB, 0xCB, 0xCB, 0, 0, 0, 0};
	mini(&f, 1, ty_count, sizeof(ty_count), ok_fn, sizeof(ok_fn));
	expect_sb_error(&f, "type count 127 cannot fit in the 4 bytes left");
	/* no type section at all: the signature index has nothing to refer to */
	mini(&f, 1, NULL, 0, ok_fn, sizeof(ok_fn));
	expect_sb_error(&f, "type index 0 out of range (0 types)");
}

static void test_types(void **state)
{
	(void)state;
	struct bct t;
	struct sbuf f = SBUF_INIT;
	const struct {
		unsigned minor, tag;
		const char *want;
	} gates[] = {
		{1, BC_TY_F4E2M1FN, "type 'Float4E2M1FN' requires bytecode version 13.3+, file version is 13.1"},
		{2, BC_TY_I4, "type 'Int4' requires bytecode version 13.3+, file version is 13.2"},
		{1, BC_TY_F8E8M0FNU, "type 'Float8E8M0FNU' requires bytecode version 13.2+, file version is 13.1"},
		{2, BC_TY_STRIDED_VIEW, "type 'StridedView' requires bytecode version 13.3+"},
		{2, BC_TY_GATHER_SCATTER_VIEW, "type 'GatherScatterView' requires bytecode version 13.3+"},
		{3, 23, "unknown type tag 23"},
		{3, 200, "unknown type tag 200"},
	};
	for (size_t i = 0; i < TP_ARRAY_LEN(gates); i++) {
		bct_init(&t, gates[i].minor, BCW_CPP);
		bcw_scalar(t.w, gates[i].tag);
		BCW_V(&t.body, 0x5C, 0, 0);
		bct_bytes(&t, &f);
		expect_sb_error(&f, gates[i].want);
	}
	/* the same tags are fine at their version */
	bct_init(&t, 3, BCW_CPP);
	uint32_t f4 = bcw_scalar(t.w, BC_TY_F4E2M1FN), i4 = bcw_scalar(t.w, BC_TY_I4);
	uint32_t e8 = bcw_scalar(t.w, BC_TY_F8E8M0FNU);
	bct_arg(&t, bct_tile(&t, f4, 1, 8));
	bct_arg(&t, bct_tile(&t, i4, 0));
	bct_arg(&t, bct_tile(&t, e8, 2, 2, 4));
	bct_arg(&t, bct_tile(&t, bcw_scalar(t.w, BC_TY_F8E4M3FN), 0));
	bct_arg(&t, bct_tile(&t, bcw_scalar(t.w, BC_TY_F8E5M2), 0));
	bct_arg(&t, bct_tile(&t, bcw_scalar(t.w, BC_TY_TF32), 0));
	bct_arg(&t, bct_tile(&t, bcw_scalar(t.w, BC_TY_BF16), 0));
	bct_arg(&t, bct_tile(&t, t.i16, 0));
	bct_arg(&t, bcw_tensor_view(t.w, t.f32, 0, NULL, NULL));
	bct_arg(&t, t.token);
	BCW_V(&t.body, 0x5C, 0, 0);
	bct_bytes(&t, &f);
	struct tp_err err = {0};
	char *text = bct_text(f.buf, f.len, &err);
	assert_non_null(text);
	assert_string_equal(text, "cuda_tile.module @kernels {\n"
				  "  entry @k(%arg0: tile<8xf4E2M1FN>, %arg1: tile<i4>, %arg2: tile<2x4xf8E8M0FNU>, "
				  "%arg3: tile<f8E4M3FN>, %arg4: tile<f8E5M2>, %arg5: tile<tf32>, %arg6: tile<bf16>, "
				  "%arg7: tile<i16>, %arg8: tensor_view<f32>, %arg9: token) {\n"
				  "    return\n"
				  "  }\n"
				  "}\n");
	free(text);
	sb_free(&f);

	/* references between types */
	bct_init(&t, 1, BCW_CPP);
	bcw_ptr(t.w, t.token);
	BCW_V(&t.body, 0x5C, 0, 0);
	bct_bytes(&t, &f);
	expect_sb_error(&f, "a pointer's pointee must be an integer or float type");
	bct_init(&t, 1, BCW_CPP);
	bcw_tile(t.w, t.f32, 2, (const int64_t[]){4, -4});
	BCW_V(&t.body, 0x5C, 0, 0);
	bct_bytes(&t, &f);
	expect_sb_error(&f, "tile dimension 1 is -4 (tile shapes are static and positive)");
	bct_init(&t, 1, BCW_CPP);
	bcw_tensor_view(t.w, t.f32, 1, (const int64_t[]){-2}, (const int64_t[]){1});
	BCW_V(&t.body, 0x5C, 0, 0);
	bct_bytes(&t, &f);
	expect_sb_error(&f, "tensor_view dimension 0 is -2 (a size or dynamic)");
	bct_init(&t, 1, BCW_CPP);
	bcw_ptr(t.w, 999);
	BCW_V(&t.body, 0x5C, 0, 0);
	bct_bytes(&t, &f);
	expect_sb_error(&f, "type index 999 out of range");
	bct_init(&t, 1, BCW_CPP);
	bcw_partition_view(t.w, 1, (const int32_t[]){4}, t.t_4f32, NULL, -1);
	BCW_V(&t.body, 0x5C, 0, 0);
	bct_bytes(&t, &f);
	expect_sb_error(&f, "a view must refer to a tensor_view type");
	bct_init(&t, 1, BCW_CPP);
	bcw_partition_view(t.w, 1, (const int32_t[]){INT32_MIN}, t.t_4f32, NULL, -1);
	BCW_V(&t.body, 0x5C, 0, 0);
	bct_bytes(&t, &f);
	expect_sb_error(&f, "array contains unsupported value -2147483648");
	bct_init(&t, 1, BCW_CPP);
	int64_t shp[1] = {4}, str[1] = {1};
	uint32_t tv = bcw_tensor_view(t.w, t.f32, 1, shp, str);
	bcw_partition_view(t.w, 1, (const int32_t[]){4}, tv, NULL, 9);
	BCW_V(&t.body, 0x5C, 0, 0);
	bct_bytes(&t, &f);
	expect_sb_error(&f, "invalid PaddingValue value 9");
}

static void test_ops(void **state)
{
	(void)state;
	struct bct t;
	struct sbuf f = SBUF_INIT;
	const struct {
		unsigned minor;
		const char *want;
		unsigned n;
		uint64_t bytes[24];
	} cases[] = {
		{1, "unsupported opcode 110 (atan2) for bytecode version 13.1", 5, {0x6E, 3, 0, 0}},
		{2, "unsupported opcode 113 (alloca) for bytecode version 13.2", 5, {0x71, 3, 0, 1, 1}},
		{3, "unknown or unimplemented opcode 25 (0x19)", 1, {0x19}},
		{3, "unknown or unimplemented opcode 118 (0x76)", 1, {0x76}},
		{3, "unknown or unimplemented opcode 12288 (0x3000)", 1, {0x3000}},
		{3, "op 'entry' (opcode 0x16) cannot appear inside a function body", 1, {0x16}},
		{3, "op 'global' (opcode 0x31) cannot appear inside a function body", 1, {0x31}},
		{3, "op 'module' (opcode 0x4B) cannot appear inside a function body", 1, {0x4B}},
		{1, "operand refers to value 5, but only 1 values are defined here", 6, {0x02, 0, 0, 0, 0, 5}},
		{1, "invalid RoundingMode value 7", 6, {0x02, 0, 0, 7, 0, 0}},
		{1, "invalid IntegerOverflow value 4", 5, {0x03, 0, 4, 0, 0}},
		{1, "invalid AtomicRMWMode value 10", 7, {0x08, 0, 0, 0, 0, 0, 10}},
		{1, "for must have 1 region, the record has 2", 8, {0x29, 0, 3, 0, 0, 0, 2, 0}},
		{1, "for needs at least 3 operands, the record has 1", 8, {0x29, 0, 1, 3, 0, 0, 0, 1}},
		{1, "region 0 of loop has 0 blocks (expected 1)", 5, {0x41, 0, 0, 1, 0}},
		{1, "region 0 of if has 2 blocks (expected 1)", 9, {0x32, 0, 0, 2, 2, 0, 0, 0, 0}},
		{1, "invalid block structure: empty block", 7, {0x41, 0, 0, 1, 1, 0, 0}},
		{1, "invalid block structure: block ends with addf, not a terminator", 13,
		 {0x41, 0, 0, 1, 1, 0, 1, 0x02, 0, 0, 0, 0, 0}},
		{1, "invalid block structure: block ends with addf, not a terminator", 6,
		 {0x02, 0, 0, 0, 0, 0}},
		{2, "result count mismatch: print_tko has 1 results in version 13.2, the record has 0", 5,
		 {0x55, 0, 0, 0, 0}},
		{1, "result count mismatch: print_tko has 0 results in version 13.1, the record has 1", 5,
		 {0x55, 1, 0, 0, 0}},
		{1, "result count mismatch: extract has 1 results in version 13.1, the record has 2", 4,
		 {0x26, 2, 0, 0}},
		{1, "result count mismatch: return has 0 results in version 13.1, the record has 1", 4,
		 {0x5C, 1, 0, 0}},
		{1, "assume predicate must be div_by, same_elements or bounded (tag 3)", 5, {0x06, 0, 3, 1, 0}},
		{1, "unsupported AttributeTag 200", 3, {0x06, 0, 200}},
		{1, "failed to validate buffer size and format", 3, {0x10, 1, 0}},
		{1, "constant index 7 out of range (1 constants)", 3, {0x10, 1, 7}},
		{1, "dense value type 0 is not a tile of integers or floats", 3, {0x10, 0, 0}},
		{1, "result 0 of absf has a function type", 3, {0x00, 2, 0}},
	};
	for (size_t i = 0; i < TP_ARRAY_LEN(cases); i++) {
		struct bc_writer *w = bcw_new(cases[i].minor, BCW_CPP);
		uint32_t i32 = bcw_scalar(w, BC_TY_I32);
		uint32_t t4 = bcw_tile(w, i32, 1, (const int64_t[]){4});
		(void)t4;
		uint32_t sig = bcw_func_type(w, 1, &i32, 0, NULL);
		assert_int_equal(sig, 2);
		bcw_constant(w, "\x01\x02\x03", 3);
		struct sbuf body = SBUF_INIT;
		bcw_va(&body, cases[i].bytes, cases[i].n);
		bcw_func(w, "k", sig, 0, NULL, &body);
		bcw_finish(w, &f);
		bcw_free(w);
		sb_free(&body);
		expect_sb_error(&f, cases[i].want);
	}
	/* permute with INT32_MIN: §9.2's "array contains unsupported value" */
	bct_init(&t, 1, BCW_CPP);
	bct_arg(&t, t.t_2x2f32);
	BCW_V(&t.body, 0x53, t.t_2x2f32);
	bcw_i32s(&t.body, 2, (const int32_t[]){0, INT32_MIN});
	BCW_V(&t.body, 0, 0x5C, 0, 0);
	bct_bytes(&t, &f);
	expect_sb_error(&f, "array contains unsupported value -2147483648");
	/* same_elements with INT64_MAX */
	bct_init(&t, 1, BCW_CPP);
	bct_arg(&t, t.t_i32);
	BCW_V(&t.body, 0x06, t.t_i32, 9);
	bcw_i64s(&t.body, 1, (const int64_t[]){INT64_MAX});
	BCW_V(&t.body, 0, 0x5C, 0, 0);
	bct_bytes(&t, &f);
	expect_sb_error(&f, "array contains unsupported value 9223372036854775807");
	/* regions nested too deeply */
	bct_init(&t, 1, BCW_CPP);
	for (int d = 0; d < 250; d++)
		BCW_V(&t.body, 0x41, 0, 0, 1, 1, 0, 2);
	BCW_V(&t.body, 0x0A, 0, 0, 0x0A, 0, 0);
	for (int d = 0; d < 249; d++)
		BCW_V(&t.body, 0x0A, 0, 0);
	BCW_V(&t.body, 0x5C, 0, 0);
	bct_bytes(&t, &f);
	expect_sb_error(&f, "regions nested more than 200 deep");
}

/* The error names the exact offset of the offending op record. */
static void test_error_offset(void **state)
{
	(void)state;
	struct bct t;
	struct sbuf f = SBUF_INIT;
	bct_init(&t, 1, BCW_PYTHON);
	bct_arg(&t, t.t_f32);
	BCW_V(&t.body, 0x4F, t.t_f32, 0, 0x6E, t.t_f32, 0, 0);
	bct_bytes(&t, &f);
	/* Python order puts the function section first: header (12), section
	 * byte, length, alignment, pad to 16, then 01 00 <sig> 02 00 <len>. */
	size_t body = 16 + 6;
	size_t at = body + 3;
	assert_int_equal((uint8_t)f.buf[at], 0x6E);
	char want[64];
	snprintf(want, sizeof(want), "offset %zu (0x%zx): unsupported opcode 110", at, at);
	expect_sb_error(&f, want);
}

static void test_attributes(void **state)
{
	(void)state;
	struct bct t;
	struct sbuf f = SBUF_INIT;
	const struct {
		const char *want;
		unsigned n;
		uint64_t bytes[16];
	} cases[] = {
		/* hints payload after the tag-11 byte; strings: 0 "k", 1 "a", 2 "" */
		{"invalid empty attribute name for DictionaryAttr element 0", 4, {11, 1, 2, 10}},
		{"duplicate dictionary key 'a'", 9, {11, 2, 1, 10, 0, 1, 10, 0, 0}},
		{"optimization hints value for 'a' is not a dictionary", 4, {11, 1, 1, 3}},
		{"attribute array element 0 is not a typed attribute", 10, {11, 1, 1, 10, 1, 1, 6, 1, 6, 0}},
		{"integer value 300 does not fit in i8", 8, {11, 1, 1, 10, 1, 1, 1, 0}},
		{"float bits 0x1ffff are wider than the 16-bit type", 8, {11, 1, 1, 10, 1, 1, 2, 1}},
		{"integer attribute has type 3, which is not an integer type", 8, {11, 1, 1, 10, 1, 1, 1, 3}},
		{"i1 value 2 is not 0 or 1", 8, {11, 1, 1, 10, 1, 1, 1, 4}},
		{"dense value type 0 is not a tile of integers or floats", 9, {11, 1, 1, 10, 1, 1, 7, 0, 0}},
		{"unsupported AttributeTag 13", 7, {11, 1, 1, 10, 1, 1, 13}},
		{"div_by flags 0x4 have undefined bits", 9, {11, 1, 1, 10, 1, 1, 8, 16, 4}},
		{"attributes nested more than 32 deep", 0, {0}},
	};
	for (size_t i = 0; i < TP_ARRAY_LEN(cases); i++) {
		struct bc_writer *w = bcw_new(1, BCW_CPP);
		assert_int_equal(bcw_string(w, "k"), 0);
		assert_int_equal(bcw_string(w, "a"), 1);
		assert_int_equal(bcw_string(w, ""), 2);
		uint32_t i8 = bcw_scalar(w, BC_TY_I8), f16 = bcw_scalar(w, BC_TY_F16);
		uint32_t sig = bcw_func_type(w, 0, NULL, 0, NULL);
		uint32_t f32 = bcw_scalar(w, BC_TY_F32), i1 = bcw_scalar(w, BC_TY_I1);
		assert_int_equal(i8, 0);
		assert_int_equal(f16, 1);
		assert_int_equal(f32, 3);
		assert_int_equal(i1, 4);
		struct sbuf hints = SBUF_INIT, body = SBUF_INIT;
		if (cases[i].n) {
			bcw_va(&hints, cases[i].bytes, cases[i].n);
		} else { /* dictionaries nested 40 deep */
			BCW_V(&hints, 11, 1, 1, 10);
			for (int d = 0; d < 40; d++)
				BCW_V(&hints, 1, 1, 10);
			BCW_V(&hints, 0);
		}
		/* complete the payload where the case stops at a value */
		if (strstr(cases[i].want, "300"))
			bcw_varint(&hints, 300);
		if (strstr(cases[i].want, "0x1ffff"))
			bcw_svarint(&hints, 0x1FFFF);
		if (strstr(cases[i].want, "i1 value"))
			sb_addc(&hints, 2);
		BCW_V(&body, 0x5C, 0, 0);
		bcw_func(w, "k", sig, 0, &hints, &body);
		bcw_finish(w, &f);
		bcw_free(w);
		sb_free(&hints);
		sb_free(&body);
		expect_sb_error(&f, cases[i].want);
	}
	(void)t;
}

static void test_globals_and_debug(void **state)
{
	(void)state;
	struct bct t;
	struct sbuf f = SBUF_INIT;
	bct_init(&t, 1, BCW_CPP);
	bcw_global(t.w, "", t.t_i32, bcw_constant(t.w, "\0\0\0\0", 4), 0, 0, false);
	BCW_V(&t.body, 0x5C, 0, 0);
	bct_bytes(&t, &f);
	expect_sb_error(&f, "global 0 has an empty name");
	bct_init(&t, 1, BCW_CPP);
	bcw_global(t.w, "g", t.t_4i32, bcw_constant(t.w, "\0\0\0\0\0", 5), 0, 0, false);
	BCW_V(&t.body, 0x5C, 0, 0);
	bct_bytes(&t, &f);
	expect_sb_error(&f, "failed to validate buffer size and format: constant 0 has 5 bytes for 4 elements of i32");

	/* debug lists: index out of range, reference out of range */
	bct_init(&t, 1, BCW_CPP);
	BCW_V(&t.body, 0x5C, 0, 0);
	uint32_t sig = bcw_func_type(t.w, 0, NULL, 0, NULL);
	bcw_func(t.w, "k2", sig, 3, NULL, &t.body);
	bct_bytes(&t, &f);
	expect_sb_error(&f, "function debug list 3 out of range (0 lists)");
	bct_init(&t, 1, BCW_CPP);
	bcw_debug_attr(t.w, 0, NULL, 0);
	bcw_debug_list(t.w, 2, (const uint64_t[]){0, 9});
	BCW_V(&t.body, 0x5C, 0, 0);
	bct_bytes(&t, &f);
	expect_sb_error(&f, "debug reference 9 out of range (1 debug attributes)");
	bct_init(&t, 1, BCW_CPP);
	bcw_debug_attr(t.w, 2, (const uint64_t[]){99, 0}, 2);
	BCW_V(&t.body, 0x5C, 0, 0);
	bct_bytes(&t, &f);
	expect_sb_error(&f, "string index 99 out of range");
	bct_init(&t, 1, BCW_CPP);
	bcw_debug_attr(t.w, 1, (const uint64_t[]){7}, 1);
	BCW_V(&t.body, 0x5C, 0, 0);
	bct_bytes(&t, &f);
	expect_sb_error(&f, "debug reference 7 out of range (1 debug attributes)");
}

/* Debug references attach to ops in pre-order; unknown tags read as unknown. */
static void test_debug_locations(void **state)
{
	(void)state;
	struct bct t;
	struct sbuf f = SBUF_INIT;
	bct_init(&t, 2, BCW_PYTHON);
	uint32_t file = bcw_debug_attr(t.w, 2, (const uint64_t[]){bcw_string(t.w, "k.py"),
								     bcw_string(t.w, "/src")}, 2);
	uint32_t cu = bcw_debug_attr(t.w, 1, (const uint64_t[]){file}, 1);
	uint32_t sp = bcw_debug_attr(t.w, 5, (const uint64_t[]){file, 3, 0, 0, cu, 3}, 6);
	uint32_t l4 = bcw_debug_attr(t.w, 4, (const uint64_t[]){sp, 0, 4, 2}, 4);
	uint32_t l5 = bcw_debug_attr(t.w, 4, (const uint64_t[]){sp, 0, 5, 0}, 4);
	uint32_t odd = bcw_debug_attr(t.w, 77, NULL, 0);
	bct_arg(&t, t.t_i32);
	/* loop { addi; break } ; return */
	BCW_V(&t.body, 0x41, 0, 0, 1, 1, 0, 2, 0x03, t.t_i32, 0, 0, 0, 0x0A, 0, 0, 0x5C, 0, 0);
	uint32_t list = bcw_debug_list(t.w, 5, (const uint64_t[]){sp, l4, l5, odd, 0});
	uint32_t sig = bcw_func_type(t.w, 1, t.args, 0, NULL);
	bcw_func(t.w, "k", sig, list, NULL, &t.body);
	bcw_finish(t.w, &f);
	bcw_free(t.w);
	sb_free(&t.body);
	struct tp_err err = {0};
	struct bc_module *m = bc_decode(f.buf, f.len, "dbg", &err);
	assert_non_null(m);
	const struct bc_op *loop = &m->funcs[0].body.ops[0];
	assert_int_equal(loop->loc, l4);
	assert_int_equal(loop->regions[0].blocks[0].ops[0].loc, l5);
	assert_int_equal(loop->regions[0].blocks[0].ops[1].loc, odd);
	assert_int_equal(m->funcs[0].body.ops[1].loc, 0);
	assert_int_equal(m->di[odd - 1].tag, 0);
	assert_int_equal(m->di[l4 - 1].tag, 4);
	assert_int_equal(m->di[l4 - 1].f[2], 4);
	bc_module_free(m);
	sb_free(&f);
}

static void test_version_rules(void **state)
{
	(void)state;
	struct sbuf f = SBUF_INIT;
	/* global records: 4 varints before 13.3, 6 from 13.3 */
	for (unsigned minor = 1; minor <= 3; minor++) {
		struct bct t;
		bct_init(&t, minor, BCW_CPP);
		bcw_global(t.w, "g", t.t_i32, bcw_constant(t.w, "\x07\0\0\0", 4), 4, 1, true);
		BCW_V(&t.body, 0x5C, 0, 0);
		bct_bytes(&t, &f);
		struct tp_err err = {0};
		struct bc_module *m = bc_decode(f.buf, f.len, "g", &err);
		assert_non_null(m);
		assert_int_equal(m->nglobals, 1);
		assert_int_equal(m->globals[0].alignment, 4);
		assert_int_equal(m->globals[0].visibility, minor >= 3);
		assert_int_equal(m->globals[0].is_constant, minor >= 3);
		bc_module_free(m);
		sb_free(&f);
	}
	/* a producer section is accepted in any file version (13.3 reader) */
	struct bct t;
	bct_init(&t, 1, BCW_CPP);
	uint32_t p = bcw_string(t.w, "tool");
	BCW_V(&t.body, 0x5C, 0, 0);
	bct_bytes(&t, &f);
	f.len--; /* drop End, append the producer section, then End */
	RAW(&f, 0x07, 0x01, (uint8_t)p, 0x00);
	struct tp_err err = {0};
	char *text = bct_text(f.buf, f.len, &err);
	assert_non_null(text);
	assert_string_equal(text, "cuda_tile.module @kernels attributes {producer = \"tool\"} {\n"
				  "  entry @k() {\n"
				  "    return\n"
				  "  }\n"
				  "}\n");
	free(text);
	sb_free(&f);
}

/* Every prefix of a valid file and every single-byte corruption must be
 * rejected or decoded without reading past the buffer (ASan checks). */
static void test_truncation_and_corruption(void **state)
{
	(void)state;
	struct bct t;
	struct sbuf f = SBUF_INIT;
	bct_init(&t, 3, BCW_PYTHON);
	int64_t shp[2] = {BC_DYNAMIC, 4}, str[2] = {4, 1};
	uint32_t tv = bcw_tensor_view(t.w, t.f32, 2, shp, str);
	uint32_t pv = bcw_partition_view(t.w, 2, (const int32_t[]){1, 4}, tv, NULL, 0);
	uint32_t t1x4 = bct_tile(&t, t.f32, 2, 1, 4);
	bct_arg(&t, t.t_p_f32);
	bct_arg(&t, t.t_i32);
	bcw_global(t.w, "g", t.t_4i32, bcw_constant(t.w, "\1\0\0\0\2\0\0\0\3\0\0\0\4\0\0\0", 16), 16, 1, true);
	bcw_debug_list(t.w, 2, (const uint64_t[]){bcw_debug_attr(t.w, 0, NULL, 0), 0});
	struct sbuf *b = &t.body;
	BCW_V(b, 0x44, t.token);                               /* 2 */
	BCW_V(b, 0x43, 1, tv, 0, 1, 1, 0);                     /* 3 */
	BCW_V(b, 0x42, pv, 3);                                 /* 4 */
	BCW_V(b, 0x3E, 2, t1x4, t.token, 6, 0, 1, bcw_string(t.w, "sm_100"), 10, 1,
	      bcw_string(t.w, "latency"), 1, t.i32, 3, 4, 2, 1, 1, 2); /* 5, 6 */
	BCW_V(b, 0x58, 1, t.t_f32, 1, 1, 2, t.f32, 0, 1, 5, 1, 1, 2, t.f32, t.f32, 2, 0x45, t.t_f32, 1,
	      7, 8, 0x6D, 0, 1, 9);                            /* 7 */
	BCW_V(b, 0x29, 0, 1, 3, 1, 1, 1, 1, 1, 1, t.t_i32, 1, 0x11, 0, 0);
	BCW_V(b, 0x5C, 0, 0);
	bct_bytes(&t, &f);
	struct tp_err err = {0};
	char *text = bct_text(f.buf, f.len, &err);
	if (!text)
		print_error("%s\n", err.msg);
	assert_string_equal(text ? text : "",
		"cuda_tile.module @kernels {\n"
		"  global private  constant @g alignment = 16 <i32: [1, 2, 3, 4]> : tile<4xi32>\n"
		"  entry @k(%arg0: tile<ptr<f32>>, %arg1: tile<i32>) {\n"
		"    %0 = make_token : token\n"
		"    %tview = make_tensor_view %arg0, shape = [%arg1, 4], strides = [4, 1] : tile<i32> -> tensor_view<?x4xf32, strides=[4,1]>\n"
		"    %pview = make_partition_view %tview : partition_view<tile=(1x4), padding_value = zero, tensor_view<?x4xf32, strides=[4,1]>>\n"
		"    %tile, %result_token = load_view_tko weak %pview[%arg1, %arg1] token = %0 optimization_hints = <sm_100 = {latency = 3}> : "
		"partition_view<tile=(1x4), padding_value = zero, tensor_view<?x4xf32, strides=[4,1]>>, tile<i32> -> tile<1x4xf32>, token\n"
		"    %reduce = reduce %tile dim=1 identities=[0.000000e+00 : f32] : tile<1x4xf32> -> tile<f32> \n"
		"    (%reduce_lhs: f32, %reduce_rhs: f32) {\n"
		"      %1 = maxf %reduce_lhs, %reduce_rhs propagate_nan : tile<f32>\n"
		"      yield %1 : tile<f32>\n"
		"    }\n"
		"    for unsigned %loopIdx in (%arg1 to %arg1, step %arg1) : tile<i32> {\n"
		"    }\n"
		"    return\n"
		"  }\n"
		"}\n");
	free(text);
	bct_roundtrip = false; /* corrupted files decode to odd but valid tables */
	for (size_t n = 0; n < f.len; n++) {
		uint8_t *copy = xmalloc(n ? n : 1);
		memcpy(copy, f.buf, n);
		char *msg = bct_error(copy, n);
		assert_string_not_equal(msg, "OK");
		free(msg);
		free(copy);
	}
	uint8_t *copy = xmalloc(f.len);
	for (size_t i = 0; i < f.len; i++) {
		static const uint8_t subst[] = {0x00, 0xFF, 0x80, 0x7F, 0x01};
		for (size_t k = 0; k < sizeof(subst); k++) {
			memcpy(copy, f.buf, f.len);
			copy[i] = subst[k];
			free(bct_error(copy, f.len));
		}
	}
	free(copy);
	sb_free(&f);
	bct_roundtrip = true;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reference_negative_inputs),
		cmocka_unit_test(test_header_and_versions),
		cmocka_unit_test(test_section_framing),
		cmocka_unit_test(test_tables),
		cmocka_unit_test(test_types),
		cmocka_unit_test(test_ops),
		cmocka_unit_test(test_error_offset),
		cmocka_unit_test(test_attributes),
		cmocka_unit_test(test_globals_and_debug),
		cmocka_unit_test(test_debug_locations),
		cmocka_unit_test(test_version_rules),
		cmocka_unit_test(test_truncation_and_corruption),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
