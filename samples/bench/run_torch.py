#!/usr/bin/env python3
"""tileport bench runner: PyTorch's softmax over rows (the reference side in
the examples of docs/perf.md). Run it under tileport bench:

    tileport bench --ref 'python3 samples/bench/run_torch.py' \
                   --cand 'python3 samples/bench/run_triton.py'
"""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import protocol  # noqa: E402


def make_op(m, n, dtype):
    x = torch.randn((m, n), device="cuda", dtype=dtype)
    return lambda: torch.softmax(x, dim=-1)


if __name__ == "__main__":
    protocol.main("softmax with torch.softmax", make_op)
