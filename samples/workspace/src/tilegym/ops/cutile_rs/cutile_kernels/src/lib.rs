#[path = "../../ffi_util.rs"]
mod ffi_util;

// Converted operators add a `mod {op} { include!(...kernel.rs); include!(...ffi.rs); }` block here.
