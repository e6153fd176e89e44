#!/bin/sh
# Orchestrator overhead: a whole run of the happy path (A -> B -> D -> E ->
# PIPELINE_COMPLETE) with an agent that answers at once, against the bare
# cost of starting the same four agent processes with /bin/sh -c, which is
# the floor any orchestrator pays. Both are timed by hyperfine.
#   bench/orchestrator.sh [TILEPORT]
set -eu
tp=$(realpath "${1:-build/release/tileport}")
top=$(cd "$(dirname "$0")/.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/bin" "$T/tc"
for p in cargo tileiras cuda-tile-opt; do printf '#!/bin/sh\necho %s\n' "$p" >"$T/bin/$p"; chmod +x "$T/bin/$p"; done
cat >"$T/agent.sh" <<'EOS'
#!/bin/sh
case $TILEPORT_STAGE in A) v=PASS ;; B) v=COMPILED ;; D) v=ALL_PASS ;; E) v=DONE ;; esac
printf '<VALIDATOR_OUTPUT>\n$ validate\nexit=0\n</VALIDATOR_OUTPUT>\nVERDICT: %s\n' "$v"
EOS
chmod +x "$T/agent.sh"
export PATH="$T/bin:$PATH" TILEPORT_GPU=1 TILEIRAS_BIN="$T/bin/tileiras" CUDA_TILE_OPT_BIN="$T/bin/cuda-tile-opt"
export TRITON_TILEIR_PYTHONPATH="$T/tc" CUDA_TOOLKIT_PATH="$T/tc"
flags=""
for s in A B C D E F; do flags="$flags --driver $s=exec:$T/agent.sh --validator $s=none"; done
run="rm -rf $T/out; $tp run softmax --workspace $top/samples/workspace --out $T/out --headless $flags >/dev/null"
floor="for s in A B D E; do TILEPORT_STAGE=\$s /bin/sh -c $T/agent.sh >/dev/null; done"
pre="$tp preflight --workspace $top/samples/workspace --out $T/out >/dev/null; true"
hyperfine -N --warmup 3 --runs 30 --export-json "$T/h.json" -n tileport-run "sh -c '$run'" \
	-n preflight "sh -c '$pre'" -n bare-agents "sh -c '$floor'" >/dev/null 2>&1
python3 - "$T/h.json" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
a, p, b = r["tileport-run"], r["preflight"], r["bare-agents"]
ms = lambda x: x["median"] * 1000
print(f"whole run, 4 stages     median {ms(a):7.1f} ms")
print(f"  of which preflight    median {ms(p):7.1f} ms (probes cargo, python, nvidia-smi once per run)")
print(f"4 bare agent spawns     median {ms(b):7.1f} ms (the floor: sh -c agent, four times)")
per = (ms(a) - ms(p) - ms(b)) / 4
print(f"orchestration per stage (run - preflight - bare agents) / 4: {per:.1f} ms")
print(f"ratio whole run / (preflight + bare agents): {ms(a) / (ms(p) + ms(b)):.2f}x")
PY
