"""Correctness and performance tests for softmax, in TileGym's style.

test_op compares each backend against torch.softmax computed in float32;
test_perf is the benchmark the pipeline pairs between backends (run with
-sv --print-record; tests/conftest.py measures and prints the record).
"""
import pytest
import torch

import tilegym

_backends = ["cutile"]


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.softmax(x.float(), dim=-1).to(x.dtype)


TOLERANCE = {
    torch.float16: dict(atol=1e-3, rtol=1e-3),
    torch.bfloat16: dict(atol=1e-2, rtol=1e-2),
    torch.float32: dict(atol=1e-5, rtol=1e-5),
}


class Test_Softmax:
    @pytest.mark.parametrize("backend", _backends)
    @pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32])
    @pytest.mark.parametrize("shape", [(1, 128), (37, 1000), (4096, 4096)])
    def test_op(self, shape, dtype, backend):
        torch.manual_seed(0)
        x = torch.randn(shape, device="cuda", dtype=dtype)
        y = tilegym.ops.softmax(x, backend=backend)
        torch.testing.assert_close(y, reference(x), **TOLERANCE[dtype])

    @pytest.mark.parametrize("backend", _backends)
    # ids: the parameter string is the pairing key ("4096-1024-float16-cutile")
    @pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16],
                             ids=lambda d: str(d).replace("torch.", ""))
    @pytest.mark.parametrize("M, N", [(4096, 1024), (4096, 4096), (16384, 8192)])
    def test_perf(self, M, N, dtype, backend, record_property, perf_benchmark):
        x = torch.randn((M, N), device="cuda", dtype=dtype)
        fn = lambda: tilegym.ops.softmax(x, backend=backend)  # noqa: E731
        # --print-record prints it as a "Performance Test Results" section
        # (tests/conftest.py), the perf log tileport pairs
        record_property("benchmark", perf_benchmark(backend, fn))
