#!/bin/sh
# cuTile Python (cuda-tile, with tileiras) for the tests of tileport refir:
# a venv in the build folder with the pinned packages of mk/cutile-py.txt
# from PyPI, made once and kept while the pins are the same (not global:
# a user's own workspace Python is what tileport uses on their machine).
# Usage: mk/cutile-py.sh [DIR]   (prints DIR/bin/python when done; exit 3
# when Python's venv or PyPI cannot be had: the tests that need it skip)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$top/build/pyenv}
pins="$top/mk/cutile-py.txt"
stamp="$dir/.installed"
py=${PYTHON:-python3}
if [ -f "$stamp" ] && cmp -s "$stamp" "$pins" && [ -x "$dir/bin/python" ]; then
	echo "$dir/bin/python"
	exit 0
fi
if ! command -v "$py" >/dev/null 2>&1; then
	echo "tileport: $py is missing: tests of tileport refir skip" >&2
	exit 3
fi
rm -rf "$dir"
start=$(date +%s)
echo "tileport: installing cuda-tile[tileiras]==1.7.0 into $dir (once, about 20 s and 560 MB)" >&2
if ! "$py" -m venv "$dir" >"$top/build/pyenv.log" 2>&1 ||
	! "$dir/bin/python" -m pip install --disable-pip-version-check --no-input -q \
		-r "$pins" >>"$top/build/pyenv.log" 2>&1; then
	echo "tileport: installing cuda-tile failed; see build/pyenv.log (tests of tileport refir skip)" >&2
	tail -n 5 "$top/build/pyenv.log" >&2
	rm -rf "$dir"
	exit 3
fi
cp "$pins" "$stamp"
echo "tileport: cuda-tile installed in $(( $(date +%s) - start )) s" >&2
echo "$dir/bin/python"
