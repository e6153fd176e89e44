"""A minimal op registry: @register_impl(name, backend=...) and @dispatch(name)."""
from .selector import get_current_backend

_REGISTRY = {}


def register_impl(name, backend):
    def wrap(fn):
        _REGISTRY.setdefault(name, {})[backend] = fn
        return fn

    return wrap


def dispatch(name, fallback_backend="cutile"):
    def wrap(default_fn):
        def call(*args, backend=None, **kwargs):
            impls = _REGISTRY.get(name, {})
            chosen = backend or get_current_backend()
            fn = impls.get(chosen) or impls.get(fallback_backend) or default_fn
            return fn(*args, **kwargs)

        return call

    return wrap
