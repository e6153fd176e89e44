"""Which backends exist on this machine, and which one is current."""
import importlib.util
import os
import shutil

_current = os.environ.get("CUTILE_TUTORIALS_BACKEND", "cutile")


def _cutile_available():
    return importlib.util.find_spec("cuda.tile") is not None


def _triton_available():
    return importlib.util.find_spec("triton") is not None


def is_cutile_rs_available():
    crate = os.path.join(os.path.dirname(__file__), "..", "ops", "cutile_rs", "cutile_kernels")
    if not os.path.isdir(crate):
        return False
    lib = os.path.join(crate, "target", "release", "libcutile_kernels.so")
    autobuild = os.environ.get("CUTILE_RS_AUTOBUILD", "1").lower() not in ("0", "false", "no")
    if not autobuild:
        return os.path.exists(lib)
    return shutil.which("cargo") is not None or os.path.exists(lib)


def _check_backends_availability():
    return {
        "cutile": _cutile_available(),
        "triton": _triton_available(),
        "cutile-rs": is_cutile_rs_available(),
    }


_AVAILABLE_BACKENDS = [k for k, ok in _check_backends_availability().items() if ok]


def is_backend_available(name):
    return name in _AVAILABLE_BACKENDS


def set_backend(name):
    global _current
    if name not in _AVAILABLE_BACKENDS:
        raise ValueError(f"backend {name!r} is not available here")
    _current = name


def get_current_backend():
    return _current
