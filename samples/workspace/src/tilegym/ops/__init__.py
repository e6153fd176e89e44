"""Operators. Each backend's package is imported only where it is available."""
import warnings

from ..backend import selector
from ..backend.selector import is_backend_available
from . import cutile, triton  # noqa: F401
from .ops import layer_norm, matmul, rms_norm, silu_and_mul, softmax  # noqa: F401

if is_backend_available("cutile-rs"):
    try:
        from . import cutile_rs  # noqa: F401
    except (ImportError, RuntimeError) as e:
        warnings.warn(f"cutile-rs backend disabled: {e}")
        selector._AVAILABLE_BACKENDS.remove("cutile-rs")
