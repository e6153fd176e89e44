#!/bin/sh
# tileport package: the six-file commit of a complete run, checked with the
# git CLI (log, show --stat, interpret-trailers, notes, fsck), with the
# user's unrelated staged and unstaged work untouched byte for byte; every
# refusal (a seventh file, kernel.rs not the run's, HEAD detached or
# unborn, the branch exists, no identity, a run not accepted) exits with
# its code and message and leaves refs, objects, index and work tree as
# they were; --accept records the reason in the commit and events.jsonl.
. "$TILEPORT_TOP/tests/integration/lib/common.sh"
. "$TILEPORT_TOP/tests/integration/lib/changeset.sh"
export TILEPORT_NOW=1795910000000 # the commit's time, so its id is stable
G=$TILEPORT_TOP/tests/fixtures/changeset/golden

# snap DIR NAME: what git says about DIR (refs, index entries, staged and
# unstaged diffs, untracked files, every object file, work-tree bytes).
snap() {
	(
		cd "$1" || exit 1
		git for-each-ref
		echo "== HEAD"; git symbolic-ref -q HEAD || git rev-parse HEAD 2>&1
		echo "== index"; git ls-files --stage
		echo "== staged"; git diff --cached
		echo "== unstaged"; git diff
		echo "== untracked"; git ls-files --others --exclude-standard
		echo "== objects"; find .git/objects -type f | sort
		echo "== work tree"; find . -path ./.git -prune -o -type f -print | sort | xargs sha256sum
	) >"$T/$2.snap" 2>&1
}

# unchanged DESC DIR CMD...: DIR's git state and raw index are the same
# after CMD (whose exit code lands in $rc, its output in $T/out.log).
unchanged() {
	desc=$1 dir=$2
	shift 2
	snap "$dir" before
	cp "$dir/.git/index" "$T/index.before" 2>/dev/null || : >"$T/index.before"
	"$@" >"$T/out.log" 2>&1
	rc=$?
	cp "$dir/.git/index" "$T/index.after" 2>/dev/null || : >"$T/index.after"
	snap "$dir" after
	if cmp -s "$T/index.before" "$T/index.after" && diff -u "$T/before.snap" "$T/after.snap" >"$T/snap.diff"; then
		ok "$desc: refs, objects, index and work tree unchanged"
	else
		bad "$desc: the repository changed"
		sed 's/^/    | /' "$T/snap.diff" | head -n 20
	fi
}

# fresh NAME: a new repository $T/NAME with the converted op, and its run.
fresh() {
	W=$T/$1
	R=$T/out-$1/softmax
	cs_fresh "$W" "$R"
}

# refused DESC RC TEXT -- ARGS...: package is refused with RC and TEXT, and $W is unchanged.
refused() {
	desc=$1 want=$2 text=$3
	shift 4
	unchanged "$desc" "$W" "$TILEPORT" package "$@"
	assert_eq "$desc: exit" "$rc" "$want"
	assert_contains "$desc: message" "$T/out.log" "$text"
}

RS=src/tilegym/ops/cutile_rs
SIX="$RS/__init__.py
$RS/cutile_kernels/src/lib.rs
$RS/softmax.py
$RS/softmax_kernel/ffi.rs
$RS/softmax_kernel/kernel.rs
tests/ops/test_softmax.py"

# ---- the user's unrelated work, staged and unstaged, around the op's ----
cd "$CS_WS" || exit 1
echo "a note of the user's" >notes.txt
git add notes.txt
printf '\n# staged change\n' >>src/tilegym/ops/ops.py
git add src/tilegym/ops/ops.py
printf '# and an unstaged one on top\n' >>src/tilegym/ops/ops.py
printf '\nunstaged README line\n' >>README.md
echo "scratch" >scratch.txt
base=$(git rev-parse HEAD)
# a saved `tileport irdiff --json` in the run: its findings go into the note
"$TILEPORT" irdiff "$TILEPORT_TOP/samples/ir/softmax_reference.mlir" "$TILEPORT_TOP/samples/ir/softmax_generated.mlir" \
	--json >"$CS_RUN/generated/irdiff.json"

# ---- a dry run writes nothing and shows the commit ----
"$TILEPORT" log --workspace "$CS_WS" >"$T/log-none.txt" 2>&1
assert_eq "log before any changeset: exit 0" "$?" 0
assert_contains "log before any changeset: says so, and how to make one" "$T/log-none.txt" \
	"no changesets: no tileport/ branch in the repository of $CS_WS; 'tileport package RUN' makes one"
unchanged "dry run" "$CS_WS" "$TILEPORT" package "$CS_RUN" --dry-run
assert_eq "dry run: exit" "$rc" 0
sed "s|$T|\$T|g" "$T/out.log" >"$T/dry.txt"
cs_mask "$T/dry.txt"
sed -i -E 's/^(  commit  )[0-9a-f]{7}/\1@commit/' "$T/dry.txt" # not written, so not in the repository
if diff -u "$G/package-dry-run.txt" "$T/dry.txt"; then ok "dry run: output as golden"; else bad "dry run output differs"; fi

# ---- package ----
snap "$CS_WS" user.before
cp .git/index "$T/user.index"
"$TILEPORT" package "$CS_RUN" >"$T/pkg.log" 2>&1
assert_eq "package: exit" "$?" 0
cmp -s .git/index "$T/user.index" && ok "package: the index file is byte for byte as it was" ||
	bad "package: the index file changed"
snap "$CS_WS" user.after
# Only the refs and objects may differ: the new branch, the notes, their objects.
sed -n '/^== HEAD/,/^== objects/p' "$T/user.before.snap" >"$T/a"
sed -n '/^== HEAD/,/^== objects/p' "$T/user.after.snap" >"$T/b"
diff -u "$T/a" "$T/b" >/dev/null && ok "package: HEAD, index, staged, unstaged and untracked work unchanged" ||
	bad "package: the user's work changed"
sed -n '/^== work tree/,$p' "$T/user.before.snap" >"$T/a"
sed -n '/^== work tree/,$p' "$T/user.after.snap" >"$T/b"
diff -u "$T/a" "$T/b" >/dev/null && ok "package: every work-tree file byte for byte as it was" ||
	bad "package: work-tree files changed"
assert_eq "package: HEAD still on main at the base" "$(git rev-parse main)" "$base"
assert_eq "package: HEAD is still main" "$(git symbolic-ref HEAD)" refs/heads/main

assert_eq "the commit's parent is HEAD" "$(git rev-parse tileport/softmax^)" "$base"
assert_eq "exactly the six paths" "$(git show --name-only --format= tileport/softmax)" "$SIX"
git show --stat --format= tileport/softmax >"$T/stat"
assert_contains "show --stat: six files" "$T/stat" "6 files changed, 133 insertions(+), 1 deletion(-)"
for f in notes.txt scratch.txt; do
	git cat-file -e "tileport/softmax:$f" 2>/dev/null && bad "the commit holds $f" || ok "the commit leaves out $f"
done
assert_eq "the staged ops.py edit is not committed" \
	"$(git show tileport/softmax:src/tilegym/ops/ops.py | sha256sum)" "$(git show main:src/tilegym/ops/ops.py | sha256sum)"
assert_eq "kernel.rs in the commit is the run's" \
	"$(git show tileport/softmax:$RS/softmax_kernel/kernel.rs | sha256sum)" "$(sha256sum <"$CS_RUN/kernel.rs")"

git log -1 --format=%B tileport/softmax >"$T/msg"
assert_eq "subject" "$(head -n 1 "$T/msg")" "cutile-rs: add softmax"
assert_contains "body: verdict trail" "$T/msg" "  D2   ALL_PASS              -> spawn E"
assert_contains "body: geomean" "$T/msg" "Geomean ratio: 1.0204 (cutile-rs / baseline, reports/performance.md)"
assert_contains "body: accepted" "$T/msg" "Accepted: PIPELINE_COMPLETE with E DONE"
git interpret-trailers --parse <"$T/msg" >"$T/trailers"
printf 'Tileport-Run: softmax PIPELINE_COMPLETE 2026-11-28T21:06:40Z\nGeomean-Ratio: 1.0204\nVerdicts: A1=PASS B1=COMPILED D1=FAIL C1=FAIL_FIXABLE B2=COMPILED D2=ALL_PASS E1=DONE\n' >"$T/want"
diff -u "$T/want" "$T/trailers" >/dev/null && ok "git interpret-trailers parses the three trailers" ||
	{ bad "trailers differ"; diff -u "$T/want" "$T/trailers"; }
assert_eq "author from git config" "$(git log -1 --format='%an <%ae>' tileport/softmax)" "Pat Packager <pat@example.com>"

git notes --ref tileport show tileport/softmax >"$T/note.json" 2>"$T/note.err"
assert_eq "git notes --ref tileport show" "$?" 0
python3 - "$T/note.json" >"$T/note.check" 2>&1 <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
run = d["run"] # the run's one JSON form, as status --json prints it
assert d["schema"] == 1 and run["op"] == "softmax", d
assert run["final"] == "PIPELINE_COMPLETE" and d["accepted"]["by"] == "state"
assert [f'{a["stage"]}{a["attempt"]}' for a in run["attempts"]] == ["A1", "B1", "D1", "C1", "B2", "D2", "E1"]
assert run["attempts"][5]["note"].startswith("verdict overridden by hand")
assert run["stages"]["B"]["runs"] == 2 and run["stages"]["B"]["tokens_in"] == 184500
assert run["attempts"][1]["driver"].startswith("exec:")
assert abs(d["geomean_ratio"] - 1.0204) < 1e-9
assert [r["config"] for r in d["bench"]["rows"]] == ["4096-1024-float16", "8192-1024-float16"]
assert d["bench"]["rows"][0]["ratio"] == 1.0266 and d["bench"]["severity"] == "DONE"
assert d["ir"]["verdict"] == "PASS_WITH_NOTES" and len(d["ir"]["checklist"]) == 4
assert d["ir"]["checklist"][3]["status"] == "SEMANTIC_EQUIV"
f = d["ir"]["findings"]
# the fixture's reference was dumped for sm_89, the generated IR for sm_100
assert [(x["rule"], x["severity"], x["file"], x["entry"]) for x in f] == \
    [("hint-arch", "WARN", "generated/irdiff.json", "softmax_kernel"),
     ("ftz", "CRITICAL", "generated/irdiff.json", "softmax_kernel")], f
assert sorted(f["role"] for f in d["files"]) == sorted(["kernel", "ffi", "wrapper", "lib.rs", "import", "test"])
assert d["manual"][0]["type"] == "manual_override"
assert run["deferred"] == [] and run["contract"] == "pass"
print("note ok")
EOF
assert_contains "the note is the run summary as JSON" "$T/note.check" "note ok"
git fsck --strict >"$T/fsck" 2>&1
assert_eq "git fsck --strict" "$?" 0
assert_contains "events.jsonl: packaged" "$CS_RUN/.tileport/events.jsonl" '"type":"packaged","branch":"tileport/softmax"'

# a second packaging of the same run: the branch exists now
W=$CS_WS
refused "branch exists" 2 "branch tileport/softmax exists" -- "$CS_RUN"
"$TILEPORT" package "$CS_RUN" --branch tileport/softmax-v2 --dry-run >"$T/v2.log" 2>&1
assert_eq "another branch name: the dry run passes" "$?" 0
assert_contains "another branch name is used" "$T/v2.log" "would package softmax on tileport/softmax-v2"
"$TILEPORT" package "$CS_RUN" --branch refs/heads/tileport/softmax-v3 --dry-run >"$T/v3.log" 2>&1
assert_eq "a branch given as its full ref: the dry run passes" "$?" 0
assert_contains "a branch given as its full ref: refs/heads/ once" "$T/v3.log" "would package softmax on tileport/softmax-v3"
refused "a ref that is not a branch" 2 "'refs/tags/v1' is not a branch (a branch is NAME or refs/heads/NAME)" \
	-- "$CS_RUN" --branch refs/tags/v1

# ---- refusals, each on a fresh repository ----
fresh seventh
echo "// scratch" >"$W/$RS/softmax_kernel/notes.rs"
refused "a seventh file" 1 "a seventh file changed: $RS/softmax_kernel/notes.rs" -- "$R"
printf '// extra\n' >>"$W/$RS/ffi_util.rs"
refused "a shared backend file" 1 "a seventh file changed: $RS/ffi_util.rs" -- "$R"

fresh kernel
printf '// edited after the run\n' >>"$W/$RS/softmax_kernel/kernel.rs"
refused "kernel.rs not the run's" 1 "$RS/softmax_kernel/kernel.rs differs from the run's kernel.rs" -- "$R"

fresh detached
git -C "$W" checkout -q --detach
refused "HEAD detached" 2 "HEAD is detached" -- "$R"

fresh unborn
rm -rf "$W/.git"
git -C "$W" init -q -b main
git -C "$W" config user.name "Pat Packager"
git -C "$W" config user.email pat@example.com
refused "HEAD unborn" 2 "HEAD is unborn" -- "$R"

fresh taken
git -C "$W" branch tileport/softmax
refused "branch exists" 2 "branch tileport/softmax exists" -- "$R"

fresh noid
git -C "$W" config --unset user.name
git -C "$W" config --unset user.email
refused "no identity" 3 "no git identity for the commit: set user.name and user.email" -- "$R"

fresh notdone
sed -i 's/"final": "PIPELINE_COMPLETE"/"final": "OFFLINE_COMPLETE"/; s/"status": "complete"/"status": "offline_complete"/; s/"outcome": "accepted"/"outcome": "pending"/' \
	"$R/.tileport/state.json"
refused "not accepted" 1 "the run ended OFFLINE_COMPLETE, pending: accept it by hand with --accept" -- "$R"
refused "an empty reason" 2 "--accept needs a reason" -- "$R" --accept "  "
rm "$R/reports/performance.md" "$R/generated/diff_report.md" # evidence that is not there is left out
refused "several reasons at once" 2 "'bad..name' is not a valid branch name" -- "$R" --branch "bad..name"
assert_contains "every reason is listed" "$T/out.log" "the run ended OFFLINE_COMPLETE, pending"
"$TILEPORT" package "$R" --accept "offline machine; $(printf 'the GPU run\nfollows')" >"$T/acc.log" 2>&1
assert_eq "accepted by hand: exit" "$?" 0
git -C "$W" log -1 --format=%B tileport/softmax >"$T/msg"
assert_contains "by hand: in the body" "$T/msg" "Accepted: OFFLINE_COMPLETE accepted by hand: offline machine; the GPU run follows"
git interpret-trailers --parse <"$T/msg" >"$T/trailers"
assert_contains "by hand: a trailer" "$T/trailers" "Tileport-Accepted: OFFLINE_COMPLETE accepted by hand: offline machine; the GPU run follows"
assert_contains "no performance.md: no geomean" "$T/trailers" "Geomean-Ratio: n/a"
assert_contains "no performance.md: said in the body" "$T/msg" "Geomean ratio: n/a (the run has no reports/performance.md)"
assert_contains "by hand: events.jsonl" "$R/.tileport/events.jsonl" '"type":"manual_accept","reason":"offline machine; the GPU run'
git -C "$W" notes --ref tileport show tileport/softmax | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["accepted"]["by"] == "hand", d["accepted"]; assert d["geomean_ratio"] is None and "bench" not in d and "ir" not in d, d; print("ok")' >"$T/by" 2>&1
assert_contains "by hand: the note says so" "$T/by" "ok"

fresh badreport # a report engine/perf's reader refuses is kept as a problem, not half-read
printf 'VERDICT: DONE\ngeomean_ratio=1.0100\n' >"$R/reports/performance.md"
"$TILEPORT" package "$R" >"$T/bad.log" 2>&1
assert_eq "unreadable performance.md: still packaged" "$?" 0
git -C "$W" log -1 --format=%B tileport/softmax >"$T/msg"
assert_contains "unreadable performance.md: said in the body" "$T/msg" "Geomean ratio: n/a (reports/performance.md was not read: "
git -C "$W" notes --ref tileport show tileport/softmax | python3 -c 'import json,sys; b=json.load(sys.stdin)["bench"]; assert "no '"'"'| Config" in b["problem"] and "rows" not in b, b; print("ok")' >"$T/bad" 2>&1
assert_contains "unreadable performance.md: the note's problem" "$T/bad" "ok"

fresh running
sed -i 's/"final": "PIPELINE_COMPLETE"/"final": null/; s/"status": "complete"/"status": "running"/' "$R/.tileport/state.json"
refused "a run that has not ended" 1 "the run has not ended (its status is running)" -- "$R" --accept "why not"

# The workspace as a folder of a larger repository: the paths carry its name.
mkdir -p "$T/mono"
cs_repo "$T/mono/tilegym"
mv "$T/mono/tilegym/.git" "$T/mono/.git"
git -C "$T/mono" add -A && git -C "$T/mono" commit -q -m "the workspace moves into a folder"
mkdir -p "$T/out-mono"
cs_run "$T/out-mono/softmax" "$T/mono/tilegym"
cs_convert "$T/mono/tilegym" "$T/out-mono/softmax"
"$TILEPORT" package "$T/out-mono/softmax" >"$T/mono.log" 2>&1
assert_eq "a workspace in a folder: exit" "$?" 0
assert_eq "a workspace in a folder: the six paths under it" \
	"$(git -C "$T/mono" show --name-only --format= tileport/softmax)" "$(echo "$SIX" | sed 's|^|tilegym/|')"
"$TILEPORT" --workspace "$T/mono" review --plain >"$T/mono.review" 2>&1
assert_eq "a workspace in a folder: review passes" "$?" 0
assert_contains "a workspace in a folder: the reference from the parent" "$T/mono.review" \
	"Reference: tilegym/src/tilegym/ops/cutile/softmax.py (parent tree)"

"$TILEPORT" package "$T/nowhere" >"$T/none.log" 2>&1
assert_eq "no such run: exit" "$?" 2
assert_contains "no such run: message" "$T/none.log" "no tileport run here"
finish
