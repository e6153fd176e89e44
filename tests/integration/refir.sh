#!/bin/sh
# tileport refir: the reference kernels compiled offline by cuTile Python's
# own compiler (the venv mk/cutile-py.sh makes in build/pyenv), on small
# kernels of tileport's own, the sample workspace and TileGym's operators;
# the files stage A writes, the specialisation from analysis.json, the
# errors, the assembler, and a mech run whose stage A now has the IR.
# Skips (with the reason) where cuda.tile could not be installed.
. "$TILEPORT_TOP/tests/integration/lib/common.sh"
PY=${TILEPORT_TEST_PYTHON:-$TILEPORT_TOP/build/pyenv/bin/python}
if ! "$PY" -c 'import cuda.tile' >/dev/null 2>&1; then
	echo "skip: no Python with cuda.tile at $PY (mk/cutile-py.sh could not install cuda-tile from PyPI)"
	exit 0
fi
FX=$TILEPORT_TOP/tests/fixtures/refir
cp -R "$FX" "$T/fx"
offline_env

# the golden output, paths and times made stable
norm() { sed -e "s#$T#T#g" -e 's/[0-9][0-9]*\.[0-9][0-9] s/N s/g' "$1"; }

# ---- a kernel of our own: the files, the text, the JSON ----
"$TILEPORT" refir "$T/fx/add.py" --out "$T/add" --python "$PY" >"$T/add.out" 2>&1
assert_eq "add.py: exit 0" "$?" 0
norm "$T/add.out" >"$T/add.norm"
cat >"$T/add.want" <<'OUT'
ok       reference                    T/add/reference.mlir (add_kernel_Kt1_A1f16_1t1_p16_A1f16_1t1_p16_A1f16_1t1_p16_I64, N s)
         tileiras sm_90    ok (N s)
         tileiras sm_100   ok (N s)
         inferred, not given: x, y, out, TILE
1 of 1 ok, cuda.tile 1.7.0 (bytecode 13.3, sm_100), N s
OUT
diff -u "$T/add.want" "$T/add.norm" >"$T/add.diff" && ok "add.py: the golden output" ||
	bad "add.py: output differs: $(cat "$T/add.diff")"
for f in reference.mlir reference.tileirbc refir.json refir.spec.json; do
	[ -s "$T/add/$f" ] && ok "add.py: $f written" || bad "add.py: no $f"
done
assert_contains "add.py: a cuda_tile module" "$T/add/reference.mlir" "cuda_tile.module @kernels {"
assert_contains "add.py: the entry cuTile mangled" "$T/add/reference.mlir" \
	"entry @add_kernel_Kt1_A1f16_1t1_p16_A1f16_1t1_p16_A1f16_1t1_p16_I64("
assert_contains "add.py: the add" "$T/add/reference.mlir" "addf %tile, %tile_"
assert_contains "add.py: the 16-byte alignment the JIT assumes" "$T/add/reference.mlir" \
	"assume div_by<16>, %arg0 : tile<ptr<f16>>"
"$TILEPORT" ir fmt "$T/add/reference.tileirbc" >"$T/add.fmt"
cmp -s "$T/add.fmt" "$T/add/reference.mlir" && ok "add.py: the .mlir is ir fmt of the bytecode" ||
	bad "add.py: .mlir and ir fmt of the bytecode differ"
"$TILEPORT" irdiff "$T/add/reference.mlir" "$T/add/reference.tileirbc" >"$T/add.irdiff" 2>&1
assert_eq "add.py: irdiff of text and bytecode: PASS" "$?" 0
assert_eq "add.py: refir.json: symbol, args in order, assembled" \
	"$(json_get "$T/add/refir.json" '(d["kernels"][0]["symbol"], list(d["kernels"][0]["args"].items()), [a["sm"] for a in d["kernels"][0]["assembled"] if a["ok"]], d["compiled"], d["failed"])')" \
	"('add_kernel_Kt1_A1f16_1t1_p16_A1f16_1t1_p16_A1f16_1t1_p16_I64', [('x', 'f16 array rank 1'), ('y', 'f16 array rank 1'), ('out', 'f16 array rank 1'), ('TILE', 'const 64')], ['sm_90', 'sm_100'], 1, 0)"
"$TILEPORT" refir "$T/fx/add.py" --out "$T/add-j" --python "$PY" --no-assemble --json >"$T/add.json"
assert_eq "--json: refir.json on stdout, nothing assembled" \
	"$(json_get "$T/add.json" '(d["kernels"][0]["ok"], "assembled" in d["kernels"][0])')" "(True, False)"
(cd "$T" && "$TILEPORT" refir fx/add.py --out rel/out --python "$PY" --no-assemble) >"$T/rel.out" 2>&1
assert_eq "relative FILE and --out: exit 0" "$?" 0
[ -s "$T/rel/out/reference.mlir" ] && ok "relative --out: reference.mlir where asked" ||
	bad "relative --out: no $T/rel/out/reference.mlir: $(cat "$T/rel.out")"
[ -d "$T/fx/__pycache__" ] && bad "importing the kernel file left __pycache__ beside it" ||
	ok "nothing written beside the kernel file"

# ---- several kernels: reference_{kernel}; host packages stood in for ----
"$TILEPORT" refir "$T/fx/rows.py" --out "$T/rows" --python "$PY" --no-assemble >"$T/rows.out" 2>&1
assert_eq "rows.py: exit 0" "$?" 0
for k in row_max_kernel scale_kernel; do
	[ -s "$T/rows/reference_$k.mlir" ] && ok "rows.py: reference_$k.mlir" || bad "rows.py: no reference_$k.mlir"
done
assert_contains "rows.py: the kernel's occupancy hint" "$T/rows/reference_row_max_kernel.mlir" \
	"optimization_hints=<default = {occupancy = 2}>"
assert_contains "rows.py: n_rows a runtime i32" "$T/rows/refir.json" '"n_rows":	"i32 scalar"'
assert_eq "rows.py: torch stood in for" "$(json_get "$T/rows/refir.json" '"torch" in d["stubbed"]')" True

# ---- the specialisation from analysis.json ----
mkdir -p "$T/run/reference"
cat >"$T/run/reference/analysis.json" <<'JSON'
{"kernel_name": "add", "launch": {"dtypes": ["f32", "f16"]},
 "kernel_variants": [{"variant_name": "wide", "kernel_function": "add_kernel",
   "reference_ir": "reference/reference_wide.mlir",
   "constants": [{"name": "TILE", "value": "TILE = 256"}]}]}
JSON
"$TILEPORT" refir "$T/fx/add.py" --run "$T/run" --python "$PY" --no-assemble >"$T/run.out" 2>&1
assert_eq "analysis: exit 0" "$?" 0
assert_contains "analysis: the variant's file, f32, TILE 256" "$T/run/reference/reference_wide.mlir" \
	"tile<256xf32>"
assert_eq "analysis: TILE given, the arrays inferred" \
	"$(json_get "$T/run/reference/refir.json" 'd["kernels"][0]["inferred"]')" "['x', 'y', 'out']"
printf '{"kernel_variants": [{"variant_name": "v"}]}' >"$T/run/reference/analysis.json"
"$TILEPORT" refir "$T/fx/add.py" --run "$T/run" --python "$PY" >"$T/badan.out" 2>&1
assert_eq "analysis without kernel_function: exit 2" "$?" 2
assert_contains "analysis without kernel_function: says where" "$T/badan.out" \
	"analysis.json: kernel_variants[0]: no kernel_function"
"$TILEPORT" refir "$T/fx/add.py" --run "$T/run" --python "$PY" --no-analysis --no-assemble >/dev/null 2>&1
assert_eq "--no-analysis: every kernel, exit 0" "$?" 0

# ---- the alias repair: no entry symbol names the op ----
mkdir -p "$T/alias/reference"
cat >"$T/alias/reference/analysis.json" <<'JSON'
{"kernel_name": "vecsum", "kernel_variants": [{"variant_name": "default", "kernel_function": "add_kernel",
   "reference_ir": "reference/reference.mlir", "dispatch_condition": "always"}]}
JSON
"$TILEPORT" refir "$T/fx/add.py" --run "$T/alias" --python "$PY" --no-assemble >"$T/alias.out" 2>&1
assert_eq "alias repair: exit 0" "$?" 0
assert_contains "alias repair: the entry names the op" "$T/alias/reference/reference.mlir" \
	"entry @vecsum__add_kernel_Kt1_"
assert_contains "alias repair: the original kept" "$T/alias/reference/orig_mangled_entry.mlir.bak" \
	"entry @add_kernel_Kt1_"
[ -e "$T/alias/reference/reference.orig_mangled_entry.tileirbc" ] &&
	bad "alias repair: the original's bytecode left behind" || ok "alias repair: only the .bak kept"
sed 's/@vecsum__add_kernel_[A-Za-z0-9_]*/@ENTRY/' "$T/alias/reference/reference.mlir" >"$T/alias.a"
sed 's/@add_kernel_[A-Za-z0-9_]*/@ENTRY/' "$T/alias/reference/orig_mangled_entry.mlir.bak" >"$T/alias.b"
cmp -s "$T/alias.a" "$T/alias.b" && ok "alias repair: the two differ in the entry symbol only" ||
	bad "alias repair: the modules differ beyond the entry symbol"
assert_eq "alias repair: refir.json says so" \
	"$(json_get "$T/alias/reference/refir.json" 'd["kernels"][0]["alias"]["from"].startswith("add_kernel_")')" True

# ---- what cuTile, Python and the assembler refuse ----
"$TILEPORT" refir "$T/fx/bad_shape.py" --out "$T/bad" --python "$PY" >"$T/bad.out" 2>&1
assert_eq "bad_shape.py: exit 1" "$?" 1
assert_contains "bad_shape.py: cuTile's message at the kernel's line" "$T/bad.out" \
	"FAIL     reference                    $T/fx/bad_shape.py:8: TypeCheckingError: Invalid argument \"shape\" of load(): Dimension #0 of shape (3,) is not a power of two"
assert_eq "bad_shape.py: refir.json says so" "$(json_get "$T/bad/refir.json" '(d["failed"], d["kernels"][0]["ok"])')" "(1, False)"
"$TILEPORT" refir "$T/fx/broken.py" --out "$T/broken" --python "$PY" >"$T/broken.out" 2>&1
assert_eq "broken.py: exit 1" "$?" 1
assert_contains "broken.py: the file and line" "$T/broken.out" "FAIL     $T/fx/broken.py:4: SyntaxError"
"$TILEPORT" refir "$T/fx/add.py" --out "$T/asm" --python "$PY" --assemble sm_999,sm_90 >"$T/asm.out" 2>&1
assert_eq "tileiras refuses sm_999: exit 1" "$?" 1
assert_contains "tileiras refuses sm_999: its message" "$T/asm.out" \
	"tileiras sm_999   refused: exit 1: tileiras: for the --gpu-name option: Cannot find option named 'sm_999'!"
assert_contains "tileiras refuses sm_999: the kernel's line says so" "$T/asm.out" \
	"compiled, but tileiras refused the module for sm_999"
[ -s "$T/asm/reference.mlir" ] && ok "a module the assembler refused keeps its IR" ||
	bad "a module the assembler refused lost its reference.mlir"
cp "$T/fx/bad_shape.py" "$T/fx/add_then_bad.py"
"$TILEPORT" refir "$T/fx/add.py" --out "$T/stale" --python "$PY" --no-assemble >/dev/null 2>&1
"$TILEPORT" refir "$T/fx/add_then_bad.py" --out "$T/stale" --python "$PY" --no-assemble >/dev/null 2>&1
assert_eq "a kernel that no longer compiles: exit 1" "$?" 1
[ -e "$T/stale/reference.mlir" ] || [ -e "$T/stale/reference.tileirbc" ] &&
	bad "a kernel that no longer compiles left the IR of the earlier compile" ||
	ok "a kernel that no longer compiles leaves no stale reference.mlir"
"$TILEPORT" refir "$T/fx/add.py" --out "$T/v134" --python "$PY" --bytecode-version 13.4 --no-assemble >"$T/v134.out" 2>&1
assert_eq "bytecode 13.4: exit 1" "$?" 1
assert_contains "bytecode 13.4: tileport's reader says why" "$T/v134.out" \
	"unsupported Tile version 13.4.0, this reader supports versions [13.1 - 13.3]"
"$TILEPORT" refir "$T/fx/add.py" --out "$T/v99" --python "$PY" --bytecode-version 9.9 >"$T/v99.out" 2>&1
assert_eq "bytecode 9.9: exit 2" "$?" 2
assert_contains "bytecode 9.9: cuTile's list" "$T/v99.out" "Unsupported bytecode version '9.9'"

# ---- usage and environment ----
"$TILEPORT" refir "$T/fx/add.py" --python "$PY" >/dev/null 2>"$T/u1"
assert_eq "FILE.py without --out: exit 2" "$?" 2
assert_contains "FILE.py without --out: says so" "$T/u1" "FILE.py needs --run DIR or --out DIR"
"$TILEPORT" refir "$T/nope.py" --out "$T/x" >/dev/null 2>&1
assert_eq "a missing file: exit 2" "$?" 2
"$TILEPORT" refir "$T/fx/add.py" --out "$T/x" --run "$T/y" >/dev/null 2>&1
assert_eq "--out and --run: exit 2" "$?" 2
"$TILEPORT" refir nosuchop --workspace "$WS" --python "$PY" >/dev/null 2>"$T/u2"
assert_eq "an op without a cuTile file: exit 2" "$?" 2
"$TILEPORT" refir rms_norm --workspace "$WS" --python "$PY" >/dev/null 2>"$T/u3"
assert_eq "an op whose reference is Triton: exit 2" "$?" 2
assert_contains "an op whose reference is Triton: says so" "$T/u3" \
	"the reference of rms_norm is Triton (src/tilegym/ops/triton/rms_norm.py): refir compiles cuTile Python only"
printf '#!/bin/sh\nexec python3 -S "$@"\n' >"$T/bin/plainpy" && chmod +x "$T/bin/plainpy"
"$TILEPORT" refir "$T/fx/add.py" --out "$T/x" --python "$T/bin/plainpy" >/dev/null 2>"$T/e3"
assert_eq "a Python without cuda.tile: exit 3" "$?" 3
assert_contains "a Python without cuda.tile: what to install" "$T/e3" "pip install 'cuda-tile[tileiras]==1.7.0'"
"$TILEPORT" refir --probe --python "$PY" --json >"$T/probe.json"
assert_eq "--probe: usable, how found" "$(json_get "$T/probe.json" '(d["usable"], d["how"], d["cuda_tile"])')" \
	"(True, '--python', '1.7.0')"
mkdir -p "$T/wsv" && ln -s "$(dirname "$(dirname "$PY")")" "$T/wsv/.venv"
(unset TILEPORT_PYTHON; PATH="$T/empty" "$TILEPORT" refir --probe --workspace "$T/wsv" --json) >"$T/probe2.json"
assert_eq "--probe: the workspace's .venv" "$(json_get "$T/probe2.json" '(d["usable"], d["how"])')" \
	"(True, 'workspace venv')"
printf 'python = %s\n' "$PY" >"$T/wsv/.tileport.conf"
(unset TILEPORT_PYTHON; "$TILEPORT" refir --probe --workspace "$T/wsv" --json) >"$T/probe3.json"
assert_eq "--probe: the config's python" "$(json_get "$T/probe3.json" 'd["how"]')" "config python"
(TILEPORT_PYTHON=$PY "$TILEPORT" preflight --json) >"$T/pf.json" 2>/dev/null
assert_eq "preflight: the reference IR offline" \
	"$(json_get "$T/pf.json" '(d["reference_ir_offline"]["ok"], d["reference_ir_offline"]["cuda_tile"])')" "(True, '1.7.0')"

# ---- the sample workspace, and stage A of a mech run ----
cp -R "$WS" "$T/ws"
"$TILEPORT" refir softmax --workspace "$T/ws" --run "$T/smx" --python "$PY" >"$T/smx.out" 2>&1
assert_eq "sample softmax: exit 0" "$?" 0
assert_contains "sample softmax: reference.mlir" "$T/smx/reference/reference.mlir" "entry @softmax_kernel_"
TILEPORT_PYTHON=$PY "$TILEPORT" run softmax --workspace "$T/ws" --out "$T/out" --headless >"$T/mech.log" 2>&1
assert_eq "mech run: completes" "$?" 0
"$TILEPORT" status "$T/out/softmax" --json >"$T/mech.status"
assert_eq "mech run: stage A validated, not deferred: the IR is there" \
	"$(json_get "$T/mech.status" '(d["final"], d["attempts"][0]["verdict"], d["attempts"][0]["validator"])')" \
	"('OFFLINE_COMPLETE', 'DEFERRED', 'pass')"
[ -s "$T/out/softmax/reference/reference.mlir" ] && ok "mech run: reference/reference.mlir" ||
	bad "mech run: no reference/reference.mlir"
assert_contains "mech run: agent_a.md says how it was made" "$T/out/softmax/reports/agent_a.md" \
	"cuTile Python 1.7.0 compiled the kernels offline"
assert_contains "mech run: deferred is only the perf log" "$T/out/softmax/.tileport/attempts/01-A1/transcript.jsonl" \
	'deferred: perf-log\n'
# a fresh workspace: the first run's stage D registered a port there, which a
# second run would be refused for
cp -R "$WS" "$T/ws2"
TILEPORT_PYTHON=$T/bin/plainpy "$TILEPORT" run softmax --workspace "$T/ws2" --out "$T/out2" --headless >/dev/null 2>&1
"$TILEPORT" status "$T/out2/softmax" --json >"$T/mech2.status"
assert_eq "mech run without cuda.tile: completes, A deferred as before" \
	"$(json_get "$T/mech2.status" '(d["final"], d["attempts"][0]["validator"])')" "('OFFLINE_COMPLETE', 'deferred')"
assert_contains "mech run without cuda.tile: agent_a.md says why" "$T/out2/softmax/reports/agent_a.md" \
	"Deferred (reference-ir): cuda.tile does not import in $T/bin/plainpy"

# ---- TileGym's operators (the checkout's shared/ copy) ----
TG=$TILEPORT_TOP/../shared/tilegym/TileGym-75a1430.tar.gz
if [ ! -f "$TG" ]; then
	echo "note: $TG absent: TileGym's operators skipped"
else
	tar xzf "$TG" -C "$T"
	for op in swiglu softmax matmul rope; do
		"$TILEPORT" refir "$op" --workspace "$T/TileGym" --run "$T/tg/$op" --python "$PY" \
			--no-assemble >"$T/tg-$op.out" 2>&1
		assert_eq "TileGym $op: every kernel compiles offline" "$?" 0
	done
	# with the run's analysis: its variants' file names, and validate analysis
	# then finds every reference_ir (only where analyze translates the op)
	if "$TILEPORT" analyze swiglu --workspace "$T/TileGym" --run "$T/tga/swiglu" >/dev/null 2>&1; then
		"$TILEPORT" refir swiglu --workspace "$T/TileGym" --run "$T/tga/swiglu" --python "$PY" \
			--no-assemble >"$T/tga.out" 2>&1
		assert_eq "TileGym swiglu with its analysis: exit 0" "$?" 0
		"$TILEPORT" validate analysis swiglu --run "$T/tga/swiglu" --deferred perf-log >"$T/tga.val" 2>&1
		assert_eq "TileGym swiglu: validate analysis with the reference IR there: exit 0" "$?" 0
	else
		echo "note: analyze does not translate TileGym's swiglu: its analysis case skipped"
	fi
	assert_eq "TileGym softmax: four kernels, four files" "$(ls "$T/tg/softmax/reference/"*.mlir | wc -l)" 4
	assert_contains "TileGym swiglu: the forward kernel" \
		"$T/tg/swiglu/reference/reference__swiglu_forward_kernel.mlir" "entry @_swiglu_forward_kernel_"
fi
finish
