# Sourced by the wrapper scripts in this directory: sets TP to the tileport
# binary. Order: $TILEPORT_BIN, `tileport` on PATH, then relative to this
# script (a build tree: ../../build/{release,check}/tileport; an install:
# PREFIX/share/tileport/skill/scripts -> PREFIX/bin/tileport).
if [ -n "${TILEPORT_BIN:-}" ]; then
	TP=$TILEPORT_BIN
elif TP=$(command -v tileport 2>/dev/null) && [ -n "$TP" ]; then
	:
else
	TP=
	_tp_here=$(cd "$(dirname "$0")" && pwd)
	for _tp_c in "$_tp_here/../../build/release/tileport" "$_tp_here/../../build/check/tileport" \
		"$_tp_here/../../../../bin/tileport"; do
		if [ -x "$_tp_c" ]; then
			TP=$_tp_c
			break
		fi
	done
	if [ -z "$TP" ]; then
		echo "$(basename "$0"): tileport not found (set TILEPORT_BIN or put tileport on PATH)" >&2
		exit 3
	fi
fi
