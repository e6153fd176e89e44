#!/bin/sh
# IR diff view benchmark: a ~100,000-line pair (LINES) opened with
# `tileport irdiff --tui` in a 160x48 tmux pane, beside `tileport irdiff`
# printing its text report on the same pair (the same parse, diff and rules:
# the ratio is what the view adds). The pair repeats the view's FAIL_FIXABLE
# fixture entries (tests/fixtures/ir/view), each copy an entry of its own,
# so every copy has changed, reference-only and generated-only rows and
# critical, warn, info and note findings.
#
# Times: launch to the first screen (findings pane included); then, for
# each key, tmux send-keys to the screen that shows its answer and, inside
# tileport, key read to doupdate() (TILEPORT_LATENCY_LOG): G (last op), w
# (wrap: every row laid out again), u (unified), ] (next critical), and a
# search for an op near the end. Peak memory is VmHWM of the TUI beside the
# report's maximum RSS.
#
# usage: bench/irdiff_view.sh [TILEPORT] [LINES]   (default build/release/tileport 100000)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
tp=${1:-$top/build/release/tileport}
case $tp in /*) ;; *) tp=$PWD/$tp ;; esac
LINES_N=${2:-100000}
command -v tmux >/dev/null || { echo "bench/irdiff_view.sh: needs tmux" >&2; exit 3; }
T=$(mktemp -d "${TMPDIR:-/tmp}/tileport-bench-XXXXXX")
sock=$T/tmux.sock
tm() { tmux -S "$sock" "$@"; }
cleanup() { tm kill-server 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
trap 'cleanup; exit 1' TERM INT
main_pid=$$
export TILEPORT_DATA_DIR="$top" LC_ALL=C.UTF-8 TZ=UTC XDG_CONFIG_HOME="$T/xdg" HOME="$T/home"
unset TILEPORT_NO_DISPLAY TILEPORT_SCRIPT NO_COLOR
mkdir -p "$T/xdg" "$T/home"

now_ms() { date +%s%3N; }

# the fixture's entries again and again, renamed @name_N, until LINES lines
repeat() { # FILE
	awk -v want="$LINES_N" '
	BEGIN { nb = 0 }
	/^  entry @/ { inentry = 1; n = 0 }
	inentry { blk[nb, n++] = $0; if ($0 == "  }") { len[nb++] = n; inentry = 0 } }
	END {
		print "cuda_tile.module @kernels {"; lines = 2; c = 0
		while (lines < want) {
			c++
			for (b = 0; b < nb; b++)
				for (i = 0; i < len[b]; i++) {
					l = blk[b, i]
					if (i == 0) sub(/\(/, "_" c "(", l)
					print l; lines++
				}
		}
		print "}"
	}' "$1"
}
# generated entry names as the reference spells them (exact matches: the
# mangled-name matcher is the irdiff benchmark's business)
repeat "$top/tests/fixtures/ir/view/fail_ref.mlir" >"$T/ref.mlir"
repeat "$top/tests/fixtures/ir/view/fail_gen.mlir" |
	sed -e 's/@softmax_kernel_kernel_9f8e7d01_/@softmax_kernel_/' \
	    -e 's/@scale_kernel_1a2b3c4d_/@scale_/' >"$T/gen.mlir"
nr=$(wc -l <"$T/ref.mlir")
ng=$(wc -l <"$T/gen.mlir")
copies=$(grep -c '^  entry @scale_' "$T/ref.mlir")

# the report on the same pair
if [ -x /usr/bin/time ]; then
	/usr/bin/time -f "%e %M" -o "$T/time" "$tp" irdiff "$T/ref.mlir" "$T/gen.mlir" >"$T/report"
	set -- $(tail -n 1 "$T/time")
	cli_ms=$(awk -v s="$1" 'BEGIN { printf "%d", s * 1000 }')
	cli_kb=$2
else
	t0=$(now_ms)
	"$tp" irdiff "$T/ref.mlir" "$T/gen.mlir" >"$T/report"
	cli_ms=$(( $(now_ms) - t0 ))
	cli_kb=0
fi
verdict=$(tail -n 1 "$T/report")

wait_text() { # TEXT: poll the pane until TEXT shows (no sleeping)
	limit=$(( $(now_ms) + 120000 ))
	while :; do
		tm capture-pane -p -t bench >"$T/pane" 2>/dev/null
		grep -qF -- "$1" "$T/pane" && return 0
		if [ "$(now_ms)" -gt "$limit" ]; then
			echo "bench/irdiff_view.sh: '$1' never showed; the pane has:" >&2
			cat "$T/pane" >&2
			kill -TERM "$main_pid"
			exit 1
		fi
	done
}

# step KEY TEXT: send KEY, wait for TEXT; prints "screen_ms inside_ms"
step() {
	t0=$(now_ms)
	tm send-keys -t bench "$1"
	wait_text "$2"
	t1=$(now_ms)
	# the frame that answered: the last key read since t0 (the log line
	# follows the frame by a moment)
	while :; do
		inside=$(awk -v t="${t0}000" '$1 >= t { v = sprintf("%.1f", ($2 - $1) / 1000) } END { print v }' \
			"$T/latency")
		[ -n "$inside" ] && break
	done
	echo "$((t1 - t0)) $inside"
}

: >"$T/latency"
t0=$(now_ms)
tm new-session -d -s bench -x 160 -y 48 \
	"TILEPORT_LATENCY_LOG='$T/latency' '$tp' irdiff --tui '$T/ref.mlir' '$T/gen.mlir'; read -r x"
wait_text "[irdiff] findings"
open_ms=$(( $(now_ms) - t0 ))
shpid=$(tm display -p -t bench '#{pane_pid}')
pid=$(pgrep -P "$shpid" -x tileport | head -n 1)
set -- $(step G " 100%")
g_screen=$1 g_in=$2
set -- $(step w "side by side, wrap")
w_screen=$1 w_in=$2
set -- $(step u "unified, wrap")
u_screen=$1 u_in=$2
tm send-keys -t bench g
set -- $(step ']' "CRITICAL reduce-axis")
c_screen=$1 c_in=$2
tm send-keys -t bench / "@scale_$((copies - 1)) "
set -- $(step Enter "Search '@scale_$((copies - 1)) '")
s_screen=$1 s_in=$2
kb=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status")
tm send-keys -t bench Q

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b <= 0) b = 1; printf "%.2f", a / b }'; }
echo "IR diff view benchmark, $(date -u +%Y-%m-%d), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "pair: $nr / $ng lines, $((copies * 2)) entries a side; $verdict"
echo "  tileport irdiff (text report):       ${cli_ms} ms, peak $((cli_kb / 1024)) MB"
echo "  tileport irdiff --tui, first screen: ${open_ms} ms, peak $((kb / 1024)) MB" \
	"(ratio time $(ratio "$open_ms" "$cli_ms"), memory $(ratio "$kb" "$cli_kb"))"
echo "  keys (tmux send-keys to screen / key read to doupdate inside tileport):"
printf '    %-28s %6s ms %8s ms\n' "G (last op)" "$g_screen" "$g_in"
printf '    %-28s %6s ms %8s ms\n' "w (wrap every row)" "$w_screen" "$w_in"
printf '    %-28s %6s ms %8s ms\n' "u (unified)" "$u_screen" "$u_in"
printf '    %-28s %6s ms %8s ms\n' "] (next critical)" "$c_screen" "$c_in"
printf '    %-28s %6s ms %8s ms\n' "/ search near the end" "$s_screen" "$s_in"
