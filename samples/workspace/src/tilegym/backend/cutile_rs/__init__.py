"""Host-side support of the cuTile Rust backend: cffi binding of the
cutile_kernels cdylib, TensorDesc packing, return codes, and autotuning."""
from .autotuner import autotune_launch  # noqa: F401
from .utils import bind_kernel_function_cffi, check_rc, make_tensor_desc  # noqa: F401
