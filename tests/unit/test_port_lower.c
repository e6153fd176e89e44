/* Lowering cuTile Python and Triton kernels to cuTile Rust (engine/port):
 * structural variants, loop-carried values, element-type tests, masked
 * loads, positioned refusals, and the rustfmt layout of long lines. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "engine/port/port.h"
#include "engine/port/rsfmt.h"

#define CT_HEAD "import cuda.tile as ct\n\n\n@ct.kernel\n"
#define TL_HEAD "import triton\nimport triton.language as tl\n\n\n@triton.jit\n"

/* kernel.rs of `src`, or "ERR <code> <message>". */
static char *translate(const char *src, struct port_op **keep)
{
	struct port_op *op = NULL;
	struct tp_err err = {0};
	if (port_open_source("k.py", src, strlen(src), NULL, NULL, &op, &err) != 0)
		return xasprintf("ERR %d %s", err.code, err.msg);
	char *rs = port_kernel_rs(op, "k.py");
	if (keep)
		*keep = op;
	else
		port_close(op);
	return rs;
}

static void has(const char *text, const char *want)
{
	if (!strstr(text, want)) {
		/* cmocka cuts long messages: the whole text goes to stderr */
		fprintf(stderr, "%s\n", text);
		fail_msg("'%s' not in the text above", want);
	}
}

static void lacks(const char *text, const char *unwanted)
{
	if (strstr(text, unwanted))
		fail_msg("'%s' unexpectedly in:\n%s", unwanted, text);
}

static void test_rank_changing_constant_splits_entries(void **state)
{
	(void)state;
	struct port_op *op = NULL;
	char *rs = translate(CT_HEAD "def k(X, Y, T: ct.Constant[int], ROWS: ct.Constant[bool]):\n"
				     "    if ROWS:\n"
				     "        x = ct.load(X, index=(ct.bid(0), 0), shape=(1, T))\n"
				     "        ct.store(Y, index=(ct.bid(0), 0), tile=x)\n"
				     "    else:\n"
				     "        x = ct.load(X, index=(ct.bid(0),), shape=(T,))\n"
				     "        ct.store(Y, index=(ct.bid(0),), tile=x)\n",
			     &op);
	assert_non_null(op);
	struct port_entry e[4];
	assert_int_equal(port_entries(op, e, 4), 2);
	assert_string_equal(e[0].name, "k_rows_true");
	assert_string_equal(e[0].dispatch, "ROWS");
	assert_string_equal(e[1].name, "k_rows_false");
	assert_string_equal(e[1].dispatch, "not ROWS");
	/* each variant has its own rank and no ROWS generic */
	has(rs, "pub unsafe fn k_rows_true<E: ElementType, const T: i32>(\n"
		"        x_p: &Tensor<E, { [-1, -1] }>,");
	has(rs, "pub unsafe fn k_rows_false<E: ElementType, const T: i32>(\n"
		"        x_p: &Tensor<E, { [-1] }>,");
	lacks(rs, "ROWS {");
	free(rs);
	port_close(op);
}

static void test_constant_branch_without_structure_stays_one_entry(void **state)
{
	(void)state;
	struct port_op *op = NULL;
	char *rs = translate(CT_HEAD "def k(X, Y, T: ct.Constant[int], DOUBLE: ct.Constant[bool]):\n"
				     "    x = ct.load(X, index=(ct.bid(0),), shape=(T,))\n"
				     "    if DOUBLE:\n"
				     "        x = x * 2\n"
				     "    ct.store(Y, index=(ct.bid(0),), tile=x)\n",
			     &op);
	struct port_entry e[4];
	assert_int_equal(port_entries(op, e, 4), 1);
	assert_string_equal(e[0].dispatch, "always");
	has(rs, "pub unsafe fn k<E: ElementType, const T: i32, const DOUBLE: bool>(");
	/* the value crossing the if is declared before it and set in both arms */
	/* cuTile has no uninitialised let: the branch is an if expression */
	has(rs, "let x_1: Tile<E, { [T] }> = if DOUBLE {");
	has(rs, "            x\n        } else {\n            x\n        };");
	free(rs);
	port_close(op);
}

static void test_views_of_a_pointer_array(void **state)
{
	(void)state;
	/* A is gathered, and loaded as tiles inside a loop in one arm: it is
	 * a pointer, and the view is built once, first in the entry */
	char *rs = translate(CT_HEAD "def k(A, Y, T: ct.Constant[int], TILED: ct.Constant[bool]):\n"
				     "    acc = ct.zeros((T,), dtype=ct.float32)\n"
				     "    if TILED:\n"
				     "        for j in range(4):\n"
				     "            acc = acc + ct.load(A, (ct.bid(0), j), (1, T)).reshape((T,)).astype(ct.float32)\n"
				     "    else:\n"
				     "        acc = ct.gather(A, (ct.bid(0), ct.arange(T, dtype=ct.int32))).astype(ct.float32)\n"
				     "    ct.store(Y, (ct.bid(0),), acc.astype(Y.dtype))\n",
			     NULL);
	has(rs, "        a: *mut E,\n");
	has(rs, "    ) {\n"
		"        // `a` is addressed through pointers and tile views: the views are of its pointer\n"
		"        let a_shape0: i32 = unsafe { assume_bounds_lower::<_, 0>(a_shape0) };\n");
	/* every stride dynamic but the last */
	has(rs, "let a_strides: Array<{ [-1, 1] }> = Array::<{ [-1, 1] }> { dims: &[a_stride0] };\n");
	has(rs, "make_tensor_view(a_base, a_dims, a_strides, new_token_unordered())");
	/* the load inside the loop (no padding) reads the view through
	 * Tensor's method: cutile types make_partition_view over a parameter */
	has(rs, "let acc_part = unsafe { a_view.partition_full_mut(const_shape![1, T]) };");
	has(rs, "load_view_tko_mut(\n                        &acc_part,");
	lacks(rs, "make_partition_view(&a_view");
	free(rs);
}

static void test_constant_not_equal_split_fixes_the_equal_side(void **state)
{
	(void)state;
	struct port_op *op = NULL;
	char *rs = translate(CT_HEAD "def k(X, Y, N: ct.Constant[int], D: ct.Constant[int]):\n"
				     "    x = ct.load(X, (ct.bid(0), 0), (N, D))\n"
				     "    m = ct.sum(x, axis=1)\n"
				     "    if N != 1:\n"
				     "        m = m[:, None]\n"
				     "    ct.store(Y, (ct.bid(0), 0), x - m)\n",
			     &op);
	struct port_entry e[4];
	assert_int_equal(port_entries(op, e, 4), 2);
	assert_string_equal(e[0].name, "k_n_ne_1");
	assert_string_equal(e[1].name, "k_n_eq_1");
	/* where N == 1 the shapes are (1, D) and (1,): N is no generic there;
	 * D, a name of cutile's own operator impls, is D_ */
	has(rs, "pub unsafe fn k_n_eq_1<E: ElementType, const D_: i32>(");
	has(rs, "Tile<E, { [1, D_] }>");
	free(rs);
	port_close(op);
}

static void test_loop_carried_accumulator(void **state)
{
	(void)state;
	char *rs = translate(CT_HEAD "def k(X, Y, n, TM: ct.Constant[int], TN: ct.Constant[int]):\n"
				     "    acc = ct.zeros((TM, TN), dtype=ct.float32)\n"
				     "    for j in range(n):\n"
				     "        x = ct.load(X, index=(ct.bid(0), j), shape=(TM, TN))\n"
				     "        acc = acc + ct.astype(x, ct.float32)\n"
				     "    s = ct.sum(acc, axis=1)\n"
				     "    ct.store(Y, index=(ct.bid(0),), tile=ct.astype(s, Y.dtype))\n",
			     NULL);
	has(rs, "let mut acc: Tile<f32, { [TM, TN] }> = constant(0.0f32, const_shape![TM, TN]);\n"
		"        for j in 0i32..n {");
	has(rs, "            acc = acc + x_f32;\n        }");
	has(rs, "let s: Tile<f32, { [TM] }> = reduce_sum(acc, 1i32);");
	has(rs, "let s_e: Tile<E, { [TM] }> = convert_tile(s);");
	free(rs);
}

static void test_dtype_test_becomes_const_generic(void **state)
{
	(void)state;
	struct port_op *op = NULL;
	char *rs = translate(CT_HEAD "def k(X, Y, T: ct.Constant[int]):\n"
				     "    x = ct.load(X, index=(ct.bid(0),), shape=(T,))\n"
				     "    if X.dtype == ct.float32:\n"
				     "        x = ct.exp(x)\n"
				     "    ct.store(Y, index=(ct.bid(0),), tile=x)\n",
			     &op);
	has(rs, "const T: i32, const E_IS_F32: bool>(");
	has(rs, "if E_IS_F32 {");
	char *json = port_translation_json(op);
	has(json, "\"E_IS_F32\"");
	free(json);
	free(rs);
	port_close(op);
}

static void test_triton_masked_loads(void **state)
{
	(void)state;
	char *rs = translate(TL_HEAD "def k(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):\n"
				     "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
				     "    mask = offs < n\n"
				     "    x = tl.load(x_ptr + offs, mask=mask, other=0.0)\n"
				     "    y = tl.load(y_ptr + offs, mask=mask)\n"
				     "    tl.store(out_ptr + offs, x + y, mask=mask)\n",
			     NULL);
	has(rs, "x_ptr: *mut E,");
	has(rs, "let mask: Tile<bool, { [BLOCK] }> = lt_tile(offs, mask_s);");
	/* a scalar other= is the load's padding, an E made with convert_scalar
	 * (never E::ZERO, rule 14); no other, no padding */
	has(rs, "let x_pad: E = convert_scalar(0.0f32);");
	has(rs, "Some(mask),\n            Some(x_pad),");
	has(rs, "None::<E>,");
	has(rs, "let (y, _y_tok): (Tile<E, { [BLOCK] }>, Token) = load_ptr_tko(");
	has(rs, "store_ptr_tko(\n            out_ptr_ptrs,\n            r,");
	free(rs);
}

/* check_bounds= a flag of the Constants: the statement in an `if` on the
 * const generics (cutile folds it), checked on one side only; the gather
 * in 64 bits with its padding in the load either way. */
static void test_bounds_flag_of_the_constants(void **state)
{
	(void)state;
	char *rs = translate(CT_HEAD "def k(src, dst, BLOCK: ct.Constant[int], WIDTH: ct.Constant[int]):\n"
				     "    lanes = ct.arange(BLOCK, dtype=ct.int32) + ct.bid(0) * BLOCK\n"
				     "    ragged = WIDTH % BLOCK != 0\n"
				     "    v = ct.gather(src, lanes, check_bounds=ragged, padding_value=1.5)\n"
				     "    ct.scatter(dst, lanes, v * 2.0, check_bounds=ragged)\n",
			     NULL);
	has(rs, "let v_1: Tile<E, { [BLOCK] }> = if (WIDTH % BLOCK) != 0 {");
	has(rs, "let lanes_64: Tile<u64, { [BLOCK] }> = exti(lanes);");
	has(rs, "convert_scalar(1.5f32);");
	/* the unchecked side: no mask, the padding still in the load */
	has(rs, "None::<scope::TileBlock>,\n                None,\n                Some(");
	lacks(rs, "select(");
	free(rs);
}

/* A unary minus on a scalar that is not a literal: cutile lowers `-x` on
 * literals only, so an integer is subtracted from zero and a float
 * multiplied by -1 (which keeps -0.0 the negation of 0.0). */
static void test_negated_scalars_lower(void **state)
{
	(void)state;
	char *rs = translate(CT_HEAD "def k(X, Y, scale: float, n: int, W: ct.Constant[int], T: ct.Constant[int]):\n"
				     "    t = ct.load(X, index=(ct.bid(0),), shape=(T,))\n"
				     "    off = -n\n"
				     "    keep = ct.arange(T, dtype=ct.int32) + off >= -W\n"
				     "    v = ct.where(keep, t * -scale, 0.0)\n"
				     "    ct.store(Y, index=(ct.bid(0),), tile=v.astype(Y.dtype))\n",
			     NULL);
	has(rs, "0i32 - n");
	has(rs, "0i32 - W");
	has(rs, "scale * -1.0f32");
	/* a `float` parameter is f32: the E tile promotes to it */
	has(rs, "let t_f32: Tile<f32, { [T] }> = convert_tile(t);");
	lacks(rs, "(-n)");
	lacks(rs, "(-W)");
	free(rs);
}

/* Values read from an array nobody typed, used as indices (a view load's
 * tile index through .item() and arithmetic, a gather's index through a
 * reshape): the array holds int32, the index is a scalar before the load,
 * and a float in the arithmetic keeps it from being an index. */
static void test_loaded_values_as_indices(void **state)
{
	(void)state;
	char *rs = translate(CT_HEAD "def k(ids, order, w, x, y, T: ct.Constant[int]):\n"
				     "    e = ct.load(ids, index=(ct.bid(0),), shape=(1,)).item()\n"
				     "    a = ct.load(w, index=(e * 4 - 1,), shape=(T,))\n"
				     "    o = ct.reshape(ct.load(order, index=(0,), shape=(T,)), (1, T))\n"
				     "    g = ct.gather(x, ct.reshape(o, (T,)))\n"
				     "    ct.store(y, index=(0,), tile=a + g)\n",
			     NULL);
	has(rs, "ids: &Tensor<i32, { [-1] }>,");
	has(rs, "order: &Tensor<i32, { [-1] }>,");
	has(rs, "w: &Tensor<E, { [-1] }>,");
	has(rs, "let e: Tile<i32, { [] }> = e_tile.reshape(const_shape![]);");
	has(rs, "constant(4i32, const_shape![])");
	const char *conv = strstr(rs, "tile_to_scalar(");
	const char *load = conv ? strstr(rs, "&a_part,") : NULL;
	assert_non_null(conv);
	assert_non_null(load);
	assert_true(conv < load); /* the scalar exists before the load reads it */
	has(rs, "let o: Tile<i32, { [1, T] }> =");
	lacks(rs, "4.0f32");
	free(rs);
	/* a loop bound read from memory is an integer too */
	rs = translate(CT_HEAD "def k(lens, y, T: ct.Constant[int]):\n"
			       "    n = ct.load(lens, index=(ct.bid(0),), shape=(1,)).item()\n"
			       "    for i in range(n):\n"
			       "        ct.store(y, index=(i,), tile=ct.zeros((T,), dtype=ct.float32))\n",
		       NULL);
	has(rs, "lens: &Tensor<i32, { [-1] }>,");
	has(rs, "let n_s: i32 = tile_to_scalar(n);");
	free(rs);
	rs = translate(CT_HEAD "def k(ids, w, y, T: ct.Constant[int]):\n"
			       "    e = ct.load(ids, index=(0,), shape=(1,)).item()\n"
			       "    ct.store(y, index=(0,), tile=ct.load(w, index=(e + 0.5,), shape=(T,)))\n",
		       NULL);
	assert_string_equal(rs, "ERR 1 k.py:7:34: unsupported: a tile index that is not an integer scalar");
	free(rs);
}

static void refuse(const char *body, const char *want)
{
	char *src = xasprintf(CT_HEAD "def k(X, T: ct.Constant[int]):\n%s", body);
	char *got = translate(src, NULL);
	assert_string_equal(got, want);
	free(got);
	free(src);
}

static void test_refusals_name_the_construct_and_place(void **state)
{
	(void)state;
	refuse("    for i in range(4):\n        break\n", "ERR 1 k.py:7:9: unsupported: break");
	refuse("    return 1\n", "ERR 1 k.py:6:5: unsupported: a kernel that returns a value");
	refuse("    x = ct.load(X, index=(0,), shape=(3,))\n",
	       "ERR 1 k.py:6:38: unsupported: a tile dimension of 3 (tiles are powers of two)");
	refuse("    x = ct.load(X, index=(0,), shape=(T,))\n    x = ct.reshape(x, (2, T))\n",
	       "ERR 1 k.py:7:9: unsupported: reshaping (T,) to (2, T)");
	refuse("    x = ct.load(X, index=(0,), shape=(T,))\n"
	       "    for i in range(3):\n"
	       "        x = ct.reshape(x, (1, T))\n",
	       "ERR 1 k.py:8:9: unsupported: `x` is carried by a loop but changes from a tile (T,) "
	       "of E to a tile (1, T) of E in it");
	refuse("    print(1)\n", "ERR 1 k.py:6:5: unsupported: print()");
	refuse("    x = ct.load(X, index=(0,), shape=(T,))\n    x(1)\n",
	       "ERR 1 k.py:7:5: unsupported: calling a tile");
	refuse("    x = ct.load(X, index=(0,), shape=(T,))\n    ct.store(X, index=(0, 0), tile=x)\n",
	       "ERR 1 k.py:7:5: unsupported: a store index of 2 values for a rank-1 tile");
	/* not a kernel file at all */
	char *got = translate("x = 1\n", NULL);
	assert_string_equal(got, "ERR 1 k.py:1:1: unsupported: a file without a @ct.kernel or "
				 "@triton.jit kernel");
	free(got);
}

static char *layout(int indent, const char *stmt)
{
	struct sbuf o = SBUF_INIT;
	rsfmt_line(&o, indent, stmt);
	return sb_detach(&o);
}

static void test_rustfmt_layout(void **state)
{
	(void)state;
	char *s = layout(2, "let a: i32 = b;");
	assert_string_equal(s, "        let a: i32 = b;\n");
	free(s);
	/* too long: break after the `=` when the right-hand side then fits */
	s = layout(2, "let xc_b: Tile<f32, { [1, TILE_M, TILE_N] }> = "
		      "mean.broadcast(const_shape![1, TILE_M, TILE_N]);");
	assert_string_equal(s, "        let xc_b: Tile<f32, { [1, TILE_M, TILE_N] }> =\n"
			       "            mean.broadcast(const_shape![1, TILE_M, TILE_N]);\n");
	free(s);
	/* arguments wider than 60 columns go one per line */
	s = layout(1, "let v = make_partition_view(X, const_shape![TILE_M, TILE_N], padding::None, "
		      "dim_map::Identity, get_tensor_token(X));");
	assert_string_equal(s, "    let v = make_partition_view(\n"
			       "        X,\n"
			       "        const_shape![TILE_M, TILE_N],\n"
			       "        padding::None,\n"
			       "        dim_map::Identity,\n"
			       "        get_tensor_token(X),\n"
			       "    );\n");
	free(s);
	/* a chain head that fits whole on the next line moves there */
	struct sbuf o = SBUF_INIT;
	int in = rsfmt_chain_head(&o, 1, "let launched = ",
				  "persistent_matmul_module::static_persistent_matmul_kernel(&*A_t, "
				  "&*B_t, &*C_t, M, N, K)");
	assert_int_equal(in, 3);
	assert_string_equal(sb_str(&o), "    let launched =\n"
					"        persistent_matmul_module::static_persistent_matmul_kernel("
					"&*A_t, &*B_t, &*C_t, M, N, K)\n");
	sb_free(&o);
	/* a short one stays on the let line, the chain one level in */
	/* a parenthesised operand too long for the line stays an expression:
	 * no comma after it (that would make a tuple) */
	s = layout(2, "let bid_m: i32 = first_bid_m + ((bid % (GROUP_SIZE_M * ((N + TILE_SIZE_N - 1) / "
		      "TILE_SIZE_N))) % group_size_m);");
	assert_string_equal(s, "        let bid_m: i32 = first_bid_m + (\n"
			       "            (bid % (GROUP_SIZE_M * ((N + TILE_SIZE_N - 1) / TILE_SIZE_N))) "
			       "% group_size_m\n"
			       "        );\n");
	free(s);
	in = rsfmt_chain_head(&o, 1, "let launched = ", "m::k(&*x_t, n)");
	assert_int_equal(in, 2);
	assert_string_equal(sb_str(&o), "    let launched = m::k(&*x_t, n)\n");
	sb_free(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rank_changing_constant_splits_entries),
		cmocka_unit_test(test_constant_branch_without_structure_stays_one_entry),
		cmocka_unit_test(test_views_of_a_pointer_array),
		cmocka_unit_test(test_constant_not_equal_split_fixes_the_equal_side),
		cmocka_unit_test(test_loop_carried_accumulator),
		cmocka_unit_test(test_dtype_test_becomes_const_generic),
		cmocka_unit_test(test_triton_masked_loads),
		cmocka_unit_test(test_bounds_flag_of_the_constants),
		cmocka_unit_test(test_negated_scalars_lower),
		cmocka_unit_test(test_loaded_values_as_indices),
		cmocka_unit_test(test_refusals_name_the_construct_and_place),
		cmocka_unit_test(test_rustfmt_layout),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
