#!/bin/sh
# A/A: the same runner as reference and candidate. Pass: geomean within
# [0.998, 1.002], no config off by more than 1 %, the interval holds 1.
# For the PyTorch runner and the CUDA C runner.
#   tests/gpu/aa.sh [ROUNDS]
. "$(dirname "$0")/lib.sh"
need_gpu
rounds=${1:-3}
run_aa() { # NAME COMMAND
	"$tp" bench --rounds "$rounds" --ref "$2" --cand "$2" --ref-name ref --cand-name cand \
		--out "$out/aa-$1" >"$out/aa-$1.txt" 2>"$out/aa-$1.err" || true
	[ -f "$out/aa-$1/bench.json" ] || { echo "FAIL $1: no result ($out/aa-$1.err)"; failures=$((failures + 1)); return; }
	check "$1: geomean within [0.998, 1.002]" "$out/aa-$1" '0.998 <= t["geomean_ratio"] <= 1.002'
	check "$1: no config off by more than 1%" "$out/aa-$1" 'all(abs(r["ratio"] - 1) <= 0.01 for r in rows)'
	check "$1: the interval holds 1" "$out/aa-$1" 't["ci95"][0] <= 1 <= t["ci95"][1]'
	summary "$out/aa-$1"
}
need_cuda_runner
run_aa cuda "$out/run_cuda"
if "$py" -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null; then
	run_aa torch "$py $top/samples/bench/run_torch.py"
else
	echo "skip: torch runner (no PyTorch with CUDA for $py)"
fi
echo "outputs in $out"
[ "$failures" -eq 0 ]
