#!/bin/sh
# The IR check offline over a TileGym checkout: every operator without a
# cuTile Rust port (tileport ops), run offline with both compilers in the
# loop (cuTile Python for the reference, cutile 0.2.0 for the translation):
# where the run ended, and the IR diff's verdict per kernel variant of those
# that reached stage B, with the run's time. The checkout is copied; yours
# is never written.
#   bench/ircheck.sh [TILEPORT] [TILEGYM_DIR]
# Needs build/pyenv (mk/cutile-py.sh) and build/cutile (mk/cutile.sh), or
# TILEPORT_PYTHON and a cargo with the cutile crates.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
tp=${1:-$top/build/release/tileport}
tg=${2:-/tmp/tg/TileGym}
case "$tp" in /*) ;; *) tp="$top/$tp" ;; esac
[ -d "$tg/src/tilegym" ] || { echo "ircheck: $tg is not a TileGym checkout" >&2; exit 2; }
[ -f "$top/build/cutile/env.sh" ] && . "$top/build/cutile/env.sh"
export TILEPORT_PYTHON=${TILEPORT_PYTHON:-$top/build/pyenv/bin/python} TILEPORT_GPU=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -R "$tg" "$work/ws"
"$tp" ops --workspace "$work/ws" --json >"$work/ops.json" || exit 3
ops=$(python3 -c 'import json,sys; print(" ".join(o["op"] for o in json.load(open(sys.argv[1])) if not o["port"]))' "$work/ops.json")
printf '%-24s %-18s %7s  %s\n' operator end seconds "IR check per variant"
# run OP [again]: one run, its line; "again" re-runs it fresh
run() {
	t0=$(date +%s.%N)
	"$tp" run "$1" --workspace "$work/ws" --out "$work/out" --headless ${2:+--fresh} >"$work/$1.log" 2>&1
	t1=$(date +%s.%N)
	# OFFLINE_COMPLETE, or the stage that stopped it: "STOP A1"
	end=$(sed -n 's/^[0-9:]* \(OFFLINE_COMPLETE\|PIPELINE_COMPLETE\):.*/\1/p; s/^[0-9:]* STOP: \([A-F][0-9]*\):.*/STOP \1/p' \
		"$work/$1.log" | tail -n 1)
	echo "$1 ${end:-?}" >>"$work/ends"
	checks=$(sed -n 's/^- generated\/\([^ ]*\)\.mlir against [^:]*: \(.*\)/\1 \2/p' \
		"$work/out/$1/reports/agent_b.md" 2>/dev/null | tr '\n' ';')
	[ -n "$checks" ] || checks=$(grep -m1 '^Not run' "$work/out/$1/reports/agent_b.md" 2>/dev/null || echo "-")
	printf '%-24s %-18s %7.1f  %s\n' "$1${2:+ (again)}" "${end:-?}" "$(echo "$t1 - $t0" | bc)" "$checks"
}
for op in $ops; do
	run "$op"
done
# A stop that says to port another operator first ("port X first"): as a
# user would, once X has converted, that operator runs again.
for op in $ops; do
	dep=$(sed -n 's/.*: port \([A-Za-z0-9_]*\) first (tileport run .*/\1/p' "$work/$op.log" | tail -n 1)
	[ -n "$dep" ] && grep -qx "$dep OFFLINE_COMPLETE" "$work/ends" && run "$op" again
done
awk '{e[$1] = $2} END {n = 0; c = 0; for (o in e) {n++; if (e[o] == "OFFLINE_COMPLETE") c++}
	printf "OFFLINE_COMPLETE: %d of %d operators without a port\n", c, n}' "$work/ends"
