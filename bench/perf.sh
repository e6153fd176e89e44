#!/bin/sh
# Benchmark: what tileport bench and tileport perf cost on the CPU, where
# no GPU is needed. (The GPU side, what the injection library adds to a
# launch, is tests/gpu/overhead.sh.)
#
#   bench/perf.sh path/to/tileport [REPS]
#
# 1. `tileport bench --from DIR` on eight traces of 6 configurations x REPS
#    iterations (default 100, the runners' default: 400 samples a side and
#    config over two ABBA rounds; 5000 is the stress size, 480,000 records),
#    written by the test stand-in tests/integration/lib/fake_bench.py: read,
#    assign to ranges and iterations, statistics, the 2000-resample
#    bootstrap. Against awk summing the same files' kernel durations: the
#    floor of reading the bytes once. And with --resamples 100, to show
#    what the bootstrap itself costs.
# 2. `tileport perf` on two perf logs of 3000 configurations, against
#    grep -c over them (validate_perf_log.sh's whole work).
set -eu
tp=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
reps=${2:-100}
top=$(cd "$(dirname "$0")/.." && pwd)
command -v hyperfine >/dev/null || { echo "bench/perf.sh: hyperfine not installed" >&2; exit 3; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fake="python3 $top/tests/integration/lib/fake_bench.py --reps $reps --configs 4096-1024-float16,4096-4096-float16,16384-8192-float16,4096-1024-bfloat16,4096-4096-bfloat16,16384-8192-bfloat16"
"$tp" bench --inject none --ref "$fake" --cand "$fake --scale 1.01" --out "$tmp/d" >/dev/null 2>&1
ls -l "$tmp"/d/*.trace | awk '{s += $5; n++} END {printf "%d traces, %.1f MB\n", n, s / 1e6}'
cat "$tmp"/d/*.trace | wc -l | awk '{printf "%d records\n", $1}'
python3 - "$tmp" <<'PY'
import sys
d = sys.argv[1]
def section(f, cfg, be, ms):
    f.write("tests/ops/test_big.py::T::test_perf[%s-%s]\n"
            "==================== Performance Test Results ====================\n"
            '{"%s": {"forward": {"median": %.6f, "rel_std": 1.0, "nrep": 100}}}\nPASSED\n'
            % (cfg, be, be, ms))
with open(d + "/base.txt", "w") as b, open(d + "/cand.txt", "w") as c:
    for i in range(3000):
        cfg = "%d-%d-float16" % (64 * (i % 100 + 1), 1024 * (i // 100 + 1))
        section(b, cfg, "cutile", 0.01 + i * 0.0001)
        section(c, cfg, "cutile_rs", (0.01 + i * 0.0001) * 1.02)
PY
hyperfine -N --warmup 2 --min-runs 10 --export-json "$tmp/h.json" \
	"$tp bench --from $tmp/d" \
	"$tp bench --from $tmp/d --resamples 100" \
	"awk -F\t '\$1 == \"K\" { s += \$3 - \$2 } END { print s }' $(echo "$tmp"/d/*.trace)" \
	"$tp perf $tmp/base.txt $tmp/cand.txt" \
	"grep -c -e PASSED -e FAILED -e 'Performance Test Results' $tmp/base.txt $tmp/cand.txt" \
	>"$tmp/hf.txt" 2>&1 || true
python3 - "$tmp/h.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
names = ["bench --from (2000 resamples)", "bench --from (100 resamples)", "awk over the traces",
         "perf, 3000 configs", "grep -c over the logs"]
for n, x in zip(names, r):
    print("%-32s median %8.1f ms  min %8.1f ms  user+sys %8.1f ms" % (
        n, x["median"] * 1e3, x["min"] * 1e3, (x["user"] + x["system"]) * 1e3))
m = [x["median"] for x in r]
print("bench --from / awk: %.2fx; the bootstrap: %.0f ms; perf / grep: %.1fx" % (
    m[0] / m[2], (m[0] - m[1]) * 1e3, m[3] / m[4]))
PY
