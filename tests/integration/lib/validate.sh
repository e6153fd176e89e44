# Shared by tests/integration/validate_*.sh (sourced, never run alone).
# Each case copies the hand-written fixtures (tests/fixtures/runs/* and
# tests/fixtures/workspace) into a fresh directory, applies one small
# mutation, runs `tileport validate` and compares the set of non-PASS
# findings ("SEV rule" pairs) with what the case expects.
set -u
: "${TILEPORT:?}" "${TILEPORT_TOP:?}"
FIX="$TILEPORT_TOP/tests/fixtures"
VT_TMP=$(mktemp -d)
trap 'rm -rf "$VT_TMP"' EXIT
VT_FAILS=0
VT_CASES=0
unset TILEGYM_PATH CUTILE_KERNEL_OUT_ROOT CUTILE_RS_ROOT CUTILE_RS_KERNELS_DIR TILEPORT_DEFERRED

# The interpreter itself, not a version-manager shim (much faster to start).
PY=$(python3 -c 'import sys; print(sys.executable)')

# The stand-in cdylib, built once per script.
mkdir -p "$VT_TMP/so"
${CC:-cc} -shared -fPIC -o "$VT_TMP/so/libcutile_kernels.so" "$FIX/elf/cutile_kernels.c" || {
	echo "cannot build the fixture cdylib" >&2
	exit 1
}

# fresh: a new copy of the fixtures in $C; OUT=$C/out/softmax, WS=$C/ws.
fresh() {
	C="$VT_TMP/case$VT_CASES"
	rm -rf "$C"
	mkdir -p "$C"
	cp -R "$FIX/runs" "$C/out"
	cp -R "$FIX/workspace" "$C/ws"
	mkdir -p "$C/ws/src/tilegym/ops/cutile_rs/cutile_kernels/target/release"
	cp "$VT_TMP/so/libcutile_kernels.so" "$C/ws/src/tilegym/ops/cutile_rs/cutile_kernels/target/release/"
	OUT="$C/out/softmax"
	BMM="$C/out/bmm"
	WS="$C/ws"
	OPS="$WS/src/tilegym/ops/cutile_rs"
	unset CUTILE_RS_ROOT CUTILE_RS_KERNELS_DIR TILEPORT_DEFERRED
	export TILEGYM_PATH="$WS" CUTILE_KERNEL_OUT_ROOT="$C/out"
}

# The state before D ran: no host files, no wiring (for B's lane guards).
pre_d() {
	rm -f "$OUT/ffi.rs" "$OUT/correctness_cutile_rs.txt" "$OUT/reports/correctness.md" \
		"$OUT/reports/agent_d.md" "$OUT/reports/agent_logs/agent_d.md" "$OPS/softmax.py"
	printf 'import pytest\n\n_backends = ["cutile"]\n' >"$WS/tests/ops/test_softmax.py"
	printf '# cutile-rs ops\n' >"$OPS/__init__.py"
}

# run VALIDATOR ARGS...: sets RC and FIRED (sorted unique "SEV rule" lines
# for WARN, FAIL and DEFERRED findings).
run() {
	"$TILEPORT" validate "$@" -q >"$VT_TMP/out.txt" 2>"$VT_TMP/err.txt"
	RC=$?
	FIRED=$(sed -n 's/^\(WARN\|FAIL\|DEFERRED\) \[\([^]]*\)\].*/\1 \2/p' "$VT_TMP/out.txt" | sort -u)
}

fail() {
	VT_FAILS=$((VT_FAILS + 1))
	echo "FAIL: $*"
	echo "---- output"
	cat "$VT_TMP/out.txt" "$VT_TMP/err.txt"
	echo "----"
}

# expect NAME "SEV rule" RC VALIDATOR ARGS... ; the mutation has been applied.
# "SEV rule" may be "" for a clean run.
expect() {
	name=$1 want=$2 want_rc=$3
	shift 3
	VT_CASES=$((VT_CASES + 1))
	run "$@"
	if [ "$FIRED" != "$want" ]; then
		fail "$name: expected [$want], fired [$(echo $FIRED)]"
	elif [ "$RC" != "$want_rc" ]; then
		fail "$name: expected exit $want_rc, got $RC"
	fi
}

# rule NAME "SEV rule" VALIDATOR-AND-ARGS MUTATION: fresh fixtures, the
# mutation (a shell snippet), then exactly that rule must fire; the exit code
# is 1 for FAIL and 0 otherwise.
rule() {
	name=$1 want=$2 cmd=$3 mutation=$4
	fresh
	eval "$mutation" || { fail "$name: mutation failed"; return; }
	want_rc=0
	case "$want" in FAIL\ *) want_rc=1 ;; esac
	# shellcheck disable=SC2086
	expect "$name" "$want" "$want_rc" $cmd
}

# control NAME VALIDATOR-AND-ARGS [SETUP]: nothing fires, exit 0.
control() {
	fresh
	[ -n "${3:-}" ] && eval "$3"
	# shellcheck disable=SC2086
	expect "$1 (control)" "" 0 $2
}

# contains FILE TEXT: assert the last output contains TEXT.
contains() {
	grep -qF -- "$1" "$VT_TMP/out.txt" || fail "output lacks '$1'"
}

finish() {
	echo "$VT_CASES case(s), $VT_FAILS failure(s)"
	[ "$VT_FAILS" -eq 0 ]
}

# jed FILE PYTHON: edit a JSON file in place; the code sees it as `d`.
jed() {
	"$PY" - "$1" "$2" <<'PY'
import json, sys
path, code = sys.argv[1], sys.argv[2]
with open(path) as f:
    d = json.load(f)
exec(code)
with open(path, "w") as f:
    json.dump(d, f, indent=1)
PY
}
