#!/bin/sh
# What 'tileport batch status' and 'tileport batch report' print (text,
# --json, --markdown) for the fixture batch of tests/fixtures/batch (eight
# runs, one per way a run can stand), against golden files;
# TILEPORT_UPDATE_GOLDEN=1 rewrites them. Paths under the test's folder are
# written T.
. "$TILEPORT_TOP/tests/integration/lib/common.sh"
G=$TILEPORT_TOP/tests/fixtures/batch/golden
cp -R "$TILEPORT_TOP/tests/fixtures/batch/out" "$T/out"
# the interrupted attempts ran until their agents last wrote (their elapsed
# time); the copy's files are new, so give them the times a run would have
touch -d @1795900185 "$T/out/gelu/.tileport/attempts/02-B1/transcript.jsonl"
touch -d @1795900095 "$T/out/attention/.tileport/attempts/01-A1/transcript.jsonl"
cd "$T" || exit 1
golden() { # NAME COMMAND...: the command's output, paths made T, is golden/NAME
	name=$1
	shift
	"$@" >"$T/raw" 2>&1
	echo "exit $?" >>"$T/raw"
	sed "s|$T|T|g" "$T/raw" >"$T/$name"
	if [ -n "${TILEPORT_UPDATE_GOLDEN:-}" ]; then
		cp "$T/$name" "$G/$name"
		ok "updated $name"
	elif diff -u "$G/$name" "$T/$name"; then
		ok "$name"
	else
		bad "$name differs from tests/fixtures/batch/golden/$name"
	fi
}
golden status.txt "$TILEPORT" batch status lib --out out
golden status-latest.txt "$TILEPORT" batch status --out "$T/out"
golden status.json "$TILEPORT" batch status lib --out "$T/out" --json
golden report.txt "$TILEPORT" batch report lib --out out
golden report.md "$TILEPORT" batch report lib --out out --markdown
golden report.json "$TILEPORT" batch report "$T/out/.tileport-batch/lib" --json
# report defaults as status does (the newest batch), and both find the
# output root from --workspace as every other command does
"$TILEPORT" batch report --out out >"$T/report-latest.txt" 2>&1
sed "s|$T|T|g" "$T/report-latest.txt" >"$T/report-latest.T"
cmp -s "$T/report-latest.T" "$T/report.txt" || sed '$d' "$T/report.txt" | cmp -s - "$T/report-latest.T" &&
	ok "report without NAME: the newest batch" || bad "report without NAME: $(head -n 3 "$T/report-latest.txt")"
mkdir -p "$T/ws/src/tilegym/ops" && mv "$T/out" "$T/ws/cutile_kernel_out"
for cmd in status report; do
	"$TILEPORT" batch "$cmd" lib --workspace "$T/ws" >"$T/ws-$cmd.txt" 2>&1
	assert_eq "batch $cmd --workspace: found in WORKSPACE/cutile_kernel_out" "$?" 0
done
mv "$T/ws/cutile_kernel_out" "$T/out"
cmp -s "$T/out/.tileport-batch/lib/batch.json" "$TILEPORT_TOP/tests/fixtures/batch/out/.tileport-batch/lib/batch.json" &&
	ok "looking changed nothing" || bad "status or report rewrote the record"
# what cancel, resume and start say to what they refuse or find nothing to do
golden cancel-none.txt "$TILEPORT" batch cancel lib --out out
golden cancel-stopped.txt "$TILEPORT" batch cancel lib matmul --out out
golden rerun-complete.txt "$TILEPORT" batch resume lib --out out --rerun softmax
golden start-usage.txt "$TILEPORT" batch start --help
golden report-usage.txt "$TILEPORT" batch report lib --out out --json --markdown
golden unknown.txt "$TILEPORT" batch frobnicate
# A bad batch setting is refused by every command, naming file and line.
mkdir -p "$T/xdg/tileport"
printf '[slurm]\npartition = gpu\npoll = soon\n' >"$T/xdg/tileport/config"
XDG_CONFIG_HOME="$T/xdg" golden bad-setting.txt "$TILEPORT" batch status lib --out out
XDG_CONFIG_HOME="$T/xdg" "$TILEPORT" runs --out out >"$T/runs.log" 2>&1
assert_eq "any command refuses it" "$?" 2
finish
