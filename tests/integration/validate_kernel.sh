# tileport validate kernel (validate_kernel.sh, 19 checks): each rule fires
# on its own; the wrapper's live-call scan and the test-file lookup order.
. "$TILEPORT_TOP/tests/integration/lib/validate.sh"

ffi_sed() { sed -i "$1" "$OUT/ffi.rs" "$OPS/softmax_kernel/ffi.rs"; }
W='$OPS/softmax.py'
K="kernel softmax"
control "kernel" "$K"
contains "Result: 0 fail, 0 warn"
rule "kernel.out-dir" "FAIL kernel.out-dir" "kernel nosuch" ':'
contains "Result: 1 fail, 0 warn"
rule "kernel.files kernel.rs" "FAIL kernel.files" "$K" 'rm "$OUT/kernel.rs"'
contains "FAIL"
rule "kernel.files analysis" "FAIL kernel.files" "$K" ': >"$OUT/reference/analysis.json"'
rule "kernel.files ffi" "FAIL kernel.files" "$K" 'rm "$OUT/ffi.rs" "$OPS/softmax_kernel/ffi.rs"'
# one of the 17 contract files: the in-tree copy does not stand in for it
rule "kernel.files ffi only in-tree" "FAIL kernel.files" "$K" 'rm "$OUT/ffi.rs"'
rule "kernel.ffi-copy" "WARN kernel.ffi-copy" "$K" 'echo "// edited" >>"$OUT/ffi.rs"'
rule "kernel.ir reference" "FAIL kernel.ir" "$K" 'rm "$OUT/reference/reference.mlir"'
rule "kernel.ir generated" "FAIL kernel.ir" "$K" ': >"$OUT/generated/generated.mlir"'
rule "kernel.ir multi-variant" "FAIL kernel.ir" "$K" \
	'jed "$OUT/reference/analysis.json" "d[\"kernel_variants\"].append(dict(d[\"kernel_variants\"][0], variant_name=\"wide\", reference_ir=\"reference/reference_wide.mlir\"))"; cp "$OUT/generated/generated.mlir" "$OUT/generated/generated_default.mlir"'
rule "kernel.ir multi-variant generated" "FAIL kernel.ir" "$K" \
	'jed "$OUT/reference/analysis.json" "d[\"kernel_variants\"].append(dict(d[\"kernel_variants\"][0], variant_name=\"wide\"))"; rm "$OUT/generated/generated_canon.mlir"'
rule "kernel.diff-report" "FAIL kernel.diff-report" "$K" 'rm "$OUT/generated/diff_report.md"'
rule "kernel.diff-report C log" "FAIL kernel.agent-logs" "$K" 'rm "$OUT/reports/agent_c.md" "$OUT/reports/agent_logs/agent_c.md"'
rule "kernel.diff-report C never ran" "" "$K" \
	'rm "$OUT/reports/agent_c.md" "$OUT/reports/agent_logs/agent_c.md" "$OUT/generated/diff_report.md"'
rule "kernel.reports correctness" "FAIL kernel.reports" "$K" 'rm "$OUT/reports/correctness.md"'
rule "kernel.reports performance" "FAIL kernel.reports" "$K" ': >"$OUT/reports/performance.md"'
rule "kernel.agent-logs" "FAIL kernel.agent-logs" "$K" 'rm "$OUT/reports/agent_logs/agent_e.md"'
rule "kernel.agent-logs f" "FAIL kernel.agent-logs" "$K" 'rm "$OUT/reports/agent_logs/agent_f.md" "$OUT/reports/agent_f.md"'
rule "kernel.agent-logs F never ran" "" "$K" \
	'rm "$OUT/reports/agent_logs/agent_f.md" "$OUT/reports/agent_f.md" "$OUT"/reports/perf_investigation_*.md'
rule "kernel.perf-logs required" "FAIL kernel.perf-logs" "$K" 'rm "$OUT/baseline_perf_cutile.txt"'
rule "kernel.perf-logs optional" "WARN kernel.perf-logs" "$K" 'rm "$OUT/perf_cutile_py.txt"'
contains "Result: 0 fail, 1 warn"
rule "kernel.perf-logs optional invalid" "FAIL kernel.perf-logs" "$K" 'echo "x FAILED" >>"$OUT/baseline_perf.txt"'
rule "kernel.element-type" "FAIL kernel.element-type" "$K" 'sed -i "s/E: ElementType/E: DType/" "$OUT/kernel.rs"'
rule "kernel.hardcoded-ptr" "FAIL kernel.hardcoded-ptr" "$K" 'echo "fn helper(p: *mut f16) {}" >>"$OUT/kernel.rs"'
rule "kernel.hardcoded-ptr bf16 space" "FAIL kernel.hardcoded-ptr" "$K" 'echo "type P = *mut bf16 ;" >>"$OUT/kernel.rs"'
rule "kernel.hardcoded-ptr stats ok" "" "$K" 'echo "fn stats(rstd_ptr: *mut f32) {}" >>"$OUT/kernel.rs"'
rule "kernel.hardcoded-ptr generic ok" "" "$K" 'echo "type P = PointerTile<*mut f32, { [] }>; fn f(a: *mut f16, b: i32) {}" >>"$OUT/kernel.rs"'
rule "kernel.hardcoded-ptr comment ok" "" "$K" 'echo "// was: x: *mut f16)" >>"$OUT/kernel.rs"'
rule "kernel.ffi-dtype" "FAIL kernel.ffi-dtype" "$K" 'ffi_sed "s/dtype/kind/g; s/\"f16\"/\"h\"/; s/\"bf16\"/\"b\"/; s/\"f32\"/\"s\"/"'
rule "kernel.ffi-fn" "FAIL kernel.ffi-fn" "$K" 'ffi_sed "s/pub unsafe extern \"C\" fn/pub unsafe fn/"'
contains "checking cutile_softmax instead"
rule "kernel.ffi-tensordesc" "FAIL kernel.ffi-tensordesc" "$K" 'ffi_sed "s/\*const TensorDesc/*const Desc/g"'
rule "kernel.ffi-borrow" "FAIL kernel.ffi-borrow" "$K" 'ffi_sed "s/borrow_tensor/wrap_tensor/g"'
rule "kernel.ffi-forbidden" "FAIL kernel.ffi-forbidden" "$K" 'ffi_sed "s/let rows = x.dim(0);/let rows = x.dim(0); std::mem::forget(xt);/"'
rule "kernel.ffi-no-mangle" "FAIL kernel.ffi-no-mangle" "$K" 'ffi_sed "s/#\[unsafe(no_mangle)\]//"'
rule "kernel.lib-rs" "FAIL kernel.lib-rs" "$K" 'printf "mod ffi_util;\nmod softmaxx {}\n" >"$OPS/cutile_kernels/src/lib.rs"'
rule "kernel.lib-rs include form" "" "$K" 'printf "mod ops {\n    include!(\"../../softmax_kernel/kernel.rs\");\n}\n" >"$OPS/cutile_kernels/src/lib.rs"'
rule "kernel.cargo-toml pin" "FAIL kernel.cargo-toml" "$K" 'sed -i "s/^cutile = \"=0.2.0\"/cutile = \"0.2\"/" "$OPS/cutile_kernels/Cargo.toml"'
rule "kernel.cargo-toml path dep" "FAIL kernel.cargo-toml" "$K" 'sed -i "s|^cuda-core = .*|cuda-core = { path = \"../cuda-core\" }|" "$OPS/cutile_kernels/Cargo.toml"'
rule "kernel.cargo-toml missing" "FAIL kernel.cargo-toml" "$K" 'rm "$OPS/cutile_kernels/Cargo.toml"'
rule "kernel.cargo-toml table pin" "" "$K" 'sed -i "s/^cutile = \"=0.2.0\"/cutile = { version = \"=0.2.0\", features = [] }/" "$OPS/cutile_kernels/Cargo.toml"'
rule "kernel.symbol" "FAIL kernel.symbol" "$K" 'rm "$OPS/cutile_kernels/target/release/libcutile_kernels.so"'
rule "kernel.symbol other name" "FAIL kernel.symbol" "$K" 'ffi_sed "s/fn cutile_softmax(/fn cutile_softmax_v2(/"; sed -i "s/cutile_softmax/cutile_softmax_v2/g" "$OPS/softmax.py"'
rule "kernel.symbol weak" "FAIL kernel.symbol" "$K" 'ffi_sed "s/fn cutile_softmax(/fn cutile_weak_softmax(/"; sed -i "s/cutile_softmax/cutile_weak_softmax/g" "$OPS/softmax.py"'
contains "is 'W' in"
rule "kernel.ffi-util" "WARN kernel.ffi-util" "$K" 'rm "$OPS/ffi_util.rs"'
rule "kernel.pipeline-rs" "WARN kernel.pipeline-rs" "$K" 'rm "$OUT/softmax_pipeline.rs"'
rule "kernel.wrapper" "FAIL kernel.wrapper" "$K" 'rm "$OPS/softmax.py"'
rule "kernel.wrapper by FFI_FN" "" "$K" 'mv "$OPS/softmax.py" "$OPS/normalization.py"; sed -i "s/import softmax/import normalization/" "$OPS/__init__.py"'
rule "kernel.wrapper-register" "FAIL kernel.wrapper-register" "$K" 'sed -i "s/backend=\"cutile-rs\"/backend=\"cutile\"/" "$OPS/softmax.py"'
rule "kernel.wrapper-import" "FAIL kernel.wrapper-import" "$K" 'printf "# nothing\n" >"$OPS/__init__.py"'
rule "kernel.wrapper-import list" "" "$K" 'printf "from . import (\n    bmm,  # noqa\n    softmax,\n)\n" >"$OPS/__init__.py"'
rule "kernel.wrapper-import alias is not the module" "FAIL kernel.wrapper-import" "$K" 'printf "from . import other as softmax\n" >"$OPS/__init__.py"'
rule "kernel.test-file missing" "FAIL kernel.test-file" "$K" 'rm "$WS/tests/ops/test_softmax.py"'
rule "kernel.test-file not wired" "FAIL kernel.test-file" "$K" 'sed -i "s/cutile-rs/rust/" "$WS/tests/ops/test_softmax.py"'
# lookup order: register_impl name, _act_ -> _activation_, <op>_kernel, then the kernel name
rule "kernel.test-file activation" "" "$K" \
	'sed -i "s/register_impl(\"softmax\"/register_impl(\"softmax_act_fn\"/" "$OPS/softmax.py"; mv "$WS/tests/ops/test_softmax.py" "$WS/tests/ops/test_softmax_activation_fn.py"'
rule "kernel.test-file op_kernel" "" "$K" \
	'sed -i "s/register_impl(\"softmax\"/register_impl(\"smax\"/" "$OPS/softmax.py"; mv "$WS/tests/ops/test_softmax.py" "$WS/tests/ops/test_smax_kernel.py"'
rule "kernel.test-file register name first" "FAIL kernel.test-file" "$K" \
	'sed -i "s/register_impl(\"softmax\"/register_impl(\"smax\"/" "$OPS/softmax.py"; echo "# no backend" >"$WS/tests/ops/test_smax.py"'

# check 18: a live call of FFI_FN, not dead code or a fallback
live() { # name want python-body-of-softmax()
	fresh
	"$PY" - "$OPS/softmax.py" "$2" <<'PY'
import sys
path, body = sys.argv[1], sys.argv[2]
src = open(path).read()
head, _, _ = src.partition('@register_impl("softmax", backend="cutile-rs")')
open(path, "w").write(head + body)
PY
	rc=0; case "$3" in FAIL\ *) rc=1 ;; esac
	expect "$1" "$3" "$rc" kernel softmax
}
R='@register_impl("softmax", backend="cutile-rs")'
live "live: after return" "$R
def softmax(x):
    return torch.softmax(x, -1)
    ffi, lib = _lib()
    check_rc(lib.cutile_softmax(make_tensor_desc(ffi, x)), _FFI_NAME)
" "FAIL kernel.wrapper-live-call"
contains "only called in code that never runs"
live "live: if False" "$R
def softmax(x):
    if False:
        ffi, lib = _lib()
        lib.cutile_softmax(make_tensor_desc(ffi, x))
    return torch.softmax(x, -1)
" "FAIL kernel.wrapper-live-call"
live "live: unused helper" "def _launch(x):
    ffi, lib = _lib()
    return lib.cutile_softmax(make_tensor_desc(ffi, x))

$R
def softmax(x):
    check_rc(0, _FFI_NAME)
    return torch.softmax(x, -1)
" "FAIL kernel.wrapper-live-call"
live "live: only in strings" "$R
def softmax(x):
    # lib.cutile_softmax(x) is the plan
    doc = 'lib.cutile_softmax(make_tensor_desc(ffi, x))'
    check_rc(0, _FFI_NAME)
    return torch.softmax(x, -1)
" "FAIL kernel.wrapper-live-call"
live "live: hasattr is no call" "$R
def softmax(x):
    ffi, lib = _lib()
    if hasattr(lib, \"cutile_softmax\"):
        check_rc(0, _FFI_NAME)
    return torch.softmax(make_tensor_desc(ffi, x), -1)
" "FAIL kernel.wrapper-live-call"
live "live: helper called" "def _launch(ffi, lib, x):
    return lib.cutile_softmax(make_tensor_desc(ffi, x))

$R
def softmax(x):
    ffi, lib = _lib()
    check_rc(_launch(ffi, lib, x), _FFI_NAME)
    return x
" ""
live "live: getattr with the name constant" "$R
def softmax(x):
    ffi, lib = _lib()
    check_rc(getattr(lib, _FFI_NAME)(make_tensor_desc(ffi, x)), _FFI_NAME)
    return x
" ""
live "live: alias" "$R
def softmax(x):
    ffi, lib = _lib()
    fn = lib.cutile_softmax
    check_rc(fn(make_tensor_desc(ffi, x)), _FFI_NAME)
    return x
" ""
live "live: factory" "def _kernel():
    ffi, lib = _lib()
    return lib.cutile_softmax

$R
def softmax(x):
    launch = _kernel()
    check_rc(launch(make_tensor_desc(None, x)), _FFI_NAME)
    return x
" ""
live "live: binder with the literal" "$R
def softmax(x):
    launch = bind_symbol(\"cutile_softmax\")
    check_rc(launch(make_tensor_desc(None, x)), _FFI_NAME)
    return x
" ""
live "live: autotune lambda" "$R
def softmax(x):
    ffi, lib = _lib()
    return autotune_launch(lambda cfg: check_rc(lib.cutile_softmax(make_tensor_desc(ffi, x), cfg), _FFI_NAME), [], [], \"softmax\")
" ""
live "live: early exit warns" "$R
def softmax(x):
    if not x.is_cuda:
        return torch.softmax(x, -1)
    ffi, lib = _lib()
    check_rc(lib.cutile_softmax(make_tensor_desc(ffi, x)), _FFI_NAME)
    return x
" "WARN kernel.wrapper-early-exit"
live "live: syntax error" "$R
def softmax(x):
    s = 'unterminated
    return x
" "FAIL kernel.wrapper-live-call"
contains "softmax.py:24: cannot scan the wrapper: 24:9: unterminated string"
finish
