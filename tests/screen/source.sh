#!/bin/sh
# The source view at 80x24 and 160x48 against golden screens: a sample
# operator beside its translation (translate --tui), the cursor moved in
# the Python and the Rust following, Tab to the Rust side and its second
# entry; a pair with a mutated kernel (open KERNEL.py KERNEL.rs) whose
# mismatches ] and [ visit, Enter explaining one, scrolled sideways; a
# refusal marked on its line; a partly translated file (the kernels that
# translate, the refused one marked); opened from a run's stage B in the pipeline
# and stage views. Cell types from the model dump, and the errors.
. "$TILEPORT_TOP/tests/screen/lib/screen.sh"

cp -R "$TILEPORT_TOP/samples/workspace" ws
cp "$TILEPORT_TOP/tests/fixtures/port/unsupported/while_loop.py" while_loop.py
cp "$TILEPORT_TOP/tests/fixtures/port/partial/two_kernels.py" two_kernels.py
LN=ws/src/tilegym/ops/cutile/layer_norm.py
SM=ws/src/tilegym/ops/cutile/softmax.py
"$TILEPORT" translate "$SM" >softmax.rs || echo "FAIL translate softmax"
sed 's/padding::NegInf/padding::Zero/; s/reduce_sum(num, 1i32)/reduce_max(num, 1i32)/' softmax.rs >mutated.rs
# the run fixture's workspace is this copy
sed -i "s|/workspace/tilegym|$T/ws|" out/softmax/.tileport/state.json

for size in 80x24 160x48; do
	tp "$size" translate --tui "$LN" <<EOS
:save-display source-open-$size.screen
:32
:save-display source-follow-$size.screen
<Tab>
:save-display source-rust-$size.screen
G
:save-display source-rust-end-$size.screen
]
:save-display source-no-mismatch-$size.screen
EOS
	for s in open follow rust rust-end no-mismatch; do
		check "source-$s-$size.screen"
	done

	tp "$size" open "$SM" mutated.rs <<EOS
]
:save-display source-mismatch-$size.screen
]
[
<Enter>
:save-display source-enter-$size.screen
<Right>
:save-display source-scroll-$size.screen
EOS
	for s in mismatch enter scroll; do
		check "source-$s-$size.screen"
	done

	tp "$size" translate --tui while_loop.py <<EOS
:save-display source-refusal-$size.screen
EOS
	check "source-refusal-$size.screen"

	# a file whose kernels partly translate: those, and the refused one's
	# construct on its line (the reader starts there)
	tp "$size" translate --tui two_kernels.py <<EOS
:save-display source-partial-$size.screen
EOS
	check "source-partial-$size.screen"

	# the fixture run's stage B: from the stage view, then the pipeline
	tp "$size" open --read-only out/softmax <<EOS
g
j
<Enter>
s
:save-display source-run-stage-$size.screen
q
q
s
:save-display source-run-pipeline-$size.screen
EOS
	check "source-run-stage-$size.screen"
	check "source-run-pipeline-$size.screen"
done

# Cell types: the other side's lines of the value under the cursor, the marks.
tp 160x48 open "$SM" mutated.rs <<EOS
:25
:save-view source-lit.view
]
:save-view source-marks.view
:save-display source-marks.screen
EOS
expect "the Rust load is lit with the Python load" source-lit.view \
	"[line-number 25] [default  ] [default         x = ct.load(input, index=(row, 0), shape=(1, TILE_SIZE),"
expect "lit cell typed" source-lit.view "[source-match             let x: Tile<E, { [1, TILE_SIZE] }> = load_view_tko("
expect "critical mark typed" source-marks.view "[finding-critical C]"
expect "the next mismatch's finding on the status line" source-marks.screen \
	"CRITICAL sem.value: value of the store to output: reduction differs: sum(num, axis=1) in the source, max(num, axis=1) in the Rust"

# Resizing keeps both sides in step.
tp 80x24 translate --tui "$SM" <<EOS
:25
:resize 160x48
:save-display source-resize-160x48.screen
EOS
check source-resize-160x48.screen

# Outside stage B the key says so; a missing Rust file is exit 2.
: >"$T/empty.script"
tp 80x24 open --read-only out/softmax <<EOS
s
:save-display source-not-b.screen
EOS
expect "s outside stage B" source-not-b.screen "The source view is shown from stage B (this is stage E)"
COLUMNS=80 LINES=24 TILEPORT_SCRIPT="$T/empty.script" "$TILEPORT" open "$SM" missing.rs >err.log 2>&1
rc=$?
if [ "$rc" -eq 2 ] && grep -qF "missing.rs" err.log; then
	echo "ok   a missing Rust file: exit 2"
else
	echo "FAIL a missing Rust file: exit $rc"
	sed 's/^/    | /' err.log
	failures=$((failures + 1))
fi
COLUMNS=80 LINES=24 TILEPORT_SCRIPT="$T/empty.script" "$TILEPORT" translate --tui --json "$SM" >err.log 2>&1
rc=$?
if [ "$rc" -eq 2 ]; then echo "ok   translate --tui --json: exit 2"; else
	echo "FAIL translate --tui --json: exit $rc"
	failures=$((failures + 1))
fi

finish
