#!/bin/sh
# kill -9 of the orchestrator at 20 random points of a run, then resume:
# the final state equals an uninterrupted run's, no attempt is lost or
# duplicated, and state.json parses after every kill. The kill comes from
# the orchestrator itself (TILEPORT_TEST_CRASH_AT=N sends it SIGKILL at its
# Nth state transition), so the points are exact and need no timing.
. "$TILEPORT_TOP/tests/integration/lib/common.sh"
online_env
seed=${TILEPORT_TEST_SEED:-20261129}
echo "seed $seed (TILEPORT_TEST_SEED=$seed reproduces this run)"

scen="$T/scen"
printf '%s\n' "A: PASS" "B: COMPILED block=bad" "B: COMPILED" "D: FAIL class=host" "D: ALL_PASS" \
	"E: DONE format=json" >"$scen"
export FAKE_SCENARIO="$scen"
# shellcheck disable=SC2046
set -- $(fake_flags) --validator D=true
flags="$*"


# The uninterrupted run, counting the crash points it passes.
# shellcheck disable=SC2086
TILEPORT_TEST_CRASH_COUNT="$T/count" "$TILEPORT" run softmax --workspace "$WS" --out "$T/ref" --headless $flags \
	>"$T/ref.log" 2>&1
ref_rc=$?
# fake agents leave no real files: the contract refuses the run (exit 1)
assert_eq "reference run: ends, not accepted" "$ref_rc" 1
"$TILEPORT" status "$T/ref/softmax" --json >"$T/ref.json"
run_facts "$T/ref.json" >"$T/ref.norm"
(cd "$T/ref/softmax/.tileport/attempts" && ls) >"$T/ref.dirs"
total=$(cat "$T/count")
echo "a whole run passes $total crash points"
[ "$total" -gt 20 ] || bad "too few crash points ($total)"

points=$(awk -v s="$seed" -v n="$total" 'BEGIN { srand(s); for (i = 0; i < 20; i++) print 1 + int(rand() * n) }')
for k in $points; do
	out="$T/k$k"
	rm -rf "$out"
	# shellcheck disable=SC2086
	TILEPORT_TEST_CRASH_AT=$k "$TILEPORT" run softmax --workspace "$WS" --out "$out" --headless $flags \
		>"$out.log1" 2>&1
	rc=$?
	if [ "$rc" -ne 137 ]; then
		bad "point $k: expected SIGKILL (137), got $rc"
		continue
	fi
	st="$out/softmax/.tileport/state.json"
	if [ -f "$st" ]; then
		python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$st" ||
			bad "point $k: state.json does not parse after the kill"
		# a relative RUN path: agents must still get absolute paths
		(cd "$T" && "$TILEPORT" resume "k$k/softmax") >"$out.log2" 2>&1
	else
		# killed before the run existed: starting it again is the recovery
		# shellcheck disable=SC2086
		"$TILEPORT" run softmax --workspace "$WS" --out "$out" --headless $flags >"$out.log2" 2>&1
	fi
	rc=$?
	if [ "$rc" -ne "$ref_rc" ]; then
		bad "point $k: recovery exited $rc, the uninterrupted run $ref_rc"
		tail -n 5 "$out.log2"
		continue
	fi
	"$TILEPORT" status "$out/softmax" --json >"$out.json"
	run_facts "$out.json" >"$out.norm"
	if cmp -s "$T/ref.norm" "$out.norm"; then
		ok "point $k: final state equals the uninterrupted run"
	else
		bad "point $k: final state differs"
		diff "$T/ref.norm" "$out.norm" | head -n 20
	fi
	(cd "$out/softmax/.tileport/attempts" && ls) >"$out.dirs"
	if cmp -s "$T/ref.dirs" "$out.dirs"; then
		ok "point $k: same attempt directories"
	else
		bad "point $k: attempt directories differ: $(tr '\n' ' ' <"$out.dirs")"
	fi
	python3 - "$out/softmax/.tileport/events.jsonl" <<'PY' || bad "point $k: events.jsonl has a bad line"
import json, sys
for line in open(sys.argv[1]):
    json.loads(line)
PY
done
finish
