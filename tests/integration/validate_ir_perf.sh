# tileport validate ir / perf-log: every rule fires on its own, controls pass.
. "$TILEPORT_TOP/tests/integration/lib/validate.sh"

IR='ir $OUT/reference/reference.mlir softmax'
ir() { eval "echo $IR"; }
r() { # name want mutation [kernel]
	fresh
	eval "$3" || { fail "$1: mutation"; return; }
	rc=0; case "$2" in FAIL\ *) rc=1 ;; esac
	expect "$1" "$2" "$rc" ir "$OUT/reference/reference.mlir" "${4:-softmax}"
}

fresh; expect "ir control" "" 0 ir "$OUT/reference/reference.mlir" softmax
contains "PASS: Valid MLIR IR matched entry @softmax_kernel (33 lines, 6 key ops)"
# Key ops are ops, not lines that name one (%reduce_lhs, %reshape = reshape
# %reduce ...): validate ir and irdiff's report count the same, on both sides.
S=$TILEPORT_TOP/samples/ir
for side in reference generated; do
	"$TILEPORT" validate ir "$S/softmax_$side.mlir" softmax >"$VT_TMP/out.txt" 2>&1
	contains "(38 lines, 6 key ops)"
done
"$TILEPORT" irdiff "$S/softmax_reference.mlir" "$S/softmax_generated.mlir" --report "$VT_TMP/rep.md" >/dev/null
grep -q '^| reference | yes | @softmax_kernel | present | 6 |$' "$VT_TMP/rep.md" &&
	grep -q '^| generated | yes | @softmax_kernel_5f2a9c | present | 6 |$' "$VT_TMP/rep.md" ||
	fail "irdiff --report counts other key ops: $(grep '^| [rg]' "$VT_TMP/rep.md")"
fresh; expect "ir generated control" "" 0 ir "$OUT/generated/generated.mlir" softmax
contains "matched entry @softmax_kernel_8f3a2c"
r "ir.file missing" "FAIL ir.file" 'rm "$OUT/reference/reference.mlir"'
contains "FAIL: 1 error(s) in IR validation"
r "ir.file empty" "FAIL ir.file" ': >"$OUT/reference/reference.mlir"'
r "ir.module" "FAIL ir.module" 'sed -i "s/cuda_tile.module/module/" "$OUT/reference/reference.mlir"'
r "ir.entry" "FAIL ir.entry" ':' nosuchkernel
contains "found entry @softmax_kernel"
# the name may sit anywhere inside the entry symbol (Triton mangling, cutile-rs hashes)
r "ir.entry substring" "" ':' max_kern
r "ir.hints" "WARN ir.hints" 'sed -i "s/optimization_hints/opt_hints/g" "$OUT/reference/reference.mlir"'
r "ir.python-level" "FAIL ir.python-level" 'echo "  %9 = typed_const 1" >>"$OUT/reference/reference.mlir"'
r "ir.python-level ptr" "FAIL ir.python-level" 'echo "x: Tile[PointerTy" >>"$OUT/reference/reference.mlir"'
r "ir.key-ops" "WARN ir.key-ops" 'printf "cuda_tile.module @k {\n  entry @softmax_kernel() optimization_hints=<sm_100 = {}> {\n    return\n  }\n}\n" >"$OUT/reference/reference.mlir"'
contains "PASS: Valid MLIR IR matched entry @softmax_kernel (5 lines, 0 key ops)"

# perf-log
p() { # name want mutation [label]
	fresh
	eval "$3" || { fail "$1: mutation"; return; }
	rc=0; case "$2" in FAIL\ *) rc=1 ;; esac
	if [ -n "${4:-}" ]; then
		expect "$1" "$2" "$rc" perf-log "$OUT/perf_cutile_rs.txt" "$4"
	else
		expect "$1" "$2" "$rc" perf-log "$OUT/perf_cutile_rs.txt"
	fi
}
p "perf-log control" "" ':' perf_cutile_rs
contains "perf_cutile_rs: perf_sections=2 passed=2 failed=0 skipped=0"
contains "PASS: perf_cutile_rs: 2 perf records for 2 passed tests"
p "perf-log default label" "" ':'
contains "PASS: perf_cutile_rs: 2 perf records"
p "perf-log label" "" ':' mylabel
contains "PASS: mylabel: 2 perf records"
p "perf-log.file missing" "FAIL perf-log.file" 'rm "$OUT/perf_cutile_rs.txt"'
p "perf-log.file empty" "FAIL perf-log.file" ': >"$OUT/perf_cutile_rs.txt"'
p "perf-log.sections" "FAIL perf-log.sections" 'sed -i "/Performance Test Results/d" "$OUT/perf_cutile_rs.txt"'
contains "FAIL: perf_cutile_rs: no 'Performance Test Results' section"
p "perf-log.failed" "FAIL perf-log.failed" 'echo "tests/ops/test_softmax.py::x FAILED" >>"$OUT/perf_cutile_rs.txt"'
p "perf-log.balance" "WARN perf-log.balance" 'sed -i "0,/^PASSED/{/^PASSED/d}" "$OUT/perf_cutile_rs.txt"'
contains "PASS: perf_cutile_rs: 2 perf records for 1 passed tests"
finish
