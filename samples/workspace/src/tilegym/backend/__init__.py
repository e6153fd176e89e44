"""Backend selection and the op registry used by the sample operators."""
from .dispatcher import dispatch, register_impl  # noqa: F401
from .selector import get_current_backend, is_backend_available, set_backend  # noqa: F401
