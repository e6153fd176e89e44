#!/bin/sh
# Property test: under random verdict sequences (random verdicts, owner
# classes and broken validator blocks from every stage), every run
# terminates, no stage is spawned beyond its cap, repairs happen at most
# once per letter, and the run ends in one of the terminal states.
. "$TILEPORT_TOP/tests/integration/lib/common.sh"
online_env
seed=${TILEPORT_TEST_SEED:-20261129}
runs=${TILEPORT_PROPERTY_RUNS:-30}
echo "seed $seed, $runs runs (TILEPORT_TEST_SEED=$seed reproduces them)"
# shellcheck disable=SC2046
set -- $(fake_flags)
i=0
while [ $i -lt "$runs" ]; do
	i=$((i + 1))
	s=$((seed + i))
	# shellcheck disable=SC2068
	FAKE_RANDOM_SEED=$s timeout 120 "$TILEPORT" run softmax --workspace "$WS" --out "$T/r$i" --headless $@ \
		>"$T/r$i.log" 2>&1
	rc=$?
	case $rc in
	0 | 1) ;;
	124) bad "seed $s: did not terminate"; continue ;;
	*) bad "seed $s: exit $rc"; tail -n 5 "$T/r$i.log"; continue ;;
	esac
	"$TILEPORT" status "$T/r$i/softmax" --json >"$T/r$i.json"
	python3 - "$T/r$i.json" "$TILEPORT_TOP/skill/pipeline.json" "$rc" <<'PY' && ok "seed $s: $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["path"])' "$T/r$i.json")" || bad "seed $s"
import json, sys
d = json.load(open(sys.argv[1]))
table = json.load(open(sys.argv[2]))
rc = int(sys.argv[3])
caps = {s["letter"]: s["cap"] for s in table["stages"]}
errors = []
counted, repairs = {}, {}
for a in d["attempts"]:
    if a["repair"]:
        repairs[a["stage"]] = repairs.get(a["stage"], 0) + 1
    else:
        counted[a["stage"]] = counted.get(a["stage"], 0) + 1
for st, n in counted.items():
    if n > caps[st]:
        errors.append(f"{st} ran {n} times, cap {caps[st]}")
for st, n in repairs.items():
    if n > 1:
        errors.append(f"{st} repaired {n} times")
if d.get("final") not in ("PIPELINE_COMPLETE", "STOP"):
    errors.append(f"final state {d.get('final')}")
if (rc == 0) != (d.get("outcome") == "accepted"):
    errors.append(f"exit {rc} with outcome {d.get('outcome')}")
if d.get("outcome") not in ("accepted", "not_accepted") or (d.get("final") == "STOP") != (
        "the run stopped" in d.get("outcome_reason", "")):
    errors.append(f"outcome {d.get('outcome')} ({d.get('outcome_reason')}) after {d.get('final')}")
if any(a["state"] == "running" for a in d["attempts"]):
    errors.append("an attempt is still running")
for k, v in d["stages"].items():
    if v["runs"] > v["cap"]:
        errors.append(f"status reports {k} {v['runs']}/{v['cap']}")
if errors:
    print("; ".join(errors), d["path"])
    sys.exit(1)
PY
done
finish
