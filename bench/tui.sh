#!/bin/sh
# TUI benchmark. Both parts run the real binary in a tmux pane (120x40) and
# time what a user sees: the pane is polled until the expected text shows.
#
# 1. A transcript of 1,000,000 lines: open it, jump to the end (G), search
#    backwards for a line near the top (?) -- tileport's transcript view
#    beside `less` doing the same on the same file. Peak memory is VmHWM
#    of the process.
# 2. A stage streaming 50,000 lines a second for 10 seconds through the
#    orchestrator into the pipeline view (its lower pane follows the
#    transcript), while a key is sent every 100 ms: time from key to frame
#    (from tmux send-keys to the frame that answers it, and from our read()
#    of the key to doupdate()), CPU and peak memory of the TUI process.
#
# usage: bench/tui.sh [TILEPORT]   (default build/release/tileport)
# TUI_BENCH_BASE=OTHER_TILEPORT also runs part 1 with an older build, in the
# same run (before/after figures measured side by side).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
tp=${1:-$top/build/release/tileport}
case $tp in /*) ;; *) tp=$PWD/$tp ;; esac
LINES_N=${TUI_BENCH_LINES:-1000000}
RATE=${TUI_BENCH_RATE:-50000}
SECS=${TUI_BENCH_SECS:-10}
REPEAT=${TUI_BENCH_REPEAT:-3}
command -v tmux >/dev/null || { echo "bench/tui.sh: needs tmux" >&2; exit 3; }
command -v less >/dev/null || { echo "bench/tui.sh: needs less" >&2; exit 3; }
T=$(mktemp -d "${TMPDIR:-/tmp}/tileport-bench-XXXXXX")
sock=$T/tmux.sock
tm() { tmux -S "$sock" "$@"; }
cleanup() { tm kill-server 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
trap 'cleanup; exit 1' TERM INT
main_pid=$$
export TILEPORT_DATA_DIR="$top" LC_ALL=C.UTF-8 TZ=UTC XDG_CONFIG_HOME="$T/xdg" HOME="$T/home"
unset TILEPORT_NO_DISPLAY TILEPORT_SCRIPT NO_COLOR CUTILE_KERNEL_OUT_ROOT TILEGYM_PATH
mkdir -p "$T/xdg/tileport" "$T/home"

now_ms() { date +%s%3N; }

# wait_text TEXT [LIMIT_S]: poll the pane (no sleeping) until TEXT shows.
wait_text() {
	limit=$(( $(now_ms) + ${2:-120} * 1000 ))
	while :; do
		tm capture-pane -p -t bench >"$T/pane" 2>/dev/null
		grep -qF -- "$1" "$T/pane" && return 0
		if [ "$(now_ms)" -gt "$limit" ]; then
			echo "bench/tui.sh: '$1' never showed; the pane has:" >&2
			cat "$T/pane" >&2
			# we may be in a $(...) subshell: stop the whole script
			kill -TERM "$main_pid"
			exit 1
		fi
	done
}

child_pid() { # NAME: the process NAME under the pane's shell
	shpid=$(tm display -p -t bench '#{pane_pid}')
	pgrep -P "$shpid" -x "$1" | head -n 1
}

hwm_kb() { awk '/VmHWM/ {print $2}' "/proc/$1/status"; }

# --- 1. one million lines -------------------------------------------------
python3 "$top/bench/lib/gen_transcript.py" "$T/transcript.jsonl" "$LINES_N"
size_mb=$(du -m "$T/transcript.jsonl" | cut -f1)

# view CMD NAME FIRST_TEXT: open, G, ?search; prints "open_ms end_ms search_ms peak_kb"
# (the search target is line 21: a backward search from the end scans it all)
view() {
	cat "$T/transcript.jsonl" >/dev/null # same page cache for both
	t0=$(now_ms)
	tm new-session -d -s bench -x 120 -y 40 "$1; read -r x"
	wait_text "$3"
	t1=$(now_ms)
	tm send-keys -t bench G
	wait_text "END OF TRANSCRIPT $LINES_N"
	t2=$(now_ms)
	tm send-keys -t bench '?' '4242 marks' Enter
	wait_text "NEEDLE-4242 marks the spot"
	t3=$(now_ms)
	pid=$(child_pid "$2")
	kb=$(hwm_kb "$pid")
	tm kill-session -t bench
	echo "$((t1 - t0)) $((t2 - t1)) $((t3 - t2)) $kb"
}
# best of REPEAT runs of each (the machine may be busy with other work)
best() { # CMD NAME -> "open end search kb", each the minimum over the runs
	r=0
	b1= b2= b3= b4=
	bcmd=$1 bname=$2
	while [ $r -lt "$REPEAT" ]; do
		set -- $(view "$bcmd" "$bname" "step 2: checking")
		[ -z "$b1" ] || [ "$1" -lt "$b1" ] && b1=$1
		[ -z "$b2" ] || [ "$2" -lt "$b2" ] && b2=$2
		[ -z "$b3" ] || [ "$3" -lt "$b3" ] && b3=$3
		[ -z "$b4" ] || [ "$4" -gt "$b4" ] && b4=$4
		r=$((r + 1))
	done
	echo "$b1 $b2 $b3 $b4"
}
set -- $(best "'$tp' open '$T/transcript.jsonl'" tileport)
tp_open=$1 tp_end=$2 tp_search=$3 tp_kb=$4
set -- $(best "less '$T/transcript.jsonl'" less)
less_open=$1 less_end=$2 less_search=$3 less_kb=$4
base=${TUI_BENCH_BASE:-}
if [ -n "$base" ]; then
	case $base in /*) ;; *) base=$PWD/$base ;; esac
	set -- $(best "'$base' open '$T/transcript.jsonl'" "$(basename "$base" | cut -c1-15)")
	base_open=$1 base_end=$2 base_search=$3 base_kb=$4
fi

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b <= 0) b = 1; printf "%.2f", a / b }'; }
echo "TUI benchmark, $(date -u +%Y-%m-%d), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "1. transcript of $LINES_N lines ($size_mb MB): time until the screen shows it (best of $REPEAT)"
printf '   %-22s %10s %10s %8s\n' "" tileport less ratio
printf '   %-22s %8s ms %8s ms %8s\n' "open (first screen)" "$tp_open" "$less_open" "$(ratio "$tp_open" "$less_open")"
printf '   %-22s %8s ms %8s ms %8s\n' "jump to end (G)" "$tp_end" "$less_end" "$(ratio "$tp_end" "$less_end")"
printf '   %-22s %8s ms %8s ms %8s\n' "search back (?)" "$tp_search" "$less_search" "$(ratio "$tp_search" "$less_search")"
printf '   %-22s %8s MB %8s MB %8s\n' "peak memory" "$((tp_kb / 1024))" "$((less_kb / 1024))" \
	"$(ratio "$tp_kb" "$less_kb")"
if [ -n "$base" ]; then
	echo "   baseline $base (same file, same run):"
	printf '   %-22s %8s ms\n' "open (first screen)" "$base_open" "jump to end (G)" "$base_end" \
		"search back (?)" "$base_search"
	printf '   %-22s %8s MB\n' "peak memory" "$((base_kb / 1024))"
fi

# --- 2. a stage streaming while keys arrive --------------------------------
# A run interrupted in B (its first orchestrator killed), then attached from
# the screen, where `C` re-runs B with the streaming agent from the config.
ws=$top/samples/workspace
fake=$top/tests/integration/lib/fake_agent.sh
printf 'A: PASS\nB: COMPILED\nD: ALL_PASS\n' >"$T/scen"
export FAKE_SCENARIO="$T/scen" TILEPORT_GPU=0
flags=""
for s in A C D E F; do flags="$flags --driver $s=exec:$fake --validator $s=none"; done
# shellcheck disable=SC2086
"$tp" run softmax --workspace "$ws" --out "$T/out" --headless $flags \
	--driver "B=exec:sleep 300" --validator B=none >"$T/run.log" 2>&1 &
orch=$!
until grep -qs '"B1 started' "$T/out/softmax/.tileport/events.jsonl"; do :; done
kill -9 "$orch"
wait "$orch" 2>/dev/null
printf 'driver.B = exec:python3 %s %s %s COMPILED\n' "$top/bench/lib/stream_agent.py" "$RATE" "$SECS" \
	>"$T/xdg/tileport/config"
tm new-session -d -s bench -x 120 -y 40 \
	"TILEPORT_LATENCY_LOG='$T/latency' '$tp' open '$T/out/softmax'; read -r x"
wait_text "[pipeline] softmax"
pid=$(child_pid tileport)
cpu0=$(awk '{print $14 + $15}' "/proc/$pid/stat")
tm send-keys -t bench C
wait_text "streamed line"
: >"$T/sent"
t_start=$(now_ms)
keys=0
# one key every 100 ms while the stage streams: j and k move the cursor
while ! grep -qs '"B1 returned' "$T/out/softmax/.tileport/events.jsonl"; do
	[ $((keys % 2)) -eq 0 ] && k=j || k=k
	date +%s%6N >>"$T/sent"
	tm send-keys -t bench "$k"
	keys=$((keys + 1))
	target=$((t_start + keys * 100))
	while [ "$(now_ms)" -lt "$target" ]; do :; done
done
t_end=$(now_ms)
wait_text "route B1 COMPILED"
cpu1=$(awk '{print $14 + $15}' "/proc/$pid/stat")
kb=$(hwm_kb "$pid")
streamed=$(grep -c '"type":"text"' "$T/out/softmax/.tileport/attempts/02-B1/transcript.jsonl")
tm send-keys -t bench Q
hz=$(getconf CLK_TCK)
# Pair each key sent with the next frame logged after it.
python3 - "$T/sent" "$T/latency" <<'PY' >"$T/lat.txt"
import sys
sent = [int(x) for x in open(sys.argv[1])]
log = [tuple(map(int, l.split())) for l in open(sys.argv[2]) if l.strip()]
e2e, inner = [], []
j = 0
for s in sent:
    while j < len(log) and log[j][1] < s:
        j += 1
    if j < len(log):
        e2e.append((log[j][1] - s) / 1000.0)
        inner.append((log[j][1] - log[j][0]) / 1000.0)
def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(round(p / 100.0 * (len(v) - 1))))] if v else float("nan")
print("%d %.1f %.1f %.1f %.1f %.1f %.1f" % (len(e2e), pct(e2e, 50), pct(e2e, 95), max(e2e or [0]),
      pct(inner, 50), pct(inner, 95), max(inner or [0])))
PY
set -- $(cat "$T/lat.txt")
secs=$(( (t_end - t_start) ))
echo
echo "2. stage streaming $RATE lines/s for ${SECS} s ($streamed lines) into the pipeline view,"
echo "   a key every 100 ms ($1 keys answered):"
echo "   key sent -> frame (tmux send-keys to the answering doupdate):"
echo "      median $2 ms, p95 $3 ms, max $4 ms"
echo "   key read -> frame (inside tileport):"
echo "      median $5 ms, p95 $6 ms, max $7 ms"
awk -v c="$((cpu1 - cpu0))" -v hz="$hz" -v ms="$secs" \
	'BEGIN { printf "   TUI process CPU: %.1f s over %.1f s (%.0f%% of one core, orchestrator included)\n", c / hz, ms / 1000, 100 * c / hz / (ms / 1000) }'
echo "   TUI process peak memory: $((kb / 1024)) MB"
