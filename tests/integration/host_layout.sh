#!/bin/sh
# Stage D (mech) on host code and tests written the ways TileGym writes
# them (tests/fixtures/tilegym-host laid over tests/fixtures/tilegym-layout):
# a launch inside an autograd.Function's forward, a launch through a local
# name from a launch helper, a kernel a tuner chose (rope's), a tuner's
# kernel candidates with arguments built in branches (blend), backend
# lists inside the test class (with and
# without the is_backend_available import), an operator in a subfolder, and
# a launch helper of another operator's module, which the wrapper takes
# from that operator's cuTile Rust port once it exists. Each run ends
# OFFLINE_COMPLETE with the wiring a TileGym developer writes. Then the
# same on a real TileGym checkout (../shared/tilegym), skipped cleanly
# without one.
. "$TILEPORT_TOP/tests/integration/lib/common.sh"
offline_env
export HOME="$T/home"
mkdir -p "$HOME"
FX=$TILEPORT_TOP/tests/fixtures
cp -R "$FX/tilegym-layout" "$T/ws"
cp -R "$FX/tilegym-host/src" "$FX/tilegym-host/tests" "$T/ws/"
W=$T/ws

run() { # OP [ARGS] -> $T/OP.log, exit code
	op=$1
	shift
	"$TILEPORT" run "$op" --workspace "$W" --out "$T/out" --headless "$@" >"$T/$op.log" 2>&1
}
ends_complete() { # OP RC [WHERE]
	assert_eq "${3:-}$1: exit 0" "$2" 0
	assert_contains "${3:-}$1: OFFLINE_COMPLETE" "$T/$1.log" "OFFLINE_COMPLETE: offline work done"
}

# A launch inside an autograd.Function, in a subfolder; the class's list.
run leaky_relu
ends_complete leaky_relu "$?"
assert_contains "leaky_relu: the cutile-rs line follows the tilecpp line, in the class" \
	"$W/tests/ops/activation/test_leaky_relu.py" '        _backends = _backends + ["tilecpp"]
    if is_backend_available("cutile-rs"):
        _backends = _backends + ["cutile-rs"]
    _perf_backends = _backends + ["pytorch"]'
assert_eq "leaky_relu: the perf list takes it through _backends, once" \
	"$(grep -c '"cutile-rs"]' "$W/tests/ops/activation/test_leaky_relu.py")" 1
assert_contains "leaky_relu: the wrapper keeps the autograd.Function" "$W/src/tilegym/ops/cutile_rs/leaky_relu.py" \
	"class _LeakyReLU(torch.autograd.Function):"
assert_contains "leaky_relu: registered for cutile-rs" "$W/src/tilegym/ops/cutile_rs/leaky_relu.py" \
	'@register_impl("leaky_relu", backend="cutile-rs")'

# A launch through a local name; a class list without the import.
run scaled_softmax
ends_complete scaled_softmax "$?"
S=$W/src/tilegym/ops/cutile_rs/scaled_softmax.py
assert_contains "scaled_softmax: the name holds each kernel's launch function" "$S" \
	"        kernel = _launch__scaled_softmax_tma"
assert_contains "scaled_softmax: and the launch goes through it" "$S" \
	"    kernel(torch.cuda.current_stream(), grid, out, x, next_power_of_2(n_cols))"
assert_contains "scaled_softmax: an export per kernel" "$W/src/tilegym/ops/cutile_rs/scaled_softmax_kernel/ffi.rs" \
	"fn cutile_scaled_softmax__scaled_softmax_tma("
assert_contains "scaled_softmax: the import the class list needs, in name order" \
	"$W/tests/ops/test_scaled_softmax.py" 'from tilegym.backend import is_backend_available
from tilegym.backend import set_backend'
assert_contains "scaled_softmax: the class's list" "$W/tests/ops/test_scaled_softmax.py" \
	'    _backends = ["cutile"]
    if is_backend_available("cutile-rs"):
        _backends = _backends + ["cutile-rs"]'

# A tuner's kernel candidates and a tuple built before the launch, its tail
# chosen in the arms of an if (blend): each kernel takes the tuple naming its
# own parameter, and the wrapper launches what the Python launches.
run blend
ends_complete blend "$?"
B=$W/src/tilegym/ops/cutile_rs/blend.py
assert_contains "blend: the host's own tuple, unpacked into the launch" "$B" \
	"    kernel(torch.cuda.current_stream(), grid, *args)"
assert_contains "blend: the candidates hold the launch functions" "$B" \
	"    for cand in (_Candidate(_launch__blend_rows, True), _Candidate(_launch__blend_cols, False)):"
assert_contains "blend: the search over the candidate's launch" "$B" "            cand.kernel,"
assert_contains "blend: the winner with its hints" "$B" \
	"    return functools.partial(best, occupancy=best_cfg.occupancy), best_cfg"
assert_contains "blend: a kernel-typed field is an object" "$B" "    kernel: object"
assert_contains "blend: the rows kernel takes the width" "$T/out/blend/reports/agent_b.md" \
	"  - host arguments, built as \`args\` (the tuple bound at line 72): out, a, b, width"
assert_contains "blend: the columns kernel takes the height" "$T/out/blend/reports/agent_b.md" \
	"  - host arguments, built as \`args\` (the tuple bound at line 75): out, a, b, height"

# Another operator's launch helper: refused until that operator has its port.
run row_norm
assert_eq "row_norm before row_scale's port: exit 1" "$?" 1
assert_contains "row_norm: D says which operator to port first" "$T/row_norm.log" \
	"STOP: D1: mech cannot do stage D of row_norm: src/tilegym/ops/cutile/row_norm.py:6:24: \`row_scale\` from tilegym.ops.cutile.row_scale, another operator's host code that runs its kernels in cuTile Python: port row_scale first (tileport run row_scale)"
run row_scale
ends_complete row_scale "$?"
run row_norm --fresh
ends_complete row_norm "$?"
assert_contains "row_norm: row_scale from its cuTile Rust port" "$W/src/tilegym/ops/cutile_rs/row_norm.py" \
	"from tilegym.ops.cutile_rs.row_scale import row_scale"
if grep -q "tilegym.ops.cutile\.\|import cuda\|from cuda" "$W/src/tilegym/ops/cutile_rs/row_norm.py"; then
	bad "row_norm's wrapper imports cuTile Python"
else
	ok "row_norm's wrapper needs no cuTile Python"
fi
assert_contains "the __init__ imports in name order, with the ports' comment" \
	"$W/src/tilegym/ops/cutile_rs/__init__.py" '    from . import blend  # noqa: F401
    from . import leaky_relu  # noqa: F401
    from . import row_norm  # noqa: F401
    from . import row_scale  # noqa: F401
    from . import scaled_softmax  # noqa: F401
    from . import softmax  # noqa: F401'

# What was written is Python, and every name the wrappers read is theirs
# (a kernel name left behind would fail only on a GPU).
undefined() { # FILE... -> one line per file with a name nothing defines
	python3 -c 'import builtins, symtable, sys
for f in sys.argv[1:]:
    top = symtable.symtable(open(f).read(), f, "exec")
    known = set(dir(builtins)) | {s.get_name() for s in top.get_symbols() if s.is_assigned() or s.is_imported()}
    bad = set()
    def walk(t):
        for s in t.get_symbols():
            if s.is_referenced() and (s.is_global() or t.get_type() == "module") and s.get_name() not in known:
                bad.add(s.get_name())
        for c in t.get_children():
            walk(c)
    walk(top)
    if bad:
        print(f, sorted(bad))' "$@"
}
assert_eq "the wrappers read no undefined name" "$(undefined "$W"/src/tilegym/ops/cutile_rs/*.py)" ""
if python3 -c 'import ast, sys
for f in sys.argv[1:]:
    ast.parse(open(f).read(), f)' "$W"/src/tilegym/ops/cutile_rs/*.py "$W"/tests/ops/*.py "$W"/tests/ops/*/*.py \
	2>"$T/py"; then
	ok "the wrappers and the edited tests parse"
else
	bad "a written file does not parse"
	sed 's/^/    | /' "$T/py"
fi

# ---- the real checkout, when this machine has it ----
TAR=$(ls "$TILEPORT_TOP"/../shared/tilegym/TileGym-*.tar.gz 2>/dev/null | head -n 1)
if [ -z "$TAR" ]; then
	echo "skip TileGym: no ../shared/tilegym/TileGym-*.tar.gz here"
	finish
	exit
fi
mkdir -p "$T/tg" && tar xzf "$TAR" -C "$T/tg"
W=$(ls -d "$T"/tg/*/ | head -n 1)
W=${W%/}
# stage A skips the reference IR, so that B passes on what it compiles
export TILEPORT_PYTHON=/nonexistent
for op in relu softmax rms_norm rope; do
	run "$op"
	ends_complete "$op" "$?" "TileGym "
done
assert_contains "TileGym relu: its test class runs cutile-rs" "$W/tests/ops/activation/test_relu.py" \
	'        _backends = _backends + ["tilecpp"]
    if is_backend_available("cutile-rs"):
        _backends = _backends + ["cutile-rs"]
    _perf_backends = _backends + ["pytorch"]'
assert_contains "TileGym softmax: the TMA kernel through its local name" "$W/src/tilegym/ops/cutile_rs/softmax.py" \
	"    softmax_kernel_forward = _launch__softmax_kernel_tma"
assert_contains "TileGym rope: the tuner's kernel is its launch function with the hints bound" \
	"$W/src/tilegym/ops/cutile_rs/rope.py" \
	"    tuned_kernel = functools.partial(_launch__rope_kernel, occupancy=best_cfg.occupancy)"
assert_eq "TileGym: the wrappers read no undefined name" "$(undefined "$W"/src/tilegym/ops/cutile_rs/*.py)" ""
assert_contains "TileGym rope: the search runs over the cutile-rs launch" "$W/src/tilegym/ops/cutile_rs/rope.py" \
	"    result = _exhaustive_search("
if grep -q "experimental_kernel\|tilegym.ops.cutile\.\|cached_replace_hints\|^from cuda\|^import cuda" \
	"$W"/src/tilegym/ops/cutile_rs/rms_norm.py "$W"/src/tilegym/ops/cutile_rs/softmax.py \
	"$W"/src/tilegym/ops/cutile_rs/rope.py; then
	bad "TileGym: a wrapper imports what needs cuda.tile"
else
	ok "TileGym: the wrappers import nothing that needs cuda.tile"
fi
assert_contains "TileGym: the __init__ import among the ports' own" "$W/src/tilegym/ops/cutile_rs/__init__.py" \
	'    from . import matmul  # noqa: F401  (register dispatch entry)
    from . import relu  # noqa: F401  (register dispatch entry)
    from . import rms_norm  # noqa: F401  (register dispatch entry)
    from . import silu_and_mul  # noqa: F401  (register dispatch entry)'
"$TILEPORT" ops --workspace "$W" --json >"$T/tg.json" 2>&1
assert_eq "TileGym mla_decoding_split_kv: splitk_reduce comes from its port, which is not there yet" \
	"$(json_get "$T/tg.json" '[o["offline"]["refusal"] for o in d if o["op"] == "mla_decoding_split_kv"][0]')" \
	"src/tilegym/ops/cutile/mla_decoding_split_kv.py:13:28: \`splitk_reduce\` from tilegym.ops.cutile.splitk_reduce, another operator's host code that runs its kernels in cuTile Python: port splitk_reduce first (tileport run splitk_reduce); the wrapper then takes \`splitk_reduce\` from its cuTile Rust port"
finish
