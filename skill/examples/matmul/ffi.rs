// C ABI launcher for matmul (stage D). Borrowed tensors (never freed here:
// PyTorch owns the memory), a dtype dispatch, the grid of one block per
// output tile, and the shared return codes of ffi_util.rs.
use crate::ffi_util::{borrow_tensor, dtype_str, rc, TensorDesc};
use cutile::prelude::*;
use std::ffi::c_void;

use self::matmul_module::matmul_kernel;

fn launch<E: ElementType>(
    c: &TensorDesc,
    a: &TensorDesc,
    b: &TensorDesc,
    dtype: &str,
    tiles: (i32, i32, i32),
    opts: CompileOptions,
    stream: &Stream,
) -> i32 {
    let (bm, bn, bk) = tiles;
    let at = unsafe { borrow_tensor::<E>(a) };
    let bt = unsafe { borrow_tensor::<E>(b) };
    let ct = unsafe { borrow_tensor::<E>(c) };
    let grid_m = (a.dim(0) as i32 + bm - 1) / bm;
    let grid_n = (b.dim(1) as i32 + bn - 1) / bn;
    match matmul_kernel(&*at, &*bt, &*ct)
        .generics(vec![dtype.to_string(), bm.to_string(), bn.to_string(), bk.to_string()])
        .grid((grid_m as u32, grid_n as u32, 1))
        .compile_options(opts)
        .sync_on(stream)
    {
        Ok(_) => rc::OK,
        Err(_) => rc::LAUNCH_FAILED,
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cutile_matmul(
    c: *const TensorDesc,
    a: *const TensorDesc,
    b: *const TensorDesc,
    bm: i32,
    bn: i32,
    bk: i32,
    num_cta_in_cga: i32,
    occupancy: i32,
    device_id: i32,
    raw_stream: u64,
) -> i32 {
    if c.is_null() || a.is_null() || b.is_null() {
        return rc::NULL_PTR;
    }
    let (c, a, b) = unsafe { (&*c, &*a, &*b) };
    if bm <= 0 || bn <= 0 || bk <= 0 || a.dim(1) != b.dim(0) {
        return rc::INVALID_ARGS;
    }
    let device = match Device::new(device_id.max(0) as usize) {
        Ok(d) => d,
        Err(_) => return rc::DEVICE_INIT_FAILED,
    };
    let stream = match Stream::borrow_raw(raw_stream as *mut c_void, &device) {
        Ok(s) => s,
        Err(_) => return rc::DEVICE_INIT_FAILED,
    };
    // <= 0 (the wrapper's -1) leaves the compiler's default
    let mut opts = CompileOptions::default();
    if num_cta_in_cga > 0 {
        opts = opts.num_cta_in_cga(num_cta_in_cga);
    }
    if occupancy > 0 {
        opts = opts.occupancy(occupancy);
    }
    let tiles = (bm, bn, bk);
    match dtype_str(a.dtype) {
        Some("f16") => launch::<f16>(c, a, b, "f16", tiles, opts, &stream),
        Some("bf16") => launch::<bf16>(c, a, b, "bf16", tiles, opts, &stream),
        _ => rc::UNSUPPORTED_DTYPE,
    }
}
