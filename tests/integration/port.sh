# tileport translate, analyze and equiv (inventory) on the sample operators and the
# fixture kernels (tests/fixtures/port/kernels: flash attention, a persistent
# matmul with a device function, a MoE gather, Triton softmax and matmul, launch
# arguments built in branches):
# the generated kernel.rs, ffi.rs and wrapper against golden files, rustfmt's
# layout (when rustfmt is installed), a semantic MATCH for every kernel, a
# mutated Rust kernel caught by the check, the exact refusal of each
# hand-written unsupported construct, analysis.json passing its validator.
# TILEPORT_UPDATE_GOLDEN=1 rewrites the golden files.
. "$TILEPORT_TOP/tests/integration/lib/common.sh"

G=$TILEPORT_TOP/tests/fixtures/port/golden
K=$TILEPORT_TOP/tests/fixtures/port/kernels
U=$TILEPORT_TOP/tests/fixtures/port/unsupported
RUSTFMT=$(command -v rustfmt || true)
[ -n "$RUSTFMT" ] || echo "note: rustfmt not installed, layout checks skipped"

golden() { # NAME FILE
	if [ -n "${TILEPORT_UPDATE_GOLDEN:-}" ]; then
		cp "$2" "$G/$1"
		ok "updated $1"
	elif diff -u "$G/$1" "$2" >"$T/diff"; then
		ok "golden $1"
	else
		bad "$1 differs from tests/fixtures/port/golden/$1"
		head -n 40 "$T/diff" | sed 's/^/    | /'
	fi
}

# Every generated file is checked at the end, rustfmt and Python's parser
# each run once over all of them.
RS_FILES= PY_FILES=
rustfmt_ok() { # FILE
	RS_FILES="$RS_FILES $1"
}
python_ok() { # FILE
	PY_FILES="$PY_FILES $1"
}

# ---- the sample operators ----
cd "$WS" || exit 1
for src in src/tilegym/ops/cutile/softmax.py src/tilegym/ops/cutile/silu_and_mul.py \
	src/tilegym/ops/cutile/layer_norm.py src/tilegym/ops/cutile/matmul.py \
	src/tilegym/ops/triton/rms_norm.py; do
	op=$(basename "$src" .py)
	for what in kernel ffi wrapper; do
		ext=rs
		[ "$what" = wrapper ] && ext=py
		if "$TILEPORT" translate "$src" --emit "$what" >"$T/$op.$what.$ext" 2>"$T/err"; then
			ok "$op: translate --emit $what"
		else
			bad "$op: translate --emit $what exited $?"
			sed 's/^/    | /' "$T/err"
		fi
		golden "$op.$what.$ext" "$T/$op.$what.$ext"
	done
	rustfmt_ok "$T/$op.kernel.rs"
	rustfmt_ok "$T/$op.ffi.rs"
	python_ok "$T/$op.wrapper.py"
	"$TILEPORT" inventory "$src" "$T/$op.kernel.rs" >"$T/inv" 2>&1
	assert_eq "$op: inventory exit" "$?" 0
	assert_contains "$op: the semantic check finds no difference" "$T/inv" "0 critical, 0 warn"
	assert_eq "$op: the translation computes what the source does" "$(tail -n 1 "$T/inv")" MATCH
done

# --out writes atomically what stdout shows
"$TILEPORT" translate src/tilegym/ops/cutile/softmax.py --out "$T/out.rs"
assert_eq "translate --out" "$(cmp -s "$T/out.rs" "$T/softmax.kernel.rs" && echo same)" same

# the structural variants and the dtype test, as --json tells them
"$TILEPORT" translate src/tilegym/ops/cutile/layer_norm.py --json >"$T/ln.json"
assert_eq "layer_norm: two entries" \
	"$(json_get "$T/ln.json" "[e['name'] for e in d['kernels'][0]['entries']]")" \
	"['layer_norm_kernel_batched_true', 'layer_norm_kernel_batched_false']"
assert_eq "layer_norm: dispatch conditions" \
	"$(json_get "$T/ln.json" "[e['dispatch'] for e in d['kernels'][0]['entries']]")" \
	"['BATCHED', 'not BATCHED']"
assert_eq "layer_norm: the variant fixes BATCHED" \
	"$(json_get "$T/ln.json" "d['kernels'][0]['entries'][0]['generics']")" "['E', 'TILE_M', 'TILE_N']"
assert_eq "layer_norm: ranks per variant" \
	"$(json_get "$T/ln.json" "[[p.get('rank') for p in e['params'] if p['name'] == 'x_p'] for e in d['kernels'][0]['entries']]")" \
	"[[3], [2]]"
"$TILEPORT" translate src/tilegym/ops/cutile/matmul.py --json >"$T/mm.json"
assert_eq "matmul: one entry, the dtype test a const generic" \
	"$(json_get "$T/mm.json" "[e['generics'] for e in d['kernels'][0]['entries']]")" \
	"[['E', 'TILE_M', 'TILE_N', 'TILE_K', 'E_IS_F32']]"
"$TILEPORT" translate src/tilegym/ops/triton/rms_norm.py --json >"$T/rms.json"
assert_eq "rms_norm: block-pointer shapes and strides leave the entry" \
	"$(json_get "$T/rms.json" "d['kernels'][0]['entries'][0]['params']")" \
	"[{'name': 'y_ptr', 'rank': 2}, {'name': 'x_ptr', 'rank': 2}, {'name': 'w_ptr', 'rank': 1}, {'name': 'n_cols'}, {'name': 'eps'}]"
"$TILEPORT" translate src/tilegym/ops/cutile/silu_and_mul.py --json >"$T/silu.json"
assert_eq "silu_and_mul: raw pointers" \
	"$(json_get "$T/silu.json" "d['kernels'][0]['entries'][0]['pattern']")" ptr

# a float Constant is a runtime f32 parameter; a bool Constant passed as
# check_bounds keeps the check (one entry); scalar max()
"$TILEPORT" translate "$K/scaled_rows.py" --json >"$T/sr.json"
assert_eq "scaled_rows: Constant[float] is an f32 scalar" \
	"$(json_get "$T/sr.json" "[(p['kind'], p['dtype']) for p in d['kernels'][0]['params'] if p['name'] == 'alpha']")" \
	"[('scalar', 'f32')]"
assert_eq "scaled_rows: check_bounds=GUARD is one entry" \
	"$(json_get "$T/sr.json" "[(e['name'], e['generics']) for e in d['kernels'][0]['entries']]")" \
	"[('scaled_rows', ['E', 'BLOCK', 'GUARD'])]"
"$TILEPORT" translate "$K/scaled_rows.py" >"$T/sr.rs"
assert_contains "scaled_rows: ct.maximum of two integers" "$T/sr.rs" "let first: i32 = if"

# a float32 tile stored without astype: the array holds float32
"$TILEPORT" translate "$K/row_stats.py" --json >"$T/rst.json"
assert_eq "row_stats: the stored arrays are float32, the data E" \
	"$(json_get "$T/rst.json" "[(p['name'], p['dtype']) for p in d['kernels'][0]['params'] if p['kind'] == 'array']")" \
	"[('data', 'E'), ('means', 'f32'), ('scaled', 'f32')]"
"$TILEPORT" translate "$K/row_stats.py" >"$T/rst.rs"
assert_contains "row_stats: an if's value carried by a loop is mut" "$T/rst.rs" "let mut acc_1: Tile<f32, { [1, COLS] }> = if HAS_BIAS {"

# np.int32 / torch.float32 inside a kernel; a 0-d tile as a loop bound;
# the host's dtype from an argument that is a call (`x.to(torch.int32)`)
"$TILEPORT" translate "$K/ragged_sum.py" >"$T/rgs.rs"
assert_contains "ragged_sum: a 0-d tile to a scalar" "$T/rgs.rs" "let n_s: i32 = tile_to_scalar(n);"
assert_contains "ragged_sum: lengths are int32" "$T/rgs.rs" "lengths: &Tensor<i32, { [-1] }>,"

"$TILEPORT" translate "$K/two_pass.py" >"$T/tp.rs"
assert_contains "two_pass: a fill value from a Constant" "$T/tp.rs" "let count: Tile<f32, { [1] }> ="
# fold_rows: the semantic check follows a pointer array's tensor view back to
# the array (a view of the wrong pointer stores elsewhere)
sed 's/make_tensor_view(sums_base,/make_tensor_view(scale_base,/' "$K/fold_rows.rs" >"$T/fr_bad.rs"
"$TILEPORT" equiv "$K/fold_rows.py" "$T/fr_bad.rs" >"$T/inv" 2>&1
assert_contains "fold_rows: a view of the wrong pointer is found" "$T/inv" \
	"the Rust stores to scale, which the source does not (when EXACT)"
# gated_rows: the variant where ROWS == 1 is checked against the kernel with
# ROWS = 1, and the Constant D (D_ in the Rust) pairs
"$TILEPORT" equiv "$K/gated_rows.py" "$K/gated_rows.rs" >"$T/inv" 2>&1
assert_contains "gated_rows: the ROWS == 1 variant pairs with its kernel" "$T/inv" \
	"entry gated_rows <-> gated_rows_rows_eq_1: 0 critical, 0 warn"

"$TILEPORT" translate "$K/routed_rows.py" >"$T/rr.rs"
assert_contains "routed_rows: an array read as a tile index is int32" "$T/rr.rs" "route: &Tensor<i32, { [-1] }>,"
assert_contains "routed_rows: an array read as a gather index is int32" "$T/rr.rs" "perm: &Tensor<i32, { [-1] }>,"
assert_contains "routed_rows: arithmetic on the loaded index in int32" "$T/rr.rs" "let w_r: Tile<i32, { [] }> = expert * w_c_e;"
assert_contains "routed_rows: the index a scalar before the load" "$T/rr.rs" "let w_r_1_s: i32 = tile_to_scalar(w_r_1);"

# ---- more kernels: general constructs ----
for f in "$K"/*.py; do
	n=$(basename "$f" .py)
	if "$TILEPORT" translate "$f" >"$T/$n.rs" 2>"$T/err"; then ok "$n translates"; else
		bad "$n: translate exited $?"
		sed 's/^/    | /' "$T/err"
		continue
	fi
	rustfmt_ok "$T/$n.rs"
	# a fixture with its kernel.rs beside it: that is the golden output
	if [ -f "$K/$n.rs" ]; then
		(cd "$K" && "$TILEPORT" translate "$n.py") >"$T/$n.here.rs" 2>&1
		if [ -n "${TILEPORT_UPDATE_GOLDEN:-}" ]; then
			cp "$T/$n.here.rs" "$K/$n.rs"
		elif diff -u "$K/$n.rs" "$T/$n.here.rs" >"$T/diff"; then
			ok "golden kernels/$n.rs"
		else
			bad "$n differs from tests/fixtures/port/kernels/$n.rs"
			head -n 40 "$T/diff" | sed 's/^/    | /'
		fi
	fi
	"$TILEPORT" equiv "$f" "$T/$n.rs" >"$T/inv" 2>&1
	if [ "$n" = matmul_triton ]; then
		# a gap of the translation the check finds: `acc += tl.dot(a, b)` on
		# f32 goes through tf32 in Triton, the Rust has no conversion
		assert_contains "$n: the tf32 conversion the Rust lacks" "$T/inv" \
			"conversion differs: tf32(a) in the source, a_ptr[pid_m, k] in the Rust (when E is f32)"
	else
		assert_eq "$n: the translation computes what the source does" "$(tail -n 1 "$T/inv")" MATCH
	fi
	"$TILEPORT" translate "$f" --emit ffi >"$T/$n.ffi.rs" 2>"$T/err" || bad "$n: --emit ffi"
	rustfmt_ok "$T/$n.ffi.rs"
	# a fixture whose host code is the point (blend_paths: launch
	# arguments built in branches): its ffi.rs, wrapper and launch
	# contract are golden
	if [ -f "$G/$n.wrapper.py" ]; then
		for what in ffi wrapper contract; do
			ext=rs
			[ "$what" = wrapper ] && ext=py
			[ "$what" = contract ] && ext=md
			(cd "$K" && "$TILEPORT" translate "$n.py" --emit "$what") >"$T/$n.here.$what.$ext" 2>&1 ||
				bad "$n: --emit $what"
			golden "$n.$what.$ext" "$T/$n.here.$what.$ext"
		done
	fi
	if "$TILEPORT" translate "$f" --emit wrapper >"$T/$n.py" 2>"$T/err"; then
		python_ok "$T/$n.py"
	else
		bad "$n: --emit wrapper exited $?"
		sed 's/^/    | /' "$T/err"
	fi
done

# ---- the semantic check catches what differs ----
# cutile 0.2.0's scan_sum scans axis 0 whatever its dim says: a scan on
# axis 1 without the transpositions around it, or one turned around
awk '/permute\(v, const_array!\[1, 0\]\)/ { sub(/= permute\(v, const_array!\[1, 0\]\)/, "= v") } { print }' \
	"$T/running_totals.rs" | sed 's/let t: Tile<f32, { \[B, 2\] }>/let t: Tile<f32, { [2, B] }>/; s/let scan: Tile<f32, { \[B, 2\] }>/let scan: Tile<f32, { [2, B] }>/; s/= permute(scan, const_array!\[1, 0\])/= scan/' >"$T/scan_dim.rs"
"$TILEPORT" equiv "$K/running_totals.py" "$T/scan_dim.rs" >"$T/inv" 2>&1
assert_contains "a scan on the axis cutile ignores" "$T/inv" \
	"value of the store to fwd: operation differs: permute(cumsum(permute(v, (1, 0))), (1, 0)) in the source, cumsum(v) in the Rust"
sed 's/reverse::Reverse/reverse::Forward/' "$T/running_totals.rs" >"$T/scan_rev.rs"
"$TILEPORT" equiv "$K/running_totals.py" "$T/scan_rev.rs" >"$T/inv" 2>&1
assert_contains "a scan turned around" "$T/inv" "cumsum_reverse(raw) in the source, cumsum(raw) in the Rust"
sed 's/extract(v, \[at, at_1\])/extract(v, [at_1, at])/' "$T/running_totals.rs" >"$T/ext.rs"
"$TILEPORT" equiv "$K/running_totals.py" "$T/ext.rs" >"$T/inv" 2>&1
assert_contains "another sub-tile" "$T/inv" "MISMATCH"
sed 's/gt_tile(peak, c)/ge_tile(peak, c)/' "$T/guarded_scale.rs" >"$T/branch.rs"
"$TILEPORT" equiv "$K/guarded_scale.py" "$T/branch.rs" >"$T/inv" 2>&1
assert_contains "a branch on a 0-d tile, its comparison changed" "$T/inv" \
	"comparison differs: 1 < peak in the source, 1 <= peak in the Rust"
sed 's/permute(t, const_array!\[2, 1, 0\])/permute(t, const_array![0, 2, 1])/' "$T/swap_axes.rs" >"$T/swap.rs"
"$TILEPORT" equiv "$K/swap_axes.py" "$T/swap.rs" >"$T/inv" 2>&1
assert_contains "t.transpose(0, 2) swaps axes 0 and 2" "$T/inv" \
	"permutation differs: permute(t, (2, 1, 0)) in the source, permute(t, (0, 2, 1)) in the Rust"
assert_contains "a float tl.constexpr is a runtime f32" "$T/scale_rows_triton.rs" "        tiny: f32,"
sed 's/broadcast_scalar(tiny, const_shape!\[\])/broadcast_scalar(0.0f32, const_shape![])/' \
	"$T/scale_rows_triton.rs" >"$T/tiny.rs"
"$TILEPORT" equiv "$K/scale_rows_triton.py" "$T/tiny.rs" >"$T/inv" 2>&1
assert_contains "the float constexpr dropped" "$T/inv" "TINY + mean_sq in the source"
assert_contains "gathered indices are int32" "$T/bucket_fill.rs" "        labels: *mut i32,"
assert_contains "counts typed through .view(-1)" "$T/bucket_fill.rs" "        counts: *mut i32,"
sed 's/let slot: Tile<i32, { \[W\] }> = lab + slot_s_e;/let slot: Tile<i32, { [W] }> = lab;/' "$T/bucket_fill.rs" >"$T/slot.rs"
"$TILEPORT" equiv "$K/bucket_fill.py" "$T/slot.rs" >"$T/inv" 2>&1
assert_contains "the offset of a gathered index dropped" "$T/inv" "MISMATCH"
sed 's/= shri(h, h_c_4);/= shri(h, h_c_1);/' "$T/bit_mix.rs" >"$T/shift.rs"
"$TILEPORT" equiv "$K/bit_mix.py" "$T/shift.rs" >"$T/inv" 2>&1
assert_contains "a shift by another amount" "$T/inv" "constant differs: 17 in the source, 7 in the Rust"

sed 's/padding::NegInf/padding::Zero/; s/reduce_sum(num, 1i32)/reduce_max(num, 1i32)/' \
	"$T/softmax.kernel.rs" >"$T/mutated.rs"
"$TILEPORT" inventory src/tilegym/ops/cutile/softmax.py "$T/mutated.rs" >"$T/inv" 2>&1
assert_eq "mutated: inventory exit" "$?" 1
assert_contains "mutated: padding" "$T/inv" \
	"CRITICAL [sem.padding] src/tilegym/ops/cutile/softmax.py:25 $T/mutated.rs:23: value of the store to output: padding differs: NEG_INF in the source, ZERO in the Rust"
assert_contains "mutated: reduce kind" "$T/inv" \
	"CRITICAL [sem.value] src/tilegym/ops/cutile/softmax.py:30 $T/mutated.rs:38: value of the store to output: reduction differs: sum(num, axis=1) in the source, max(num, axis=1) in the Rust"
assert_contains "mutated: verdict" "$T/inv" "MISMATCH"
grep -v 'convert_tile(x)' "$T/softmax.kernel.rs" >"$T/dropped.rs"
"$TILEPORT" equiv src/tilegym/ops/cutile/softmax.py "$T/dropped.rs" --json >"$T/inv.json"
assert_eq "dropped convert: a critical difference with both values" \
	"$(json_get "$T/inv.json" "[(f['rule'], f['severity'], f['source_value'], f['rust_value']) for f in d['entries'][0]['findings'] if f['severity'] == 'CRITICAL']")" \
	"[('sem.value', 'CRITICAL', 'E(y)', '(num) / (den_red)')]"

# ---- a tile extent computed from Constants (tests/fixtures/port/derived) ----
PF=$TILEPORT_TOP/tests/fixtures/port/derived/src/tilegym/ops/cutile/pair_fold.py
"$TILEPORT" translate "$PF" >"$T/pf.rs" 2>"$T/err"
assert_eq "pair_fold: translates" "$?" 0
assert_contains "pair_fold: PAIR * WIDTH is a const generic of its own, named for what it is" "$T/pf.rs" \
	"pub unsafe fn pair_fold_kernel<E: ElementType, const WIDTH: i32, const WIDTH_TIMES_2: i32>("
assert_contains "pair_fold: in the tile's type" "$T/pf.rs" "let both: Tile<E, { [1, WIDTH_TIMES_2] }> ="
assert_contains "pair_fold: the kernel says where it comes from" "$T/pf.rs" \
	"// R6: WIDTH_TIMES_2 is 2 * WIDTH, which the launcher computes"
"$TILEPORT" translate "$PF" --emit ffi >"$T/pf.ffi.rs" 2>"$T/err"
assert_eq "pair_fold: --emit ffi" "$?" 0
assert_contains "pair_fold: the launcher computes it from the Constant it is given" "$T/pf.ffi.rs" \
	"(2 * width).to_string()"
"$TILEPORT" translate "$PF" --emit contract >"$T/pf.contract" 2>&1
assert_contains "pair_fold: the contract B hands D says so" "$T/pf.contract" \
	"generics: E (the dtype string), WIDTH, WIDTH_TIMES_2 (2 * WIDTH, which the launcher computes)"
if grep -q "fn cutile_pair_fold(.*width_times" "$T/pf.ffi.rs"; then bad "pair_fold: the C ABI grew"; else
	ok "pair_fold: the C ABI takes WIDTH only"; fi
rustfmt_ok "$T/pf.rs"
rustfmt_ok "$T/pf.ffi.rs"
"$TILEPORT" equiv "$PF" "$T/pf.rs" --ffi "$T/pf.ffi.rs" >"$T/inv" 2>&1
assert_eq "pair_fold: with the launcher, the same computation" "$(tail -n 1 "$T/inv")" MATCH
"$TILEPORT" equiv "$PF" "$T/pf.rs" --no-ffi >"$T/inv" 2>&1
assert_contains "pair_fold: without it, the extent is unknown" "$T/inv" \
	"tile shape differs: (1, 2*WIDTH) in the source, (1, WIDTH_TIMES_2) in the Rust"
sed 's/(2 \* width)/(4 * width)/' "$T/pf.ffi.rs" >"$T/pf4.ffi.rs"
"$TILEPORT" equiv "$PF" "$T/pf.rs" --ffi "$T/pf4.ffi.rs" >"$T/inv" 2>&1
assert_contains "pair_fold: a launcher computing something else is caught" "$T/inv" \
	"tile shape differs: (1, 2*WIDTH) in the source, (1, 4*WIDTH) in the Rust"

# ---- refusals: FILE:LINE:COL: unsupported: <construct>, exit 1 ----
cd "$U" || exit 1
refuse() { # FILE WANT-STDERR [WANT-EXIT]
	"$TILEPORT" translate "$1" >"$T/out" 2>"$T/err"
	rc=$?
	assert_eq "$1: exit" "$rc" "${3:-1}"
	assert_eq "$1: message" "$(cat "$T/err")" "$2"
	assert_eq "$1: nothing on stdout" "$(wc -c <"$T/out")" 0
}
refuse while_loop.py "while_loop.py:7:5: unsupported: while loop"
refuse tile_ternary.py "tile_ternary.py:7:9: unsupported: a conditional expression over tiles (use where)"
refuse shape_arith.py \
	"shape_arith.py:6:46: unsupported: const arithmetic in a tile shape beyond + - * / % << >> of int Constants (\`(T | 16)\`; coding rule 6): give it its own Constant"
refuse atomic.py "atomic.py:7:5: unsupported: ct.atomic_add()"
refuse loop_escape.py "loop_escape.py:6:5: unsupported: \`last\` is defined inside the loop and used after it"
refuse float_min.py "float_min.py:6:9: unsupported: minimum of two float scalars"
refuse block_offset.py \
	"block_offset.py:8:75: unsupported: a block-pointer offset that is not a multiple of its block size (the strided view does not become a partition view; keep the pointer form)"
# a loaded value times a float literal is no index, whatever the array holds
refuse float_index.py "float_index.py:7:36: unsupported: a tile index that is not an integer scalar"
refuse store_then_gather.py \
	"store_then_gather.py:8:12: unsupported: array \`A\` written through a tile view and accessed through pointers where both run (cutile orders a tile view and pointers by no common token)"
refuse pointer_view_padding.py \
	"pointer_view_padding.py:7:12: unsupported: a view load of the pointer array \`A\` with NEG_INF padding (cutile 0.2.0 partitions a tensor view it builds with zero padding, or none in order)"
refuse syntax_error.py "syntax_error.py:6:5: expected an expression" 2
"$TILEPORT" inventory while_loop.py "$T/softmax.kernel.rs" >"$T/out" 2>"$T/err"
assert_eq "inventory of a source the check cannot follow: exit" "$?" 1
assert_contains "inventory of a source the check cannot follow: where" "$T/out" \
	"CRITICAL [sem.unread] while_loop.py:7: the check cannot follow the source here: a while loop"

# ---- usage ----
"$TILEPORT" translate >/dev/null 2>&1
assert_eq "translate without a file" "$?" 2
"$TILEPORT" translate "$WS/src/tilegym/ops/cutile/softmax.py" --emit bogus >/dev/null 2>&1
assert_eq "translate --emit bogus" "$?" 2
"$TILEPORT" translate "$T/none.py" >/dev/null 2>"$T/err"
assert_eq "translate a missing file" "$?" 2
"$TILEPORT" translate "$WS/src/tilegym/ops/cutile/softmax.py" --kernel nope >/dev/null 2>&1
assert_eq "translate --kernel unknown" "$?" 2
"$TILEPORT" inventory "$WS/src/tilegym/ops/cutile/softmax.py" >/dev/null 2>&1
assert_eq "inventory with one file" "$?" 2

# ---- analyze: analysis.json passes its validator ----
for op in softmax silu_and_mul layer_norm matmul rms_norm; do
	"$TILEPORT" analyze "$op" --workspace "$WS" --out "$T/aout" >"$T/an" 2>&1
	assert_eq "analyze $op" "$?" 0
	assert_contains "analyze $op: the path it wrote" "$T/an" "$T/aout/$op/reference/analysis.json"
	CUTILE_KERNEL_OUT_ROOT="$T/aout" "$TILEPORT" validate analysis "$op" \
		--deferred reference-ir,perf-log >"$T/val" 2>&1
	assert_eq "validate analysis $op" "$?" 0
	assert_contains "$op: analysis passes" "$T/val" "PASS: analysis.json has all required fields"
done
A=$T/aout/layer_norm/reference/analysis.json
assert_eq "layer_norm: variants" \
	"$(json_get "$A" "[(v['variant_name'], v['reference_ir']) for v in d['kernel_variants']]")" \
	"[('batched_true', 'reference/reference_batched_true.mlir'), ('batched_false', 'reference/reference_batched_false.mlir')]"
assert_eq "layer_norm: the host's Constant values" \
	"$(json_get "$A" "[c['value'] for c in d['kernel_variants'][0]['constants']]")" \
	"['tile_m = max(1, min(16, 4096 // tile_n))', 'tile_n = next_power_of_2(n_cols)', 'batched = x.dim() == 3']"
assert_eq "layer_norm: perf configs" "$(json_get "$A" "d['test_perf_configs']['shape']['shapes']")" \
	"[[4096, 4096], [8, 2048, 1024]]"
assert_eq "layer_norm: tolerances" "$(json_get "$A" "d['correctness_tolerance']['bf16']")" \
	"{'atol': 0.05, 'rtol': 0.05}"
assert_eq "offline: what waits for the toolchain" "$(json_get "$A" "d['deferred']")" \
	"['reference-ir', 'perf-log']"
# a tuner's sweep written as loops (tests/fixtures/port/tuned)
cp -R "$WS" "$T/tws" && cp -R "$TILEPORT_TOP/tests/fixtures/port/tuned/." "$T/tws/"
"$TILEPORT" analyze lane_sweep --workspace "$T/tws" --print >"$T/ls.json" 2>"$T/ls.err"
assert_eq "analyze lane_sweep" "$?" 0
assert_eq "a sweep of loops over local names, a range and tuple targets runs; one over what is not a literal is left out" \
	"$(json_get "$T/ls.json" '(d["launch_path"], len(d["autotune_configs"]), d["autotune_configs"][0], d["autotune_configs"][7], d["autotune_configs"][8])')" \
	"('autotune', 9, {'LANES': 64, 'STAGES': 2, 'num_warps': 4, 'TAG': 'narrow'}, {'LANES': 128, 'STAGES': 3, 'num_warps': 8, 'TAG': 'wide'}, {'LANES': 32, 'STAGES': 1})"
# the same sweep over ranges of 300: the first 256 configurations
sed -e 's/lane_sweep/lane_wide/g' -e 's/lanes = (64, 128)/lanes = range(300)/' \
	-e 's/stages = range(2, 4)/stages = range(300)/' "$T/tws/src/tilegym/ops/cutile/lane_sweep.py" \
	>"$T/tws/src/tilegym/ops/cutile/lane_wide.py"
sed 's/lane_sweep/lane_wide/g' "$T/tws/tests/ops/test_lane_sweep.py" >"$T/tws/tests/ops/test_lane_wide.py"
"$TILEPORT" analyze lane_wide --workspace "$T/tws" --print >"$T/lw.json" 2>"$T/lw.err"
assert_eq "a sweep of 180000: the first 256 configurations" \
	"$(json_get "$T/lw.json" '(len(d["autotune_configs"]), d["autotune_configs"][-1])')" \
	"(256, {'LANES': 0, 'STAGES': 127, 'num_warps': 8, 'TAG': 'wide'})"
A=$T/aout/rms_norm/reference/analysis.json
assert_eq "rms_norm: the Triton source" "$(json_get "$A" "(d['source'], d['reference_backend'])")" \
	"('src/tilegym/ops/triton/rms_norm.py', 'triton')"
"$TILEPORT" analyze nope --workspace "$WS" --print >/dev/null 2>"$T/err"
assert_eq "analyze an unknown op" "$?" 2

# ---- the layout of every generated file ----
if [ -n "$RUSTFMT" ]; then
	# shellcheck disable=SC2086
	if "$RUSTFMT" --edition 2024 --check $RS_FILES >"$T/fmt" 2>&1; then
		ok "$(echo $RS_FILES | wc -w) Rust files in rustfmt's layout"
	else
		bad "rustfmt --check"
		head -n 40 "$T/fmt" | sed 's/^/    | /'
	fi
fi
# shellcheck disable=SC2086
if python3 -c 'import ast, sys
for f in sys.argv[1:]:
    ast.parse(open(f).read(), f)' $PY_FILES 2>"$T/py"; then
	ok "$(echo $PY_FILES | wc -w) wrappers are Python"
else
	bad "a wrapper does not parse"
	sed 's/^/    | /' "$T/py"
fi

echo "$checks checks, $failures failure(s)"
[ "$failures" -eq 0 ]
