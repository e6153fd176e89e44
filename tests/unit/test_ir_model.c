#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/ir/ir.h"

/* Every registry row parses, names are unique, opcodes match the table. */
static void test_registry(void **state)
{
	(void)state;
	for (int c = 0; c < IR_OP_COUNT; c++) {
		const struct ir_opdef *d = ir_opdef(c);
		assert_int_equal(d->code, c);
		assert_ptr_equal(ir_opdef_by_name(d->name, strlen(d->name)), d);
		if (d->bc_opcode >= 0)
			assert_ptr_equal(ir_opdef_by_bc(d->bc_opcode), d);
	}
	const struct ir_opdef *d = ir_opdef_by_name("cuda_tile.load_view_tko", 23);
	assert_non_null(d);
	assert_int_equal(d->bc_opcode, 0x3E);
	assert_int_equal(d->ngroups, 3);
	assert_int_equal(d->groups[1].card, IR_CARD_VARIADIC);
	assert_int_equal(d->groups[2].card, IR_CARD_OPTIONAL);
	assert_int_equal(d->nflags, 3);
	assert_string_equal(d->flags[1], "optimization_hints");
	assert_string_equal(d->results[0].hint, "tile");
	assert_ptr_equal(ir_opdef_by_name("print", 5), ir_opdef(IR_OP_PRINT_TKO));
	assert_ptr_equal(ir_opdef_by_name("fpowf", 5), ir_opdef(IR_OP_POW));
	assert_null(ir_opdef_by_name("fpowi", 5));
	assert_null(ir_opdef_by_bc(0x19));
	const struct ir_attr_def *a = ir_opdef_attr(ir_opdef(IR_OP_EXP), "rounding_mode");
	assert_non_null(a);
	assert_int_equal(a->deflt, IR_RND_FULL);
	assert_int_equal(a->since, 133);
	assert_int_equal(ir_opdef(IR_OP_MMAF)->results[0].type_from, 2);
	assert_int_equal(ir_opdef(IR_OP_GET_TILE_BLOCK_ID)->results[2].type_from, -2);
	assert_true(ir_opdef(IR_OP_YIELD)->terminator);
	assert_int_equal(ir_enum_lookup(IR_EN_MEM_ORDERING, "acq_rel", 7), 4);
	assert_string_equal(ir_enum_keyword(IR_EN_RMW_MODE, 9), "xchg");
	assert_null(ir_enum_keyword(IR_EN_RMW_MODE, 10));
	assert_int_equal(ir_elem_lookup("f8E4M3FN", 8), IR_F8E4M3FN);
}

static void test_types_interned(void **state)
{
	(void)state;
	struct ir_module *m = ir_module_new("t", IR_SRC_BUILT);
	const struct ir_type *f32 = ir_type_elem(m, IR_F32);
	int64_t dims[] = {128, 64};
	const struct ir_type *a = ir_type_tile(m, f32, 2, dims);
	dims[0] = 128;
	const struct ir_type *b = ir_type_tile(m, ir_type_elem(m, IR_F32), 2, dims);
	assert_ptr_equal(a, b);
	int64_t shp[] = {IR_DYN, IR_DYN}, str[] = {IR_DYN, 1};
	const struct ir_type *tv = ir_type_tensor_view(m, f32, 2, shp, 2, str);
	const struct ir_type *pv1 = ir_type_partition_view(m, 2, dims, tv, 0, NULL, IR_PAD_ABSENT);
	int32_t ident[] = {0, 1};
	const struct ir_type *pv2 = ir_type_partition_view(m, 2, dims, tv, 2, ident, IR_PAD_ABSENT);
	assert_ptr_equal(pv1, pv2);
	assert_true(ir_dim_map_is_identity(pv1));
	/* many types force the intern table to grow */
	for (int64_t i = 1; i < 500; i++)
		assert_non_null(ir_type_tile(m, f32, 1, &i));
	int64_t one = 1;
	assert_ptr_equal(ir_type_tile(m, f32, 1, &one), ir_type_tile(m, f32, 1, &one));
	struct ir_module *m2 = ir_module_new("u", IR_SRC_BUILT);
	assert_true(ir_type_equal(pv1, ir_type_partition_view(m2, 2, dims,
		ir_type_tensor_view(m2, ir_type_elem(m2, IR_F32), 2, shp, 2, str), 0, NULL, -1)));
	ir_module_free(m2);
	ir_module_free(m);
}

static void test_builder(void **state)
{
	(void)state;
	struct ir_module *m = ir_module_new("t", IR_SRC_BUILT);
	struct ir_op *u = ir_module_add_unit(m, "kernels", NULL);
	const struct ir_type *t = ir_type_tile(m, ir_type_elem(m, IR_F32), 0, NULL);
	const struct ir_type *fn = ir_type_func(m, 1, &t, 0, NULL);
	struct ir_op *e = ir_unit_add_entry(m, u, "k", fn, NULL);
	assert_int_equal(m->nentries, 1);
	assert_string_equal(ir_symbol_name(e), "k");
	struct ir_block *b = ir_entry_body(e);
	assert_int_equal(b->nargs, 1);
	struct ir_op *op = ir_op_new(m, "cuda_tile.load_ptr_tko", 22);
	assert_int_equal(op->code, IR_OP_LOAD_PTR_TKO);
	/* groups filled out of order land in declaration order */
	ir_op_add_operand(m, op, 3, b->args[0]);
	ir_op_add_operand(m, op, 0, b->args[0]);
	assert_int_equal(op->noperands, 2);
	assert_int_equal(ir_op_group_size(op, 0), 1);
	assert_int_equal(ir_op_group_size(op, 3), 1);
	ir_op_add_result(m, op, t);
	ir_op_finish(m, op);
	ir_block_append(m, b, op);
	struct ir_op *add = ir_op_new_code(m, IR_OP_ADDF);
	ir_op_finish(m, add);
	assert_int_equal(ir_op_attr_int(add, "rounding_mode", -1), IR_RND_NEAREST_EVEN);
	struct ir_op *unk = ir_op_new(m, "fpowi", 5);
	assert_int_equal(unk->code, IR_OP_UNKNOWN);
	assert_string_equal(ir_op_name(unk), "fpowi");
	const char *keys[] = {"sm_100", "default", "sm_100"};
	const struct ir_attr *v[] = {ir_attr_int(m, 1, NULL), ir_attr_int(m, 2, NULL),
				     ir_attr_int(m, 3, NULL)};
	const struct ir_attr *d = ir_attr_dict(m, 3, keys, v);
	assert_int_equal(d->n, 2);
	assert_string_equal(d->keys[0], "default");
	assert_int_equal(ir_dict_get(d, "sm_100")->i, 3);
	ir_module_free(m);
}

/* Equal attributes of a module are one object (a kernel repeats the same
 * constants, divisors and identities thousands of times); unequal ones
 * are not, and attributes of two modules compare by value. */
static void test_attrs_interned(void **state)
{
	(void)state;
	struct ir_module *m = ir_module_new("t", IR_SRC_BUILT);
	const struct ir_type *f32 = ir_type_elem(m, IR_F32);
	int64_t dims[] = {16};
	const struct ir_type *tile = ir_type_tile(m, f32, 1, dims);
	uint64_t one = ir_float_from_double(IR_F32, 1.0), two = ir_float_from_double(IR_F32, 2.0);
	assert_ptr_equal(ir_attr_dense(m, tile, 1, &one), ir_attr_dense(m, tile, 1, &one));
	assert_ptr_not_equal(ir_attr_dense(m, tile, 1, &one), ir_attr_dense(m, tile, 1, &two));
	assert_ptr_equal(ir_attr_div_by(m, 16, false, 0, 0), ir_attr_div_by(m, 16, false, 0, 0));
	assert_ptr_not_equal(ir_attr_div_by(m, 16, false, 0, 0), ir_attr_div_by(m, 16, true, 4, 0));
	assert_ptr_equal(ir_attr_string(m, "a\0b", 3), ir_attr_string(m, "a\0b", 3));
	assert_ptr_not_equal(ir_attr_string(m, "a\0b", 3), ir_attr_string(m, "a\0c", 3));
	assert_ptr_not_equal(ir_attr_string(m, "x", 1), ir_attr_symbol(m, "x"));
	assert_ptr_equal(ir_attr_int(m, 1000, f32), ir_attr_int(m, 1000, f32));
	assert_ptr_not_equal(ir_attr_int(m, 1000, f32), ir_attr_int(m, 1000, NULL));
	assert_ptr_equal(ir_attr_float(m, one, f32), ir_attr_float(m, one, f32));
	assert_ptr_not_equal(ir_attr_float(m, one, f32), ir_attr_int(m, (int64_t)one, f32));
	int64_t perm[] = {1, 0};
	assert_ptr_equal(ir_attr_int_array(m, 2, perm), ir_attr_int_array(m, 2, perm));
	assert_ptr_not_equal(ir_attr_int_array(m, 2, perm), ir_attr_same_elements(m, 2, perm));
	assert_ptr_equal(ir_attr_bounded(m, true, 0, false, 7), ir_attr_bounded(m, true, 0, false, 9));
	assert_ptr_not_equal(ir_attr_bounded(m, true, 0, true, 7), ir_attr_bounded(m, true, 0, true, 9));
	/* a dict's keys are sorted first, so the same dict spelled in another order is one */
	const char *k1[] = {"b", "a"}, *k2[] = {"a", "b"};
	const struct ir_attr *v1[] = {ir_attr_int(m, 2, NULL), ir_attr_int(m, 1, NULL)};
	const struct ir_attr *v2[] = {ir_attr_int(m, 1, NULL), ir_attr_int(m, 2, NULL)};
	const struct ir_attr *d1 = ir_attr_dict(m, 2, k1, v1), *d2 = ir_attr_dict(m, 2, k2, v2);
	assert_ptr_equal(d1, d2);
	const struct ir_attr *arr[] = {d1, ir_attr_unit(m)};
	assert_ptr_equal(ir_attr_array(m, 2, arr), ir_attr_array(m, 2, arr));
	/* many distinct attributes grow the table; the first ones are still found */
	for (int64_t i = 100; i < 2000; i++)
		assert_int_equal(ir_attr_int(m, i, NULL)->i, i);
	assert_ptr_equal(ir_attr_dict(m, 2, k2, v2), d1);
	struct ir_module *m2 = ir_module_new("u", IR_SRC_BUILT);
	const struct ir_type *tile2 = ir_type_tile(m2, ir_type_elem(m2, IR_F32), 1, dims);
	const struct ir_attr *other = ir_attr_dense(m2, tile2, 1, &one);
	assert_ptr_not_equal(other, ir_attr_dense(m, tile, 1, &one));
	assert_true(ir_attr_equal(other, ir_attr_dense(m, tile, 1, &one)));
	ir_module_free(m2);
	ir_module_free(m);
}

/* What few ops have (regions, a spelling of their own, debug locations) is
 * outside the op record; the accessors read it the same either way. */
static void test_op_extra(void **state)
{
	(void)state;
	struct ir_module *m = ir_module_new("t", IR_SRC_BUILT);
	struct ir_op *add = ir_op_new_code(m, IR_OP_ADDF);
	assert_null(add->x);
	assert_string_equal(ir_op_name(add), "addf");
	assert_null(ir_op_x(add)->dbg);
	assert_int_equal(ir_op_x(add)->close_line, 0);
	struct ir_op *pw = ir_op_new(m, "cuda_tile.fpowf", 15);
	assert_int_equal(pw->code, IR_OP_POW);
	assert_string_equal(ir_op_name(pw), "fpowf");
	struct ir_op *f = ir_op_new_code(m, IR_OP_FOR);
	struct ir_region *r0 = ir_op_add_region(m, f);
	assert_non_null(f->x);
	assert_int_equal(f->nregions, 1);
	assert_ptr_equal(ir_op_region(f, 0), r0);
	assert_ptr_equal(r0->parent, f);
	/* an op's operand groups keep their sizes whatever order they are filled in */
	struct ir_op *ld = ir_op_new_code(m, IR_OP_LOAD_PTR_TKO);
	const struct ir_type *t = ir_type_tile(m, ir_type_elem(m, IR_F32), 0, NULL);
	struct ir_value *vals[40];
	for (int i = 0; i < 40; i++)
		vals[i] = ir_op_add_result(m, add, t);
	for (int i = 0; i < 40; i++)
		ir_op_add_operand(m, ld, (uint32_t)(i % 4), vals[i]);
	assert_int_equal(ld->noperands, 40);
	for (uint32_t g = 0; g < 4; g++) {
		uint32_t n;
		struct ir_value *const *gv = ir_op_group(ld, g, &n);
		assert_int_equal(ir_op_group_size(ld, g), 10);
		assert_int_equal(n, 10);
		for (uint32_t k = 0; k < n; k++)
			assert_ptr_equal(gv[k], vals[g + 4 * k]);
	}
	assert_int_equal(ir_op_group_size(ld, 4), 0);
	ir_module_free(m);
}

/* A dense value whose tile shape multiplies past any count (a bytecode file
 * may say so) prints as a splat, not by walking the shape (found by
 * fuzz_bytecode: the walk read past the values). */
static void test_dense_odd_shape(void **state)
{
	(void)state;
	struct ir_module *m = ir_module_new("t", IR_SRC_BUILT);
	struct ir_op *u = ir_module_add_unit(m, "kernels", NULL);
	struct ir_op *e = ir_unit_add_entry(m, u, "k", ir_type_func(m, 0, NULL, 0, NULL), NULL);
	int64_t dims[][2] = {{INT64_C(1) << 62, 4}, {IR_DYN, 2}};
	for (size_t i = 0; i < 2; i++) {
		const struct ir_type *t = ir_type_tile(m, ir_type_elem(m, IR_I32), 2, dims[i]);
		struct ir_op *c = ir_op_new_code(m, IR_OP_CONSTANT);
		uint64_t v = 7;
		ir_op_set_attr(m, c, "value", ir_attr_dense(m, t, i ? 2 : 0, i ? (uint64_t[]){7, 7} : &v));
		ir_op_add_result(m, c, t);
		ir_op_finish(m, c);
		ir_block_append(m, ir_entry_body(e), c);
	}
	char *s = ir_module_to_string(m, 0);
	assert_non_null(strstr(s, "<i32: 0>"));
	assert_non_null(strstr(s, "<i32: 7>"));
	free(s);
	ir_module_free(m);
}

static void test_floats(void **state)
{
	(void)state;
	assert_int_equal(ir_float_from_double(IR_F16, 1.0), 0x3C00);
	assert_int_equal(ir_float_from_double(IR_BF16, -2.0), 0xC000);
	assert_int_equal(ir_float_from_double(IR_F32, -INFINITY), 0xFF800000);
	assert_int_equal(ir_float_from_double(IR_F8E4M3FN, 448.0), 0x7E);
	assert_int_equal(ir_float_from_double(IR_F8E4M3FN, NAN), 0x7F);
	assert_int_equal(ir_float_from_double(IR_F4E2M1FN, 6.0), 0x7);
	assert_int_equal(ir_float_from_double(IR_F8E8M0FNU, 0.25), 125);
	assert_true(ir_float_to_double(IR_F16, 0x0001) > 0);
	assert_true(ir_float_to_double(IR_F16, 0x7C00) == INFINITY);
	assert_true(ir_float_to_double(IR_F8E5M2, 0x3C) == 1.0);
	for (uint64_t b = 0; b < 0x7C00; b += 7)
		assert_int_equal(ir_float_from_double(IR_F16, ir_float_to_double(IR_F16, b)), b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registry),
		cmocka_unit_test(test_types_interned),
		cmocka_unit_test(test_builder),
		cmocka_unit_test(test_floats),
		cmocka_unit_test(test_attrs_interned),
		cmocka_unit_test(test_op_extra),
		cmocka_unit_test(test_dense_odd_shape),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
