#!/usr/bin/env python3
"""A stand-in for a benchmark runner in the tests of `tileport bench`, where
there is no GPU: instead of being measured under libtileport_cupti.so it
writes the trace that library would write (docs/formats.md, "Trace files")
for a runner following the protocol of docs/perf.md: per configuration an
NVTX range tileport:<config> holding N x (L2-flush memset, the op's
kernels). Device times are made up, deterministically: a base time per
config, times --scale, with seeded multiplicative noise per sample and per
process, so that the statistics have something to chew on.

Environment (from tileport bench): TILEPORT_TRACE (with %p), TILEPORT_BENCH_SIDE,
TILEPORT_BENCH_SEQ. FAKE_BENCH_ORDER, when set, gets "SEQ SIDE" appended:
the tests read the ABBA order from it. FAKE_BENCH_EXPECT_INJECT makes the
run fail unless CUDA_INJECTION64_PATH equals it.
"""
import argparse
import os
import random
import subprocess
import sys

FLUSH_BYTES = 120 << 20


def base_ns(config):
    digits = sum(int(c) for c in config if c.isdigit())
    return 10000 + 1000 * digits


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--configs", default="4096-1024-float16,4096-4096-float16,16384-8192-bfloat16")
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--kernels", type=int, default=1, help="launches per iteration")
    ap.add_argument("--reps", type=int, default=50)
    ap.add_argument("--noise", type=float, default=0.005, help="relative, per sample")
    ap.add_argument("--proc-noise", type=float, default=0.002, help="relative, per process")
    ap.add_argument("--skip", default="", help="a config this side does not run")
    ap.add_argument("--fail", action="store_true", help="exit 1")
    ap.add_argument("--no-trace", action="store_true", help="write nothing")
    ap.add_argument("--no-flush", action="store_true", help="leave the trace .partial")
    ap.add_argument("--child", action="store_true", help="a child process writes a second trace")
    ap.add_argument("--only", default="", help="(internal) the child's one config")
    a = ap.parse_args()

    seq = int(os.environ.get("TILEPORT_BENCH_SEQ", "0"))
    side = os.environ.get("TILEPORT_BENCH_SIDE", "?")
    if os.environ.get("FAKE_BENCH_ORDER") and not a.only:
        with open(os.environ["FAKE_BENCH_ORDER"], "a") as f:
            f.write(f"{seq} {side}\n")
    want = os.environ.get("FAKE_BENCH_EXPECT_INJECT")
    if want is not None and os.environ.get("CUDA_INJECTION64_PATH") != want:
        print("CUDA_INJECTION64_PATH is", os.environ.get("CUDA_INJECTION64_PATH"), file=sys.stderr)
        return 1
    if a.fail:
        print("fake_bench: failing as asked", file=sys.stderr)
        return 1
    if a.no_trace:
        return 0
    if a.child:
        subprocess.run([sys.executable, __file__, "--only", "child-256-float32",
                        "--scale", str(a.scale)], check=True)

    rng = random.Random(f"{side}:{seq}:{a.only}")
    configs = [a.only] if a.only else [c for c in a.configs.split(",") if c and c != a.skip]
    path = os.environ["TILEPORT_TRACE"].replace("%p", str(os.getpid()))
    lines = ["#tileport-trace\t1", f"M\tpid\t{os.getpid()}", "M\tcupti_api\t130001",
             "M\tlibcupti\t(fake_bench.py)", "M\tnvtx_injection\t(fake_bench.py)"]
    t = 1_795_903_000_000_000_000 + seq * 10_000_000_000
    corr = 0
    proc = 1 + rng.gauss(0, a.proc_noise)
    for rid, cfg in enumerate(configs, 1):
        t += 50_000
        lines.append(f"R\t{rid}\t{t}\ttileport:{cfg}")
        for _ in range(a.reps):
            t += 3_000
            corr += 1
            lines.append(f"S\t{t}\t{t + 60_000}\t0\t1\t7\t{corr}\t{FLUSH_BYTES}\t0")
            t += 62_000
            for _k in range(a.kernels):
                d = int(base_ns(cfg) * a.scale * proc * (1 + rng.gauss(0, a.noise)))
                corr += 1
                lines.append(f"K\t{t}\t{t + d}\t0\t1\t7\t{corr}\t0\t128,1,1\t256,1,1\tsoftmax_kernel")
                t += d + 1_500
        t += 5_000
        lines.append(f"E\t{rid}\t{t}")
    lines.append(f"F\t{len(lines)}\t0")
    tmp = path + ".partial"
    with open(tmp, "w") as f:
        f.write("\n".join(lines) + "\n")
    if not a.no_flush:
        os.rename(tmp, path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
