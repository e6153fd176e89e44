#!/bin/sh
# Benchmark (counts, not times): how much of TileGym the translator takes.
# Per kernel of every cuTile Python and Triton file under src/tilegym/ops
# (the cuTile Rust ports left out): does `tileport translate --kernel K`
# translate it, does the translation type-check and lower with the real
# cutile crate (`tileport compile`), and the first refusal otherwise; per
# file, the semantic check (`tileport equiv`) of the whole translation with
# the launcher it writes (`--emit ffi`, as stage B checks).
# Prints one line per kernel, the refusals by count, then the totals.
#   bench/tilegym_kernels.sh TILEPORT TILEGYM_DIR
# TILEGYM_DIR is only read; the compiler's environment (build/cutile/env.sh)
# is sourced when present. Kernels are found by their decorator
# (@ct.kernel, @triton.jit).
set -eu
[ $# -eq 2 ] || { echo "usage: bench/tilegym_kernels.sh TILEPORT TILEGYM_DIR" >&2; exit 2; }
tp=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
ws=$(cd "$2" && pwd)
top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck disable=SC1091
[ -f "$top/build/cutile/env.sh" ] && . "$top/build/cutile/env.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 - "$tp" "$ws" "$tmp" <<'PY'
import collections, os, re, subprocess, sys
tp, ws, tmp = sys.argv[1:4]
root = os.path.join(ws, "src/tilegym/ops")
rows, files = [], []
for dp, dn, fn in os.walk(root):
    dn.sort()
    if "cutile_rs" in dp.split(os.sep):
        continue
    for f in sorted(fn):
        if f.endswith(".py"):
            files.append(os.path.join(dp, f))
def run(*a):
    return subprocess.run([tp, *a], capture_output=True, text=True)
nfile_ok = nfile_match = 0
for p in sorted(files):
    rel = os.path.relpath(p, ws)
    src = open(p, encoding="utf-8", errors="replace").read().split("\n")
    names = []
    for i, l in enumerate(src):
        if re.match(r"\s*@(ct\.kernel|triton\.jit)", l):
            for j in range(i + 1, min(i + 8, len(src))):
                m = re.match(r"\s*def\s+(\w+)", src[j])
                if m:
                    names.append(m.group(1))
                    break
    for k in names:
        r = run("translate", p, "--kernel", k)
        if r.returncode != 0:
            why = (r.stderr.strip().split("\n") or [""])[-1]
            why = re.sub(r"^.*?:\d+:\d+: (unsupported: )?", "", why)
            rows.append((rel, k, "refused", why))
            continue
        out = os.path.join(tmp, "k.rs")
        open(out, "w").write(r.stdout)
        c = run("--workspace", ws, "compile", out, "--kernel-only")
        rows.append((rel, k, "compiled" if c.returncode == 0 else "translated, compile fails", ""))
    if names:
        r = run("translate", p)
        if r.returncode == 0:
            nfile_ok += 1
            out = os.path.join(tmp, "f.rs")
            open(out, "w").write(r.stdout)
            # with the launcher the translator writes, as stage B checks:
            # a generic it computes (N_TIMES_N) is known only there
            f = run("translate", p, "--emit", "ffi")
            ffi = os.path.join(tmp, "f.ffi.rs")
            open(ffi, "w").write(f.stdout)
            e = run("equiv", p, out, *(["--ffi", ffi] if f.returncode == 0 else []))
            last = (e.stdout.strip().split("\n") or [""])[-1]
            nfile_match += last.startswith("MATCH")
            print(f"file {rel}: translates whole, semantic check {last}")
for rel, k, st, why in rows:
    print(f"{rel}\t{k}\t{st}\t{why}")
print()
for why, n in collections.Counter(r[3] for r in rows if r[2] == "refused").most_common():
    print(f"{n:4d}  {why}")
tot = len(rows)
tr = sum(1 for r in rows if r[2] != "refused")
co = sum(1 for r in rows if r[2] == "compiled")
nf = sum(1 for p in files if any(r[0] == os.path.relpath(p, ws) for r in rows))
print(f"\nkernels: {tot}; translate: {tr} ({100 * tr // max(tot, 1)} %); "
      f"translate and compile: {co}; files: {nf}, whole: {nfile_ok}, MATCH: {nfile_match}")
PY
