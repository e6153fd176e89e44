#!/bin/sh
# Every view at 80x24 and 160x48 against golden screens: runs, pipeline
# (with the lower transcript pane), stage (record, files, findings,
# artifacts, attempts), transcript (tool calls folded, then expanded; CJK
# and emoji text), text and help.
. "$TILEPORT_TOP/tests/screen/lib/screen.sh"

for size in 80x24 160x48; do
	tp "$size" browse --read-only --out out <<EOS
:save-display runs-$size.screen
<Enter>
:save-display pipeline-$size.screen
k
<Enter>
G
k
<Enter>
:save-display stage-$size.screen
EOS
	check "runs-$size.screen"
	check "pipeline-$size.screen"
	check "stage-$size.screen"

	tp "$size" open out/softmax/.tileport/attempts/02-B1/transcript.jsonl <<EOS
:save-display transcript-$size.screen
z
:save-display transcript-open-$size.screen
EOS
	check "transcript-$size.screen"
	check "transcript-open-$size.screen"

	tp "$size" open out/softmax/.tileport/attempts/06-D2/transcript.jsonl <<EOS
:save-display transcript-cjk-$size.screen
EOS
	check "transcript-cjk-$size.screen"

	tp "$size" open out/softmax/kernel.rs <<EOS
:save-display text-$size.screen
EOS
	check "text-$size.screen"
done
finish
