class K:
    def __init__(self):
        self._fn = getattr(lib, "cutile_op")
    def __call__(self, x):
        if x is None:
            raise ValueError
        return self._fn(x)

def get():
    return lib.cutile_op

@reg
def op(x): return get()(x)
if False:
    lib.cutile_op(1)
s = r"""
lib.cutile_op(\"x\")
"""
