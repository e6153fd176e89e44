#!/bin/sh
# The generated help screen at both sizes (generic keys, each view's own
# keys, prompt commands), and a key bound in the user's config showing up
# in it.
. "$TILEPORT_TOP/tests/screen/lib/screen.sh"

for size in 80x24 160x48; do
	tp "$size" open out/softmax/kernel.rs <<EOS
h
:save-display help-$size.screen
<PgDown>
:save-display help-page2-$size.screen
G
:save-display help-end-$size.screen
EOS
	check "help-$size.screen"
	check "help-page2-$size.screen"
	check "help-end-$size.screen"
done

# A binding from the config file is what the help lists.
mkdir -p "$T/xdg/tileport"
printf '# user config\n[tui]\nbind generic <F2> quit\nbind transcript x toggle-fold\n' \
	>"$T/xdg/tileport/config"
tp 160x48 open out/softmax/kernel.rs <<EOS
h
:save-view help-bound.view
EOS
expect "config binding listed under quit" "$T/help-bound.view" "[help-key Q <F2>]"
expect "view binding listed in its keymap" "$T/help-bound.view" "[help-key o x]"
finish
