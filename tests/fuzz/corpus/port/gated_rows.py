# A row gate written with method calls on tiles: a Constant named D (a
# name cutile's own operator impls use), ct.sigmoid, a tile shape that
# changes when a Constant equals 1 (`if ROWS != 1`), and a one-element
# scatter of the row's total.
import cuda.tile as ct
import torch


@ct.kernel
def gated_rows(x, out, totals, D: ct.Constant[int], ROWS: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, index=(i, 0), shape=(ROWS, D), padding_mode=ct.PaddingMode.ZERO).astype(ct.float32)
    m = ct.sum(t, axis=1) / D
    if ROWS != 1:
        m = m[:, None]
    g = ct.sigmoid(t - m) * t
    ct.store(out, index=(i, 0), tile=g.astype(out.dtype))
    row_sums = ct.sum(g, axis=1)
    ct.scatter(totals, ct.full((1,), i, dtype=ct.int32), ct.sum(row_sums, axis=0, keepdims=True))


def gate(x, rows):
    out = torch.empty_like(x)
    totals = torch.empty((x.shape[0] // rows,), dtype=torch.float32, device=x.device)
    ct.launch(torch.cuda.current_stream(), (x.shape[0] // rows, 1, 1), gated_rows,
              (x, out, totals, x.shape[1], rows))
    return out, totals
