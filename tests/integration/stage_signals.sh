#!/bin/sh
# A stage killed from outside is not judged: its attempt runs again under
# the same number. Alone (someone kills the agent), at once, and killed
# again it is judged like any reply without a verdict. Together with its
# tileport, as Slurm ends a job (every process of it gets SIGTERM), the
# attempt is still to run when tileport stops: resume runs it and the run
# ends as an undisturbed one, whichever of the two deaths tileport saw first.
. "$TILEPORT_TOP/tests/integration/lib/common.sh"
. "$TILEPORT_TOP/tests/integration/lib/batch.sh"
online_env
parent_of() { sed 's/.*) . \([0-9]*\) .*/\1/' "/proc/$1/stat"; }
W=$T/ws
batch_ws "$W"
batch_op "$W" alone
batch_op "$W" both
scenario alone "A: GATE PASS" "A: PASS" "B: COMPILED" "D: ALL_PASS" "E: DONE"
# shellcheck disable=SC2046
"$TILEPORT" run alone --workspace "$W" --out "$T/out" --headless $(batch_flags) >"$T/alone.log" 2>&1 &
pid=$!
wait_for 60 "the agent started" '[ -s "$BATCH_SCEN/alone.entered" ]'
# the agent and the shell its driver started it in (its group leader)
agent=$(cat "$BATCH_SCEN/alone.entered")
rm "$BATCH_SCEN/alone.entered"
kill -TERM "$(parent_of "$agent")" "$agent"
# the same attempt again (line 1 of the scenario once more: it waits again)
wait_for 60 "A1 started again" '[ -s "$BATCH_SCEN/alone.entered" ]'
again=$(cat "$BATCH_SCEN/alone.entered")
kill -TERM "$(parent_of "$again")" "$again"
wait "$pid"
# to its end (not accepted: fake agents write no real files)
assert_eq "the run went on" "$?" 1
assert_eq "the run went on to its end" "$(json_get "$T/out/alone/.tileport/state.json" 'd["final"]')" PIPELINE_COMPLETE
assert_eq "killed once: run again; twice: judged, and repaired" \
	"$(json_get "$T/out/alone/.tileport/state.json" '" ".join(a["dir"] for a in d["attempts"])')" \
	"01-A1 02-A1r 03-B1 04-D1 05-E1"
assert_contains "the kill is on record" "$T/alone.log" "A1 ended: killed by signal 15"
assert_contains "run again, not judged" "$T/alone.log" "A1 was interrupted; running it again under the same number"
assert_contains "killed again: judged like any reply without a verdict" "$T/alone.log" \
	"A1 returned no verdict; gate: repair"

scenario both "A: PASS" "B: GATE COMPILED" "D: ALL_PASS" "E: DONE"
# shellcheck disable=SC2046
"$TILEPORT" run both --workspace "$W" --out "$T/out" --headless $(batch_flags) >"$T/both.log" 2>&1 &
pid=$!
wait_for 60 "the agent started" '[ -s "$BATCH_SCEN/both.entered" ]'
# as slurmstepd ends a job: every process, the agent's first
agent=$(cat "$BATCH_SCEN/both.entered")
kill -TERM "$(parent_of "$agent")" "$agent" "$pid"
wait "$pid"
assert_eq "interrupted: exit 1" "$?" 1
assert_eq "saved as aborted, the attempt still to run" \
	"$(json_get "$T/out/both/.tileport/state.json" 'd["status"] + " " + d["attempts"][-1]["state"]')" "aborted running"
touch "$BATCH_SCEN/both.release"
# shellcheck disable=SC2046
"$TILEPORT" resume "$T/out/both" --headless >"$T/both2.log" 2>&1
assert_eq "resume finishes it (not accepted: fake agents)" "$?" 1
assert_eq "resume finishes it" "$(json_get "$T/out/both/.tileport/state.json" 'd["final"]')" PIPELINE_COMPLETE
scenario calm "A: PASS" "B: COMPILED" "D: ALL_PASS" "E: DONE"
mkdir -p "$T/calm"
# shellcheck disable=SC2046
FAKE_SCENARIO="$BATCH_SCEN/calm" "$TILEPORT" run both --workspace "$W" --out "$T/calm" --headless \
	$(fake_flags) >/dev/null 2>&1
same_runs "$T/out" "$T/calm" both
finish
