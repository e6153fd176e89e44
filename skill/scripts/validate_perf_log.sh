#!/bin/sh
# validate_perf_log.sh <log> [label]
# Thin wrapper with the reference script's name and arguments: runs
# `tileport validate perf-log` with the same environment (TILEGYM_PATH, CUTILE_KERNEL_OUT_ROOT, ...).
. "$(dirname "$0")/_tileport.sh"
exec "$TP" validate perf-log "$@"
