#!/bin/sh
# Every GPU check, one after another, with the date and the GPU first: the
# lines docs/perf.md and docs/gpu.md record.
#   TILEPORT=build/release/tileport tests/gpu/run_all.sh
here=$(dirname "$0")
date -u +"date: %Y-%m-%d %H:%M UTC"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader 2>/dev/null ||
	echo "no nvidia-smi"
rc=0
for t in preflight aa slowdown agreement overhead; do
	echo "== tests/gpu/$t.sh"
	sh "$here/$t.sh" || rc=1
done
exit $rc
