"""The cffi bridge to the cutile_kernels cdylib.

bind_kernel_function_cffi(kernel, cdef) builds the crate when its sources are
newer than the library (unless CUTILE_RS_AUTOBUILD=0), declares TensorDesc and
the kernel's C signature, opens the library and caches (ffi, lib) per kernel.
make_tensor_desc packs a CUDA tensor (at most 5-D) into a TensorDesc, and
check_rc turns a non-zero return code into a RuntimeError.
"""
import os
import subprocess

import torch

MAX_DIMS = 5

_TENSORDESC_CDEF = """
typedef struct {
    uint64_t ptr;
    int32_t ndim;
    int64_t shape[5];
    int64_t strides[5];
    int32_t dtype;
} TensorDesc;
"""

# dtype codes of ffi_util.rs
_DTYPE_CODES = {
    torch.float32: 0,
    torch.float16: 1,
    torch.bfloat16: 2,
    torch.int32: 3,
    torch.int64: 4,
}

RC_MESSAGES = {
    -2: "unsupported dtype or bad enum",
    -3: "JIT compilation or launch failed",
    -4: "device or stream setup failed",
    -5: "null tensor descriptor",
    -6: "invalid arguments",
}

_CACHE = {}


def _crate_dir():
    env = os.environ.get("CUTILE_RS_KERNELS_DIR")
    if env and os.path.isfile(os.path.join(env, "Cargo.toml")):
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.normpath(os.path.join(here, "..", "..", "ops", "cutile_rs", "cutile_kernels"))


def _library(crate):
    return os.path.join(crate, "target", "release", "libcutile_kernels.so")


def _stale(crate, lib):
    if not os.path.exists(lib):
        return True
    built = os.path.getmtime(lib)
    root = os.path.dirname(crate)
    for base, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d != "target"]
        for f in files:
            if f.endswith((".rs", ".toml")) and os.path.getmtime(os.path.join(base, f)) > built:
                return True
    return False


def bind_kernel_function_cffi(kernel, cdef):
    if kernel in _CACHE:
        return _CACHE[kernel]
    import cffi

    crate = _crate_dir()
    lib_path = _library(crate)
    autobuild = os.environ.get("CUTILE_RS_AUTOBUILD", "1").lower() not in ("0", "false", "no")
    if autobuild and _stale(crate, lib_path):
        subprocess.run(["cargo", "build", "--release"], cwd=crate, check=True, timeout=900)
    ffi = cffi.FFI()
    ffi.cdef(_TENSORDESC_CDEF + cdef)
    lib = ffi.dlopen(lib_path)
    _CACHE[kernel] = (ffi, lib)
    return ffi, lib


def make_tensor_desc(ffi, t):
    if not t.is_cuda:
        raise ValueError("cutile-rs tensors must be on a CUDA device")
    if t.dim() > MAX_DIMS:
        raise ValueError(f"cutile-rs tensors have at most {MAX_DIMS} dimensions")
    if t.dtype not in _DTYPE_CODES:
        raise TypeError(f"cutile-rs does not take {t.dtype}")
    d = ffi.new("TensorDesc *")
    d.ptr = t.data_ptr()
    d.ndim = t.dim()
    for i in range(t.dim()):
        d.shape[i] = t.shape[i]
        d.strides[i] = t.stride(i)
    d.dtype = _DTYPE_CODES[t.dtype]
    return d


def check_rc(rc, name):
    if rc != 0:
        raise RuntimeError(f"{name} failed (rc={rc}): {RC_MESSAGES.get(rc, 'unknown error')}")
