"""Tiled matrix multiply in cuTile Python: C = A @ B.

Each tile block computes one BM x BN tile of C. It walks K in steps of BK,
loading a BM x BK tile of A and a BK x BN tile of B (zero padded at the
edges), and accumulates their product in float32 with ct.mma. The grid is
two-dimensional: one block per output tile, no persistence.
"""
import cuda.tile as ct
import torch

from ...backend import register_impl


@ct.kernel
def matmul_kernel(A, B, C, BM: ct.Constant[int], BN: ct.Constant[int], BK: ct.Constant[int]):
    bid_m = ct.bid(0)
    bid_n = ct.bid(1)
    num_k = ct.cdiv(A.shape[1], BK)
    acc = ct.full((BM, BN), 0, dtype=ct.float32)
    for k in range(num_k):
        a = ct.load(A, index=(bid_m, k), shape=(BM, BK), padding_mode=ct.PaddingMode.ZERO)
        b = ct.load(B, index=(k, bid_n), shape=(BK, BN), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bid_m, bid_n), tile=ct.astype(acc, C.dtype))


@register_impl("matmul", backend="cutile")
def matmul(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    if a.dim() != 2 or b.dim() != 2 or a.shape[1] != b.shape[0]:
        raise ValueError("matmul expects (M, K) @ (K, N)")
    if a.dtype not in (torch.float16, torch.bfloat16) or b.dtype != a.dtype:
        raise TypeError(f"unsupported dtypes {a.dtype}, {b.dtype}")
    a, b = a.contiguous(), b.contiguous()
    m, n = a.shape[0], b.shape[1]
    bm, bn, bk = 64, 64, 32
    c = torch.empty((m, n), dtype=a.dtype, device=a.device)
    grid = (ct.cdiv(m, bm), ct.cdiv(n, bn), 1)
    ct.launch(torch.cuda.current_stream(), grid, matmul_kernel, (a, b, c, bm, bn, bk))
    return c
