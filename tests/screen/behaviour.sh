#!/bin/sh
# Screen behaviour without golden files: search (forward, wrap, no match),
# line types in the model dump, themes and NO_COLOR, the interrupted run,
# and errors that stop with exit 2 and say where (script, config, theme).
. "$TILEPORT_TOP/tests/screen/lib/screen.sh"

tp 80x24 open out/softmax/.tileport/attempts/02-B1/transcript.jsonl <<EOS
/mismatched
<Enter>
:save-display search1.screen
/nothing-like-this
<Enter>
:save-display search2.screen
EOS
expect "search finds text inside a folded tool result" search1.screen "Search 'mismatched': line 6 of 20"
expect "search opened the tool call" search1.screen "error[E0308]: mismatched types"
expect "no match is reported" search2.screen "No match for 'nothing-like-this'"

tp 80x24 open --read-only out/softmax <<EOS
:save-view pipeline.view
EOS
expect "complete stage typed ok" pipeline.view "[state-ok ✓] [default  ] [label A IR Dump & Analyze]"
expect "failing verdict typed" pipeline.view "[verdict-fail FAIL_FIXABLE]"
expect "manual action typed" pipeline.view "manual: [manual"
expect "routing typed" pipeline.view "route: [route"

tp 80x24 open --read-only out/rmsnorm <<EOS
:save-display interrupted.screen
EOS
expect "interrupted attempt shown" interrupted.screen "interrupted"
expect "the stage it stopped in is selected" interrupted.screen "[transcript] 03-D1"

for theme in default light high-contrast monochrome; do
	tp 80x24 open --read-only --theme "$theme" out/softmax <<EOS
:save-display theme-$theme.screen
EOS
	expect "theme $theme draws" "theme-$theme.screen" "[pipeline] softmax"
done
NO_COLOR=1 TERM=xterm tp 80x24 open --read-only out/softmax <<EOS
:theme light
:save-display nocolor.screen
EOS
expect "NO_COLOR and 8 colours draw" nocolor.screen "[pipeline] softmax"

# e and v hand the selected file to $EDITOR (at the finding's line) and
# $PAGER, with the screen suspended; the stage view is back afterwards.
printf '#!/bin/sh\necho "editor $*" >>"%s/ext.log"\n' "$T" >"$T/ed.sh"
printf '#!/bin/sh\necho "pager $*" >>"%s/ext.log"\n' "$T" >"$T/pg.sh"
chmod +x "$T/ed.sh" "$T/pg.sh"
EDITOR="$T/ed.sh" PAGER="$T/pg.sh" tp 80x24 open --read-only out/softmax <<EOS
k
<Enter>
G
k
<Enter>
/ffi.rs:2
<Enter>
e
/correctness_cutile_rs
<Enter>
v
:save-display after-editor.screen
EOS
expect "editor opened at the finding's line" ext.log "editor +2 out/softmax/ffi.rs"
expect "pager opened the artifact" ext.log "pager out/softmax/correctness_cutile_rs.txt"
expect "screen back after the editor" after-editor.screen "[stage] 03-D1"

# errors: exit 2 and the place
expect_fail() { # DESC WANT_TEXT ARGS... (script on stdin)
	desc=$1 want=$2
	shift 2
	cat >"$T/script"
	COLUMNS=80 LINES=24 TILEPORT_SCRIPT="$T/script" "$TILEPORT" "$@" >"$T/err.log" 2>&1
	rc=$?
	if [ "$rc" -eq 2 ] && grep -qF -- "$want" "$T/err.log"; then
		echo "ok   $desc"
	else
		echo "FAIL $desc: exit $rc, want 2 and '$want'"
		sed 's/^/    | /' "$T/err.log"
		failures=$((failures + 1))
	fi
}
printf 'j\n:frobnicate\n' | expect_fail "bad script command" "script $T/script:2: unknown command 'frobnicate'" \
	open out/softmax/kernel.rs
printf 'j\n<Nope>\n' | expect_fail "bad script key" "script $T/script:2: unknown key '<Nope>'" \
	open out/softmax/kernel.rs
printf 'cursor = black\n' >"$T/bad.theme"
: | expect_fail "bad theme names file and line" "$T/bad.theme:1: expected 'FG BG [ATTR...]'" \
	open --theme "$T/bad.theme" out/softmax/kernel.rs
mkdir -p "$T/xdg/tileport"
printf '[tui]\nlayout = sideways\n' >"$T/xdg/tileport/config"
: | expect_fail "bad config names file and line" "$T/xdg/tileport/config:2: layout: expected" \
	open out/softmax/kernel.rs
rm "$T/xdg/tileport/config"
finish
