#!/bin/sh
# A built-in driver's transcript on the screen: the retry records (HTTP
# status, delay, why) and a chain's hand-over between drivers, at 80x24 and
# 160x48; ']' moves from section to section and stops at the hand-over.
. "$TILEPORT_TOP/tests/screen/lib/screen.sh"

cat >"$T/chain.jsonl" <<'EOF2'
{"type":"start","driver":"llm","model":"mock-model","version":"openai"}
{"type":"retry","attempt":1,"of":4,"delay_ms":2000,"status":429,"message":"HTTP 429: slow down"}
{"type":"retry","attempt":2,"of":4,"delay_ms":930,"status":200,"message":"the stream was cut before its last event"}
{"type":"usage","tokens_in":1200,"tokens_out":80,"cost":0.0014,"model":"mock-model"}
{"type":"text","text":"VERDICT: FAIL_FIXABLE\nunsupported: reduce over a dynamic axis"}
{"type":"handover","from":"llm","to":"claude","reason":"unsupported: reduce over a dynamic axis","verdict":"FAIL_FIXABLE"}
{"type":"start","driver":"claude","model":"claude-opus-4-8","version":"2.1.197"}
{"type":"tool_call","id":"toolu_w","name":"Write","input":{"file_path":"kernel.rs","content":"pub fn softmax() {}\n"}}
{"type":"tool_result","id":"toolu_w","output":"File created successfully","is_error":false}
{"type":"error","message":"permission denied: Write {\"file_path\":\"/etc/x\"}"}
{"type":"final","text":"<VALIDATOR_OUTPUT>\n$ ls kernel.rs\nkernel.rs\nexit=0\n</VALIDATOR_OUTPUT>\nVERDICT: COMPILED"}
EOF2
for size in 80x24 160x48; do
	tp "$size" open chain.jsonl <<EOS
:save-display agent-transcript-$size.screen
]
:save-view agent-transcript-$size.view
EOS
	check "agent-transcript-$size.screen"
done
expect "] stops at the hand-over" "$T/agent-transcript-80x24.view" "selected 6"
expect "retries have the warning colour" "$T/agent-transcript-80x24.view" "[state-warn"
finish
