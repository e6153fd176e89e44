#!/bin/sh
# The acceptance gate (pipeline.md §2, all five cases), the repair retry
# (once per letter, then SOFT_VALIDATOR_FAILED), the orchestrator's own
# validator overruling a claim, and a missing owner tag (kernel route).
. "$TILEPORT_TOP/tests/integration/lib/common.sh"
online_env

state() { json_get "$T/$1/softmax/.tileport/state.json" "$2"; }

# 1. a block with every exit 0: accepted
run_scenario clean "A: PASS" "B: COMPILED" "D: ALL_PASS" "E: DONE"
# (--validator X=none: validator.txt says so, not an exit status)
assert_contains "no validator: validator.txt says none" "$T/clean/softmax/.tileport/attempts/01-A1/validator.txt" \
	"validator for A1: none"
grep -q "exit -" "$T/clean/softmax/.tileport/attempts/01-A1/validator.txt" && bad "validator.txt shows a negative exit" ||
	ok "no negative exit in validator.txt"
assert_eq "block all zero: gate" "$(state clean '" ".join(a["gate"] for a in d["attempts"])')" \
	"accepted accepted accepted accepted"

# 2. no block, clean success: accepted with SOFT_VALIDATOR_MISSING
run_scenario soft "A: PASS" "B: COMPILED block=none" "D: ALL_PASS" "E: DONE"
assert_eq "no block, clean: path" "$(path_of soft)" "A1 -> B1 -> D1 -> E1 -> PIPELINE_COMPLETE"
assert_eq "no block, clean: marker" "$(state soft 'd["attempts"][1]["soft"]')" "['SOFT_VALIDATOR_MISSING']"

# 3. no block and not clean: repair retry, which succeeds
run_scenario unclean "A: PASS" "B: COMPILED block=none text=Traceback" "B: COMPILED" "D: ALL_PASS" "E: DONE"
assert_eq "no block, unclean: repaired" "$(path_of unclean)" "A1 -> B1 -> B1(repair) -> D1 -> E1 -> PIPELINE_COMPLETE"
assert_eq "repair is not a counted run" "$(json_get "$T/unclean.json" 'd["stages"]["B"]["runs"]')" 1
assert_contains "repair prompt says why" "$T/unclean/softmax/.tileport/attempts/03-B1r/prompt.md" \
	"the reply mentions 'Traceback'"
assert_contains "agent saw TILEPORT_REPAIR" "$T/unclean/softmax/fake_agent.log" "3 B1 repair=1"

# 4. a block with a non-zero exit: repair; the repair fails too: SOFT_VALIDATOR_FAILED,
#    routed on the semantic verdict
run_scenario nonzero "A: PASS" "B: COMPILED block=bad" "B: COMPILED block=bad" "D: ALL_PASS" "E: DONE"
assert_eq "non-zero exit: path" "$(path_of nonzero)" "A1 -> B1 -> B1(repair) -> D1 -> E1 -> PIPELINE_COMPLETE"
assert_eq "repair spent: marker" "$(state nonzero 'd["attempts"][2]["soft"]')" "['SOFT_VALIDATOR_FAILED']"
assert_eq "repair spent: gate" "$(state nonzero 'd["attempts"][2]["gate"]')" "soft_failed"

# 5. a block with no parseable exit: repair
run_scenario noexit "A: PASS block=noexit" "A: PASS" "B: COMPILED" "D: ALL_PASS" "E: DONE"
assert_eq "no exit line: repaired" "$(path_of noexit)" "A1 -> A1(repair) -> B1 -> D1 -> E1 -> PIPELINE_COMPLETE"

# one repair per letter: B's second bad return gets no second repair
run_scenario once "A: PASS" "B: COMPILED block=bad" "B: COMPILED" "D: FAIL class=kernel" \
	"C: FAIL_FIXABLE class=kernel" "B: COMPILED block=bad" "D: ALL_PASS" "E: DONE"
assert_eq "one repair per letter" "$(path_of once)" \
	"A1 -> B1 -> B1(repair) -> D1 -> C1 -> B2 -> D2 -> E1 -> PIPELINE_COMPLETE"
assert_eq "second failure: soft failed" "$(state once 'd["attempts"][5]["soft"]')" "['SOFT_VALIDATOR_FAILED']"
# a repair never cascades to another letter
assert_eq "D's own repair still available" "$(state once 'd["repairs"]')" "{'B': 1}"

# a reply without any VERDICT: repair, then the table's failure verdict
run_scenario noverdict "A: NONE block=none" "A: NONE block=none"
assert_eq "no verdict twice: path" "$(path_of noverdict)" "A1 -> A1(repair) -> STOP"
assert_eq "routed on validator_fail_verdict" "$(state noverdict 'd["attempts"][1]["verdict"]')" "FAIL_FIXABLE"

# the orchestrator's own validator overrules a success claim: repair, then FAIL_COMPILE
run_scenario overrule "A: PASS" "B: COMPILED" "B: COMPILED" -- --validator B=false
assert_eq "validator overrules: path" "$(path_of overrule)" "A1 -> B1 -> B1(repair) -> STOP"
assert_eq "validator overrules: verdict" "$(state overrule 'd["attempts"][2]["verdict"]')" "FAIL_COMPILE"
assert_contains "validator output kept" "$T/overrule/softmax/.tileport/attempts/02-B1/validator.txt" "exit 1"
assert_contains "events record the validator" "$T/overrule/softmax/.tileport/events.jsonl" '"type":"validator_result"'

# a report whose first line contradicts the reply counts as a validator failure
run_scenario mismatch "A: PASS" "B: COMPILED" "D: ALL_PASS" "E: DONE" -- \
	--validator E="sed -i 's/VERDICT: DONE/VERDICT: INVESTIGATE/' reports/performance.md"
assert_contains "verdict file mismatch" "$T/mismatch.log" \
	"reports/performance.md opens with VERDICT: INVESTIGATE but the reply says DONE"

# A missing owner tag (the table's missing_owner = stop): nobody to ask
# headless, so the run stops rather than guess ...
run_scenario notag "A: PASS" "B: COMPILED" "D: FAIL" "C: FAIL_FIXABLE class=kernel" "B: COMPILED" "D: ALL_PASS" \
	"E: DONE"
assert_eq "missing tag: the run stops" "$(path_of notag)" "A1 -> B1 -> D1 -> STOP"
assert_eq "missing tag: exit" "$(rc_of notag)" 1
assert_eq "missing tag: recorded" "$(state notag 'd["attempts"][2].get("owner_unknown")')" "True"
assert_contains "missing tag: the event says why" "$T/notag.log" \
	"D1 returned FAIL without an owner tag ('fail_class:' in reports/correctness.md); nobody to ask: the run stops"
assert_contains "missing tag: the outcome says how to go on" "$T/notag.json" "owner 3 CLASS --reason TEXT"
# ... a person chooses afterwards, with a reason, and routing goes on ...
FAKE_SCENARIO="$T/notag.scen" "$TILEPORT" step "$T/notag/softmax" owner 3 wrapper --reason "x" >"$T/own0.log" 2>&1
assert_eq "owner: an unknown class is refused" "$?" 2
assert_contains "owner: the refusal names the choices" "$T/own0.log" "choose host, kernel or stop"
FAKE_SCENARIO="$T/notag.scen" "$TILEPORT" step "$T/notag/softmax" owner 3 kernel --reason "the kernel's output is off" \
	>"$T/own1.log" 2>&1
"$TILEPORT" status "$T/notag/softmax" --json >"$T/notag.json"
assert_eq "owner chosen: kernel route" "$(path_of notag)" \
	"A1 -> B1 -> D1 -> C1 -> B2 -> D2 -> E1 -> PIPELINE_COMPLETE"
assert_contains "owner chosen: a manual event with the reason" "$T/notag/softmax/.tileport/events.jsonl" \
	'"type":"manual_owner","seq":3,"stage":"D","attempt":1,"verdict":"FAIL","class":"kernel","reason":"the kernel'"'"'s output is off"'
assert_eq "owner chosen: not a default" "$(state notag 'd["attempts"][2].get("class_defaulted", False)')" "False"
# ... and a table that says kernel takes the kernel route, as the reference SKILL.md does.
python3 - "$TILEPORT_TOP/skill/pipeline.json" "$T/kernel_table.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
t["gate"]["missing_owner"] = "kernel"
json.dump(t, open(sys.argv[2], "w"), indent=1)
PY
run_scenario notag_k "A: PASS" "B: COMPILED" "D: FAIL" "C: FAIL_FIXABLE" "B: COMPILED" "D: ALL_PASS" "E: DONE" \
	-- --table "$T/kernel_table.json"
assert_eq "missing_owner = kernel: kernel route" "$(path_of notag_k)" \
	"A1 -> B1 -> D1 -> C1 -> B2 -> D2 -> E1 -> PIPELINE_COMPLETE"
assert_eq "class defaulted" "$(state notag_k 'd["attempts"][2]["class_defaulted"]')" "True"
assert_contains "owner default event" "$T/notag_k.log" \
	"no valid 'fail_class:' in reports/correctness.md; kernel route (missing_owner = kernel)"

# JSON-lines transcript: final message, usage and cost are read
run_scenario json "A: PASS format=json" "B: COMPILED" "D: ALL_PASS" "E: DONE"
assert_eq "json transcript: tokens" "$(state json 'd["attempts"][0]["tokens_in"]')" "100"
assert_eq "json transcript: cost" "$(state json 'd["attempts"][0]["cost"]')" "0.01"

# D may carry a failing pytest together with FAIL (pipeline.md §14.5)
mkdir -p "$T/bin2"
cat >"$T/bin2/dfail.sh" <<'EOS'
#!/bin/sh
mkdir -p "$TILEPORT_RUN_DIR/reports"
printf 'VERDICT: FAIL\nfail_class: host\n' >"$TILEPORT_RUN_DIR/reports/correctness.md"
printf '<VALIDATOR_OUTPUT>\n$ python -m pytest tests/ops/test_softmax.py -x 2>&1\n1 failed\nexit=1\n$ validate_agent_d.sh softmax\nPASS\nexit=0\n</VALIDATOR_OUTPUT>\nVERDICT: FAIL\n'
EOS
chmod +x "$T/bin2/dfail.sh"
run_scenario pytestfail "A: PASS" "B: COMPILED" "X" "D: ALL_PASS" "E: DONE" -- --driver "D=exec:sh -c 'if [ \$TILEPORT_SEQ = 3 ]; then exec $T/bin2/dfail.sh; else exec $FAKE; fi'"
assert_eq "pytest exit with FAIL accepted" "$(state pytestfail 'd["attempts"][2]["gate"]')" "accepted"
assert_eq "then D(2)" "$(path_of pytestfail)" "A1 -> B1 -> D1 -> D2 -> E1 -> PIPELINE_COMPLETE"

# An agent that writes the workspace config cannot switch off the
# orchestrator's validator of an existing run: `step` keeps the run's own.
cp -R "$WS" "$T/ws2"
# shellcheck disable=SC2046
FAKE_SCENARIO="$T/overrule.scen" "$TILEPORT" run softmax --workspace "$T/ws2" --out "$T/cfg" --headless \
	$(fake_flags) --validator B=false >"$T/cfg.log" 2>&1
printf 'validator.B = true\n' >"$T/ws2/.tileport.conf"
(cd "$T/ws2" && TILEGYM_PATH="$T/ws2" "$TILEPORT" step "$T/cfg/softmax" revalidate 2) >"$T/cfg2.log" 2>&1
assert_eq "workspace config ignored by an existing run" "$?" 1
assert_contains "still the run's own validator" "$T/cfg2.log" "B1 validator: fail"
finish
