#!/bin/sh
# API keys come from the environment and never reach a log, a transcript or
# the run directory, even when an agent prints one or a driver spec spells it.
. "$TILEPORT_TOP/tests/integration/lib/common.sh"
online_env
secret="sk-tileport-test-0123456789abcdef"
export OPENAI_API_KEY="$secret" ANTHROPIC_AUTH_TOKEN="tok-$secret"
cat >"$T/leaky.sh" <<'EOS'
#!/bin/sh
echo "using key $OPENAI_API_KEY"
echo "stderr: token=$ANTHROPIC_AUTH_TOKEN" >&2
printf '{"type":"tool_call","id":"1","name":"run","input":{"cmd":"curl -H %s"}}\n' "$OPENAI_API_KEY" >&2
exec "$FAKE_AGENT"
EOS
chmod +x "$T/leaky.sh"
printf 'A: PASS\nB: COMPILED\nD: ALL_PASS\nE: DONE\n' >"$T/scen"
echo "$secret" >"$T/keyfile"
# shellcheck disable=SC2046
FAKE_AGENT="$FAKE" FAKE_SCENARIO="$T/scen" "$TILEPORT" run softmax --workspace "$WS" --out "$T/out" --headless \
	$(fake_flags) --driver "A=exec:OPENAI_API_KEY=$secret $T/leaky.sh" \
	--validator "B=echo validating with \$(cat $T/keyfile); echo key=\${OPENAI_API_KEY:-unset}" >"$T/log" 2>&1
assert_eq "run ends (not accepted: fake agents write no real files)" "$?" 1
if grep -rqF -- "$secret" "$T/out" "$T/log"; then
	bad "the secret reached: $(grep -rlF -- "$secret" "$T/out" "$T/log" | tr '\n' ' ')"
else
	ok "no file in the run directory holds the secret"
fi
assert_contains "commands.log names the variable instead" "$T/out/softmax/.tileport/commands.log" "OPENAI_API_KEY=\${OPENAI_API_KEY}"
assert_contains "transcript keeps the line, hidden" "$T/out/softmax/.tileport/attempts/01-A1/transcript.jsonl" "using key \${OPENAI_API_KEY}"
assert_contains "validator output hidden" "$T/out/softmax/.tileport/attempts/02-B1/validator.txt" "validating with \${OPENAI_API_KEY}"
assert_contains "a validator gets no API key" "$T/out/softmax/.tileport/attempts/02-B1/validator.txt" "key=unset"
assert_contains "stderr.log keeps the line, hidden" "$T/out/softmax/.tileport/attempts/01-A1/stderr.log" "stderr: token=tok-\${OPENAI_API_KEY}"
# the stored driver still works: a resume-style re-run of A by hand sees the key
printf 'A: PASS\n' >>"$T/scen"
FAKE_AGENT="$FAKE" FAKE_SCENARIO="$T/scen" "$TILEPORT" step "$T/out/softmax" respawn A --beyond-cap >"$T/log2" 2>&1
assert_contains "the agent still gets the key" "$T/out/softmax/.tileport/attempts/05-A2/transcript.jsonl" "using key \${OPENAI_API_KEY}"
grep -rqF -- "$secret" "$T/out" && bad "the secret reached the run directory after the re-run" || ok "still no secret on disk"

# A JSON-lines agent that writes the key with JSON escapes, a lower-case
# name, and a file of its own in the run directory.
export AWS_SECRET_ACCESS_KEY='wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' my_api_key='lowercase-key-0123456789'
cat >"$T/escaped.sh" <<'EOS'
#!/bin/sh
esc=$(printf '%s' "$AWS_SECRET_ACCESS_KEY" | sed 's|/|\\/|g')
printf '{"type":"text","text":"aws %s"}\n' "$esc"
printf '{"type":"text","text":"mine %s"}\n' "$my_api_key"
echo "left behind: $my_api_key" >"$TILEPORT_RUN_DIR/notes.txt"
exec "$FAKE_AGENT"
EOS
chmod +x "$T/escaped.sh"
printf 'A: PASS\nB: COMPILED\nD: ALL_PASS\nE: DONE\n' >"$T/scen2"
# shellcheck disable=SC2046
FAKE_AGENT="$FAKE" FAKE_SCENARIO="$T/scen2" "$TILEPORT" run softmax --workspace "$WS" --out "$T/out2" --headless \
	$(fake_flags) --driver "A=exec:$T/escaped.sh" >"$T/log3" 2>&1
assert_eq "run with the escaping agent" "$?" 0
tr2=$T/out2/softmax/.tileport/attempts/01-A1/transcript.jsonl
if grep -qF 'bPxRfiCYEXAMPLEKEY' "$tr2" || grep -qF 'lowercase-key-0123456789' "$tr2"; then
	bad "an escaped or lower-case secret reached the transcript"; sed 's/^/    | /' "$tr2" | head
else
	ok "escaped and lower-case secrets hidden in the transcript"
fi
assert_contains "the escaped key is named" "$tr2" 'aws ${AWS_SECRET_ACCESS_KEY}'
assert_contains "the agent's own file is reported" "$T/out2/softmax/.tileport/events.jsonl" '"type":"secret_in_file","file":"notes.txt","variable":"my_api_key"'
assert_contains "and the user is told" "$T/log3" "notes.txt holds the value of my_api_key"
assert_contains "the file is left as it is" "$T/out2/softmax/notes.txt" "left behind: lowercase-key-0123456789"
finish
