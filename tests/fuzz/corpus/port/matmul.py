"""Matrix multiply C = A @ B in cuTile Python.

Each tile block computes one (TILE_M, TILE_N) tile of C, walking the K
dimension in TILE_K steps and accumulating with ct.mma into a float32 tile.
float32 inputs are multiplied as tfloat32 (tensor cores); float16 and
bfloat16 inputs go in as they are. Edges are zero padded.
"""
import cuda.tile as ct
import torch

from ...backend import register_impl


@ct.kernel
def matmul_kernel(C, A, B, TILE_M: ct.Constant[int], TILE_N: ct.Constant[int],
                  TILE_K: ct.Constant[int]):
    bid_m = ct.bid(0)
    bid_n = ct.bid(1)
    num_k = ct.num_tiles(A, axis=1, shape=(TILE_M, TILE_K))
    acc = ct.full((TILE_M, TILE_N), 0.0, dtype=ct.float32)
    dtype = ct.tfloat32 if A.dtype == ct.float32 else A.dtype
    for k in range(num_k):
        a = ct.load(A, index=(bid_m, k), shape=(TILE_M, TILE_K), padding_mode=ct.PaddingMode.ZERO)
        b = ct.load(B, index=(k, bid_n), shape=(TILE_K, TILE_N), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(ct.astype(a, dtype), ct.astype(b, dtype), acc)
    ct.store(C, index=(bid_m, bid_n), tile=ct.astype(acc, C.dtype))


@register_impl("matmul", backend="cutile")
def matmul(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    if a.dim() != 2 or b.dim() != 2 or a.shape[1] != b.shape[0]:
        raise ValueError("matmul expects (M, K) @ (K, N)")
    if a.dtype != b.dtype or a.dtype not in (torch.float16, torch.bfloat16, torch.float32):
        raise TypeError(f"unsupported dtypes {a.dtype}, {b.dtype}")
    m, _ = a.shape
    _, n = b.shape
    c = torch.empty((m, n), dtype=a.dtype, device=a.device)
    tile_m, tile_n, tile_k = (64, 64, 32) if a.dtype == torch.float32 else (128, 128, 64)
    grid = (ct.cdiv(m, tile_m), ct.cdiv(n, tile_n), 1)
    ct.launch(torch.cuda.current_stream(), grid, matmul_kernel, (c, a, b, tile_m, tile_n, tile_k))
    return c
