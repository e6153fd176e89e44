#!/bin/sh
# The Slurm executor against a real one-node cluster this test starts on
# loopback (lib/slurm.sh) and stops by PID: a batch of six operators runs
# undisturbed; the same batch again, with one task cancelled mid-stage by
# scancel, one queued task cancelled by 'tileport batch cancel', and a node
# failure (scontrol ... state=down, then back), is resumed and ends like
# the undisturbed one, attempt for attempt. Then the refusals: an invalid
# partition, an unreachable controller, no sbatch, and an output root the
# node cannot see, each with its message, its exit code and no record.
. "$TILEPORT_TOP/tests/integration/lib/common.sh"
. "$TILEPORT_TOP/tests/integration/lib/batch.sh"
. "$TILEPORT_TOP/tests/integration/lib/slurm.sh"
if [ "$(id -u)" != 0 ]; then
	# (make check installs Slurm as root through mk/deps.sh; a user without
	# root can neither install it nor run a slurmd that starts jobs)
	echo "skip: the test cluster needs root: slurmd runs as root, in a mount namespace of its own"
	exit 0
fi
trap 'slurm_stop; rm -rf "$T"' EXIT
online_env
slurm_start || { bad "the test cluster did not start"; finish; exit 1; }

export XDG_CONFIG_HOME="$T/xdg"
mkdir -p "$XDG_CONFIG_HOME/tileport"
# the sbatch options of the config (time, account) and of the command line
# (--sbatch-arg) reach the jobs
printf '[slurm]\npoll = 0.2\nprobe_timeout = 60\nprobe_grace = 1\ntime = 30\naccount = tp-test\n' \
	>"$XDG_CONFIG_HOME/tileport/config"

W=$T/ws
batch_ws "$W"
OPS="g_cancel g_node n3 n4 s5 q6"
for op in $OPS; do batch_op "$W" "$op"; done
plain() { scenario "$1" "A: PASS" "B: COMPILED" "D: ALL_PASS" "E: DONE geomean=$2 format=json"; }
scen_all() { # $1: GATE for the disturbed batch, "" for the calm one
	g=${1:+$1 }
	scenario g_cancel "A: PASS" "B: ${g}COMPILED" "D: ALL_PASS" "E: DONE geomean=1.0100"
	scenario g_node "A: PASS" "B: ${g}COMPILED" "D: FAIL class=host" "D: ALL_PASS" "E: DONE geomean=0.9900"
	plain n3 1.0300
	plain n4 1.0000
	scenario s5 "A: PASS" "B: FAIL_COMPILE"
	plain q6 1.0200
}

# Undisturbed: submitted with the slurm executor (a [slurm] section makes
# it the default), followed to the end.
scen_all ""
# shellcheck disable=SC2046
"$TILEPORT" batch start $OPS --workspace "$W" --out "$T/calm" --name calm --jobs 2 --headless --wait \
	--sbatch-arg=--comment=tileport-calm $(batch_flags) >"$T/calm.log" 2>&1
assert_eq "calm batch: exit 1 (s5 stops)" "$?" 1
"$TILEPORT" batch status calm --out "$T/calm" --json >"$T/calm.json"
scontrol -o show job "$(json_get "$T/calm.json" 'd["job"]')" >"$T/calm.jobs" 2>&1
for want in "ArrayTaskThrottle=2" "TimeLimit=00:30:00" "Account=tp-test" "Comment=tileport-calm"; do
	assert_contains "the job array has $want" "$T/calm.jobs" "$want"
done
assert_eq "calm batch: executor" "$(json_get "$T/calm.json" 'd["executor"]')" slurm
assert_eq "calm batch: end states" "$(json_get "$T/calm.json" '" ".join(o["state"] for o in d["ops"])')" \
	"complete complete complete complete stopped complete"
assert_eq "calm batch: one job array, tasks on the node" \
	"$(json_get "$T/calm.json" '" ".join(sorted(set(o["job"].split("_")[0] + "@" + o["node"] for o in d["ops"])))')" \
	"$(json_get "$T/calm.json" 'd["job"]')@$SLURM_NODE"
assert_contains "the probe ran first" "$T/calm/.tileport-batch/calm/batch.json" "\"probe_node\":	\"$SLURM_NODE\""
assert_contains "start says it waits for the probe" "$T/calm.log" "for it to write a marker in $T/calm/.tileport-batch/calm"
assert_contains "and what it found" "$T/calm.log" "ran on $SLURM_NODE and its marker arrived: the output root is shared"

# Disturbed: the two gated tasks run first (two at a time) and wait in B.
rm -f "$BATCH_SCEN"/*.entered "$BATCH_SCEN"/*.release
scen_all GATE
# shellcheck disable=SC2046
"$TILEPORT" batch start $OPS --workspace "$W" --out "$T/rough" --name rough --jobs 2 --headless \
	$(batch_flags) >"$T/rough.log" 2>&1
assert_eq "rough batch submitted" "$?" 0
wait_for 120 "both gated tasks reached stage B" \
	'[ -e "$BATCH_SCEN/g_cancel.entered" ] && [ -e "$BATCH_SCEN/g_node.entered" ]'
job_of() { "$TILEPORT" batch status rough --out "$T/rough" --json >"$T/r.json" && op_field "$T/r.json" "$1" job; }
# q6 is still queued behind them: tileport cancels it.
"$TILEPORT" batch cancel rough q6 --out "$T/rough" >"$T/cancel.log" 2>&1
assert_eq "batch cancel of a queued task" "$?" 0
# g_cancel is cancelled under tileport's feet.
scancel "$(job_of g_cancel)"
wait_for 60 "the cancelled task's run saved and stopped" '[ "$(run_state "$T/rough/g_cancel")" = aborted ]'
wait_for 60 "Slurm says it was cancelled" '[ "$(job_of g_cancel >/dev/null; op_field "$T/r.json" g_cancel state)" = cancelled ]'
# The node fails under g_node, and comes back.
scontrol update nodename="$SLURM_NODE" state=down reason=tileport-test
wait_for 60 "the node failure ended g_node's task" \
	'job_of g_node >/dev/null; [ "$(op_field "$T/r.json" g_node state)" = interrupted ]'
assert_contains "why: the node failed" "$T/r.json" "NODE_FAIL"
touch "$BATCH_SCEN/g_cancel.release" "$BATCH_SCEN/g_node.release"
scontrol update nodename="$SLURM_NODE" state=resume 2>/dev/null # ReturnToService may have done it
wait_for 60 "the node is back" '! sinfo -h -o %T | grep -q down'
wait_for 180 "the rest of the array ran" \
	'"$TILEPORT" batch status rough --out "$T/rough" --json >"$T/r.json" && [ "$(json_get "$T/r.json" "d[\"going\"]")" = False ]'
# (n3 or n4 may have been on the node when it failed, too: interrupted, or
# failed when its run had not begun)
unfinished=$(json_get "$T/r.json" '" ".join(o["op"] for o in d["ops"] if o["state"] in ("cancelled", "interrupted", "failed"))')
if python3 -c 'import sys; sys.exit(not {"g_cancel", "g_node", "q6"} <= set(sys.argv[1].split()))' "$unfinished"; then
	ok "before resume: g_cancel, g_node and q6 ended without a verdict"
else
	bad "before resume: ended without a verdict: '$unfinished'"
fi
starts=$(json_get "$T/r.json" '" ".join(o["op"] + ":" + str(1 + (o["state"] not in ("complete", "stopped"))) for o in d["ops"])')
# Resume submits only those; s5 stopped on its verdict and stays stopped.
"$TILEPORT" batch resume rough --out "$T/rough" --headless --wait >"$T/resume.log" 2>&1
assert_eq "resume: exit 1 (s5 stops)" "$?" 1
"$TILEPORT" batch status rough --out "$T/rough" --json >"$T/rough.json"
assert_eq "after resume: the calm batch's end states" \
	"$(json_get "$T/rough.json" '" ".join(o["state"] for o in d["ops"])')" \
	"$(json_get "$T/calm.json" '" ".join(o["state"] for o in d["ops"])')"
assert_eq "submitted again: only what ended without a verdict" \
	"$(json_get "$T/rough.json" '" ".join(o["op"] + ":" + str(o["starts"]) for o in d["ops"])')" "$starts"
# shellcheck disable=SC2086
same_runs "$T/rough" "$T/calm" $OPS
"$TILEPORT" batch report rough --out "$T/rough" >"$T/report.txt"
assert_contains "report totals (the scripted agents' runs complete, not accepted)" "$T/report.txt" \
	"0 of 6 operators converted (5 complete but not accepted, 1 stopped); no geomean"

# Refusals: a clear message, exit 2 or 3, and no batch record.
no_record() { [ ! -e "$T/bad/.tileport-batch/$1" ] && ok "$1: no record" || bad "$1: a record was left"; }
# shellcheck disable=SC2046
"$TILEPORT" batch start n3 --workspace "$W" --out "$T/bad" --name part --partition nosuch $(batch_flags) >"$T/part.log" 2>&1
assert_eq "invalid partition: exit 2" "$?" 2
assert_contains "invalid partition: sbatch's words" "$T/part.log" "sbatch refused the probe job: sbatch: error: invalid partition specified: nosuch"
no_record part
# gres is asked of the array only (the probe needs no GPU): a refusal after
# the probe passed leaves no record either
# shellcheck disable=SC2046
"$TILEPORT" batch start n3 --workspace "$W" --out "$T/bad" --name gres --gres gpu:1 $(batch_flags) >"$T/gres.log" 2>&1
assert_eq "a gres the cluster lacks: exit 2" "$?" 2
assert_contains "a gres the cluster lacks: sbatch's words" "$T/gres.log" "sbatch refused the job array: sbatch: error: Invalid generic resource"
no_record gres
sed 's/^SlurmctldPort=.*/SlurmctldPort=1/; s/^MessageTimeout=.*/MessageTimeout=1/' "$SLURM_CONF" >"$T/down.conf"
# shellcheck disable=SC2046
SLURM_CONF="$T/down.conf" "$TILEPORT" batch start n3 --workspace "$W" --out "$T/bad" --name down $(batch_flags) >"$T/down.log" 2>&1
assert_eq "unreachable controller: exit 3" "$?" 3
assert_contains "unreachable controller: said so" "$T/down.log" "Unable to contact slurm controller"
no_record down
mkdir -p "$T/nobin"
# shellcheck disable=SC2046
PATH="$T/nobin" "$TILEPORT" batch start n3 --workspace "$W" --out "$T/bad" --name nobin --executor slurm $(batch_flags) >"$T/nobin.log" 2>&1
assert_eq "no sbatch: exit 3" "$?" 3
assert_contains "no sbatch: said so" "$T/nobin.log" "sbatch is not on PATH"
no_record nobin
mkdir -p "$SLURM_HIDDEN/out"
# shellcheck disable=SC2046
"$TILEPORT" batch start n3 --workspace "$W" --out "$SLURM_HIDDEN/out" --name hidden $(batch_flags) >"$T/hidden.log" 2>&1
assert_eq "output root the node cannot see: exit 3" "$?" 3
assert_contains "the probe says so" "$T/hidden.log" "the compute nodes do not see the output root $SLURM_HIDDEN/out"
[ ! -e "$SLURM_HIDDEN/out/.tileport-batch/hidden" ] && ok "hidden: no record" || bad "hidden: a record was left"
finish
