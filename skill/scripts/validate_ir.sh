#!/bin/sh
# validate_ir.sh <ir_file> <kernel_name>
# Thin wrapper with the reference script's name and arguments: runs
# `tileport validate ir` with the same environment (TILEGYM_PATH, CUTILE_KERNEL_OUT_ROOT, ...).
. "$(dirname "$0")/_tileport.sh"
exec "$TP" validate ir "$@"
