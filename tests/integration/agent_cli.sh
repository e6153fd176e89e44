#!/bin/sh
# tileport drivers and tileport agent as commands: the drivers table (text
# and JSON) with one CLI found, one missing and one too old, exit codes;
# agent's usage errors; the agent settings' config checks.
. "$TILEPORT_TOP/tests/integration/lib/common.sh"
. "$TILEPORT_TOP/tests/integration/lib/agents.sh"
mkdir -p "$T/clis"
printf '#!/bin/sh\necho "2.1.197 (Claude Code)"\n' >"$T/clis/claude"
printf '#!/bin/sh\necho "codex-cli 0.50.1"\n' >"$T/clis/codex"
chmod +x "$T/clis/claude" "$T/clis/codex"
drivers() { # NAME ARGS...: tileport drivers with only $T/clis and the system on PATH
	name=$1
	shift
	PATH="$T/clis:/usr/bin:/bin" "$TILEPORT" drivers "$@" >"$T/$name.out" 2>&1
	echo $? >"$T/$name.rc"
}

drivers text
assert_eq "drivers: exit 0 with claude usable" "$(cat "$T/text.rc")" 0
sed "s|$T|T|g" "$T/text.out" >"$T/text.got"
cat >"$T/text.want" <<'EOF2'
driver   usable version    where / why
mech     yes    0.1.0      built in
                           stages A, B and D offline, for the operators it translates (docs/mech.md)
claude   yes    2.1.197    T/clis/claude
codex    no     0.50.1     T/clis/codex
                           version 0.50.1 is older than 0.100.0, the oldest tileport drives (upgrade: npm install -g @openai/codex)
llm      no     -          https://api.openai.com/v1/chat/completions
                           no endpoint: set TILEPORT_LLM_BASE_URL (a local server: llama.cpp, vLLM, Ollama) or an API key (TILEPORT_LLM_API_KEY, OPENAI_API_KEY, ANTHROPIC_API_KEY)
exec     yes    -          any command: --driver X=exec:COMMAND
EOF2
if diff -u "$T/text.want" "$T/text.got"; then ok "drivers: the table"; else bad "drivers: the table differs"; fi

config "llm.protocol = anthropic" "llm.base_url = http://127.0.0.1:9/" "llm.model = local-model"
drivers json --json
assert_eq "drivers --json" "$(json_get "$T/json.out" '[(x["name"], x["usable"], x.get("path", "-").replace("'"$T"'", "T")) for x in d]')" \
	"[('mech', True, 'built in'), ('claude', True, 'T/clis/claude'), ('codex', False, 'T/clis/codex'), ('llm', True, 'http://127.0.0.1:9/v1/messages'), ('exec', True, '-')]"
assert_eq "drivers --json: the llm note" "$(json_get "$T/json.out" 'd[3]["note"]')" "anthropic, model local-model, key none"
config
rm "$T/clis/claude"
drivers none
assert_eq "drivers: exit 3 when none but mech is usable" "$(cat "$T/none.rc")" 3
assert_contains "drivers: what to install" "$T/none.out" "claude is not on PATH (install: npm install -g @anthropic-ai/claude-code; or set claude.path)"

# tileport agent: usage
make_run base
agent_rc() { # WANT DESC TEXT ARGS...
	want=$1 desc=$2 text=$3
	shift 3
	"$TILEPORT" agent "$@" >"$T/a.out" 2>"$T/a.err"
	assert_eq "agent: $desc: exit" "$?" "$want"
	assert_contains "agent: $desc: says" "$T/a.err" "$text"
}
agent_rc 2 "no run" "--run and --driver are required" --stage B --driver llm
agent_rc 2 "bad stage" "--stage expects a stage letter, got 'b'" --stage b --run "$RUN" --driver llm
agent_rc 2 "unknown driver" "unknown driver 'gpt' (this build has: exec:COMMAND, mech, claude, codex, llm)" \
	--stage B --run "$RUN" --driver "llm, gpt"
agent_rc 2 "exec is not built in" "exec:COMMAND runs without it" --stage B --run "$RUN" --driver exec:true
agent_rc 2 "no such run" "no tileport run here" --stage B --run "$T/nowhere" --driver llm
"$TILEPORT" agent --help >"$T/help.out"
assert_contains "agent --help" "$T/help.out" "usage: tileport agent --stage X --run RUN --driver D[,D2...]"
"$TILEPORT" --help >"$T/main.out"
assert_contains "tileport --help lists drivers" "$T/main.out" "drivers      list the agent drivers"
assert_contains "tileport --help lists agent" "$T/main.out" "agent        run one stage through built-in drivers"

# The drivers' settings: user config only, known keys, valid prices.
cp -R "$WS" "$T/ws"
printf 'driver.B = llm\n\nllm.base_url = http://evil.example/v1\n' >"$T/ws/.tileport.conf"
"$TILEPORT" run softmax --workspace "$T/ws" --out "$T/o1" --headless >"$T/c1.log" 2>&1
assert_eq "workspace agent setting: exit 2" "$?" 2
assert_contains "workspace agent setting: file and line" "$T/c1.log" \
	"$T/ws/.tileport.conf:3: 'llm.base_url' is an agent setting, read from the user config only"
config "llm.base_url = http://127.0.0.1:9/v1" "llm.modle = x"
"$TILEPORT" run softmax --workspace "$WS" --out "$T/o2" --headless >"$T/c2.log" 2>&1
assert_eq "unknown driver key: exit 2" "$?" 2
assert_contains "unknown driver key: lists the driver's keys" "$T/c2.log" \
	"config:2: unknown setting 'llm.modle' (llm takes: protocol base_url model api_key_file"
config "price.mock = in=1 out=lots"
"$TILEPORT" run softmax --workspace "$WS" --out "$T/o3" --headless >"$T/c3.log" 2>&1
assert_eq "bad price: exit 2" "$?" 2
assert_contains "bad price: file, line and what" "$T/c3.log" "config:1: price.mock: expected 'in=USD out=USD"
finish
