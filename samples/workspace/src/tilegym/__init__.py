"""Sample TileGym-layout package for tileport (a small subset of the real layout)."""
from . import backend, ops  # noqa: F401
