# Shared by the GPU checks (sourced by tests/gpu/*.sh; run by hand on a GPU
# machine, CI has none): the binary, the library, and clean skips.
#   TILEPORT=build/release/tileport tests/gpu/aa.sh
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
tp=${TILEPORT:-$top/build/release/tileport}
lib=${TILEPORT_CUPTI_LIB:-$(dirname "$tp")/libtileport_cupti.so}
out=${GPU_OUT:-$(mktemp -d "${TMPDIR:-/tmp}/tileport-gpu-XXXXXX")}
mkdir -p "$out"
py=${PYTHON:-python3}

skip() {
	echo "skip: $*"
	exit 0
}

need_gpu() {
	command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1 ||
		skip "no NVIDIA GPU on this machine"
	[ -x "$tp" ] || skip "no tileport binary at $tp (make)"
	[ -f "$lib" ] || skip "no $lib (built only where the CUDA toolkit with CUPTI is found)"
	export TILEPORT_CUPTI_LIB=$lib
}

need_torch() {
	"$py" -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null ||
		skip "no PyTorch with CUDA for $py (set PYTHON)"
}

# The CUDA C runner, built into $out once.
need_cuda_runner() {
	[ -x "$out/run_cuda" ] && return 0
	make -s -C "$top/samples/bench" OUT="$out" "$out/run_cuda" >"$out/nvcc.log" 2>&1 ||
		skip "cannot build samples/bench/run_cuda.cu (see $out/nvcc.log)"
}

# check DESC PYTHON-EXPRESSION over d = bench.json of DIR: prints and
# fails on False.
check() {
	if "$py" - "$2" "$3" <<'PY'
import json, sys
d = json.load(open(sys.argv[1] + "/bench.json"))
t = d["table"]
rows = [r for r in t["rows"] if r["ratio"] is not None]
ok = eval(sys.argv[2])
sys.exit(0 if ok else 1)
PY
	then echo "ok   $1"; else echo "FAIL $1"; failures=$((failures + 1)); fi
}
failures=0

# summary DIR: the numbers docs/perf.md records
summary() {
	"$py" - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1] + "/bench.json"))
t = d["table"]
g = d["processes"][0]["gpu_before"]
rows = [r for r in t["rows"] if r["ratio"] is not None]
worst = max(rows, key=lambda r: abs(r["ratio"] - 1))
print("result: geomean %.4f CI [%.4f, %.4f], worst config %s %.4f, %d configs, %d rounds;"
      " GPU %s driver %s SM %s MHz" % (t["geomean_ratio"], t["ci95"][0], t["ci95"][1],
      worst["config"], worst["ratio"], len(rows), d["rounds"], g.get("name"), g.get("driver"),
      g.get("sm_mhz")))
PY
}
