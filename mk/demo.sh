#!/bin/sh
# make demo: preflight, then a conversion of the bundled sample operator
# softmax — in the pipeline view on a terminal, headless otherwise — then an
# IR diff. The run is offline (TILEPORT_GPU=0), so it is the same on every
# machine: the built-in mech driver does stages A, B and D (docs/mech.md),
# no model, no tokens, and the run ends OFFLINE_COMPLETE. Everything is
# written under build/demo/ so the checkout stays clean.
set -u
tp=${1:-build/release/tileport}
tp=$(cd "$(dirname "$tp")" && pwd)/$(basename "$tp")
top=$(cd "$(dirname "$0")/.." && pwd)
work="$top/build/demo"
rm -rf "$work" && mkdir -p "$work"
cp -R "$top/samples/workspace" "$work/workspace"
# The workspace as its own repository, the sample committed, so that
# packaging (p in the pipeline view, tileport package) sees the run's six
# files as the changes, and not the files of the checkout around it.
if command -v git >/dev/null 2>&1; then
	(cd "$work/workspace" && git init -q -b main && git add -A &&
		git -c user.name=tileport-demo -c user.email=demo@tileport.invalid \
			commit -q -m "the sample workspace") ||
		echo "demo: could not make the workspace a git repository; packaging will look at the checkout"
fi
export TILEGYM_PATH="$work/workspace" CUTILE_KERNEL_OUT_ROOT="$work/out" TILEPORT_GPU=0
run="$CUTILE_KERNEL_OUT_ROOT/softmax"

echo "== tileport preflight"
"$tp" preflight
echo
if [ -t 0 ] && [ -t 1 ] && [ -z "${TILEPORT_DEMO_HEADLESS:-}" ]; then
	echo "== tileport run softmax (the pipeline view: s on stage B shows the source view,"
	echo "   Enter a stage's artifacts, t its transcript, h every key, q to leave)"
	"$tp" run softmax
else
	echo "== tileport run softmax --headless"
	"$tp" run softmax --headless
fi
rc=$?
echo
if [ -f "$run/.tileport/state.json" ]; then
	echo "== tileport status softmax"
	"$tp" status softmax
	echo
	"$tp" status softmax --json | python3 -c '
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
[ -d "$run" ] && echo "demo: run directory: $run (tileport open $run shows it)"
if [ -f "$run/kernel.rs" ]; then
	echo
	echo "== tileport equiv (stage B's semantic check: does the Rust compute what the Python does?)"
	(cd "$TILEGYM_PATH" && "$tp" equiv src/tilegym/ops/cutile/softmax.py "$run/kernel.rs")
fi
echo
echo "== tileport irdiff samples/ir/softmax_reference.mlir samples/ir/softmax_generated.mlir"
"$tp" irdiff "$top/samples/ir/softmax_reference.mlir" "$top/samples/ir/softmax_generated.mlir"
echo "demo: irdiff exit $? (0 PASS, 2 PASS_WITH_NOTES, 1 FAIL_FIXABLE: the sample's generated side lost a flush_to_zero)"
