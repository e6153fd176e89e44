#!/bin/sh
# samples/agents/example_agent.py, the documented starting point for a
# driver: on a copy of the sample workspace, offline, it takes softmax
# through A, B and D to OFFLINE_COMPLETE with the orchestrator's built-in
# validators passing every stage (no --validator none, no fake toolchain),
# writes a transcript the screen can read, and says BLOCKED for what it
# cannot do.
. "$TILEPORT_TOP/tests/integration/lib/common.sh"
offline_env
export TILEPORT_BIN="$TILEPORT"
AGENT=$TILEPORT_TOP/samples/agents/example_agent.py
cp -R "$WS" "$T/ws"
"$TILEPORT" run softmax --workspace "$T/ws" --out "$T/out" --headless --driver "A=exec:$AGENT" \
	--driver "B=exec:$AGENT" --driver "D=exec:$AGENT" >"$T/run.log" 2>&1
assert_eq "example agent: the offline run completes" "$?" 0
"$TILEPORT" status "$T/out/softmax" --json >"$T/s.json"
assert_eq "path" "$(json_get "$T/s.json" 'd["path"]')" "A1 -> B1 -> D1 -> OFFLINE_COMPLETE"
assert_eq "every stage's own validator passed (deferring the toolchain steps)" \
	"$(json_get "$T/s.json" '" ".join(a["validator"] for a in d["attempts"])')" "deferred deferred deferred"
assert_eq "no soft markers: every reply carried its validator block" "$(json_get "$T/s.json" 'len(d["soft_markers"])')" 0
assert_eq "outcome" "$(json_get "$T/s.json" 'd["outcome"]')" pending
python3 - "$T/out/softmax/.tileport/attempts/02-B1/transcript.jsonl" <<'PY' && ok "a JSON-lines transcript: start, tool calls, final" || bad "transcript"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
kinds = [r["type"] for r in recs]
assert kinds[0] == "start" and kinds[-1] == "final", kinds
assert "tool_call" in kinds and "tool_result" in kinds, kinds
assert recs[-1]["text"].rstrip().endswith("VERDICT: DEFERRED"), recs[-1]["text"]
PY
assert_contains "D registered the op in the workspace" "$T/ws/src/tilegym/ops/cutile_rs/__init__.py" "from . import softmax"
assert_contains "D added the backend to the op's tests" "$T/ws/tests/ops/test_softmax.py" '"cutile-rs"'
# online it does not pretend: BLOCKED, with the reason written down
online_env
cp -R "$WS" "$T/ws2"
"$TILEPORT" run softmax --workspace "$T/ws2" --out "$T/on" --headless --driver "A=exec:$AGENT" \
	--driver "B=exec:$AGENT" --driver "C=exec:$AGENT" --driver "D=exec:$AGENT" --driver "E=exec:$AGENT" \
	>"$T/on.log" 2>&1
assert_eq "online: the run stops" "$?" 1
assert_contains "online: BLOCKED, saying why" "$T/on/softmax/SKILL_METHODOLOGY_BLOCKED.txt" \
	"it cannot build, test or benchmark"
finish
