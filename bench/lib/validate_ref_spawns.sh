#!/bin/sh
# The processes validate_kernel.sh (reference, 571 lines) starts for its 19
# checks, per pipeline.md §3, run on a real run directory: the comparison
# baseline of bench/validate.sh. Needs TILEGYM_PATH, CUTILE_KERNEL_OUT_ROOT
# and PY (a python3 binary). Exit status is not meaningful beyond "ran".
k=$1
OUT="$CUTILE_KERNEL_OUT_ROOT/$k"
TG=$TILEGYM_PATH
KD=${CUTILE_RS_KERNELS_DIR:-$TG/src/tilegym/ops/cutile_rs/cutile_kernels}
OPS=$TG/src/tilegym/ops/cutile_rs
here=$(dirname "$0")
[ -d "$OUT" ] || exit 1
for f in kernel.rs ffi.rs reference/analysis.json; do [ -s "$OUT/$f" ]; done
# 3: variant count from analysis.json
nv=$("$PY" -c 'import json,sys; print(len(json.load(open(sys.argv[1])).get("kernel_variants") or []))' "$OUT/reference/analysis.json")
[ "$nv" -gt 1 ] || { [ -s "$OUT/reference/reference.mlir" ] && [ -s "$OUT/generated/generated.mlir" ]; }
# 4-6: files (shell tests only)
for f in generated/diff_report.md reports/correctness.md reports/performance.md; do [ -s "$OUT/$f" ]; done
ls "$OUT"/reports/perf_investigation_*.md >/dev/null 2>&1
# 7: five perf logs through validate_perf_log.sh (bash + 4 grep -c each)
for l in baseline_perf_cutile perf_cutile_rs baseline_perf_triton_tileir baseline_perf perf_cutile_py; do
	bash "$here/validate_ref_perf_log.sh" "$OUT/$l.txt" "$l" >/dev/null
done
# 8-12: kernel.rs and ffi.rs greps
grep -q 'E: ElementType' "$OUT/kernel.rs"
grep -nE '\*mut (f16|f32|bf16)' "$OUT/kernel.rs" | grep -vE '\*mut (f16|f32|bf16)[,>]' | grep -vE 'rstd|mean|var|inv_std'
grep -qE '"f16"|"f32"|"bf16"|dtype' "$OUT/ffi.rs"
FFI_FN=$(grep -oE 'pub (unsafe )?extern "C" fn [A-Za-z0-9_]+\(' "$OUT/ffi.rs" | head -n 1 | sed -E 's/.*fn ([A-Za-z0-9_]+)\(/\1/')
grep -q '\*const TensorDesc' "$OUT/ffi.rs"
grep -qE 'borrow_tensor|DevicePointer::from_cu_deviceptr' "$OUT/ffi.rs"
grep -qE 'from_raw_parts|mem::forget|transmute' "$OUT/ffi.rs"
grep -qF '#[unsafe(no_mangle)]' "$OUT/ffi.rs"
# 13-14: crate
base=$(echo "$k" | sed 's/_kernel$//')
grep -qE "mod $base|include!\(.*${base}_kernel/(kernel|ffi)\.rs" "$KD/src/lib.rs"
grep -qE 'cutile *= *"=0\.2\.0"' "$KD/Cargo.toml"
grep -qE 'path *=' "$KD/Cargo.toml"
# 15: the cdylib and its symbol
so=$(find "$KD/target/release" "$OPS" -name libcutile_kernels.so 2>/dev/null | head -n 1)
nm -D "$so" | grep -q " T $FFI_FN\$"
[ -f "$OPS/ffi_util.rs" ] && [ -f "$OUT/${k}_pipeline.rs" ]
# 18: wrapper lookup, registration, AST scan, package import
wrapper=$(grep -l "$FFI_FN" "$OPS"/*.py | head -n 1)
mod=$(basename "$wrapper" .py)
grep -qE 'register_impl.*cutile-rs' "$wrapper"
"$PY" -c 'import ast,sys; ast.parse(open(sys.argv[1]).read()); print("live")' "$wrapper" >/dev/null
grep -q "from \. import $mod" "$OPS/__init__.py"
# 19: the test file
op=$(grep -oE 'register_impl\("[^"]+"' "$wrapper" | head -n 1 | sed -E 's/register_impl\("//; s/"$//')
grep -q 'cutile.rs\|cutile-rs' "$TG/tests/ops/test_$op.py"
