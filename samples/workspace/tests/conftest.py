"""pytest hooks of the sample workspace.

--print-record prints what a test recorded with
record_property("benchmark", payload) as a `Performance Test Results`
section once the test has run, before its PASSED/FAILED word:

    ==================== Performance Test Results ====================
    test: tests/ops/test_softmax.py::Test_Softmax::test_perf[4096-1024-float16-cutile]
    {"cutile": {"forward": {"median": 0.0301, "rel_std": 1.1, "nrep": 120, ...}}}

That is the perf-log format tileport reads (its docs/formats.md, "Perf
logs"): `tileport validate perf-log` counts these sections against the
PASSED lines and `tileport perf` pairs their medians by parameter string.
The payload is TileGym's, {framework: {"forward": stats}}, stats in ms.

The perf_benchmark fixture measures a callable the way TileGym's CUPTI
mode does (tests/common.py benchmark_fn_cupti): per repetition, a 256 MB
L2 flush and a synchronize outside the profiler, then one call inside a
torch.profiler session; the sample is the device time of its kernels.
"""
import json
import math
import os

import pytest

MARKER = "Performance Test Results"


def pytest_addoption(parser):
    parser.addoption("--print-record", action="store_true", default=False,
                     help="Print record_property content in tests")


def _finite(v):
    """JSON has no NaN or Infinity: they become null."""
    if isinstance(v, float) and not math.isfinite(v):
        return None
    if isinstance(v, dict):
        return {str(k): _finite(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_finite(x) for x in v]
    return v


def perf_section(nodeid, payload):
    """The section's lines for one record_property("benchmark", payload)."""
    return ["=" * 20 + " " + MARKER + " " + "=" * 20,
            "test: " + nodeid,
            json.dumps(_finite(payload), sort_keys=True, default=float)]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.when != "call" or not item.config.getoption("--print-record"):
        return
    reporter = item.config.pluginmanager.get_plugin("terminalreporter")
    for name, value in report.user_properties:
        if name != "benchmark":
            continue
        for line in perf_section(item.nodeid, value):
            if reporter is not None:
                reporter.write_line(line)
            else:
                print(line)


def _env_ms(name, default):
    try:
        return float(os.environ.get(name, default))
    except ValueError:
        return float(default)


@pytest.fixture
def perf_benchmark():
    """perf_benchmark(framework, fn) -> {framework: {"forward": stats}}, for
    record_property("benchmark", ...). WARMUP and REP (ms) and MIN_REP come
    from the environment as in TileGym (100, 50, 2)."""
    import torch
    from torch.profiler import ProfilerActivity, profile

    def run(framework, fn):
        warmup_ms, rep_ms = _env_ms("WARMUP", 100), _env_ms("REP", 50)
        min_rep = int(_env_ms("MIN_REP", 2))
        fn()
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(5):
            fn()
        end.record()
        torch.cuda.synchronize()
        est = max(start.elapsed_time(end) / 5, 1e-3)
        for _ in range(max(1, int(warmup_ms / est))):
            fn()
        cache = torch.empty(int(256e6) // 4, dtype=torch.int32, device="cuda")
        samples, per_rep = [], []
        for _ in range(max(min_rep, int(rep_ms / est))):
            cache.zero_()
            torch.cuda.synchronize()
            with profile(activities=[ProfilerActivity.CUDA]) as prof:
                fn()
                torch.cuda.synchronize()
            kernels = {}
            for e in prof.events():
                if e.device_type != torch.autograd.DeviceType.CUDA:
                    continue
                us = e.time_range.elapsed_us()
                t, c = kernels.get(e.name, (0.0, 0))
                kernels[e.name] = (t + us, c + 1)
            if not kernels:
                raise RuntimeError("CUPTI recorded no kernel for " + framework)
            per_rep.append(kernels)
            samples.append(sum(t for t, _ in kernels.values()) / 1000.0)
        ordered = sorted(samples)
        n = len(samples)
        mean = sum(samples) / n
        std = (sum((s - mean) ** 2 for s in samples) / (n - 1)) ** 0.5 if n > 1 else 0.0
        middle = per_rep[n // 2]
        top = max(middle.items(), key=lambda kv: kv[1][0])[0]
        stats = {
            "median": ordered[n // 2] if n % 2 else (ordered[n // 2 - 1] + ordered[n // 2]) / 2,
            "mean": mean, "std": std, "rel_std": 100.0 * std / mean if mean else 0.0,
            "min": ordered[0], "max": ordered[-1], "nrep": n,
            "kernel_name": top,
            "kernels_per_iter": sum(c for _, c in middle.values()),
            "kernel_times": [{"name": k, "self_time_us": t, "total_time_us": t, "count": c}
                             for k, (t, c) in sorted(middle.items())],
        }
        return {framework: {"forward": stats}}
    return run
