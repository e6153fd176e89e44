#!/bin/sh
# make demo: preflight, then a headless run of the bundled sample operator
# by the example agent (samples/agents/example_agent.py), then an IR diff.
# The run is offline (TILEPORT_GPU=0), so it is the same on every machine:
# stages A, B and D do their offline part and the run ends OFFLINE_COMPLETE.
# Everything is written under build/demo/ so the checkout stays clean.
set -u
tp=${1:-build/release/tileport}
top=$(cd "$(dirname "$0")/.." && pwd)
work="$top/build/demo"
rm -rf "$work" && mkdir -p "$work"
cp -R "$top/samples/workspace" "$work/workspace"
export TILEGYM_PATH="$work/workspace" CUTILE_KERNEL_OUT_ROOT="$work/out" TILEPORT_GPU=0
agent="$top/samples/agents/example_agent.py"
run="$CUTILE_KERNEL_OUT_ROOT/softmax"

echo "== tileport preflight"
"$tp" preflight
echo
echo "== tileport run softmax --headless (stages by samples/agents/example_agent.py)"
"$tp" run softmax --headless --driver "A=exec:$agent" --driver "B=exec:$agent" --driver "D=exec:$agent"
rc=$?
echo
if [ -f "$run/.tileport/state.json" ]; then
	echo "== tileport status softmax"
	"$tp" status softmax
	echo
fi
case $rc in
0) echo "demo: the run ended as it should offline (exit 0): 'tileport resume --online' finishes it on a GPU machine." ;;
1) echo "demo: the run ended without being accepted (exit 1); the status above says why." ;;
2 | 3) echo "demo: tileport refused to run (exit $rc); the message above says why." ;;
*) echo "demo: tileport exited $rc"; exit "$rc" ;;
esac
[ -d "$run" ] && echo "demo: run directory: $run (tileport open $run shows it)"
echo
echo "== tileport irdiff samples/ir/softmax_reference.mlir samples/ir/softmax_generated.mlir"
"$tp" irdiff "$top/samples/ir/softmax_reference.mlir" "$top/samples/ir/softmax_generated.mlir"
echo "demo: irdiff exit $? (0 PASS, 2 PASS_WITH_NOTES, 1 FAIL_FIXABLE: the sample's generated side lost a flush_to_zero)"
