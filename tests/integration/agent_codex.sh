#!/bin/sh
# The codex driver with the real Codex CLI (build/agent-clis) against the
# scripted server, its provider passed through from our config: in a run,
# stage B's model runs shell commands that write kernel.rs (inside the run
# directory: allowed) and a file outside it (refused by the sandbox), and
# its final message carries the verdict. Then, through `tileport agent`: a
# failed turn, and silence past the inactivity timeout.
. "$TILEPORT_TOP/tests/integration/lib/common.sh"
. "$TILEPORT_TOP/tests/integration/lib/agents.sh"
online_env
need_clis
export CODEX_HOME="$T/codex" CODEX_TEST_API_KEY="$KEY"
mkdir -p "$CODEX_HOME"
run=$T/out/softmax
codex_config() { # [EXTRA KEY = VALUE]
	config "codex.base_url = http://127.0.0.1:$PORT/v1" "codex.env_key = CODEX_TEST_API_KEY" \
		"codex.model = mock-model" "price.mock-model = in=1 out=2" "$@"
}
final='<VALIDATOR_OUTPUT>\n$ ls kernel.rs\nkernel.rs\nexit=0\n</VALIDATOR_OUTPUT>\nVERDICT: COMPILED'
cat >"$T/run.json" <<EOF2
{"key": "$KEY", "seed": 4, "steps": [
 {"split": "random", "reply": {"text": "Writing the kernel.", "usage": {"in": 2000, "out": 100},
  "tools": [{"id": "call_w", "name": "exec_command", "input": {"cmd": "printf 'pub fn softmax() {}\\\\n' > kernel.rs && echo built-ok"}},
            {"id": "call_x", "name": "exec_command", "input": {"cmd": "echo escaped > $T/outside.txt; echo tried"}}]}},
 {"reply": {"text": "$final", "usage": {"in": 2500, "out": 50}},
  "expect": {"results": {"call_w": "built-ok", "call_x": "tried"}}}
]}
EOF2
printf 'A: PASS\nB: unused\nD: ALL_PASS\nE: DONE\n' >"$T/scen"
start_server run
codex_config
# shellcheck disable=SC2046
FAKE_SCENARIO="$T/scen" "$TILEPORT" run softmax --workspace "$WS" --out "$T/out" --headless \
	$(fake_flags) --driver B=codex >"$T/run.log" 2>&1
assert_eq "run ends (not accepted: fake agents write no real files)" "$?" 1
stop_server run
"$TILEPORT" status "$run" --json >"$T/run.status"
assert_eq "the orchestrator routed on codex's verdict" "$(json_get "$T/run.status" 'd["path"]')" \
	"A1 -> B1 -> D1 -> E1 -> PIPELINE_COMPLETE"
assert_eq "codex's command wrote kernel.rs" "$(cat "$run/kernel.rs")" "pub fn softmax() {}"
if [ -e "$T/outside.txt" ]; then bad "sandbox: a file outside the run was written"; else ok "sandbox: nothing written outside"; fi
tx=$run/.tileport/attempts/02-B1/transcript.jsonl
assert_contains "transcript: start" "$tx" '"type":"start","driver":"codex","model":"mock-model"'
assert_eq "transcript: two commands, two results" "$(count tool_call "$tx") $(count tool_result "$tx")" "2 2"
assert_contains "transcript: the command's output" "$tx" 'built-ok'
assert_contains "transcript: the sandbox refused the write outside" "$tx" 'Read-only file system'
assert_eq "meter: turn.completed usage, priced from the table" \
	"$(json_get "$T/run.status" '(d["attempts"][1]["tokens_in"], d["attempts"][1]["tokens_out"], round(d["attempts"][1]["cost"]*1e6))')" \
	"(4500, 150, 4800)"
assert_contains "the provider passed through" "$run/.tileport/commands.log" "model_providers.tileport="
assert_contains "commands.log: workspace-write sandbox" "$run/.tileport/commands.log" "--sandbox workspace-write"

agent() { # NAME
	"$TILEPORT" agent --stage B --run "$run" --driver codex --attempt "$T/$1.att" >"$T/$1.tx" 2>"$T/$1.err"
	echo $? >"$T/$1.rc"
}
cat >"$T/fail.json" <<EOF2
{"key": "$KEY", "partial": true, "steps": [
 {"status": 400, "body": {"error": {"type": "invalid_request_error", "message": "bad request from the test"}}}
]}
EOF2
start_server fail
codex_config
agent fail
stop_server fail
assert_eq "failed turn: exit 1" "$(cat "$T/fail.rc")" 1
assert_contains "failed turn: an error record" "$T/fail.tx" "without a completed turn"

cat >"$T/hang.json" <<EOF2
{"key": "$KEY", "partial": true, "steps": [{"hang": true, "reply": {"text": "never finished"}}]}
EOF2
start_server hang
codex_config "codex.idle_timeout_s = 3"
agent hang
stop_server hang
assert_eq "silence: exit 1" "$(cat "$T/hang.rc")" 1
assert_contains "silence: said so" "$T/hang.tx" "codex printed nothing for 3 s; stopped it (codex.idle_timeout_s)"

# Nothing git runs later can be planted (issue 26): Codex's sandbox keeps
# .git read-only itself; tileport gives it the workspace minus the
# core.hooksPath folder.
git_ws "$T/gws"
WS="$T/gws" make_run plant
cat >"$T/plant.json" <<EOF2
{"key": "$KEY", "steps": [
 {"reply": {"text": "x", "tools": [{"id": "call_p", "name": "exec_command", "input": {"cmd": "cd $T/gws && git config core.fsmonitor 'touch $T/pwned'; printf 'touch $T/pwned' > .git/hooks/post-checkout; printf 'touch $T/pwned' > tools/hooks/post-checkout; echo > src/tilegym/ok.txt && echo wrote-beside"}}]}},
 {"reply": {"text": "VERDICT: FAIL_FIXABLE"}, "expect": {"results": {"call_p": "wrote-beside"}}}
]}
EOF2
start_server plant
codex_config
"$TILEPORT" agent --stage B --run "$RUN" --driver codex --attempt "$T/plant.att" >"$T/plant.tx" 2>"$T/plant.err"
stop_server plant
nothing_planted "codex" "$T/gws"
assert_contains "codex: the hooks folder was refused" "$T/plant.tx" "tools/hooks/post-checkout: Read-only file system"
assert_contains "codex: the workspace goes in without its hooks folder" "$RUN/.tileport/commands.log" "--add-dir $(realpath "$T/gws")/src "

no_key "$T/out" "$T"/*.tx "$T"/*.att "$T"/*.log "$T"/*.requests
finish
