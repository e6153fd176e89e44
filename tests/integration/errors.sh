#!/bin/sh
# Bad input is refused with a clear message, the documented exit code, and
# nothing written: a malformed table, an unreadable workspace, a missing op;
# a missing driver is an environment error (3); a second orchestrator on the
# same run is refused.
. "$TILEPORT_TOP/tests/integration/lib/common.sh"
online_env

expect_refusal() { # DESC WANT_RC WANT_TEXT -- ARGS...
	desc=$1 want=$2 text=$3
	shift 4
	rm -rf "$T/out"
	"$TILEPORT" "$@" >"$T/err.log" 2>&1
	assert_eq "$desc: exit" "$?" "$want"
	assert_contains "$desc: message" "$T/err.log" "$text"
	if [ -e "$T/out" ]; then bad "$desc: wrote $T/out"; else ok "$desc: nothing written"; fi
}

# shellcheck disable=SC2046
set -- $(fake_flags)
flags="$*"

printf '{\n  "schema": 1,\n  "stages": [\n    {"letter": "A",,}\n  ]\n}\n' >"$T/bad.json"
# shellcheck disable=SC2086
expect_refusal "malformed table" 2 "$T/bad.json:4:" -- run softmax --workspace "$WS" --out "$T/out" --headless --table "$T/bad.json" $flags
sed 's/"spawn B"/"spawn Q"/' "$TILEPORT_TOP/skill/pipeline.json" >"$T/bad2.json"
# shellcheck disable=SC2086
expect_refusal "unknown spawn target" 2 "$T/bad2.json:107: spawn of unknown stage Q" -- run softmax --workspace "$WS" --out "$T/out" --headless --table "$T/bad2.json" $flags
"$TILEPORT" table "$T/bad2.json" >"$T/t.log" 2>&1
assert_eq "tileport table on a bad table" "$?" 2

# shellcheck disable=SC2086
expect_refusal "missing workspace" 2 "workspace $T/nowhere: cannot read it" -- run softmax --workspace "$T/nowhere" --out "$T/out" --headless $flags
touch "$T/afile"
# shellcheck disable=SC2086
expect_refusal "workspace is a file" 2 "workspace $T/afile: cannot read it" -- run softmax --workspace "$T/afile" --out "$T/out" --headless $flags
# shellcheck disable=SC2086
expect_refusal "missing op" 2 "operator 'nosuchop' not found in workspace" -- run nosuchop --workspace "$WS" --out "$T/out" --headless $flags
# shellcheck disable=SC2086
expect_refusal "bad op name" 2 "'../etc' is not an operator name" -- run ../etc --workspace "$WS" --out "$T/out" --headless $flags
expect_refusal "no driver" 3 "no driver for stages A, B, C, D, E" -- run softmax --workspace "$WS" --out "$T/out" --headless
expect_refusal "unknown driver kind" 2 "unknown driver kind 'llm'" -- run softmax --workspace "$WS" --out "$T/out" --headless --driver A=llm:gpt
expect_refusal "bad --driver" 2 "--driver expects X=VALUE" -- run softmax --workspace "$WS" --headless --driver nonsense
offline_env
# an operator the built-in mech driver refuses, so nothing takes A, B and D
cp -R "$WS" "$T/wsl"
cp "$TILEPORT_TOP/tests/fixtures/port/unsupported/while_loop.py" "$T/wsl/src/tilegym/ops/cutile/looped.py"
expect_refusal "offline needs only A, B, D drivers" 3 "no driver for stages A, B, D" -- run looped --workspace "$T/wsl" --out "$T/out" --headless
online_env
mkdir -p "$T/ro" && chmod 555 "$T/ro"
if [ "$(id -u)" != 0 ]; then
	# shellcheck disable=SC2086
	expect_refusal "unwritable out root" 3 "cannot run even offline" -- run softmax --workspace "$WS" --out "$T/ro/out" --headless $flags
fi

# A second orchestrator on the same run is refused while the first holds it.
printf 'A: PASS\n' >"$T/scen"
mkfifo "$T/gate" "$T/ready"
cat >"$T/slow.sh" <<'EOS'
#!/bin/sh
echo started >"$READY"    # blocks until the test reads: the run holds its lock now
cat "$GATE" >/dev/null   # blocks until the test opens the fifo for writing
exec "$FAKE_AGENT"
EOS
chmod +x "$T/slow.sh"
# shellcheck disable=SC2086
READY="$T/ready" GATE="$T/gate" FAKE_AGENT="$FAKE" FAKE_SCENARIO="$T/scen" "$TILEPORT" run softmax --workspace "$WS" \
	--out "$T/busy" --headless $flags --driver "A=exec:$T/slow.sh" >"$T/first.log" 2>&1 &
first=$!
# the agent's first words: from here on the first run holds the lock (the
# timeout only turns a run that died before its agent spoke into a failure)
word=$(timeout 60 head -n 1 "$T/ready")
assert_eq "the first run's agent is running" "$word" started
"$TILEPORT" resume "$T/busy/softmax" >"$T/second.log" 2>&1
assert_eq "second orchestrator refused" "$?" 3
assert_contains "names the holder" "$T/second.log" "is in use by another tileport (pid $first)"
"$TILEPORT" status "$T/busy/softmax" >"$T/st.log" 2>&1
assert_contains "status works while running" "$T/st.log" "state      running"
: >"$T/gate" # release the agent
wait "$first"
assert_eq "first run finishes" "$?" 1

# a damaged run is listed as unreadable, not dropped
mkdir -p "$T/busy/broken/.tileport"
echo '{"schema": 1, "op": ' >"$T/busy/broken/.tileport/state.json"
"$TILEPORT" runs --out "$T/busy" >"$T/runs.log" 2>&1
assert_contains "runs lists the healthy run" "$T/runs.log" "softmax"
assert_contains "runs lists the damaged one" "$T/runs.log" "unreadable"
assert_contains "with the reason" "$T/runs.log" "not a tileport state file"
"$TILEPORT" status "$T/busy/broken" >"$T/s.log" 2>&1
assert_eq "status of a damaged run" "$?" 2
"$TILEPORT" status "$T/nothing" >"$T/s.log" 2>&1
assert_eq "status of a missing run" "$?" 2
"$TILEPORT" frobnicate >"$T/u.log" 2>&1
assert_eq "unknown command" "$?" 2
"$TILEPORT" run >"$T/u.log" 2>&1
assert_eq "run without op" "$?" 2
"$TILEPORT" run --help >"$T/h.log" 2>&1
assert_eq "run --help" "$?" 0
assert_contains "help text" "$T/h.log" "usage: tileport run OP"
# a typo in a config file is an error naming the file and line
mkdir -p "$T/xdg/tileport"
printf 'theme = light\ndrivr.A = exec:x\n' >"$T/xdg/tileport/config"
XDG_CONFIG_HOME="$T/xdg" "$TILEPORT" run softmax --workspace "$WS" --out "$T/out" --headless >"$T/cfg.log" 2>&1
assert_eq "config typo: exit" "$?" 2
assert_contains "config typo: where and what" "$T/cfg.log" "$T/xdg/tileport/config:2: unknown setting 'drivr.A'"
printf 'bnd pipeline r respawn\n' >"$T/xdg/tileport/config"
XDG_CONFIG_HOME="$T/xdg" "$TILEPORT" preflight --workspace "$WS" >"$T/cfg.log" 2>&1
assert_eq "config directive typo: exit" "$?" 2
assert_contains "config directive typo" "$T/cfg.log" "config:1: expected 'key = value' or 'bind KEYMAP KEY ACTION'"
rm -rf "$T/xdg"

# every command listed by --help has its own --help (exit 0, a usage line)
for c in $("$TILEPORT" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }'); do
	"$TILEPORT" "$c" --help >"$T/h.log" 2>&1
	rc=$?
	if [ "$rc" -eq 0 ] && grep -q "usage: tileport $c" "$T/h.log"; then ok "$c --help"; else bad "$c --help: exit $rc"; fi
done
"$TILEPORT" --version | grep -q '^tileport [0-9]' && ok "--version" || bad "--version"
finish
