#!/bin/sh
# make demo: a first session on a TileGym checkout, offline (TILEPORT_GPU=0)
# so that it is the same on every machine. The workspace is the bundled
# sample (samples/workspace, plus one operator the built-in translator
# refuses), or a real TileGym checkout with `make demo TILEGYM=DIR` (copied:
# the demo never writes into it). In order:
#   tileport ops       which operators convert offline, and why the others don't
#   tileport run OP    one that converts (the pipeline view on a terminal,
#                      events otherwise); mech does A, B and D: no model, no
#                      tokens, OFFLINE_COMPLETE; where none converts, one that
#                      is refused, to show where and why and what would finish it
#   tileport status, equiv (the semantic check), package (the six-file commit), log
#   tileport irdiff and tileport perf on the sample IR pair and perf logs (the
#   IR diff and benchmark views are one command away)
# Everything is written under build/demo/ so the checkout stays clean.
set -u
tp=${1:-build/release/tileport}
tp=$(cd "$(dirname "$tp")" && pwd)/$(basename "$tp")
top=$(cd "$(dirname "$0")/.." && pwd)
work="$top/build/demo"
rm -rf "$work" && mkdir -p "$work"
ws="$work/workspace"
if [ -n "${TILEGYM:-}" ]; then
	[ -d "$TILEGYM/src/tilegym/ops" ] || { echo "demo: $TILEGYM is not a TileGym checkout (no src/tilegym/ops)"; exit 2; }
	echo "demo: a copy of $TILEGYM in $ws (the demo writes nothing into yours)"
	cp -R "$TILEGYM" "$ws"
else
	cp -R "$top/samples/workspace" "$ws"
	# one operator the built-in translator refuses: a while loop, which a
	# tile kernel has no form for in cuTile Rust
	mkdir -p "$ws/src/tilegym/ops/cutile/experimental" "$ws/tests/ops/experimental"
	cat >"$ws/src/tilegym/ops/cutile/experimental/countdown.py" <<'PY'
"""An experimental operator: counts its block index down with a while loop."""
import cuda.tile as ct
import torch

from ....backend import register_impl


@ct.kernel
def countdown_kernel(X, N: ct.Constant[int]):
    i = ct.bid(0)
    while i < N:
        i = i + 1


@register_impl("countdown", backend="cutile")
def countdown(x: torch.Tensor) -> torch.Tensor:
    ct.launch(torch.cuda.current_stream(), (1, 1, 1), countdown_kernel, (x, 4))
    return x
PY
	printf 'import tilegym\n\n\nclass Test_Countdown:\n    _backends = ["cutile"]\n' \
		>"$ws/tests/ops/experimental/test_countdown.py"
fi
# The workspace as a repository of its own, so that packaging sees the run's
# six files as the changes, and not the files of the checkout around it.
if command -v git >/dev/null 2>&1; then
	(cd "$ws" && { [ -d .git ] || git init -q -b main; } && git add -A &&
		git -c user.name=tileport-demo -c user.email=demo@tileport.invalid \
			commit -q -m "the workspace at the start of the demo" --allow-empty) ||
		echo "demo: could not make the workspace a git repository; packaging will look at the checkout"
fi
export TILEGYM_PATH="$ws" CUTILE_KERNEL_OUT_ROOT="$work/out" TILEPORT_GPU=0
cd "$ws" || exit 1

echo "== tileport preflight"
"$tp" preflight
echo
echo "== tileport ops (which operators convert offline, and why the others don't)"
"$tp" ops
"$tp" ops --json >"$work/ops.json"
# the operator to run: softmax where it converts, else the first that
# converts and has no port, else the refused one that gets furthest
op=$(python3 - "$work/ops.json" <<'PY'
import json, sys
ops = json.load(open(sys.argv[1]))
free = [o for o in ops if not o["port"]]
ok = [o["op"] for o in free if o["offline"]["converts"]]
far = sorted(free, key=lambda o: o["offline"].get("stage", ""), reverse=True)
print("softmax" if "softmax" in ok else ok[0] if ok else far[0]["op"] if far else "")
PY
)
[ -n "$op" ] || { echo "demo: every operator of the workspace has a cuTile Rust port already"; exit 0; }
run="$CUTILE_KERNEL_OUT_ROOT/$op"
echo
if [ -t 0 ] && [ -t 1 ] && [ -z "${TILEPORT_DEMO_HEADLESS:-}" ]; then
	echo "== tileport run $op (the pipeline view: s on stage B shows the source view,"
	echo "   Enter a stage's artifacts, t its transcript, h every key, q to leave)"
	"$tp" run "$op"
else
	echo "== tileport run $op --headless"
	"$tp" run "$op" --headless
fi
rc=$?
echo
if [ -f "$run/.tileport/state.json" ]; then
	echo "== tileport status $op"
	"$tp" status "$op"
	echo
	"$tp" status "$op" --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
print("demo: %s by %s, %d tokens" % (d["final"] or d["status"],
      ", ".join(sorted({a["driver"] for a in d["attempts"]})) or "no driver",
      d["tokens_in"] + d["tokens_out"]))' 2>/dev/null
fi
case $rc in
0) echo "demo: the run ended as it should offline (exit 0): 'tileport resume --online' finishes it on a GPU machine." ;;
1) echo "demo: the run ended without being accepted (exit 1); the status above says why." ;;
2 | 3) echo "demo: tileport refused to run (exit $rc); the message above says why." ;;
*) echo "demo: tileport exited $rc"; exit "$rc" ;;
esac
[ -d "$run" ] && echo "demo: run directory: $run (tileport open $op shows it)"
src=$(python3 -c 'import json,sys; print(next((o.get("cutile") or o.get("triton")) for o in json.load(open(sys.argv[1])) if o["op"] == sys.argv[2]))' \
	"$work/ops.json" "$op")
if [ -f "$run/kernel.rs" ]; then
	echo
	echo "== tileport equiv (stage B's semantic check: does the Rust compute what the Python does?)"
	"$tp" equiv "$src" "$run/kernel.rs"
fi
if [ "$rc" = 0 ] && command -v git >/dev/null 2>&1; then
	echo
	echo "== tileport package $op --dry-run (the six-file commit it would make)"
	"$tp" package "$op" --dry-run
	echo
	echo "== tileport package $op --accept ... (an offline run is pending: a reason accepts it)"
	git config user.name >/dev/null 2>&1 || git config user.name tileport-demo
	git config user.email >/dev/null 2>&1 || git config user.email demo@tileport.invalid
	"$tp" package "$op" --accept "demo: converted offline; the GPU numbers follow"
	echo "demo: package exit $?"
	echo
	echo "== tileport log"
	"$tp" log
fi
echo
echo "== tileport irdiff samples/ir/softmax_reference.mlir samples/ir/softmax_generated.mlir"
"$tp" irdiff "$top/samples/ir/softmax_reference.mlir" "$top/samples/ir/softmax_generated.mlir"
echo "demo: irdiff exit $? (0 PASS, 2 PASS_WITH_NOTES, 1 FAIL_FIXABLE: the sample's generated side lost a flush_to_zero)"
echo "demo: the IR diff view: tileport irdiff --tui $top/samples/ir/softmax_reference.mlir $top/samples/ir/softmax_generated.mlir"
echo
echo "== tileport perf samples/perf/baseline_perf_cutile.txt samples/perf/perf_cutile_rs.txt (hand-written logs)"
"$tp" perf "$top/samples/perf/baseline_perf_cutile.txt" "$top/samples/perf/perf_cutile_rs.txt" \
	--out "$work/performance.md" >/dev/null
echo "demo: perf exit $? (0 DONE, 1 INVESTIGATE): $work/performance.md"
sed -n '1p;/geomean_ratio=/p' "$work/performance.md"
echo "demo: the benchmark view: tileport open $work/performance.md"
