#!/bin/sh
# make demo: preflight, then a conversion of the bundled sample operator
# softmax — in the pipeline view on a terminal, headless otherwise. On a
# machine without the cuTile toolchain the run is offline and the built-in
# mech driver does stages A, B and D (docs/mech.md): no model, no tokens,
# ending OFFLINE_COMPLETE. Everything is written under build/demo/ so the
# checkout stays clean.
set -u
tp=${1:-build/release/tileport}
tp=$(cd "$(dirname "$tp")" && pwd)/$(basename "$tp")
top=$(cd "$(dirname "$0")/.." && pwd)
work="$top/build/demo"
rm -rf "$work" && mkdir -p "$work"
cp -R "$top/samples/workspace" "$work/workspace"
export TILEGYM_PATH="$work/workspace" CUTILE_KERNEL_OUT_ROOT="$work/out"

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
run="$CUTILE_KERNEL_OUT_ROOT/softmax"
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
0) echo "demo: the run completed (exit 0)." ;;
1) echo "demo: the run stopped on a verdict (exit 1); see the status above." ;;
3) echo "demo: the run could not proceed in this environment (exit 3); the reason is printed above." ;;
*) echo "demo: tileport exited $rc"; exit "$rc" ;;
esac
echo "demo: run directory: $run"
if [ -f "$run/kernel.rs" ]; then
	echo
	echo "== tileport inventory (the structural self-check of stage B)"
	(cd "$TILEGYM_PATH" && "$tp" inventory src/tilegym/ops/cutile/softmax.py "$run/kernel.rs")
fi
echo
echo "== tileport irdiff samples/ir/softmax_reference.mlir samples/ir/softmax_generated.mlir"
"$tp" irdiff "$top/samples/ir/softmax_reference.mlir" "$top/samples/ir/softmax_generated.mlir"
echo "demo: irdiff exit $? (0 PASS, 2 PASS_WITH_NOTES, 1 FAIL_FIXABLE)"
