#!/bin/sh
# kill -9 of the orchestrator at each window where a crash used to cost
# something (TILEPORT_TEST_CRASH_AT=NAME:N, the Nth pass of a named point):
#   spawned  the agent's process exists, its pid is not saved yet
#   judged   the reply's verdict is saved, its validation and routing are not
#   routed   the routing is saved, its event is not in events.jsonl yet
# and a kill while an agent is half-way through writing its outputs. After
# each, resume must end exactly like the uninterrupted run.
. "$TILEPORT_TOP/tests/integration/lib/common.sh"
online_env

printf '%s\n' "A: PASS" "B: COMPILED" "D: ALL_PASS" "E: DONE" >"$T/scen"
export FAKE_SCENARIO="$T/scen"
# shellcheck disable=SC2046
set -- $(fake_flags)
flags="$*"

# A python parent that adopts every orphan (PR_SET_CHILD_SUBREAPER) and
# returns only once all of them have exited: what a killed tileport left
# running has then run to its end, so the test can look at what it did.
cat >"$T/adopt.py" <<'PY'
import ctypes, os, subprocess, sys
ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)
rc = subprocess.call(sys.argv[1:])
while True:
    try:
        os.wait()
    except ChildProcessError:
        break
sys.exit(128 - rc if rc < 0 else rc)
PY

# shellcheck disable=SC2086
"$TILEPORT" run softmax --workspace "$WS" --out "$T/ref" --headless $flags >"$T/ref.log" 2>&1
ref_rc=$?
"$TILEPORT" status "$T/ref/softmax" --json >"$T/ref.json"
run_facts "$T/ref.json" >"$T/ref.facts"

# crash NAME POINT: a run killed at POINT, under the adopting parent.
crash() {
	# shellcheck disable=SC2086
	TILEPORT_TEST_CRASH_AT=$2 python3 "$T/adopt.py" "$TILEPORT" run softmax --workspace "$WS" \
		--out "$T/$1" --headless $flags >"$T/$1.log1" 2>&1
	assert_eq "$1: killed at $2" "$?" 137
}

# resumed NAME: resume, then the run must equal the uninterrupted one.
resumed() {
	"$TILEPORT" resume "$T/$1/softmax" >"$T/$1.log2" 2>&1
	assert_eq "$1: resume exits as the uninterrupted run" "$?" "$ref_rc"
	"$TILEPORT" status "$T/$1/softmax" --json >"$T/$1.json"
	run_facts "$T/$1.json" >"$T/$1.facts"
	if cmp -s "$T/ref.facts" "$T/$1.facts"; then ok "$1: ends like the uninterrupted run"; else
		bad "$1: the resumed run differs"
		diff "$T/ref.facts" "$T/$1.facts" | head -n 20
	fi
}

# runs_of NAME SEQ: how many times the agent of spawn SEQ ran
runs_of() { grep -c "^$2 " "$T/$1/softmax/fake_agent.log"; }

events_of() { # NAME TYPE SEQ: events of that type for that spawn, "recovered" marked
	python3 - "$T/$1/softmax/.tileport/events.jsonl" "$2" "$3" <<'PY'
import json, sys
n = [json.loads(l) for l in open(sys.argv[1])]
print(" ".join("recovered" if e.get("recovered") else "live" for e in n
               if e["type"] == sys.argv[2] and e.get("seq", 0) == int(sys.argv[3])))
PY
}

# 1. spawned: B1's process was forked, its pid not saved. It waits for
#    that save, so the kill leaves nothing running: the old attempt never
#    ran beside the new one.
crash spawned spawned:2
assert_eq "spawned: the held agent never ran" "$(runs_of spawned 2)" 0
resumed spawned
assert_eq "spawned: B1 ran once" "$(runs_of spawned 2)" 1

# 2. judged: B1's verdict was saved, not yet routed. Resume routes the
#    saved verdict; the agent does not run again.
crash judged judged:2
assert_eq "judged: saved as judged" "$(json_get "$T/judged/softmax/.tileport/state.json" 'd["attempts"][1]["state"]')" judged
resumed judged
assert_eq "judged: B1's agent ran once" "$(runs_of judged 2)" 1
assert_contains "judged: resume says so" "$T/judged.log2" \
	"B1's reply (COMPILED) was judged before the interruption: validating and routing it, not running it again"

# 3. routed: B1's routing was saved, its event not written. Resume writes
#    it, marked as recovered: the log misses no transition.
crash routed routed:2
assert_eq "routed: the event is missing after the kill" "$(events_of routed routed 2)" ""
resumed routed
assert_eq "routed: one routed event for B1, recovered" "$(events_of routed routed 2)" recovered
assert_eq "routed: the others live" "$(events_of routed routed 3) $(events_of routed routed 4)" "live live"
# ... and the last routing, whose run_finished event is lost with it
crash routed_end routed:4
"$TILEPORT" resume "$T/routed_end/softmax" >"$T/routed_end.log2" 2>&1
assert_eq "routed_end: the run_finished event, recovered" "$(events_of routed_end run_finished 0)" recovered
assert_eq "routed_end: E1's routed event, recovered" "$(events_of routed_end routed 4)" recovered

# 4. partial outputs: A is killed half-way through copying its files (a
#    truncated analysis.json, a nested reference/reference/ from a cp -R
#    into a folder that existed). Before A runs again they move to its
#    attempt folder: nothing lost, nothing stale left. Its own transcript
#    and stderr, and the torn last event the kill left, are kept in its
#    killed/ folder, which the re-run does not empty (issue 26).
cat >"$T/half_a.sh" <<EOS
#!/bin/sh
mkdir -p "\$TILEPORT_RUN_DIR/reference/reference"
printf '{"kernel": ' >"\$TILEPORT_RUN_DIR/reference/analysis.json"
echo half >"\$TILEPORT_RUN_DIR/reference/reference/reference.mlir"
echo "half-way transcript"; echo "half-way stderr" >&2
exec sleep 300
EOS
chmod +x "$T/half_a.sh"
# shellcheck disable=SC2086
"$TILEPORT" run softmax --workspace "$WS" --out "$T/half" --headless $flags --driver "A=exec:$T/half_a.sh" \
	>"$T/half.log1" 2>&1 &
orch=$!
a1=$T/half/softmax/.tileport/attempts/01-A1
# the orchestrator has taken in what A said: it is in stderr.log and the
# transcript (tail -F waits on the file, for it to exist and to grow)
timeout 60 tail -F -n +1 "$a1/stderr.log" 2>/dev/null | grep -q -m 1 "half-way stderr" || bad "half: A never got going"
timeout 60 tail -F -n +1 "$a1/transcript.jsonl" 2>/dev/null | grep -q -m 1 "half-way transcript" ||
	bad "half: A's output never reached its transcript"
kill -9 "$orch"
wait "$orch" 2>/dev/null
printf '{"ts":"2026-12-0' >>"$T/half/softmax/.tileport/events.jsonl"
"$TILEPORT" resume "$T/half/softmax" --driver "A=exec:$FAKE" >"$T/half.log2" 2>&1
assert_eq "half: resume" "$?" "$ref_rc"
p=$T/half/softmax/.tileport/attempts/01-A1/partial
assert_eq "half: the truncated analysis.json kept" "$(cat "$p/reference/analysis.json")" '{"kernel": '
assert_eq "half: the nested copy kept" "$(cat "$p/reference/reference/reference.mlir")" half
if [ -e "$T/half/softmax/reference/reference" ] || [ -e "$T/half/softmax/reference/analysis.json" ]; then
	bad "half: the killed attempt's files are still in the run directory"
else
	ok "half: nothing stale left where A writes"
fi
assert_contains "half: the event names them" "$T/half.log2" \
	"A1: 2 files the interrupted attempt left (reference/analysis.json, reference/reference/reference.mlir) moved to .tileport/attempts/01-A1/partial/"
"$TILEPORT" status "$T/half/softmax" >"$T/half.status"
assert_contains "half: status says so" "$T/half.status" \
	"partial A1: 2 files the interrupted attempt left, moved to .tileport/attempts/01-A1/partial/"
assert_eq "half: the re-run's own files are in place" "$(ls "$T/half/softmax/.tileport/attempts/01-A1" | tr '\n' ' ')" \
	"killed partial prompt.md stderr.log transcript.jsonl validator.txt verdict.json "
assert_contains "half: the killed attempt's transcript kept" "$a1/killed/transcript.jsonl" "half-way transcript"
assert_contains "half: its stderr kept" "$a1/killed/stderr.log" "half-way stderr"
assert_contains "half: the torn event kept" "$a1/killed/events-torn.jsonl" '{"ts":"2026-12-0'
assert_contains "half: the event says where" "$T/half.log2" \
	"A1: the interrupted attempt's own files (events-torn.jsonl, prompt.md, stderr.log, transcript.jsonl) kept in .tileport/attempts/01-A1/killed/"
finish
