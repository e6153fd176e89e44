# Shared setup for the screen tests (sourced by tests/screen/*.sh): the
# program runs in script mode (TILEPORT_SCRIPT) on the virtual screen
# (TILEPORT_NO_DISPLAY=1) over copies of the hand-written fixture runs, with
# the clock frozen (TILEPORT_NOW) so ages and elapsed times are stable.
# Screens are compared with the golden files in tests/screen/golden/;
# TILEPORT_UPDATE_GOLDEN=1 rewrites them instead.
set -u
: "${TILEPORT:?TILEPORT must name the binary under test}"
: "${TILEPORT_TOP:?TILEPORT_TOP must name the repository root}"
T=$(mktemp -d "${TMPDIR:-/tmp}/tileport-screen-XXXXXX")
trap 'rm -rf "$T"' EXIT
GOLDEN=$TILEPORT_TOP/tests/screen/golden
export TILEPORT_NO_DISPLAY=1 TILEPORT_DATA_DIR="$TILEPORT_TOP" TZ=UTC LC_ALL=C.UTF-8
export TERM=xterm-256color TILEPORT_NOW=1795903000000
export XDG_CONFIG_HOME="$T/xdg" HOME="$T/home"
unset NO_COLOR TILEPORT_SCRIPT TILEPORT_LATENCY_LOG CUTILE_KERNEL_OUT_ROOT TILEGYM_PATH \
	EDITOR VISUAL PAGER TILEPORT_TABLE
mkdir -p "$T/home" "$T/xdg"
cp -R "$TILEPORT_TOP/tests/fixtures/tui-runs" "$T/out"
cd "$T" || exit 1
failures=0

# tp SIZE ARGS...: run tileport at SIZE (COLSxLINES) with the script read
# from stdin; a non-zero exit is a failure.
tp() {
	size=$1
	shift
	cat >"$T/script"
	COLUMNS=${size%x*} LINES=${size#*x} TILEPORT_SCRIPT="$T/script" "$TILEPORT" "$@" \
		>"$T/tp.log" 2>&1
	rc=$?
	if [ "$rc" -ne 0 ]; then
		echo "FAIL tileport $* exited $rc"
		sed 's/^/    | /' "$T/tp.log"
		failures=$((failures + 1))
	fi
}

# check NAME: $T/NAME must equal golden/NAME.
check() {
	if [ ! -f "$T/$1" ]; then
		echo "FAIL $1 was not written"
		failures=$((failures + 1))
		return
	fi
	if [ -n "${TILEPORT_UPDATE_GOLDEN:-}" ]; then
		cp "$T/$1" "$GOLDEN/$1"
		echo "updated $1"
		return
	fi
	if diff -u "$GOLDEN/$1" "$T/$1"; then
		echo "ok   $1"
	else
		echo "FAIL $1 differs from tests/screen/golden/$1"
		failures=$((failures + 1))
	fi
}

# expect DESC FILE TEXT: FILE contains TEXT.
expect() {
	if grep -qF -- "$3" "$2"; then
		echo "ok   $1"
	else
		echo "FAIL $1: '$3' not in $2"
		sed 's/^/    | /' "$2" | head -n 40
		failures=$((failures + 1))
	fi
}

finish() {
	[ "$failures" -eq 0 ] && echo "all passed" && return 0
	echo "$failures failure(s)"
	return 1
}
