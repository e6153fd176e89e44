#!/bin/sh
# SIGINT while an llm stage runs a command: the agent's whole process
# tree goes (tileport agent and the command it started in a group of its
# own), the run is left aborted, and resume runs the stage afresh.
. "$TILEPORT_TOP/tests/integration/lib/common.sh"
. "$TILEPORT_TOP/tests/integration/lib/agents.sh"
online_env
# The command tells the test it runs through a FIFO outside the run, which
# Landlock would refuse it (tests/unit/test_agent_tools.c checks that).
config "llm.confine_commands = off"
mkfifo "$T/ready"
final='<VALIDATOR_OUTPUT>\n$ true\nexit=0\n</VALIDATOR_OUTPUT>\nVERDICT: COMPILED'
cat >"$T/abort.json" <<EOF2
{"key": "$KEY", "steps": [
 {"reply": {"tools": [{"id": "call_s", "name": "run_command",
   "input": {"cmd": "echo \$\$ > $T/cmd.pid; echo started > $T/ready; exec sleep 300", "timeout_s": 600}}]}},
 {"reply": {"text": "$final"}, "expect": {"not_contains": ["call_s"]}}
]}
EOF2
printf 'A: PASS\nB: unused\nD: ALL_PASS\nE: DONE\n' >"$T/scen"
start_server abort
export TILEPORT_LLM_BASE_URL="http://127.0.0.1:$PORT/v1" TILEPORT_LLM_API_KEY="$KEY" FAKE_SCENARIO="$T/scen"
run=$T/out/softmax
# shellcheck disable=SC2046
"$TILEPORT" run softmax --workspace "$WS" --out "$T/out" --headless $(fake_flags) --driver B=llm >"$T/run.log" 2>&1 &
tp=$!
read -r _ <"$T/ready" # the model's command is running
cmd=$(cat "$T/cmd.pid")
kill -INT "$tp"
wait "$tp"
assert_eq "interrupted run exits 1" "$?" 1
agent=$(json_get "$run/.tileport/state.json" 'd["attempts"][1]["pid"]')
for who in "agent:$agent" "command:$cmd"; do
	pid=${who#*:}
	# the group was sent SIGKILL before tileport exited; wait for it to go
	if timeout 10 tail --pid="$pid" -f /dev/null; then ok "${who%%:*} $pid is gone"; else bad "${who%%:*} $pid is alive"; fi
done
assert_eq "the run is aborted" "$(json_get "$run/.tileport/state.json" 'd["status"]')" "aborted"
"$TILEPORT" resume "$run" --headless >"$T/resume.log" 2>&1
assert_eq "resume ends (not accepted: fake agents write no real files)" "$?" 1
stop_server abort
"$TILEPORT" status "$run" --json >"$T/status"
assert_eq "B ran again under its number" "$(json_get "$T/status" 'd["path"]')" "A1 -> B1 -> D1 -> E1 -> PIPELINE_COMPLETE"
tx=$run/.tileport/attempts/02-B1/transcript.jsonl
assert_eq "afresh: the new transcript only" "$(count start "$tx") $(count tool_call "$tx")" "1 0"
finish
