#!/bin/sh
# An agent that prints far too much: the transcript keeps its head and tail
# within transcript_max (the user's config), and an event says what was cut.
. "$TILEPORT_TOP/tests/integration/lib/common.sh"
online_env
export XDG_CONFIG_HOME="$T/cfg"
mkdir -p "$XDG_CONFIG_HOME/tileport"
echo "transcript_max = 200k" >"$XDG_CONFIG_HOME/tileport/config"
cat >"$T/loud.sh" <<'EOS'
#!/bin/sh
echo "the first line"
yes "a line an agent prints over and over, padded to be long enough to add up" | head -n 30000
echo "the last line"
exec "$FAKE_AGENT"
EOS
chmod +x "$T/loud.sh"
printf 'A: PASS\nB: COMPILED\nD: ALL_PASS\nE: DONE\n' >"$T/scen"
# shellcheck disable=SC2046
FAKE_AGENT="$FAKE" FAKE_SCENARIO="$T/scen" "$TILEPORT" run softmax --workspace "$WS" --out "$T/out" --headless \
	$(fake_flags) --driver "A=exec:$T/loud.sh" >"$T/log" 2>&1
assert_eq "run" "$?" 0
tr=$T/out/softmax/.tileport/attempts/01-A1/transcript.jsonl
size=$(wc -c <"$tr")
if [ "$size" -le 210000 ]; then ok "transcript within its cap ($size bytes)"; else bad "transcript is $size bytes"; fi
assert_contains "its head is kept" "$tr" "the first line"
assert_contains "its tail is kept" "$tr" "the last line"
assert_contains "the cut is marked in the file" "$tr" '"type":"cut"'
assert_contains "an event says what was cut" "$T/out/softmax/.tileport/events.jsonl" '"type":"transcript_cut"'
# the verdict still came through: the reply is read whole from memory
assert_contains "the stage was judged on its reply" "$T/log" "A1 returned PASS"
echo "transcript_max = lots" >"$XDG_CONFIG_HOME/tileport/config"
"$TILEPORT" runs --out "$T/out" >"$T/bad.log" 2>&1
assert_eq "a bad cap is refused" "$?" 2
assert_contains "naming file and line" "$T/bad.log" "config:1: transcript_max: expected a size"
finish
