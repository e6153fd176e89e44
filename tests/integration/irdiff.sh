#!/bin/sh
# tileport irdiff / ir fmt: exit codes, golden outputs, report file, errors.
# Runs from the fixture directory so that paths in the output are relative.
set -u
fail() { echo "FAIL: $*" >&2; exit 1; }
T=${TILEPORT:?}
cd "${TILEPORT_TOP:?}/tests/fixtures/ir" || fail "no fixtures"
tmp=$(mktemp -d) || fail mktemp
trap 'rm -rf "$tmp"' EXIT

run() { # run CMD..., keep stdout/stderr, set rc
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}

# identical files: PASS, exit 0
run "$T" irdiff corpus/softmax.mlir corpus/softmax.mlir
[ $rc -eq 0 ] || fail "identical: exit $rc"
[ "$(tail -n 1 "$tmp/out")" = "VERDICT: PASS" ] || fail "identical: $(tail -n 1 "$tmp/out")"

# renamed (canonical print of the same kernel): PASS
"$T" ir fmt corpus/control.mlir >"$tmp/canon.mlir" || fail "ir fmt"
cmp -s "$tmp/canon.mlir" corpus/control.canon || fail "ir fmt output differs from control.canon"
run "$T" irdiff corpus/control.mlir "$tmp/canon.mlir"
[ $rc -eq 0 ] || fail "renamed: exit $rc"

# PASS_WITH_NOTES: exit 2
run "$T" irdiff rules/op-count-arith/ref.mlir rules/op-count-arith/fire.mlir
[ $rc -eq 2 ] || fail "notes: exit $rc"
grep -q '^VERDICT: PASS_WITH_NOTES' "$tmp/out" || fail "notes: verdict line"

# FAIL_FIXABLE: exit 1, text and JSON goldens
run "$T" irdiff rules/ftz/ref.mlir rules/ftz/fire.mlir
[ $rc -eq 1 ] || fail "fail: exit $rc"
diff -u golden/irdiff_ftz.txt "$tmp/out" || fail "text report differs from golden"
run "$T" irdiff --json rules/padding-value/ref.mlir rules/padding-value/fire.mlir
[ $rc -eq 1 ] || fail "json: exit $rc"
diff -u golden/irdiff_padding.json "$tmp/out" || fail "JSON report differs from golden"
run "$T" irdiff --rows corpus/softmax.mlir corpus/cutile_rs.mlir
[ $rc -eq 1 ] || fail "rows: exit $rc"
diff -u golden/irdiff_softmax_rows.txt "$tmp/out" || fail "aligned rows differ from golden"

# --report writes diff_report.md (first line VERDICT), output unchanged
run "$T" irdiff rules/ftz/ref.mlir rules/ftz/fire.mlir --report "$tmp/diff_report.md"
[ $rc -eq 1 ] || fail "report: exit $rc"
diff -u golden/diff_report_ftz.md "$tmp/diff_report.md" || fail "diff_report.md differs from golden"
[ "$(head -n 1 "$tmp/diff_report.md")" = "VERDICT: FAIL_FIXABLE" ] || fail "report first line"

# input errors never look like a verdict: exit 4 with file:line:col
printf 'cuda_tile.module @k {\n  entry @e() {\n    %%0 = bogus_op %%1\n' >"$tmp/bad.mlir"
run "$T" irdiff corpus/softmax.mlir "$tmp/bad.mlir"
[ $rc -eq 4 ] || fail "parse error: exit $rc"
grep -q "bad.mlir:3:19: use of undefined value %1" "$tmp/err" || fail "parse error message: $(cat "$tmp/err")"
run "$T" irdiff corpus/softmax.mlir "$tmp/missing.mlir"
[ $rc -eq 4 ] || fail "missing file: exit $rc"
grep -q "missing.mlir: cannot open" "$tmp/err" || fail "missing file message"
run "$T" irdiff corpus/softmax.mlir
[ $rc -eq 4 ] || fail "usage: exit $rc"
run "$T" irdiff --bogus a b
[ $rc -eq 4 ] || fail "bad option: exit $rc"
run "$T" irdiff --help
[ $rc -eq 0 ] && grep -q '^usage: tileport irdiff' "$tmp/out" || fail "--help"

# ir fmt: project convention, exit 2 on bad input
run "$T" ir fmt "$tmp/bad.mlir"
[ $rc -eq 2 ] || fail "ir fmt parse error: exit $rc"
grep -q "bad.mlir:3:19" "$tmp/err" || fail "ir fmt error message"
run "$T" ir fmt
[ $rc -eq 2 ] || fail "ir fmt usage: exit $rc"
run "$T" ir --help
[ $rc -eq 0 ] || fail "ir --help"
echo "irdiff: ok"
