#!/bin/sh
# tileport review and tileport log: a packaged changeset read back (text
# and log lines against goldens, JSON), and hand-made bad changesets, each
# committed with the git CLI, listing each shape check that fails (exit 1).
. "$TILEPORT_TOP/tests/integration/lib/common.sh"
. "$TILEPORT_TOP/tests/integration/lib/changeset.sh"
export TILEPORT_NOW=1795910000000
G=$TILEPORT_TOP/tests/fixtures/changeset/golden
RS=src/tilegym/ops/cutile_rs
cd "$CS_WS" || exit 1

# ---- a packaged changeset ----
"$TILEPORT" package "$CS_RUN" >"$T/pkg.log" 2>&1
assert_eq "package" "$?" 0
"$TILEPORT" review tileport/softmax --plain >"$T/review.txt" 2>&1
assert_eq "review of a good changeset: exit" "$?" 0
sed "s|$T|\$T|g" "$T/review.txt" >"$T/review.golden"
cs_mask "$T/review.golden"
if diff -u "$G/review-plain.txt" "$T/review.golden"; then ok "review --plain as golden"; else bad "review --plain differs"; fi
"$TILEPORT" review --plain >"$T/newest.txt" 2>&1
assert_eq "no REV: the newest changeset" "$(head -n 1 "$T/newest.txt")" "$(head -n 1 "$T/review.txt")"
"$TILEPORT" review softmax --plain >"$T/byop.txt" 2>&1
assert_eq "an op name finds tileport/OP" "$(head -n 1 "$T/byop.txt")" "$(head -n 1 "$T/review.txt")"
"$TILEPORT" review tileport/softmax --json >"$T/review.json"
python3 - "$T/review.json" >"$T/json.check" 2>&1 <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["failed"] == 0 and all(c["ok"] for c in d["checks"]), d["checks"]
assert [c["name"] for c in d["checks"]] == ["six-paths", "names", "lib-mod", "init-import", "test-lines", "kernel"]
assert d["checks"][0]["requires"] == "exactly the six paths of one op"
assert [f["role"] for f in d["files"]] == ["kernel", "ffi", "wrapper", "lib.rs", "import", "test"]
assert d["files"][0]["patch"].startswith("diff --git a/src/tilegym/ops/cutile_rs/softmax_kernel/kernel.rs")
assert d["note"]["run"]["op"] == "softmax" and d["branch"] == "tileport/softmax"
print("json ok")
EOF
assert_contains "review --json" "$T/json.check" "json ok"

# ---- hand-made changesets ----
git reset -q --hard main # the packaged conversion is on its branch now
git clean -q -fd
# bad NAME: branch NAME from main with the converted op, changed by the
# shell function NAME (run in the work tree), committed with the git CLI.
bad_changeset() {
	git checkout -q main
	git checkout -q -b "$1"
	cs_convert "$CS_WS" "$CS_RUN"
	"$1"
	git add -A
	GIT_AUTHOR_DATE="2026-11-21T10:00:00Z" GIT_COMMITTER_DATE="2026-11-21T10:00:00Z" \
		git commit -q -m "${2:-cutile-rs: add softmax}"
}

# fails REV CHECK TEXT...: review REV exits 1 and reports CHECK failing with each TEXT.
fails() {
	rev=$1 check=$2
	shift 2
	"$TILEPORT" review "$rev" --plain >"$T/$rev.txt" 2>&1
	assert_eq "$rev: exit" "$?" 1
	line=$(grep "^  FAIL  $check " "$T/$rev.txt")
	for text in "$@"; do
		case "$line" in
		*"$text"*) ok "$rev: $check fails: $text" ;;
		*) bad "$rev: $check does not fail with '$text'"; grep '^  \(ok\|FAIL\)' "$T/$rev.txt" | sed 's/^/    | /' ;;
		esac
	done
}

passes() { # REV CHECK: CHECK passes in REV's review
	if grep -q "^  ok    $2 " "$T/$1.txt"; then ok "$1: $2 passes"; else bad "$1: $2 does not pass"; fi
}

plain() { :; }
bad_changeset plain
"$TILEPORT" review plain --plain >"$T/plain.txt" 2>&1
assert_eq "committed by hand, well formed: exit" "$?" 0
assert_contains "no note: said so" "$T/plain.txt" "Run evidence: no note under refs/notes/tileport for this commit"

seventh() { echo "// notes" >"$RS/softmax_kernel/notes.rs"; }
bad_changeset seventh
fails seventh six-paths "7 path(s): extra path $RS/softmax_kernel/notes.rs"

notest() { git checkout -q main -- tests/ops/test_softmax.py; }
bad_changeset notest
fails notest six-paths "test missing (tests/ops/test_softmax.py)"
fails notest test-lines "the test file is not changed"

wrongname() {
	sed -i 's/^mod softmax {/mod gelu {/' "$RS/cutile_kernels/src/lib.rs"
	sed -i 's/from \. import softmax/from . import gelu/' "$RS/__init__.py"
}
bad_changeset wrongname "cutile-rs: add relu"
fails wrongname names "the op is softmax" "subject says 'relu'" "lib.rs mod says 'gelu'" "import says 'gelu'"
fails wrongname lib-mod "mod gelu does not include! kernel.rs and ffi.rs from gelu_kernel/"

twomods() { printf 'mod extra {\n    include!("../../extra_kernel/kernel.rs");\n}\n' >>"$RS/cutile_kernels/src/lib.rs"; }
bad_changeset twomods
fails twomods lib-mod "lib.rs adds 2 mod declaration(s) (softmax, extra); expected one block"

noffi() { sed -i '/softmax_kernel\/ffi.rs/d' "$RS/cutile_kernels/src/lib.rs"; }
bad_changeset noffi
fails noffi lib-mod "mod softmax does not include! ffi.rs"

libdel() { sed -i '/^\/\/ Converted operators/d' "$RS/cutile_kernels/src/lib.rs"; }
bad_changeset libdel
fails libdel lib-mod "lib.rs removes 1 line(s) (first: '// Converted operators add"

twoimports() { printf '    from . import gelu  # noqa: F401\n' >>"$RS/__init__.py"; }
bad_changeset twoimports
fails twoimports init-import "__init__.py adds 2 import(s) (softmax, gelu); expected one"

unguarded() {
	cp "$TILEPORT_TOP/samples/workspace/$RS/__init__.py" "$RS/__init__.py"
	printf 'from . import softmax  # noqa: F401\n' >>"$RS/__init__.py"
}
bad_changeset unguarded
fails unguarded init-import "'from . import softmax' (line" "is not inside 'if is_backend_available(\"cutile-rs\"):'"

testedit() { sed -i 's/^_backends = \["cutile"\]$/_backends = ["cutile", "cutile-rs"]/' tests/ops/test_softmax.py; }
bad_changeset testedit
fails testedit test-lines "the test file removes 1 line(s) (first: '_backends = [\"cutile\"]')"

testnoise() { printf '\n\nprint("debugging")\n' >>tests/ops/test_softmax.py; }
bad_changeset testnoise
fails testnoise test-lines "not about cutile-rs" "'print(\"debugging\")'"

nomodule() { sed -i '/#\[cutile::module\]/d' "$RS/softmax_kernel/kernel.rs"; }
bad_changeset nomodule
fails nomodule kernel "kernel.rs has no #[cutile::module]"

noentry() { sed -i '/#\[cutile::entry/d' "$RS/softmax_kernel/kernel.rs"; }
bad_changeset noentry
fails noentry kernel "kernel.rs has no #[cutile::entry] function"

everything() { twomods; twoimports; testnoise; nomodule; seventh; }
bad_changeset everything
fails everything six-paths "extra path"
fails everything lib-mod "adds 2 mod declaration(s)"
fails everything init-import "adds 2 import(s)"
fails everything test-lines "not about cutile-rs"
fails everything kernel "no #[cutile::module]"
passes everything names
assert_contains "everything: the count" "$T/everything.txt" "Shape checks: 5 of 6 fail"
"$TILEPORT" review everything --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["failed"])' >"$T/n"
assert_eq "everything: --json counts the failures" "$(cat "$T/n")" 5

"$TILEPORT" review no-such-rev --plain >"$T/norev.txt" 2>&1
assert_eq "unknown REV: exit" "$?" 2
assert_contains "unknown REV: message" "$T/norev.txt" "'no-such-rev' is not a commit here"
"$TILEPORT" review --plain --json >"$T/both.txt" 2>&1
assert_eq "--plain with --json: exit" "$?" 2
"$TILEPORT" --workspace "$T/nowhere-repo" review --plain >"$T/norepo.txt" 2>&1
assert_eq "not a repository: exit" "$?" 2

for c in package review log; do
	"$TILEPORT" "$c" --help >"$T/help.txt" 2>&1
	assert_eq "$c --help: exit" "$?" 0
	assert_contains "$c --help: usage" "$T/help.txt" "usage: tileport $c"
done

# ---- tileport log ----
git checkout -q main
"$TILEPORT" log >"$T/log.txt" 2>&1
assert_eq "log: exit" "$?" 0
cs_mask "$T/log.txt"
if diff -u "$G/log.txt" "$T/log.txt"; then ok "log as golden"; else bad "log differs"; fi
"$TILEPORT" log --json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(len(d), d[0]["branch"], d[0]["geomean_ratio"], d[0]["verdicts"].split()[-1])' >"$T/logj"
assert_eq "log --json" "$(cat "$T/logj")" "1 tileport/softmax 1.0204 E1=DONE"
finish
