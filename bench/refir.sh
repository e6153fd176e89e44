#!/bin/sh
# Benchmark and census: every cuTile Python operator of TileGym compiled by
# `tileport refir` (cuTile Python's own compiler, offline; docs/refir.md):
# how many of its kernels compile, the wall time per operator for compiling
# alone (one process: tileport, Python, cuda.tile, the op's imports) and
# with tileiras assembling each module for sm_90 and sm_100, and the first
# failure's reason. Results with machine and date in docs/perf.md.
#
#   bench/refir.sh path/to/tileport
#   TILEPORT_BENCH_PYTHON=/path/to/python   a Python with cuda.tile (default: build/pyenv,
#                                            which `make check` installs)
#   TILEPORT_BENCH_ASSEMBLE=0                compile only (tileiras takes minutes in all)
set -u
tp=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
top=$(cd "$(dirname "$0")/.." && pwd)
py=${TILEPORT_BENCH_PYTHON:-$top/build/pyenv/bin/python}
tg=$top/../shared/tilegym/TileGym-75a1430.tar.gz
if ! "$py" -c 'import cuda.tile' >/dev/null 2>&1; then
	echo "bench/refir.sh: skipped: no Python with cuda.tile at $py (mk/cutile-py.sh)"
	exit 0
fi
if [ ! -f "$tg" ]; then
	echo "bench/refir.sh: skipped: $tg absent"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tar xzf "$tg" -C "$tmp"
ws=$tmp/TileGym
ms() { date +%s%N | cut -c1-13; }
torch=$("$py" -c 'import torch; print(torch.__version__)' 2>/dev/null || echo "none (stood in for)")
echo "cuda.tile $("$py" -c 'import cuda.tile as c; print(c.__version__)'), torch $torch, $(nproc) cores, $(date -u +%Y-%m-%d)"
printf '%-28s %7s %9s %9s  %s\n' operator kernels compile "+tileiras" "first failure"
ops=$(cd "$ws/src/tilegym/ops/cutile" && ls ./*.py activation/*.py experimental/*.py 2>/dev/null |
	grep -v -e '__init__' -e 'utils.py' | sed 's#.*/##; s#\.py$##')
total=0 good=0 nops=0 clean=0 t_all=0 a_all=0
for op in $ops; do
	t0=$(ms)
	"$tp" refir "$op" --workspace "$ws" --out "$tmp/o/$op" --python "$py" --no-assemble --json \
		>"$tmp/$op.json" 2>"$tmp/$op.err"
	t1=$(ms)
	[ "${TILEPORT_BENCH_ASSEMBLE:-1}" = 0 ] ||
		"$tp" refir "$op" --workspace "$ws" --out "$tmp/a/$op" --python "$py" --json \
			>"$tmp/$op.a.json" 2>/dev/null
	t2=$(ms)
	line=$(python3 - "$tmp/$op.json" "$tmp/$op.err" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception:
    print("0 0", open(sys.argv[2]).read().strip().splitlines()[-1][:90] if open(sys.argv[2]).read().strip() else "?")
    sys.exit()
ks = d.get("kernels", [])
ok = sum(1 for k in ks if k["ok"])
why = d.get("load_error") or next((k["error"] for k in ks if not k["ok"]), "")
print(len(ks), ok, why.replace("\n", " ")[:90])
PY
)
	n=${line%% *}; rest=${line#* }; k=${rest%% *}; why=${rest#* }
	[ "$why" = "$k" ] && why=""
	total=$((total + n)); good=$((good + k)); nops=$((nops + 1))
	[ "$n" -gt 0 ] && [ "$n" -eq "$k" ] && clean=$((clean + 1))
	t_all=$((t_all + t1 - t0)); a_all=$((a_all + t2 - t0))
	printf '%-28s %3s/%-3s %7.2f s %7.2f s  %s\n' "$op" "$k" "$n" \
		"$(echo "($t1 - $t0) / 1000" | bc -l)" "$(echo "($t2 - $t0) / 1000" | bc -l)" "$why"
done
printf '%d operators: %d with every kernel compiled; %d of %d kernels; %.1f s in all (%.1f s with tileiras)\n' \
	"$nops" "$clean" "$good" "$total" "$(echo "$t_all / 1000" | bc -l)" "$(echo "$a_all / 1000" | bc -l)"
