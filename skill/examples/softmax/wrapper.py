# cutile-rs backend for softmax (stage D): the cffi binding of cutile_softmax,
# registered beside the cuTile Python implementation. The launch follows the
# reference's host code: TILE_SIZE is the next power of two of the row, the
# grid is capped at SMs * occupancy, and the kernel strides over the rows.
import torch

from tilegym.backend import register_impl
from tilegym.backend.cutile_rs.utils import bind_kernel_function_cffi, check_rc, make_tensor_desc

_FFI_NAME = "cutile_softmax"
_FFI_CDEF = """
int cutile_softmax(const TensorDesc* out, const TensorDesc* x, int tile_size, int grid,
                   int num_cta_in_cga, int occupancy, int device_id, uint64_t raw_stream);
"""

OCCUPANCY = 4  # the reference's @ct.kernel(occupancy=4)


def _lib():
    return bind_kernel_function_cffi("softmax", _FFI_CDEF)


def _next_pow2(n):
    return 1 << (n - 1).bit_length()


@register_impl("softmax", backend="cutile-rs")
def softmax(x):
    if x.dim() != 2:
        raise ValueError("softmax expects a 2-D tensor (rows x cols)")
    if x.dtype not in (torch.float16, torch.bfloat16, torch.float32):
        raise TypeError(f"unsupported dtype {x.dtype}")
    x = x.detach().contiguous()
    out = torch.empty_like(x)
    n_rows, n_cols = x.shape
    num_sm = torch.cuda.get_device_properties(x.device).multi_processor_count
    ffi, lib = _lib()
    device = x.device.index if x.device.index is not None else torch.cuda.current_device()
    stream = torch.cuda.current_stream(device).cuda_stream
    rc = lib.cutile_softmax(
        make_tensor_desc(ffi, out),
        make_tensor_desc(ffi, x),
        _next_pow2(n_cols),
        min(n_rows, num_sm * OCCUPANCY),
        -1,
        -1,
        device,
        stream,
    )
    check_rc(rc, _FFI_NAME)
    return out
