#!/bin/sh
# make demo's script (mk/demo.sh) on the binary under test, a first session
# on a TileGym checkout: ops lists which operators convert offline and why
# the one that does not is refused; the sample operator is converted offline
# by the mech driver to OFFLINE_COMPLETE with no tokens, its kernel.rs passes
# the semantic check (MATCH), the run directory it names exists, nothing says the
# run could not proceed; it is packaged as the six-file commit and log lists
# it; the IR diff runs, and the benchmark table it writes opens in the
# benchmark view. With TILEGYM=DIR the same on a copy of a real checkout
# (when ../shared has one; skipped cleanly otherwise). And the build it
# starts with says one short line per step (V=1: the command itself), so the
# demo's output is not buried.
. "$TILEPORT_TOP/tests/integration/lib/common.sh"
unset TILEPORT_GPU
cp -R "$TILEPORT_TOP/mk" "$TILEPORT_TOP/samples" "$TILEPORT_TOP/skill" "$T/"
mkdir -p "$T/build"
sh "$T/mk/demo.sh" "$TILEPORT" >"$T/demo.log" 2>&1
assert_eq "demo: exit" "$?" 0
assert_contains "demo: the run ended offline" "$T/demo.log" "OFFLINE_COMPLETE: offline work done; pending"
assert_contains "demo: says what happened" "$T/demo.log" "demo: the run ended as it should offline (exit 0)"
assert_contains "demo: converted by mech, no tokens" "$T/demo.log" "demo: OFFLINE_COMPLETE by mech, 0 tokens"
assert_contains "demo: the semantic check ran" "$T/demo.log" "== tileport equiv"
assert_contains "demo: the translation computes what the source does" "$T/demo.log" "semantic check (dataflow"
dir=$(sed -n 's/^demo: run directory: \([^ ]*\) .*/\1/p' "$T/demo.log")
[ -n "$dir" ] && [ -f "$dir/.tileport/state.json" ] && ok "demo: the run directory it names exists" ||
	bad "demo: names '$dir', which holds no run"
grep -q "could not proceed" "$T/demo.log" && bad "demo: says the run could not proceed" || ok "demo: no false alarm"
assert_contains "demo: the IR diff ran" "$T/demo.log" "demo: irdiff exit 1"
assert_contains "demo: ops, first" "$T/demo.log" "== tileport ops (which operators convert offline, and why the others don't)"
assert_contains "demo: ops says why one is refused" "$T/demo.log" \
	"countdown        cutile/experimental/countdown.py yes   -     refuses at stage A: src/tilegym/ops/cutile/experimental/countdown.py:11:5: while loop"
assert_contains "demo: packaged" "$T/demo.log" "packaged softmax on tileport/softmax"
assert_contains "demo: log lists it" "$T/demo.log" "tileport/softmax cutile-rs: add softmax"
perf=$(sed -n 's/^demo: the benchmark view: tileport open \(.*\)$/\1/p' "$T/demo.log")
printf ':save-display %s\n' "$T/bench.screen" >"$T/bench.script"
COLUMNS=120 LINES=30 TILEPORT_NO_DISPLAY=1 TILEPORT_SCRIPT="$T/bench.script" "$TILEPORT" open "$perf" >"$T/bench.log" 2>&1
assert_eq "demo: the benchmark view opens on what it wrote" "$?" 0
assert_contains "demo: the benchmark view" "$T/bench.screen" "[bench]"

# A real checkout, when this machine has one.
TAR=$(ls "$TILEPORT_TOP"/../shared/tilegym/TileGym-*.tar.gz 2>/dev/null | head -n 1)
if [ -n "$TAR" ]; then
	mkdir -p "$T/tg" && tar xzf "$TAR" -C "$T/tg"
	TG=$(ls -d "$T"/tg/*/ | head -n 1)
	(cd "$TG" && git init -q && git add -A && git -c user.name=t -c user.email=t@example.com commit -q -m base)
	TILEGYM=${TG%/} PATH="/usr/bin:/bin:$(dirname "$(command -v python3)")" sh "$T/mk/demo.sh" "$TILEPORT" \
		>"$T/demo-tg.log" 2>&1
	assert_eq "demo TILEGYM=DIR: exit 0" "$?" 0
	assert_contains "demo TILEGYM=DIR: ops on the real checkout" "$T/demo-tg.log" "refuses at stage"
	# TileGym's softmax converts offline since its host code (a launch
	# through a local name) and its test class's backend list are handled
	assert_contains "demo TILEGYM=DIR: runs TileGym's softmax" "$T/demo-tg.log" "== tileport run softmax --headless"
	assert_contains "demo TILEGYM=DIR: to the end, with no model" "$T/demo-tg.log" "demo: OFFLINE_COMPLETE by mech, 0 tokens"
	git -C "$TG" status --porcelain >"$T/tg-status"
	assert_eq "demo TILEGYM=DIR: the checkout given is untouched" "$(cat "$T/tg-status")" ""
else
	echo "skip demo TILEGYM=DIR: no ../shared/tilegym/TileGym-*.tar.gz here"
fi

# One short line per compiled file; V=1 shows the command. The object goes
# to a scratch build folder: recompiling one of the build under test would
# make the next `make check` relink every binary.
obj=obj/engine/base/util.o
make -s -C "$TILEPORT_TOP" --no-print-directory MODE="$(basename "$TILEPORT_BUILD")" B="$T/b" \
	"$T/b/$obj" >"$T/make.log" 2>&1
assert_eq "make: one line" "$(cat "$T/make.log")" "  CC    engine/base/util.c"
make -C "$TILEPORT_TOP" --no-print-directory MODE="$(basename "$TILEPORT_BUILD")" B="$T/b" V=1 \
	-W engine/base/util.c "$T/b/$obj" >"$T/makev.log" 2>&1
grep -q -- "-c -o $T/b/$obj engine/base/util.c" "$T/makev.log" && ok "make V=1: the compiler line" ||
	bad "make V=1 shows no command: $(cat "$T/makev.log")"
# A unit test's own object is intermediate to make (reached through a
# pattern chain): kept, a second build has nothing to compile.
[ -f "$TILEPORT_BUILD/obj/tests/unit/test_util.o" ] && ok "make keeps intermediate objects" ||
	bad "make deleted $TILEPORT_BUILD/obj/tests/unit/test_util.o"
finish
