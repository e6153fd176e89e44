# tileport validate agent-b and entry-pattern: every rule fires on its own.
. "$TILEPORT_TOP/tests/integration/lib/validate.sh"

K='$OUT/kernel.rs'
control "agent-b (D has run: lane guards report INFO)" "agent-b softmax"
contains "VERDICT: COMPILED"
contains "INFO [agent-b.lane]"
control "agent-b before D" "agent-b softmax" pre_d
control "agent-b multi-variant" "agent-b bmm"
rule "agent-b.kernel-rs" "FAIL agent-b.kernel-rs" "agent-b softmax" 'rm "$OUT/kernel.rs"'
contains "VERDICT: FAIL_COMPILE"
rule "agent-b.generated-ir" "FAIL agent-b.generated-ir" "agent-b softmax" 'rm "$OUT/generated/generated.mlir"'
rule "agent-b.generated-ir multi" "FAIL agent-b.generated-ir" "agent-b bmm" 'rm "$BMM"/generated/generated_*.mlir'
rule "agent-b.element-type" "FAIL agent-b.element-type" "agent-b softmax" \
	'sed -i "s/E: ElementType/E: DType/" "$OUT/kernel.rs"'
rule "agent-b.element-type comment" "FAIL agent-b.element-type" "agent-b softmax" \
	'sed -i "s/E: ElementType/E: DType/" "$OUT/kernel.rs"; echo "// E: ElementType" >>"$OUT/kernel.rs"'
rule "agent-b.entry-pattern" "FAIL agent-b.entry-pattern" "agent-b softmax" \
	'sed -i "s/x: &Tensor<E, { \[-1, -1\] }>/x: *mut E/" "$OUT/kernel.rs"'
rule "agent-b.mut-wildcard" "FAIL agent-b.mut-wildcard" "agent-b softmax" \
	'sed -i "s/out: &Tensor</out: \&mut Tensor</" "$OUT/kernel.rs"'
rule "agent-b.log" "FAIL agent-b.log" "agent-b softmax" 'rm "$OUT/reports/agent_logs/agent_b.md"'
rule "agent-b.build-log" "FAIL agent-b.build-log" "agent-b softmax" 'rm "$OUT/reports/build_log.md"'
rule "agent-b.build-log-attempt" "FAIL agent-b.build-log-attempt" "agent-b softmax" \
	'sed -i "s/## Attempt/## Try/" "$OUT/reports/build_log.md"'
rule "agent-b.build-log-snippet" "FAIL agent-b.build-log-snippet" "agent-b softmax" \
	'sed -i "/^\`\`\`rust/,/^\`\`\`$/d" "$OUT/reports/build_log.md"'
rule "agent-b.build-log plain Attempt" "" "agent-b softmax" \
	'sed -i "s/^## Attempt/Attempt/" "$OUT/reports/build_log.md"'
rule "agent-b.lane ffi" "FAIL agent-b.lane" "agent-b softmax" 'pre_d; echo "// host" >"$OUT/ffi.rs"'
rule "agent-b.lane wrapper" "FAIL agent-b.lane" "agent-b softmax" 'pre_d; echo "x = 1" >"$OPS/softmax.py"'
rule "agent-b.lane test" "FAIL agent-b.lane" "agent-b softmax" \
	'pre_d; echo "_backends += [\"cutile-rs\"]" >>"$WS/tests/ops/test_softmax.py"'
rule "agent-b.lane init" "FAIL agent-b.lane" "agent-b softmax" \
	'pre_d; echo "from . import softmax" >>"$OPS/__init__.py"'
rule "agent-b.lane unset TILEGYM_PATH" "WARN agent-b.lane" "agent-b softmax" 'pre_d; unset TILEGYM_PATH'
# the orchestrator says D has run (or the op already had a backend): host files are expected
rule "agent-b.lane --host-written" "" "agent-b softmax --host-written" 'pre_d; echo "// host" >"$OUT/ffi.rs"'
rule "agent-b.layout-gate" "WARN agent-b.layout-gate" "agent-b softmax" \
	'sed -i "s/strides=\[?,1\]/strides=[?,?]/" "$OUT/generated/generated_canon.mlir"'
contains "SEMANTIC_LAYOUT_FAIL"
contains "VERDICT: COMPILED"

# entry-pattern on its own
control "entry-pattern" "entry-pattern softmax"
contains "OK: entry pattern matches structural reference IR"
contains "INFO [entry-pattern.ir-class]"
control "entry-pattern multi-variant" "entry-pattern bmm"
rule "entry-pattern.reference-ir" "FAIL entry-pattern.reference-ir" "entry-pattern softmax" \
	'rm "$OUT/reference/reference.mlir"'
rule "entry-pattern.kernel-rs" "FAIL entry-pattern.kernel-rs" "entry-pattern softmax" 'rm "$OUT/kernel.rs"'
rule "entry-pattern.entries" "FAIL entry-pattern.entries" "entry-pattern softmax" \
	'sed -i "/#\[cutile::entry/d" "$OUT/kernel.rs"'
rule "entry-pattern.entries commented out" "FAIL entry-pattern.entries" "entry-pattern softmax" \
	'sed -i "s|#\[cutile::entry|// #[cutile::entry|" "$OUT/kernel.rs"'
rule "entry-pattern.match ptr for TMA" "FAIL entry-pattern.match" "entry-pattern softmax" \
	'sed -i "s/x: &Tensor<E, { \[-1, -1\] }>/x: *mut E/; s/out: &Tensor<E, { \[-1, -1\] }>/out: *mut E/" "$OUT/kernel.rs"'
contains "FAIL_FIXABLE: entry pattern mismatch"
# a raw pointer to a primitive type beside the tensors (an f32 rstd output)
# is a side output, as the reference reads it; one to E makes the entry mixed
rule "entry-pattern.match TMA with an f32 side output" "" "entry-pattern softmax" \
	'sed -i "s/out: &Tensor<E, { \[-1, -1\] }>,/out: \&Tensor<E, { [-1, -1] }>, rstd: *mut f32,/" "$OUT/kernel.rs"'
contains "tensor, plus a raw pointer to a primitive type"
rule "entry-pattern.match TMA with an E pointer" "FAIL entry-pattern.match" "entry-pattern softmax" \
	'sed -i "s/out: &Tensor<E, { \[-1, -1\] }>,/out: \&Tensor<E, { [-1, -1] }>, rstd: *mut E,/" "$OUT/kernel.rs"'
contains "has mixed parameters"
rule "entry-pattern.match PTR with f32 pointers" "" "entry-pattern softmax" \
	'sed -i "s/load_view_tko/load_ptr_tko/; s/store_view_tko/store_ptr_tko/" "$OUT/reference/reference.mlir"; sed -i "s/x: &Tensor<E, { \[-1, -1\] }>/x: *mut f32/; s/out: &Tensor<E, { \[-1, -1\] }>/out: *mut f32/" "$OUT/kernel.rs"'
# an attribute between #[cutile::entry(...)] and the fn: still the entry
rule "entry-pattern.entries attribute before fn" "" "entry-pattern softmax" \
	'sed -i "/#\[cutile::entry/a\    #[allow(clippy::too_many_arguments)]" "$OUT/kernel.rs"'
contains "entry softmax_kernel: tensor parameters"
rule "entry-pattern.match tensor for PTR" "FAIL entry-pattern.match" "entry-pattern softmax" \
	'sed -i "s/load_view_tko/load_ptr_tko/; s/store_view_tko/store_ptr_tko/" "$OUT/reference/reference.mlir"'
rule "entry-pattern.match mixed IR" "WARN entry-pattern.match" "entry-pattern softmax" \
	'echo "    %p = load_ptr_tko weak %arg0 : tile<ptr<f16>> -> tile<f16>, token" >>"$OUT/reference/reference.mlir"'
rule "entry-pattern.ir-class" "WARN entry-pattern.ir-class" "entry-pattern softmax" \
	'sed -i "s/load_view_tko/load_x/; s/store_view_tko/store_x/" "$OUT/reference/reference.mlir"'
rule "entry-pattern.variant" "FAIL entry-pattern.variant" "entry-pattern bmm" \
	'sed -i "s/static_persistent_bmm_kernel/big_bmm_kernel/" "$BMM/kernel.rs"'
contains "NOT_FOUND: no entry for variant 'static_persistent'"
rule "entry-pattern.variant initials" "" "entry-pattern bmm" \
	'sed -i "s/static_persistent_bmm_kernel/bmm_sp_kernel/" "$BMM/kernel.rs"'
rule "entry-pattern.variant tokens" "" "entry-pattern bmm" \
	'sed -i "s/static_persistent_bmm_kernel/persistent_static_bmm/" "$BMM/kernel.rs"'
# initials only count as a whole token: "transpose" does not contain the variant "sp"
rule "entry-pattern.variant no substring initials" "FAIL entry-pattern.variant" "entry-pattern bmm" \
	'sed -i "s/static_persistent_bmm_kernel/transpose_bmm_kernel/" "$BMM/kernel.rs"'
# supplements never count as structural: a broken one changes nothing
rule "entry-pattern supplements ignored" "" "entry-pattern bmm" \
	'sed -i "s/load_view_tko/load_ptr_tko/" "$BMM/reference/reference_static_persistent_f32.mlir" "$BMM/reference/supplements/reference_non_persistent_f32.mlir"'
rule "entry-pattern named supplement ignored" "" "entry-pattern bmm" \
	'cp "$BMM/reference/reference_static_persistent_f32.mlir" "$BMM/reference/reference_np32.mlir"; sed -i "s/load_view_tko/load_ptr_tko/" "$BMM/reference/reference_np32.mlir"; jed "$BMM/reference/analysis.json" "d[\"kernel_variants\"][0][\"reference_ir_f32_supplement\"] = \"reference/reference_np32.mlir\""'
finish
