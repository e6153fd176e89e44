// C ABI launcher for softmax (D). Borrowed tensors, dtype dispatch, rc codes.
use crate::ffi_util::{borrow_tensor, rc, TensorDesc};
use cutile::prelude::*;
use std::ffi::c_void;

use super::softmax_module::softmax_kernel;

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cutile_softmax(
    out: *const TensorDesc,
    x: *const TensorDesc,
    tile_n: i32,
    num_cta_in_cga: i32,
    occupancy: i32,
    device_id: i32,
    raw_stream: u64,
) -> i32 {
    if out.is_null() || x.is_null() {
        return rc::NULL_PTR;
    }
    let (out, x) = unsafe { (&*out, &*x) };
    let dtype = match crate::ffi_util::dtype_str(x.dtype) {
        Some(d @ ("f16" | "bf16" | "f32")) => d,
        _ => return rc::UNSUPPORTED_DTYPE,
    };
    let device = match Device::new(device_id.max(0) as usize) {
        Ok(d) => d,
        Err(_) => return rc::DEVICE_INIT_FAILED,
    };
    let stream = match Stream::borrow_raw(raw_stream as *mut c_void, &device) {
        Ok(s) => s,
        Err(_) => return rc::DEVICE_INIT_FAILED,
    };
    let mut opts = CompileOptions::default();
    if num_cta_in_cga > 0 {
        opts = opts.num_cta_in_cga(num_cta_in_cga);
    }
    if occupancy > 0 {
        opts = opts.occupancy(occupancy);
    }
    let xt = unsafe { borrow_tensor::<f16>(x) };
    let ot = unsafe { borrow_tensor::<f16>(out) };
    let rows = x.dim(0);
    match softmax_kernel(&*xt, &*ot)
        .generics(vec![dtype.to_string(), tile_n.to_string()])
        .grid((rows as u32, 1, 1))
        .compile_options(opts)
        .sync_on(&stream)
    {
        Ok(_) => rc::OK,
        Err(_) => rc::LAUNCH_FAILED,
    }
}
