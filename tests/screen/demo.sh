#!/bin/sh
# What `make demo` shows on a terminal: the offline conversion of the sample
# softmax in the live pipeline view, by mech with no model (the stages
# deferred, not failed, the run OFFLINE_COMPLETE), and from stage B the
# source view of the Python beside the generated kernel.rs, its inventory
# check a MATCH. At 80x24 and 160x48.
. "$TILEPORT_TOP/tests/screen/lib/screen.sh"
export TILEPORT_GPU=0
unset TILEIRAS_BIN CUDA_TILE_OPT_BIN TRITON_TILEIR_PYTHONPATH CUDA_TOOLKIT_PATH

for size in 80x24 160x48; do
	rm -rf ws demo
	cp -R "$TILEPORT_TOP/samples/workspace" ws
	tp "$size" run softmax --workspace ws --out demo <<EOS
:save-display demo-pipeline-$size.screen
g
j
s
:save-display demo-source-$size.screen
EOS
	# narrow, the title has the run's status word; wide, its end state
	[ "$size" = 80x24 ] && ended="offline_complete (offline)  pending" ||
		ended="OFFLINE_COMPLETE (offline; ~ deferred: not counted in RUNS)"
	expect "$size: the run ended offline complete" "demo-pipeline-$size.screen" \
		"[pipeline] softmax - $ended"
	for stage in "A IR Dump" "B Convert" "D Host"; do
		if grep -qE "^~ $stage.* deferred +DEFERRED " "demo-pipeline-$size.screen"; then
			echo "ok   $size: stage ${stage%% *} deferred, not failed"
		else
			echo "FAIL $size: stage ${stage%% *} is not shown deferred"
			failures=$((failures + 1))
		fi
	done
	expect "$size: the source view of stage B" "demo-source-$size.screen" \
		"[source] softmax.py ↔ kernel.rs - python, MATCH"
	check "demo-source-$size.screen"
done
status=$("$TILEPORT" status demo/softmax --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(d["final"], sorted({a["driver"] for a in d["attempts"]}), d["tokens_in"] + d["tokens_out"])')
if [ "$status" = "OFFLINE_COMPLETE ['mech'] 0" ]; then
	echo "ok   status: OFFLINE_COMPLETE by mech, 0 tokens"
else
	echo "FAIL status: $status"
	failures=$((failures + 1))
fi
finish
