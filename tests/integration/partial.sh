#!/bin/sh
# Per kernel, not per file (issue 23): `tileport translate` writes the
# kernels that translate and lists the refused ones (exit 4, --json status
# per kernel); in a run, mech's stage B writes them into kernel.rs (which
# tileport compile accepts), and hands the stage over with the rest: with
# no driver after it the run stops naming the kernel left and what would
# finish it; in a chain `mech, exec:SCRIPT` the script is told exactly the
# missing kernel, where and why, and finds the others already in kernel.rs.
. "$TILEPORT_TOP/tests/integration/lib/common.sh"
offline_env
P=$TILEPORT_TOP/tests/fixtures/port/partial
AGENT=$TILEPORT_TOP/tests/integration/lib/partial_agent.sh
# The runs keep common.sh's stand-in cargo (mech's compile check stays
# deferred: it would wait on the shared compile cache behind other tests);
# kernel.rs is compiled afterwards with the real cargo, where the offline
# crates are.
REAL_PATH=$(printf '%s' "$PATH" | sed "s|$T/bin:||")
[ -f "$TILEPORT_TOP/build/cutile/env.sh" ] && COMPILER=yes || COMPILER=
export TILEPORT_PYTHON=/nonexistent

# ---- translate ----
cd "$P" || exit 1
"$TILEPORT" translate two_kernels.py >"$T/two.rs" 2>"$T/two.err"
assert_eq "translate, one kernel refused: exit 4 (partial)" "$?" 4
assert_eq "translate: the refused kernel, one line at FILE:LINE:COL with the construct" "$(cat "$T/two.err")" \
	"two_kernels.py:14:5: unsupported: while loop (kernel count_up)"
assert_contains "translate: the other kernel is written" "$T/two.rs" "pub unsafe fn scale_rows<"
assert_eq "translate: not the refused one" "$(grep -c 'fn count_up' "$T/two.rs")" 0
assert_contains "translate: kernel.rs says what it lacks" "$T/two.rs" \
	"// Not translated, left for an agent: kernel \`count_up\` (two_kernels.py:14:5: while loop)"
"$TILEPORT" translate two_kernels.py --json >"$T/two.json" 2>/dev/null
assert_eq "translate --json: exit 4" "$?" 4
assert_eq "translate --json: status per kernel" \
	"$(json_get "$T/two.json" 'd["status"] + " " + " ".join(k["name"] + ":" + k["status"] for k in d["kernels"])')" \
	"partial scale_rows:translated count_up:refused"
assert_eq "translate --json: where and why" \
	"$(json_get "$T/two.json" '[k["where"] + " " + k["construct"] for k in d["kernels"] if k["status"] == "refused"][0]')" \
	"two_kernels.py:14:5 while loop"
"$TILEPORT" translate two_kernels.py --kernel count_up >/dev/null 2>"$T/one.err"
assert_eq "translate --kernel of the refused one: exit 1" "$?" 1
"$TILEPORT" translate two_kernels.py --kernel scale_rows >/dev/null 2>"$T/ok.err"
assert_eq "translate --kernel of the other: exit 0, nothing on stderr" "$?:$(cat "$T/ok.err")" "0:"
"$TILEPORT" translate "$TILEPORT_TOP/tests/fixtures/port/unsupported/while_loop.py" >/dev/null 2>&1
assert_eq "a file whose every kernel is refused: exit 1" "$?" 1
cd "$T" || exit 1

# ---- a workspace operator with two kernels, one refused ----
cp -R "$WS" "$T/ws"
cp "$P/scale_then_count.py" "$T/ws/src/tilegym/ops/cutile/scale_then_count.py"
cp "$P/test_scale_then_count.py" "$T/ws/tests/ops/test_scale_then_count.py"
SRC=src/tilegym/ops/cutile/scale_then_count.py
LEFT="left: count_up_kernel at $SRC:19:5: while loop"

# No driver after mech: B writes the partial kernel.rs and the run stops
# saying which kernel is left and what would finish the job.
"$TILEPORT" run scale_then_count --workspace "$T/ws" --out "$T/out" --headless >"$T/run.log" 2>&1
assert_eq "run, no agent: stops (exit 1)" "$?" 1
assert_contains "run: mech takes B (it translates part of the op)" "$T/run.log" \
	"drivers: A mech (default), B mech (default)"
assert_contains "run: the STOP names the kernel left, where and why, and what kernel.rs holds" "$T/run.log" \
	"STOP: B1: mech cannot do stage B of scale_then_count: $SRC:19:5: while loop (kernel count_up_kernel, not translated); kernel.rs holds the translated kernel scale_rows_kernel"
assert_contains "run: and what would finish it" "$T/run.log" "What would finish the job: an agent driver for stages B, D"
R=$T/out/scale_then_count
assert_contains "run: kernel.rs holds the translated kernel" "$R/kernel.rs" "pub unsafe fn scale_rows_kernel<"
assert_eq "run: and not the refused one" "$(grep -c 'fn count_up_kernel' "$R/kernel.rs")" 0
assert_contains "stage A lists the refused kernel" "$R/reference/analysis.json" '"kernel_function":	"count_up_kernel"'
python3 -c 'import json,sys
print([r for r in map(json.loads, open(sys.argv[1])) if r["type"] == "final"][-1]["text"])' \
	"$R/.tileport/attempts/02-B1/transcript.jsonl" >"$T/final.txt"
assert_contains "B1's reply: the left: line" "$T/final.txt" "$LEFT"
assert_contains "B1's reply: the partial: line" "$T/final.txt" \
	"kernel.rs holds 1 of 2 kernels, translated by mech"
assert_eq "B1's reply: FAIL_FIXABLE" "$(tail -n 1 "$T/final.txt")" "VERDICT: FAIL_FIXABLE"
if [ -n "$COMPILER" ]; then
	PATH=$REAL_PATH "$TILEPORT" compile "$R" --kernel-only >"$T/c.log" 2>&1
	assert_eq "tileport compile accepts the partial kernel.rs" "$?" 0
fi

# A chain mech, exec:SCRIPT: the script gets the hand-over and is told
# exactly the missing kernel; kernel.rs already holds the other.
"$TILEPORT" run scale_then_count --fresh --workspace "$T/ws" --out "$T/out" --headless \
	--driver "B=mech, exec:$AGENT" >"$T/chain.log" 2>&1
S=$R/handover_seen
assert_eq "chain: the script read the hand-over first" "$(cut -c1-60 "$S/first_line")" \
	"HAND-OVER. The driver before you in this stage's chain, mech"
assert_eq "chain: told exactly the missing kernel, where and why" "$(cat "$S/left")" "$LEFT"
assert_contains "chain: told what kernel.rs holds" "$S/partial" \
	"partial: kernel.rs holds 1 of 2 kernels, translated by mech"
assert_eq "chain: kernel.rs held the translated kernel when it came" "$(cat "$S/kernels_before")" scale_rows_kernel
assert_eq "chain: it wrote only the one left" "$(tr '\n' ' ' <"$S/kernels_after")" \
	"scale_rows_kernel count_up_kernel "
TX=$R/.tileport/attempts/02-B1/transcript.jsonl
assert_contains "chain: the transcript records the hand-over to the script" "$TX" \
	"\"type\":\"handover\",\"from\":\"mech\",\"to\":\"exec:$AGENT\""
assert_contains "chain: B1 is the script's reply" "$T/chain.log" "B1 returned DEFERRED"
if [ -n "$COMPILER" ]; then
	PATH=$REAL_PATH "$TILEPORT" compile "$R" --kernel-only >"$T/c2.log" 2>&1
	assert_eq "the finished kernel.rs compiles" "$?" 0
fi
finish
