#!/bin/sh
# Agreement with torch.profiler: per-configuration median device time from
# our trace against torch.profiler's on the same kernels (the same runner,
# a separate process without the injection library: a profiler session
# inside an injected process cuts off the library's records). Pass: every
# config within 2 % at the median.
. "$(dirname "$0")/lib.sh"
need_gpu
need_torch
r="$py $top/samples/bench/run_torch.py"
"$tp" bench --rounds 1 --ref "$r" --cand "$r" --out "$out/agree" >"$out/agree.txt" 2>"$out/agree.err"
env -u CUDA_INJECTION64_PATH $r --torch-profiler "$out/torch.json" >"$out/torch.log" 2>&1 ||
	{ echo "FAIL the torch.profiler run (see $out/torch.log)"; exit 1; }
"$py" - "$out/agree/bench.json" "$out/torch.json" <<'PY'
import json, statistics, sys
ours = {r["config"]: r["baseline"]["median_ms"] * 1000 for r in json.load(open(sys.argv[1]))["table"]["rows"]}
prof = json.load(open(sys.argv[2]))
bad = 0
for cfg, us in sorted(prof.items()):
    theirs = statistics.median(us)
    d = ours[cfg] / theirs - 1
    print("%-24s ours %9.3f us  torch.profiler %9.3f us  %+.2f%%" % (cfg, ours[cfg], theirs, 100 * d))
    bad += abs(d) > 0.02
print("result: %d of %d configs within 2%%" % (len(prof) - bad, len(prof)))
sys.exit(1 if bad else 0)
PY
