"""Layer norm over the last dimension in cuTile Python, for 2-D (M, N) and
3-D (B, M, N) inputs without reshaping them.

A tile block normalises TILE_M rows at once. The BATCHED constant chooses the
tile rank: (1, TILE_M, TILE_N) tiles of a 3-D input, indexed by the batch in
grid axis 1, or (TILE_M, TILE_N) tiles of a 2-D one. Python's JIT compiles
only the branch a launch takes; the two branches are different kernels in
the Tile IR (and two entries in cuTile Rust). Columns past n_cols are zero
padding, masked out of the variance.
"""
import cuda.tile as ct
import torch

from ...backend import register_impl


def next_power_of_2(n: int) -> int:
    return 1 << (n - 1).bit_length()


@ct.kernel
def layer_norm_kernel(Y, X, W, B, n_cols: int, eps: float, TILE_M: ct.Constant[int],
                      TILE_N: ct.Constant[int], BATCHED: ct.Constant[bool]):
    row_block = ct.bid(0)
    if BATCHED:
        batch = ct.bid(1)
        x = ct.load(X, index=(batch, row_block, 0), shape=(1, TILE_M, TILE_N),
                    padding_mode=ct.PaddingMode.ZERO)
        axis = 2
    else:
        x = ct.load(X, index=(row_block, 0), shape=(TILE_M, TILE_N),
                    padding_mode=ct.PaddingMode.ZERO)
        axis = 1
    x = ct.astype(x, ct.float32)
    cols = ct.arange(TILE_N, dtype=ct.int32)
    mean = ct.sum(x, axis=axis, keepdims=True) / n_cols
    xc = ct.where(cols < n_cols, x - mean, 0.0)
    var = ct.sum(xc * xc, axis=axis, keepdims=True) / n_cols
    rstd = ct.rsqrt(var + eps)
    w = ct.astype(ct.load(W, index=(0,), shape=(TILE_N,), padding_mode=ct.PaddingMode.ZERO),
                  ct.float32)
    b = ct.astype(ct.load(B, index=(0,), shape=(TILE_N,), padding_mode=ct.PaddingMode.ZERO),
                  ct.float32)
    y = ct.astype(xc * rstd * w + b, Y.dtype)
    if BATCHED:
        ct.store(Y, index=(batch, row_block, 0), tile=y)
    else:
        ct.store(Y, index=(row_block, 0), tile=y)


@register_impl("layer_norm", backend="cutile")
def layer_norm(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor,
               eps: float = 1e-5) -> torch.Tensor:
    if x.dim() not in (2, 3):
        raise ValueError("layer_norm expects a 2-D or 3-D input")
    if x.dtype not in (torch.float16, torch.bfloat16, torch.float32):
        raise TypeError(f"unsupported dtype {x.dtype}")
    x = x.contiguous()
    n_cols = x.shape[-1]
    n_rows = x.shape[-2]
    tile_n = next_power_of_2(n_cols)
    tile_m = max(1, min(16, 4096 // tile_n))
    batched = x.dim() == 3
    y = torch.empty_like(x)
    grid = (ct.cdiv(n_rows, tile_m), x.shape[0] if batched else 1, 1)
    ct.launch(torch.cuda.current_stream(), grid, layer_norm_kernel,
              (y, x, weight, bias, n_cols, eps, tile_m, tile_n, batched))
    return y
