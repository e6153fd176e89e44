#!/bin/sh
# The orchestrator's own validators (engine/check, "builtin" in the table)
# inside real runs: agents that produce the hand-written softmax fixture pass
# every stage gate and the final output contract; an agent that breaks its
# artifact and claims success is overruled.
. "$TILEPORT_TOP/tests/integration/lib/common.sh"
online_env
export FIXTURE_DIR="$TILEPORT_TOP/tests/fixtures" TILEPORT_BIN="$TILEPORT"
${CC:-cc} -shared -fPIC -o "$T/libcutile_kernels.so" "$FIXTURE_DIR/elf/cutile_kernels.c" || exit 1
export FIXTURE_SO="$T/libcutile_kernels.so"
AGENT=$TILEPORT_TOP/tests/integration/lib/fixture_agent.sh

fresh_ws() {
	rm -rf "$T/ws"
	cp -R "$WS" "$T/ws"
}
drivers() { for s in A B C D E F; do printf -- '--driver %s=exec:%s ' "$s" "$AGENT"; done; }

fresh_ws
# shellcheck disable=SC2046
"$TILEPORT" run softmax --workspace "$T/ws" --out "$T/good" --headless $(drivers) >"$T/good.log" 2>&1
assert_eq "fixture run completes" "$?" 0
"$TILEPORT" status "$T/good/softmax" --json >"$T/good.json"
assert_eq "path" "$(json_get "$T/good.json" 'd["path"]')" "A1 -> B1 -> D1 -> E1 -> PIPELINE_COMPLETE"
assert_eq "every stage validator passed" \
	"$(json_get "$T/good.json" '" ".join(a["validator"] for a in d["attempts"])')" "pass pass pass pass"
assert_eq "final output contract" "$(json_get "$T/good.json" 'd["contract"]')" "pass"
assert_eq "E DONE and the contract passed: accepted" "$(json_get "$T/good.json" 'd["outcome"]')" "accepted"
assert_eq "an accepted run has no reason" "$(json_get "$T/good.json" 'd.get("outcome_reason")')" "None"
"$TILEPORT" status "$T/good/softmax" >"$T/good.status"
assert_contains "status says accepted" "$T/good.status" "outcome    accepted"
"$TILEPORT" runs --out "$T/good" >"$T/good.runs"
assert_contains "runs says accepted" "$T/good.runs" "PIPELINE_COMPLETE  accepted"
assert_contains "contract report kept" "$T/good/softmax/.tileport/contract.txt" "PASS"
assert_contains "findings in the attempt folder" "$T/good/softmax/.tileport/attempts/02-B1/validator.json" '"rule"'
assert_contains "no findings to report in events.jsonl" "$T/good/softmax/.tileport/events.jsonl" '"findings":[]'

# B claims COMPILED over a kernel without `E: ElementType`: the orchestrator's
# validator fails it, the repair retry lies again, and the run stops on
# FAIL_COMPILE with SOFT_VALIDATOR_FAILED.
fresh_ws
# shellcheck disable=SC2046
FIXTURE_LIE=B "$TILEPORT" run softmax --workspace "$T/ws" --out "$T/lie" --headless $(drivers) >"$T/lie.log" 2>&1
assert_eq "lying B stops the run" "$?" 1
"$TILEPORT" status "$T/lie/softmax" --json >"$T/lie.json"
assert_eq "lie: path" "$(json_get "$T/lie.json" 'd["path"]')" "A1 -> B1 -> B1(repair) -> STOP"
assert_eq "lie: routed verdict" "$(json_get "$T/lie.json" 'd["attempts"][2]["verdict"]')" "FAIL_COMPILE"
assert_eq "lie: soft marker" "$(json_get "$T/lie.json" 'd["soft_markers"][0]["marker"]')" "SOFT_VALIDATOR_FAILED"
assert_contains "lie: the rule that caught it" "$T/lie/softmax/.tileport/attempts/02-B1/validator.txt" "E: ElementType"
assert_contains "lie: findings in events.jsonl" "$T/lie/softmax/.tileport/events.jsonl" '"findings":[{"validator":"agent-b","rule":"agent-b.element-type"'
assert_contains "lie: repair prompt carries the findings" "$T/lie/softmax/.tileport/attempts/03-B1r/prompt.md" \
	"The orchestrator's own validator reported"

# D claims ALL_PASS over an ffi.rs that frees PyTorch's memory: overruled,
# and the FAIL routed on is the host's (ffi.rs failed), so D runs again; the
# tag's empty default would have sent a host fault to C and B.
fresh_ws
# shellcheck disable=SC2046
FIXTURE_LIE=D "$TILEPORT" run softmax --workspace "$T/ws" --out "$T/lied" --headless $(drivers) >"$T/lied.log" 2>&1
assert_eq "lying D: the run ends, not accepted" "$?" 1
"$TILEPORT" status "$T/lied/softmax" --json >"$T/lied.json"
assert_eq "lying D: path" "$(json_get "$T/lied.json" 'd["path"]')" \
	"A1 -> B1 -> D1 -> D1(repair) -> D2 -> PIPELINE_COMPLETE"
assert_eq "lying D: the overruled FAIL is the host's" "$(json_get "$T/lied.json" 'd["attempts"][3]["class"]')" "host"
assert_eq "lying D: not a defaulted class" "$(json_get "$T/lied.json" 'd["attempts"][3].get("class_defaulted", False)')" "False"
assert_contains "lying D: the event says where the class came from" "$T/lied.log" \
	"D1: owner host, from what failed the validator (ffi.rs"
assert_contains "lying D: the route says the verdict was substituted" "$T/lied.log" \
	"route D1 FAIL (host) [overruled: ALL_PASS claimed] -> spawn D (row 6"

# E claims DONE over an empty perf log: overruled to BLOCKED, and the event
# that sends it to C says so.
fresh_ws
# shellcheck disable=SC2046
FIXTURE_LIE=E "$TILEPORT" run softmax --workspace "$T/ws" --out "$T/liee" --headless $(drivers) >"$T/liee.log" 2>&1
assert_contains "lying E: overruled" "$T/liee.log" \
	"E1: SOFT_VALIDATOR_FAILED; the validator overrules the claimed DONE: routing on BLOCKED, which the agent did not return"
assert_contains "lying E: the route to C says so" "$T/liee.log" \
	"route E1 BLOCKED [overruled: DONE claimed] -> spawn C (row 12"

# Offline: stages defer their toolchain steps; the validators report them
# DEFERRED and still check everything else.
offline_env
cat >"$T/defer.sh" <<EOS
#!/bin/sh
case \$TILEPORT_STAGE in
A) steps=reference-ir,perf-log ;;
B) steps=generated-ir,layout-gate,cargo-build ;;
D) steps=cargo-build,pytest ;;
esac
mkdir -p "\$TILEPORT_RUN_DIR/reports/agent_logs"
case \$TILEPORT_STAGE in
A) cp -R "$FIXTURE_DIR/runs/softmax/reference" "\$TILEPORT_RUN_DIR/"; rm -f "\$TILEPORT_RUN_DIR"/reference/*.mlir
   echo log >"\$TILEPORT_RUN_DIR/reports/agent_logs/agent_a.md" ;;
B) cp "$FIXTURE_DIR/runs/softmax/kernel.rs" "$FIXTURE_DIR/runs/softmax/Cargo.toml" "\$TILEPORT_RUN_DIR/"
   cp "$FIXTURE_DIR/runs/softmax/reports/build_log.md" "\$TILEPORT_RUN_DIR/reports/"
   echo log >"\$TILEPORT_RUN_DIR/reports/agent_logs/agent_b.md" ;;
D) echo log >"\$TILEPORT_RUN_DIR/reports/agent_logs/agent_d.md"
   # the host code and wiring need no toolchain; the build and pytest do
   ops=\$TILEGYM_PATH/src/tilegym/ops/cutile_rs
   mkdir -p "\$ops/softmax_kernel"
   cp "$FIXTURE_DIR/runs/softmax/ffi.rs" "\$TILEPORT_RUN_DIR/"
   cp "$FIXTURE_DIR/runs/softmax/ffi.rs" "$FIXTURE_DIR/runs/softmax/kernel.rs" "\$ops/softmax_kernel/"
   cp "$FIXTURE_DIR/workspace/src/tilegym/ops/cutile_rs/softmax.py" "$FIXTURE_DIR/workspace/src/tilegym/ops/cutile_rs/__init__.py" "\$ops/"
   cp "$FIXTURE_DIR/workspace/src/tilegym/ops/cutile_rs/cutile_kernels/src/lib.rs" "\$ops/cutile_kernels/src/"
   cp "$FIXTURE_DIR/workspace/tests/ops/test_softmax.py" "\$TILEGYM_PATH/tests/ops/"
   printf 'VERDICT: DEFERRED\\n# Agent D Report - softmax\\n| Test | Config | Result | Error | known_gaps |\\n' \\
     >"\$TILEPORT_RUN_DIR/reports/correctness.md" ;;
esac
echo "deferred: \$steps"
printf '<VALIDATOR_OUTPUT>\n\$ tileport validate stage %s softmax\nexit=0\n</VALIDATOR_OUTPUT>\nVERDICT: DEFERRED\n' "\$TILEPORT_STAGE"
EOS
chmod +x "$T/defer.sh"
fresh_ws
"$TILEPORT" run softmax --workspace "$T/ws" --out "$T/off" --headless --driver "A=exec:$T/defer.sh" \
	--driver "B=exec:$T/defer.sh" --driver "D=exec:$T/defer.sh" >"$T/off.log" 2>&1
assert_eq "offline run" "$?" 0
"$TILEPORT" status "$T/off/softmax" --json >"$T/off.json"
assert_eq "offline: validators" "$(json_get "$T/off.json" '" ".join(a["validator"] for a in d["attempts"])')" \
	"deferred deferred deferred"
assert_eq "offline: final" "$(json_get "$T/off.json" 'd["final"]')" "OFFLINE_COMPLETE"
finish
