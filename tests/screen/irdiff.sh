#!/bin/sh
# The IR diff view at 80x24 and 160x48 against golden screens: a
# FAIL_FIXABLE pair side by side with its findings pane, next and previous
# critical, unified, wrapped both ways, scrolled sideways, a search, Enter
# in the findings pane; a resize down to where side by side no longer fits;
# a PASS pair; a bytecode side; opened from a run's stage view (stage C)
# and pipeline view (stage B), with a variant whose generated side is
# missing said on the status line. Cell types from the model dump, and the
# errors (exit 2 as the TUI's, the refusal outside stages B and C).
. "$TILEPORT_TOP/tests/screen/lib/screen.sh"

V=$TILEPORT_TOP/tests/fixtures/ir/view
cp "$V"/*.mlir "$T/"
cp "$TILEPORT_TOP/tests/fixtures/bytecode/spec11_negi_13_1.tileirbc" "$T/gen.tileirbc"

for size in 80x24 160x48; do
	tp "$size" irdiff --tui fail_ref.mlir fail_gen.mlir <<EOS
:save-display irdiff-side-$size.screen
]
:save-display irdiff-critical-$size.screen
]
[
[
:save-display irdiff-prev-critical-$size.screen
u
:save-display irdiff-unified-$size.screen
w
:save-display irdiff-unified-wrap-$size.screen
u
:save-display irdiff-side-wrap-$size.screen
w
<Right>
<Right>
:save-display irdiff-scroll-$size.screen
/ftof
<Enter>
:save-display irdiff-search-$size.screen
<Tab>
G
<Enter>
:save-display irdiff-findings-enter-$size.screen
EOS
	for s in side critical prev-critical unified unified-wrap side-wrap scroll search findings-enter; do
		check "irdiff-$s-$size.screen"
	done

	tp "$size" irdiff --tui pass_ref.mlir pass_gen.mlir <<EOS
:save-display irdiff-pass-$size.screen
EOS
	check "irdiff-pass-$size.screen"

	tp "$size" irdiff --tui bc_ref.mlir gen.tileirbc <<EOS
:save-display irdiff-bytecode-$size.screen
EOS
	check "irdiff-bytecode-$size.screen"

	# the fixture run: stage C's attempt, then the pipeline on stage B
	tp "$size" browse --read-only --out out <<EOS
<Enter>
g
j
j
<Enter>
d
:save-display irdiff-run-stage-$size.screen
q
q
k
d
:save-display irdiff-run-pipeline-$size.screen
EOS
	check "irdiff-run-stage-$size.screen"
	check "irdiff-run-pipeline-$size.screen"
done

# Resizing keeps the selected op in sight; too narrow for two sides, unified.
tp 80x24 irdiff --tui fail_ref.mlir fail_gen.mlir <<EOS
]
:resize 160x48
:save-display irdiff-resize-160x48.screen
:resize 50x20
:save-display irdiff-resize-50x20.screen
EOS
check irdiff-resize-160x48.screen
check irdiff-resize-50x20.screen

# Wide characters (file names here: the printer escapes them in ops) are
# measured in columns, and long names lose their start, not their end.
cp fail_ref.mlir "参照カーネル.mlir"
mkdir -p "生成/ディレクトリ/とても長い名前"
cp fail_gen.mlir "生成/ディレクトリ/とても長い名前/生成_🚀.mlir"
tp 80x24 irdiff --tui "参照カーネル.mlir" "生成/ディレクトリ/とても長い名前/生成_🚀.mlir" <<EOS
:save-display irdiff-wide-80x24.screen
EOS
check irdiff-wide-80x24.screen

# Colour classes: the differing tokens, the marks, the verdict.
tp 160x48 irdiff --tui fail_ref.mlir fail_gen.mlir <<EOS
:save-view irdiff.view
<Tab>
:save-view irdiff-findings.view
EOS
expect "header verdict typed" irdiff.view "header header: [verdict-fail FAIL_FIXABLE]"
expect "reduce dim: reference token" irdiff.view "[diff-del-highlight 1]"
expect "reduce dim: generated token" irdiff.view "[diff-add-highlight 0]"
expect "critical mark typed" irdiff.view "[finding-critical C]"
expect "generated-only op typed" irdiff.view "[diff-add  > ]"
expect "reference-only op typed" irdiff.view "[diff-del  < ]"
expect "critical finding typed" irdiff-findings.view "[finding-critical CRITICAL]"
expect "note finding typed" irdiff-findings.view "[finding-note NOTE]"

# PASS_WITH_NOTES (a WARN only) in the header.
cp "$TILEPORT_TOP/tests/fixtures/ir/rules/op-count-arith/ref.mlir" notes_ref.mlir
cp "$TILEPORT_TOP/tests/fixtures/ir/rules/op-count-arith/fire.mlir" notes_gen.mlir
tp 80x24 irdiff --tui notes_ref.mlir notes_gen.mlir <<EOS
:save-view irdiff-notes.view
EOS
expect "PASS_WITH_NOTES typed as a warning" irdiff-notes.view "header header: [verdict-warn PASS_WITH_NOTES]"

# Variants: one paired, one without its generated side (said on the status
# line), a supplement left out.
R=$T/out/softmax
cp fail_ref.mlir "$R/reference/reference_fwd.mlir"
cp fail_gen.mlir "$R/generated/generated_fwd_canon.mlir"
cp pass_ref.mlir "$R/reference/reference_bwd.mlir"
cp pass_ref.mlir "$R/reference/reference_bwd_f32.mlir"
rm "$R/generated/generated_canon.mlir" "$R/generated/generated.mlir"
tp 160x48 browse --read-only --out out <<EOS
<Enter>
g
j
j
<Enter>
d
:save-display irdiff-run-variants-160x48.screen
EOS
check irdiff-run-variants-160x48.screen

# Outside stages B and C the key says so; nothing opens.
tp 80x24 browse --read-only --out out <<EOS
<Enter>
<Enter>
d
:save-display irdiff-stage-e.screen
EOS
expect "refused outside B and C" irdiff-stage-e.screen "The IR diff is shown from stages B and C (this is stage E)"

# Input errors: the TUI's exit 2, naming the place.
COLUMNS=80 LINES=24 "$TILEPORT" irdiff --tui pass_ref.mlir "$V/README" >err.log 2>&1
rc=$?
if [ "$rc" -eq 2 ] && grep -qF "README:1:" err.log; then
	echo "ok   unparsable side: exit 2 and the place"
else
	echo "FAIL unparsable side: exit $rc"
	sed 's/^/    | /' err.log
	failures=$((failures + 1))
fi
"$TILEPORT" irdiff --tui --json pass_ref.mlir pass_gen.mlir >err.log 2>&1
rc=$?
if [ "$rc" -eq 2 ] && grep -qF "no --json" err.log; then
	echo "ok   --tui with --json: usage, exit 2"
else
	echo "FAIL --tui with --json: exit $rc"
	failures=$((failures + 1))
fi
finish
