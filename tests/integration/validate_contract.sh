# The final output contract on the complete fixture run, then with each of
# its files (run directory and workspace) removed in turn. Every file of the
# fixtures must appear in the table below, so a new fixture file needs a
# decision about what its absence means.
. "$TILEPORT_TOP/tests/integration/lib/validate.sh"

# path (relative to the case dir) -> the findings its removal produces
expected() {
	case "$1" in
	out/softmax/kernel.rs | out/softmax/reference/analysis.json | out/softmax/ffi.rs) echo "FAIL kernel.files" ;;
	out/softmax/reference/reference.mlir | out/softmax/generated/generated.mlir) echo "FAIL kernel.ir" ;;
	out/softmax/generated/diff_report.md) echo "FAIL kernel.diff-report" ;;
	out/softmax/reports/correctness.md | out/softmax/reports/performance.md) echo "FAIL kernel.reports" ;;
	out/softmax/reports/agent_logs/agent_e.md) echo "FAIL kernel.agent-logs" ;;
	out/softmax/baseline_perf_cutile.txt | out/softmax/perf_cutile_rs.txt) echo "FAIL kernel.perf-logs" ;;
	out/softmax/baseline_perf.txt | out/softmax/baseline_perf_triton_tileir.txt | \
		out/softmax/perf_cutile_py.txt) echo "WARN kernel.perf-logs" ;;
	out/softmax/softmax_pipeline.rs) echo "WARN kernel.pipeline-rs" ;;
	ws/src/tilegym/ops/cutile_rs/__init__.py) echo "FAIL kernel.wrapper-import" ;;
	ws/src/tilegym/ops/cutile_rs/cutile_kernels/Cargo.toml) echo "FAIL kernel.cargo-toml" ;;
	ws/src/tilegym/ops/cutile_rs/cutile_kernels/src/lib.rs) echo "FAIL kernel.lib-rs" ;;
	ws/src/tilegym/ops/cutile_rs/cutile_kernels/target/release/libcutile_kernels.so) echo "FAIL kernel.symbol" ;;
	ws/src/tilegym/ops/cutile_rs/ffi_util.rs) echo "WARN kernel.ffi-util" ;;
	ws/src/tilegym/ops/cutile_rs/softmax.py) echo "FAIL kernel.wrapper" ;;
	ws/tests/ops/test_softmax.py) echo "FAIL kernel.test-file" ;;
	# not part of the contract, or covered by a second copy (agent logs in
	# reports/ and reports/agent_logs/; the in-tree ffi.rs by OUT's)
	out/softmax/Cargo.toml | out/softmax/src/lib.rs | out/softmax/correctness_cutile_rs.txt | \
		out/softmax/generated/generated_canon.mlir | \
		out/softmax/generated/layout_gate/* | out/softmax/reports/build_log.md | \
		out/softmax/reports/agent_?.md | out/softmax/reports/agent_logs/agent_[abcdf].md | \
		out/softmax/reports/perf_investigation_all_shapes.md | \
		ws/src/tilegym/backend/selector.py | ws/src/tilegym/ops/__init__.py | \
		ws/src/tilegym/ops/cutile_rs/softmax_kernel/*.rs) echo "" ;;
	*) echo "UNLISTED" ;;
	esac
}

fresh
expect "complete run" "" 0 kernel softmax
contains "Result: 0 fail, 0 warn"
files=$(cd "$C" && find out/softmax ws -type f | sort)
n=0
for f in $files; do
	want=$(expected "$f")
	if [ "$want" = UNLISTED ]; then
		fail "fixture file $f is not in the contract table"
		continue
	fi
	fresh
	rm "$C/$f"
	rc=0
	case "$want" in FAIL\ *) rc=1 ;; esac
	expect "without $f" "$want" "$rc" kernel softmax
	# the finding names the missing file (or the directory it is searched in)
	if [ -n "$want" ] && ! grep -q "$(basename "$f" | sed 's/\./\\./g')\|cutile_kernels\|ops/cutile_rs\|tests/ops" "$VT_TMP/out.txt"; then
		fail "without $f: no finding names it"
	fi
	n=$((n + 1))
done
[ "$n" -ge 40 ] || fail "only $n fixture files were removed"
finish
