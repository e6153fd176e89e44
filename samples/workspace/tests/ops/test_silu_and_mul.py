"""Correctness and performance tests for silu_and_mul, in TileGym's style.

test_op compares each backend with the float32 reference; test_perf is the
benchmark the pipeline pairs between backends (run with -sv --print-record).
"""
import pytest
import torch

import tilegym

_backends = ["cutile"]


def reference(x: torch.Tensor) -> torch.Tensor:
    a, b = x.float().chunk(2, dim=-1)
    return (torch.nn.functional.silu(a) * b).to(x.dtype)


TOLERANCE = {
    torch.float16: dict(atol=1e-3, rtol=1e-3),
    torch.bfloat16: dict(atol=1e-2, rtol=1e-2),
    torch.float32: dict(atol=1e-5, rtol=1e-5),
}


class Test_SiLUAndMul:
    @pytest.mark.parametrize("backend", _backends)
    @pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32])
    @pytest.mark.parametrize("shape", [(1, 256), (37, 2000), (1024, 8192)])
    def test_op(self, shape, dtype, backend):
        torch.manual_seed(0)
        x = torch.randn(shape, device="cuda", dtype=dtype)
        y = tilegym.ops.silu_and_mul(x, backend=backend)
        torch.testing.assert_close(y, reference(x), **TOLERANCE[dtype])

    @pytest.mark.parametrize("backend", _backends)
    @pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
    @pytest.mark.parametrize("M, N", [(4096, 4096), (8192, 11008)])
    def test_perf(self, M, N, dtype, backend, record_property, perf_benchmark):
        x = torch.randn((M, 2 * N), device="cuda", dtype=dtype)
        fn = lambda: tilegym.ops.silu_and_mul(x, backend=backend)  # noqa: E731
        # --print-record prints it as a "Performance Test Results" section
        # (tests/conftest.py), the perf log tileport pairs
        record_property("benchmark", perf_benchmark(backend, fn))
