#!/bin/sh
# Whole runs A -> B -> D -> E -> PIPELINE_COMPLETE on the fixture workspace
# with no --driver flags: once with only an llm endpoint set, once with only
# the real claude on PATH. Each scripted stage runs the fixture agent
# through its shell tool (which writes the stage's real artifacts) and
# returns the validator block; the orchestrator's own validators pass each
# stage and the final output contract.
. "$TILEPORT_TOP/tests/integration/lib/common.sh"
. "$TILEPORT_TOP/tests/integration/lib/agents.sh"
online_env
export FIXTURE_DIR="$TILEPORT_TOP/tests/fixtures" TILEPORT_BIN="$TILEPORT"
${CC:-cc} -shared -fPIC -o "$T/libcutile_kernels.so" "$FIXTURE_DIR/elf/cutile_kernels.c" || exit 1
export FIXTURE_SO="$T/libcutile_kernels.so"
AGENT=$TILEPORT_TOP/tests/integration/lib/fixture_agent.sh
config "price.mock-model = in=1 out=2"

# scenario NAME TOOL ARGKEY: two steps per stage, the shell tool then the reply
scenario() {
	{
		printf '{"key": "%s", "steps": [\n' "$KEY"
		n=0
		for s in A:PASS B:COMPILED D:ALL_PASS E:DONE; do
			st=${s%%:*} v=${s#*:}
			[ $n -gt 0 ] && printf ',\n'
			n=$((n + 1))
			printf ' {"split": "random", "reply": {"text": "Stage %s.", "tools": [{"id": "t_%s", "name": "%s", "input": {"%s": "sh %s"}}]}},\n' \
				"$st" "$st" "$2" "$3" "$AGENT"
			printf ' {"reply": {"text": "<VALIDATOR_OUTPUT>\\n$ tileport validate stage %s softmax\\nPASS\\nexit=0\\n</VALIDATOR_OUTPUT>\\nVERDICT: %s"}, "expect": {"results": {"t_%s": "exit=0"}}}' \
				"$st" "$v" "$st"
		done
		printf '\n]}\n'
	} >"$T/$1.json"
}

whole_run() { # NAME: a fresh workspace copy, the run, its checks
	rm -rf "$T/ws"
	cp -R "$WS" "$T/ws"
	"$TILEPORT" run softmax --workspace "$T/ws" --out "$T/$1" --headless >"$T/$1.log" 2>&1
	assert_eq "$1: run completes" "$?" 0
	"$TILEPORT" status "$T/$1/softmax" --json >"$T/$1.status"
	assert_eq "$1: path" "$(json_get "$T/$1.status" 'd["path"]')" "A1 -> B1 -> D1 -> E1 -> PIPELINE_COMPLETE"
	assert_eq "$1: every stage validator passed" \
		"$(json_get "$T/$1.status" '" ".join(a["validator"] for a in d["attempts"])')" "pass pass pass pass"
	assert_eq "$1: final output contract" "$(json_get "$T/$1.status" 'd["contract"]')" "pass"
	assert_eq "$1: tokens counted for every stage" \
		"$(json_get "$T/$1.status" 'sorted(k for k, v in d["stages"].items() if v["tokens_in"])')" "['A', 'B', 'D', 'E']"
}

# Only an llm endpoint: every stage gets llm by default.
scenario llm run_command cmd
start_server llm
TILEPORT_LLM_BASE_URL="http://127.0.0.1:$PORT/v1" TILEPORT_LLM_API_KEY="$KEY" TILEPORT_LLM_MODEL=mock-model \
	whole_run llm
stop_server llm
assert_contains "llm: the default, printed" "$T/llm.log" "drivers: A llm (default), B llm (default), C llm (default), D llm (default), E llm (default)"

# Only claude on PATH: every stage gets claude by default.
need_clis
export ANTHROPIC_API_KEY="$KEY" DISABLE_TELEMETRY=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1
scenario claude Bash command
start_server claude
ANTHROPIC_BASE_URL="http://127.0.0.1:$PORT" whole_run claude
stop_server claude
assert_contains "claude: the default, printed" "$T/claude.log" "drivers: A claude (default), B claude (default)"

# Nothing usable: the run says what to install or set (exit 3). The fake
# toolchain stays on PATH: the run is online, where mech is no default.
PATH=$T/bin:/usr/bin:/bin env -u ANTHROPIC_API_KEY "$TILEPORT" run softmax --workspace "$WS" --out "$T/none" --headless >"$T/none.log" 2>&1
assert_eq "nothing usable: exit 3" "$?" 3
assert_contains "nothing usable: what to install" "$T/none.log" "claude: claude is not on PATH (install: npm install -g @anthropic-ai/claude-code"
assert_contains "nothing usable: what to set" "$T/none.log" "llm: no endpoint: set TILEPORT_LLM_BASE_URL"

no_key "$T/llm" "$T/claude" "$T"/*.log
finish
