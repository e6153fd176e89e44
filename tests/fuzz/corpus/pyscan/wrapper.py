# cutile-rs backend for softmax: cffi binding of the cutile_softmax launcher.
import torch

from tilegym.backend import register_impl
from tilegym.backend.cutile_rs.utils import bind_kernel_function_cffi, check_rc, make_tensor_desc

_FFI_NAME = "cutile_softmax"
_FFI_CDEF = """
int cutile_softmax(const TensorDesc* out, const TensorDesc* x, int tile_n,
                   int num_cta_in_cga, int occupancy, int device_id, uint64_t raw_stream);
"""


def _lib():
    return bind_kernel_function_cffi("softmax", _FFI_CDEF)


def _next_pow2(n):
    return 1 << (n - 1).bit_length()


@register_impl("softmax", backend="cutile-rs")
def softmax(x, dim=-1):
    x = x.detach().contiguous()
    out = torch.empty_like(x)
    ffi, lib = _lib()
    device = x.device.index if x.device.index is not None else torch.cuda.current_device()
    stream = torch.cuda.current_stream(device).cuda_stream
    rc = lib.cutile_softmax(
        make_tensor_desc(ffi, out),
        make_tensor_desc(ffi, x),
        _next_pow2(x.shape[-1]),
        -1,
        -1,
        device,
        stream,
    )
    check_rc(rc, _FFI_NAME)
    return out
