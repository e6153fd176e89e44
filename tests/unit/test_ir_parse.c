/* Parser and printer: every corpus file round-trips (parse -> print ->
 * parse gives an equal module, printing is idempotent), canonical goldens
 * match byte for byte, and bad input fails with file:line:col. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "engine/base/files.h"
#include "engine/ir/ir.h"
#include "tests/unit/testutil.h"

static char *fixture_dir(void)
{
	const char *top = getenv("TILEPORT_TOP");
	return path_join(top && *top ? top : ".", "tests/fixtures/ir/corpus");
}

static struct ir_module *parse_str(const char *text, struct tp_err *err)
{
	tp_err_clear(err);
	return ir_text_parse("t.mlir", text, strlen(text), err);
}

static void roundtrip_file(const char *path)
{
	struct tp_err err;
	tp_err_clear(&err);
	struct ir_module *m1 = ir_module_load(path, &err);
	if (!m1)
		fail_msg("%s: %s", path, err.msg);
	for (unsigned flags = 0; flags <= IR_PRINT_DEBUGINFO; flags += IR_PRINT_DEBUGINFO) {
		char *t1 = ir_module_to_string(m1, flags);
		struct ir_module *m2 = parse_str(t1, &err);
		if (!m2)
			fail_msg("%s: reparse: %s\n%s", path, err.msg, t1);
		if (!ir_module_equal(m1, m2))
			fail_msg("%s: module changed by print+parse", path);
		char *t2 = ir_module_to_string(m2, flags);
		if (strcmp(t1, t2) != 0)
			fail_msg("%s: printing is not idempotent:\n%s\n---\n%s", path, t1, t2);
		if (!flags) {
			char *canon = xasprintf("%.*s.canon", (int)(strlen(path) - 5), path);
			if (path_is_file(canon)) {
				size_t len;
				char *want = read_file(canon, &len, &err);
				assert_non_null(want);
				if (strcmp(want, t1) != 0)
					fail_msg("%s: output differs from %s:\n%s", path, canon, t1);
				free(want);
			}
			free(canon);
		}
		free(t1);
		free(t2);
		ir_module_free(m2);
	}
	ir_module_free(m1);
}

static void test_corpus_roundtrip(void **state)
{
	(void)state;
	char *dir = fixture_dir();
	DIR *d = opendir(dir);
	assert_non_null(d);
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!str_ends(e->d_name, ".mlir"))
			continue;
		char *p = path_join(dir, e->d_name);
		roundtrip_file(p);
		free(p);
		n++;
	}
	closedir(d);
	free(dir);
	assert_true(n >= 10);
}

/* Different spellings of one kernel parse to equal modules. */
static void test_spellings_equal(void **state)
{
	(void)state;
	const char *a =
		"cuda_tile.module @kernels {\n"
		"  entry @k(%arg0: tile<ptr<f32>>, %arg1: tile<i32>) {\n"
		"    %0 = make_token : token\n"
		"    %assume = assume div_by<16>, %arg0 : tile<ptr<f32>>\n"
		"    %tview = make_tensor_view %assume, shape = [%arg1], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>\n"
		"    %pview = make_partition_view %tview : partition_view<tile=(16), tensor_view<?xf32, strides=[1]>>\n"
		"    %tile, %result_token = load_view_tko weak %pview[%arg1] token = %0 : partition_view<tile=(16), tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<16xf32>, token\n"
		"    %1 = exp2 %tile flush_to_zero : tile<16xf32>\n"
		"    %2 = pow %1, %1 : tile<16xf32>\n"
		"    return\n  }\n}\n";
	const char *b =
		"// same kernel, other spelling\n"
		"cuda_tile.module @kernels {\n"
		"  cuda_tile.entry @k(%0: !cuda_tile.tile<!cuda_tile.ptr<f32>>, %1: tile<i32>) {\n"
		"    %2 = cuda_tile.make_token : !cuda_tile.token\n"
		"    %3 = cuda_tile.assume #cuda_tile.div_by<16>, %0 : tile<ptr<f32>>\n"
		"    %4 = make_tensor_view %3, shape = [%1], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>\n"
		"    %5 = make_partition_view %4 : partition_view<tile=(16), tensor_view<?xf32, strides=[1]>, dim_map=[0]>\n"
		"    %6, %7 = load_view_tko weak %5[%1] token=%2 : partition_view<tile=(16), tensor_view<?xf32, strides=[1]>, dim_map=[0]>, tile<i32> -> tile<16xf32>, token\n"
		"    %8 = \"cuda_tile.exp2\"(%6) {flush_to_zero} : (tile<16xf32>) -> tile<16xf32>\n"
		"    %9 = fpowf %8, %8 : tile<16xf32>\n"
		"    cuda_tile.return\n  }\n}\n";
	struct tp_err err;
	struct ir_module *ma = parse_str(a, &err), *mb = parse_str(b, &err);
	assert_non_null(ma);
	if (!mb)
		fail_msg("%s", err.msg);
	assert_true(ir_module_equal(ma, mb));
	assert_int_equal(mb->nentries, 1);
	/* a real difference is seen */
	const char *c = "cuda_tile.module @kernels {\n  entry @k(%arg0: tile<f32>) {\n"
			"    %0 = exp2 %arg0 : tile<f32>\n    return\n  }\n}\n";
	const char *d = "cuda_tile.module @kernels {\n  entry @k(%arg0: tile<f32>) {\n"
			"    %0 = exp2 %arg0 flush_to_zero : tile<f32>\n    return\n  }\n}\n";
	struct ir_module *mc = parse_str(c, &err), *md = parse_str(d, &err);
	assert_false(ir_module_equal(mc, md));
	ir_module_free(ma);
	ir_module_free(mb);
	ir_module_free(mc);
	ir_module_free(md);
}

static void test_model_details(void **state)
{
	(void)state;
	struct tp_err err;
	char *dir = fixture_dir();
	char *p = path_join(dir, "unknown.mlir");
	struct ir_module *m = ir_module_load(p, &err);
	assert_non_null(m);
	const struct ir_block *b = ir_entry_body(m->entries[0]);
	assert_int_equal(b->ops[0]->code, IR_OP_POW);
	assert_string_equal(ir_op_name(b->ops[0]), "fpowf");
	assert_int_equal(b->ops[1]->code, IR_OP_UNKNOWN);
	assert_string_equal(ir_op_name(b->ops[1]), "fpowi");
	assert_int_equal(b->ops[1]->noperands, 2);
	assert_int_equal(b->ops[1]->results[0]->type->kind, IR_TY_TILE);
	ir_module_free(m);
	free(p);
	p = path_join(dir, "split.mlir");
	m = ir_module_load(p, &err);
	assert_non_null(m);
	assert_int_equal(m->nunits, 2);
	assert_int_equal(m->nentries, 2);
	assert_string_equal(ir_symbol_name(m->entries[1]), "second");
	/* line numbers of ops in the source */
	const struct ir_op *neg = ir_entry_body(m->entries[1])->ops[0];
	assert_int_equal(neg->loc.line, 13);
	ir_module_free(m);
	free(p);
	p = path_join(dir, "softmax.mlir");
	m = ir_module_load(p, &err);
	assert_non_null(m);
	const struct ir_op *forop = NULL;
	b = ir_entry_body(m->entries[0]);
	for (uint32_t i = 0; i < b->nops; i++)
		if (b->ops[i]->code == IR_OP_FOR)
			forop = b->ops[i];
	assert_non_null(forop);
	/* a region op's own text ends at its opening brace */
	assert_int_equal(forop->loc.line, 13);
	assert_int_equal(forop->loc.end_line, 13);
	struct ir_names *nm = ir_names_compute(m->entries[0]);
	char *line = ir_op_line(ir_op_region(forop, 0)->blocks[0]->ops[2], nm);
	assert_string_equal(line, "%reduce = reduce %tile dim=1 identities=[0xFF800000 : f32] : "
				  "tile<1x16xf32> -> tile<1xf32> (%reduce_lhs: tile<f32>, "
				  "%reduce_rhs: tile<f32>) {");
	free(line);
	ir_names_free(nm);
	ir_module_free(m);
	free(p);
	free(dir);
}

static const struct ir_type *view_of(const struct ir_module *m, uint32_t entry, uint32_t op)
{
	const struct ir_op *o = ir_entry_body(m->entries[entry])->ops[op];
	assert_int_equal(o->code, IR_OP_MAKE_PARTITION_VIEW);
	return o->results[0]->type;
}

/* A type of another dialect read once is not taken for the start of a
 * longer one (tests/fixtures/ir/corpus/opaque.mlir; found by fuzz_ir_parse:
 * the generic form, printed in the custom one, read back differently). */
static void test_opaque_type_memory(void **state)
{
	(void)state;
	struct tp_err err;
	char *dir = fixture_dir();
	char *p = path_join(dir, "opaque.mlir");
	struct ir_module *m = ir_module_load(p, &err);
	assert_non_null(m);
	const struct ir_op *use = ir_entry_body(m->entries[0])->ops[0];
	const struct ir_attr *sig = ir_op_attr(use, "sig"), *again = ir_op_attr(use, "again");
	assert_non_null(sig);
	assert_int_equal(sig->kind, IR_ATTR_TYPE);
	assert_int_equal(sig->type->kind, IR_TY_FUNC);
	assert_string_equal(sig->type->ins[0]->text, "!x.t<f32>q");
	assert_int_equal(again->kind, IR_ATTR_TYPE);
	assert_ptr_equal(again->type->ins[0], use->operands[0]->type);
	ir_module_free(m);
	free(p);
	free(dir);
}

/* The specification's partition_view and the dialect tests' print_tko read
 * into the model as what they mean (tests/fixtures/ir/corpus/spellings.mlir). */
static void test_other_printers(void **state)
{
	(void)state;
	char *dir = fixture_dir();
	char *p = path_join(dir, "spellings.mlir");
	struct tp_err err;
	struct ir_module *m = ir_module_load(p, &err);
	if (!m)
		fail_msg("%s", err.msg);
	/* `masked` without a value, `view=` before the tensor_view */
	const struct ir_type *pv = view_of(m, 0, 2);
	assert_int_equal(pv->padding, IR_PAD_MASKED);
	assert_int_equal(pv->inner->kind, IR_TY_TENSOR_VIEW);
	assert_int_equal(pv->rank, 2);
	/* masked with a value is that value */
	assert_int_equal(view_of(m, 0, 4)->padding, IR_PAD_NEG_INF);
	assert_int_equal(view_of(m, 1, 1)->padding, IR_PAD_MASKED);
	/* unnamed print_tko results: the token after `->` makes one */
	const struct ir_block *b = ir_entry_body(m->entries[2]);
	uint32_t prints = 0;
	for (uint32_t i = 0; i < b->nops; i++) {
		const struct ir_op *o = b->ops[i];
		if (o->code != IR_OP_PRINT_TKO)
			continue;
		prints++;
		assert_int_equal(o->nresults, 1);
		assert_int_equal(o->results[0]->type->kind, IR_TY_TOKEN);
	}
	assert_int_equal(prints, 6);
	const struct ir_attr *fmt = ir_op_attr(b->ops[8], "str");
	assert_string_equal(fmt->str, "%i%% done, 100%%");
	/* the 13.1 form has no token and no result */
	struct ir_module *old = parse_str("cuda_tile.module @k {\n  entry @e(%a: tile<i32>) {\n"
					  "    print_tko \"%d\", %a : tile<i32>\n    return\n  }\n}\n",
					  &err);
	assert_non_null(old);
	assert_int_equal(ir_entry_body(old->entries[0])->ops[0]->nresults, 0);
	ir_module_free(old);
	ir_module_free(m);
	free(p);
	free(dir);
}

static void expect_error(const char *text, const char *want)
{
	struct tp_err err;
	struct ir_module *m = parse_str(text, &err);
	if (m)
		fail_msg("parsed, expected error '%s':\n%s", want, text);
	if (!strstr(err.msg, want))
		fail_msg("error '%s' lacks '%s'", err.msg, want);
	assert_int_equal(err.code, TP_EXIT_USAGE);
}

static void test_errors(void **state)
{
	(void)state;
	expect_error("", "t.mlir:1:1: expected 'cuda_tile.module', found end of file");
	/* an operand's written type must be its value's: the printer writes the
	 * value's, so anything else would not read back (found by fuzz_ir_parse) */
	expect_error("cuda_tile.module @k {\n  entry @e(%a: tile<ptr<f32>>) {\n"
		     "    %b = assume div_by<16>, %a : tile<ptr<f16>>\n  }\n}\n",
		     "t.mlir:3:34: operand 1 of 'assume' is a tile<ptr<f32>>, not the type written for it");
	/* a module's values are its own: the next module may use the names
	 * again, as the printer does (found by fuzz_ir_parse), and not its values */
	const char *two = "cuda_tile.module @a {\n  %x = future_op\n}\n// -----\n"
			  "cuda_tile.module @b {\n  %x = future_op\n}\n";
	struct tp_err err;
	struct ir_module *m = parse_str(two, &err);
	assert_non_null(m);
	char *t = ir_module_to_string(m, 0);
	struct ir_module *m2 = parse_str(t, &err);
	assert_non_null(m2);
	assert_true(ir_module_equal(m, m2));
	free(t);
	ir_module_free(m2);
	ir_module_free(m);
	expect_error("cuda_tile.module @a {\n  %x = future_op\n}\n"
		     "cuda_tile.module @b {\n  %y = other_op %x\n}\n",
		     "t.mlir:5:17: use of undefined value %x");
	expect_error("cuda_tile.module @k {\n  entry @e(%a: tile<f32>) {\n"
		     "    %b = \"cuda_tile.negf\"(%a) : (tile<f16>) -> tile<f32>\n  }\n}\n",
		     "t.mlir:3:10: operand 1 of 'cuda_tile.negf' is a tile<f32>, not the type written for it");
	expect_error("cuda_tile.module @k {\n  entry @e(%a: tile<f32>) {\n"
		     "    %b = \"cuda_tile.negf\"(%a) : () -> tile<f32>\n  }\n}\n",
		     "t.mlir:3:10: 'cuda_tile.negf' has 1 operand(s), its type lists 0");
	/* an unknown op's text closes its brackets on its line: else a loc(...)
	 * on the next line, printed after it, reads back as part of it */
	expect_error("cuda_tile.module @k {\n  entry @e() {\n    future_op (1, [2\n    loc(#l)\n"
		     "    return\n  }\n}\n",
		     "t.mlir:3:21: expected ']' to close the text of 'future_op' on its line");
	expect_error("hello", "t.mlir:1:1: expected 'cuda_tile.module', found 'hello'");
	expect_error("cuda_tile.module @k {\n  entry @e() {\n    %0 = addf %x, %x : tile<f32>\n",
		     "t.mlir:3:15: use of undefined value %x");
	expect_error("cuda_tile.module @k {\n  entry @e(%a: tile<f32>) {\n    %0 = addf %a %a : tile<f32>\n  }\n}\n",
		     "t.mlir:3:18: expected ',', found '%a'");
	expect_error("cuda_tile.module @k {\n  entry @e(%a: tile<f32>) {\n    %0 = addf %a, %a : tile<3xq32>\n  }\n}\n",
		     "3:31: expected an element type (i32, f16, ...), found 'q32>'");
	expect_error("cuda_tile.module @k {\n  entry @e(%a: tile<f32>) {\n    %0, %1 = addf %a, %a : tile<f32>\n  }\n}\n",
		     "'addf' has 1 result, the source names 2");
	expect_error("cuda_tile.module @k {\n  entry @e(%a: tile<i32>) {\n    %0 = divi %a, %a bogus : tile<i32>\n  }\n}\n",
		     "expected a signedness keyword, found 'bogus'");
	expect_error("cuda_tile.module @k {\n  entry @e(%a: tile<i32>) {\n    %0 = negi %a : tile<i32>\n    %0 = negi %a : tile<i32>\n  }\n}\n",
		     "4:5: redefinition of value %0");
	expect_error("cuda_tile.module @k {\n  entry @e() {\n    %c = constant <i32: [1, 2, 3]> : tile<4xi32>\n  }\n}\n",
		     "constant has 3 values, its type 4 elements");
	expect_error("cuda_tile.module @k {\n  entry @e() {\n    %s = print_tko \"abc : tile<i32>\n",
		     "3:20: unterminated string");
	expect_error("cuda_tile.module @k {\n  entry @e(%a: tile<i32>) {\n    yield %a#3 : tile<i32>\n  }\n}\n",
		     "value %a has 1 results");
	expect_error("cuda_tile.module @k {\n  entry @e() {\n    entry @f() {\n    }\n  }\n}\n",
		     "'entry' is only valid at module level");
	/* found by fuzz_ir_parse: printed, `return` would read the next op's result as its operand */
	expect_error("cuda_tile.module @k {\n  entry @e(%a: tile<f32>) {\n    return\n    addf %a, %a : tile<f32>\n  }\n}\n",
		     "4:5: an op after 'return', which ends its block");
	/* hint values: integers, booleans, strings or generic attributes */
	expect_error("cuda_tile.module @k {\n  entry @e() optimization_hints=<sm_100 = {latency = ?}> {\n"
		     "    return\n  }\n}\n",
		     "t.mlir:2:54: expected a hint value, found '?}>'");
	/* a value of the module's body used in an entry has no number there:
	 * refused, in an opaque op, a generic op, a custom op, a generic entry */
	expect_error("cuda_tile.module @k {\n  %x = foo\n  entry @r() {\n    bar %x\n    return\n"
		     "  }\n}\n",
		     "t.mlir:4:9: %x is defined outside this entry");
	expect_error("cuda_tile.module @k {\n  %x = foo\n  entry @r() {\n"
		     "    \"x\"(%x) : (tile<i32>) -> ()\n    return\n  }\n}\n",
		     "t.mlir:4:9: %x is defined outside this entry");
	expect_error("cuda_tile.module @k {\n  %x = foo\n  entry @r() {\n"
		     "    %c = constant <i32: 0> : tile<i32>\n"
		     "    for %i in (%c to %x, step %c) : tile<i32> {\n    }\n    return\n  }\n}\n",
		     "t.mlir:5:22: %x is defined outside this entry");
	expect_error("\"cuda_tile.module\"() ({\n  %x = foo\n  \"cuda_tile.entry\"() ({\n"
		     "    \"x\"(%x) : (tile<i32>) -> ()\n    \"cuda_tile.return\"() : () -> ()\n"
		     "  }) {sym_name = \"r\", function_type = () -> ()} : () -> ()\n"
		     "}) {sym_name = \"k\"} : () -> ()\n",
		     "t.mlir:4:9: %x is defined outside this entry");
	/* the official round-trip tests' functions say what they are */
	expect_error("testing$func @f(%a: !cuda_tile.tile<f32>) {\n  return\n}\n",
		     "t.mlir:1:1: 'testing$func' is a function of cuda_tile's test dialect");
	expect_error("cuda_tile.module @k {\n  testing$func @f() {\n  }\n}\n",
		     "t.mlir:2:3: 'testing$func' is a function of cuda_tile's test dialect");
	/* inside a generic region too: printed, it would sit where the custom
	 * form refuses it, and not read back (found by fuzz_ir_parse) */
	expect_error("\"cuda_tile.module\"() <{sym_name = \"k\"}> ({\n  testing$f\"(x) : () -> ()\n"
		     "}) : () -> ()\n",
		     "t.mlir:2:3: 'testing$f' is a function of cuda_tile's test dialect");
	expect_error("cuda_tile.module @k {\n  entry @e(%a: tile<ptr<f32>>) {\n    %t = make_tensor_view %a, "
		     "shape = [4], strides = [1] : tensor_view<4xf32, strides=[1]>\n    %p = make_partition_view %t : "
		     "partition_view<masked tile=(4), view=tile<f32>>\n  }\n}\n",
		     "expected a tensor_view inside a view type");
	/* deep nesting is refused, not a stack overflow */
	struct sbuf sb = SBUF_INIT;
	sb_adds(&sb, "cuda_tile.module @k {\n entry @e(%c: tile<i1>) {\n");
	for (int i = 0; i < 300; i++)
		sb_adds(&sb, "if %c {\n");
	expect_error(sb.buf, "nested too deeply");
	sb_free(&sb);
}

/* A deep region nest made of n `for` loops around `inner`. */
static char *loop_nest(int n, const char *inner)
{
	struct sbuf sb = SBUF_INIT;
	sb_adds(&sb, "cuda_tile.module @k {\n entry @e() {\n  %c = constant <i32: 0> : tile<i32>\n");
	for (int i = 0; i < n; i++)
		sb_adds(&sb, "for %i in (%c to %c, step %c) : tile<i32> {\n");
	sb_printf(&sb, "%s\n", inner);
	for (int i = 0; i < n; i++)
		sb_adds(&sb, "}\n");
	sb_adds(&sb, "return\n }\n}\n");
	return sb_detach(&sb);
}

/* Every recursive path of the parser has the one depth limit: each kind of
 * nesting is refused with a message naming it instead of overflowing the
 * stack, and no kind runs out early inside another (a 2-D constant or a
 * nested attribute deep in a loop nest, as bytecode may nest 200 deep). */
static void test_nesting_limit(void **state)
{
	(void)state;
	static const struct {
		const char *start, *open, *what;
	} kinds[] = {
		{"", "\"x\"() ({", "regions nested too deeply"},
		{"\"x\"() {a = ", "[", "attributes nested too deeply"},
		{"\"x\"() {a = ", "{a = ", "attributes nested too deeply"},
		{"\"x\"() <{a = ", "[", "attributes nested too deeply"},
		{"\"x\"() : ", "(", "types nested too deeply"},
		{"%c = constant <f32: ", "[", "dense data nested too deeply"},
	};
	for (size_t k = 0; k < sizeof(kinds) / sizeof(*kinds); k++) {
		struct sbuf sb = SBUF_INIT;
		sb_printf(&sb, "cuda_tile.module @m {\n entry @e() {\n%s", kinds[k].start);
		for (int i = 0; i < 5000; i++)
			sb_adds(&sb, kinds[k].open);
		expect_error(sb.buf, kinds[k].what);
		sb_free(&sb);
	}
	struct sbuf sb = SBUF_INIT;
	for (int i = 0; i < 5000; i++)
		sb_adds(&sb, "module {\n");
	expect_error(sb.buf, "modules nested too deeply");
	sb_free(&sb);

	const char *inner[] = {
		"%d = constant <f32: [[1.0, 2.0]]> : tile<1x2xf32>",
		"\"x\"() {a = [[[[1]]]]} : () -> ()",
	};
	for (size_t i = 0; i < sizeof(inner) / sizeof(*inner); i++) {
		char *text = loop_nest(200, inner[i]);
		struct tp_err err;
		struct ir_module *m = parse_str(text, &err);
		if (!m)
			fail_msg("a 200-deep loop nest around '%s' is refused: %s", inner[i], err.msg);
		ir_module_free(m);
		free(text);
	}
	char *text = loop_nest(300, "return");
	expect_error(text, "nested too deeply (more than 256 levels");
	free(text);
}

static void test_bytecode_dispatch(void **state)
{
	(void)state;
	struct tp_err err;
	tp_err_clear(&err);
	static const char bc[] = "\x7fTileIR\0\x0d\x01\x00\x00";
	struct ir_module *m = ir_module_from_buffer("x.tileirbc", bc, sizeof(bc) - 1, &err);
	/* whatever the reader says, the text parser must not have been asked */
	if (m)
		ir_module_free(m);
	else
		assert_null(strstr(err.msg, "cuda_tile.module"));
}

/* The pair loader parses its two files on two threads: each module must be
 * what the one-file loader makes of it, and a failure names the first file
 * that failed. */
static void check_pair(const char *pa, const char *pb)
{
	struct tp_err err;
	struct ir_module *a, *b;
	if (!ir_module_load_pair(pa, pb, &a, &b, &err))
		fail_msg("%s + %s: %s", pa, pb, err.msg);
	const char *paths[2] = {pa, pb};
	struct ir_module *got[2] = {a, b};
	for (int i = 0; i < 2; i++) {
		struct ir_module *one = ir_module_load(paths[i], &err);
		assert_non_null(one);
		char *t1 = ir_module_to_string(one, IR_PRINT_DEBUGINFO);
		char *t2 = ir_module_to_string(got[i], IR_PRINT_DEBUGINFO);
		if (!ir_module_equal(one, got[i]) || strcmp(t1, t2) != 0)
			fail_msg("%s: loaded as a pair differs from loaded alone", paths[i]);
		free(t1);
		free(t2);
		ir_module_free(one);
	}
	ir_module_free(a);
	ir_module_free(b);
}

static void test_load_pair(void **state)
{
	(void)state;
	char *dir = fixture_dir();
	DIR *d = opendir(dir);
	assert_non_null(d);
	char *prev = NULL;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!str_ends(e->d_name, ".mlir"))
			continue;
		char *p = path_join(dir, e->d_name);
		check_pair(prev ? prev : p, p);
		free(prev);
		prev = p;
	}
	closedir(d);
	struct tp_err err;
	struct ir_module *a = (void *)1, *b = (void *)1;
	char *bad1 = path_join(dir, "no-such-ref.mlir"), *bad2 = path_join(dir, "no-such-gen.mlir");
	assert_false(ir_module_load_pair(bad1, bad2, &a, &b, &err));
	assert_null(a);
	assert_null(b);
	assert_non_null(strstr(err.msg, "no-such-ref.mlir"));
	assert_false(ir_module_load_pair(prev, bad2, &a, &b, &err));
	assert_null(a);
	assert_non_null(strstr(err.msg, "no-such-gen.mlir"));
	assert_false(ir_module_load_pair(bad1, prev, &a, &b, &err));
	assert_non_null(strstr(err.msg, "no-such-ref.mlir"));
	free(bad1);
	free(bad2);
	free(prev);
	free(dir);
}

/* The second file is parsed on a thread of its own: its stack must take a
 * nest just inside the depth limit, and a deeper one must fail with the
 * limit's message, whatever the thread's default stack would be. */
static void test_load_pair_deep(void **state)
{
	const char *dir = *state;
	char *nest = loop_nest(240, "%d = constant <f32: [[1.0, 2.0]]> : tile<1x2xf32>");
	char *ok = tu_write(dir, "ok.mlir", nest);
	struct sbuf sb = SBUF_INIT;
	sb_adds(&sb, "cuda_tile.module @m {\n entry @e() {\n");
	for (int i = 0; i < 5000; i++)
		sb_adds(&sb, "\"x\"() ({");
	char *bad = tu_write(dir, "bad.mlir", sb_str(&sb));
	struct tp_err err;
	struct ir_module *a, *b;
	assert_true(ir_module_load_pair(ok, ok, &a, &b, &err));
	assert_true(ir_module_equal(a, b));
	ir_module_free(a);
	ir_module_free(b);
	assert_false(ir_module_load_pair(ok, bad, &a, &b, &err));
	assert_non_null(strstr(err.msg, "bad.mlir:3:"));
	assert_non_null(strstr(err.msg, "regions nested too deeply"));
	sb_free(&sb);
	free(nest);
	free(ok);
	free(bad);
}

/* A file read by ir_module_load gives back its text as the parse passes
 * each kernel (ir_text_parse_consume): a big file of many kernels must
 * read into the same module, and a mistake near its end be reported at the
 * same line and column, as when the text stays whole. */
static void test_big_file_released(void **state)
{
	const char *dir = *state;
	struct sbuf sb = SBUF_INIT;
	sb_adds(&sb, "cuda_tile.module @m {\n");
	uint32_t lines = 1;
	for (int i = 0; i < 3000; i++) { /* about 1 MB, 15,000 lines */
		sb_printf(&sb, "  entry @k%d(%%a: tile<16xf32>, %%b: tile<16xf32>) {\n"
			       "    %%s = addf %%a, %%b : tile<16xf32>\n"
			       "    %%t = mulf %%s, %%a : tile<16xf32>\n"
			       "    return\n  }\n", i);
		lines += 5;
	}
	size_t body = sb.len;
	static const struct {
		const char *text; /* the last entry, starting on line `lines + 1` */
		uint32_t line, col;
		const char *what;
	} bad[] = {
		{"  entry @z(%a: tile<f32>) {\n    %s = addf %a, %nope : tile<f32>\n", 2, 19,
		 "use of undefined value %nope"},
		/* reported at the op's start once its region has been read: behind
		 * the parse, within the kernel */
		{"  entry @z(%c: tile<i1>) {\n    %x, %y = \"cuda_tile.if\"(%c) ({\n"
		 "      \"cuda_tile.yield\"() : () -> ()\n    }, {\n"
		 "      \"cuda_tile.yield\"() : () -> ()\n    }) : (tile<i1>) -> tile<f32>\n",
		 2, 14, "has 1 result types, the source names 2"},
	};
	struct tp_err err;
	for (size_t k = 0; k < sizeof(bad) / sizeof(*bad); k++) {
		sb.len = body;
		sb_adds(&sb, bad[k].text);
		sb_adds(&sb, "    return\n  }\n}\n");
		char *p = tu_write(dir, "big.mlir", sb_str(&sb));
		tp_err_clear(&err);
		assert_null(ir_module_load(p, &err));
		char *want = xasprintf("big.mlir:%u:%u: ", lines + bad[k].line, bad[k].col);
		if (!strstr(err.msg, want) || !strstr(err.msg, bad[k].what))
			fail_msg("'%s' lacks '%s' '%s'", err.msg, want, bad[k].what);
		struct tp_err whole;
		tp_err_clear(&whole);
		assert_null(ir_text_parse(p, sb.buf, sb.len, &whole));
		assert_string_equal(err.msg, whole.msg);
		free(want);
		free(p);
	}
	/* and without a mistake: the same module either way */
	sb.len = body;
	sb_adds(&sb, "}\n");
	char *p = tu_write(dir, "big.mlir", sb_str(&sb));
	struct ir_module *a = ir_module_load(p, &err), *b = ir_text_parse(p, sb.buf, sb.len, &err);
	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(a->nentries, 3000);
	assert_true(ir_module_equal(a, b));
	const struct ir_op *last = ir_entry_body(a->entries[2999])->ops[1];
	assert_int_equal(last->loc.line, lines - 2);
	ir_module_free(a);
	ir_module_free(b);
	free(p);
	sb_free(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_corpus_roundtrip),
		cmocka_unit_test(test_spellings_equal),
		cmocka_unit_test(test_model_details),
		cmocka_unit_test(test_other_printers),
		cmocka_unit_test(test_opaque_type_memory),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_nesting_limit),
		cmocka_unit_test(test_bytecode_dispatch),
		cmocka_unit_test(test_load_pair),
		TU_DIR_TEST(test_load_pair_deep),
		TU_DIR_TEST(test_big_file_released),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
