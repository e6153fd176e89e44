"""Row-wise softmax in cuTile Python.

One tile block handles whole rows: it loads a row as a (1, TILE_SIZE) tile
padded with -inf, subtracts the row maximum, exponentiates, and divides by the
row sum with an approximate, flush-to-zero division. The grid is persistent:
at most NUM_SM * OCCUPANCY blocks, each striding over the rows.
"""
import cuda.tile as ct
import torch

from ...backend import register_impl

OCCUPANCY = 4


def next_power_of_2(n: int) -> int:
    return 1 << (n - 1).bit_length()


@ct.kernel(occupancy=OCCUPANCY)
def softmax_kernel(output, input, n_rows: int, TILE_SIZE: ct.Constant[int]):
    pid = ct.bid(0)
    num_programs = ct.num_blocks(0)
    for row in range(pid, n_rows, num_programs):
        x = ct.load(input, index=(row, 0), shape=(1, TILE_SIZE),
                    padding_mode=ct.PaddingMode.NEG_INF)
        x = ct.astype(x, ct.float32)
        row_max = ct.max(x, axis=1, keepdims=True)
        num = ct.exp(x - row_max)
        den = ct.sum(num, axis=1, keepdims=True)
        y = ct.truediv(num, den, flush_to_zero=True, rounding_mode=ct.RoundingMode.APPROX)
        ct.store(output, index=(row, 0), tile=ct.astype(y, output.dtype))


@register_impl("softmax", backend="cutile")
def softmax(x: torch.Tensor) -> torch.Tensor:
    if x.dim() != 2:
        raise ValueError("softmax expects a 2-D tensor (rows x cols)")
    if x.dtype not in (torch.float16, torch.bfloat16, torch.float32):
        raise TypeError(f"unsupported dtype {x.dtype}")
    x = x.contiguous()
    n_rows, n_cols = x.shape
    tile_size = next_power_of_2(n_cols)
    y = torch.empty_like(x)
    num_sm = torch.cuda.get_device_properties(x.device).multi_processor_count
    grid = (min(n_rows, num_sm * OCCUPANCY), 1, 1)
    ct.launch(torch.cuda.current_stream(), grid, softmax_kernel, (y, x, n_rows, tile_size))
    return y
