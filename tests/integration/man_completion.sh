#!/bin/sh
# The man page (docs/tileport.1) and the bash completion (built from
# mk/completion.bash.in and cli/commands.def) know every command; the page
# renders without warnings where groff is installed; the completion offers
# commands, a command's options (from its --help) and the workspace's
# operators and runs; make install puts both where man and bash look, and
# plain make without the libraries points at make deps.
. "$TILEPORT_TOP/tests/integration/lib/common.sh"
MAN=$TILEPORT_TOP/docs/tileport.1
COMP=${TILEPORT_BUILD:-$TILEPORT_TOP/build/release}/tileport.bash
[ -f "$COMP" ] || COMP=$(dirname "$TILEPORT")/tileport.bash
cmds=$(sed -n 's/^CMD(\([a-z]*\),.*/\1/p' "$TILEPORT_TOP/cli/commands.def")
[ -n "$cmds" ] && ok "commands.def lists commands" || bad "no commands in commands.def"
for c in $cmds; do
	grep -Eq "^\.BR? $c( |\$)" "$MAN" && ok "man page: $c" || bad "the man page has no entry for '$c'"
	grep -q "^_tileport_commands=\".*\b$c\b" "$COMP" && ok "completion: $c" || bad "the completion lacks '$c'"
done
if command -v groff >/dev/null 2>&1; then
	groff -man -Tutf8 -ww -z "$MAN" 2>"$T/groff.err"
	[ -s "$T/groff.err" ] && bad "groff warns: $(head -n 3 "$T/groff.err")" || ok "the man page renders cleanly"
else
	echo "skip groff: not installed"
fi

# What the completion offers, in bash with tileport on PATH.
mkdir -p "$T/pbin" && ln -s "$TILEPORT" "$T/pbin/tileport"
cp -R "$TILEPORT_TOP/tests/fixtures/tilegym-layout" "$T/ws"
complete_words() { # WORDS...: what bash offers for the last word
	PATH="$T/pbin:$PATH" TILEGYM_PATH="$T/ws" bash -c '
		. "$0"
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		_tileport
		printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " "' "$COMP" "$@"
}
assert_eq "tileport ru<TAB>" "$(complete_words tileport ru)" "run runs "
assert_eq "tileport run --fr<TAB>: from run's --help" "$(complete_words tileport run --fr)" "--fresh "
assert_eq "tileport run s<TAB>: the workspace's operators, subfolders included" \
	"$(complete_words tileport run s)" "silu_and_mul softmax "
assert_eq "tileport batch st<TAB>" "$(complete_words tileport batch st)" "start status "

# make install: the page and the completion where man and bash look.
make -n -C "$TILEPORT_TOP" install DESTDIR="$T/inst" PREFIX=/usr >"$T/install.txt" 2>&1
assert_contains "make install: the man page" "$T/install.txt" "docs/tileport.1 $T/inst/usr/share/man/man1/tileport.1"
assert_contains "make install: the completion" "$T/install.txt" \
	"tileport.bash $T/inst/usr/share/bash-completion/completions/tileport"
# plain make without the libraries: which, and make deps, before any compiler runs
make -C "$TILEPORT_TOP" PKG=false B="$T/nobuild" >"$T/make.txt" 2>&1
assert_eq "make without the libraries: it stops" "$?" 2
assert_contains "make without the libraries: points at make deps" "$T/make.txt" \
	"the build needs libraries that pkg-config (false) does not find: libgit2 libcjson libcurl ncursesw. 'make deps' installs them"
[ ! -e "$T/nobuild" ] && ok "make without the libraries: nothing built" || bad "it built into $T/nobuild"
finish
