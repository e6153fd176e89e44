#!/bin/sh
# Capture small real traces for the trace reader's CI tests: the CUDA C
# runner on two small configurations, 5 repetitions, one ABBA round, into
# tests/fixtures/trace/captured/ (with the bench.json and what tileport
# made of them). Commit them with the date and GPU in their README.
. "$(dirname "$0")/lib.sh"
need_gpu
need_cuda_runner
dest=$top/tests/fixtures/trace/captured
rm -rf "$dest"
"$tp" bench --rounds 1 --ref "$out/run_cuda --configs 256-1024-float16,256-4096-float32 --reps 5 --warmup-ms 2" \
	--cand "$out/run_cuda --configs 256-1024-float16,256-4096-float32 --reps 5 --warmup-ms 2 --twice" \
	--out "$dest" >"$out/bench.txt" 2>"$out/bench.err"
rm -f "$dest"/*.log
# what tileport made of them; CI reads the traces again and must agree
mv "$out/bench.txt" "$dest/bench.txt"
{
	echo "Captured by tests/gpu/capture_fixtures.sh on $(date -u +%Y-%m-%d),"
	nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
	echo "with the CUDA C runner (samples/bench/run_cuda.cu)."
} >"$dest/README"
ls -la "$dest"
