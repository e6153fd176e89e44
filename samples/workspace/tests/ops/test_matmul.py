"""Correctness and performance tests for matmul, in TileGym's style.

float32 inputs are multiplied in tfloat32, hence the wider float32 tolerance.
"""
import pytest
import torch

import tilegym

_backends = ["cutile"]


def reference(a, b):
    return torch.matmul(a.float(), b.float()).to(a.dtype)


TOLERANCE = {
    torch.float16: dict(atol=1e-2, rtol=1e-2),
    torch.bfloat16: dict(atol=5e-2, rtol=5e-2),
    torch.float32: dict(atol=1e-2, rtol=1e-2),
}


class Test_Matmul:
    @pytest.mark.parametrize("backend", _backends)
    @pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32])
    @pytest.mark.parametrize("M, N, K", [(128, 128, 64), (1000, 500, 300), (2048, 2048, 1024)])
    def test_op(self, M, N, K, dtype, backend):
        torch.manual_seed(0)
        a = torch.randn((M, K), device="cuda", dtype=dtype)
        b = torch.randn((K, N), device="cuda", dtype=dtype)
        c = tilegym.ops.matmul(a, b, backend=backend)
        torch.testing.assert_close(c, reference(a, b), **TOLERANCE[dtype])

    @pytest.mark.parametrize("backend", _backends)
    @pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
    @pytest.mark.parametrize("M, N, K", [(4096, 4096, 4096), (8192, 8192, 1024)])
    def test_perf(self, M, N, K, dtype, backend, record_property, perf_benchmark):
        a = torch.randn((M, K), device="cuda", dtype=dtype)
        b = torch.randn((K, N), device="cuda", dtype=dtype)
        fn = lambda: tilegym.ops.matmul(a, b, backend=backend)  # noqa: E731
        # --print-record prints it as a "Performance Test Results" section
        # (tests/conftest.py), the perf log tileport pairs
        record_property("benchmark", perf_benchmark(backend, fn))
