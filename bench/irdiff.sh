#!/bin/sh
# bench/irdiff.sh TILEPORT [LINES]
# Parse + structural diff of a generated ~LINES-line Tile IR pair (default
# 100000), beside `git diff --no-index --histogram` on the same two files.
# The pair is built from the project's own IR samples (tests/fixtures/ir/
# corpus): the reference repeats their entries; the generated side applies
# random edits (dropped flush_to_zero, changed constants, memory orderings,
# reduce axes, inserted ops) and is then printed canonically, so every value
# is renamed as well. Two shapes: many entries (one per kernel copy) and one
# huge entry. Prints seconds and peak memory, and the ratio to git diff.
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

measure() { # label, command...: prints "label seconds maxrss_kb"
	label=$1
	shift
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f "%e %M" -o "$tmp/time" "$@" >/dev/null 2>"$tmp/stderr" || true
		set -- $(tail -n 1 "$tmp/time")
		echo "$label $1 $2"
	else
		s=$(date +%s%N)
		"$@" >/dev/null 2>&1 || true
		e=$(date +%s%N)
		echo "$label $(( (e - s) / 1000000 )).000ms -"
	fi
}

for shape in many one; do
	$shape >"$tmp/ref.mlir"
	edit <"$tmp/ref.mlir" >"$tmp/edited.mlir"
	"$T" ir fmt "$tmp/edited.mlir" >"$tmp/gen.mlir"
	nr=$(wc -l <"$tmp/ref.mlir")
	ng=$(wc -l <"$tmp/gen.mlir")
	set -- $(measure parse "$T" ir fmt "$tmp/ref.mlir")
	parse_s=$2 parse_kb=$3
	set -- $(measure irdiff "$T" irdiff "$tmp/ref.mlir" "$tmp/gen.mlir")
	diff_s=$2 diff_kb=$3
	set -- $(measure git git diff --no-index --histogram "$tmp/ref.mlir" "$tmp/gen.mlir")
	git_s=$2 git_kb=$3
	"$T" irdiff "$tmp/ref.mlir" "$tmp/gen.mlir" >"$tmp/report" || true
	verdict=$(tail -n 1 "$tmp/report")
	echo "shape=$shape ref_lines=$nr gen_lines=$ng"
	echo "  tileport ir fmt (parse+print ref): ${parse_s}s, peak ${parse_kb} KB"
	echo "  tileport irdiff (parse both + diff): ${diff_s}s, peak ${diff_kb} KB  [$verdict]"
	echo "  git diff --no-index --histogram:     ${git_s}s, peak ${git_kb} KB"
	awk -v a="$diff_s" -v b="$git_s" -v c="$diff_kb" -v d="$git_kb" 'BEGIN {
		if (b > 0) printf "  ratio irdiff/git: time %.2fx", a / b; else printf "  ratio irdiff/git: time n/a"
		if (d > 0) printf ", memory %.2fx\n", c / d; else printf "\n" }'
done
