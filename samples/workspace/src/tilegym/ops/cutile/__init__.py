from ...backend.selector import is_backend_available

if is_backend_available("cutile"):
    from . import softmax  # noqa: F401
