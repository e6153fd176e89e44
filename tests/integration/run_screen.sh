#!/bin/sh
# `tileport run OP` without --headless opens the live pipeline view (here on
# the virtual screen, driven by a script that waits until nothing streams),
# and the run goes on to its end behind the screen.
. "$TILEPORT_TOP/tests/integration/lib/common.sh"
online_env
export TILEPORT_NO_DISPLAY=1 TILEPORT_DATA_DIR="$TILEPORT_TOP" TERM=xterm-256color COLUMNS=120 LINES=30
export XDG_CONFIG_HOME="$T/xdg" HOME="$T/home"
mkdir -p "$T/xdg" "$T/home"
printf 'A: PASS\nB: COMPILED\nD: ALL_PASS\nE: DONE\n' >"$T/scen"
# R goes from the live run to the runs of its output root (the session's).
printf ':save-display %s/live.screen\nR\n:save-display %s/runs.screen\nq\n' "$T" "$T" >"$T/script"
# shellcheck disable=SC2046
FAKE_SCENARIO="$T/scen" TILEPORT_SCRIPT="$T/script" "$TILEPORT" run softmax --workspace "$WS" --out "$T/out" \
	$(fake_flags) >"$T/log" 2>&1
assert_eq "run through the screen: ends, not accepted (fake agents)" "$?" 1
assert_contains "the pipeline view was shown" "$T/live.screen" "softmax"
for stage in A B D E; do
	grep -qE "^[^ ]+ $stage .* done " "$T/live.screen" && ok "stage row $stage done" || bad "no done row for stage $stage"
done
assert_contains "the run finished behind the screen" "$T/live.screen" "PIPELINE_COMPLETE"
assert_contains "R shows the runs view" "$T/runs.screen" "[runs] $T/out - 1 run"
grep -q "^softmax .*PIPELINE_COMPLETE *not accepted" "$T/runs.screen" && ok "the run is listed with its outcome" ||
	bad "no softmax row with its outcome in the runs view"
assert_eq "final state" "$("$TILEPORT" status "$T/out/softmax" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["final"])')" \
	"PIPELINE_COMPLETE"
finish
