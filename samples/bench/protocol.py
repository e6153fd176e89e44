"""The measurement protocol of tileport bench for Python runners (docs/perf.md,
"The runner protocol"). The runner does no timing: the CUPTI injection
library records every kernel, copy and memset, and tileport bench turns the
records inside each NVTX range `tileport:<config>` into samples. Per
configuration:

    inputs random (never zeros), warm-up for >= 100 ms, synchronize,
    range push "tileport:<config>",
    N x (L2 flush: a memset of >= 2x L2, then the op),
    synchronize, range pop.

The flush is a driver-API memset (cuMemsetD8Async), which CUPTI reports as a
MEMSET record that tileport bench leaves out, and not a torch zero_(), which
is a kernel that would be counted as part of the op.
"""
import argparse
import ctypes
import os
import random
import time

import torch

DEFAULT_CONFIGS = [
    "4096-1024-float16", "4096-4096-float16", "16384-8192-float16",
    "4096-1024-bfloat16", "4096-4096-bfloat16", "16384-8192-bfloat16",
]

DTYPES = {"float16": torch.float16, "bfloat16": torch.bfloat16, "float32": torch.float32}


def parse_args(description):
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--configs", default=",".join(DEFAULT_CONFIGS),
                    help="comma-separated M-N-dtype (default: %(default)s)")
    ap.add_argument("--reps", type=int, default=100, help="timed repetitions per config")
    ap.add_argument("--warmup-ms", type=float, default=100.0)
    ap.add_argument("--twice", action="store_true",
                    help="launch the op twice per repetition (the known 2x slowdown)")
    ap.add_argument("--torch-profiler", metavar="FILE",
                    help="no NVTX ranges: time each kernel with torch.profiler instead and "
                         "write {config: [kernel us, ...]} to FILE (run WITHOUT injection)")
    return ap.parse_args()


def configs_of(spec):
    out = []
    for c in spec.split(","):
        m, n, dt = c.split("-")
        out.append((c, int(m), int(n), DTYPES[dt]))
    # another order in every process, the same for the same process number
    random.Random(int(os.environ.get("TILEPORT_BENCH_SEQ", "0"))).shuffle(out)
    return out


class Flusher:
    """2x L2 (at least 128 MiB) of device memory, cleared with the driver's memset."""

    def __init__(self):
        props = torch.cuda.get_device_properties(torch.cuda.current_device())
        l2 = getattr(props, "L2_cache_size", 0) or (60 << 20)
        self.nbytes = max(2 * l2, 128 << 20)
        self.buf = torch.empty(self.nbytes, dtype=torch.uint8, device="cuda")
        self.cuda = ctypes.CDLL("libcuda.so.1")
        self.cuda.cuMemsetD8Async.argtypes = [ctypes.c_uint64, ctypes.c_ubyte, ctypes.c_size_t,
                                              ctypes.c_void_p]
        self.cuda.cuMemsetD8Async.restype = ctypes.c_int

    def __call__(self):
        stream = torch.cuda.current_stream().cuda_stream
        rc = self.cuda.cuMemsetD8Async(self.buf.data_ptr(), 0, self.nbytes, stream)
        if rc != 0:
            raise RuntimeError(f"cuMemsetD8Async failed: CUresult {rc}")


def warm_up(op, ms):
    torch.cuda.synchronize()
    end = time.perf_counter() + ms / 1000.0
    while time.perf_counter() < end:
        op()
        torch.cuda.synchronize()


def repetition(op, op2):
    """One repetition's work after its flush. --twice runs the op again on
    inputs of its own (op2), untouched since the flush: the same op again
    would read its rows from a warm L2 and run faster where they fit, and the
    known slowdown must be exactly 2x. (A flush between the two would not do:
    a flush is where tileport bench starts a new iteration.)"""
    if op2 is not None:
        return lambda: (op(), op2())
    return op


def measure(name, op, reps, warmup_ms, flush, op2=None):
    """One configuration, as the protocol says."""
    run = repetition(op, op2)
    warm_up(run, warmup_ms)
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_push("tileport:" + name)
    for _ in range(reps):
        flush()
        run()
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_pop()


def profile(name, op, reps, warmup_ms, flush, op2=None):
    """The same repetitions timed by torch.profiler (for the agreement check
    only: never inside a process the injection library measures). The flush
    is queued right before the op inside the session, as measure() does: a
    kernel that starts behind the flush's memset measured about 0.5 us (5 %
    at 11 us) longer on an H200 than one started on an idle GPU after a
    synchronize, so anything else would compare two protocols."""
    from torch.profiler import ProfilerActivity, profile as tprofile
    run = repetition(op, op2)
    warm_up(run, warmup_ms)
    times = []
    for _ in range(reps):
        torch.cuda.synchronize()
        with tprofile(activities=[ProfilerActivity.CUDA]) as prof:
            flush()
            run()
            torch.cuda.synchronize()
        # the device-side events are the kernels (and copies) themselves
        us = sum(e.time_range.elapsed_us() for e in prof.events()
                 if e.device_type == torch.autograd.DeviceType.CUDA
                 and "memset" not in e.name.lower())
        times.append(us)
    return times


def main(description, make_op):
    """make_op(M, N, dtype) -> a callable running the op once on random inputs."""
    a = parse_args(description)
    torch.manual_seed(0)
    flush = Flusher()
    results = {}
    for name, m, n, dt in configs_of(a.configs):
        op = make_op(m, n, dt)
        op2 = make_op(m, n, dt) if a.twice else None
        if a.torch_profiler:
            results[name] = profile(name, op, a.reps, a.warmup_ms, flush, op2)
        else:
            measure(name, op, a.reps, a.warmup_ms, flush, op2)
    if a.torch_profiler:
        import json
        with open(a.torch_profiler, "w") as f:
            json.dump(results, f)
    # the traces are written at exit; a runner that leaves with os._exit
    # calls the library's tileport_cupti_flush() first
