#!/bin/sh
# The built-in llm driver against the scripted server, both protocols:
# streams cut at random byte offsets (fixed seed) and one byte at a time,
# two parallel tool calls, 429 with Retry-After, 500 with an HTML body, 529,
# a non-JSON event, a stream cut mid-event, an error event mid-stream,
# "compatible" server quirks (no index, object arguments, "stop" with tool
# calls, no [DONE]), quota exhaustion (not retried), history
# trimming and the turn limit, and a hostile server's floods (capped). The
# server checks every request it gets.
. "$TILEPORT_TOP/tests/integration/lib/common.sh"
. "$TILEPORT_TOP/tests/integration/lib/agents.sh"
online_env
make_run base
config "price.mock-model = in=1 out=2"

agent() { # NAME PROTOCOL: tileport agent on stage B, transcript in $T/NAME.tx
	TILEPORT_LLM_PROTOCOL=$2 TILEPORT_LLM_BASE_URL="http://127.0.0.1:$PORT${3:-/v1}" \
		TILEPORT_LLM_API_KEY="$KEY" TILEPORT_LLM_MODEL=mock-model \
		"$TILEPORT" agent --stage B --run "$RUN" --driver llm --attempt "$T/$1.att" >"$T/$1.tx" 2>"$T/$1.err"
	echo $? >"$T/$1.rc"
}
field() { # FILE PYEXPR over the records r (a list)
	python3 -c 'import json,sys
r=[json.loads(l) for l in open(sys.argv[1]) if l.strip()]
print(eval(sys.argv[2]))' "$1" "$2"
}

# ---- OpenAI chat completions ----
final='<VALIDATOR_OUTPUT>\n$ true\nexit=0\n</VALIDATOR_OUTPUT>\nVERDICT: COMPILED'
cat >"$T/oa.json" <<EOF2
{"key": "$KEY", "seed": 11, "steps": [
 {"reply": {"text": "Looking around.", "usage": {"in": 1000, "out": 50},
   "tools": [{"id": "call_a", "name": "list_dir", "input": {"path": "."}},
             {"id": "call_b", "name": "run_command", "input": {"cmd": "echo parallel-ok"}}]},
  "split": "random"},
 {"status": 429, "headers": {"Retry-After": "2"}, "body": {"error": {"type": "rate_limit_exceeded", "message": "slow down"}},
  "expect": {"results": {"call_a": ".tileport/", "call_b": "parallel-ok"}}},
 {"status": 500, "content_type": "text/html", "body": "<html>oops</html>"},
 {"malformed": true, "reply": {"text": "lost"}},
 {"cut": 90, "reply": {"text": "this stream breaks off in the middle of an event"}},
 {"reply": {"tools": [{"id": "call_c", "name": "write_file", "input": {"path": "kernel.rs", "content": "fn k() {}\\n"}},
                      {"id": "call_d", "name": "edit_file", "input": {"path": "kernel.rs", "old_text": "k()", "new_text": "kernel()"}}]},
  "openai": {"no_index": true, "finish": "stop"}, "split": "random",
  "expect": {"results": {"call_a": ".tileport/", "call_b": "parallel-ok"}}},
 {"reply": {"tools": [{"id": "call_e", "name": "read_file", "input": {"path": "kernel.rs"}}]},
  "openai": {"args_object": true, "no_done": true}},
 {"reply": {"text": "$final", "usage": {"in": 3000, "out": 100}}, "split": "bytes",
  "expect": {"results": {"call_c": "wrote kernel.rs", "call_d": "edited kernel.rs", "call_e": "fn kernel() {}"}}}
]}
EOF2
start_server oa
agent oa openai
stop_server oa
assert_eq "openai: exit" "$(cat "$T/oa.rc")" 0
assert_eq "openai: the file the model wrote and edited" "$(cat "$RUN/kernel.rs")" "fn kernel() {}"
assert_eq "openai: five tool calls, five results" "$(count tool_call "$T/oa.tx") $(count tool_result "$T/oa.tx")" "5 5"
assert_eq "openai: four retries: 429 (its Retry-After), 500, bad JSON, cut stream" \
	"$(field "$T/oa.tx" '[(x.get("status",0), x["delay_ms"] if x.get("status")==429 else "backoff") for x in r if x["type"]=="retry"]')" \
	"[(429, 2000), (500, 'backoff'), (200, 'backoff'), (200, 'backoff')]"
assert_eq "openai: backoff grows from 0.5 s, jittered" \
	"$(field "$T/oa.tx" '[375 <= x["delay_ms"] <= 500*2**i for i, x in enumerate([y for y in r if y["type"]=="retry"][1:], 1)]')" \
	"[True, True, True]"
assert_contains "openai: why each retry" "$T/oa.tx" "the stream carried an event that is not JSON"
assert_contains "openai: the HTML error body, in words" "$T/oa.tx" "HTTP 500: <html>oops</html>"
assert_eq "openai: final message" "$(field "$T/oa.tx" '[x["text"] for x in r if x["type"]=="final"][0].splitlines()[-1]')" "VERDICT: COMPILED"
assert_eq "openai: tokens from the usage chunks" \
	"$(field "$T/oa.tx" 'sum(x["tokens_in"] for x in r if x["type"]=="usage"), sum(x["tokens_out"] for x in r if x["type"]=="usage")')" \
	"(4020, 160)"
assert_eq "openai: cost from the price table" \
	"$(field "$T/oa.tx" 'round(sum(x["cost"] for x in r if x["type"]=="usage")*1e6)')" "4340"

# ---- Anthropic messages ----
cat >"$T/an.json" <<EOF2
{"key": "$KEY", "seed": 5, "steps": [
 {"ping": true, "split": "bytes",
  "reply": {"text": "Two things at once.", "usage": {"in": 200, "out": 20, "cache_read": 100},
   "tools": [{"id": "toolu_r", "name": "read_file", "input": {"path": "$WS/src/tilegym/ops/cutile/softmax.py", "start_line": 1, "end_line": 2}},
             {"id": "toolu_s", "name": "run_command", "input": {"cmd": "echo started; exec sleep 30", "timeout_s": 1}}]}},
 {"status": 529, "body": {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
  "expect": {"results": {"toolu_r": "lines 1-2 of", "toolu_s": "exit=124"}}},
 {"content_type": "text/event-stream",
  "body": "event: message_start\\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":5}}}\\n\\nevent: error\\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded mid-stream\"}}\\n\\n"},
 {"cut": 200, "reply": {"text": "cut short"}},
 {"reply": {"text": "$final", "usage": {"in": 400, "out": 40}}, "split": "random",
  "expect": {"results": {"toolu_r": "lines 1-2 of", "toolu_s": "exit=124"}}}
]}
EOF2
start_server an
agent an anthropic ""
stop_server an
assert_eq "anthropic: exit" "$(cat "$T/an.rc")" 0
assert_eq "anthropic: retries on 529, an error event, a cut stream" \
	"$(field "$T/an.tx" '[x.get("status",0) for x in r if x["type"]=="retry"]')" "[529, 200, 200]"
assert_contains "anthropic: the mid-stream error in words" "$T/an.tx" "Overloaded mid-stream"
assert_eq "anthropic: the command's group was killed at its timeout" \
	"$(field "$T/an.tx" '[x["output"].splitlines()[0] for x in r if x["type"]=="tool_result" and x["id"]=="toolu_s"][0]')" \
	"exit=124 (timed out after 1 s; its process group was killed)"
assert_eq "anthropic: input tokens count the cache" \
	"$(field "$T/an.tx" '[x["tokens_in"] for x in r if x["type"]=="usage"]')" "[300, 400]"
assert_eq "anthropic: final message" "$(field "$T/an.tx" '[x["text"] for x in r if x["type"]=="final"][0].splitlines()[-1]')" "VERDICT: COMPILED"
assert_contains "anthropic: x-api-key and the version header were sent" "$T/an.requests" '"anthropic-version": "2023-06-01"'

# ---- a 429 that means money is not retried ----
cat >"$T/quota.json" <<EOF2
{"key": "$KEY", "steps": [
 {"status": 429, "body": {"error": {"type": "insufficient_quota", "code": "insufficient_quota", "message": "You exceeded your current quota"}}}
]}
EOF2
start_server quota
agent quota openai
stop_server quota
assert_eq "quota: the driver fails" "$(cat "$T/quota.rc")" 1
assert_eq "quota: no retry" "$(count retry "$T/quota.tx")" 0
assert_contains "quota: says why" "$T/quota.tx" "You exceeded your current quota"

# ---- trimming keeps each call with its result ----
config "price.mock-model = in=1 out=2" "llm.context_chars = 6000"
big='printf %02000d 0'
cat >"$T/trim.json" <<EOF2
{"key": "$KEY", "steps": [
 {"reply": {"tools": [{"id": "call_1", "name": "run_command", "input": {"cmd": "$big"}}]}},
 {"reply": {"tools": [{"id": "call_2", "name": "run_command", "input": {"cmd": "$big"}}]}},
 {"reply": {"tools": [{"id": "call_3", "name": "run_command", "input": {"cmd": "$big"}}]},
  "expect": {"results": {"call_2": "0000"}}},
 {"reply": {"text": "$final"}, "expect": {"absent": ["call_1"], "results": {"call_3": "0000"}, "contains": ["trimmed the oldest turns"]}}
]}
EOF2
start_server trim
agent trim openai
stop_server trim
assert_eq "trim: exit" "$(cat "$T/trim.rc")" 0

# ---- the turn limit ----
config "llm.max_turns = 2"
cat >"$T/turns.json" <<EOF2
{"key": "$KEY", "steps": [
 {"reply": {"tools": [{"id": "call_1", "name": "list_dir", "input": {}}]}},
 {"reply": {"tools": [{"id": "call_2", "name": "list_dir", "input": {}}]}}
]}
EOF2
start_server turns
agent turns anthropic ""
stop_server turns
assert_eq "max turns: fails" "$(cat "$T/turns.rc")" 1
assert_contains "max turns: says so" "$T/turns.tx" "2 turns without a final answer (llm.max_turns)"

# ---- confinement: every escape is refused ----
config
long=$(python3 -c 'print("a/" * 2100 + "x")')
skill=$TILEPORT_TOP/skill
cat >"$T/jail.json" <<EOF2
{"key": "$KEY", "steps": [
 {"reply": {"tools": [
   {"id": "dotdot", "name": "read_file", "input": {"path": "../../../../../../etc/passwd"}},
   {"id": "abs", "name": "read_file", "input": {"path": "/etc/passwd"}},
   {"id": "abs_write", "name": "write_file", "input": {"path": "$T/outside.txt", "content": "x"}},
   {"id": "up_write", "name": "write_file", "input": {"path": "../outside.txt", "content": "x"}},
   {"id": "mklink", "name": "run_command", "input": {"cmd": "ln -s /etc escape && ln -s .. up && echo linked"}},
   {"id": "via_link", "name": "read_file", "input": {"path": "escape/passwd"}},
   {"id": "via_link_w", "name": "write_file", "input": {"path": "escape/tileport-test", "content": "x"}},
   {"id": "via_up", "name": "write_file", "input": {"path": "up/outside.txt", "content": "x"}},
   {"id": "via_up_dir", "name": "list_dir", "input": {"path": "up"}},
   {"id": "long", "name": "read_file", "input": {"path": "$long"}},
   {"id": "nul", "name": "read_file", "input": {"path": "kernel.rs\u0000/../../etc/passwd"}},
   {"id": "state", "name": "write_file", "input": {"path": ".tileport/state.json", "content": "{}"}},
   {"id": "skill_w", "name": "edit_file", "input": {"path": "$skill/SKILL.md", "old_text": "a", "new_text": "b"}},
   {"id": "skill_r", "name": "read_file", "input": {"path": "$skill/SKILL.md", "end_line": 1}},
   {"id": "ws_r", "name": "read_file", "input": {"path": "$WS/src/tilegym/ops/cutile/softmax.py", "end_line": 1}},
   {"id": "inside", "name": "write_file", "input": {"path": "reports/deep/note.md", "content": "fine"}}]}},
 {"reply": {"text": "$final"}, "expect": {"results": {
   "dotdot": "leads outside the run directory", "abs": "outside the run directory and the workspace",
   "abs_write": "outside the run directory and the workspace", "up_write": "leads outside the run directory",
   "mklink": "linked", "via_link": "leads outside", "via_link_w": "leads outside", "via_up": "leads outside",
   "via_up_dir": "leads outside", "long": "the limit is", "nul": "a NUL byte in the arguments; refused",
   "state": "tileport's own state", "skill_w": "the skill is read-only", "skill_r": "lines 1-1 of",
   "ws_r": "lines 1-1 of", "inside": "wrote reports/deep/note.md"}}}
]}
EOF2
start_server jail
agent jail openai
stop_server jail
assert_eq "confinement: the stage still ends" "$(cat "$T/jail.rc")" 0
assert_eq "confinement: exactly the two allowed writes happened" \
	"$(ls "$T/outside.txt" "$T/base/outside.txt" /etc/tileport-test 2>/dev/null | wc -l) $(cat "$RUN/reports/deep/note.md")" "0 fine"
assert_eq "confinement: the refused write left state.json whole" "$(json_get "$RUN/.tileport/state.json" 'd["op"]')" softmax
assert_eq "confinement: twelve refusals" "$(field "$T/jail.tx" 'sum(1 for x in r if x["type"]=="tool_result" and x["is_error"])')" 12

# ---- a key read from a file is hidden like one from the environment ----
echo "$KEY" >"$T/keyfile"
config "llm.api_key_file = $T/keyfile"
cat >"$T/kf.json" <<EOF2
{"key": "$KEY", "steps": [
 {"reply": {"tools": [{"id": "call_k", "name": "run_command", "input": {"cmd": "cat $T/keyfile"}}]}},
 {"reply": {"text": "$final"}, "expect": {"results": {"call_k": "\${LLM_API_KEY}"}}}
]}
EOF2
start_server kf
TILEPORT_LLM_BASE_URL="http://127.0.0.1:$PORT/v1" TILEPORT_LLM_MODEL=mock-model \
	"$TILEPORT" agent --stage B --run "$RUN" --driver llm --attempt "$T/kf.att" >"$T/kf.tx" 2>"$T/kf.err"
assert_eq "key file: exit" "$?" 0
stop_server kf
assert_contains "key file: the tool result shows the name, not the key" "$T/kf.tx" '${LLM_API_KEY}'
config

# ---- a hostile server echoes the key, \u-escaped and in base64 ----
uesc=$(printf '%s' "$KEY" | od -An -tx1 | tr -d ' \n' | sed 's/\(..\)/\\\\u00\1/g')
b64=$(printf '%s' "$KEY" | base64 -w0)
cat >"$T/echo.json" <<EOF2
{"key": "$KEY", "steps": [{"reply": {"text": "u:$uesc b64:$b64 $final"}}]}
EOF2
start_server echo
agent echo anthropic ""
stop_server echo
uraw=$(printf '%s' "$uesc" | sed 's/\\\\/\\/g')
if grep -qF -- "$b64" "$T/echo.tx" || grep -qF -- "$uesc" "$T/echo.tx" || grep -qF -- "$uraw" "$T/echo.tx"; then
	bad "echo: a spelling of the key reached the transcript"
else
	ok "echo: neither spelling of the key reached the transcript"
fi
# (base64 keeps the character or two at each end that mix in the bytes beside it)
assert_contains "echo: both named" "$T/echo.tx" 'u:${TILEPORT_LLM_API_KEY} b64:${TILEPORT_LLM_API_KEY}'

# ---- a hostile server: bounded memory (issue 26) ----
# A response past llm.max_response (a 20 MB text at the default 8 MiB), one
# call's arguments past llm.max_tool_args (5 MB at 1M), and one event of
# 17 MiB: the stream is stopped, the attempt ends with the reason, nothing
# is retried and nothing of it is sent back (one request each).
flood() { # NAME PROTOCOL SPEC
	printf '{"key": "%s", "steps": [{"flood": %s}]}\n' "$KEY" "$3" >"$T/$1.json"
	start_server "$1"
	agent "$1" "$2"
	stop_server "$1"
	assert_eq "$1: exit 1" "$(cat "$T/$1.rc")" 1
	assert_eq "$1: one request, not retried" "$(wc -l <"$T/$1.requests")" 1
}
flood flood_text openai '{"text": 20000000}'
assert_contains "flood_text: says which cap" "$T/flood_text.tx" \
	'"type":"error","message":"llm: the response passed 8 MiB (llm.max_response); the stream was stopped"'
config "llm.max_tool_args = 1M"
flood flood_args anthropic '{"args": 5000000}'
assert_contains "flood_args: says which call and which cap" "$T/flood_args.tx" \
	'the arguments of tool call toolu_flood (write_file) passed 1 MiB (llm.max_tool_args); the stream was stopped'
assert_eq "flood_args: no call ran" "$(count tool_call "$T/flood_args.tx")" 0
config "llm.max_response = 64M"
flood flood_event openai '{"event": 17825792}'
assert_contains "flood_event: named for what it is" "$T/flood_event.tx" \
	"the server sent one stream event of more than 16 MiB, the most tileport reads; not retried"
config "llm.max_response = 8MB"
"$TILEPORT" agent --stage B --run "$RUN" --driver llm >"$T/badcap.out" 2>&1
assert_eq "a malformed cap: exit 2" "$?" 2
assert_contains "a malformed cap: says where and what" "$T/badcap.out" \
	"config:1: llm.max_response: expected a size such as 4M or 512k, got '8MB'"
config

# The key went to the server in headers only, and nowhere on disk.
no_key "$T/base" "$T"/*.tx "$T"/*.err "$T"/*.att "$T"/*.requests
finish
