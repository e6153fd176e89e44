#!/bin/sh
# Benchmark: the real compiler in the loop (docs/compile.md) — `tileport
# compile` of one changed kernel after the first build in a workspace (goal:
# 2 s or less on a 2-core machine), split into cargo's type check and
# cutile's lowering, against the floor of a plain `cargo build` of the same
# scratch crate with nothing changed; and the cold first build in an empty
# cache (COMPILE_BENCH_COLD=0 skips it: minutes).
#
#   bench/compile.sh path/to/tileport     (COMPILE_BENCH_OP=layer_norm: another sample op)
# The crates: the user's cargo and crates.io, or build/cutile/env.sh (the
# vendored cutile 0.2.0 that make check prepares with mk/cutile.sh).
set -eu
tp=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck disable=SC1091
[ -f "$top/build/cutile/env.sh" ] && . "$top/build/cutile/env.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -R "$top/samples/workspace" "$tmp/ws"
cd "$tmp/ws"
op=${COMPILE_BENCH_OP:-softmax}
src=src/tilegym/ops/cutile/$op.py
[ -f "$src" ] || src=src/tilegym/ops/triton/$op.py
"$tp" translate "$src" >"$tmp/k.rs"
"$tp" translate "$src" --emit ffi >"$tmp/f.rs"
run() { # LABEL: one compile, its wall time and the report's split
	start=$(python3 -c 'import time; print(time.monotonic())')
	"$tp" compile "$tmp/k.rs" --ffi "$tmp/f.rs" --out "$tmp/o" --json >"$tmp/r.json" 2>"$tmp/e" ||
		{ echo "bench/compile.sh: tileport compile failed:" >&2; cat "$tmp/e" >&2; exit 1; }
	python3 - "$start" "$tmp/r.json" "$1" >>"$tmp/times" <<'PY'
import json, sys, time
start, path, label = float(sys.argv[1]), sys.argv[2], sys.argv[3]
wall = time.monotonic() - start
r = json.load(open(path))
print(f"{label} {wall:.3f} {r['check_ms'] / 1000:.3f} {r['lower_ms'] / 1000:.3f} {len(r['outputs'])}")
PY
}
: >"$tmp/times"
if [ "${COMPILE_BENCH_COLD:-1}" != 0 ]; then
	TILEPORT_CACHE_DIR=$tmp/cold-cache run cold
fi
run warmup
for i in 1 2 3 4 5 6 7; do
	echo "// edit $i" >>"$tmp/k.rs" # a changed kernel each time
	run warm
done
# the floor: cargo itself on the same scratch crate, nothing changed
check=$(ls -d "${TILEPORT_CACHE_DIR:-$HOME/.cache/tileport}"/compile/deps-*/check-ws-* 2>/dev/null | head -1)
for i in 1 2 3 4 5; do
	start=$(python3 -c 'import time; print(time.monotonic())')
	CARGO_TARGET_DIR=$(dirname "$check")/target cargo build -q --manifest-path "$check/Cargo.toml" \
		--message-format=json >/dev/null 2>&1
	python3 -c "import time; print('floor', round(time.monotonic() - $start, 3))" >>"$tmp/times"
done
python3 - "$tmp/times" "$op" <<'PY'
import statistics, sys
op = sys.argv[2]
rows = [l.split() for l in open(sys.argv[1])]
warm = [r for r in rows if r[0] == "warm"]
cold = [r for r in rows if r[0] == "cold"]
floor = statistics.median(float(r[1]) for r in rows if r[0] == "floor")
w = statistics.median(float(r[1]) for r in warm)
chk = statistics.median(float(r[2]) for r in warm)
low = statistics.median(float(r[3]) for r in warm)
print(f"{op} (kernel + ffi, {warm[0][4]} specialisation(s)), {len(warm)} changed-kernel runs:")
print(f"  warm tileport compile   median {w:6.2f} s  (type check {chk:.2f} s, lowering {low:.2f} s,"
      f" {warm[0][4]} specialisations)  goal <= 2 s: {'met' if w <= 2 else 'NOT met'}")
print(f"  cargo alone, unchanged  median {floor:6.2f} s  ratio {w / floor:5.1f}x")
if cold:
    print(f"  cold (empty cache)      {float(cold[0][1]):6.1f} s  ratio {float(cold[0][1]) / w:5.0f}x the warm check")
PY
