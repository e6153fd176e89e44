# tileport validate agent-d, agent-e, agent-f: every rule fires on its own.
. "$TILEPORT_TOP/tests/integration/lib/validate.sh"

# both ffi.rs copies (OUT and in-tree) so that only the rule under test fires
ffi_sed() { sed -i "$1" "$OUT/ffi.rs" "$OPS/softmax_kernel/ffi.rs"; }
D="agent-d softmax"
control "agent-d" "$D"
contains "PASS"
rule "agent-d.correctness" "FAIL agent-d.correctness" "$D" 'rm "$OUT/reports/correctness.md"'
contains "FAIL: 1 issue(s)"
rule "agent-d.verdict-line" "FAIL agent-d.verdict-line" "$D" 'sed -i "1s/.*/VERDICT: PASS/" "$OUT/reports/correctness.md"'
rule "agent-d.verdict-line CRLF ok" "" "$D" 'sed -i "1s/\$/\r/" "$OUT/reports/correctness.md"'
rule "agent-d.verdict-line BLOCKED without class" "FAIL agent-d.verdict-line" "$D" \
	'sed -i "1s/.*/VERDICT: BLOCKED/" "$OUT/reports/correctness.md"'
rule "agent-d.verdict-line BLOCKED with class" "" "$D" \
	'sed -i "1s/.*/VERDICT: BLOCKED/; s/^fail_class:.*/block_class: env/" "$OUT/reports/correctness.md"'
rule "agent-d.results-table" "FAIL agent-d.results-table" "$D" 'sed -i "s/| Test /| Case /" "$OUT/reports/correctness.md"'
rule "agent-d.pytest-log" "FAIL agent-d.pytest-log" "$D" 'rm "$OUT/correctness_cutile_rs.txt"'
rule "agent-d.pytest-count" "FAIL agent-d.pytest-count" "$D" 'sed -i "s/PASSED/ok/" "$OUT/correctness_cutile_rs.txt"'
rule "agent-d.pytest-header" "FAIL agent-d.pytest-header" "$D" \
	'sed -i "/^platform/d; /^rootdir/d; /^plugins/d" "$OUT/correctness_cutile_rs.txt"'
rule "agent-d.fake-runner" "FAIL agent-d.fake-runner" "$D" 'echo "    if diff > 1e-2:" >>"$OUT/correctness_cutile_rs.txt"'
rule "agent-d.log" "FAIL agent-d.log" "$D" 'rm "$OUT/reports/agent_logs/agent_d.md"'
# the output contract needs OUT/ffi.rs (pipeline.md §3); the in-tree copy's
# contents are still checked, so a broken one fails on its own rule too
rule "agent-d.ffi only in-tree" "FAIL agent-d.ffi" "$D" 'rm "$OUT/ffi.rs"'
contains "OUT/ffi.rs is missing: the output contract reads this copy; copy"
rule "agent-d.ffi only in-tree, broken" "FAIL agent-d.ffi
FAIL agent-d.ffi-no-mangle" "$D" 'rm "$OUT/ffi.rs"; sed -i "s/#\[unsafe(no_mangle)\]/#[no_mangle]/" "$OPS/softmax_kernel/ffi.rs"'
rule "agent-d.ffi" "FAIL agent-d.ffi" "$D" 'rm "$OUT/ffi.rs" "$OPS/softmax_kernel/ffi.rs"'
rule "agent-d.ffi-copy" "WARN agent-d.ffi-copy" "$D" 'echo "// edited" >>"$OUT/ffi.rs"'
rule "agent-d.ffi-tensordesc" "FAIL agent-d.ffi-tensordesc" "$D" 'ffi_sed "s/\*const TensorDesc/*const Desc/g"'
rule "agent-d.ffi-borrow" "FAIL agent-d.ffi-borrow" "$D" 'ffi_sed "s/borrow_tensor/wrap_tensor/g"'
rule "agent-d.ffi-borrow pointer form" "" "$D" 'ffi_sed "s/borrow_tensor::<f16>(x)/DevicePointer::from_cu_deviceptr(x.ptr)/; s/borrow_tensor/wrap_tensor/g"'
rule "agent-d.ffi-forbidden" "FAIL agent-d.ffi-forbidden" "$D" \
	'ffi_sed "s/let rows = x.dim(0);/let rows: i32 = unsafe { std::mem::transmute(x.dim(0)) };/"'
rule "agent-d.ffi-forbidden in a comment" "" "$D" 'ffi_sed "1a // never use mem::forget or transmute here"'
rule "agent-d.ffi-no-mangle" "FAIL agent-d.ffi-no-mangle" "$D" 'ffi_sed "s/#\[unsafe(no_mangle)\]/#[no_mangle]/"'
rule "agent-d.ffi-device" "FAIL agent-d.ffi-device" "$D" 'ffi_sed "s/Device::new(device_id.max(0) as usize)/Device::new(0)/"'
# the shipped ffi.rs files build the device through the macro (pipeline.md §14.4)
rule "agent-d.ffi-device macro" "" "$D" \
	'ffi_sed "s/Device::new(device_id.max(0) as usize)/crate::setup_device_stream!(device_id, raw_stream)/"'
rule "agent-d.symbol" "FAIL agent-d.symbol" "$D" 'rm "$OPS/cutile_kernels/target/release/libcutile_kernels.so"'
rule "agent-d.symbol not ELF" "FAIL agent-d.symbol" "$D" 'echo junk >"$OPS/cutile_kernels/target/release/libcutile_kernels.so"'
rule "agent-d.symbol CUTILE_RS_KERNELS_DIR" "" "$D" \
	'mkdir -p "$C/crate/target/release/deps"; mv "$OPS/cutile_kernels/target/release/libcutile_kernels.so" "$C/crate/target/release/deps/"; export CUTILE_RS_KERNELS_DIR="$C/crate"'
rule "agent-d.cta" "FAIL agent-d.cta" "$D" \
	'jed "$OUT/reference/analysis.json" "d[\"kernel_variants\"][0][\"constants\"].append({\"name\": \"num_ctas\", \"value\": 2})"; ffi_sed "s/num_cta_in_cga/cga/g"'
rule "agent-d.wrapper" "FAIL agent-d.wrapper" "$D" 'rm "$OPS/softmax.py"'
rule "agent-d.wrapper by register_impl" "" "$D" 'mv "$OPS/softmax.py" "$OPS/normalize.py"'
rule "agent-d.wrapper-bind" "FAIL agent-d.wrapper-bind" "$D" 'sed -i "s/_FFI_CDEF/_CDEF/g; s/bind_kernel_function_cffi/bind/g" "$OPS/softmax.py"'
rule "agent-d.wrapper-desc" "FAIL agent-d.wrapper-desc" "$D" 'sed -i "s/make_tensor_desc/pack/g" "$OPS/softmax.py"'
rule "agent-d.wrapper-rc" "FAIL agent-d.wrapper-rc" "$D" 'sed -i "s/check_rc/verify/g" "$OPS/softmax.py"'
rule "agent-d.wrapper-ctypes" "FAIL agent-d.wrapper-ctypes" "$D" 'echo "_FFI_ARGTYPES = []" >>"$OPS/softmax.py"'
rule "agent-d.autotune" "FAIL agent-d.autotune" "$D" 'jed "$OUT/reference/analysis.json" "d[\"autotune_backends\"] = [\"cutile\"]"'
rule "agent-d.registration ops" "FAIL agent-d.registration" "$D" \
	'printf "x = 1\n" >"$WS/src/tilegym/ops/__init__.py"'
rule "agent-d.registration selector" "FAIL agent-d.registration" "$D" \
	'sed -i "s/cutile-rs/rust/; s/cutile_rs/rust/g" "$WS/src/tilegym/backend/selector.py"'
rule "agent-d.registration test" "FAIL agent-d.registration" "$D" \
	'sed -i "s/cutile-rs/rust/g" "$WS/tests/ops/test_softmax.py"'
# without the workspace: the in-tree checks cannot run
rule "agent-d.registration unset" "FAIL agent-d.symbol
FAIL agent-d.wrapper
WARN agent-d.registration" "$D" 'unset TILEGYM_PATH'

E="agent-e softmax"
control "agent-e" "$E"
contains "perf_cutile_rs: perf_sections=2 passed=2 failed=0 skipped=0"
rule "agent-e.performance" "FAIL agent-e.performance" "$E" 'rm "$OUT/reports/performance.md"'
rule "agent-e.verdict-line" "FAIL agent-e.verdict-line" "$E" 'sed -i "1s/.*/VERDICT: BLOCKED/" "$OUT/reports/performance.md"'
rule "agent-e.geomean none" "FAIL agent-e.geomean" "$E" 'sed -i "/^geomean_ratio=/d" "$OUT/reports/performance.md"'
rule "agent-e.geomean two" "FAIL agent-e.geomean" "$E" 'echo "geomean_ratio=1.0300" >>"$OUT/reports/performance.md"'
rule "agent-e.geomean x suffix" "FAIL agent-e.geomean" "$E" 'sed -i "s/^geomean_ratio=1.0204/geomean_ratio=1.02x/" "$OUT/reports/performance.md"'
rule "agent-e.verdict-band" "WARN agent-e.verdict-band" "$E" 'sed -i "s/^geomean_ratio=1.0204/geomean_ratio=1.2000/" "$OUT/reports/performance.md"'
rule "agent-e.verdict-band investigate" "WARN agent-e.verdict-band" "$E" 'sed -i "1s/DONE/INVESTIGATE/" "$OUT/reports/performance.md"'
rule "agent-e.perf-log rs" "FAIL agent-e.perf-log" "$E" 'sed -i "/Performance Test Results/d" "$OUT/perf_cutile_rs.txt"'
rule "agent-e.perf-log baseline" "FAIL agent-e.perf-log" "$E" 'rm "$OUT/baseline_perf_cutile.txt"'
rule "agent-e.log" "FAIL agent-e.log" "$E" 'rm "$OUT/reports/agent_logs/agent_e.md"'

F="agent-f softmax"
control "agent-f" "$F"
rule "agent-f.investigation" "FAIL agent-f.investigation" "$F" 'rm "$OUT"/reports/perf_investigation_*.md'
rule "agent-f.verdict-line" "FAIL agent-f.verdict-line" "$F" 'sed -i "1s/.*/VERDICT: DONE/" "$OUT/reports/perf_investigation_all_shapes.md"'
rule "agent-f.verdict-line second file" "FAIL agent-f.verdict-line" "$F" 'echo "# notes" >"$OUT/reports/perf_investigation_small.md"'
rule "agent-f.log" "FAIL agent-f.log" "$F" 'rm "$OUT/reports/agent_logs/agent_f.md"'
finish
