# cutile-rs backend for matmul (stage D): the cffi binding of cutile_matmul,
# registered beside the cuTile Python implementation. Shapes and dtypes are
# checked here, where the error can name them; the launcher checks again.
import torch

from tilegym.backend import register_impl
from tilegym.backend.cutile_rs.utils import bind_kernel_function_cffi, check_rc, make_tensor_desc

_FFI_NAME = "cutile_matmul"
_FFI_CDEF = """
int cutile_matmul(const TensorDesc* c, const TensorDesc* a, const TensorDesc* b,
                  int bm, int bn, int bk, int num_cta_in_cga, int occupancy,
                  int device_id, uint64_t raw_stream);
"""

# the tile sizes the reference launches with (analysis.json's constants)
_BM, _BN, _BK = 64, 64, 32


def _lib():
    return bind_kernel_function_cffi("matmul", _FFI_CDEF)


@register_impl("matmul", backend="cutile-rs")
def matmul(a, b):
    if a.dim() != 2 or b.dim() != 2 or a.shape[1] != b.shape[0]:
        raise ValueError("matmul expects (M, K) @ (K, N)")
    if a.dtype not in (torch.float16, torch.bfloat16) or b.dtype != a.dtype:
        raise TypeError(f"unsupported dtypes {a.dtype}, {b.dtype}")
    a, b = a.detach().contiguous(), b.detach().contiguous()
    c = torch.empty((a.shape[0], b.shape[1]), dtype=a.dtype, device=a.device)
    ffi, lib = _lib()
    device = a.device.index if a.device.index is not None else torch.cuda.current_device()
    stream = torch.cuda.current_stream(device).cuda_stream
    rc = lib.cutile_matmul(
        make_tensor_desc(ffi, c),
        make_tensor_desc(ffi, a),
        make_tensor_desc(ffi, b),
        _BM,
        _BN,
        _BK,
        -1,
        -1,
        device,
        stream,
    )
    check_rc(rc, _FFI_NAME)
    return c
