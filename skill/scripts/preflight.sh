#!/bin/sh
# preflight.sh (no arguments)
# Thin wrapper with the reference script's name and arguments: runs
# `tileport preflight` with the same environment (TILEGYM_PATH, CUTILE_KERNEL_OUT_ROOT, ...).
. "$(dirname "$0")/_tileport.sh"
exec "$TP" preflight "$@"
