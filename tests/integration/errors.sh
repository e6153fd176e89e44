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
expect_refusal "unknown spawn target" 2 "$T/bad2.json:113: spawn of unknown stage Q" -- run softmax --workspace "$WS" --out "$T/out" --headless --table "$T/bad2.json" $flags
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
# shellcheck disable=SC2086
expect_refusal "a stage letter the table lacks" 2 "a driver for stage Z, which the table" -- run softmax --workspace "$WS" \
	--out "$T/out" --headless $flags --driver Z=exec:true
# shellcheck disable=SC2086
expect_refusal "a validator for no stage" 2 "a validator for stage Q, which the table" -- run softmax --workspace "$WS" \
	--out "$T/out" --headless $flags --validator Q=true

# A relative driver command is the shell's, as typed: found from the
# directory tileport was started in, though stages run in the workspace.
mkdir -p "$T/here"
printf '#!/bin/sh\nexec "%s"\n' "$FAKE" >"$T/here/agent.sh"
chmod +x "$T/here/agent.sh"
printf 'A: PASS\nB: COMPILED\nD: ALL_PASS\nE: DONE\n' >"$T/rel.scen"
# shellcheck disable=SC2086
(cd "$T/here" && FAKE_SCENARIO="$T/rel.scen" "$TILEPORT" run softmax --workspace "$WS" --out "$T/rel" --headless \
	$flags --driver A=exec:./agent.sh >"$T/rel.log" 2>&1)
assert_eq "relative driver: resolved" "$(json_get "$T/rel/softmax/.tileport/state.json" 'd["drivers"]["A"]')" \
	"exec:$T/here/agent.sh"
assert_contains "relative driver: A ran" "$T/rel.log" "A1 returned PASS"
# A command that cannot start stops the run at once, saying why: no repair
# retry for it, its stderr in the event, the status and the state.
# shellcheck disable=SC2086
(cd "$T/here" && "$TILEPORT" run softmax --workspace "$WS" --out "$T/nf" --headless $flags \
	--driver A=exec:./nosuch.sh >"$T/nf.log" 2>&1)
assert_eq "command not found: exit" "$?" 1
assert_contains "command not found: stderr in the event" "$T/nf.log" "A1 ended: exit 127; stderr: "
assert_contains "command not found: the run stops" "$T/nf.log" \
	"STOP: A1's driver command could not start (exit 127: command not found): /bin/sh: 1: ./nosuch.sh: not found"
"$TILEPORT" status "$T/nf/softmax" --json >"$T/nf.json"
assert_eq "command not found: no repair retry" "$(json_get "$T/nf.json" 'd["path"]')" "A1 -> STOP"
assert_contains "command not found: the tail is kept" "$T/nf.json" '"stderr_tail":	"/bin/sh: 1: ./nosuch.sh: not found"'
# Any other failing exit keeps the repair retry; the stderr tail still shows.
printf '#!/bin/sh\necho "warming up" >&2\necho "error: quota exceeded for model x" >&2\nexit 3\n' >"$T/here/quota.sh"
chmod +x "$T/here/quota.sh"
# shellcheck disable=SC2086
(cd "$T/here" && "$TILEPORT" run softmax --workspace "$WS" --out "$T/q" --headless $flags \
	--driver A=exec:./quota.sh >"$T/q.log" 2>&1)
assert_contains "failing agent: its last stderr line in the event" "$T/q.log" \
	"A1 ended: exit 3; stderr: error: quota exceeded for model x"
assert_contains "failing agent: the repair retry is still spent" "$T/q.log" "A1 started as repair retry"
# online, mech takes nothing and no agent is usable: no run, the stages
# named (offline, mech runs and says why it refuses: first_run.sh)
cp -R "$WS" "$T/wsl"
cp "$TILEPORT_TOP/tests/fixtures/port/unsupported/while_loop.py" "$T/wsl/src/tilegym/ops/cutile/looped.py"
keep_path=$PATH
PATH="$T/bin:/usr/bin:/bin"
expect_refusal "online, no usable driver" 3 "no driver for stages A, B, C, D, E" -- run looped --workspace "$T/wsl" --out "$T/out" --headless
PATH=$keep_path
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
# (runs and status read the same config as run, and refuse it the same)
for cmd in "run softmax --workspace $WS --out $T/out --headless" "runs --out $T/out" "status softmax --out $T/out"; do
	# shellcheck disable=SC2086
	XDG_CONFIG_HOME="$T/xdg" "$TILEPORT" $cmd >"$T/cfg.log" 2>&1
	assert_eq "config typo: ${cmd%% *}: exit" "$?" 2
	assert_contains "config typo: ${cmd%% *}: where and what" "$T/cfg.log" \
		"$T/xdg/tileport/config:2: unknown setting 'drivr.A'"
done
printf 'bnd pipeline r respawn\n' >"$T/xdg/tileport/config"
XDG_CONFIG_HOME="$T/xdg" "$TILEPORT" preflight --workspace "$WS" >"$T/cfg.log" 2>&1
assert_eq "config directive typo: exit" "$?" 2
assert_contains "config directive typo" "$T/cfg.log" "config:1: expected 'key = value' or 'bind KEYMAP KEY ACTION'"
# a theme that does not exist is refused where it is written, by every
# command (runs reads no theme, and refuses it all the same)
printf '[tui]\ntheme = nosuch\n' >"$T/xdg/tileport/config"
for cmd in runs "run softmax --workspace $WS --out $T/out --headless"; do
	# shellcheck disable=SC2086
	XDG_CONFIG_HOME="$T/xdg" "$TILEPORT" $cmd >"$T/cfg.log" 2>&1
	assert_eq "unknown theme: $cmd: exit" "$?" 2
	assert_contains "unknown theme: $cmd: file and line" "$T/cfg.log" \
		"$T/xdg/tileport/config:2: theme 'nosuch' not found"
done
rm -rf "$T/xdg"
# A second run of an op: refused, saying how to keep both; --fresh moves the
# old run aside (OP.1, then OP.2), whole, and starts a new one.
printf 'A: BLOCKED\nA: BLOCKED\nA: BLOCKED\n' >"$T/fr.scen"
# shellcheck disable=SC2086
FAKE_SCENARIO="$T/fr.scen" "$TILEPORT" run softmax --workspace "$WS" --out "$T/fr" --headless $flags >/dev/null 2>&1
# shellcheck disable=SC2086
FAKE_SCENARIO="$T/fr.scen" "$TILEPORT" run softmax --workspace "$WS" --out "$T/fr" --headless $flags >"$T/fr.log" 2>&1
assert_eq "run again: refused" "$?" 2
assert_contains "run again: says how to start afresh" "$T/fr.log" "or start another with 'tileport run softmax --fresh'"
cp "$T/fr/softmax/.tileport/state.json" "$T/fr.first"
for n in 1 2; do
	# shellcheck disable=SC2086
	FAKE_SCENARIO="$T/fr.scen" "$TILEPORT" run softmax --workspace "$WS" --out "$T/fr" --headless --fresh $flags \
		>"$T/fr$n.log" 2>&1
	assert_eq "--fresh $n: a new run" "$?" 1
	assert_contains "--fresh $n: says where the old one went" "$T/fr$n.log" "the previous run is now $T/fr/softmax.$n"
done
cmp -s "$T/fr.first" "$T/fr/softmax.1/.tileport/state.json" && ok "--fresh: the first run kept whole" ||
	bad "--fresh: the first run's state changed"
"$TILEPORT" runs --out "$T/fr" >"$T/fr.runs"
assert_eq "--fresh: runs lists all three" "$(grep -c '^softmax ' "$T/fr.runs")" 3
"$TILEPORT" resume softmax --fresh --out "$T/fr" >"$T/fr.log" 2>&1
assert_eq "--fresh is run's" "$?" 2

# without a terminal, the screen's commands say what shows the same as text
"$TILEPORT" browse --out "$T/out" </dev/null >"$T/nt.log" 2>&1
assert_eq "browse without a terminal: exit" "$?" 3
assert_contains "browse without a terminal: what to use" "$T/nt.log" \
	"the screen needs a terminal on stdin and stdout: 'tileport runs' lists them"
grep -q -- "--headless" "$T/nt.log" && bad "browse suggests --headless, which it does not have" ||
	ok "browse suggests no option it lacks"
V=$TILEPORT_TOP/tests/fixtures/perf/view
"$TILEPORT" perf --tui "$V/baseline_perf_cutile.txt" "$V/perf_cutile_rs.txt" </dev/null >"$T/ntp.log" 2>&1
assert_eq "perf --tui without a terminal: exit" "$?" 3
assert_contains "perf --tui without a terminal: what to use" "$T/ntp.log" \
	"without --tui the command prints the table"

# preflight says, for every missing item, what it needs and where it comes
# from, in one flat sentence
(offline_env; unset TILEGYM_PATH; cd "$T" && "$TILEPORT" preflight) >"$T/pf.log" 2>&1
assert_eq "preflight with things missing: exit" "$?" 3
for item in TILEGYM_PATH TILEIRAS_BIN CUDA_TILE_OPT_BIN TRITON_TILEIR_PYTHONPATH CUDA_TOOLKIT_PATH GPU; do
	grep -q "^missing  $item .*; needs [^:]*: [a-z]" "$T/pf.log" && ok "preflight: $item says where it comes from" ||
		bad "preflight: no hint for $item: $(grep "$item" "$T/pf.log")"
done
assert_contains "preflight: the toolkit's tileiras" "$T/pf.log" "tileiras, the Tile IR compiler of the CUDA Toolkit"
grep -q "((\|) (" "$T/pf.log" && bad "preflight nests parentheses: $(grep "((\|) (" "$T/pf.log")" ||
	ok "preflight: no nested parentheses"
(offline_env; unset TILEGYM_PATH; cd "$T" && "$TILEPORT" preflight --json) >"$T/pf.json" 2>&1
assert_eq "preflight --json: where from" "$(json_get "$T/pf.json" '[i["from"] for i in d["items"] if i["name"] == "cargo"][0]')" \
	"Rust (1.89 or newer, stable) from rustup.rs"

# every command listed by --help has its own --help (exit 0, a usage line)
for c in $("$TILEPORT" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }'); do
	"$TILEPORT" "$c" --help >"$T/h.log" 2>&1
	rc=$?
	if [ "$rc" -eq 0 ] && grep -q "usage: tileport $c" "$T/h.log"; then ok "$c --help"; else bad "$c --help: exit $rc"; fi
done
"$TILEPORT" --version | grep -q '^tileport [0-9]' && ok "--version" || bad "--version"
# an unknown option: one message in one spelling for every command (getopt's
# own line is never printed beside it), and the pointer to its --help
for c in $(sed -n 's/^CMD(\([a-z]*\),.*/\1/p' "$TILEPORT_TOP/cli/commands.def"); do
	case $c in batch | help | ir) continue ;; esac # the word after them is a subcommand
	"$TILEPORT" "$c" --bogus-opt </dev/null >/dev/null 2>"$T/u.log"
	rc=$?
	want=2
	[ "$c" = irdiff ] && want=4 # diff_ir.sh's code for bad usage
	if [ "$rc" -eq "$want" ] && [ "$(head -n 1 "$T/u.log")" = "tileport $c: unknown option '--bogus-opt'" ] &&
		[ "$(sed -n 2p "$T/u.log")" = "(see 'tileport $c --help')" ]; then
		ok "$c --bogus-opt"
	else
		bad "$c --bogus-opt: exit $rc: $(cat "$T/u.log")"
	fi
done
"$TILEPORT" --bogus-opt 2>"$T/u.log"
assert_eq "tileport --bogus-opt" "$(head -n 1 "$T/u.log")" "tileport: unknown option '--bogus-opt'"
finish
