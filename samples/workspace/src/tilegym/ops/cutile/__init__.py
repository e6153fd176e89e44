from ...backend.selector import is_backend_available

if is_backend_available("cutile"):
    from . import layer_norm, matmul, silu_and_mul, softmax  # noqa: F401
