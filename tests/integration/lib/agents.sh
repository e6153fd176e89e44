# Helpers for the agent-driver tests (sourced after common.sh): the scripted
# LLM server on 127.0.0.1, the real claude/codex CLIs, a private user
# config, and the check that no key reached any file.
KEY="sk-tileport-test-key-0123456789abcdef"
SERVER=$TILEPORT_TOP/tests/integration/lib/llm_server.py
export XDG_CONFIG_HOME="$T/xdg" HOME="$T/home"
mkdir -p "$XDG_CONFIG_HOME/tileport" "$HOME"
: >"$XDG_CONFIG_HOME/tileport/config"
# Backoff waits are recorded, not waited for.
export TILEPORT_TEST_BACKOFF=0

need_clis() {
	for c in claude codex; do
		if [ ! -x "${TILEPORT_AGENT_CLIS:-}/$c" ]; then
			bad "$c is not installed in ${TILEPORT_AGENT_CLIS:-build/agent-clis} (mk/agent-clis.sh)"
			finish
			exit 1
		fi
	done
	export PATH="$TILEPORT_AGENT_CLIS:$PATH"
}

# The user config: config KEY = VALUE ...
config() {
	printf '%s\n' "$@" >"$XDG_CONFIG_HOME/tileport/config"
}

# start_server NAME: serve $T/NAME.json; sets PORT, SPID; report in $T/NAME.report.
start_server() {
	rm -f "$T/$1.fifo" "$T/$1.report" "$T/$1.requests"
	mkfifo "$T/$1.fifo"
	python3 "$SERVER" "$T/$1.json" --port-fifo "$T/$1.fifo" --report "$T/$1.report" \
		--log "$T/$1.requests" --timeout 240 &
	SPID=$!
	read -r PORT <"$T/$1.fifo"
	[ "${PORT:-0}" != 0 ] || bad "$1: the server did not start: $(cat "$T/$1.report")"
}

# stop_server NAME: the server's own checks must all have held.
stop_server() {
	kill "$SPID" 2>/dev/null
	wait "$SPID" 2>/dev/null
	if [ -s "$T/$1.report" ]; then
		bad "$1: the server's checks failed:"
		sed 's/^/    | /' "$T/$1.report"
	else
		ok "$1: the server's checks held (key in a header only, results answer calls)"
	fi
}

# no_key PLACE...: the test key is in no file under PLACE.
no_key() {
	if grep -rlF -- "$KEY" "$@" >"$T/leaks" 2>/dev/null; then
		bad "the key reached: $(tr '\n' ' ' <"$T/leaks")"
	else
		ok "no file holds the key ($*)"
	fi
}

# count RECORD-TYPE FILE: transcript records of a type
count() {
	python3 -c 'import json,sys
n=0
for l in open(sys.argv[2]):
    try: d=json.loads(l)
    except ValueError: continue
    n+=d.get("type")==sys.argv[1]
print(n)' "$1" "$2"
}

# A run directory to point `tileport agent` at: A is done by the fake agent
# and the run stops there (BLOCKED).
make_run() { # NAME
	echo "A: BLOCKED" >"$T/$1.scen"
	# shellcheck disable=SC2046
	FAKE_SCENARIO="$T/$1.scen" "$TILEPORT" run softmax --workspace "$WS" --out "$T/$1" --headless \
		$(fake_flags) >"$T/$1.mk.log" 2>&1
	RUN=$T/$1/softmax
	[ -f "$RUN/.tileport/state.json" ] || bad "make_run $1: no run ($(tail -n 3 "$T/$1.mk.log"))"
}

# git_ws DIR: a copy of the sample workspace that is a git repository with
# its hooks in tools/hooks (core.hooksPath), for the checks that no agent
# can plant code that git runs later (docs/agents.md, "Confinement").
git_ws() {
	cp -R "$WS" "$1"
	git -C "$1" init -q
	git -C "$1" config core.hooksPath tools/hooks
	mkdir -p "$1/tools/hooks"
	cp "$1/.git/config" "$T/gitconfig.before"
}

# nothing_planted DESC DIR: no hook in either hooks folder, .git/config as
# it was, and a plain git status runs nothing that writes $T/pwned.
nothing_planted() {
	for h in .git/hooks/post-commit .git/hooks/post-checkout tools/hooks/pre-commit tools/hooks/post-checkout; do
		if [ -e "$2/$h" ]; then
			bad "$1: $h was planted"
			return
		fi
	done
	if cmp -s "$T/gitconfig.before" "$2/.git/config"; then
		ok "$1: no hook planted, .git/config as it was"
	else
		bad "$1: .git/config changed: $(diff "$T/gitconfig.before" "$2/.git/config" | tr '\n' ' ')"
	fi
	git -C "$2" status >/dev/null 2>&1
	if [ -e "$T/pwned" ]; then bad "$1: git status ran planted code"; else ok "$1: git status ran nothing planted"; fi
}
