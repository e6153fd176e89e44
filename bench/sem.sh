#!/bin/sh
# Benchmark: the semantic check (engine/sem, `tileport equiv`) in process, on
# TileGym's five ports with their launchers (the largest, attention_sink, is
# the TileGym-sized pair the budget of 20 ms is for), the translator's
# goldens and tileport's own kernels. Per pair: the median and minimum of
# SEM_BENCH_RUNS checks (default 200), beside reading the two files alone
# (the Python parsed, the Rust parsed: what any check must pay), and the
# ratio of the two; then the median of 50 whole processes `tileport equiv`
# (start, read, check, print: what stage B and the source view pay).
#   bench/sem.sh [TILEPORT]      (its build directory's libengine.a is used)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$top/build/release/tileport}
case "$bin" in /*) ;; *) bin="$PWD/$bin" ;; esac
build=$(dirname "$bin")
[ -f "$build/libengine.a" ] || { echo "sem.sh: $build/libengine.a not found (make first)" >&2; exit 3; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
libs=$(pkg-config --libs libcjson 2>/dev/null || echo "-lcjson") # libgit2, libcurl: loaded on first use
${CC:-cc} -O2 -std=c11 -D_GNU_SOURCE -I"$top" "$top/bench/sem_time.c" "$build/libengine.a" $libs -lm \
	-o "$tmp/sem_time"
tg=$top/tests/fixtures/sem/tilegym
own=$top/tests/fixtures/sem/own
ws=$top/samples/workspace/src/tilegym/ops
g=$top/tests/fixtures/port/golden
set --
for k in attention_sink bmm matmul swiglu silu_and_mul; do
	set -- "$@" "$tg/$k.py" "$tg/$k.kernel.rs" "$tg/$k.ffi.rs"
done
for k in softmax layer_norm matmul silu_and_mul; do
	set -- "$@" "$ws/cutile/$k.py" "$g/$k.kernel.rs" -
done
set -- "$@" "$ws/triton/rms_norm.py" "$g/rms_norm.kernel.rs" -
for k in gemm_tb gather_softmax row_norm softplus_gate; do
	set -- "$@" "$own/$k.py" "$own/$k.rs" -
done
echo "semantic check, in process ($(uname -m), $(nproc) cores):"
TILEPORT=$bin "$tmp/sem_time" "${SEM_BENCH_RUNS:-200}" "$@"
