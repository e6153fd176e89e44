#!/bin/sh
# A known slowdown: the candidate launches its kernel twice per repetition.
# Pass: geomean within 3 % of 2.0, the verdict says FAIL (LARGE_GAP), and
# kernels per iteration 1 against 2.
. "$(dirname "$0")/lib.sh"
need_gpu
need_cuda_runner
r="$out/run_cuda"
"$tp" bench --rounds 2 --ref "$r" --cand "$r --twice" --out "$out/twice" >"$out/twice.txt" 2>"$out/twice.err"
rc=$?
[ "$rc" -eq 1 ] && echo "ok   exit 1 (FAIL)" || { echo "FAIL exit $rc"; failures=$((failures + 1)); }
grep -q 'LARGE_GAP' "$out/twice.txt" && echo "ok   the verdict line says LARGE_GAP" ||
	{ echo "FAIL no LARGE_GAP in $out/twice.txt"; failures=$((failures + 1)); }
check "geomean within 3% of 2.0" "$out/twice" 'abs(t["geomean_ratio"] / 2 - 1) <= 0.03'
check "kernels per iteration 1 and 2" "$out/twice" \
	'all(r["baseline"]["kernels_per_iter"] == 1 and r["candidate"]["kernels_per_iter"] == 2 for r in rows)'
summary "$out/twice"
[ "$failures" -eq 0 ]
