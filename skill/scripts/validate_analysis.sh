#!/bin/sh
# validate_analysis.sh <kernel_name>
# Thin wrapper with the reference script's name and arguments: runs
# `tileport validate analysis` with the same environment (TILEGYM_PATH, CUTILE_KERNEL_OUT_ROOT, ...).
. "$(dirname "$0")/_tileport.sh"
exec "$TP" validate analysis "$@"
