#!/bin/sh
# Benchmark: `tileport validate ir` on generated Tile IR of 1, 4 and 50 MB
# (many entries, a key op every few lines: the shapes that made the
# validator quadratic, docs/perf.md "validate ir"). Each size is timed
# once; the check is that time grows with size, not with its square.
#
#   bench/validate_ir.sh path/to/tileport
set -eu
tp=$1
tmp=$(mktemp -d)
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
for mb in 1 4 50; do
	gen "$mb" "$tmp/ir$mb.mlir"
	start=$(date +%s.%N)
	"$tp" validate ir "$tmp/ir$mb.mlir" softmax >/dev/null || true
	end=$(date +%s.%N)
	echo "validate ir ${mb} MB: $(echo "$end - $start" | bc) s"
done
