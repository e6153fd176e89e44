#!/bin/sh
# Benchmark: `tileport validate ir` on generated Tile IR of 1, 4 and 50 MB
# (many entries, a key op every few lines: the shapes that made the
# validator quadratic, docs/perf.md "validate ir"). Each size is timed
# once; the check is that time grows with size, not with its square.
#
#   bench/validate_ir.sh path/to/tileport [BASE]
#
# BASE (also $VALIDATE_IR_BENCH_BASE), another build such as main's before
# issue 17, is timed on the 1 and 4 MB files too (50 MB would not finish),
# and the ratio BASE / tileport is printed.
set -eu
tp=$1
base_tp=${2:-${VALIDATE_IR_BENCH_BASE:-}}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tileport-bench-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
gen() { # MB FILE
	python3 - "$1" "$2" <<'PY'
import sys
mb, path = int(sys.argv[1]), sys.argv[2]
with open(path, "w") as f:
    f.write("cuda_tile.module @m {\n")
    size, i = 0, 0
    while size < mb * 1_000_000:
        block = (f" entry @k{i}() optimization_hints=<sm_100 = {{}}> {{\n"
                 f"   %0 = load_ptr_tko %a : tile<4xf32>\n   return\n }}\n")
        f.write(block)
        size += len(block)
        i += 1
    f.write("}\n")
PY
}
# the comparison: each size's time per MB against the 1 MB file's (1.00 is
# linear; the quadratic validator of before issue 17 gave 5.8 at 4 MB)
time_ns() { # BINARY FILE
	start=$(date +%s%N)
	"$1" validate ir "$2" softmax >/dev/null || true
	end=$(date +%s%N)
	echo $((end - start))
}
base=
for mb in 1 4 50; do
	gen "$mb" "$tmp/ir$mb.mlir"
	ns=$(time_ns "$tp" "$tmp/ir$mb.mlir")
	[ -n "$base" ] || base=$ns
	awk -v mb="$mb" -v ns="$ns" -v base="$base" 'BEGIN {
		printf "validate ir %2d MB: %6.2f s, time per MB vs 1 MB: %.2f\n",
			mb, ns / 1e9, (ns / mb) / base }'
	if [ -n "$base_tp" ] && [ "$mb" -le 4 ]; then
		bns=$(time_ns "$base_tp" "$tmp/ir$mb.mlir")
		awk -v mb="$mb" -v ns="$ns" -v bns="$bns" 'BEGIN {
			printf "  base %2d MB: %6.2f s, base / tileport: %.1f\n", mb, bns / 1e9, bns / ns }'
	fi
done
