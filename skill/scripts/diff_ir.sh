#!/bin/sh
# diff_ir.sh <ref.mlir> <gen.mlir>
# Thin wrapper with the reference script's name and arguments: runs
# `tileport irdiff` with the same environment (TILEGYM_PATH, CUTILE_KERNEL_OUT_ROOT, ...).
. "$(dirname "$0")/_tileport.sh"
exec "$TP" irdiff "$@"
