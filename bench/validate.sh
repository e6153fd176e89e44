#!/bin/sh
# Benchmark: `tileport validate kernel` (the final output contract, all 19
# checks) on a complete run directory, against the process spawns the
# reference validate_kernel.sh makes for the same checks.
#
#   bench/validate.sh path/to/tileport
#
# The reference script is not part of this repository. What it runs is
# reconstructed from pipeline.md §3 (the 19 checks and the tools they use):
# 39 grep, 5 bash validate_perf_log.sh (4 grep -c each), find, nm -D,
# 2 python3 (analysis.json and the wrapper's AST scan), plus sed/head/
# basename in pipelines. bench/lib/validate_ref_spawns.sh runs those commands on
# the same files; the comparison is against that spawn pattern.
set -eu
tp=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
top=$(cd "$(dirname "$0")/.." && pwd)
command -v hyperfine >/dev/null || { echo "bench/validate.sh: hyperfine not installed" >&2; exit 3; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -R "$top/tests/fixtures/runs" "$tmp/out"
cp -R "$top/tests/fixtures/workspace" "$tmp/ws"
rel="$tmp/ws/src/tilegym/ops/cutile_rs/cutile_kernels/target/release"
mkdir -p "$rel"
${CC:-cc} -shared -fPIC -o "$rel/libcutile_kernels.so" "$top/tests/fixtures/elf/cutile_kernels.c"
export TILEGYM_PATH="$tmp/ws" CUTILE_KERNEL_OUT_ROOT="$tmp/out"
# the real interpreter, not a version-manager shim that would inflate the reference
PY=$(python3 -c 'import sys; print(sys.executable)')
export PY
"$tp" validate kernel softmax -q | tail -n 2 | tr '\n' ' '
echo
sh "$top/bench/lib/validate_ref_spawns.sh" softmax >/dev/null || {
	echo "bench/validate.sh: the reference spawn pattern failed on the fixture" >&2
	exit 1
}
hyperfine -N --warmup 20 --min-runs 200 --export-json "$tmp/k.json" \
	"$tp validate kernel softmax" \
	"$tp validate kernel softmax --json" \
	"sh $top/bench/lib/validate_ref_spawns.sh softmax" >"$tmp/hf.txt"
grep -E "^Benchmark|Time \(mean" "$tmp/hf.txt"
"$PY" - "$tmp/k.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
names = ["tileport validate kernel", "tileport validate kernel --json", "reference spawn pattern"]
for n, x in zip(names, r):
    print(f"{n:32s} median {x['median'] * 1000:7.2f} ms  mean {x['mean'] * 1000:7.2f} ms"
          f"  min {x['min'] * 1000:7.2f} ms")
print(f"ratio reference / tileport (median) {r[2]['median'] / r[0]['median']:6.1f}x")
print(f"ratio reference / tileport (min)    {r[2]['min'] / r[0]['min']:6.1f}x")
PY
