#!/bin/sh
# A process that left the stage's group (setsid) dies with the stage when
# tileport itself is stopped (SIGTERM), not only at a stage's end: it had
# re-parented to tileport, the child subreaper (docs/reliability.md,
# "Processes").
. "$TILEPORT_TOP/tests/integration/lib/common.sh"
online_env

cat >"$T/escape.sh" <<'EOS'
#!/bin/sh
setsid sh -c 'echo $$ >"$TILEPORT_RUN_DIR/escaped.pid.tmp"; mv "$TILEPORT_RUN_DIR/escaped.pid.tmp" "$TILEPORT_RUN_DIR/escaped.pid"; exec sleep 1000' &
exec sleep 1000
EOS
chmod +x "$T/escape.sh"

# shellcheck disable=SC2046
"$TILEPORT" run softmax --workspace "$WS" --out "$T/out" --headless $(fake_flags) \
	--driver "A=exec:$T/escape.sh" >"$T/log" 2>&1 &
tp=$!
run="$T/out/softmax"
# wait for the escapee to say it is there (bounded: the event, not a delay)
i=0
while [ ! -s "$run/escaped.pid" ] && [ $i -lt 3000 ]; do
	i=$((i + 1))
	sleep 0.01
done
pid=$(cat "$run/escaped.pid" 2>/dev/null)
[ -n "$pid" ] || bad "the escapee never started"
if [ -n "$pid" ] && [ "$(sed 's/.*) . [0-9]* \([0-9]*\) .*/\1/' "/proc/$pid/stat")" = "$pid" ]; then
	ok "the escapee left the stage's group"
else
	bad "the escapee is still in the stage's group"
fi
kill -TERM "$tp"
wait "$tp"
assert_eq "tileport stopped by SIGTERM says the run is interrupted" "$?" 1
gone() { # the process no longer exists (or is a zombie waiting for init)
	[ ! -e "/proc/$1" ] || grep -q ') Z' "/proc/$1/stat" 2>/dev/null
}
i=0
while [ -n "$pid" ] && ! gone "$pid" && [ $i -lt 200 ]; do
	i=$((i + 1))
	sleep 0.01
done
if [ -n "$pid" ] && gone "$pid"; then
	ok "the escapee $pid died with tileport"
else
	bad "the escapee $pid outlived tileport"
	[ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null
fi
# kill -9 of tileport itself: the stage (its leader, the agent, and a
# child it left in the background) must not outlive its orchestrator
# (issue 26). No subreaper to catch them here: the stage's group dies
# because its leader is told of tileport's death.
cat >"$T/stay.sh" <<'EOS'
#!/bin/sh
sleep 1000 &
echo "$$ $!" >"$TILEPORT_RUN_DIR/stay.pids.tmp"; mv "$TILEPORT_RUN_DIR/stay.pids.tmp" "$TILEPORT_RUN_DIR/stay.pids"
wait
EOS
chmod +x "$T/stay.sh"
# shellcheck disable=SC2046
"$TILEPORT" run softmax --workspace "$WS" --out "$T/k9" --headless $(fake_flags) \
	--driver "A=exec:$T/stay.sh" >"$T/k9.log" 2>&1 &
tp=$!
timeout 60 tail -F -n +1 "$T/k9/softmax/stay.pids" 2>/dev/null | grep -q -m 1 . || bad "the stage never started"
kill -KILL "$tp"
wait "$tp" 2>/dev/null
# dies PID: gone within 30 s (a pidfd: the event, not a delay)
dies() {
	python3 -c 'import os, select, sys
try:
    fd = os.pidfd_open(int(sys.argv[1]))
except ProcessLookupError:
    sys.exit(0)
sys.exit(0 if select.select([fd], [], [], 30)[0] else 1)' "$1"
}
for pid in $(cat "$T/k9/softmax/stay.pids"); do
	if dies "$pid"; then ok "kill -9 of tileport: stage process $pid died with it"; else
		bad "kill -9 of tileport: stage process $pid outlived it"
		kill -KILL "$pid" 2>/dev/null
	fi
done
finish
