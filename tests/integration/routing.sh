#!/bin/sh
# One scenario per routing row of the reference table (pipeline.md §2, our
# skill/pipeline.json): scripted agents return the verdicts, and we check the
# next stage taken, the row that fired and the final state.
. "$TILEPORT_TOP/tests/integration/lib/common.sh"
online_env

# expect NAME PATH RC [ROWS]: ROWS is the list of table rows that fired, in order
expect() {
	assert_eq "$1: path" "$(path_of "$1")" "$2"
	assert_eq "$1: exit code" "$(rc_of "$1")" "$3"
	if [ $# -ge 4 ]; then
		rows=$(json_get "$T/$1/softmax/.tileport/state.json" \
			'" ".join(str(a.get("route_row", "-")) for a in d["attempts"])')
		assert_eq "$1: rows fired" "$rows" "$4"
	fi
}

# outcome NAME OUTCOME REASON: the run's judgement, in status --json and in
# status's outcome line. Fake agents leave no real files, so even
# an E DONE is refused by the output contract: accepted runs are
# tests/integration/builtin_gate.sh's.
outcome() {
	assert_eq "$1: outcome" "$(json_get "$T/$1.json" 'd["outcome"]')" "$2"
	assert_eq "$1: outcome reason" "$(json_get "$T/$1.json" 'd.get("outcome_reason", "")')" "$3"
	"$TILEPORT" status "$T/$1/softmax" >"$T/$1.status"
	assert_contains "$1: status says it" "$T/$1.status" "outcome    $(echo "$2" | tr _ ' ')${3:+: $3}"
}

run_scenario happy "A: PASS" "B: COMPILED" "D: ALL_PASS" "E: DONE"
expect happy "A1 -> B1 -> D1 -> E1 -> PIPELINE_COMPLETE" 1 "1 3 5 11"
assert_contains "happy: E DONE, but the contract refuses it" "$T/happy.log" \
	"not accepted: the output contract failed 15 checks: kernel.rs missing; "
assert_eq "happy: not accepted" "$(json_get "$T/happy.json" 'd["outcome"]')" not_accepted
assert_contains "happy: the contract's findings are named" "$T/happy.json" "kernel.rs"
# Step 0 of each spawn prompt: the skill's concepts and worked examples
p=$T/happy/softmax/.tileport/attempts
for f in concepts/tensor-vs-pointer-pattern.md concepts/strided-view-to-partition-view.md \
	examples/softmax/kernel.rs examples/matmul/walkthrough.md; do
	assert_contains "B reads $f first" "$p/02-B1/prompt.md" "skill/$f"
done
grep -q "ffi-bridge\|ffi.rs\|wrapper.py" "$p/02-B1/prompt.md" && bad "B's Step 0 names host code" || ok "B's Step 0 stays on the device side"
for f in concepts/ffi-bridge.md examples/softmax/ffi.rs examples/matmul/wrapper.py; do
	assert_contains "D reads $f first" "$p/03-D1/prompt.md" "skill/$f"
done

run_scenario a_fail "A: FAIL_FIXABLE"
expect a_fail "A1 -> STOP" 1 "2"
outcome a_fail not_accepted "A1 returned FAIL_FIXABLE; the run stopped"
# an ended run has nothing to abort, and keeps its reason
"$TILEPORT" step "$T/a_fail/softmax" abort >"$T/abort.log" 2>&1
assert_eq "abort of a stopped run is refused" "$?" 2
assert_contains "abort: why" "$T/abort.log" "the run has ended (STOP): there is nothing to abort"
assert_eq "abort: the stop reason stays" "$(json_get "$T/a_fail/softmax/.tileport/state.json" 'd["reason"]')" \
	"A returned FAIL_FIXABLE"
run_scenario a_blocked "A: BLOCKED"
expect a_blocked "A1 -> STOP" 1 "2"

for v in FAIL_COMPILE FAIL_FIXABLE BLOCKED; do
	run_scenario "b1_$v" "A: PASS" "B: $v"
	expect "b1_$v" "A1 -> B1 -> STOP" 1 "1 4"
done

run_scenario d1_fail_host "A: PASS" "B: COMPILED" "D: FAIL class=host" "D: ALL_PASS" "E: DONE"
expect d1_fail_host "A1 -> B1 -> D1 -> D2 -> E1 -> PIPELINE_COMPLETE" 1 "1 3 6 22 11"

run_scenario d1_fail_kernel "A: PASS" "B: COMPILED" "D: FAIL class=kernel" "C: FAIL_FIXABLE class=kernel" \
	"B: COMPILED" "D: FAIL class=host"
expect d1_fail_kernel "A1 -> B1 -> D1 -> C1 -> B2 -> D2 -> PIPELINE_COMPLETE" 1 "1 3 7 16 20 23"

run_scenario d1_blocked_host "A: PASS" "B: COMPILED" "D: BLOCKED class=host" "D: BLOCKED class=env"
expect d1_blocked_host "A1 -> B1 -> D1 -> D2 -> PIPELINE_COMPLETE" 1 "1 3 8 23"

run_scenario d1_blocked_kernel "A: PASS" "B: COMPILED" "D: BLOCKED class=kernel" "C: PASS"
expect d1_blocked_kernel "A1 -> B1 -> D1 -> C1 -> PIPELINE_COMPLETE" 1 "1 3 9 18"
outcome d1_blocked_kernel not_accepted "E never ran: C1 returned PASS"

run_scenario d1_blocked_env "A: PASS" "B: COMPILED" "D: BLOCKED class=env"
expect d1_blocked_env "A1 -> B1 -> D1 -> STOP" 1 "1 3 10"

run_scenario e1_investigate "A: PASS" "B: COMPILED" "D: ALL_PASS" "E: INVESTIGATE" \
	"C: FAIL_FIXABLE class=host" "D: ALL_PASS" "E: INVESTIGATE"
expect e1_investigate "A1 -> B1 -> D1 -> E1 -> C1 -> D2 -> E2 -> PIPELINE_COMPLETE" 1 "1 3 5 12 14 22 24"

# E(1) after C already ran: no second C
run_scenario e1_after_c "A: PASS" "B: COMPILED" "D: FAIL class=kernel" "C: FAIL_FIXABLE class=kernel" \
	"B: COMPILED" "D: ALL_PASS" "E: BLOCKED"
expect e1_after_c "A1 -> B1 -> D1 -> C1 -> B2 -> D2 -> E1 -> PIPELINE_COMPLETE" 1 "1 3 7 16 20 22 13"
outcome e1_after_c not_accepted "E1 returned BLOCKED"

# The E that follows a second D ends the run: the fix loop was spent on D2
# (the reference's E(2)), so no C and no B2 whose kernel D could never test.
run_scenario e_after_d2 "A: PASS" "B: COMPILED" "D: FAIL class=host" "D: ALL_PASS" "E: INVESTIGATE"
expect e_after_d2 "A1 -> B1 -> D1 -> D2 -> E1 -> PIPELINE_COMPLETE" 1 "1 3 6 22 13"
outcome e_after_d2 not_accepted "E1 returned INVESTIGATE"
run_scenario e_blocked_after_d2 "A: PASS" "B: COMPILED" "D: BLOCKED class=host" "D: ALL_PASS" "E: BLOCKED"
expect e_blocked_after_d2 "A1 -> B1 -> D1 -> D2 -> E1 -> PIPELINE_COMPLETE" 1 "1 3 8 22 13"

for v in PASS_WITH_NOTES FAIL_COMPILER_BUG BLOCKED; do
	run_scenario "c_$v" "A: PASS" "B: COMPILED" "D: FAIL class=kernel" "C: $v"
	row=18
	[ "$v" = PASS_WITH_NOTES ] || row=19
	expect "c_$v" "A1 -> B1 -> D1 -> C1 -> PIPELINE_COMPLETE" 1 "1 3 7 $row"
done

run_scenario b2_fail "A: PASS" "B: COMPILED" "D: FAIL class=kernel" "C: FAIL_FIXABLE class=kernel" \
	"B: FAIL_COMPILE"
expect b2_fail "A1 -> B1 -> D1 -> C1 -> B2 -> STOP" 1 "1 3 7 16 21"

run_scenario e2_done "A: PASS" "B: COMPILED" "D: ALL_PASS" "E: INVESTIGATE" "C: FAIL_FIXABLE class=kernel" \
	"B: COMPILED" "D: ALL_PASS" "E: DONE"
expect e2_done "A1 -> B1 -> D1 -> E1 -> C1 -> B2 -> D2 -> E2 -> PIPELINE_COMPLETE" 1 "1 3 5 12 16 20 22 24"

# A row that would spawn D a third time meets the cap, which ends the run.
# No row of the reference table can (every loop is bounded by its
# conditions), so a table whose D(2) FAIL re-spawns D shows the cap at work.
python3 - "$TILEPORT_TOP/skill/pipeline.json" "$T/cap_table.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
for r in t["routes"]:
    if r["stage"] == "D" and r.get("attempt") == 2 and "FAIL" in r["verdicts"]:
        r["action"] = "spawn D"
json.dump(t, open(sys.argv[2], "w"), indent=1)
PY
run_scenario cap_d "A: PASS" "B: COMPILED" "D: FAIL class=host" "D: FAIL class=host" -- --table "$T/cap_table.json"
expect cap_d "A1 -> B1 -> D1 -> D2 -> PIPELINE_COMPLETE" 1
assert_contains "cap_d: cap event" "$T/cap_d.log" "spawn cap reached: D ran 2 times (cap 2)"
outcome cap_d not_accepted "E never ran: spawn cap reached: D ran 2 times (cap 2)"

# Rows 15, 17 and 25 are reached only by hand: C after D or B was respawned,
# and F, which no row spawns.
printf 'C: FAIL_FIXABLE class=host\n' >>"$T/e_after_d2.scen"
FAKE_SCENARIO="$T/e_after_d2.scen" "$TILEPORT" step "$T/e_after_d2/softmax" respawn C >"$T/m0.log" 2>&1
assert_eq "respawn C after D2: not accepted" "$?" 1
assert_contains "row 15 fired" "$T/m0.log" "route C1 FAIL_FIXABLE (host) -> PIPELINE_COMPLETE (row 15"
FAKE_SCENARIO="$T/e2_done.scen"
printf 'C: FAIL_FIXABLE class=kernel\nF: ALIGNED\n' >>"$T/e2_done.scen"
FAKE_SCENARIO="$T/e2_done.scen" "$TILEPORT" step "$T/e2_done/softmax" respawn C >"$T/m1.log" 2>&1
assert_eq "C past its cap needs confirmation" "$?" 2
assert_contains "cap refusal names the flag" "$T/m1.log" \
	"stage C is at its cap (1 of 1): spawning it again goes beyond the cap, which must be asked for (step respawn C --beyond-cap"
FAKE_SCENARIO="$T/e2_done.scen" "$TILEPORT" step "$T/e2_done/softmax" respawn C --beyond-cap >"$T/m2.log" 2>&1
assert_eq "respawn C beyond cap: ends, not accepted" "$?" 1
assert_contains "row 17 fired" "$T/m2.log" "route C2 FAIL_FIXABLE (kernel) -> PIPELINE_COMPLETE (row 17"
FAKE_SCENARIO="$T/e2_done.scen" "$TILEPORT" step "$T/e2_done/softmax" respawn F >"$T/m3.log" 2>&1
assert_contains "row 25 fired" "$T/m3.log" "route F1 ALIGNED -> PIPELINE_COMPLETE (row 25"

# Offline: A -> B -> D deferred, then OFFLINE_COMPLETE (rows 26-28) ...
offline_env
run_scenario offline "A: DEFERRED deferred=reference-ir,perf-log" "B: DEFERRED deferred=cargo-build" \
	"D: DEFERRED deferred=pytest"
expect offline "A1 -> B1 -> D1 -> OFFLINE_COMPLETE" 0 "26 27 28"
outcome offline pending "the deferred steps need the toolchain: tileport resume --online"
assert_eq "offline: attempts do not count" "$(json_get "$T/offline.json" 'd["stages"]["B"]["runs"]')" 0
assert_eq "offline: deferred items" \
	"$(json_get "$T/offline.json" '",".join(x["stage"]+":"+x["step"] for x in d["deferred"])')" \
	"A:reference-ir,A:perf-log,B:cargo-build,D:pytest"
assert_eq "offline: agents saw TILEPORT_OFFLINE" "$(grep -c 'offline=1' "$T/offline/softmax/fake_agent.log")" 3
# ... an online resume is refused while the toolchain is still missing ...
"$TILEPORT" resume "$T/offline/softmax" --online >"$T/on0.log" 2>&1
assert_eq "resume --online without toolchain" "$?" 3
assert_contains "names what is missing" "$T/on0.log" "cannot resume online: still missing TILEIRAS_BIN"
# ... and with it, the deferred stages run again in order, counted from 1.
online_env
printf 'A: PASS\nB: COMPILED\nD: ALL_PASS\nE: DONE\n' >>"$T/offline.scen"
FAKE_SCENARIO="$T/offline.scen" "$TILEPORT" resume "$T/offline/softmax" --online >"$T/on1.log" 2>&1
assert_eq "resume --online: ends, not accepted (no real files)" "$?" 1
"$TILEPORT" status "$T/offline/softmax" --json >"$T/offline.json"
assert_eq "online after offline: path" "$(path_of offline)" \
	"A1(offline) -> B1(offline) -> D1(offline) -> A1 -> B1 -> D1 -> E1 -> PIPELINE_COMPLETE"
assert_eq "online after offline: nothing is owed any more" "$(json_get "$T/offline.json" 'len(d["deferred"])')" 0
"$TILEPORT" status "$T/offline/softmax" >"$T/offline.status"
grep -q "^deferred:" "$T/offline.status" && bad "status still lists deferred steps" || ok "no deferred: line once online"

# Offline, a stage that is not deferrable ends the run.
offline_env
run_scenario offline_e "A: PASS" "B: COMPILED" "D: ALL_PASS"
expect offline_e "A1 -> B1 -> D1 -> OFFLINE_COMPLETE" 0 "1 3 5"
assert_contains "offline_e: reason" "$T/offline_e.log" "stage E needs the toolchain"

finish
