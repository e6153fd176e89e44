#!/bin/sh
# bench/reference.sh TILEPORT
# tileport against the reference skill's own scripts, side by side in one
# run, CPU time (user+sys of the process and everything it waited for) per
# call:
#   tileport irdiff REF GEN            vs  bash diff_ir.sh REF GEN
#     on Tile IR pairs of real size: the fixture runs' reference/generated
#     pairs and two ~160-line pairs built as bench/irdiff.sh builds its own
#     (IRDIFF_BENCH_KEEP), with value renaming and ~2% edited ops;
#   tileport validate NAME ARGS        vs  bash validate_NAME.sh ARGS
#     for every stage validator over a set of run directories (copies of
#     tests/fixtures/runs: softmax, complete, and bmm, a run part way
#     through, which both sides fail alike on the files it lacks);
#   and process start: tileport --version against bash -c true.
# The calls are interleaved (tileport, reference, tileport, ...) so load on
# the machine falls on both alike; REFERENCE_BENCH_RUNS (default 15) calls
# each; the median CPU per call and the ratio reference / tileport are
# printed, and the sums per group.
# REFERENCE_BENCH_BASE=OTHER_TILEPORT times an older build in the same runs
# (a "base" column: before/after measured side by side).
# The scripts: REFERENCE_SCRIPTS=DIR, else the TileGym tarball in
# ../shared/tilegym (the skill tilegym-converting-cutile-triton-to-cutile-rs).
set -eu
T=${1:?usage: bench/reference.sh TILEPORT}
T=$(cd "$(dirname "$T")" && pwd)/$(basename "$T")
top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
skill=skills/tilegym-converting-cutile-triton-to-cutile-rs/scripts
S=${REFERENCE_SCRIPTS:-}
if [ -z "$S" ]; then
	tgz=$(ls "$top"/../shared/tilegym/TileGym-*.tar.gz 2>/dev/null | head -n 1)
	[ -n "$tgz" ] || { echo "bench/reference.sh: set REFERENCE_SCRIPTS (no TileGym tarball in ../shared/tilegym)" >&2; exit 3; }
	tar -xzf "$tgz" -C "$tmp" "TileGym/$skill"
	S="$tmp/TileGym/$skill"
fi
[ -f "$S/diff_ir.sh" ] || { echo "bench/reference.sh: no diff_ir.sh in $S" >&2; exit 3; }
command -v python3 >/dev/null || { echo "bench/reference.sh: needs python3" >&2; exit 3; }

cp -R "$top/tests/fixtures/runs" "$tmp/out"
cp -R "$top/tests/fixtures/workspace" "$tmp/ws"
rel="$tmp/ws/src/tilegym/ops/cutile_rs/cutile_kernels/target/release"
mkdir -p "$rel"
${CC:-cc} -shared -fPIC -o "$rel/libcutile_kernels.so" "$top/tests/fixtures/elf/cutile_kernels.c"
# CUTILE_RS_ROOT: validate_diff_report.sh stops at once without it (no check reads it)
export TILEGYM_PATH="$tmp/ws" CUTILE_KERNEL_OUT_ROOT="$tmp/out" CUTILE_RS_ROOT="$tmp/ws"
IRDIFF_BENCH_RUNS=1 IRDIFF_BENCH_KEEP="$tmp/pairs" "$top/bench/irdiff.sh" "$T" 160 >/dev/null

o="$tmp/out"
{
	# process start alone: tileport's against the interpreter of the scripts
	echo "start	tileport --version / bash -c true	$T --version	bash -c true"
	for p in "softmax/reference/reference.mlir softmax/generated/generated.mlir" \
		"bmm/reference/reference_non_persistent.mlir bmm/generated/generated_non_persistent.mlir" \
		"bmm/reference/reference_static_persistent.mlir bmm/generated/generated_static_persistent.mlir"; do
		set -- $p
		echo "irdiff	$1 ($(wc -l <"$o/$1") lines)	$T irdiff $o/$1 $o/$2	bash $S/diff_ir.sh $o/$1 $o/$2"
	done
	for s in many one; do
		r="$tmp/pairs/$s/ref.mlir" g="$tmp/pairs/$s/gen.mlir"
		echo "irdiff	generated pair '$s' ($(wc -l <"$r") lines)	$T irdiff $r $g	bash $S/diff_ir.sh $r $g"
	done
	for k in softmax bmm; do
		for v in analysis agent_b entry_pattern diff_report agent_d agent_e agent_f kernel; do
			echo "validate	$v $k	$T validate $(echo $v | tr _ -) $k	bash $S/validate_$v.sh $k"
		done
	done
	echo "validate	ir softmax	$T validate ir $o/softmax/generated/generated.mlir softmax	bash $S/validate_ir.sh $o/softmax/generated/generated.mlir softmax"
	echo "validate	perf_log softmax	$T validate perf-log $o/softmax/perf_cutile_rs.txt	bash $S/validate_perf_log.sh $o/softmax/perf_cutile_rs.txt"
} >"$tmp/cases"

echo "tileport vs the reference scripts, $(date -u +%Y-%m-%d), $(uname -m), $(nproc) cores," \
	"load average $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$tmp/cases" "${REFERENCE_BENCH_RUNS:-15}" "$T" "${REFERENCE_BENCH_BASE:-}" <<'PY'
import os, statistics, sys

def cpu(argv):
    """CPU seconds of one call (its waited-for children included). Spawned,
    not forked: a forked Python's copy-on-write faults before the exec would
    count as the child's (about 1.5 ms here, more than tileport's start)."""
    null = [(os.POSIX_SPAWN_OPEN, fd, os.devnull, os.O_WRONLY, 0) for fd in (1, 2)]
    pid = os.posix_spawnp(argv[0], argv, os.environ, file_actions=null)
    _, st, ru = os.wait4(pid, 0)
    return ru.ru_utime + ru.ru_stime

cases = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
runs, tp_bin, base_bin = int(sys.argv[2]), sys.argv[3], sys.argv[4]
groups = {}
print(f"median CPU per call of {runs} calls, interleaved\n")
head = f"  {'':9} {'case':46} {'tileport':>10} {'reference':>10} {'ratio':>7}"
print(head + (f" {'base':>10} {'ratio':>7}" if base_bin else ""))
for group, name, tp, ref in cases:
    argv_t, argv_r = tp.split(), ref.split()
    argv_b = [base_bin] + argv_t[1:] if base_bin else None
    t, r, b = [], [], []
    for _ in range(runs):
        t.append(cpu(argv_t))
        r.append(cpu(argv_r))
        if argv_b:
            b.append(cpu(argv_b))
    # a call under the clock's resolution still divides
    mt, mr = max(statistics.median(t), 1e-6), statistics.median(r)
    mb = max(statistics.median(b), 1e-6) if b else 0.0
    g = groups.setdefault(group, [0.0, 0.0, 0.0, 0])
    g[0] += mt; g[1] += mr; g[2] += mb; g[3] += 1
    line = f"  {group:9} {name:46.46} {mt * 1000:8.2f}ms {mr * 1000:8.1f}ms {mr / mt:6.0f}x"
    if b:
        line += f" {mb * 1000:8.2f}ms {mr / mb:6.0f}x"
    print(line)
print()
for group, (st, sr, sb, n) in groups.items():  # sums of positive medians
    line = (f"  {group:9} {'all ' + str(n) + ', sum of medians':46} {st * 1000:8.2f}ms {sr * 1000:8.1f}ms"
            f" {sr / st:6.0f}x")
    if base_bin:
        line += f" {sb * 1000:8.2f}ms {sr / sb:6.0f}x"
    print(line)
PY
