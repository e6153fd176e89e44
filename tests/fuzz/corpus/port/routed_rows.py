# Routing read from memory, in the style of NVIDIA's samples (positional
# index and shape, a module-level alias for the constant annotation): a
# block's expert comes from `route` through .item() and arithmetic and picks
# the weight row a view load reads; the rows it gathers are a permutation
# loaded from `perm` and reshaped. The host does not type route or perm:
# their use as indices says they hold int32, as cuTile Python compiles them
# for the int32 tensors the host hands over.
import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]


@ct.kernel
def routed_rows(src, perm, route, weight, dst, ROWS: ConstInt, COLS: ConstInt):
    blk = ct.bid(0)
    expert = ct.load(route, (blk,), (1,)).item()
    w = ct.load(weight, (expert * 2 + 1, 0), (1, COLS))
    picked = ct.load(perm, (blk,), (ROWS,)).reshape((ROWS, 1))
    cols = ct.arange(COLS, dtype=ct.int32).reshape((1, COLS))
    rows = ct.gather(src, (picked, cols))
    ct.store(dst, (blk, 0), rows * w)


def routed(src, perm, route, weight):
    rows, cols = perm.shape[1], src.shape[1]
    dst = torch.empty((perm.shape[0] * rows, cols), dtype=src.dtype, device=src.device)
    ct.launch(torch.cuda.current_stream(), (perm.shape[0], 1, 1), routed_rows,
              (src, perm.view(-1), route, weight, dst, rows, cols))
    return dst
