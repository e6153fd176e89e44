#!/bin/sh
# GPU machine check (run by hand; CI has no GPU and skips it): preflight
# must find the GPU through nvidia-smi, and an offline run must still work
# there. Usage: tests/gpu/preflight.sh [TILEPORT]
set -u
tp=${1:-${TILEPORT:-build/release/tileport}}
top=$(cd "$(dirname "$0")/../.." && pwd)
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
	echo "skip: no NVIDIA GPU on this machine"
	exit 0
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
unset TILEPORT_GPU
TILEGYM_PATH="$top/samples/workspace" CUTILE_KERNEL_OUT_ROOT="$T/out" "$tp" preflight --json >"$T/pf.json"
python3 - "$T/pf.json" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
gpu = [i for i in d["items"] if i["name"] == "GPU"][0]
print("GPU:", gpu.get("value") or gpu.get("problem"))
sys.exit(0 if gpu["ok"] and gpu["value"].startswith("GPU 0:") else 1)
PY
echo "ok: preflight sees the GPU"
