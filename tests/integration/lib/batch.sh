# Shared by the batch tests (sourced after common.sh): a workspace the test
# builds with the operators it names, one scenario per operator for
# batch_agent.sh, and the waits a batch test needs.
BATCH_AGENT=$TILEPORT_TOP/tests/integration/lib/batch_agent.sh
BATCH_SCEN=$T/scen
export BATCH_SCEN
mkdir -p "$BATCH_SCEN"

# batch_ws DIR: the sample workspace without its operators (cuTile and Triton).
batch_ws() {
	cp -R "$WS" "$1"
	rm -f "$1"/src/tilegym/ops/cutile/*.py "$1"/src/tilegym/ops/triton/*.py
}

# batch_op DIR OP [cutile|triton]: a reference for OP.
batch_op() {
	mkdir -p "$1/src/tilegym/ops/${3:-cutile}"
	cp "$WS/src/tilegym/ops/cutile/softmax.py" "$1/src/tilegym/ops/${3:-cutile}/$2.py"
}

# scenario OP "STAGE: VERDICT ..." ...: what OP's agents answer, in order.
scenario() {
	op=$1
	shift
	printf '%s\n' "$@" >"$BATCH_SCEN/$op"
}

# The agent for every stage, and no orchestrator validator.
batch_flags() {
	for s in A B C D E F; do
		printf -- '--driver %s=exec:%s --validator %s=none ' "$s" "$BATCH_AGENT" "$s"
	done
}

# wait_for SECONDS DESC CONDITION: poll the condition (0.05 s) until it
# holds; a failed check when it never does.
wait_for() {
	limit=$(($1 * 20))
	i=0
	while ! eval "$3"; do
		i=$((i + 1))
		if [ $i -ge $limit ]; then
			bad "$2: not within $1 s"
			return 1
		fi
		sleep 0.05
	done
	return 0
}

# run_state RUN: what 'tileport status' calls the run (interrupted once no
# orchestrator holds it).
run_state() {
	"$TILEPORT" status "$1" --json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["state"])' 2>/dev/null
}

# op_field JSON OP FIELD: a field of one op in 'batch status --json' output.
op_field() {
	python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
print(next(o for o in d["ops"] if o["op"] == sys.argv[2]).get(sys.argv[3], ""))' "$1" "$2" "$3"
}

# same_runs OUT_A OUT_B OP...: each op's run ended alike in both output
# roots: the same end, path of stages and attempts (verdicts, gate, action).
same_runs() {
	a=$1 b=$2
	shift 2
	for op in "$@"; do
		"$TILEPORT" status "$a/$op" --json >"$T/same.a.$op" 2>&1
		"$TILEPORT" status "$b/$op" --json >"$T/same.b.$op" 2>&1
	done
	python3 - "$T" "$@" >"$T/same.out" <<'PY'
import json, sys
def run(path):
    try:
        d = json.load(open(path))
    except ValueError:
        return ["unreadable: " + open(path).read()]
    return [str(d.get("final")) + " " + d["path"]] + [
        " ".join(str(a.get(k)) for k in ("seq", "stage", "attempt", "repair", "state", "verdict", "gate", "action"))
        for a in d["attempts"]]
for op in sys.argv[2:]:
    x, y = (run("%s/same.%s.%s" % (sys.argv[1], side, op)) for side in "ab")
    print(op, "same" if x == y else "differs: %s / %s" % (x, y))
PY
	while read -r op verdict; do
		if [ "$verdict" = same ]; then ok "$op: same end, path and attempts"; else bad "$op: runs $verdict"; fi
	done <"$T/same.out"
}
