#!/bin/sh
# make fuzz: every libFuzzer target for FUZZ_SECONDS (default 300) each,
# growing its corpus in tests/fuzz/corpus/NAME: what a run found is merged
# in (-merge=1 adds the inputs that add coverage, no more). A crash,
# a hang (-timeout) or a leak leaves its input in build/fuzz/artifacts/ and
# fails the make; the figures go to build/fuzz/summary.txt.
#   mk/fuzz.sh [TARGET...]       (default: every build/fuzz/fuzz_*)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
secs=${FUZZ_SECONDS:-300}
art=$top/build/fuzz/artifacts
mkdir -p "$art"
summary=$top/build/fuzz/summary.txt
: >"$summary"
[ $# -gt 0 ] || set -- "$top"/build/fuzz/fuzz_*
failed=0
for bin; do
	# the glob also meets this script's own logs (fuzz_NAME.log)
	case $bin in *.log) continue ;; esac
	[ -x "$bin" ] || continue
	name=$(basename "$bin")
	short=${name#fuzz_}
	corpus=$top/tests/fuzz/corpus/$short
	work=$top/build/fuzz/work-$short
	mkdir -p "$corpus" "$work"
	log=$top/build/fuzz/$name.log
	before=$(find "$corpus" -type f | wc -l)
	"$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$art/$short-" "$work" "$corpus" >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	# what the run found that adds coverage joins the corpus; the seeds
	# already there (named after the finding they reproduce) stay
	"$bin" -merge=1 "$corpus" "$work" >>"$log" 2>&1
	after=$(find "$corpus" -type f | wc -l)
	status=clean
	[ $rc -eq 0 ] || { status="FAILED (exit $rc, see $log)"; failed=$((failed + 1)); }
	echo "$name: ${secs}s, ${execs:-?} executions, corpus $before -> $after, $status" | tee -a "$summary"
done
ls "$art" 2>/dev/null | sed 's/^/artifact: /'
[ "$failed" -eq 0 ]
