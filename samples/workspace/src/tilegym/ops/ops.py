"""Public ops, dispatched to the current backend (or the one named with backend=)."""
from ..backend import dispatch


@dispatch("softmax", fallback_backend="cutile")
def softmax(x):
    raise NotImplementedError("no softmax implementation is registered for this backend")


@dispatch("silu_and_mul", fallback_backend="cutile")
def silu_and_mul(x):
    raise NotImplementedError("no silu_and_mul implementation is registered for this backend")


@dispatch("layer_norm", fallback_backend="cutile")
def layer_norm(x, weight, bias, eps=1e-5):
    raise NotImplementedError("no layer_norm implementation is registered for this backend")


@dispatch("matmul", fallback_backend="cutile")
def matmul(a, b):
    raise NotImplementedError("no matmul implementation is registered for this backend")


@dispatch("rms_norm", fallback_backend="triton")
def rms_norm(x, weight, eps=1e-6):
    raise NotImplementedError("no rms_norm implementation is registered for this backend")
