#!/bin/sh
# A first batch as the README shows it: a driver given by an absolute path
# from the folder that holds it (`cd ~/agents; ... --driver
# A=exec:$PWD/agent.sh`) is kept as that path, never rewritten to
# ${PWD}/... (only secret values are), so its runs start it; status and
# report keep their columns for long operator names; report says why each
# run ended where it did.
. "$TILEPORT_TOP/tests/integration/lib/common.sh"
. "$TILEPORT_TOP/tests/integration/lib/batch.sh"
online_env
W=$T/ws
batch_ws "$W"
LONG=a_rather_long_operator_name_x
for op in "$LONG" short; do batch_op "$W" "$op"; done
scenario "$LONG" "A: FAIL_FIXABLE"
scenario short "A: FAIL_FIXABLE"
mkdir -p "$T/agents"
printf '#!/bin/sh\nexec %s "$@"\n' "$BATCH_AGENT" >"$T/agents/agent.sh"
chmod +x "$T/agents/agent.sh"
flags=""
for s in B C D E F; do flags="$flags --driver $s=exec:$BATCH_AGENT"; done
# shellcheck disable=SC2086
(cd "$T/agents" && "$TILEPORT" batch start "$LONG" short --workspace "$W" --out "$T/out" --name first \
	--headless --driver "A=exec:$PWD/agent.sh" $flags) >"$T/start.log" 2>&1
assert_contains "the record keeps the driver's path" "$T/out/.tileport-batch/first/batch.json" \
	"\"A=exec:$T/agents/agent.sh\""
if grep -q '${PWD}' "$T/out/.tileport-batch/first/batch.json"; then bad "a path was rewritten to \${PWD}"
else ok "no \${PWD} in the record"; fi
"$TILEPORT" status short --out "$T/out" --json >"$T/short.json"
assert_eq "the run started the driver (no exit 127)" "$(json_get "$T/short.json" 'd["attempts"][0]["exit"]')" "exit 0"

# Columns line up whatever the operator's name.
"$TILEPORT" batch status --out "$T/out" >"$T/status.txt" 2>&1
"$TILEPORT" batch report --out "$T/out" >"$T/report.txt" 2>&1
for f in status report; do
	python3 - "$T/$f.txt" "$LONG" >"$T/$f.cols" <<'PY'
import sys
lines = open(sys.argv[1]).read().splitlines()
head = next(i for i, l in enumerate(lines) if l.startswith("OP "))
rows = [l for l in lines[head:head + 3]]
# where the second column starts in the header and in each row
print(len(set(len(r.split()[0]) + (len(r) - len(r[len(r.split()[0]):].lstrip()) - len(r.split()[0])) for r in rows)))
PY
	assert_eq "$f: the second column starts at one place in every row" "$(cat "$T/$f.cols")" 1
done
assert_contains "report: a reason column" "$T/report.txt" "REASON"
assert_contains "report: why the run ended" "$T/report.txt" "A1 returned FAIL_FIXABLE; the run stopped"
assert_contains "report: no 'unfinished' for runs that ended" "$T/report.txt" "0 of 2 operators converted (2 stopped)"
finish
