"""Correctness and performance tests for layer_norm, in TileGym's style.

Both input ranks are exercised: 2-D (M, N) and 3-D (B, M, N) inputs take
different structural variants of the kernel.
"""
import pytest
import torch

import tilegym

_backends = ["cutile"]


def reference(x, weight, bias, eps):
    y = torch.nn.functional.layer_norm(x.float(), (x.shape[-1],), weight.float(), bias.float(), eps)
    return y.to(x.dtype)


TOLERANCE = {
    torch.float16: dict(atol=1e-2, rtol=1e-2),
    torch.bfloat16: dict(atol=5e-2, rtol=5e-2),
    torch.float32: dict(atol=1e-4, rtol=1e-4),
}


class Test_LayerNorm:
    @pytest.mark.parametrize("backend", _backends)
    @pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32])
    @pytest.mark.parametrize("shape", [(7, 100), (512, 1024), (4, 33, 768)])
    def test_op(self, shape, dtype, backend):
        torch.manual_seed(0)
        x = torch.randn(shape, device="cuda", dtype=dtype)
        w = torch.randn(shape[-1], device="cuda", dtype=dtype)
        b = torch.randn(shape[-1], device="cuda", dtype=dtype)
        y = tilegym.ops.layer_norm(x, w, b, 1e-5, backend=backend)
        torch.testing.assert_close(y, reference(x, w, b, 1e-5), **TOLERANCE[dtype])

    @pytest.mark.parametrize("backend", _backends)
    @pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
    @pytest.mark.parametrize("shape", [(4096, 4096), (8, 2048, 1024)])
    def test_perf(self, shape, dtype, backend, record_property, perf_benchmark):
        x = torch.randn(shape, device="cuda", dtype=dtype)
        w = torch.randn(shape[-1], device="cuda", dtype=dtype)
        b = torch.randn(shape[-1], device="cuda", dtype=dtype)
        fn = lambda: tilegym.ops.layer_norm(x, w, b, 1e-5, backend=backend)  # noqa: E731
        # --print-record prints it as a "Performance Test Results" section
        # (tests/conftest.py), the perf log tileport pairs
        record_property("benchmark", perf_benchmark(backend, fn))
