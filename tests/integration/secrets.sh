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
assert_contains "stderr.log keeps the line, hidden" "$T/out/softmax/.tileport/attempts/01-A1/stderr.log" "stderr: token=\${ANTHROPIC_AUTH_TOKEN}"
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
assert_eq "run with the escaping agent (not accepted: fake agents write no files)" "$?" 1
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
# Other spellings of a key (issue 26): an exec agent that prints it with
# \u escapes and in base64 as plain text, and a key kept in a file
# (llm.api_key_file) that the agent copies into the run directory.
export XDG_CONFIG_HOME="$T/xdg"
mkdir -p "$XDG_CONFIG_HOME/tileport"
printf 'file-kept-key-0123456789\n' >"$T/keyfile2"
echo "llm.api_key_file = $T/keyfile2" >"$XDG_CONFIG_HOME/tileport/config"
cat >"$T/spelled.sh" <<'EOS'
#!/bin/sh
printf 'u-escaped %s\n' "$(printf '%s' "$OPENAI_API_KEY" | od -An -tx1 | tr -d ' \n' | sed 's/\(..\)/\\u00\1/g')"
printf 'base64 %s\n' "$(printf '%s' "$OPENAI_API_KEY" | base64)"
echo "file key $(cat "$KEYFILE")"
cat "$KEYFILE" >"$TILEPORT_RUN_DIR/copied.txt"
exec "$FAKE_AGENT"
EOS
chmod +x "$T/spelled.sh"
# shellcheck disable=SC2046
KEYFILE="$T/keyfile2" FAKE_AGENT="$FAKE" FAKE_SCENARIO="$T/scen2" "$TILEPORT" run softmax --workspace "$WS" \
	--out "$T/out3" --headless $(fake_flags) --driver "A=exec:$T/spelled.sh" >"$T/log4" 2>&1
tr3=$T/out3/softmax/.tileport/attempts/01-A1/transcript.jsonl
uesc=$(printf '%s' "$secret" | od -An -tx1 | tr -d ' \n' | sed 's/\(..\)/\\\\u00\1/g')
b64=$(printf '%s' "$secret" | base64)
if grep -qF -- "$uesc" "$tr3" || grep -qF -- "$b64" "$tr3" || grep -qF file-kept-key "$tr3"; then
	bad "a spelled key reached the transcript"; sed 's/^/    | /' "$tr3" | head
else
	ok "the \\u-escaped and base64 key, and the key file's, hidden in the transcript"
fi
assert_contains "the \\u-escaped key is named" "$tr3" 'u-escaped ${OPENAI_API_KEY}'
assert_contains "the base64 key is named" "$tr3" 'base64 ${OPENAI_API_KEY}'
assert_contains "the key file's key is named" "$tr3" 'file key ${LLM_API_KEY}'
assert_contains "the key file's key found in the run directory" "$T/out3/softmax/.tileport/events.jsonl" \
	'"type":"secret_in_file","file":"copied.txt","variable":"LLM_API_KEY"'
finish
