# Shared by the batch tests (sourced after common.sh): a workspace the test
# builds with the operators it names, one scenario per operator for
# batch_agent.sh, and the waits a batch test needs.
BATCH_AGENT=$TILEPORT_TOP/tests/integration/lib/batch_agent.sh
BATCH_SCEN=$T/scen
export BATCH_SCEN
mkdir -p "$BATCH_SCEN"

# batch_ws DIR: the sample workspace without its operator.
batch_ws() {
	cp -R "$WS" "$1"
	rm -f "$1"/src/tilegym/ops/cutile/*.py
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
		for side in a b; do
			eval "root=\$$side"
			"$TILEPORT" status "$root/$op" --json | python3 -c 'import json,sys
d = json.load(sys.stdin)
print(d.get("final"), d["path"])
for a in d["attempts"]:
    print(a["seq"], a["stage"], a["attempt"], a["repair"], a["state"], a.get("verdict"), a.get("gate"), a.get("action"))' >"$T/same.$side"
		done
		if cmp -s "$T/same.a" "$T/same.b"; then ok "$op: same end, path and attempts"; else
			bad "$op: runs differ"
			diff "$T/same.a" "$T/same.b" | sed 's/^/    | /'
		fi
	done
}
