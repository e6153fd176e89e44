#!/bin/sh
# The local executor: a batch of six operators (--all over a workspace this
# test builds) with scripted agents, two at a time. Four convert, one STOPs
# on its verdict, one hangs past its stage timeout; the limit of two holds,
# every run ends as its agents say, and the report adds them up. Then a
# batch whose tileport is killed with SIGKILL mid-stage resumes, a run
# cancelled from another tileport resumes, and bad input changes nothing.
. "$TILEPORT_TOP/tests/integration/lib/common.sh"
. "$TILEPORT_TOP/tests/integration/lib/batch.sh"
online_env

# Stage A gives up after two seconds (the hanging agent's fate).
sed 's/"cap": 1, "timeout_s": 3600, "idle_timeout_s": 900, "deferrable": true,/"cap": 1, "timeout_s": 2, "idle_timeout_s": 0, "deferrable": true,/' \
	"$TILEPORT_TOP/skill/pipeline.json" >"$T/pipeline.json"
grep -q '"timeout_s": 2,' "$T/pipeline.json" || bad "test table was not rewritten"

W=$T/ws
batch_ws "$W"
for op in conv_a conv_b conv_c stop_d hang_e ported_p; do batch_op "$W" "$op"; done
batch_op "$W" conv_t triton
mkdir -p "$W/src/tilegym/ops/cutile_rs/ported_p_kernel" # ported already: --all leaves it out

scenario conv_a "A: PASS format=json" "B: COMPILED format=json" "D: ALL_PASS format=json" \
	"E: DONE geomean=1.0200 format=json"
scenario conv_b "A: PASS" "B: COMPILED" "D: FAIL class=host" "D: ALL_PASS" "E: DONE geomean=0.9800"
scenario conv_c "A: PASS" "B: COMPILED format=json" "D: ALL_PASS" "E: INVESTIGATE geomean=1.1000" \
	"C: FAIL_FIXABLE class=host" "D: ALL_PASS" "E: DONE geomean=1.0400"
scenario conv_t "A: PASS" "B: COMPILED" "D: ALL_PASS" "E: DONE geomean=1.0000"
scenario stop_d "A: FAIL_FIXABLE"
scenario hang_e "A: HANG" "A: HANG"

# A key spelled out in a driver (F never runs here) must not reach any file.
export TILEPORT_TEST_API_KEY=sk-batch-secret-0123456789
# shellcheck disable=SC2046
"$TILEPORT" batch start --all --workspace "$W" --out "$T/out" --name lib --jobs 2 --headless \
	--table "$T/pipeline.json" $(batch_flags) --driver "F=exec:$BATCH_AGENT --key sk-batch-secret-0123456789" \
	>"$T/lib.log" 2>&1
assert_eq "batch with a STOP exits 1" "$?" 1
assert_contains "the end says how to go on (each ended on a verdict: --rerun, not a plain resume)" "$T/lib.log" \
	"each ended on a verdict of its own: 'tileport batch status lib' says why, run by run; 'tileport batch resume lib --rerun OP' starts a stopped one afresh"
"$TILEPORT" batch status lib --out "$T/out" --json >"$T/lib.json"
assert_eq "--all: every op with a reference and no port, triton-only included" \
	"$(json_get "$T/lib.json" '" ".join(o["op"] for o in d["ops"])')" "conv_a conv_b conv_c conv_t hang_e stop_d"
for op in conv_a conv_b conv_c conv_t; do
	assert_eq "$op complete" "$(op_field "$T/lib.json" $op state)" complete
done
assert_eq "stop_d stopped on its verdict" "$(op_field "$T/lib.json" stop_d state)" stopped
assert_eq "hang_e stopped after its timeout" "$(op_field "$T/lib.json" hang_e state)" stopped
assert_eq "conv_c path" "$(json_get "$T/out/conv_c/.tileport/state.json" '" ".join(a["stage"]+str(a["attempt"]) for a in d["attempts"])')" \
	"A1 B1 D1 E1 C1 D2 E2"
assert_eq "hang_e timed out twice" "$(json_get "$T/out/hang_e/.tileport/state.json" '[a["exit"][:9] for a in d["attempts"]]')" \
	"['timed out', 'timed out']"
assert_eq "attempts per stage" "$(op_field "$T/lib.json" conv_b attempts) | $(op_field "$T/lib.json" hang_e attempts)" \
	"A1 B1 D2 E1 | A1+r"
if grep -rq sk-batch-secret "$T/out"; then bad "the key reached $(grep -rl sk-batch-secret "$T/out" | head -1)"; else
	ok "the key is in no file of the batch or its runs"; fi
assert_contains "it is kept as \${NAME}" "$T/out/.tileport-batch/lib/batch.json" '--key ${TILEPORT_TEST_API_KEY}'
assert_eq "node is this host" "$(op_field "$T/lib.json" conv_a node)" "$(hostname)"

# Two at a time: no moment had three runs alive (each run's own state gives
# its life, created to last update), and two did run together.
overlap=$(python3 - "$T/out" <<'EOF'
import json, os, sys
spans = []
for op in os.listdir(sys.argv[1]):
    p = os.path.join(sys.argv[1], op, ".tileport", "state.json")
    if os.path.exists(p):
        d = json.load(open(p))
        spans.append((d["created"], d["updated"]))
edges = sorted([(a, 1) for a, b in spans] + [(b, -1) for a, b in spans], key=lambda e: (e[0], e[1]))
n = top = 0
for _, step in edges:
    n += step
    top = max(top, n)
print(top)
EOF
)
assert_eq "at most two runs at once, and two did overlap" "$overlap" 2

# The report: one row per op and the totals. The scripted agents write none
# of the output contract's files, so their runs complete without being
# accepted: nothing is converted, and there is no geomean to sum up (the
# fixture batch of batch_output.sh has an accepted run).
"$TILEPORT" batch report lib --out "$T/out" --json >"$T/report.json"
assert_eq "report: converted" "$(json_get "$T/report.json" 'd["totals"]["converted"]')" 0
assert_eq "report: complete but not accepted" "$(json_get "$T/report.json" 'd["totals"]["not_accepted"]')" 4
assert_eq "report: no geomean over converted ops" \
	"$(json_get "$T/report.json" '"%s over %d" % (d["totals"].get("geomean"), d["totals"]["geomean_over"])')" "None over 0"
assert_eq "report: conv_a's outcome and why" \
	"$(op_field "$T/report.json" conv_a outcome): $(op_field "$T/report.json" conv_a outcome_reason | cut -d: -f1)" \
	"not_accepted: the output contract failed 15 checks"
assert_eq "report: tokens (the JSON transcripts' usage)" "$(json_get "$T/report.json" 'd["totals"]["tokens"]')" 600
assert_eq "report: conv_a geomean" "$(op_field "$T/report.json" conv_a geomean)" 1.02
"$TILEPORT" batch report lib --out "$T/out" >"$T/report.txt"
assert_contains "report text: totals" "$T/report.txt" \
	"0 of 6 operators converted (4 complete but not accepted, 2 stopped); no geomean; 600 tokens (500 in, 100 out); cost \$0.05"
assert_contains "report text: a stopped row" "$T/report.txt" "STOP               not accepted  A     A1+r"
"$TILEPORT" batch report lib --out "$T/out" --markdown >"$T/report.md"
assert_contains "report markdown: a row" "$T/report.md" "| conv_b | PIPELINE_COMPLETE | not accepted | E | A1 B1 D2 E1 | 0.9800 | 0 | \$0.00 |"

# Resume: nothing ended without a verdict, so nothing runs again; a STOPped
# run starts afresh only when named, and its old run is kept.
"$TILEPORT" batch resume lib --out "$T/out" --headless >"$T/r1.log" 2>&1
assert_contains "resume with nothing to do" "$T/r1.log" "nothing to resume"
scenario stop_d "A: PASS" "B: COMPILED" "D: ALL_PASS" "E: DONE geomean=1.0100"
"$TILEPORT" batch resume lib --out "$T/out" --headless --rerun stop_d >"$T/r2.log" 2>&1
assert_eq "rerun of the stopped run" "$?" 1 # hang_e is still stopped
"$TILEPORT" batch status lib --out "$T/out" --json >"$T/lib2.json"
assert_eq "stop_d converted now" "$(op_field "$T/lib2.json" stop_d state)" complete
assert_eq "the stopped run is kept" "$(json_get "$T/out/.tileport-batch/lib/previous/stop_d.1/.tileport/state.json" 'd["final"]')" STOP
assert_eq "no other run started again" \
	"$(json_get "$T/lib2.json" '" ".join(str(o["starts"]) for o in d["ops"])')" "1 1 1 1 1 2"
"$TILEPORT" batch resume lib --out "$T/out" --rerun conv_a >"$T/r3.log" 2>&1
assert_eq "--rerun of a converted op is refused" "$?" 2
assert_contains "and says why" "$T/r3.log" "--rerun conv_a: it ended complete, which is never run again"

# A batch whose tileport dies by SIGKILL mid-stage: its runs get SIGTERM,
# save and stop; resume finishes them with no attempt lost or repeated.
W2=$T/ws2
batch_ws "$W2"
for op in k1 k2 k3; do batch_op "$W2" "$op"; done
scenario k1 "A: PASS" "B: GATE COMPILED" "D: ALL_PASS" "E: DONE"
scenario k2 "A: GATE PASS" "B: COMPILED" "D: ALL_PASS" "E: DONE"
scenario k3 "A: PASS" "B: COMPILED" "D: ALL_PASS" "E: DONE"
# shellcheck disable=SC2046
"$TILEPORT" batch start k1 k2 k3 --workspace "$W2" --out "$T/crash" --name crash --jobs 2 --headless \
	$(batch_flags) >"$T/crash.log" 2>&1 &
pid=$!
wait_for 60 "both gated agents started" '[ -e "$BATCH_SCEN/k1.entered" ] && [ -e "$BATCH_SCEN/k2.entered" ]'
kill -9 "$pid"
wait "$pid" 2>/dev/null
# the children got SIGTERM when their parent died: wait until they are gone
kids=$(json_get "$T/crash/.tileport-batch/crash/batch.json" '" ".join(o["job"][4:] for o in d["ops"] if o.get("job"))')
gone() { # no such process (or a zombie waiting for init)
	for k in $kids; do
		[ ! -e "/proc/$k" ] || grep -q ') Z' "/proc/$k/stat" 2>/dev/null || return 1
	done
}
wait_for 60 "the orphaned runs saved and stopped" gone
assert_eq "they saved their runs as aborted" "$(run_state "$T/crash/k1") $(run_state "$T/crash/k2")" "aborted aborted"
"$TILEPORT" batch status crash --out "$T/crash" --json >"$T/crash.json"
assert_eq "after the kill: interrupted, interrupted, never started" \
	"$(json_get "$T/crash.json" '" ".join(o["state"] for o in d["ops"])')" "interrupted interrupted pending"
touch "$BATCH_SCEN/k1.release" "$BATCH_SCEN/k2.release"
"$TILEPORT" batch resume crash --out "$T/crash" --headless >"$T/crash2.log" 2>&1
# (exit 1: the runs complete, but are not accepted; see the report above)
assert_eq "the killed batch resumes to the end" "$?" 1
"$TILEPORT" batch status crash --out "$T/crash" --json >"$T/crash.json"
assert_eq "every run of it complete" "$(json_get "$T/crash.json" '" ".join(o["state"] for o in d["ops"])')" \
	"complete complete complete"
mkdir -p "$T/calm"
for op in k1 k2 k3; do
	# shellcheck disable=SC2046
	FAKE_SCENARIO="$BATCH_SCEN/k3" "$TILEPORT" run "$op" --workspace "$W2" --out "$T/calm" --headless \
		$(fake_flags) >/dev/null 2>&1
done
same_runs "$T/crash" "$T/calm" k1 k2 k3

# Cancelled from another tileport while it runs: it ends cancelled, the
# batch goes on, and resume brings it back.
scenario k1 "A: GATE PASS" "B: COMPILED" "D: ALL_PASS" "E: DONE"
rm -f "$BATCH_SCEN/k1.entered" "$BATCH_SCEN/k1.release"
# shellcheck disable=SC2046
"$TILEPORT" batch start k1 k3 --workspace "$W2" --out "$T/cx" --name cx --jobs 1 --headless \
	$(batch_flags) >"$T/cx.log" 2>&1 &
pid=$!
wait_for 60 "k1's gated agent started" '[ -e "$BATCH_SCEN/k1.entered" ]'
"$TILEPORT" batch cancel cx k1 --out "$T/cx" >"$T/cancel.log" 2>&1
assert_eq "batch cancel OP" "$?" 0
assert_contains "says what it did" "$T/cancel.log" "batch cx: cancelled 1 run; 'tileport batch resume cx' continues it"
wait "$pid"
assert_eq "the batch with a cancelled run exits 1" "$?" 1
"$TILEPORT" batch status cx --out "$T/cx" --json >"$T/cx.json"
assert_eq "k1 cancelled, k3 went on" "$(json_get "$T/cx.json" '" ".join(o["state"] for o in d["ops"])')" \
	"cancelled complete"
touch "$BATCH_SCEN/k1.release"
"$TILEPORT" batch resume cx --out "$T/cx" --headless >/dev/null 2>&1
assert_eq "the cancelled run resumed (complete, not accepted: exit 1)" "$?" 1
"$TILEPORT" batch status cx --out "$T/cx" --json >"$T/cx.json"
assert_eq "both complete" "$(json_get "$T/cx.json" '" ".join(o["state"] for o in d["ops"])')" "complete complete"

# The record's lock removed and made again while a batch runs (as by a
# second tileport that did not see the first): the driver notices before
# its next write, writes no more under it, stops its runs and starts no
# new one; whoever has the batch now resumes them.
scenario k1 "A: GATE PASS" "B: COMPILED" "D: ALL_PASS" "E: DONE"
rm -f "$BATCH_SCEN/k1.entered" "$BATCH_SCEN/k1.release"
# shellcheck disable=SC2046
"$TILEPORT" batch start k1 k3 --workspace "$W2" --out "$T/lk" --name lk --jobs 1 --headless \
	$(batch_flags) >"$T/lk.log" 2>&1 &
pid=$!
wait_for 60 "k1's gated agent started" '[ -e "$BATCH_SCEN/k1.entered" ]'
rm "$T/lk/.tileport-batch/lk/lock" && : >"$T/lk/.tileport-batch/lk/lock"
touch "$BATCH_SCEN/k1.release"
wait "$pid"
assert_eq "the batch whose lock was replaced stops" "$?" 1
assert_contains "and says why" "$T/lk.log" "lk/lock was removed or replaced while this tileport held it"
[ ! -e "$T/lk/k3" ] && ok "k3 was never started" || bad "k3 was started after the lock was lost"
"$TILEPORT" batch status lk --out "$T/lk" --json >"$T/lk.json"
assert_eq "k3 waits for a resume" "$(op_field "$T/lk.json" k3 state)" pending

# Bad input: a clear message, exit 2, and no batch record.
# shellcheck disable=SC2046
"$TILEPORT" batch start conv_a nosuch --workspace "$W" --out "$T/bad" --name bad $(batch_flags) >"$T/bad.log" 2>&1
assert_eq "unknown operator" "$?" 2
assert_contains "names it and what was expected" "$T/bad.log" \
	"operator 'nosuch' not found in workspace $W (looked for nosuch.py under src/tilegym/ops/cutile/"
[ ! -e "$T/bad/.tileport-batch/bad" ] && ok "no record for a refused batch" || bad "a refused batch left $T/bad/.tileport-batch/bad"
"$TILEPORT" batch start conv_a --workspace "$W" --out "$T/bad" --jobs 0 >"$T/bad2.log" 2>&1
assert_eq "--jobs 0" "$?" 2
"$TILEPORT" batch start conv_a --workspace "$W" --out "$T/out" --name other >"$T/bad3.log" 2>&1
assert_eq "an operator that already has a run" "$?" 2
assert_contains "says so" "$T/bad3.log" "conv_a already has a run in $T/out/conv_a"
"$TILEPORT" batch start conv_a --workspace "$W" --out "$T/cx" --name cx >"$T/bad5.log" 2>&1
assert_eq "a batch name in use" "$?" 2
assert_contains "says so" "$T/bad5.log" "batch cx already exists in $T/cx"
# A start killed before it wrote its record leaves only a folder: the name is free.
mkdir -p "$T/lo/.tileport-batch/again"
: >"$T/lo/.tileport-batch/again/probe.1"
scenario conv_a "A: FAIL_FIXABLE"
# shellcheck disable=SC2046
"$TILEPORT" batch start conv_a --workspace "$W" --out "$T/lo" --name again --headless $(batch_flags) >"$T/lo.log" 2>&1
assert_eq "a left-behind folder does not hold the name" "$(json_get "$T/lo/.tileport-batch/again/batch.json" 'd["ops"][0]["state"]')" stopped
"$TILEPORT" batch status nosuch --out "$T/out" >"$T/bad4.log" 2>&1
assert_eq "status of no such batch" "$?" 2
finish
