#!/bin/sh
# Run every non-GPU test against one build directory (default build/check):
# unit binaries, integration and screen scripts, and short fuzz runs.
# Tests run in parallel (one per core); each one's output goes to
# BUILD/test-logs/NAME.log and is printed when it fails.
#   tests/run.sh [BUILD] [FILTER]     FILTER: substring of test names
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build/check}
filter=${2:-}
case "$build" in /*) ;; *) build="$top/$build" ;; esac
logs="$build/test-logs"
rm -rf "$logs" && mkdir -p "$logs"
export TILEPORT="$build/tileport" TILEPORT_TOP="$top" TILEPORT_BUILD="$build"
# the real claude and codex CLIs (mk/agent-clis.sh), for the driver tests
export TILEPORT_AGENT_CLIS="$top/build/agent-clis/node_modules/.bin"
# cuTile Python (mk/cutile-py.sh), for the tests of tileport refir
export TILEPORT_TEST_PYTHON="$top/build/pyenv/bin/python"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
export LC_ALL=C.UTF-8 TZ=UTC
unset TILEGYM_PATH CUTILE_KERNEL_OUT_ROOT TILEIRAS_BIN CUDA_TILE_OPT_BIN \
	TRITON_TILEIR_PYTHONPATH CUDA_TOOLKIT_PATH CUTILE_RS_ROOT CUTILE_RS_KERNELS_DIR \
	TILEPORT_DATA_DIR TILEPORT_TABLE TILEPORT_DEFERRED TILEPORT_GPU TILEPORT_SCRIPT \
	TILEPORT_NO_DISPLAY TILEPORT_BIN TILEPORT_NOW TILEPORT_TEST_CRASH_AT \
	TILEPORT_TEST_CRASH_COUNT EDITOR VISUAL PAGER NO_COLOR \
	TILEPORT_LLM_PROTOCOL TILEPORT_LLM_BASE_URL TILEPORT_LLM_MODEL TILEPORT_LLM_API_KEY \
	OPENAI_API_KEY ANTHROPIC_API_KEY CLAUDECODE TILEPORT_TEST_BACKOFF TILEPORT_PYTHON
# The offline cuTile Rust crates and their warm cache (mk/cutile.sh), for
# the tests that run the real compiler; they skip without them.
if [ -f "$top/build/cutile/env.sh" ]; then
	# shellcheck disable=SC1091
	. "$top/build/cutile/env.sh"
fi
# No developer's config may leak into a test (HOME stays: pyenv needs it).
export XDG_CONFIG_HOME="$logs/.config"
mkdir -p "$XDG_CONFIG_HOME"

list="$logs/.list"
: >"$list"
for t in "$build"/tests/test_*; do
	[ -x "$t" ] && echo "unit $t" >>"$list"
done
for t in "$top"/tests/integration/*.sh "$top"/tests/screen/*.sh "$top"/tests/hostile/*.sh; do
	[ -f "$t" ] && echo "sh $t" >>"$list"
done
for t in "$top"/build/fuzz/fuzz_*; do
	[ -x "$t" ] && echo "fuzz $t" >>"$list"
done
if [ -n "$filter" ]; then
	grep -F -- "$filter" "$list" >"$list.f"; mv "$list.f" "$list"
fi

export logs top

jobs=${TILEPORT_TEST_JOBS:-$(nproc 2>/dev/null || echo 2)}
results="$logs/.results"
# shellcheck disable=SC2016
xargs -r -P "$jobs" -L 1 sh -c '
	kind=$0 path=$1
	name=$(basename "$path" .sh)
	log="$logs/$kind-$name.log"
	start=$(date +%s)
	case "$kind" in
	unit) (cd "$logs" && "$path") >"$log" 2>&1 ;;
	sh) sh "$path" >"$log" 2>&1 ;;
	fuzz)
		corpus="$top/tests/fuzz/corpus/${name#fuzz_}"
		work="$logs/corpus-$name"; mkdir -p "$work" "$corpus"
		secs=${TILEPORT_FUZZ_SECONDS:-12}
		# A fixed seed: the short runs of make check repeat the same inputs,
		# so a check that passed passes again; make fuzz (mk/fuzz.sh) explores.
		"$path" -max_total_time="$secs" -seed="${TILEPORT_FUZZ_SEED:-20261202}" -timeout=10 \
			-rss_limit_mb=2048 -artifact_prefix="$logs/$name-" \
			-print_final_stats=1 "$work" "$corpus" >"$log" 2>&1 ;;
	esac
	rc=$?
	dt=$(( $(date +%s) - start ))
	if [ $rc -eq 0 ]; then echo "PASS $kind $name (${dt}s)"
	else echo "FAIL $kind $name (exit $rc, ${dt}s)"; fi
' <"$list" | tee "$results"

total=$(wc -l <"$results")
failed=$(grep -c '^FAIL' "$results")
if [ "$failed" -gt 0 ]; then
	grep '^FAIL' "$results" | while read -r _ kind name _; do
		echo "======== $kind $name ========"
		tail -n 60 "$logs/$kind-$name.log"
	done
	echo "tests: $failed of $total failed"
	exit 1
fi
if [ "$total" -eq 0 ]; then
	echo "tests: none found in $build" >&2
	exit 1
fi
echo "tests: all $total passed"
