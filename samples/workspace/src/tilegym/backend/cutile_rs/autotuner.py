"""A small autotuner for cutile-rs launches: time each config with CUDA events
(after a warm-up launch), keep the fastest per key, and reuse it."""
import torch

_BEST = {}


def autotune_launch(kernel_fn, configs, key, kernel_name, warmup=2, rep=10):
    cache_key = (kernel_name,) + tuple(key)
    if cache_key in _BEST:
        return kernel_fn(_BEST[cache_key])
    best, best_ms, out = None, None, None
    for cfg in configs:
        for _ in range(warmup):
            kernel_fn(cfg)
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(rep):
            out = kernel_fn(cfg)
        end.record()
        torch.cuda.synchronize()
        ms = start.elapsed_time(end) / rep
        if best_ms is None or ms < best_ms:
            best, best_ms = cfg, ms
    _BEST[cache_key] = best
    return kernel_fn(best) if out is None else out
