#!/bin/sh
# Benchmark: the mechanical converter (docs/mech.md) — `tileport translate`
# (parse, lower, write kernel.rs) on the largest sample and fixture kernels,
# `--emit ffi`, `equiv` (the semantic check) of a pair, and `analyze` (the
# op and its tests to analysis.json). Each is one process start plus the
# work, as a stage runs it.
#
#   bench/port.sh path/to/tileport
set -eu
tp=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
top=$(cd "$(dirname "$0")/.." && pwd)
command -v hyperfine >/dev/null || { echo "bench/port.sh: hyperfine not installed" >&2; exit 3; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ws=$top/samples/workspace
k=$top/tests/fixtures/port/kernels
"$tp" translate "$ws/src/tilegym/ops/cutile/layer_norm.py" >"$tmp/ln.rs"
hyperfine -N --warmup 10 --min-runs 100 --export-json "$tmp/p.json" \
	"$tp translate $ws/src/tilegym/ops/cutile/layer_norm.py" \
	"$tp translate $k/attention.py" \
	"$tp translate $k/persistent_matmul.py" \
	"$tp translate $ws/src/tilegym/ops/triton/rms_norm.py" \
	"$tp translate $ws/src/tilegym/ops/cutile/layer_norm.py --emit ffi" \
	"$tp equiv $ws/src/tilegym/ops/cutile/layer_norm.py $tmp/ln.rs" \
	"$tp analyze layer_norm --workspace $ws --print" \
	"$tp --version" >"$tmp/hf.txt"
python3 - "$tmp/p.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
names = ["translate layer_norm (2 variants)", "translate attention (fixture)",
         "translate persistent_matmul", "translate rms_norm (Triton)",
         "translate layer_norm --emit ffi", "equiv layer_norm", "analyze layer_norm",
         "process start (--version)"]
for n, x in zip(names, r):
    print(f"{n:36s} median {x['median'] * 1000:7.2f} ms  min {x['min'] * 1000:7.2f} ms")
PY
