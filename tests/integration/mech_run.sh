#!/bin/sh
# The mech driver in the registry: offline runs with no --driver flags take
# it for A, B and D and convert every sample operator to OFFLINE_COMPLETE
# with zero tokens (what `make demo` shows), registering each into one
# workspace copy and never touching the checkout's sample; a driver that
# takes any stage follows it in the default chain; online it is no default;
# a run resumed --online trades its offline defaults for online ones; an
# operator it refuses leaves it out of the defaults, and in a chain its
# refusal hands the stage to the next driver within the attempt.
. "$TILEPORT_TOP/tests/integration/lib/common.sh"
. "$TILEPORT_TOP/tests/integration/lib/agents.sh"
offline_env
cp -R "$WS" "$T/pristine"
cp -R "$WS" "$T/ws"
LIB=$T/ws/src/tilegym/ops/cutile_rs/cutile_kernels/src/lib.rs

for op in silu_and_mul softmax layer_norm matmul rms_norm; do
	"$TILEPORT" run "$op" --workspace "$T/ws" --out "$T/out" --headless >"$T/$op.log" 2>&1
	assert_eq "$op: the run completes (exit 0)" "$?" 0
	assert_contains "$op: mech is the default of A, B and D" "$T/$op.log" \
		"drivers: A mech (default), B mech (default), D mech (default)"
	"$TILEPORT" status "$T/out/$op" --json >"$T/$op.status"
	assert_eq "$op: ends OFFLINE_COMPLETE" "$(json_get "$T/$op.status" 'd["final"]')" OFFLINE_COMPLETE
	assert_eq "$op: path" "$(json_get "$T/$op.status" 'd["path"]')" "A1 -> B1 -> D1 -> OFFLINE_COMPLETE"
	assert_eq "$op: every attempt by mech, DEFERRED, its validator deferred" \
		"$(json_get "$T/$op.status" '" ".join(a["driver"] + ":" + a["verdict"] + ":" + a["validator"] for a in d["attempts"])')" \
		"mech:DEFERRED:deferred mech:DEFERRED:deferred mech:DEFERRED:deferred"
	assert_eq "$op: zero tokens, zero cost" \
		"$(json_get "$T/$op.status" '(d["tokens_in"], d["tokens_out"], d["cost"])')" "(0, 0, 0)"
	for f in reference/analysis.json kernel.rs ffi.rs reports/agent_a.md reports/agent_b.md reports/agent_d.md; do
		[ -s "$T/out/$op/$f" ] && ok "$op: $f written" || bad "$op: no $f"
	done
	TX=$T/out/$op/.tileport/attempts/02-B1/transcript.jsonl
	assert_contains "$op: the transcript is mech's" "$TX" \
		'"type":"start","driver":"mech","model":"none"'
	assert_contains "$op: the stage's final message defers the build" "$TX" 'deferred: '
	assert_contains "$op: registered in lib.rs" "$LIB" "mod $op"
	src=src/tilegym/ops/cutile/$op.py
	[ -f "$T/ws/$src" ] || src=src/tilegym/ops/triton/$op.py
	"$TILEPORT" inventory "$T/ws/$src" "$T/out/$op/kernel.rs" >"$T/$op.inv" 2>&1
	assert_eq "$op: the semantic check of source and kernel.rs (and ffi.rs) matches" "$(tail -n 1 "$T/$op.inv")" MATCH
done
assert_eq "lib.rs: one more mod block per operator" \
	"$(($(grep -c '^mod ' "$LIB") - $(grep -c '^mod ' "$T/pristine/src/tilegym/ops/cutile_rs/cutile_kernels/src/lib.rs")))" 5
if diff -r "$WS" "$T/pristine" >"$T/pristine.diff"; then
	ok "the checkout's sample workspace is untouched"
else
	bad "the runs wrote into the checkout's sample workspace: $(head -n 3 "$T/pristine.diff")"
fi

# A driver that takes any stage follows mech in the default chain; with
# the toolchain present mech is no default at all.
config
rm -rf "$T/ws2" && cp -R "$WS" "$T/ws2"
TILEPORT_LLM_BASE_URL=http://127.0.0.1:9/v1 TILEPORT_LLM_MODEL=m \
	"$TILEPORT" run softmax --workspace "$T/ws2" --out "$T/chained" --headless >"$T/chained.log" 2>&1
assert_eq "with llm set: the run completes, mech did it all" "$?" 0
assert_contains "with llm set: llm follows mech" "$T/chained.log" \
	"drivers: A mech, llm (default), B mech, llm (default), D mech, llm (default)"
online_env
echo "A: BLOCKED" >"$T/online.scen"
FAKE_SCENARIO="$T/online.scen" TILEPORT_LLM_BASE_URL=http://127.0.0.1:9/v1 TILEPORT_LLM_MODEL=m \
	"$TILEPORT" run softmax --again --workspace "$T/ws2" --out "$T/online" --headless --driver "A=exec:$FAKE" \
	>"$T/online.log" 2>&1
assert_contains "online: llm alone is the default" "$T/online.log" \
	"B llm (default), C llm (default), D llm (default), E llm (default)"
offline_env

# Resumed --online, the stages mech took by default get the online
# defaults (none usable here: exit 3 naming them; an llm endpoint: llm);
# a driver given by hand stays.
online_env
PATH="$T/bin:/usr/bin:/bin" "$TILEPORT" resume "$T/out/softmax" --online --headless >"$T/resume-none.log" 2>&1
assert_eq "resume --online, nothing usable: exit 3" "$?" 3
assert_contains "resume --online, nothing usable: mech is not kept" "$T/resume-none.log" \
	"no driver for stages A, B, C, D, E"
offline_env
rm -rf "$T/ws3" && cp -R "$WS" "$T/ws3"
"$TILEPORT" run softmax --workspace "$T/ws3" --out "$T/byhand" --headless --driver B=mech >"$T/byhand.log" 2>&1
assert_eq "offline, B=mech by hand: completes" "$?" 0
assert_contains "offline, B=mech by hand: printed" "$T/byhand.log" \
	"drivers: A mech (default), B mech, D mech (default)"
online_env
PATH="$T/bin:/usr/bin:/bin" TILEPORT_LLM_BASE_URL=http://127.0.0.1:9/v1 TILEPORT_LLM_MODEL=m \
	"$TILEPORT" resume "$T/byhand/softmax" --online --headless >"$T/byhand-online.log" 2>&1
assert_contains "resume --online: the defaults chosen again, B kept" "$T/byhand-online.log" \
	"drivers: A llm (default), B mech, C llm (default), D llm (default), E llm (default)"
offline_env

# An operator mech refuses: offline, nothing else usable: mech runs and
# says why (tests/integration/first_run.sh has the rest).
rm -rf "$T/wsl" && cp -R "$WS" "$T/wsl"
cp "$TILEPORT_TOP/tests/fixtures/port/unsupported/while_loop.py" "$T/wsl/src/tilegym/ops/cutile/looped.py"
"$TILEPORT" run looped --workspace "$T/wsl" --out "$T/nodrv" --headless >"$T/nodrv.log" 2>&1
assert_eq "refused op, nothing else: the run stops" "$?" 1
assert_contains "refused op, nothing else: which stages want a driver" "$T/nodrv.log" \
	"What would finish the job: an agent driver for stages A, B, D"

# ... and in a chain its refusal hands stage B to llm in the same attempt.
echo "A: BLOCKED" >"$T/l.scen"
FAKE_SCENARIO="$T/l.scen" "$TILEPORT" run looped --workspace "$T/wsl" --out "$T/l" --headless \
	--driver "A=exec:$FAKE" --driver "B=exec:$FAKE" --driver "D=exec:$FAKE" >"$T/l.log" 2>&1
cat >"$T/chain.json" <<EOF
{"key": "$KEY", "steps": [
 {"reply": {"text": "<VALIDATOR_OUTPUT>\\n\$ tileport validate agent-b looped\\nexit=0\\n</VALIDATOR_OUTPUT>\\nVERDICT: DEFERRED"}}
]}
EOF
start_server chain
TILEPORT_LLM_BASE_URL="http://127.0.0.1:$PORT/v1" TILEPORT_LLM_API_KEY="$KEY" TILEPORT_LLM_MODEL=m \
	"$TILEPORT" agent --stage B --run "$T/l/looped" --driver mech,llm --attempt "$T/chain.att" \
	>"$T/chain.tx" 2>"$T/chain.err"
assert_eq "chain: exit 0" "$?" 0
stop_server chain
assert_contains "chain: mech's refusal names the place and the construct" "$T/chain.tx" \
	'unsupported: src/tilegym/ops/cutile/looped.py:7:5: while loop'
assert_contains "chain: the hand-over from mech to llm" "$T/chain.tx" \
	'"type":"handover","from":"mech","to":"llm","reason":"unsupported: src/tilegym/ops/cutile/looped.py:7:5: while loop","verdict":"FAIL_FIXABLE"'
assert_eq "chain: one final message, llm's" "$(count final "$T/chain.tx")" 1
assert_contains "chain: the final is llm's reply" "$T/chain.tx" '"type":"final","text":"<VALIDATOR_OUTPUT>\n$ tileport validate agent-b looped'
no_key "$T/l" "$T/chain.tx"
finish
