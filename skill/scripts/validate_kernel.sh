#!/bin/sh
# validate_kernel.sh <kernel_name>
# Thin wrapper with the reference script's name and arguments: runs
# `tileport validate kernel` with the same environment (TILEGYM_PATH, CUTILE_KERNEL_OUT_ROOT, ...).
. "$(dirname "$0")/_tileport.sh"
exec "$TP" validate kernel "$@"
