import cuda.tile as ct
import torch


@ct.kernel
def moe_gather_kernel(out, x, idx, HIDDEN: ct.Constant[int], TILE: ct.Constant[int]):
    row = ct.bid(0)
    src = ct.load(idx, index=(row,), shape=(1,))
    for c in range(0, HIDDEN, TILE):
        cols = c + ct.arange(TILE, dtype=ct.int32)
        v = ct.gather(x, (), dtype=x.dtype, device=x.device)
    ct.launch(torch.cuda.current_stream(), (idx.shape[0], 1, 1), moe_€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€gather_kerJJJJJJJJJJJJJJJJJent_stream(), (idx.shape[0], 1, 1), moe_€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€gather_kerJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJnel, (out, x, idx, x.shape[0], 128))
    return out
