import cuda.tile as ct


@ct.kernel
def scale_rows(X, Y, TILE: ct.Constant[int]):
    row = ct.bid(0)
    x = ct.load(X, index=(row, 0), shape=(1, TILE))
    ct.store(Y, index=(row, 0), tile=x * 2.0)


@ct.kernel
def count_up(X, N: ct.Constant[int]):
    i = ct.bid(0)
    while i < N:
        i = i + 1
