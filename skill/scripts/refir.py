#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compile a cuTile Python reference kernel to Tile IR bytecode, offline.

tileport refir runs this with the workspace's Python (the one whose
`cuda.tile` the workspace uses), or with the venv `make check` builds. It
needs no GPU and no driver: cuTile Python's compiler is Python down to the
bytecode writer, and `compile_tile(..., return_cubin=False)` stops before
tileiras. Only three things of cuTile Python want libcuda.so.1, and this
script uses none of them: launching, the architecture of the current device
(we pass sm_arch), and deriving a signature from real arguments
(`KernelSignature.from_kernel_args`); so a signature is built here from a
specification instead, the way cuTile's JIT builds it for a contiguous,
16-byte aligned tensor.

Usage:  refir.py SPEC.json        (or - for stdin)
        refir.py --probe          (one JSON line: versions, tileiras)

SPEC: {"source": FILE.py, "workspace": DIR|null, "out": DIR, "sm": "sm_100",
       "bytecode_version": "13.4"|null, "dtype": "f16",
       "kernels": [{"kernel": NAME, "name": STEM, "args": {PARAM: ARG}}]}
ARG: a number or bool (a constant), {"array": DTYPE, "ndim": N, "shape": [..]},
     {"scalar": DTYPE}, or absent (inferred from the kernel's own code).
An empty "kernels" list means every @ct.kernel of the file, named "reference"
(one kernel) or "reference_{kernel}" (several).

Output: one JSON object per line on stdout, one per kernel (and one "load"
line when the file cannot be imported). Exit 0 when every kernel compiled,
1 when one did not, 2 for a bad SPEC, 3 when cuda.tile cannot be imported.
"""

import ast
import importlib.machinery
import importlib.util
import inspect
import json
import math
import os
import sys
import textwrap
import time
import traceback
import types

DTYPES = {"f16": "float16", "bf16": "bfloat16", "f32": "float32", "f64": "float64",
          "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64",
          "u8": "uint8", "u32": "uint32", "bool": "bool_", "tf32": "tfloat32",
          "f8e4m3fn": "float8_e4m3fn", "f8e5m2": "float8_e5m2"}
ITEMSIZE = {"f16": 2, "bf16": 2, "f32": 4, "f64": 8, "i8": 1, "i16": 2, "i32": 4,
            "i64": 8, "u8": 1, "u32": 4, "bool": 1, "tf32": 4, "f8e4m3fn": 1, "f8e5m2": 1}
# What cuTile's JIT assumes of a tensor allocated by PyTorch: the base address
# is 16-byte aligned (CUDA allocations are 256-byte aligned; the JIT caps the
# divisibility it records at 16 bytes).
ALIGN_BYTES = 16
DEFAULT_CONST = 64  # a tile size that every kernel of TileGym accepts
FLAG_PREFIXES = ("IS_", "HAS_", "USE_", "ENABLE_", "COMPUTE_", "CHECK_", "APPLY_", "WITH_")


def emit(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


class _Anything(types.ModuleType):
    """Stands in for a host-side package (torch, numpy, triton) that the
    workspace's Python lacks: the kernels never touch it, the module's host
    code only names it at import time (dtype tables, decorators)."""

    def __init__(self, name):
        super().__init__(name)
        self.__path__ = []

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        return _Value(f"{self.__name__}.{attr}")


class _Value:
    def __init__(self, name):
        self._name = name

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        return _Value(f"{self._name}.{attr}")

    def __call__(self, *args, **kwargs):
        # a decorator used bare or with arguments
        if len(args) == 1 and callable(args[0]) and not kwargs:
            return args[0]
        return _Value(f"{self._name}()")

    def __getitem__(self, key):
        return _Value(f"{self._name}[]")

    def __hash__(self):
        return hash(self._name)

    def __eq__(self, other):
        return isinstance(other, _Value) and other._name == self._name

    def __iter__(self):
        return iter(())

    def __or__(self, other):  # a type hint such as torch.Tensor | None
        return self

    __ror__ = __or__

    def __mro_entries__(self, bases):
        return (_StubBase,)

    def __repr__(self):
        return self._name


class _StubMeta(type):
    def __getattr__(cls, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        return _Value(f"{cls.__name__}.{attr}")


class _StubBase(metaclass=_StubMeta):
    """What a class derived from a stood-in class (torch.autograd.Function,
    torch.nn.Module) derives from: any attribute, on the class or an instance."""

    def __init__(self, *args, **kwargs):
        pass

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        return _Value(f"{type(self).__name__}.{attr}")


class _StubFinder:
    """Imports a missing host package as _Anything, after the real finders."""

    def __init__(self, roots):
        self.roots = roots
        self.stubbed = []

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] not in self.roots:
            return None
        for finder in sys.meta_path:
            if finder is self:
                continue
            try:
                spec = finder.find_spec(name, path, target)
            except (ImportError, AttributeError, ValueError):
                spec = None
            if spec is not None:
                return None
        self.stubbed.append(name)
        return importlib.machinery.ModuleSpec(name, self, is_package=True)

    def create_module(self, spec):
        return _Anything(spec.name)

    def exec_module(self, module):
        pass


def _namespace(name, path):
    mod = types.ModuleType(name)
    mod.__path__ = [path]
    mod.__package__ = name
    sys.modules[name] = mod
    return mod


def load_source(source, workspace):
    """Import the operator's file. Inside a workspace's src/ tree its parent
    packages become bare namespaces (their __init__ imports every operator and
    the whole host stack); its own imports (.utils, tilegym.backend) are real."""
    source = os.path.abspath(source)
    src_root = None
    if workspace:
        cand = os.path.join(os.path.abspath(workspace), "src")
        if source.startswith(cand + os.sep):
            src_root = cand
    if src_root is None:
        # the nearest ancestor that is not a package
        d = os.path.dirname(source)
        while os.path.exists(os.path.join(d, "__init__.py")):
            d = os.path.dirname(d)
        if d != os.path.dirname(source):
            src_root = d
    if src_root is not None:
        rel = os.path.relpath(source, src_root)[:-3].split(os.sep)
        sys.path.insert(0, src_root)
        for i in range(1, len(rel)):
            pkg = ".".join(rel[:i])
            if pkg not in sys.modules:
                _namespace(pkg, os.path.join(src_root, *rel[:i]))
        name = ".".join(rel)
    else:
        sys.path.insert(0, os.path.dirname(source))
        name = "_refir_" + os.path.splitext(os.path.basename(source))[0]
    spec = importlib.util.spec_from_file_location(name, source)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def kernels_of(mod, ct):
    out = {}
    for name, obj in vars(mod).items():
        if isinstance(obj, ct.kernel) and getattr(obj, "_pyfunc", None) is not None:
            if obj._pyfunc.__module__ == mod.__name__ or name == obj._pyfunc.__name__:
                out[obj._pyfunc.__name__] = obj
    return out


# ---- inferring a parameter's kind from the kernel's own code ----

MEM_FUNCS = {"load", "store", "gather", "scatter", "num_tiles", "atomic_add", "atomic_max",
             "atomic_min", "atomic_xchg", "atomic_cas", "atomic_and", "atomic_or",
             "atomic_xor", "partition", "tiled_view", "load_tiled", "store_tiled"}


def _callee(node):
    f = node.func
    if isinstance(f, ast.Attribute):
        return f.attr
    if isinstance(f, ast.Name):
        return f.id
    return None


def _const_test(test, consts):
    """True/False for `if FLAG:` / `if not FLAG:` on a known constant, else None."""
    neg = isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)
    t = test.operand if neg else test
    if isinstance(t, ast.Name) and isinstance(consts.get(t.id), (bool, int)):
        return (not consts[t.id]) if neg else bool(consts[t.id])
    return None


def _walk(node, consts):
    """ast.walk without the branches a known constant never takes."""
    todo = [node]
    while todo:
        n = todo.pop()
        yield n
        if isinstance(n, ast.If) and consts:
            taken = _const_test(n.test, consts)
            if taken is not None:
                todo.extend(reversed(n.body if taken else n.orelse))
                continue
        todo.extend(reversed(list(ast.iter_child_nodes(n))))


def infer_params(pyfunc, depth=0, consts=None):
    """{param: ("array", ndim|None) | ("scalar", dtype|None)} for the params
    the code makes clear. ndim comes from the index tuple of a load, store,
    gather or scatter, or the highest .shape[k]; a param handed on to a
    device function of the module is what that function makes of it."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(pyfunc)))
    except (OSError, TypeError, SyntaxError):
        return {}
    fn = tree.body[0]
    params = [a.arg for a in fn.args.args]
    seen = {}

    def note_array(name, ndim):
        if name not in params:
            return
        kind, nd = seen.get(name, ("array", None))
        if kind != "array":
            nd = None
        if ndim is not None and (nd is None or ndim > nd):
            nd = ndim
        seen[name] = ("array", nd)

    for node in _walk(fn, consts or {}):
        if isinstance(node, ast.Call) and _callee(node) in MEM_FUNCS:
            args = list(node.args)
            kw = {k.arg: k.value for k in node.keywords}
            target = args[0] if args else kw.get("array")
            if isinstance(target, ast.Name):
                idx = args[1] if len(args) > 1 else kw.get("index", kw.get("indices"))
                if _callee(node) == "store" and len(args) > 1 and "index" not in kw:
                    idx = args[1]
                nd = len(idx.elts) if isinstance(idx, ast.Tuple) else None
                if nd is None and idx is not None and _callee(node) in ("gather", "scatter"):
                    nd = 1
                note_array(target.id, nd)
        elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute):
            a = node.value
            if a.attr in ("shape", "strides") and isinstance(a.value, ast.Name):
                k = node.slice
                if isinstance(k, ast.Constant) and isinstance(k.value, int) and k.value >= 0:
                    note_array(a.value.id, k.value + 1)
                else:
                    note_array(a.value.id, None)
        elif isinstance(node, ast.Attribute) and node.attr in ("dtype", "shape", "ndim"):
            if isinstance(node.value, ast.Name):
                note_array(node.value.id, None)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and depth < 4:
            callee = getattr(pyfunc, "__globals__", {}).get(node.func.id)
            if isinstance(callee, types.FunctionType) and callee is not pyfunc:
                sub = None
                cparams = list(inspect.signature(callee).parameters)
                for i, a in enumerate(node.args):
                    if isinstance(a, ast.Name) and a.id in params and i < len(cparams):
                        if sub is None:
                            sub = infer_params(callee, depth + 1)
                        kind, nd = sub.get(cparams[i], (None, None))
                        if kind == "array":
                            note_array(a.id, nd)
    for a in fn.args.args:
        if a.arg in seen:
            continue
        ann = a.annotation
        if isinstance(ann, ast.Name) and ann.id in ("int", "float", "bool"):
            seen[a.arg] = ("scalar", {"int": "i32", "float": "f32", "bool": "bool"}[ann.id])
    return seen


def _pow2_div(v, cap):
    d = 1
    while d < cap and v % (d * 2) == 0:
        d *= 2
    return d


def array_constraint(cc, ct, arg, where):
    dt = arg.get("array")
    if dt not in DTYPES:
        raise SpecError(f"{where}: unknown dtype {dt!r} (one of {', '.join(DTYPES)})")
    shape = arg.get("shape")
    ndim = arg.get("ndim", len(shape) if shape else None)
    if not isinstance(ndim, int) or ndim < 0:
        raise SpecError(f"{where}: an array needs \"ndim\" or \"shape\"")
    if shape is not None and (len(shape) != ndim or
                              not all(isinstance(s, int) and s > 0 for s in shape)):
        raise SpecError(f"{where}: \"shape\" must be {ndim} positive integers")
    strides = [None] * ndim
    stride_div = [1] * ndim
    shape_div = [1] * ndim
    if ndim:
        strides[-1] = 1  # contiguous: the JIT records the unit stride
    if shape:
        step = 1
        for k in range(ndim - 1, -1, -1):
            if k < ndim - 1:
                stride_div[k] = _pow2_div(step, ALIGN_BYTES)
            shape_div[k] = _pow2_div(shape[k], ALIGN_BYTES)
            step *= shape[k]
    return cc.ArrayConstraint(
        getattr(ct, DTYPES[dt]), ndim,
        index_dtype=ct.int32,
        stride_lower_bound_incl=0,
        alias_groups=(),
        may_alias_internally=False,
        stride_constant=strides,
        stride_divisible_by=stride_div,
        shape_divisible_by=shape_div,
        base_addr_divisible_by=ALIGN_BYTES)


class SpecError(Exception):
    pass


def _const_default(pyfunc, name):
    """A value for a Constant the specification leaves open: False for a
    Constant[bool], a latency hint's 2 (cuTile takes 1 to 10), 0 for an int
    named as a flag, else a tile size every kernel of TileGym accepts."""
    try:
        import typing
        hint = typing.get_type_hints(pyfunc, include_extras=True).get(name)
        base = typing.get_args(hint)[0] if typing.get_args(hint) else None
    except Exception:  # noqa: BLE001 - an unresolvable hint is just no hint
        base = None
    if base is bool:
        return False
    up = name.upper()
    if "LATENCY" in up:
        return 2
    # an int used as a flag (IS_SWISH, USE_TMA, TRAINING): off, the path a
    # tile size of 64 would otherwise switch on
    if up.startswith(FLAG_PREFIXES) or up in ("TRAINING", "CAUSAL", "EVEN_K", "EVEN_N"):
        return 0
    return DEFAULT_CONST


def resolve_args(kern, spec_args, default_dtype):
    """Every parameter's argument: the specification's, else one inferred
    from the kernel's own code. Returns (args, inferred names)."""
    ann = kern._annotated_function
    consts = {k: v for k, v in spec_args.items() if isinstance(v, (bool, int))}
    guessed = infer_params(ann.pyfunc, consts=consts)
    args, inferred = {}, []
    for name, node in zip(ann.pysig.parameters, ann.parameter_annotations):
        arg = spec_args.get(name)
        if isinstance(arg, dict) and "array" in arg and "ndim" not in arg and "shape" not in arg:
            # an element type given without a rank: the rank the code shows
            kind, extra = guessed.get(name, ("array", None))
            if kind != "array" or extra is None:
                raise SpecError(f"{ann.pyfunc.__name__}({name}): an array whose rank the kernel"
                                " does not show; give {\"array\": DTYPE, \"ndim\": N}")
            arg = dict(arg, ndim=extra)
        if arg is None:
            inferred.append(name)
            if getattr(node, "constant", False):
                arg = _const_default(ann.pyfunc, name)
            else:
                kind, extra = guessed.get(name, ("scalar", None))
                if kind == "array" and extra is None:
                    raise SpecError(f"{ann.pyfunc.__name__}({name}): an array whose rank the kernel"
                                    " does not show; give {\"array\": DTYPE, \"ndim\": N}")
                arg = ({"array": default_dtype, "ndim": extra} if kind == "array"
                       else {"scalar": extra or "i32"})
        args[name] = arg
    return args, inferred


def describe(arg):
    if isinstance(arg, dict) and "array" in arg:
        shape = arg.get("shape")
        return f"{arg['array']} array " + (f"{shape}" if shape else f"rank {arg.get('ndim')}")
    if isinstance(arg, dict) and "scalar" in arg:
        return f"{arg['scalar']} scalar"
    return f"const {json.dumps(arg)}"


def signature_for(cc, ct, kern, args):
    fname = kern._annotated_function.pyfunc.__name__
    cons = []
    for name, arg in args.items():
        where = f"{fname}({name})"
        if isinstance(arg, bool) or isinstance(arg, (int, float)):
            cons.append(cc.ConstantConstraint(arg))
        elif isinstance(arg, dict) and "array" in arg:
            cons.append(array_constraint(cc, ct, arg, where))
        elif isinstance(arg, dict) and "scalar" in arg:
            if arg["scalar"] not in DTYPES:
                raise SpecError(f"{where}: unknown dtype {arg['scalar']!r}")
            cons.append(cc.ScalarConstraint(getattr(ct, DTYPES[arg["scalar"]])))
        else:
            raise SpecError(f"{where}: expected a number, a bool, {{\"array\": ...}}"
                            f" or {{\"scalar\": ...}}, got {arg!r}")
    return cc.KernelSignature(cons, cc.CallingConvention.cutile_python_v1())


def _where_what(e):
    loc = getattr(e, "loc", None)
    return (str(e), getattr(loc, "line", None), getattr(loc, "col", None))


def _further(now, before):
    return now[1] is not None and before[1] is not None and now[1] > before[1]


def alias_kernel(ct, kern, alias):
    """The kernel's function under another name, as a new @ct.kernel: the
    code, globals, defaults, closure and annotations are the same."""
    f = kern._pyfunc
    g = types.FunctionType(f.__code__, f.__globals__, alias, f.__defaults__, f.__closure__)
    g.__qualname__ = alias
    g.__kwdefaults__ = f.__kwdefaults__
    g.__annotations__ = dict(f.__annotations__)
    g.__module__ = f.__module__
    return ct.kernel(g)


def compile_with_inference(cc, ct, compile_once, kern, args, inferred):
    """Compile; when cuTile's type check fails and some arrays' element types
    were only inferred, try another element type for one of them at a time
    (f32 for an output the kernel writes in f32, i32 for an index array) and
    keep a change that compiles or gets past the error. Bounded: the types
    are a guess either way, and the result says which were inferred."""
    err = None
    for _ in range(min(len(inferred) + 1, 10)):
        try:
            return compile_once(signature_for(cc, ct, kern, args)), args
        except SpecError:
            raise
        except Exception as e:  # noqa: BLE001
            err = e
        if type(err).__name__ != "TypeCheckingError":
            raise err
        msg = _where_what(err)
        moved = False
        for name in inferred:
            arg = args[name]
            if not (isinstance(arg, dict) and "array" in arg):
                continue
            for dt in ("f32", "i32"):
                if arg["array"] == dt:
                    continue
                trial = dict(args)
                trial[name] = dict(arg, array=dt)
                try:
                    return compile_once(signature_for(cc, ct, kern, trial)), trial
                except SpecError:
                    raise
                except Exception as e2:  # noqa: BLE001
                    # progress: the type check now fails further on in the
                    # kernel (two outputs written in f32 fail alike, one line
                    # apart); an error earlier or on the same line is not
                    if type(e2).__name__ == "TypeCheckingError" and _further(_where_what(e2), msg):
                        args, moved = trial, True
                        break
            if moved:
                break
        if not moved:
            raise err
    raise err


def error_place(exc, source):
    """The line in the kernel's file that cuTile's error names, if any."""
    if isinstance(exc, SyntaxError) and exc.lineno:
        return {"file": exc.filename or source, "line": exc.lineno, "col": exc.offset}
    loc = getattr(exc, "loc", None)
    if loc is not None and getattr(loc, "line", None):
        return {"file": getattr(loc, "filename", None) or source, "line": loc.line,
                "col": getattr(loc, "col", None)}
    for fr in reversed(traceback.extract_tb(exc.__traceback__)):
        if os.path.abspath(fr.filename) == os.path.abspath(source):
            return {"file": source, "line": fr.lineno, "col": None}
    return None


def probe():
    out = {"python": sys.version.split()[0], "executable": sys.executable}
    try:
        import cuda.tile as ct
        out["cuda_tile"] = getattr(ct, "__version__", "?")
    except Exception as e:  # noqa: BLE001 - any failure is the answer
        out["cuda_tile"] = None
        out["error"] = f"{type(e).__name__}: {e}"
        emit(out)
        return 3
    try:
        from cuda.tile import _compile as comp
        b = comp._find_compiler_bin()
        out["tileiras"] = b.path
        out["tileirdisasm"] = os.path.join(os.path.dirname(b.path), "tileirdisasm")
        if not os.access(out["tileirdisasm"], os.X_OK):
            out["tileirdisasm"] = None
    except Exception:  # noqa: BLE001
        out["tileiras"] = None
    emit(out)
    return 0


def main(argv):
    if len(argv) == 2 and argv[1] == "--probe":
        return probe()
    if len(argv) != 2:
        sys.stderr.write("usage: refir.py SPEC.json | - | --probe\n")
        return 2
    try:
        text = sys.stdin.read() if argv[1] == "-" else open(argv[1], encoding="utf-8").read()
        spec = json.loads(text)
        if not isinstance(spec, dict) or not isinstance(spec.get("source"), str) \
                or not isinstance(spec.get("out"), str):
            raise ValueError("expected an object with \"source\" and \"out\"")
    except (OSError, ValueError) as e:
        sys.stderr.write(f"refir.py: {argv[1]}: {e}\n")
        return 2
    try:
        import cuda.tile as ct
        import cuda.tile.compilation as cc
        from cuda.tile._compile import compile_tile, parse_bytecode_version
        from cuda.tile._bytecode.version import BytecodeVersion
    except Exception as e:  # noqa: BLE001
        sys.stderr.write(f"refir.py: cannot import cuda.tile: {type(e).__name__}: {e}\n")
        return 3

    sm = spec.get("sm") or "sm_100"
    bcv_text = spec.get("bytecode_version")
    try:
        bcv = parse_bytecode_version(bcv_text) if bcv_text else None
    except ValueError as e:
        sys.stderr.write(f"refir.py: {e}\n")
        return 2
    if bcv is None:
        # what the JIT would pick: the newest version the installed tileiras
        # takes; without tileiras the newest cuTile writes
        try:
            from cuda.tile._compile import _get_max_supported_bytecode_version
            bcv = _get_max_supported_bytecode_version(None)
        except Exception:  # noqa: BLE001
            bcv = max(v for v in BytecodeVersion if v.value <= 130400)
    finder = _StubFinder({"torch", "numpy", "triton", "transformers"})
    sys.meta_path.append(finder)
    source = spec["source"]
    ws = spec.get("workspace")
    if ws and not os.path.isabs(source):
        source = os.path.join(ws, source)
    t0 = time.monotonic()
    try:
        mod = load_source(source, ws)
    except Exception as e:  # noqa: BLE001
        emit({"event": "load", "ok": False, "source": source,
              "error": f"{type(e).__name__}: {e}", "where": error_place(e, source)})
        return 1
    load_s = time.monotonic() - t0
    kernels = kernels_of(mod, ct)
    if not kernels and not spec.get("kernels"):
        emit({"event": "load", "ok": False, "source": source,
              "error": "no @ct.kernel function at the module's top level", "where": None})
        return 1
    emit({"event": "load", "ok": True, "source": source, "seconds": round(load_s, 4),
          "kernels": sorted(kernels), "stubbed": sorted(set(finder.stubbed)),
          "cuda_tile": getattr(ct, "__version__", "?"), "bytecode_version": bcv.as_string(),
          "sm": sm})
    # every kernel of the file, named as stage A names its dumps: reference
    # for one kernel, reference_{kernel} for several
    wanted = spec.get("kernels") or [
        {"kernel": k, "name": "reference" if len(kernels) == 1 else f"reference_{k}"}
        for k in sorted(kernels)]
    os.makedirs(spec["out"], exist_ok=True)
    failed = 0
    for item in wanted:
        name = item.get("kernel")
        stem = item.get("name") or name
        res = {"event": "kernel", "kernel": name, "name": stem}
        kern = kernels.get(name)
        if kern is None:
            res.update(ok=False, error=f"no @ct.kernel named {name} in {source}")
            emit(res)
            failed += 1
            continue
        t1 = time.monotonic()
        inferred = []
        try:
            args, inferred = resolve_args(kern, item.get("args") or {},
                                          item.get("dtype") or spec.get("dtype") or "f16")

            def compile_once(sig, kern=kern):
                return compile_tile(kern._annotated_function, [sig], sm_arch=sm,
                                    compiler_options=kern._compiler_options,
                                    bytecode_version=bcv, return_bytecode=True,
                                    return_cubin=False)
            r, args = compile_with_inference(cc, ct, compile_once, kern, args, inferred)
            op = spec.get("op")
            if op and op not in r.kernel_signatures[0].symbol:
                # the reference's alias repair: the same kernel under
                # {op}__{real_fn}, so that its entry names the op; the
                # original is kept beside it for the proof
                orig = os.path.join(spec["out"], stem + ".orig_mangled_entry.tileirbc")
                with open(orig + ".tmp", "wb") as f:
                    f.write(bytes(r.bytecode))
                os.replace(orig + ".tmp", orig)
                res["alias"] = {"from": r.kernel_signatures[0].symbol, "orig_bytecode": orig}
                alias = alias_kernel(ct, kern, f"{op}__{name}")
                r = compile_tile(alias._annotated_function, [signature_for(cc, ct, alias, args)],
                                 sm_arch=sm, compiler_options=kern._compiler_options,
                                 bytecode_version=bcv, return_bytecode=True, return_cubin=False)
            path = os.path.join(spec["out"], stem + ".tileirbc")
            tmp = path + ".tmp"
            with open(tmp, "wb") as f:
                f.write(bytes(r.bytecode))
            os.replace(tmp, path)
            res.update(ok=True, symbol=r.kernel_signatures[0].symbol, bytecode=path,
                       bytes=len(r.bytecode),
                       args={k: describe(v) for k, v in args.items()})
        except SpecError as e:
            res.update(ok=False, error=str(e), spec_error=True)
            failed += 1
        except Exception as e:  # noqa: BLE001 - the compiler's own message is the finding
            msg = getattr(e, "message", None) or str(e)
            # one line: cuTile ends some messages with "Unknown location"
            msg = " ".join(ln.strip() for ln in msg.splitlines()
                           if ln.strip() and ln.strip() != "Unknown location")
            res.update(ok=False, error=f"{type(e).__name__}: {msg}".strip(),
                       where=error_place(e, source))
            failed += 1
        if inferred:
            res["inferred"] = inferred
        res["seconds"] = round(time.monotonic() - t1, 4)
        emit(res)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
