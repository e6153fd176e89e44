#!/bin/sh
# 'tileport batch start' on a (virtual) terminal opens the batch view over
# the live batch: rows follow the runs; x cancels the selected run (after a
# question) and the next one takes its slot; R puts it back in line;
# leaving asks first and stops what runs, and 'batch resume' finishes it.
. "$TILEPORT_TOP/tests/integration/lib/common.sh"
. "$TILEPORT_TOP/tests/integration/lib/batch.sh"
online_env
export TILEPORT_NO_DISPLAY=1 TILEPORT_DATA_DIR="$TILEPORT_TOP" TERM=xterm-256color COLUMNS=120 LINES=30
export XDG_CONFIG_HOME="$T/xdg" HOME="$T/home"
mkdir -p "$T/xdg" "$T/home"
W=$T/ws
batch_ws "$W"
batch_op "$W" l1
batch_op "$W" l2
scenario l1 "A: GATE PASS" "B: COMPILED" "D: ALL_PASS" "E: DONE geomean=1.0500"
scenario l2 "A: GATE PASS" "B: COMPILED" "D: ALL_PASS" "E: DONE geomean=1.0100"
cat >"$T/script" <<EOS
:save-display $T/s1.screen
x
y
:save-display $T/s2.screen
R
:save-display $T/s3.screen
q
y
EOS
# shellcheck disable=SC2046
TILEPORT_SCRIPT="$T/script" "$TILEPORT" batch start l1 l2 --workspace "$W" --out "$T/out" --name live \
	--jobs 1 $(batch_flags) >"$T/log" 2>&1
assert_eq "left unfinished: exit 1" "$?" 1
assert_contains "the view opened" "$T/s1.screen" "[batch] live - 1 running, 1 queued"
grep -qE '^[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] l1 +running ' "$T/s1.screen" && ok "l1 runs, with a spinner" || bad "l1 is not running (with a spinner) in s1"
grep -qE '^. l2 +queued ' "$T/s1.screen" && ok "l2 waits for the slot" || bad "l2 is not queued in s1"
grep -qE '^. l1 +cancelled ' "$T/s2.screen" && ok "x cancelled l1" || bad "l1 is not cancelled in s2"
grep -qE '^. l2 +running ' "$T/s2.screen" && ok "l2 took the slot" || bad "l2 is not running in s2"
grep -qE '^. l1 +queued ' "$T/s3.screen" && ok "R put l1 back in line" || bad "l1 is not queued in s3"
assert_contains "R says so" "$T/s3.screen" "l1: started again"
"$TILEPORT" batch status live --out "$T/out" --json >"$T/live.json"
# (l2 may have been stopped before its run began: then it never started)
case $(json_get "$T/live.json" '" ".join(o["state"] for o in d["ops"])') in
"pending interrupted" | "pending pending") ok "leaving stopped them: l1 never restarted, l2 stopped" ;;
*) bad "after leaving: $(json_get "$T/live.json" '" ".join(o["state"] for o in d["ops"])')" ;;
esac
touch "$BATCH_SCEN/l1.release" "$BATCH_SCEN/l2.release"
"$TILEPORT" batch resume live --out "$T/out" --headless >"$T/resume.log" 2>&1
assert_eq "resume finishes both (complete, not accepted: exit 1)" "$?" 1
"$TILEPORT" batch status live --out "$T/out" --json >"$T/live.json"
assert_eq "both complete" "$(json_get "$T/live.json" '" ".join(o["state"] for o in d["ops"])')" "complete complete"
finish
