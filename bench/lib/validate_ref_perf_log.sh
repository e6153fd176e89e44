#!/bin/bash
# The reference validate_perf_log.sh's process pattern (4 grep -c), for
# bench/lib/validate_ref_spawns.sh.
f=$1 label=${2:-perf}
[ -s "$f" ] || { echo "FAIL: $label missing"; exit 1; }
s=$(grep -c 'Performance Test Results' "$f")
p=$(grep -c 'PASSED' "$f")
x=$(grep -c 'FAILED' "$f")
k=$(grep -c 'SKIPPED' "$f")
echo "$label: perf_sections=$s passed=$p failed=$x skipped=$k"
[ "$s" -gt 0 ] && [ "$x" -eq 0 ]
