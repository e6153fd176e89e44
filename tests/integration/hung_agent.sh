#!/bin/sh
# A hung agent that forks a grandchild: at the stage's timeout the whole
# process group is killed (TERM, then KILL) and no process is left behind.
. "$TILEPORT_TOP/tests/integration/lib/common.sh"
online_env

# A table whose stage A times out after one second.
sed 's/"cap": 1, "timeout_s": 3600, "idle_timeout_s": 900, "deferrable": true,/"cap": 1, "timeout_s": 1, "idle_timeout_s": 0, "deferrable": true,/' \
	"$TILEPORT_TOP/skill/pipeline.json" >"$T/pipeline.json"
grep -q '"timeout_s": 1,' "$T/pipeline.json" || bad "test table was not rewritten"

cat >"$T/hang.sh" <<'EOS'
#!/bin/sh
# ignores TERM, as does its grandchild; both must still die
trap '' TERM
sh -c 'trap "" TERM; echo $$ >"$TILEPORT_RUN_DIR/grandchild.pid"; while :; do sleep 1; done' &
echo $$ >"$TILEPORT_RUN_DIR/agent.pid"
echo "working"
while :; do sleep 1; done
EOS
chmod +x "$T/hang.sh"

# shellcheck disable=SC2046
"$TILEPORT" run softmax --workspace "$WS" --out "$T/out" --headless --table "$T/pipeline.json" \
	$(fake_flags) --driver "A=exec:$T/hang.sh" >"$T/log" 2>&1
rc=$?
assert_eq "run stops" "$rc" 1
assert_contains "timeout reported" "$T/log" "A1 ended: timed out after"
run="$T/out/softmax"
gone() { # the process no longer exists (or is a zombie waiting for init)
	[ ! -e "/proc/$1" ] || grep -q ') Z' "/proc/$1/stat" 2>/dev/null
}
for who in agent grandchild; do
	pid=$(cat "$run/$who.pid")
	# SIGKILL was sent before tileport exited; give the kernel a bounded
	# moment to tear the process down (an event we wait for, not a delay).
	i=0
	while ! gone "$pid" && [ $i -lt 200 ]; do
		i=$((i + 1))
		sleep 0.01
	done
	if gone "$pid"; then ok "$who $pid was killed"; else bad "$who $pid is still alive"; fi
done
# The hung attempt went through the repair retry, which also timed out.
assert_eq "path" "$("$TILEPORT" status "$run" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["path"])')" \
	"A1 -> A1(repair) -> STOP"
assert_contains "command log" "$run/.tileport/commands.log" "hang.sh"
finish
