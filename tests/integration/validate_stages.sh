# tileport validate stage A..F (what the orchestrator's gate runs) and the
# offline mode: checks about a deferred toolchain step report DEFERRED,
# every other check still applies.
. "$TILEPORT_TOP/tests/integration/lib/validate.sh"

for s in A B C D E F; do
	control "stage $s" "stage $s softmax"
	contains "stage $s: PASS (exit 0)"
done
fresh; expect "stage A runs ir on every structural IR" "" 0 stage A bmm
contains "validate ir $BMM/reference/reference_non_persistent.mlir bmm"
contains "validate ir $BMM/reference/reference_static_persistent.mlir bmm"
grep -q "reference_static_persistent_f32" "$VT_TMP/out.txt" && fail "a supplement was validated as structural"
fresh; expect "stage A perf logs" "" 0 stage A softmax
contains "validate perf-log $OUT/baseline_perf_cutile.txt baseline_perf_cutile"
contains "validate perf-log $OUT/baseline_perf_triton_tileir.txt baseline_perf_triton_tileir"
# an empty baseline log is not validated by A (it only validates what it wrote)
rule "stage A skips empty logs" "" "stage A softmax" ': >"$OUT/baseline_perf_triton_tileir.txt"'
grep -q "baseline_perf_triton_tileir" "$VT_TMP/out.txt" && fail "stage A validated an empty log"
fresh; rm "$OUT/reference/reference.mlir"
expect "stage A: no IR (analysis names it too)" "FAIL analysis.reference-ir
FAIL ir.file" 1 stage A softmax
contains "exit=1"
contains "stage A: FAIL (exit 1)"
rule "stage E" "FAIL agent-e.perf-log
FAIL perf-log.sections" "stage E softmax" 'sed -i "/Performance Test Results/d" "$OUT/perf_cutile_rs.txt"'

# ---- offline: A deferred its IR dump and its baselines
offline_a='rm "$OUT/reference/reference.mlir" "$OUT"/baseline_perf*.txt'
fresh; eval "$offline_a"
expect "offline A without --deferred" "FAIL analysis.reference-ir
FAIL ir.file" 1 stage A softmax
fresh; eval "$offline_a"
expect "offline A" "DEFERRED analysis.reference-ir
DEFERRED ir.file" 0 stage A softmax --deferred reference-ir,perf-log
contains "DEFERRED: 1 check(s) wait for reference-ir"
contains "stage A: DEFERRED (exit 0)"
fresh; eval "$offline_a"
TILEPORT_DEFERRED="deferred: reference-ir perf-log"
export TILEPORT_DEFERRED
expect "offline A via TILEPORT_DEFERRED" "DEFERRED analysis.reference-ir
DEFERRED ir.file" 0 stage A softmax
unset TILEPORT_DEFERRED
# every other check still applies
fresh; eval "$offline_a"; jed "$OUT/reference/analysis.json" "del d['pattern']"
expect "offline A still checks the rest" "DEFERRED analysis.reference-ir
DEFERRED ir.file
FAIL analysis.required" 1 stage A softmax --deferred reference-ir

# ---- offline B: no generated IR, no build
offline_b='pre_d; rm "$OUT"/generated/*.mlir "$OUT/reports/build_log.md"'
fresh; eval "$offline_b"
expect "offline B" "DEFERRED agent-b.build-log
DEFERRED agent-b.generated-ir" 0 agent-b softmax --deferred generated-ir,cargo-build,layout-gate
contains "VERDICT: DEFERRED"
fresh; eval "$offline_b"; sed -i "s/E: ElementType/E: DType/" "$OUT/kernel.rs"
expect "offline B still checks the kernel" "DEFERRED agent-b.build-log
DEFERRED agent-b.generated-ir
FAIL agent-b.element-type" 1 agent-b softmax --deferred generated-ir,cargo-build
contains "VERDICT: FAIL_COMPILE"
fresh; sed -i "s/strides=\[?,1\]/strides=[?,?]/" "$OUT/generated/generated_canon.mlir"
expect "layout gate deferred" "DEFERRED agent-b.layout-gate" 0 agent-b softmax --deferred layout-gate

# ---- offline D: no cdylib, no pytest
offline_d='rm "$OPS/cutile_kernels/target/release/libcutile_kernels.so" "$OUT/correctness_cutile_rs.txt"; sed -i "1s/.*/VERDICT: DEFERRED/; /^| Test /d" "$OUT/reports/correctness.md"'
fresh; eval "$offline_d"
expect "offline D" "DEFERRED agent-d.pytest-log
DEFERRED agent-d.results-table
DEFERRED agent-d.symbol
DEFERRED agent-d.verdict-line" 0 agent-d softmax --deferred cargo-build,pytest
fresh; eval "$offline_d"
expect "offline D, pytest not deferred" "DEFERRED agent-d.symbol
FAIL agent-d.pytest-log
FAIL agent-d.results-table
FAIL agent-d.verdict-line" 1 agent-d softmax --deferred cargo-build
fresh; eval "$offline_d"; ffi_bad='s/#\[unsafe(no_mangle)\]//'; sed -i "$ffi_bad" "$OUT/ffi.rs" "$OPS/softmax_kernel/ffi.rs"
expect "offline D still checks ffi.rs" "DEFERRED agent-d.pytest-log
DEFERRED agent-d.results-table
DEFERRED agent-d.symbol
DEFERRED agent-d.verdict-line
FAIL agent-d.ffi-no-mangle" 1 agent-d softmax --deferred cargo-build,pytest

# ---- an offline-complete run against the final contract
offline_all='rm "$OUT/reference/reference.mlir" "$OUT"/generated/*.mlir "$OUT"/baseline_perf*.txt "$OUT"/perf_cutile_*.txt "$OUT/reports/performance.md" "$OUT/reports/agent_logs/agent_e.md" "$OPS/cutile_kernels/target/release/libcutile_kernels.so" "$OUT/correctness_cutile_rs.txt"; sed -i "1s/.*/VERDICT: DEFERRED/" "$OUT/reports/correctness.md"'
fresh; eval "$offline_all"
run kernel softmax --deferred reference-ir,generated-ir,cargo-build,pytest,perf-log
[ "$RC" = 0 ] || fail "offline kernel: exit $RC"
echo "$FIRED" | grep -q FAIL && fail "offline kernel: a FAIL despite deferral: $FIRED"
contains "Result: 0 fail, 0 warn"
"$TILEPORT" validate kernel softmax --deferred reference-ir,generated-ir,cargo-build,pytest,perf-log --json >"$VT_TMP/k.json"
"$PY" - "$VT_TMP/k.json" <<'PY' || fail "offline kernel JSON"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["verdict"] == "DEFERRED" and j["exit_code"] == 0, j["verdict"]
assert set(j["deferred_hit"]) == {"reference-ir", "generated-ir", "cargo-build", "perf-log"}, j["deferred_hit"]
for f in j["findings"]:
    if f["severity"] == "DEFERRED":
        assert f["step"] in j["deferred"], f
PY
# online again: the same run fails until the toolchain steps are done
run kernel softmax
[ "$RC" = 1 ] || fail "online re-check of the offline run should fail, got $RC"

# bad step names are usage errors
fresh
"$TILEPORT" validate agent-b softmax --deferred cargo >/dev/null 2>"$VT_TMP/err.txt"
[ $? = 2 ] || fail "--deferred cargo: expected exit 2"
grep -q "unknown deferred step 'cargo'" "$VT_TMP/err.txt" || fail "bad step not named"
TILEPORT_DEFERRED=bogus "$TILEPORT" validate agent-b softmax >/dev/null 2>&1
[ $? = 2 ] || fail "TILEPORT_DEFERRED=bogus: expected exit 2"
finish
