#!/bin/sh
# Operators as TileGym lays them out (tests/fixtures/tilegym-layout): one in
# a subfolder runs by its name or by its path, its test and wiring found in
# the same subfolder, its run opened by either name; a helper module
# without a kernel is no operator; an operator that already has a cuTile
# Rust port is named as such before anything runs, and --again converts it
# anyway with the port's files known for what they are; batch start --all
# takes exactly the operators that still need a port and says which it
# left out and why.
. "$TILEPORT_TOP/tests/integration/lib/common.sh"
. "$TILEPORT_TOP/tests/integration/lib/batch.sh"
offline_env
export HOME="$T/home" GIT_CONFIG_NOSYSTEM=1
mkdir -p "$HOME"
FX=$TILEPORT_TOP/tests/fixtures/tilegym-layout
cp -R "$FX" "$T/ws"
W=$T/ws
git -C "$W" init -q -b main && git -C "$W" config user.name "Pat Packager" &&
	git -C "$W" config user.email pat@example.com && git -C "$W" add -A && git -C "$W" commit -q -m base

# By name where the name is unique: activation/silu_and_mul.py.
"$TILEPORT" run silu_and_mul --workspace "$W" --out "$T/out" --headless >"$T/sub.log" 2>&1
assert_eq "a subfolder operator by name: the run completes offline" "$?" 0
"$TILEPORT" status silu_and_mul --out "$T/out" --json >"$T/sub.json"
assert_eq "its run is OUT/NAME" "$(json_get "$T/sub.json" 'd["run_dir"]')" "$T/out/silu_and_mul"
assert_eq "it ends OFFLINE_COMPLETE" "$(json_get "$T/sub.json" 'd["final"]')" OFFLINE_COMPLETE
assert_contains "stage A read the source in its subfolder" "$T/out/silu_and_mul/reference/analysis.json" \
	'"source":	"src/tilegym/ops/cutile/activation/silu_and_mul.py"'
assert_contains "and the test in the same subfolder" "$T/out/silu_and_mul/reference/analysis.json" \
	'tests/ops/activation/test_silu_and_mul.py'
assert_contains "stage D wired the test in its subfolder" "$W/tests/ops/activation/test_silu_and_mul.py" \
	'_backends = _backends + ["cutile-rs"]'
[ ! -e "$W/tests/ops/test_silu_and_mul.py" ] && ok "no test file made up at the top of tests/ops" ||
	bad "stage D wrote tests/ops/test_silu_and_mul.py"

# Its six files package as one commit, the test in its subfolder.
"$TILEPORT" package silu_and_mul --out "$T/out" --accept "offline: the GPU numbers follow" >"$T/pkg.log" 2>&1
assert_eq "package: committed" "$?" 0
assert_eq "package: the six paths, the test in its subfolder" \
	"$(git -C "$W" diff --name-only main tileport/silu_and_mul | sort | tr '\n' ' ')" \
	"src/tilegym/ops/cutile_rs/__init__.py src/tilegym/ops/cutile_rs/cutile_kernels/src/lib.rs src/tilegym/ops/cutile_rs/silu_and_mul.py src/tilegym/ops/cutile_rs/silu_and_mul_kernel/ffi.rs src/tilegym/ops/cutile_rs/silu_and_mul_kernel/kernel.rs tests/ops/activation/test_silu_and_mul.py "
(cd "$W" && "$TILEPORT" review tileport/silu_and_mul --plain) >"$T/review.txt" 2>&1
assert_contains "review: the test file has its role" "$T/review.txt" "tests/ops/activation/test_silu_and_mul.py"
assert_contains "review: six paths" "$T/review.txt" "6 paths: kernel, ffi, wrapper, lib.rs, import, test"

# ... and by its path, in every form, for status, open and run.
for arg in activation/silu_and_mul activation/silu_and_mul.py src/tilegym/ops/cutile/activation/silu_and_mul.py \
	"$W/src/tilegym/ops/cutile/activation/silu_and_mul.py"; do
	(cd "$W" && "$TILEPORT" status "$arg" --out "$T/out" --json) >"$T/st.json" 2>"$T/st.err"
	assert_eq "status $arg: the run of silu_and_mul" "$(json_get "$T/st.json" 'd["op"]')" silu_and_mul
done
printf ':save-display %s\nq\n' "$T/open.screen" >"$T/open.script"
(cd "$W" && TILEPORT_NO_DISPLAY=1 TILEPORT_SCRIPT="$T/open.script" "$TILEPORT" open activation/silu_and_mul \
	--out "$T/out" --read-only) >"$T/open.log" 2>&1
assert_eq "open activation/silu_and_mul: the run opens" "$?" 0
assert_contains "open activation/silu_and_mul: its pipeline view" "$T/open.screen" "silu_and_mul"
cp -R "$FX" "$T/wp"
"$TILEPORT" run src/tilegym/ops/cutile/activation/silu_and_mul.py --workspace "$T/wp" --out "$T/pout" --headless >"$T/path.log" 2>&1
assert_eq "run by path" "$?" 0
assert_contains "the run is named after the operator" "$T/path.log" "run of silu_and_mul created in $T/pout/silu_and_mul"

"$TILEPORT" analyze activation/silu_and_mul --workspace "$T/wp" --out "$T/aout" >"$T/analyze.log" 2>&1
assert_eq "analyze by path" "$?" 0
[ -f "$T/aout/silu_and_mul/reference/analysis.json" ] && ok "analyze by path: written under the operator's name" ||
	bad "analyze by path wrote $(cat "$T/analyze.log")"

# A helper module is no operator, and says so; an unknown name says where it looked.
"$TILEPORT" run utils --workspace "$W" --out "$T/out" --headless >"$T/utils.log" 2>&1
assert_eq "a helper module: exit 2" "$?" 2
assert_contains "a helper module: why" "$T/utils.log" \
	"src/tilegym/ops/cutile/utils.py is not an operator: it has no kernel (no @ct.kernel or @triton.jit)"
"$TILEPORT" run nosuch --workspace "$W" --out "$T/out" --headless >"$T/nosuch.log" 2>&1
assert_eq "an unknown operator: exit 2" "$?" 2
assert_contains "an unknown operator: where it looked" "$T/nosuch.log" \
	"operator 'nosuch' not found in workspace $W (looked for nosuch.py under src/tilegym/ops/cutile/ and src/tilegym/ops/triton/, subfolders included)"

# An operator with a cuTile Rust port is named as such up front.
"$TILEPORT" run softmax --workspace "$W" --out "$T/out" --headless >"$T/port.log" 2>&1
assert_eq "a ported operator: exit 2" "$?" 2
assert_contains "a ported operator: the port and what to do" "$T/port.log" \
	"softmax already has a cuTile Rust port in workspace $W (src/tilegym/ops/cutile_rs/softmax_kernel/, src/tilegym/ops/cutile_rs/softmax.py)"
assert_contains "a ported operator: --again" "$T/port.log" "use 'tileport run softmax --again'"
[ ! -e "$T/out/softmax" ] && ok "a ported operator: no run was created" || bad "a run of softmax exists"
"$TILEPORT" run softmax --again --workspace "$W" --out "$T/out" --headless >"$T/again.log" 2>&1
assert_eq "--again: the run completes offline" "$?" 0
assert_contains "--again: the run says what it met" "$T/again.log" \
	"--again: the workspace has a cuTile Rust port (src/tilegym/ops/cutile_rs/softmax_kernel/, src/tilegym/ops/cutile_rs/softmax.py), which stage D writes over"
"$TILEPORT" status softmax --out "$T/out" --json >"$T/again.json"
assert_eq "--again: recorded in the run" "$(json_get "$T/again.json" 'd["port_before"]')" \
	"['src/tilegym/ops/cutile_rs/softmax_kernel/', 'src/tilegym/ops/cutile_rs/softmax.py']"
"$TILEPORT" validate agent-b softmax --run "$T/out/softmax" --deferred reference-ir,generated-ir,cargo-build,layout-gate \
	>"$T/lane.txt" 2>&1
assert_contains "--again: B's lane check knows the port was there before" "$T/lane.txt" \
	"INFO [agent-b.lane] $W/src/tilegym/ops/cutile_rs/softmax.py: the cutile-rs wrapper exists (the port the workspace had before this run: run --again)"

# batch start --all: every operator that still needs a port, none of the
# helpers; the ported one left out, with why.
cp -R "$FX" "$T/wb"
for op in looped rms_norm silu_and_mul; do
	scenario "$op" "A: BLOCKED"
done
# shellcheck disable=SC2046
"$TILEPORT" batch start --all --workspace "$T/wb" --out "$T/bout" --name all --headless $(batch_flags) \
	>"$T/all.log" 2>&1
assert_contains "--all: how many, and what was left out" "$T/all.log" \
	"--all: 3 operators; left out: softmax (a cuTile Rust port: src/tilegym/ops/cutile_rs/softmax_kernel/, src/tilegym/ops/cutile_rs/softmax.py)"
"$TILEPORT" batch status all --out "$T/bout" --json >"$T/all.json"
assert_eq "--all: the operators, subfolders included, no helper module" \
	"$(json_get "$T/all.json" '" ".join(o["op"] for o in d["ops"])')" "looped rms_norm silu_and_mul"
# a batch takes operators by path too
# shellcheck disable=SC2046
"$TILEPORT" batch start experimental/looped --workspace "$T/wb" --out "$T/bout2" --name bypath --headless \
	$(batch_flags) >"$T/bypath.log" 2>&1
"$TILEPORT" batch status bypath --out "$T/bout2" --json >"$T/bypath.json"
assert_eq "batch start by path: the operator's name" "$(json_get "$T/bypath.json" 'd["ops"][0]["op"]')" looped
"$TILEPORT" batch start softmax --workspace "$T/wb" --out "$T/bout3" --name ported --headless >"$T/bported.log" 2>&1
assert_eq "batch start of a ported operator: exit 2" "$?" 2
assert_contains "batch start of a ported operator: says so" "$T/bported.log" "softmax already has a cuTile Rust port"
finish
