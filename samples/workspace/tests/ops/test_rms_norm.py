"""Correctness and performance tests for rms_norm, in TileGym's style.

The reference operator is the Triton (Triton-TileIR) one.
"""
import pytest
import torch

import tilegym

_backends = ["triton"]


def reference(x, weight, eps):
    xf = x.float()
    y = xf * torch.rsqrt(xf.pow(2).mean(dim=-1, keepdim=True) + eps) * weight.float()
    return y.to(x.dtype)


TOLERANCE = {
    torch.float16: dict(atol=1e-2, rtol=1e-2),
    torch.bfloat16: dict(atol=5e-2, rtol=5e-2),
    torch.float32: dict(atol=1e-5, rtol=1e-5),
}


class Test_RMSNorm:
    @pytest.mark.parametrize("backend", _backends)
    @pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32])
    @pytest.mark.parametrize("shape", [(1, 64), (123, 1000), (2048, 4096)])
    def test_op(self, shape, dtype, backend):
        torch.manual_seed(0)
        x = torch.randn(shape, device="cuda", dtype=dtype)
        w = torch.randn(shape[-1], device="cuda", dtype=dtype)
        y = tilegym.ops.rms_norm(x, w, 1e-6, backend=backend)
        torch.testing.assert_close(y, reference(x, w, 1e-6), **TOLERANCE[dtype])

    @pytest.mark.parametrize("backend", _backends)
    @pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
    @pytest.mark.parametrize("M, N", [(4096, 4096), (16384, 2048)])
    def test_perf(self, M, N, dtype, backend, record_property, perf_benchmark):
        x = torch.randn((M, N), device="cuda", dtype=dtype)
        w = torch.randn(N, device="cuda", dtype=dtype)
        fn = lambda: tilegym.ops.rms_norm(x, w, 1e-6, backend=backend)  # noqa: E731
        # --print-record prints it as a "Performance Test Results" section
        # (tests/conftest.py), the perf log tileport pairs
        record_property("benchmark", perf_benchmark(backend, fn))
