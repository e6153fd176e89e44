from ...backend.selector import is_backend_available

if is_backend_available("triton"):
    from . import rms_norm  # noqa: F401
