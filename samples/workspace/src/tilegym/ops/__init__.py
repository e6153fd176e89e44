"""Operators. The cuTile Rust backend is imported only where it is available."""
from ..backend.selector import is_backend_available
from . import cutile  # noqa: F401
from .ops import softmax  # noqa: F401

if is_backend_available("cutile-rs"):
    from . import cutile_rs  # noqa: F401
