/* Bytecode through the shared IR model's single entry point: magic
 * detection in ir_module_from_buffer, the version and source kind, op
 * registry codes, operand groups, byte offsets and debug locations of ops,
 * and errors with exit code 2. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "engine/base/files.h"
#include "engine/ir/ir.h"
#include "tests/unit/bctest.h"

static char *fixture(size_t *len)
{
	const char *top = getenv("TILEPORT_TOP");
	char *path = xasprintf("%s/tests/fixtures/bytecode/spec11_negi_13_1.tileirbc",
			       top && *top ? top : ".");
	struct tp_err err;
	tp_err_clear(&err);
	char *buf = read_file(path, len, &err);
	free(path);
	assert_non_null(buf);
	return buf;
}

static void test_load_detects_bytecode(void **state)
{
	(void)state;
	size_t len;
	char *buf = fixture(&len);
	struct tp_err err;
	tp_err_clear(&err);
	struct ir_module *m = ir_module_from_buffer("basic.tileirbc", buf, len, &err);
	assert_non_null(m);
	assert_int_equal(m->source, IR_SRC_BYTECODE);
	assert_int_equal(m->bc_major, 13);
	assert_int_equal(m->bc_minor, 1);
	assert_int_equal(m->nentries, 1);
	assert_string_equal(ir_symbol_name(m->entries[0]), "basic");
	const struct ir_block *b = ir_entry_body(m->entries[0]);
	assert_int_equal(b->nops, 4);
	assert_int_equal(b->ops[0]->code, IR_OP_CONSTANT);
	assert_int_equal(b->ops[1]->code, IR_OP_NEGI);
	assert_int_equal(b->ops[3]->code, IR_OP_RETURN);
	/* byte range of each op record (§11: negi at 0x19..0x1C) */
	assert_int_equal(ir_op_x(b->ops[1])->offset, 0x19);
	assert_int_equal(ir_op_x(b->ops[1])->end_offset, 0x1C);
	/* the 13.1 negi has no overflow field: the model carries the default */
	assert_int_equal(ir_op_attr_int(b->ops[1], "overflow", -1), IR_OVF_NONE);
	/* operand wiring: both negi read the constant */
	uint32_t n;
	struct ir_value *const *src = ir_op_group(b->ops[2], 0, &n);
	assert_int_equal(n, 1);
	assert_ptr_equal(src[0], b->ops[0]->results[0]);
	ir_module_free(m);

	/* a damaged file: NULL, exit code 2, file and offset in the message */
	tp_err_clear(&err);
	m = ir_module_from_buffer("basic.tileirbc", buf, 100, &err);
	assert_null(m);
	assert_int_equal(err.code, TP_EXIT_USAGE);
	assert_true(str_starts(err.msg, "basic.tileirbc: offset 74 (0x4a): type section length 31"));
	free(buf);
}

/* Segmented operands land in the registry's groups; debug references
 * become location text. */
static void test_groups_and_locations(void **state)
{
	(void)state;
	struct bct t;
	bct_init(&t, 2, BCW_PYTHON);
	uint32_t file = bcw_debug_attr(t.w, 2, BCW_LIST(bcw_string(t.w, "k.py"), bcw_string(t.w, "/d")), 2);
	uint32_t cu = bcw_debug_attr(t.w, 1, BCW_LIST(file), 1);
	uint32_t sp = bcw_debug_attr(t.w, 5, BCW_LIST(file, 1, 0, 0, cu, 1), 6);
	uint32_t l7 = bcw_debug_attr(t.w, 4, BCW_LIST(sp, bcw_string(t.w, "k.py"), 7, 3), 4);
	uint32_t l8 = bcw_debug_attr(t.w, 4, BCW_LIST(sp, bcw_string(t.w, "k.py"), 8, 1), 4);
	uint32_t cs = bcw_debug_attr(t.w, 6, BCW_LIST(l8, l7), 2);
	uint32_t ptrs = bct_arg(&t, t.t_4p_f32), mask = bct_arg(&t, t.t_4i1);
	uint32_t tok = t.nargs;
	BCW_V(&t.body, 0x44, t.token);
	/* load_ptr_tko weak, mask + token */
	BCW_V(&t.body, 0x3D, t.t_4f32, t.token, 0x14, 0, ptrs, mask, tok);
	BCW_V(&t.body, 0x5C, 0, 0);
	uint32_t list = bcw_debug_list(t.w, 4, BCW_LIST(sp, l7, cs, 0));
	uint32_t sig = bcw_func_type(t.w, t.nargs, t.args, 0, NULL);
	bcw_func(t.w, "k", sig, list, NULL, &t.body);
	struct sbuf f = SBUF_INIT;
	bcw_finish(t.w, &f);
	bcw_free(t.w);
	sb_free(&t.body);
	struct tp_err err;
	tp_err_clear(&err);
	struct ir_module *m = ir_module_from_buffer("g.tileirbc", f.buf, f.len, &err);
	assert_non_null(m);
	const struct ir_block *b = ir_entry_body(m->entries[0]);
	const struct ir_op *load = b->ops[1];
	assert_int_equal(load->code, IR_OP_LOAD_PTR_TKO);
	struct ir_value *v = ir_op_group_value(load, "mask");
	assert_ptr_equal(v, b->args[1]);
	assert_null(ir_op_group_value(load, "paddingValue"));
	assert_ptr_equal(ir_op_group_value(load, "token"), b->ops[0]->results[0]);
	assert_string_equal(ir_op_x(b->ops[0])->dbg, "loc(\"k.py\":7:3)");
	assert_string_equal(ir_op_x(load)->dbg, "loc(callsite(loc(\"k.py\":8:1) at loc(\"k.py\":7:3)))");
	assert_null(ir_op_x(b->ops[2])->dbg);
	char *text = ir_module_to_string(m, IR_PRINT_DEBUGINFO);
	assert_non_null(strstr(text, "%0 = make_token : token loc(\"k.py\":7:3)\n"));
	free(text);
	ir_module_free(m);
	sb_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_load_detects_bytecode),
		cmocka_unit_test(test_groups_and_locations),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
