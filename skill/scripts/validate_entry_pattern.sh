#!/bin/sh
# validate_entry_pattern.sh <kernel_name>
# Thin wrapper with the reference script's name and arguments: runs
# `tileport validate entry-pattern` with the same environment (TILEGYM_PATH, CUTILE_KERNEL_OUT_ROOT, ...).
. "$(dirname "$0")/_tileport.sh"
exec "$TP" validate entry-pattern "$@"
