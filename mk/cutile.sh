#!/bin/sh
# The real cuTile Rust crates for the tests that compile kernels (make
# check): cutile 0.2.0 and every crate it needs, offline, from
# ../shared/vendor/cutile-0.2.0 (its setup.sh), and the CUDA headers
# cuda-bindings runs bindgen on. Writes build/cutile/env.sh, which
# tests/run.sh reads, and builds the crates once (minutes, cold) so that
# each test's check takes about a second.
#   mk/cutile.sh TILEPORT     (the binary that warms the cache)
# Without the vendored crates (a checkout outside this workplace) nothing is
# prepared and the compile tests skip, saying why. A user's machine needs
# none of this: tileport compile uses the user's own cargo and crates.io.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
tileport=${1:-$top/build/check/tileport}
dest=$top/build/cutile
vendor=$top/../shared/vendor/cutile-0.2.0
env_file=$dest/env.sh
mkdir -p "$dest"
if [ ! -x "$vendor/setup.sh" ]; then
	echo "tileport: no $vendor: the compile tests will skip" >&2
	rm -f "$env_file"
	exit 0
fi
exports=$("$vendor/setup.sh" "$dest/offline") || exit 3
cuda=${CUDA_TOOLKIT_PATH:-/usr/local/cuda}
extra=
if [ ! -f "$cuda/include/curand.h" ]; then
	# NVIDIA's curand headers, from the nvidia-curand wheel (PyPI, pinned):
	# the machine's CUDA toolkit has cuda.h without them
	inc=$dest/curand/nvidia/cu13/include
	if [ ! -f "$inc/curand.h" ]; then
		python3 -m pip download --no-deps --quiet -d "$dest/wheels" nvidia-curand==10.4.0.35 >&2 &&
			python3 - "$dest/wheels" "$dest/curand" <<'PY' || { echo "tileport: could not get curand.h (pip download nvidia-curand): the compile tests will skip" >&2; rm -f "$env_file"; exit 0; }
import glob, sys, zipfile
whl = sorted(glob.glob(sys.argv[1] + "/nvidia_curand-*.whl"))[-1]
with zipfile.ZipFile(whl) as z:
    for n in z.namelist():
        if "/include/" in n and n.endswith(".h"):
            z.extract(n, sys.argv[2])
PY
	fi
	extra="-I$inc"
fi
{
	echo "# written by mk/cutile.sh: the offline cuTile Rust crates for the tests"
	echo "$exports"
	[ -n "$extra" ] && echo "export BINDGEN_EXTRA_CLANG_ARGS='$extra'"
	echo "export TILEPORT_CACHE_DIR='$dest/cache'"
} >"$env_file"
# shellcheck disable=SC1090
. "$env_file"
[ -x "$tileport" ] || exit 0
# warm the cache: the dependencies and the lowering program, built once
start=$(date +%s)
if ! "$tileport" --workspace "$top/samples/workspace" compile "$top/tests/fixtures/compile/warm.rs" \
	--out "$dest/warm" >"$dest/warm.log" 2>&1; then
	echo "tileport: warming the cuTile crates failed (build/cutile/warm.log):" >&2
	tail -n 20 "$dest/warm.log" >&2
	exit 3
fi
end=$(date +%s)
[ $((end - start)) -gt 10 ] && echo "tileport: built the cuTile crates once in $((end - start)) s (build/cutile/cache)" >&2
exit 0
