// Shared FFI helpers of the cutile_kernels cdylib: the TensorDesc the Python
// wrappers pack (backend/cutile_rs/utils.py), dtype codes, return codes, and
// borrowing PyTorch memory as a Tensor that is never freed from Rust. The
// names and layout are TileGym's (ops/cutile_rs/ffi_util.rs), which every
// generated ffi.rs relies on: TensorDesc, dtype_str, rc, borrow_tensor.
use std::mem::ManuallyDrop;

use cutile::DType;
use cutile::tensor::Tensor;

pub const MAX_DIMS: usize = 5;

#[repr(C)]
pub struct TensorDesc {
    pub ptr: u64,
    pub ndim: i32,
    pub shape: [i64; MAX_DIMS],
    pub strides: [i64; MAX_DIMS],
    pub dtype: i32,
}

impl TensorDesc {
    pub fn dim(&self, i: usize) -> i32 {
        self.shape[i] as i32
    }

    pub fn nbytes(&self) -> usize {
        let elems: i64 = self.shape[..self.ndim as usize].iter().product();
        elems as usize * dtype_elem_size(self.dtype)
    }
}

pub mod rc {
    pub const OK: i32 = 0;
    pub const UNSUPPORTED_DTYPE: i32 = -2;
    pub const LAUNCH_FAILED: i32 = -3;
    pub const DEVICE_INIT_FAILED: i32 = -4;
    pub const NULL_PTR: i32 = -5;
    pub const INVALID_ARGS: i32 = -6;
}

/// dtype codes: 0 f32, 1 f16, 2 bf16, 3 i32, 4 i64, 5 f8e5m2, 6 f4e2m1fnx2, 7 f8e4m3fn.
pub fn dtype_str(code: i32) -> Option<&'static str> {
    match code {
        0 => Some("f32"),
        1 => Some("f16"),
        2 => Some("bf16"),
        3 => Some("i32"),
        4 => Some("i64"),
        5 => Some("f8e5m2"),
        6 => Some("f4e2m1fnx2"),
        7 => Some("f8e4m3fn"),
        _ => None,
    }
}

pub fn dtype_elem_size(code: i32) -> usize {
    match code {
        0 | 3 => 4,
        1 | 2 => 2,
        4 => 8,
        _ => 1,
    }
}

/// A Tensor over PyTorch memory; ManuallyDrop keeps Rust from freeing it.
///
/// # Safety
/// `d` must describe live device memory of element type `E`.
pub unsafe fn borrow_tensor<E: DType>(d: &TensorDesc) -> ManuallyDrop<Tensor<E>> {
    let n = d.ndim as usize;
    let shape: Vec<i32> = d.shape[..n].iter().map(|&s| s as i32).collect();
    let strides: Vec<i32> = d.strides[..n].iter().map(|&s| s as i32).collect();
    ManuallyDrop::new(unsafe { Tensor::from_raw_parts(d.ptr, d.nbytes(), 0, shape, strides) })
}
