#!/bin/sh
# A whole offline run with both compilers in the loop: stage A compiles the
# reference with cuTile Python (build/pyenv), stage B type-checks and lowers
# its kernel with cutile 0.2.0 (build/cutile) and compares the two IRs with
# tileport irdiff; stage D checks the op as lib.rs registers it. softmax,
# layer_norm and silu_and_mul (its gathers in 64 bits, as cuTile Python's)
# end OFFLINE_COMPLETE saying what was shown; against a reference changed to
# compute something else, stage B hands over with the IR check as the
# reason. pair_fold (tests/fixtures/port/derived), whose tile extent is
# PAIR * WIDTH, ends OFFLINE_COMPLETE with the extent a const generic the
# launcher computes: the compile takes it from the analysis, the semantic
# check from the launcher. Skips (with the reason) where either compiler is
# missing.
. "$TILEPORT_TOP/tests/integration/lib/common.sh"
PATH=$(printf '%s' "$PATH" | sed "s|$T/bin:||") # the real cargo
PY=${TILEPORT_TEST_PYTHON:-$TILEPORT_TOP/build/pyenv/bin/python}
if ! "$PY" -c 'import cuda.tile' >/dev/null 2>&1; then
	echo "skip: no Python with cuda.tile at $PY (mk/cutile-py.sh could not install cuda-tile)"
	exit 0
fi
if [ ! -f "$TILEPORT_TOP/build/cutile/env.sh" ]; then
	echo "skip: no offline cuTile crates (mk/cutile.sh found no ../shared/vendor/cutile-0.2.0)"
	exit 0
fi
offline_env
export TILEPORT_PYTHON=$PY
cp -R "$WS" "$T/ws"
cp -R "$TILEPORT_TOP/tests/fixtures/port/derived/." "$T/ws/"

run() { # OP -> $T/OP.log, exit code
	"$TILEPORT" run "$1" --workspace "$T/ws" --out "$T/out" --headless >"$T/$1.log" 2>&1
}

run softmax
assert_eq "softmax: exit 0" "$?" 0
"$TILEPORT" status "$T/out/softmax" --json >"$T/softmax.json"
assert_eq "softmax: A, B, D and the end" \
	"$(json_get "$T/softmax.json" '(d["final"], [a["verdict"] for a in d["attempts"]])')" \
	"('OFFLINE_COMPLETE', ['DEFERRED', 'COMPILED', 'DEFERRED'])"
assert_contains "softmax: the end says what was shown" "$T/softmax.log" \
	"OFFLINE_COMPLETE: offline work done: translated, type-checked, lowered, and its Tile IR checked against cuTile Python's own"
"$TILEPORT" status "$T/out/softmax" >"$T/softmax.status"
assert_contains "softmax: status says it too" "$T/softmax.status" "its Tile IR checked against cuTile Python's own"
B=$T/out/softmax/.tileport/attempts/02-B1/transcript.jsonl
assert_contains "softmax: B ran the IR diff" "$B" '$ tileport irdiff '
assert_contains "softmax: B deferred only the layout-free rest" "$B" 'VERDICT: COMPILED'
grep -q 'deferred: .*reference-ir' "$B" && bad "softmax: B still defers reference-ir" ||
	ok "softmax: B defers no reference IR"
assert_contains "softmax: agent_b.md names the evidence" "$T/out/softmax/reports/agent_b.md" \
	"- generated/generated.mlir against reference/reference.mlir: PASS_WITH_NOTES"
[ -s "$T/out/softmax/reports/compile_lib.json" ] && ok "softmax: D checked the registered op" ||
	bad "softmax: no reports/compile_lib.json from D"

run layer_norm
assert_eq "layer_norm: exit 0" "$?" 0
for v in batched_true batched_false; do
	assert_contains "layer_norm $v: the IR check passes with notes" "$T/out/layer_norm/reports/agent_b.md" \
		"- generated/generated_$v.mlir against reference/reference_$v.mlir: PASS_WITH_NOTES"
done
"$TILEPORT" irdiff "$T/out/layer_norm/reference/reference_batched_false.mlir" \
	"$T/out/layer_norm/generated/generated_batched_false.mlir" >"$T/ln.diff"
assert_contains "layer_norm: the fused multiply-add is a note, not a critical count" "$T/ln.diff" \
	"WARN     op-count-fma"
assert_contains "layer_norm: hints per target against a default agree" "$T/ln.diff" "VERDICT: PASS_WITH_NOTES"

run pair_fold
assert_eq "pair_fold: exit 0" "$?" 0
assert_contains "pair_fold: OFFLINE_COMPLETE" "$T/pair_fold.log" \
	"OFFLINE_COMPLETE: offline work done: translated, type-checked, lowered, and its Tile IR checked"
PB=$T/out/pair_fold/reports/agent_b.md
assert_contains "pair_fold: the IR check passes" "$PB" \
	"- generated/generated.mlir against reference/reference.mlir: PASS_WITH_NOTES"
assert_contains "pair_fold: the semantic check read the launcher" "$PB" "semantic check (dataflow, with the launcher)"
assert_eq "pair_fold: lowered with WIDTH_TIMES_2 twice WIDTH" \
	"$(json_get "$T/out/pair_fold/reports/compile.json" 'd["outputs"][0]["generics"]')" "f16, 64, 128"

run silu_and_mul
assert_eq "silu_and_mul: exit 0" "$?" 0
assert_contains "silu_and_mul: gathers in 64 bits as cuTile Python's, the IR check passes" \
	"$T/silu_and_mul.log" "OFFLINE_COMPLETE: offline work done: translated, type-checked, lowered, and its Tile IR checked"
# a reference that computes something else (exp2 for exp): B hands over
# with the IR check as the reason and its findings in the block
R=$T/out/silu_and_mul/reference/reference.mlir
sed -i 's/ = exp %/ = exp2 %/' "$R"
grep -q ' = exp2 %' "$R" || echo "FAIL the reference has no exp to change"
"$TILEPORT" agent --stage B --run "$T/out/silu_and_mul" --driver mech >"$T/b.jsonl" 2>"$T/b.err"
assert_contains "changed reference: the reason is the IR check" "$T/b.jsonl" \
	"the lowered IR differs from cuTile Python's (tileport irdiff: FAIL_FIXABLE"
assert_contains "changed reference: the finding is in the block" "$T/b.jsonl" "CRITICAL op-count"
# a tool past mech's limit (a cargo that builds by waiting on a fifo nobody
# writes):
# exit 124 and the limit named, not 127, which reads as "command not found"
mkdir -p "$T/slow" && mkfifo "$T/slow/hold"
printf '#!/bin/sh\n[ "$1" = --version ] && exec "%s" --version\nread x <"%s"\n' "$(command -v cargo)" "$T/slow/hold" \
	>"$T/slow/cargo" && chmod +x "$T/slow/cargo"
PATH="$T/slow:$PATH" TILEPORT_MECH_TIMEOUT=1 "$TILEPORT" agent --stage B --run "$T/out/silu_and_mul" \
	--driver mech >"$T/slow.jsonl" 2>"$T/slow.err"
assert_contains "a tool past the limit: exit 124" "$T/slow.jsonl" "exit=124"
assert_contains "a tool past the limit: the limit named" "$T/slow.jsonl" \
	"stopped after 1 s (TILEPORT_MECH_TIMEOUT=SECONDS sets the limit)"
finish
