#!/bin/sh
# A full disk during a stage: the run stops with the reason (exit 3), the
# state file stays whole, a manual action that cannot save says so, and
# on a disk with space the run goes on. Needs root (a small tmpfs).
. "$TILEPORT_TOP/tests/integration/lib/common.sh"
online_env
if [ "$(id -u)" != 0 ] || ! mkdir -p "$T/disk" || ! mount -t tmpfs -o size=1m tmpfs "$T/disk" 2>/dev/null; then
	echo "skip: needs root and a tmpfs mount"
	exit 0
fi
trap 'umount "$T/disk" 2>/dev/null; [ -n "${KEEP_TMP:-}" ] || rm -rf "$T"' EXIT
# the agent prints more than the disk holds, then replies
cat >"$T/loud.sh" <<'EOS'
#!/bin/sh
yes "a line of output that an agent prints over and over, padded to be long enough" | head -n 20000
exec "$FAKE_AGENT"
EOS
chmod +x "$T/loud.sh"
printf 'A: PASS\nB: COMPILED\nD: ALL_PASS\nE: DONE\nA: PASS\nB: COMPILED\nD: ALL_PASS\nE: DONE\n' >"$T/scen"
# shellcheck disable=SC2046
FAKE_AGENT="$FAKE" FAKE_SCENARIO="$T/scen" "$TILEPORT" run softmax --workspace "$WS" --out "$T/disk" --headless \
	$(fake_flags) --driver "A=exec:$T/loud.sh" >"$T/log" 2>&1
assert_eq "the run stops as an environment failure" "$?" 3
assert_contains "it says why" "$T/log" "No space left on device"
grep "tileport:" "$T/log" | head -n 3
run=$T/disk/softmax
if python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$run/.tileport/state.json" 2>/dev/null; then
	ok "state.json is whole"
else
	bad "state.json is torn"
fi
"$TILEPORT" step "$run" abort >"$T/abort.log" 2>&1
rc=$?
cat "$T/abort.log"
if [ "$rc" -ne 0 ] && ! grep -q "aborted" "$T/abort.log"; then ok "abort that cannot save fails ($rc)"; else
	bad "abort on a full disk: exit $rc"; sed 's/^/    | /' "$T/abort.log"
fi
assert_eq "the abort says why once (issue 26)" "$(grep -c "cannot save the run state" "$T/abort.log")" 1
assert_eq "the run said why once too" "$(grep -c "^tileport: stopping" "$T/log")" 1
# events and state agree: an abort that was not saved is not in the log
if grep -q '"run_aborted"' "$run/.tileport/events.jsonl" &&
	! grep -q '"status": *"aborted"' "$run/.tileport/state.json"; then
	bad "events.jsonl says aborted, state.json does not"
else
	ok "events.jsonl and state.json agree on the abort"
fi
# on a disk with room the run is resumed from where it stopped
cp -R "$run" "$T/roomy"
umount "$T/disk"
FAKE_AGENT="$FAKE" FAKE_SCENARIO="$T/scen" "$TILEPORT" resume "$T/roomy" --headless $(fake_flags) \
	--driver "A=exec:$T/loud.sh" >"$T/resume.log" 2>&1
assert_eq "resume on a disk with space completes (not accepted: fake agents write no files)" "$?" 1
finish
