#!/bin/sh
# The claude driver with the real Claude Code CLI (build/agent-clis) against
# the scripted server: in a run, stage B's model asks for a file write and a
# shell command, the CLI runs them for real, and its final answer carries
# the verdict the orchestrator routes on. Then, through `tileport agent`:
# an error result, a permission denial, silence past the inactivity
# timeout, and a CLI too old to drive.
. "$TILEPORT_TOP/tests/integration/lib/common.sh"
. "$TILEPORT_TOP/tests/integration/lib/agents.sh"
online_env
need_clis
export ANTHROPIC_API_KEY="$KEY" DISABLE_TELEMETRY=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1
unset CLAUDECODE
run=$T/out/softmax
final='<VALIDATOR_OUTPUT>\n$ ls kernel.rs\nkernel.rs\nexit=0\n</VALIDATOR_OUTPUT>\nVERDICT: COMPILED'
cat >"$T/run.json" <<EOF2
{"key": "$KEY", "seed": 2, "steps": [
 {"split": "random", "reply": {"text": "Writing the kernel.", "usage": {"in": 1200, "out": 80},
  "tools": [{"id": "toolu_w", "name": "Write", "input": {"file_path": "$run/kernel.rs", "content": "pub fn softmax() {}\\n"}},
            {"id": "toolu_b", "name": "Bash", "input": {"command": "wc -c kernel.rs && echo built-ok", "description": "check"}}]}},
 {"reply": {"text": "$final", "usage": {"in": 1500, "out": 60}},
  "expect": {"results": {"toolu_w": "File created", "toolu_b": "built-ok"}}}
]}
EOF2
printf 'A: PASS\nB: unused\nD: ALL_PASS\nE: DONE\n' >"$T/scen"
start_server run
export ANTHROPIC_BASE_URL="http://127.0.0.1:$PORT"
# shellcheck disable=SC2046
FAKE_SCENARIO="$T/scen" "$TILEPORT" run softmax --workspace "$WS" --out "$T/out" --headless \
	$(fake_flags) --driver B=claude >"$T/run.log" 2>&1
assert_eq "run ends (not accepted: fake agents write no real files)" "$?" 1
stop_server run
"$TILEPORT" status "$run" --json >"$T/run.status"
assert_eq "the orchestrator routed on claude's verdict" "$(json_get "$T/run.status" 'd["path"]')" \
	"A1 -> B1 -> D1 -> E1 -> PIPELINE_COMPLETE"
assert_eq "claude's Write made kernel.rs" "$(cat "$run/kernel.rs")" "pub fn softmax() {}"
tx=$run/.tileport/attempts/02-B1/transcript.jsonl
assert_contains "transcript: start with the CLI's version" "$tx" '"driver":"claude","model"'
assert_contains "transcript: the Write call" "$tx" '"type":"tool_call","id":"toolu_w","name":"Write"'
assert_contains "transcript: the Bash call" "$tx" '"type":"tool_call","id":"toolu_b","name":"Bash"'
assert_contains "transcript: the command really ran" "$tx" 'built-ok'
assert_eq "transcript: two results" "$(count tool_result "$tx")" 2
assert_eq "meter: tokens of the result's totals" \
	"$(json_get "$T/run.status" '(d["attempts"][1]["tokens_in"], d["attempts"][1]["tokens_out"])')" "(2700, 140)"
assert_eq "meter: stage and run totals in status" \
	"$(json_get "$T/run.status" '(d["stages"]["B"]["tokens_in"], d["tokens_out"] >= 140)')" "(2700, True)"
assert_eq "meter: state.json keeps them" \
	"$(json_get "$run/.tileport/state.json" '(d["usage"]["B"]["tokens_out"], d["usage"]["run"]["tokens_in"] >= 2700)')" "(140, True)"
assert_contains "drivers line" "$T/run.log" "B claude"
assert_contains "commands.log has the CLI's command line" "$run/.tileport/commands.log" "claude -p --output-format stream-json"
assert_contains "commands.log: what is not allowed is denied, never asked" "$run/.tileport/commands.log" "--permission-mode dontAsk"
assert_contains "the spawn prompt reached the model (claude's stdin is the prompt file)" "$T/run.requests" "OUTPUT PROTOCOL"

# ---- failures, through tileport agent ----
agent() { # NAME: stage B of the run above, transcript in $T/NAME.tx
	"$TILEPORT" agent --stage B --run "$run" --driver claude --attempt "$T/$1.att" >"$T/$1.tx" 2>"$T/$1.err"
	echo $? >"$T/$1.rc"
}

cat >"$T/err.json" <<EOF2
{"key": "$KEY", "steps": [
 {"status": 400, "body": {"type": "error", "error": {"type": "invalid_request_error", "message": "prompt is too long"}}}
], "partial": true}
EOF2
start_server err
ANTHROPIC_BASE_URL="http://127.0.0.1:$PORT" agent err
stop_server err
assert_eq "error result: exit 1" "$(cat "$T/err.rc")" 1
assert_contains "error result: an error record" "$T/err.tx" '"type":"error","message":"claude ended in error'

cat >"$T/deny.json" <<EOF2
{"key": "$KEY", "steps": [
 {"reply": {"tools": [{"id": "toolu_x", "name": "Write", "input": {"file_path": "$T/outside.txt", "content": "escaped\\n"}}]}},
 {"reply": {"text": "VERDICT: FAIL_FIXABLE"}, "expect": {"results": {"toolu_x": "[is_error]"}}}
]}
EOF2
start_server deny
ANTHROPIC_BASE_URL="http://127.0.0.1:$PORT" agent deny
stop_server deny
if [ -e "$T/outside.txt" ]; then bad "permission denial: the file outside was written"; else ok "permission denial: nothing written outside"; fi
assert_contains "permission denial: an error record" "$T/deny.tx" '"type":"error","message":"permission denied: Write'
assert_contains "permission denial: the model's verdict stands" "$T/deny.tx" '"type":"final","text":"VERDICT: FAIL_FIXABLE"'

# Bash runs commands itself, past the permission rules: the CLI runs confined
# (Landlock), so a command may write in the run directory but not outside.
cat >"$T/bash.json" <<EOF2
{"key": "$KEY", "steps": [
 {"reply": {"tools": [{"id": "toolu_o", "name": "Bash", "input": {"command": "echo escaped > $T/outside.sh.txt; echo rc=\$?", "description": "out"}},
                     {"id": "toolu_i", "name": "Bash", "input": {"command": "echo kept > inside.txt && echo wrote-inside", "description": "in"}}]}},
 {"reply": {"text": "VERDICT: FAIL_FIXABLE"}, "expect": {"results": {"toolu_o": "Permission denied", "toolu_i": "wrote-inside"}}}
]}
EOF2
start_server bash
ANTHROPIC_BASE_URL="http://127.0.0.1:$PORT" agent bash
stop_server bash
if [ -e "$T/outside.sh.txt" ]; then bad "confined Bash: a command wrote outside"; else ok "confined Bash: nothing written outside"; fi
assert_eq "confined Bash: a command writes in the run directory" "$(cat "$run/inside.txt" 2>/dev/null)" kept
assert_contains "confined Bash: the denial is in the transcript" "$T/bash.tx" "Permission denied"
assert_contains "commands.log says the CLI was confined" "$run/.tileport/commands.log" "writes only beneath"
config "claude.confine = off"
cat >"$T/free.json" <<EOF2
{"key": "$KEY", "steps": [
 {"reply": {"tools": [{"id": "toolu_f", "name": "Bash", "input": {"command": "echo free > $T/outside.free.txt && echo wrote", "description": "out"}}]}},
 {"reply": {"text": "VERDICT: FAIL_FIXABLE"}, "expect": {"results": {"toolu_f": "wrote"}}}
]}
EOF2
start_server free
ANTHROPIC_BASE_URL="http://127.0.0.1:$PORT" agent free
stop_server free
config
assert_eq "claude.confine = off: the command writes where it likes" "$(cat "$T/outside.free.txt" 2>/dev/null)" free

# Under load the CLI may still be starting when the timer fires: silence
# either way, so the server need not see the request.
config "claude.idle_timeout_s = 3"
cat >"$T/hang.json" <<EOF2
{"key": "$KEY", "partial": true, "steps": [{"hang": true, "reply": {"text": "never finished"}}]}
EOF2
start_server hang
ANTHROPIC_BASE_URL="http://127.0.0.1:$PORT" agent hang
stop_server hang
config
assert_eq "silence: exit 1" "$(cat "$T/hang.rc")" 1
assert_contains "silence: said so" "$T/hang.tx" "claude printed nothing for 3 s; stopped it (claude.idle_timeout_s)"

# A chain: llm says the stage is unsupported, claude takes over in the
# same attempt, and the transcript records the hand-over.
cat >"$T/chain.json" <<EOF2
{"key": "$KEY", "steps": [
 {"reply": {"text": "VERDICT: FAIL_FIXABLE\nunsupported: reduce over a dynamic axis"}},
 {"reply": {"text": "$final"}}
]}
EOF2
start_server chain
ANTHROPIC_BASE_URL="http://127.0.0.1:$PORT" TILEPORT_LLM_PROTOCOL=anthropic \
	TILEPORT_LLM_BASE_URL="http://127.0.0.1:$PORT" TILEPORT_LLM_API_KEY="$KEY" \
	"$TILEPORT" agent --stage B --run "$run" --driver "llm, claude" --attempt "$T/chain.att" >"$T/chain.tx" 2>"$T/chain.err"
assert_eq "chain: exit" "$?" 0
stop_server chain
assert_contains "chain: the hand-over, with the reason" "$T/chain.tx" \
	'"type":"handover","from":"llm","to":"claude","reason":"unsupported: reduce over a dynamic axis","verdict":"FAIL_FIXABLE"'
assert_eq "chain: one final message, the last driver's" "$(count final "$T/chain.tx")" 1
assert_contains "chain: it is claude's" "$T/chain.tx" '"type":"final","text":"<VALIDATOR_OUTPUT>'
assert_eq "chain: both drivers started" "$(count start "$T/chain.tx")" 2

# A claude too old for these flags is refused up front.
mkdir -p "$T/old"
printf '#!/bin/sh\necho "1.0.3 (Claude Code)"\n' >"$T/old/claude"
chmod +x "$T/old/claude"
PATH="$T/old:$PATH" agent old
assert_eq "too old: exit 3" "$(cat "$T/old.rc")" 3
assert_contains "too old: says which and what to do" "$T/old.tx" "is Claude Code 1.0.3; tileport needs 2.1.0 or newer"

# Nothing git runs later can be planted (issue 26): Write into .git/hooks
# and the core.hooksPath folder is denied by the rules, and Bash writing
# there or adding core.fsmonitor by the kernel (Landlock).
git_ws "$T/gws"
WS="$T/gws" make_run plant
cat >"$T/plant.json" <<EOF2
{"key": "$KEY", "steps": [
 {"reply": {"tools": [{"id": "toolu_h", "name": "Write", "input": {"file_path": "$T/gws/.git/hooks/post-commit", "content": "#!/bin/sh\\ntouch $T/pwned\\n"}},
                     {"id": "toolu_p", "name": "Write", "input": {"file_path": "$T/gws/tools/hooks/pre-commit", "content": "#!/bin/sh\\ntouch $T/pwned\\n"}},
                     {"id": "toolu_c", "name": "Bash", "input": {"command": "cd $T/gws && git config core.fsmonitor 'touch $T/pwned'; printf '#!/bin/sh\\\\ntouch $T/pwned\\\\n' > .git/hooks/post-checkout; printf 'x' > tools/hooks/post-checkout; echo > src/tilegym/ok.txt && git init -q src/tilegym/newrepo && echo wrote-beside", "description": "plant"}}]}},
 {"reply": {"text": "VERDICT: FAIL_FIXABLE"}, "expect": {"results": {"toolu_h": "[is_error]", "toolu_p": "[is_error]", "toolu_c": "wrote-beside"}}}
]}
EOF2
start_server plant
ANTHROPIC_BASE_URL="http://127.0.0.1:$PORT" "$TILEPORT" agent --stage B --run "$RUN" --driver claude \
	--attempt "$T/plant.att" >"$T/plant.tx" 2>"$T/plant.err"
stop_server plant
nothing_planted "claude" "$T/gws"
assert_contains "claude: the rules denied the hook" "$T/plant.tx" "denied by your permission settings"
assert_contains "claude: the kernel refused the command" "$T/plant.tx" "Permission denied"
if [ -e "$T/gws/src/tilegym/newrepo/.git" ] || [ ! -d "$T/gws/src/tilegym/newrepo/.git.refused-by-tileport" ]; then
	bad "claude: a new repository made by a command was left as it was"
else
	ok "claude: a new repository made by a command was moved aside"
fi
assert_contains "claude: and the transcript says so" "$T/plant.tx" "which git would take for a repository"
assert_contains "claude: commands.log names what is left out" "$RUN/.tileport/commands.log" "not beneath $(realpath "$T/gws")/.git"

# A workspace whose path Claude Code's rule list cannot hold is refused.
cp -R "$WS" "$T/ws, copy"
echo "A: BLOCKED" >"$T/blank.scen"
# shellcheck disable=SC2046
FAKE_SCENARIO="$T/blank.scen" "$TILEPORT" run softmax --workspace "$T/ws, copy" --out "$T/blank" --headless \
	$(fake_flags) >"$T/blank.log" 2>&1
"$TILEPORT" agent --stage B --run "$T/blank/softmax" --driver claude --attempt "$T/blank.att" >"$T/blank.tx" 2>&1
assert_eq "odd workspace path: exit 3" "$?" 3
assert_contains "odd workspace path: says why" "$T/blank.tx" "which Claude Code's permission rules cannot hold"

no_key "$T/out" "$T"/*.tx "$T"/*.att "$T"/*.log "$T"/*.requests
finish
