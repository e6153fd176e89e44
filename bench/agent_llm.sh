#!/bin/sh
# The llm driver's cost per model turn: `tileport agent` through a 20-turn
# scripted conversation (each turn a list_dir call, its stream cut into
# pieces) against the loopback test server, timed by hyperfine. The time per
# turn bounds what the driver adds to a real model's turn (request building,
# SSE parsing, fragment reassembly, the tool, the transcript); the server's
# own work is inside it too.
#   bench/agent_llm.sh [TILEPORT]
set -eu
tp=$(realpath "${1:-build/release/tileport}")
top=$(cd "$(dirname "$0")/.." && pwd)
T=$(mktemp -d)
srv=
trap '[ -n "$srv" ] && kill "$srv" 2>/dev/null; rm -rf "$T"' EXIT
python3 - "$T/scen.json" <<'PY'
import json, sys
steps = [{"split": "random", "reply": {"text": "Turn %d." % i, "usage": {"in": 1000, "out": 20},
          "tools": [{"id": "call_%d" % i, "name": "list_dir", "input": {"path": "."}}]}} for i in range(20)]
steps.append({"reply": {"text": "<VALIDATOR_OUTPUT>\n$ true\nexit=0\n</VALIDATOR_OUTPUT>\nVERDICT: COMPILED"}})
json.dump({"loop": True, "seed": 1, "steps": steps}, open(sys.argv[1], "w"))
PY
mkfifo "$T/port"
python3 "$top/tests/integration/lib/llm_server.py" "$T/scen.json" --port-fifo "$T/port" --report "$T/report" \
	--timeout 600 &
srv=$!
read -r port <"$T/port"
# a run directory for the agent: stage A by a script that stops the run
printf '#!/bin/sh\nprintf "VERDICT: BLOCKED\\n"\n' >"$T/a.sh"
chmod +x "$T/a.sh"
export XDG_CONFIG_HOME="$T/xdg" TILEPORT_GPU=0
mkdir -p "$XDG_CONFIG_HOME"
flags=""
for s in A B C D E F; do flags="$flags --driver $s=exec:$T/a.sh --validator $s=none"; done
# shellcheck disable=SC2086
"$tp" run softmax --workspace "$top/samples/workspace" --out "$T/out" --headless $flags >/dev/null 2>&1 || true
export TILEPORT_LLM_BASE_URL="http://127.0.0.1:$port/v1" TILEPORT_LLM_MODEL=bench
agent="$tp agent --stage B --run $T/out/softmax --driver llm --attempt $T/att >/dev/null"
# the conversation really has its 20 tool turns (each run takes all 21 steps,
# so every timed run starts at the first)
"$tp" agent --stage B --run "$T/out/softmax" --driver llm --attempt "$T/att" >"$T/check.tx"
calls=$(grep -c '"type":"tool_call"' "$T/check.tx" || true)
[ "$calls" = 20 ] || { echo "bench/agent_llm.sh: expected 20 tool calls, got $calls" >&2; exit 1; }
hyperfine -N --warmup 2 --runs 15 --export-json "$T/h.json" -n agent "sh -c '$agent'" >/dev/null 2>&1
python3 - "$T/h.json" "$T/check.tx" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
a = r["median"] * 1000
records = sum(1 for _ in open(sys.argv[2]))
print(f"tileport agent, 20 tool turns + final   median {a:7.1f} ms (min {r['min']*1000:.1f}, max {r['max']*1000:.1f})")
print(f"per model turn, server included: {a / 21:.2f} ms; {records} transcript records per run")
PY
