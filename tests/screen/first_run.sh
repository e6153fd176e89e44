#!/bin/sh
# The screens of a first run on a TileGym-shaped checkout
# (tests/fixtures/tilegym-layout), at 200 columns where the pipeline view
# has the transcript beside it: stage names whole, the refusal's
# `unsupported:` line whole in the transcript pane, the runs view's
# outcome whole and no "live" for a finished run this screen holds, a hint
# for RUNS 0/1 beside deferred stages, artifacts of a deferred stage said
# validated (not "not validated" under a PASS), and the IR diff's findings
# pane no wider than each IR side, the region-argument lines shown.
. "$TILEPORT_TOP/tests/screen/lib/screen.sh"
export TILEPORT_GPU=0 PATH="/usr/bin:/bin"
unset TILEIRAS_BIN CUDA_TILE_OPT_BIN TRITON_TILEIR_PYTHONPATH CUDA_TOOLKIT_PATH TILEPORT_LLM_BASE_URL
cp -R "$TILEPORT_TOP/tests/fixtures/tilegym-layout" ws
"$TILEPORT" run looped --workspace ws --out fr --headless >looped.log 2>&1
"$TILEPORT" run silu_and_mul --workspace ws --out fr --headless >silu.log 2>&1
WHERE='src/tilegym/ops/cutile/experimental/looped.py:12:5:'

tp 200x45 open fr/looped <<EOS
:save-display fr-pipeline.screen
EOS
expect "stage names whole at 200 columns" fr-pipeline.screen "D Host + Wrapper + Correctness "
expect "the transcript pane: the unsupported line, folded, not cut" fr-pipeline.screen \
	"unsupported: $WHERE while"
expect "... its end on the next row" fr-pipeline.screen "    loop"

tp 200x45 browse --out fr <<EOS
/looped
<Enter>
<Enter>
:save-display fr-looped.screen
q
:save-display fr-runs.screen
EOS
if grep -q "S respawn" fr-looped.screen; then
	echo "FAIL the key hints offer S (respawn) on a stage its driver refused"
	failures=$((failures + 1))
else
	echo "ok   no S (respawn) offered where it would repeat the refusal"
fi
expect "runs view: the outcome whole" fr-runs.screen "not accepted: A1: mech refused: $WHERE while loop"
if grep -q "live" fr-runs.screen; then
	echo "FAIL runs view: a finished run held by this screen is called live"
	failures=$((failures + 1))
else
	echo "ok   runs view: no 'live' for finished runs"
fi
expect "runs view: how many" fr-runs.screen "[runs] fr - 2 runs "

tp 200x45 open fr/silu_and_mul <<EOS
:save-display fr-deferred.screen
g
j
<Enter>
:save-display fr-stage-b.screen
EOS
expect "RUNS 0/1 beside deferred stages: a hint" fr-deferred.screen \
	"OFFLINE_COMPLETE (offline; ~ deferred: not counted in RUNS)  pending"
expect "artifacts of a deferred stage: validated, toolchain checks deferred" fr-stage-b.screen \
	"kernel.rs                                    validated, toolchain checks deferred"
if grep -q "not validated" fr-stage-b.screen; then
	echo "FAIL stage view: 'not validated' beside the validator's findings"
	failures=$((failures + 1))
else
	echo "ok   stage view: no 'not validated' for a validated stage"
fi

tp 200x50 irdiff --tui "$TILEPORT_TOP/samples/ir/softmax_reference.mlir" \
	"$TILEPORT_TOP/samples/ir/softmax_generated.mlir" <<EOS
:save-display fr-irdiff.screen
EOS
expect "irdiff: the region-argument line" fr-irdiff.screen "17   (%reduce_lhs: tile<f32>, %reduce_rhs: tile<f32>) {"
# the findings pane (after the vertical separator) no wider than each side
cols=$(python3 - fr-irdiff.screen <<'PY'
import sys
row = open(sys.argv[1]).read().splitlines()[3]
sep = row.rindex("x")          # the pane separator of the virtual screen
side = row.index("\u2502")     # the separator between the IR sides
print("ok" if 200 - sep - 1 <= side else "findings %d > side %d" % (200 - sep - 1, side))
PY
)
if [ "$cols" = ok ]; then echo "ok   irdiff: the findings pane is no wider than an IR side"
else echo "FAIL irdiff: $cols"; failures=$((failures + 1)); fi
finish
