"""RMS norm over the rows of a 2-D tensor in Triton (the Triton-TileIR backend).

Each program normalises BLOCK_M rows through block pointers: the row block of
x is read with tl.make_block_ptr (zero padded past the edges), the mean of
squares is taken along the row, and y = x * rsqrt(mean + eps) * w is stored
through a block pointer of y. Offsets are whole blocks, so on Tile IR the
strided views are partition views.
"""
import torch
import triton
import triton.language as tl

from ...backend import register_impl


@triton.jit
def rms_norm_kernel(y_ptr, x_ptr, w_ptr, n_rows, n_cols, stride_y, stride_x, eps,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    x_block = tl.make_block_ptr(base=x_ptr, shape=(n_rows, n_cols), strides=(stride_x, 1),
                                offsets=(pid * BLOCK_M, 0), block_shape=(BLOCK_M, BLOCK_N),
                                order=(1, 0))
    x = tl.load(x_block, boundary_check=(0, 1), padding_option="zero").to(tl.float32)
    w_block = tl.make_block_ptr(base=w_ptr, shape=(n_cols,), strides=(1,), offsets=(0,),
                                block_shape=(BLOCK_N,), order=(0,))
    w = tl.load(w_block, boundary_check=(0,), padding_option="zero").to(tl.float32)
    mean_sq = tl.sum(x * x, axis=1) / n_cols
    rstd = tl.rsqrt(mean_sq + eps)
    y = x * rstd[:, None] * w[None, :]
    y_block = tl.make_block_ptr(base=y_ptr, shape=(n_rows, n_cols), strides=(stride_y, 1),
                                offsets=(pid * BLOCK_M, 0), block_shape=(BLOCK_M, BLOCK_N),
                                order=(1, 0))
    tl.store(y_block, y.to(y_ptr.dtype.element_ty), boundary_check=(0, 1))


@register_impl("rms_norm", backend="triton")
def rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    if x.dim() != 2:
        raise ValueError("rms_norm expects a 2-D tensor")
    if x.dtype not in (torch.float16, torch.bfloat16, torch.float32):
        raise TypeError(f"unsupported dtype {x.dtype}")
    x = x.contiguous()
    n_rows, n_cols = x.shape
    y = torch.empty_like(x)
    block_n = triton.next_power_of_2(n_cols)
    block_m = max(1, min(16, 4096 // block_n))
    grid = (triton.cdiv(n_rows, block_m),)
    rms_norm_kernel[grid](y, x, weight, n_rows, n_cols, y.stride(0), x.stride(0), eps,
                          BLOCK_M=block_m, BLOCK_N=block_n)
    return y
