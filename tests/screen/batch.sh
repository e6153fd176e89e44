#!/bin/sh
# The batch view over a fixture batch (tests/fixtures/batch: eight runs,
# one per way a run can stand) at 80x24 and 160x48: its rows, the selected
# op's details, Enter into a run's pipeline view; R and x explain
# themselves where there is nothing to do, and R asks before re-running a
# stopped run.
. "$TILEPORT_TOP/tests/screen/lib/screen.sh"
cp -R "$TILEPORT_TOP/tests/fixtures/batch/out" "$T/bout"

for size in 80x24 160x48; do
	tp "$size" open --out bout lib <<EOS
:save-display batch-$size.screen
j
j
j
:save-display batch-stopped-$size.screen
EOS
	check "batch-$size.screen"
	check "batch-stopped-$size.screen"
done

tp 80x24 open --out bout lib <<EOS
<Enter>
:save-display batch-pipeline-80x24.screen
q
R
:save-display batch-r-complete.screen
j
j
j
x
:save-display batch-x-stopped.screen
R
:save-display batch-r-stopped.screen
<Esc>
:save-display batch-r-no.screen
EOS
# (the pipeline view's own goldens are views.sh's; here: that it is this run's)
expect "Enter opens the run's pipeline view" batch-pipeline-80x24.screen "[pipeline] softmax - complete  accepted"
expect "with its stages" batch-pipeline-80x24.screen "✓ E Benchmark        1/2 done         DONE"
expect "R on a converted run" batch-r-complete.screen "softmax is complete: nothing to resume"
expect "x on a stopped run" batch-x-stopped.screen "matmul is stopped: nothing to cancel"
expect "R on a stopped run asks first" batch-r-stopped.screen "matmul stopped on a verdict; run it again from the start"
expect "saying no changes nothing" batch-r-no.screen "✗ matmul       stopped"
[ ! -d "$T/bout/.tileport-batch/lib/previous" ] && echo "ok   nothing was moved" ||
	{ echo "FAIL the stopped run was moved after a no"; failures=$((failures + 1)); }
finish
