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
finish
