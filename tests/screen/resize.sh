#!/bin/sh
# Resizing: the pipeline view with its lower pane laid out again at a
# larger and a smaller size (a terminal resize is the same event; the tmux
# test sends a real one).
. "$TILEPORT_TOP/tests/screen/lib/screen.sh"

tp 80x24 open --read-only out/softmax <<EOS
:save-display resize-before.screen
:resize 160x48
:save-display resize-160x48.screen
:resize 100x16
:save-display resize-100x16.screen
EOS
check resize-before.screen
check resize-160x48.screen
check resize-100x16.screen
finish
