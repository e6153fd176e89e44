#!/bin/sh
# Smoke test of the real program in a real terminal (tmux): the screen
# draws, keys move and open views, a terminal resize re-lays it out; then
# SIGTERM (and, in a second pane, SIGSEGV) must leave the terminal as it was:
# alternate screen left, cursor visible, echo and icanon back on, and the
# process dead of the signal it got. Waits poll the pane (bounded).
. "$TILEPORT_TOP/tests/screen/lib/screen.sh"
unset TILEPORT_NO_DISPLAY
command -v tmux >/dev/null || { echo "tmux is not installed"; exit 1; }

sock="$T/tmux.sock"
tm() { tmux -S "$sock" "$@"; }
cleanup() { tm kill-server 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT

# wait_for DESC TEXT: poll the pane until TEXT shows (10 s at most).
wait_for() {
	i=0
	while [ $i -lt 400 ]; do
		if tm capture-pane -p -t "$pane" >"$T/pane.txt" 2>/dev/null && grep -qF -- "$2" "$T/pane.txt"; then
			echo "ok   $1"
			return 0
		fi
		i=$((i + 1))
		sleep 0.025
	done
	echo "FAIL $1: '$2' never appeared; the pane shows:"
	sed 's/^/    | /' "$T/pane.txt"
	failures=$((failures + 1))
	return 1
}

check_format() { # DESC FORMAT WANT
	got=$(tm display -p -t "$pane" "$2")
	if [ "$got" = "$3" ]; then echo "ok   $1"; else
		echo "FAIL $1: $2 is '$got', want '$3'"
		failures=$((failures + 1))
	fi
}

# start NAME: a pane running tileport; then the shell prints the exit status
# and the terminal modes, and waits (a dead pane would not report its cursor).
start() {
	cat >"$T/$1.sh" <<EOS
cd "$T"
"$TILEPORT" open --read-only out/softmax
echo "rc=\$?"
stty -a
echo END-OF-TEST
read -r keep_the_pane_alive
EOS
	tm new-session -d -s "$1" -x 80 -y 24 "sh $T/$1.sh"
	pane="$1:0.0"
}

tileport_pid() {
	shpid=$(tm display -p -t "$pane" '#{pane_pid}')
	pgrep -P "$shpid" -x tileport | head -n 1
}

start main
wait_for "pipeline view drawn" "[pipeline] softmax - complete [read-only]"
check_format "alternate screen in use" '#{alternate_on}' 1
tm send-keys -t "$pane" k
wait_for "k moved the cursor" "line 4/30"
tm send-keys -t "$pane" Enter
wait_for "Enter opened the stage view" "[stage] 06-D2"
tm send-keys -t "$pane" h
wait_for "h opened help" "[help] key bindings"
tm send-keys -t "$pane" q q
wait_for "q went back to the pipeline" "[pipeline] softmax"
tm resize-window -t main -x 120 -y 30
wait_for "resize laid the screen out again" "TOKENS IN/OUT"
pid=$(tileport_pid)
if [ -z "$pid" ]; then
	echo "FAIL no tileport process in the pane"
	failures=$((failures + 1))
else
	kill -TERM "$pid"
	wait_for "SIGTERM: the program ended" "END-OF-TEST"
	expect "SIGTERM: died of the signal (re-raised)" "$T/pane.txt" "rc=143"
	check_format "SIGTERM: alternate screen left" '#{alternate_on}' 0
	check_format "SIGTERM: cursor visible" '#{cursor_flag}' 1
	if grep -qE '(^| )-(echo|icanon)( |$)' "$T/pane.txt"; then
		echo "FAIL SIGTERM: echo/icanon still off"
		failures=$((failures + 1))
	else
		expect "SIGTERM: echo and icanon back" "$T/pane.txt" " icanon"
	fi
fi

# A fatal signal: restored from the handler, then the signal goes on.
start crash
wait_for "second pane drawn" "[pipeline] softmax"
pid=$(tileport_pid)
[ -n "$pid" ] && kill -SEGV "$pid"
wait_for "SIGSEGV: the program ended" "END-OF-TEST"
check_format "SIGSEGV: alternate screen left" '#{alternate_on}' 0
check_format "SIGSEGV: cursor visible" '#{cursor_flag}' 1
if grep -qE '(^| )-(echo|icanon)( |$)' "$T/pane.txt"; then
	echo "FAIL SIGSEGV: echo/icanon still off"
	failures=$((failures + 1))
else
	echo "ok   SIGSEGV: echo and icanon back"
fi
if grep -q "rc=0" "$T/pane.txt"; then
	echo "FAIL SIGSEGV: exit status 0"
	failures=$((failures + 1))
fi
finish
