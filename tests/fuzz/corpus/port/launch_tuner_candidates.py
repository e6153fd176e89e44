from typing import NamedTuple

import cuda.tile as tile
import torch


@tile.kernel
def fill_split(dst, n, SPLIT: tile.Constant[int]):
    tile.store(dst, index=(tile.bid(0),), tile=tile.zeros((SPLIT,), dtype=tile.float32))


@tile.kernel
def fill_lanes(dst, n, LANES: tile.Constant[int]):
    tile.store(dst, index=(tile.bid(0),), tile=tile.full((LANES,), 1.0, dtype=tile.float32))


class Cand(NamedTuple):
    fn: tile.kernel
    sizes: list


def pick(dst, stream):
    best, best_us, best_cfg = None, float("inf"), None
    for cand in (Cand(fill_split, [8, 16]), Cand(fn=fill_lanes, sizes=[32])):
        res = tile.tune.exhaustive_search(cand.sizes, stream, lambda c: (8, 1, 1), cand.fn,
                                          lambda c: (dst, dst.numel(), c), lambda c: {},
                                          quiet=True)
        if res.best.mean_us < best_us:
            best, best_us, best_cfg = cand.fn, res.best.mean_us, res.best.config
    return best.replace_hints(occupancy=2), best_cfg


def fill(dst, tuned=True):
    stream = torch.cuda.current_stream()
    if tuned:
        fn, size = pick(dst, stream)
    elif dst.numel() > 1024:
        fn = fill_lanes
        size = 32
    else:
        fn = fill_split
        size = 8
    tile.launch(stream, (8, 1, 1), fn, (dst, dst.numel(), size))
