# Arrays reached two ways: the row sums are stored as one tile when the
# rows fill whole tiles (EXACT) and scattered lane by lane otherwise, and
# the scale table is loaded as a tile or gathered in the same branches.
# Written positionally, with a bool Constant and a module-level tile height.
import cuda.tile as ct
import torch

ROWS = 4


@ct.kernel
def fold_rows(src, scale, sums, LANES: ct.Constant[int], EXACT: ct.Constant[bool]):
    blk = ct.bid(0)
    rows = ct.load(src, (blk, 0), (ROWS, LANES), padding_mode=ct.PaddingMode.ZERO)
    wide = rows.astype(ct.float32)
    if EXACT:
        k = ct.load(scale, (blk,), (ROWS,)).astype(ct.float32)
        ct.store(sums, (blk,), (ct.sum(wide, axis=1) * k).astype(sums.dtype))
    else:
        lane = blk * ROWS + ct.arange(ROWS, dtype=ct.int32)
        k = ct.gather(scale, lane).astype(ct.float32)
        ct.scatter(sums, lane, (ct.sum(wide, axis=1) * k).astype(sums.dtype))


def fold(src, scale):
    n = src.shape[0]
    sums = torch.empty((n,), dtype=src.dtype, device=src.device)
    grid = ((n + ROWS - 1) // ROWS, 1, 1)
    ct.launch(torch.cuda.current_stream(), grid, fold_rows, (src, scale, sums, src.shape[1], n % ROWS == 0))
    return sums
