#!/usr/bin/env python3
"""tileport bench runner: a Triton softmax over rows, one program per row
(Triton's tutorial kernel). Compiled during the warm-up, outside the
measured range."""
import os
import sys

import torch
import triton
import triton.language as tl

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import protocol  # noqa: E402


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_stride, out_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * in_stride + cols, mask=mask, other=-float("inf")).to(tl.float32)
    x = x - tl.max(x, axis=0)
    e = tl.exp(x)
    y = e / tl.sum(e, axis=0)
    tl.store(out_ptr + row * out_stride + cols, y.to(out_ptr.dtype.element_ty), mask=mask)


def make_op(m, n, dtype):
    x = torch.randn((m, n), device="cuda", dtype=dtype)
    y = torch.empty_like(x)
    block = triton.next_power_of_2(n)
    warps = 4 if block <= 2048 else 8 if block <= 4096 else 16

    def op():
        softmax_kernel[(m,)](y, x, x.stride(0), y.stride(0), n, BLOCK=block, num_warps=warps)
        return y
    return op


if __name__ == "__main__":
    protocol.main("softmax with a Triton kernel", make_op)
