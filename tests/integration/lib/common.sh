# Shared helpers for the integration tests (sourced by tests/integration/*.sh).
# Environment from tests/run.sh: TILEPORT (binary), TILEPORT_TOP (repo root).
set -u
: "${TILEPORT:?TILEPORT must name the binary under test}"
: "${TILEPORT_TOP:?TILEPORT_TOP must name the repository root}"
T=$(mktemp -d "${TMPDIR:-/tmp}/tileport-it-XXXXXX")
[ -n "${KEEP_TMP:-}" ] || trap 'rm -rf "$T"' EXIT
WS=$TILEPORT_TOP/samples/workspace
FAKE=$TILEPORT_TOP/tests/integration/lib/fake_agent.sh
failures=0
checks=0

# A machine where the whole toolchain "exists": fake executables on PATH.
mkdir -p "$T/bin" "$T/toolchain"
for prog in cargo tileiras cuda-tile-opt; do
	printf '#!/bin/sh\necho "%s 0.0-test"\n' "$prog" >"$T/bin/$prog"
	chmod +x "$T/bin/$prog"
done
export PATH="$T/bin:$PATH"
unset TILEPORT_TEST_CRASH_AT

online_env() {
	export TILEPORT_GPU=1 TILEIRAS_BIN="$T/bin/tileiras" CUDA_TILE_OPT_BIN="$T/bin/cuda-tile-opt"
	export TRITON_TILEIR_PYTHONPATH="$T/toolchain" CUDA_TOOLKIT_PATH="$T/toolchain"
}

offline_env() {
	unset TILEIRAS_BIN CUDA_TILE_OPT_BIN TRITON_TILEIR_PYTHONPATH CUDA_TOOLKIT_PATH
	export TILEPORT_GPU=0
}

# --driver and --validator flags for every stage: the scripted agent, and no
# orchestrator validator (unless a test passes its own after these).
fake_flags() {
	for s in A B C D E F; do
		printf -- '--driver %s=exec:%s --validator %s=none ' "$s" "$FAKE" "$s"
	done
}

ok() {
	checks=$((checks + 1))
	echo "ok   $*"
}

bad() {
	checks=$((checks + 1))
	failures=$((failures + 1))
	echo "FAIL $*"
}

assert_eq() { # DESC GOT WANT
	if [ "$2" = "$3" ]; then ok "$1"; else bad "$1: got '$2', want '$3'"; fi
}

assert_contains() { # DESC FILE TEXT
	if grep -qF -- "$3" "$2"; then ok "$1"; else
		bad "$1: '$3' not in $2"
		sed 's/^/    | /' "$2" | tail -n 20
	fi
}

# jq-like field access through python: json_get FILE EXPR (EXPR uses `d`)
json_get() {
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

# run_scenario NAME "STAGE: VERDICT ..." ... [-- extra tileport args]
# Runs a fresh run of softmax under $T/NAME with the scenario, leaving
# $T/NAME.rc, $T/NAME.log and $T/NAME.json (status --json).
run_scenario() {
	name=$1
	shift
	: >"$T/$name.scen"
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		echo "$1" >>"$T/$name.scen"
		shift
	done
	[ $# -gt 0 ] && shift
	# shellcheck disable=SC2046
	FAKE_SCENARIO="$T/$name.scen" "$TILEPORT" run softmax --workspace "$WS" --out "$T/$name" \
		--headless $(fake_flags) "$@" >"$T/$name.log" 2>&1
	echo $? >"$T/$name.rc"
	"$TILEPORT" status "$T/$name/softmax" --json >"$T/$name.json" 2>/dev/null
}

# Steps taken, e.g. "A1 -> B1 -> D1 -> PIPELINE_COMPLETE"
path_of() { json_get "$T/$1.json" 'd["path"]'; }
rc_of() { cat "$T/$1.rc"; }

run_facts() { # STATUS_JSON: the facts of a run that must not depend on interruptions
	python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
keep = ("seq", "stage", "attempt", "dir", "repair", "state", "claimed", "verdict", "class",
        "gate", "validator", "action", "exit", "tokens_in", "cost")
out = {k: d.get(k) for k in ("op", "state", "final", "path", "mode", "stages", "soft_markers", "contract",
                             "outcome", "outcome_reason")}
out["attempts"] = [{k: a.get(k) for k in keep} for a in d["attempts"]]
print(json.dumps(out, indent=1, sort_keys=True))
PY
}

finish() {
	echo "$checks checks, $failures failed"
	[ "$failures" -eq 0 ]
}
