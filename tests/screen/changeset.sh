#!/bin/sh
# The changeset view at 80x24 and 160x48 against golden screens: a
# packaged changeset (the kernel's diff below, another file's, the source
# view on the reference beside the commit's kernel.rs, the benchmark view on the note's rows (sorted: it has the focus),
# the IR findings from the note, the IR diff
# view of the run, the note's findings once the run directory is gone), a
# changeset whose shape checks fail; and packaging from the pipeline view:
# p shows the dry run, p again asks and commits (checked with git), the
# diff below still moving after the commit and after F5.
. "$TILEPORT_TOP/tests/screen/lib/screen.sh"
. "$TILEPORT_TOP/tests/integration/lib/changeset.sh"

# The run packaged by the CLI, and a bad changeset committed by hand.
cd "$CS_WS" || exit 1
"$TILEPORT" package "$CS_RUN" >"$T/pkg.log" 2>&1 || { echo "FAIL package"; cat "$T/pkg.log"; exit 1; }
git reset -q --hard main # the packaged conversion is on its branch now
git clean -q -fd
git checkout -q -b bad main
cs_convert "$CS_WS" "$CS_RUN"
printf 'mod extra {\n}\n' >>src/tilegym/ops/cutile_rs/cutile_kernels/src/lib.rs
sed -i '/#\[cutile::module\]/d' src/tilegym/ops/cutile_rs/softmax_kernel/kernel.rs
git add -A
GIT_AUTHOR_DATE="2026-11-21T10:00:00Z" GIT_COMMITTER_DATE="2026-11-21T10:00:00Z" \
	git commit -q -m "cutile-rs: add softmax"
git checkout -q main
cd "$T" || exit 1

for size in 80x24 160x48; do
	tp "$size" --workspace "$CS_WS" review tileport/softmax <<EOS
:save-display changeset-$size.screen
j
j
j
:save-display changeset-lib-$size.screen
s
:save-display changeset-source-$size.screen
q
b
:save-display changeset-bench-$size.screen
s
:save-display changeset-bench-sorted-$size.screen
<Tab>
i
:save-display changeset-ir-$size.screen
d
:save-display changeset-irdiff-$size.screen
EOS
	for s in changeset changeset-lib changeset-source changeset-bench changeset-bench-sorted changeset-ir \
		changeset-irdiff; do
		cs_mask "$T/$s-$size.screen"
		check "$s-$size.screen"
	done

	tp "$size" --workspace "$CS_WS" review bad <<EOS
:save-display changeset-bad-$size.screen
EOS
	cs_mask "$T/changeset-bad-$size.screen"
	check "changeset-bad-$size.screen"
done

# The run directory gone: d shows the note's IR findings instead.
mv "$CS_RUN" "$T/moved"
tp 80x24 --workspace "$CS_WS" review tileport/softmax <<EOS
d
:save-display changeset-norun-80x24.screen
EOS
cs_mask "$T/changeset-norun-80x24.screen"
check changeset-norun-80x24.screen
mv "$T/moved" "$CS_RUN"

# Packaging from the pipeline view of a second, finished run.
W2=$T/cs/ws2
R2=$T/cs/out2/softmax
cs_fresh "$W2" "$R2"
for size in 80x24 160x48; do
	tp "$size" open --read-only "$R2" <<EOS
p
:save-display changeset-plan-$size.screen
EOS
	cs_mask "$T/changeset-plan-$size.screen"
	check "changeset-plan-$size.screen"
done
git -C "$W2" rev-parse -q --verify tileport/softmax >/dev/null && echo "FAIL the dry run made the branch" &&
	failures=$((failures + 1))
tp 80x24 open "$R2" <<EOS
p
p
:save-display changeset-confirm-80x24.screen
y
:save-display changeset-packaged-80x24.screen
<Tab>
j
:save-display changeset-moved-80x24.screen
<Tab>
<F5>
<Tab>
j
:save-display changeset-refreshed-80x24.screen
EOS
cs_mask "$T/changeset-confirm-80x24.screen"
check changeset-confirm-80x24.screen
cs_mask "$T/changeset-packaged-80x24.screen"
check changeset-packaged-80x24.screen
cs_mask "$T/changeset-moved-80x24.screen"
check changeset-moved-80x24.screen
cs_mask "$T/changeset-refreshed-80x24.screen"
check changeset-refreshed-80x24.screen
if [ "$(git -C "$W2" show --name-only --format= tileport/softmax | wc -l)" -eq 6 ] &&
	git -C "$W2" notes --ref tileport show tileport/softmax | python3 -c 'import json,sys; json.load(sys.stdin)'; then
	echo "ok   p committed six paths with a JSON note"
else
	echo "FAIL p did not package"
	failures=$((failures + 1))
fi
expect "the package event" "$R2/.tileport/events.jsonl" '"type":"packaged"'

# A run that has not ended offers no packaging.
sed -i 's/"final": "PIPELINE_COMPLETE"/"final": null/; s/"status": "complete"/"status": "running"/' \
	"$T/out/softmax/.tileport/state.json"
tp 80x24 open --read-only out/softmax <<EOS
p
:save-display changeset-notended-80x24.screen
EOS
expect "p on a run that has not ended" changeset-notended-80x24.screen "The run has not ended: p packages a finished run"
finish
