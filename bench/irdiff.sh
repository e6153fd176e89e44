#!/bin/sh
# bench/irdiff.sh TILEPORT [LINES]
# Parse + structural diff of a generated ~LINES-line Tile IR pair (default
# 100000), beside `git diff --no-index --histogram` on the same two files.
# The pair is built from the project's own IR samples (tests/fixtures/ir/
# corpus): the reference repeats their entries; the generated side applies
# random edits (dropped flush_to_zero, changed constants, memory orderings,
# reduce axes, inserted ops) and is then printed canonically, so every value
# is renamed as well. Two shapes: many entries (one per kernel copy) and one
# huge entry. Each program runs IRDIFF_BENCH_RUNS times (default 5), the
# programs interleaved; the best wall and CPU (user+sys) time and the peak
# memory (bench/lib/runstat.py: to the millisecond) are printed, with the
# ratios to git diff.
# IRDIFF_BENCH_BASE=OTHER_TILEPORT also times an older build in the same
# runs (before/after figures measured side by side); IRDIFF_BENCH_KEEP=DIR
# keeps the pairs as DIR/{many,one}/{ref,gen}.mlir (for callgrind).
set -eu
T=${1:?usage: bench/irdiff.sh TILEPORT [LINES]}
LINES=${2:-100000}
top=$(cd "$(dirname "$0")/.." && pwd)
corpus="$top/tests/fixtures/ir/corpus"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# entry blocks of the samples, one after the other, renamed @name_N, until LINES
many() {
	awk -v want="$LINES" '
	BEGIN { nb = 0 }
	FNR == 1 { inentry = 0 }
	/^  entry @/ { inentry = 1; n = 0 }
	inentry { blk[nb, n++] = $0; if ($0 == "  }") { len[nb++] = n; inentry = 0 } }
	END {
		print "cuda_tile.module @kernels {"; lines = 2; c = 0
		while (lines < want) {
			b = c % nb; c++
			for (i = 0; i < len[b]; i++) {
				l = blk[b, i]
				if (i == 0) sub(/\(/, "_" c "(", l)
				print l; lines++
			}
		}
		print "}"
	}' "$corpus/softmax.mlir" "$corpus/control.mlir" "$corpus/memory.mlir" "$corpus/arith.mlir"
}

# one entry: the softmax body again and again, its values renamed per copy
one() {
	awk -v want="$LINES" '
	/^  entry @/ { hdr = $0; inb = 1; next }
	inb && $0 == "  }" { inb = 0; next }
	inb && $0 !~ /^    return/ { body[n++] = $0 }
	END {
		print "cuda_tile.module @kernels {"; print hdr; lines = 3; c = 0
		while (lines < want) {
			c++
			for (i = 0; i < n; i++) {
				l = body[i]; out = ""
				while (match(l, /%[A-Za-z0-9_]+/)) {
					v = substr(l, RSTART, RLENGTH)
					if (v !~ /^%arg[0-9]+$/) v = v "_c" c
					out = out substr(l, 1, RSTART - 1) v
					l = substr(l, RSTART + RLENGTH)
				}
				print out l; lines++
			}
		}
		print "    return"; print "  }"; print "}"
	}' "$corpus/softmax.mlir"
}

# random edits, about 2% of op lines
edit() {
	awk 'BEGIN { srand(42) }
	{
		line = $0
		op = line ~ /^ +(%|[a-z])/ && line !~ /^ +(entry|return|yield|continue|break)/ && line !~ /\{$/
		if (op && rand() < 0.02) {
			k = int(rand() * 5)
			if (k == 0 && line ~ / flush_to_zero/) sub(/ flush_to_zero/, "", line)
			else if (k == 1 && line ~ /<i32: 0>/) sub(/<i32: 0>/, "<i32: 1>", line)
			else if (k == 2 && line ~ / weak /) sub(/ weak /, " relaxed ", line)
			else if (k == 3 && line ~ /dim=1/) sub(/dim=1/, "dim=0", line)
			else { match(line, /^ +/); printf "%s%%bench_%d = make_token : token\n", substr(line, 1, RLENGTH), NR }
		}
		print line
	}'
}

RUNS=${IRDIFF_BENCH_RUNS:-5}
BASE=${IRDIFF_BENCH_BASE:-}

run1() { # OUT command...: appends "wall cpu maxrss_kb" to OUT
	out=$1
	shift
	python3 "$top/bench/lib/runstat.py" "$@" >>"$out"
}

best() { # FILE: "wall cpu kb", the smallest wall and cpu, the largest kb
	awk 'NR == 1 || $1 < w { w = $1 } NR == 1 || $2 < c { c = $2 } $3 > k { k = $3 }
	     END { print w, c, k }' "$1"
}

command -v python3 >/dev/null || { echo "bench/irdiff.sh: needs python3 (make bench installs it)" >&2; exit 3; }
echo "irdiff benchmark, $(date -u +%Y-%m-%d), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), best of $RUNS"
for shape in many one; do
	$shape >"$tmp/ref.mlir"
	edit <"$tmp/ref.mlir" >"$tmp/edited.mlir"
	"$T" ir fmt "$tmp/edited.mlir" >"$tmp/gen.mlir"
	nr=$(wc -l <"$tmp/ref.mlir")
	ng=$(wc -l <"$tmp/gen.mlir")
	if [ -n "${IRDIFF_BENCH_KEEP:-}" ]; then
		mkdir -p "$IRDIFF_BENCH_KEEP/$shape"
		cp "$tmp/ref.mlir" "$tmp/gen.mlir" "$IRDIFF_BENCH_KEEP/$shape/"
	fi
	rm -f "$tmp"/m.*
	i=0
	while [ $i -lt "$RUNS" ]; do
		run1 "$tmp/m.parse" "$T" ir fmt "$tmp/ref.mlir"
		run1 "$tmp/m.diff" "$T" irdiff "$tmp/ref.mlir" "$tmp/gen.mlir"
		[ -z "$BASE" ] || run1 "$tmp/m.base" "$BASE" irdiff "$tmp/ref.mlir" "$tmp/gen.mlir"
		run1 "$tmp/m.git" git diff --no-index --histogram "$tmp/ref.mlir" "$tmp/gen.mlir"
		i=$((i + 1))
	done
	set -- $(best "$tmp/m.git")
	git_w=$1 git_c=$2 git_kb=$3
	"$T" irdiff "$tmp/ref.mlir" "$tmp/gen.mlir" >"$tmp/report" || true
	verdict=$(tail -n 1 "$tmp/report")
	echo "shape=$shape ref_lines=$nr gen_lines=$ng  [$verdict]"
	printf '  %-40s %8s %8s %10s   %s\n' "" "wall s" "cpu s" "peak KB" "x git (wall, cpu, mem)"
	for m in parse diff base git; do
		[ -f "$tmp/m.$m" ] || continue
		case $m in
		parse) what="tileport ir fmt (parse+print ref)" ;;
		diff) what="tileport irdiff" ;;
		base) what="baseline irdiff ($BASE)" ;;
		git) what="git diff --no-index --histogram" ;;
		esac
		set -- $(best "$tmp/m.$m")
		awk -v w="$what" -v a="$1" -v b="$2" -v c="$3" -v gw="$git_w" -v gc="$git_c" \
			-v gk="$git_kb" 'BEGIN {
			rw = gw > 0 ? a / gw : 0
			rc = gc > 0 ? b / gc : 0
			rk = gk > 0 ? c / gk : 0
			printf "  %-40.40s %8.3f %8.3f %10d   %4.2f, %4.2f, %4.2f\n", w, a, b, c, rw, rc, rk }'
	done
done
