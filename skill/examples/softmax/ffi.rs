// C ABI launcher for softmax (stage D). Borrowed tensors (PyTorch owns the
// memory: borrow_tensor never frees it), a dtype dispatch, and the capped
// persistent grid the reference launches: min(rows, SMs * occupancy).
use crate::ffi_util::{borrow_tensor, dtype_str, rc, TensorDesc};
use cutile::prelude::*;
use std::ffi::c_void;

use self::softmax_module::softmax_kernel;

fn launch<E: ElementType>(
    out: &TensorDesc,
    x: &TensorDesc,
    dtype: &str,
    tile_size: i32,
    grid: u32,
    opts: CompileOptions,
    stream: &Stream,
) -> i32 {
    let xt = unsafe { borrow_tensor::<E>(x) };
    let ot = unsafe { borrow_tensor::<E>(out) };
    let n_rows = x.dim(0) as i32;
    match softmax_kernel(&*ot, &*xt, n_rows)
        .generics(vec![dtype.to_string(), tile_size.to_string()])
        .grid((grid, 1, 1))
        .compile_options(opts)
        .sync_on(stream)
    {
        Ok(_) => rc::OK,
        Err(_) => rc::LAUNCH_FAILED,
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cutile_softmax(
    out: *const TensorDesc,
    x: *const TensorDesc,
    tile_size: i32,
    grid: i32,
    num_cta_in_cga: i32,
    occupancy: i32,
    device_id: i32,
    raw_stream: u64,
) -> i32 {
    if out.is_null() || x.is_null() {
        return rc::NULL_PTR;
    }
    let (out, x) = unsafe { (&*out, &*x) };
    if tile_size <= 0 || grid <= 0 {
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
    match dtype_str(x.dtype) {
        Some("f16") => launch::<f16>(out, x, "f16", tile_size, grid as u32, opts, &stream),
        Some("bf16") => launch::<bf16>(out, x, "bf16", tile_size, grid as u32, opts, &stream),
        Some("f32") => launch::<f32>(out, x, "f32", tile_size, grid as u32, opts, &stream),
        _ => rc::UNSUPPORTED_DTYPE,
    }
}
