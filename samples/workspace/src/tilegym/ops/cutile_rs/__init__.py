"""cuTile Rust backend: converted operators register themselves here."""
from ...backend.selector import is_backend_available

if is_backend_available("cutile-rs"):
    pass  # converted operators are imported here: from . import {op}  # noqa: F401
