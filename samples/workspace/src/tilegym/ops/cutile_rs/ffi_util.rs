// Shared FFI helpers: TensorDesc, return codes, borrow_tensor.
#[repr(C)]
pub struct TensorDesc {
    pub ptr: u64,
    pub ndim: i32,
    pub shape: [i64; 5],
    pub strides: [i64; 5],
    pub dtype: i32,
}

pub mod rc {
    pub const OK: i32 = 0;
    pub const UNSUPPORTED_DTYPE: i32 = -2;
    pub const LAUNCH_FAILED: i32 = -3;
    pub const DEVICE_INIT_FAILED: i32 = -4;
    pub const NULL_PTR: i32 = -5;
    pub const INVALID_ARGS: i32 = -6;
}
