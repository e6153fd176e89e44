#!/bin/sh
# The first run on a TileGym-shaped checkout with no agent CLI, no key and
# no GPU (tests/fixtures/tilegym-layout): when the built-in translator
# refuses, a run exists (tileport open shows it), and its events, status
# and outcome name the refusal at FILE:LINE:COL with the construct and what
# would finish the job. A refusal by a driver without a model is never run
# again: no repair retry, no owner question, no advice that would repeat it.
# A run that stopped without a table row logs its route like any other, so
# opening or resuming it records no false recovery.
. "$TILEPORT_TOP/tests/integration/lib/common.sh"
offline_env
FX=$TILEPORT_TOP/tests/fixtures/tilegym-layout
cp -R "$FX" "$T/ws"
W=$T/ws
NOAGENT="$T/bin:/usr/bin:/bin" # no claude, no codex; no llm endpoint either
WHERE='src/tilegym/ops/cutile/experimental/looped.py:12:5: while loop'

PATH=$NOAGENT "$TILEPORT" run looped --workspace "$W" --out "$T/out" --headless >"$T/nodrv.log" 2>&1
assert_eq "refused, no agent: the run stops (exit 1), it does not fail before it exists" "$?" 1
[ -f "$T/out/looped/.tileport/state.json" ] && ok "refused, no agent: the run exists" || bad "no run directory"
assert_contains "the drivers: mech, the one that can say why" "$T/nodrv.log" \
	"drivers: A mech (default), B mech (default), D mech (default)"
assert_contains "the verdict event carries the refusal" "$T/nodrv.log" \
	"A1 returned FAIL_FIXABLE; gate: accepted (a refusal by mech, which has no model: no repair retry, the same input gets the same reply); unsupported: $WHERE"
assert_contains "the route says why it stops" "$T/nodrv.log" "route A1 FAIL_FIXABLE -> STOP (mech refused: $WHERE)"
assert_contains "the end names the refusal" "$T/nodrv.log" \
	"STOP: A1: mech cannot do stage A of looped: $WHERE; it has no model, so running it again would end the same way."
assert_contains "... what would finish the job, and how to give it" "$T/nodrv.log" \
	"What would finish the job: an agent driver for stages A, B, D: give one with --driver X=claude|codex|llm|exec:COMMAND or 'driver.X = ...' in the config (docs/agents.md), then 'tileport run looped --fresh'"
assert_contains "... and why none is usable here" "$T/nodrv.log" \
	"tileport run looped --fresh' (none is usable here: claude: claude is not on PATH"
"$TILEPORT" status looped --out "$T/out" --json >"$T/nodrv.json"
assert_eq "no repair retry of a deterministic refusal" "$(json_get "$T/nodrv.json" 'd["path"]')" "A1 -> STOP"
assert_eq "the attempt records the refusal" \
	"$(json_get "$T/nodrv.json" 'd["attempts"][0]["refusal"] + " | " + d["attempts"][0]["refused_by"]')" \
	"$WHERE | mech"
for word in respawn "step " "owner " "batch resume"; do
	if grep -q -- "$word" "$T/nodrv.log"; then bad "advice that would loop: '$word' in the run's output"
	else ok "no advice that would repeat the refusal ('$word')"; fi
done
"$TILEPORT" step looped respawn A --out "$T/out" >"$T/respawn.log" 2>&1
assert_eq "respawn of a deterministic refusal: refused" "$?" 2
assert_contains "respawn of a deterministic refusal: why, and what instead" "$T/respawn.log" \
	"A1 was refused by mech ($WHERE), which has no model: a re-spawn with it refuses the same way"
assert_eq "the outcome names the refusal, briefly" "$(json_get "$T/nodrv.json" 'd["outcome_reason"]')" \
	"A1: mech refused: $WHERE"
printf ':save-display %s\nq\n' "$T/open.screen" >"$T/open.script"
COLUMNS=200 LINES=40 TILEPORT_NO_DISPLAY=1 TILEPORT_SCRIPT="$T/open.script" "$TILEPORT" open looped \
	--out "$T/out" --read-only >"$T/open.log" 2>&1
assert_eq "tileport open shows the run" "$?" 0
assert_contains "the pipeline view shows the refusal" "$T/open.screen" \
	"unsupported: src/tilegym/ops/cutile/experimental/looped.py:12:5: while"

# Forced --driver A=mech where an agent is usable: the advice names it.
PATH=$NOAGENT TILEPORT_LLM_BASE_URL=http://127.0.0.1:9/v1 TILEPORT_LLM_MODEL=m "$TILEPORT" run looped \
	--workspace "$W" --out "$T/forced" --headless --driver A=mech --driver B=mech --driver D=mech \
	>"$T/forced.log" 2>&1
assert_eq "forced mech: stops" "$?" 1
assert_contains "forced mech: the reason, not only the validator block" "$T/forced.log" "unsupported: $WHERE"
assert_contains "forced mech: the agent that would finish it" "$T/forced.log" \
	"then 'tileport run looped --fresh' (usable here: 'llm', the default when no --driver names one)"

# A failing reply of mech that is no refusal (its own check of what it
# made fails: a test with neither test_perf nor a parametrised test_op,
# so no shapes to benchmark) is final too: no repair retry.
cp -R "$FX" "$T/wf"
mkdir -p "$T/wf/src/tilegym/ops/cutile/activation" && cp "$T/wf/src/tilegym/ops/cutile/activation/silu_and_mul.py" \
	"$T/wf/src/tilegym/ops/cutile/activation/noperf.py"
sed 's/test_perf/not_a_perf_test/; s/def test_op/def check_op/' "$T/wf/tests/ops/activation/test_silu_and_mul.py" >"$T/wf/tests/ops/activation/test_noperf.py"
PATH=$NOAGENT "$TILEPORT" run noperf --workspace "$T/wf" --out "$T/fout" --headless >"$T/noperf.log" 2>&1
"$TILEPORT" status noperf --out "$T/fout" --json >"$T/noperf.json"
assert_eq "a failing reply of mech: no repair retry" "$(json_get "$T/noperf.json" 'd["path"]')" "A1 -> STOP"
assert_contains "a failing reply of mech: what failed, and that it would fail again" "$T/noperf.log" \
	"route A1 FAIL_FIXABLE -> STOP (mech failed: FAIL [analysis.test-perf-configs]"

# A batch: the refusal is final; resume does not start it again, and says so.
cp -R "$FX" "$T/wb"
PATH=$NOAGENT "$TILEPORT" batch start looped --workspace "$T/wb" --out "$T/bout" --name fr --headless \
	>"$T/batch.log" 2>&1
assert_eq "batch: not converted" "$?" 1
assert_contains "batch: no advice to resume what cannot change" "$T/batch.log" \
	"tileport: batch fr: not every run ended complete, and each ended on a verdict of its own: 'tileport batch status fr' says why"
if grep -q "batch resume" "$T/batch.log"; then bad "batch: 'batch resume' advised after a refusal"
else ok "batch: 'batch resume' not advised"; fi
PATH=$NOAGENT "$TILEPORT" batch resume fr --out "$T/bout" --headless >"$T/bresume.log" 2>&1
assert_contains "batch resume: says why it starts nothing" "$T/bresume.log" \
	"batch fr: not started again: looped stopped on mech's refusal of stage A ($WHERE)"
assert_contains "batch resume: nothing started" "$T/bresume.log" "batch fr: nothing to resume"
PATH=$NOAGENT "$TILEPORT" batch resume fr --rerun looped --out "$T/bout" --headless >"$T/brerun.log" 2>&1
assert_eq "batch resume --rerun of a refusal that would repeat: exit 2" "$?" 2
assert_contains "batch resume --rerun: why" "$T/brerun.log" "a run with this batch's drivers would refuse the same way"

# The default output root sits inside the checkout: the first run says so
# and git leaves it out of `git status` (info/exclude, never committed).
export HOME="$T/home" GIT_CONFIG_NOSYSTEM=1
mkdir -p "$HOME"
cp -R "$FX" "$T/wg"
git -C "$T/wg" init -q && git -C "$T/wg" add -A &&
	git -C "$T/wg" -c user.name=t -c user.email=t@example.com commit -q -m base
(cd "$T/wg" && PATH=$NOAGENT "$TILEPORT" run looped --headless) >"$T/default-out.log" 2>&1
assert_contains "the first run says where runs go and how to choose" "$T/default-out.log" \
	"tileport: run directories go to $T/wg/cutile_kernel_out, the default, inside your checkout (--out, CUTILE_KERNEL_OUT_ROOT or out_root in the config choose another"
assert_eq "git status does not list the output root" "$(git -C "$T/wg" status --porcelain)" ""
assert_contains "the rule is in info/exclude" "$T/wg/.git/info/exclude" "/cutile_kernel_out/"
(cd "$T/wg" && PATH=$NOAGENT "$TILEPORT" run looped --fresh --headless) >"$T/default-out2.log" 2>&1
if grep -q "run directories go to" "$T/default-out2.log"; then bad "said again on the second run"
else ok "said once"; fi
(cd "$T/wg" && PATH=$NOAGENT "$TILEPORT" run looped --out "$T/elsewhere" --headless) >"$T/named-out.log" 2>&1
if grep -q "run directories go to" "$T/named-out.log"; then bad "said for an output root given by hand"
else ok "nothing said for an output root given by hand"; fi

# Refusals name a value's kind with the right article.
printf 'import cuda.tile as ct\n\n\n@ct.kernel\ndef k(X, N: int):\n    n = len(N)\n' >"$T/lenint.py"
"$TILEPORT" translate "$T/lenint.py" >/dev/null 2>"$T/lenint.err"
assert_contains "an integer, not a integer" "$T/lenint.err" "unsupported: len() of an integer"

# A run that stopped for want of an owner tag, headless: resuming or
# opening it adds no "recovered on resume" event.
run_scenario notag "A: PASS" "B: COMPILED" "D: FAIL"
assert_eq "no owner tag: the run stops" "$(path_of notag)" "A1 -> B1 -> D1 -> STOP"
EV=$T/notag/softmax/.tileport/events.jsonl
assert_contains "no owner tag: its route is logged" "$EV" \
	'"type":"routed","seq":3,"stage":"D","attempt":1,"verdict":"FAIL","action":"STOP"'
"$TILEPORT" resume "$T/notag/softmax" --headless >"$T/notag-resume.log" 2>&1
printf 'q\n' >"$T/q.script"
TILEPORT_NO_DISPLAY=1 TILEPORT_SCRIPT="$T/q.script" "$TILEPORT" open "$T/notag/softmax" >"$T/notag-open.log" 2>&1
if grep -q recovered "$EV"; then bad "a false recovery event: $(grep recovered "$EV" | head -n 1)"
else ok "resume and open record no false recovery"; fi
assert_eq "one routed event per attempt" "$(grep -c '"type":"routed"' "$EV")" 3
finish
