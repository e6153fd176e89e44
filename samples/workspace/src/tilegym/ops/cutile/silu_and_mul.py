"""SiLU-and-mul in cuTile Python: out = silu(x[:, :H]) * x[:, H:].

One tile block per row. The row's two halves are read with ct.gather over a
column index tile, masked where the columns run past the hidden size (so any
hidden size works with a power-of-two tile), computed in float32, and the
product is written back with ct.scatter under the same mask.
"""
import cuda.tile as ct
import torch

from ...backend import register_impl


def next_power_of_2(n: int) -> int:
    return 1 << (n - 1).bit_length()


@ct.kernel
def silu_and_mul_kernel(out, x, hidden_size: int, TILE_SIZE: ct.Constant[int]):
    row = ct.bid(0)
    cols = ct.arange(TILE_SIZE, dtype=ct.int32)
    mask = cols < hidden_size
    a = ct.gather(x, (row, cols), mask=mask)
    b = ct.gather(x, (row, cols + hidden_size), mask=mask)
    a = ct.astype(a, ct.float32)
    b = ct.astype(b, ct.float32)
    silu = a * ct.truediv(1.0, 1.0 + ct.exp(-a))
    ct.scatter(out, (row, cols), ct.astype(silu * b, out.dtype), mask=mask)


@register_impl("silu_and_mul", backend="cutile")
def silu_and_mul(x: torch.Tensor) -> torch.Tensor:
    if x.dim() != 2 or x.shape[-1] % 2 != 0:
        raise ValueError("silu_and_mul expects a 2-D tensor with an even last dimension")
    if x.dtype not in (torch.float16, torch.bfloat16, torch.float32):
        raise TypeError(f"unsupported dtype {x.dtype}")
    n_rows, width = x.shape
    hidden = width // 2
    out = torch.empty((n_rows, hidden), dtype=x.dtype, device=x.device)
    grid = (n_rows, 1, 1)
    ct.launch(torch.cuda.current_stream(), grid, silu_and_mul_kernel,
              (out, x, hidden, next_power_of_2(hidden)))
    return out
