#!/bin/sh
# make demo: preflight, then a headless run of the bundled sample operator.
# Everything is written under build/demo/ so the checkout stays clean.
set -u
tp=${1:-build/release/tileport}
top=$(cd "$(dirname "$0")/.." && pwd)
work="$top/build/demo"
rm -rf "$work" && mkdir -p "$work"
cp -R "$top/samples/workspace" "$work/workspace"
export TILEGYM_PATH="$work/workspace" CUTILE_KERNEL_OUT_ROOT="$work/out"

echo "== tileport preflight"
"$tp" preflight
echo
echo "== tileport run softmax --headless"
"$tp" run softmax --headless
rc=$?
echo
if [ -f "$CUTILE_KERNEL_OUT_ROOT/softmax/.tileport/state.json" ]; then
	echo "== tileport status softmax"
	"$tp" status softmax
	echo
fi
case $rc in
0) echo "demo: the run completed (exit 0)." ;;
1) echo "demo: the run stopped on a verdict (exit 1); see the status above." ;;
3) echo "demo: the run could not proceed in this environment (exit 3); the reason is printed above." ;;
*) echo "demo: tileport exited $rc"; exit "$rc" ;;
esac
echo "demo: run directory: $CUTILE_KERNEL_OUT_ROOT/softmax"
echo
echo "== tileport irdiff samples/ir/softmax_reference.mlir samples/ir/softmax_generated.mlir"
"$tp" irdiff "$top/samples/ir/softmax_reference.mlir" "$top/samples/ir/softmax_generated.mlir"
echo "demo: irdiff exit $? (0 PASS, 2 PASS_WITH_NOTES, 1 FAIL_FIXABLE)"
