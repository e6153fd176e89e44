# A TileGym checkout with a finished conversion in it, for the changeset
# tests (sourced after common.sh or screen.sh; needs $T and $TILEPORT_TOP):
#   $CS_WS   a git repository made from samples/workspace (one commit on
#            main), its six files changed as stage D leaves them
#   $CS_RUN  the complete run of softmax they came from (PIPELINE_COMPLETE,
#            E DONE), its workspace pointing at $CS_WS
# HOME and the git config are the test's own: the identity is set in the
# repository, so unsetting it there leaves none.
export HOME="$T/home" XDG_CONFIG_HOME="$T/xdg" GIT_CONFIG_NOSYSTEM=1
mkdir -p "$HOME" "$XDG_CONFIG_HOME"
CS_RS=src/tilegym/ops/cutile_rs

# cs_repo DIR: a fresh repository of the sample workspace in DIR.
cs_repo() {
	cp -R "$TILEPORT_TOP/samples/workspace" "$1"
	git -C "$1" init -q -b main
	git -C "$1" config user.name "Pat Packager"
	git -C "$1" config user.email pat@example.com
	git -C "$1" add -A
	GIT_COMMITTER_DATE="2026-11-20T10:00:00Z" GIT_AUTHOR_DATE="2026-11-20T10:00:00Z" \
		git -C "$1" commit -q -m "TileGym at the base of the conversion"
}

# cs_run DIR WS: the complete fixture run of softmax in DIR for workspace WS.
cs_run() {
	cp -R "$TILEPORT_TOP/tests/fixtures/runs/softmax" "$1"
	cp -R "$TILEPORT_TOP/tests/fixtures/tui-runs/softmax/.tileport" "$1/.tileport"
	sed -i "s|\"/workspace/tilegym\"|\"$2\"|" "$1/.tileport/state.json"
}

# cs_convert WS RUN: the six files as the run's stage D leaves them: the
# run's kernel.rs and ffi.rs, the wrapper, and the three registrations
# edited into the workspace's own files.
cs_convert() {
	mkdir -p "$1/$CS_RS/softmax_kernel"
	cp "$2/kernel.rs" "$2/ffi.rs" "$1/$CS_RS/softmax_kernel/"
	cp "$TILEPORT_TOP/tests/fixtures/workspace/$CS_RS/softmax.py" "$1/$CS_RS/softmax.py"
	python3 "$TILEPORT_TOP/tests/integration/lib/convert_softmax.py" "$1"
}

# cs_fresh WS RUN: a repository in WS with the converted op, its run in RUN.
cs_fresh() {
	mkdir -p "$(dirname "$2")"
	cs_repo "$1"
	cs_run "$2" "$1"
	cs_convert "$1" "$2"
}

CS_WS=$T/cs/ws
CS_RUN=$T/cs/out/softmax
cs_fresh "$CS_WS" "$CS_RUN"

# cs_mask FILE...: the commit ids of the test's repositories (full, then
# abbreviated) and the blob ids of diff headers replaced by placeholders of the same width, so that goldens
# do not change whenever the sample workspace the repositories copy does.
cs_mask() {
	cs_ids=$(find "$T" -maxdepth 4 -name .git -type d 2>/dev/null | while read -r g; do
		git --git-dir="$g" log --all --format=%H 2>/dev/null
	done | sort -u)
	for f; do
		for id in $cs_ids; do
			sed -i "s/$id/@commit-full-id-----------------------------/g; s/$(printf %.7s "$id")/@commit/g" "$f"
		done
		sed -i -E 's/^index [0-9a-f]{7}\.\.[0-9a-f]{7}/index @blob..@blob/' "$f"
	done
}
