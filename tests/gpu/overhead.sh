#!/bin/sh
# Host time per launch with and without the injection library, for
# back-to-back launches of an empty kernel (run_cuda --launch-overhead).
# Goal: the injection adds at most 4 us a launch. Best of 5 runs each.
. "$(dirname "$0")/lib.sh"
need_gpu
need_cuda_runner
best() { # best of 5 host_us_per_launch, with the extra environment in "$@"
	b=
	for _ in 1 2 3 4 5; do
		v=$(env "$@" "$out/run_cuda" --launch-overhead 200000 | sed -n 's/^host_us_per_launch=//p')
		b=$("$py" -c "print(min(x for x in [$v, ${b:-1e9}]))")
	done
	echo "$b"
}
plain=$(best TILEPORT_OVERHEAD=0)
inj=$(best CUDA_INJECTION64_PATH="$lib" TILEPORT_TRACE="$out/overhead.%p.trace")
"$py" - "$plain" "$inj" <<'PY'
import sys
p, i = float(sys.argv[1]), float(sys.argv[2])
print("result: host time per launch %.3f us plain, %.3f us injected: +%.3f us (goal <= 4)" % (p, i, i - p))
sys.exit(0 if i - p <= 4.0 else 1)
PY
