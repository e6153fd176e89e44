#!/bin/sh
# Redaction throughput: bench/redact.c against the engine library of a
# build (every byte an agent prints, and every transcript record, goes
# through it). With BASE, another build's library too, for the ratio.
#   bench/redact.sh [TILEPORT] [BASE_TILEPORT]   (default build/release/tileport)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
libs=$(pkg-config --libs libcjson 2>/dev/null || echo "-lcjson") # libgit2, libcurl: loaded on first use
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for bin in "${1:-$top/build/release/tileport}" ${2:+"$2"}; do
	case "$bin" in /*) ;; *) bin="$PWD/$bin" ;; esac
	build=$(dirname "$bin")
	[ -f "$build/libengine.a" ] || { echo "redact.sh: $build/libengine.a not found (make first)" >&2; exit 3; }
	${CC:-cc} -O2 -std=c11 -D_GNU_SOURCE -I"$top" "$top/bench/redact.c" "$build/libengine.a" $libs -lm \
		-o "$tmp/redact"
	echo "== $build"
	"$tmp/redact"
done
