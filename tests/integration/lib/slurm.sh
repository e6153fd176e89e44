# A one-node Slurm cluster on loopback for the batch tests (sourced after
# common.sh and batch.sh, whose wait_for it uses): munged, slurmctld and
# slurmd started here with every file under $T/slurm and ports of their
# own, and stopped by their PIDs.
# Facts: ../shared/reference/slurm.md. slurmd runs in a mount namespace
# where $SLURM_HIDDEN is an empty tmpfs: the "compute node" cannot see
# what this host keeps there, the case the probe job must catch. The main
# scheduler runs every second (sched_interval=1): a throttled array's next
# task starts within a second of a slot freeing, not the default minute.
#   slurm_start      start it; exports SLURM_CONF, SLURM_NODE
#   slurm_stop       cancel what is left, stop the daemons (trap it)

S=$T/slurm
SLURM_HIDDEN=$T/hidden
SLURM_NODE=$(hostname -s)
export SLURM_NODE

# Two free ports for slurmctld and slurmd.
slurm_ports() {
	python3 -c 'import socket
ps = []
for _ in range(2):
    s = socket.socket(); s.bind(("127.0.0.1", 0)); ps.append(s)
print(" ".join(str(s.getsockname()[1]) for s in ps))'
}

slurm_start() {
	mkdir -p "$S/state" "$S/spool" "$S/log" "$S/munge" "$SLURM_HIDDEN"
	chmod 700 "$S/munge"
	head -c 128 /dev/urandom >"$S/munge/key"
	chmod 600 "$S/munge/key"
	munged --force --socket="$S/munge/sock" --key-file="$S/munge/key" --pid-file="$S/munge/pid" \
		--seed-file="$S/munge/seed" --log-file="$S/log/munged.log" ||
		{ echo "FAIL munged did not start"; return 1; }
	set -- $(slurm_ports)
	cat >"$S/slurm.conf" <<EOF
ClusterName=tp
SlurmctldHost=$SLURM_NODE(127.0.0.1)
SlurmctldPort=$1
SlurmdPort=$2
AuthType=auth/munge
AuthInfo=socket=$S/munge/sock
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SchedulerType=sched/builtin
SchedulerParameters=sched_interval=1
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
StateSaveLocation=$S/state
SlurmdSpoolDir=$S/spool
SlurmctldPidFile=$S/ctld.pid
SlurmdPidFile=$S/d.pid
SlurmctldLogFile=$S/log/ctld.log
SlurmdLogFile=$S/log/d.log
SlurmUser=root
SlurmdUser=root
ReturnToService=2
MessageTimeout=5
NodeName=$SLURM_NODE NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
	export SLURM_CONF="$S/slurm.conf"
	slurmctld || { echo "FAIL slurmctld did not start"; return 1; }
	# the node's view: $SLURM_HIDDEN is a tmpfs of its own
	unshare --mount --propagation private sh -c \
		'mount -t tmpfs tmpfs "$1" && exec slurmd' sh "$SLURM_HIDDEN" ||
		{ echo "FAIL slurmd did not start in its mount namespace"; return 1; }
	wait_for 60 "the node became idle" 'sinfo -h -o %T 2>/dev/null | grep -q idle' ||
		{ sed 's/^/    | /' "$S/log/ctld.log" | tail -n 20; return 1; }
}

slurm_stop() {
	[ -n "${SLURM_CONF:-}" ] || return 0
	scancel --full -u "$(id -un)" 2>/dev/null
	wait_for 30 "the queue emptied" '[ -z "$(squeue -h 2>/dev/null)" ]'
	for f in "$S/d.pid" "$S/ctld.pid" "$S/munge/pid"; do
		[ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null
	done
	for f in "$S/d.pid" "$S/ctld.pid" "$S/munge/pid"; do
		[ -f "$f" ] || continue
		pid=$(cat "$f")
		wait_for 30 "$f's daemon stopped" '[ ! -e /proc/$pid ] || grep -q ") Z" /proc/$pid/stat 2>/dev/null'
	done
	unset SLURM_CONF
}
