# tileport compile: the real cuTile Rust compiler (cutile 0.2.0, offline from
# mk/cutile.sh) over everything the translator writes — the golden kernels
# and FFIs, the five sample operators, the fixture kernels, and (where the
# TileGym archive is beside the checkout) every TileGym kernel it translates
# and NVIDIA's own five ports; the lowered IR read back by tileport's text
# and bytecode readers; FILE:LINE:COL findings from rustc and from cutile's
# own compiler; the exit codes of bad input and of a missing toolchain; and
# nothing written in the workspace.
. "$TILEPORT_TOP/tests/integration/lib/common.sh"

# the real cargo, not common.sh's stand-in
PATH=$(printf '%s' "$PATH" | sed "s|$T/bin:||")
if [ ! -f "$TILEPORT_TOP/build/cutile/env.sh" ]; then
	echo "skip: no offline cuTile crates (mk/cutile.sh found no ../shared/vendor/cutile-0.2.0)"
	exit 0
fi
G=$TILEPORT_TOP/tests/fixtures/port/golden
K=$TILEPORT_TOP/tests/fixtures/port/kernels
C=$TILEPORT_TOP/tests/fixtures/compile

# A copy of the sample workspace as a git repository: the check must leave
# it exactly as it was.
cp -R "$WS" "$T/ws"
git -C "$T/ws" init -q && git -C "$T/ws" add -A &&
	git -C "$T/ws" -c user.name=t -c user.email=t@t commit -qm base

compiles() { # NAME KERNEL [FFI]  -> lowered into $T/out/NAME
	if [ -n "${3:-}" ]; then
		"$TILEPORT" --workspace "$T/ws" compile "$2" --ffi "$3" --out "$T/out/$1" >"$T/c.log" 2>&1
	else
		"$TILEPORT" --workspace "$T/ws" compile "$2" --out "$T/out/$1" >"$T/c.log" 2>&1
	fi
	rc=$?
	if [ $rc -eq 0 ] && ls "$T/out/$1/generated/"generated*.mlir >/dev/null 2>&1; then
		ok "$1 compiles and lowers"
	else
		bad "$1: compile exited $rc"
		sed 's/^/    | /' "$T/c.log" | tail -n 15
		return 1
	fi
	# tileport's own readers take what cutile printed and wrote, and read
	# the same module from both (the bytecode has no module name)
	for f in "$T/out/$1/generated/"generated*.mlir; do
		b=${f%.mlir}.tileirbc
		"$TILEPORT" ir fmt "$f" >"$T/t.txt" 2>"$T/e" || { bad "$1: ir fmt $(basename "$f")"; sed 's/^/    | /' "$T/e"; }
		"$TILEPORT" ir fmt "$b" >"$T/b.txt" 2>"$T/e" || { bad "$1: ir fmt $(basename "$b")"; sed 's/^/    | /' "$T/e"; }
		tail -n +2 "$T/t.txt" >"$T/t2.txt"
		tail -n +2 "$T/b.txt" >"$T/b2.txt"
		cmp -s "$T/t2.txt" "$T/b2.txt" || { bad "$1: the text and the bytecode read differently"; diff "$T/t2.txt" "$T/b2.txt" | head -5 | sed 's/^/    | /'; }
	done
}

# ---- the golden files, compiled (not only compared as text) ----
for k in "$G"/*.kernel.rs; do
	op=$(basename "$k" .kernel.rs)
	compiles "golden $op" "$k" "$G/$op.ffi.rs"
done

# ---- the fixture kernels' translations ----
for f in "$K"/*.py; do
	n=$(basename "$f" .py)
	"$TILEPORT" translate "$f" --op "$n" >"$T/$n.rs" 2>"$T/e" || { bad "$n: translate"; continue; }
	if "$TILEPORT" translate "$f" --op "$n" --emit ffi >"$T/$n.ffi.rs" 2>/dev/null; then
		compiles "fixture $n" "$T/$n.rs" "$T/$n.ffi.rs"
	else
		compiles "fixture $n" "$T/$n.rs"
	fi
done

# fold_rows's arrays are read through views and pointers: with EXACT set its
# views go through the tensor views the entry builds from the pointers
# (above, EXACT is false: the pointer side)
"$TILEPORT" translate "$K/fold_rows.py" --op fold_rows >"$T/fr.rs"
"$TILEPORT" --workspace "$T/ws" compile "$T/fr.rs" --generics f16,64,true --out "$T/out/fr_exact" \
	>"$T/c.log" 2>&1
assert_eq "fold_rows, EXACT: views of pointer arrays lower" "$?" 0
FR=$T/out/fr_exact/generated/generated.mlir
assert_eq "fold_rows, EXACT: two views of pointers, laid out as the entry lays out a tensor's" \
	"$(grep -c 'strides = \[1\] : tile<i32> -> tensor_view<?xf16, strides=\[1\]>' "$FR")" 2
assert_contains "fold_rows, EXACT: a load through it, without padding" "$FR" \
	"partition_view<tile=(4), tensor_view<?xf16, strides=[1]>>, tile<i32> -> tile<4xf16>, token"
assert_contains "fold_rows, EXACT: a store through it" "$FR" "store_view_tko weak"

# ---- TileGym: its kernels as translated, and NVIDIA's own ports ----
TG_TAR=$TILEPORT_TOP/../shared/tilegym/TileGym-75a1430.tar.gz
if [ -f "$TG_TAR" ]; then
	mkdir -p "$T/tg" && tar xzf "$TG_TAR" -C "$T/tg"
	TG=$T/tg/TileGym
	for op in matmul bmm silu_and_mul swiglu attention_sink; do
		"$TILEPORT" --workspace "$TG" compile "$op" >"$T/c.log" 2>&1
		assert_eq "TileGym's own $op port compiles and lowers" "$?" 0
	done
	n_ok=0 n_tr=0
	for f in $(cd "$TG" && find src/tilegym/ops/cutile src/tilegym/ops/triton -name '*.py' | sort); do
		op=$(basename "$f" .py)
		(cd "$TG" && "$TILEPORT" translate "$f" --op "$op") >"$T/tg_$op.rs" 2>/dev/null || continue
		n_tr=$((n_tr + 1))
		ffi=
		(cd "$TG" && "$TILEPORT" translate "$f" --op "$op" --emit ffi) >"$T/tg_$op.ffi.rs" 2>/dev/null &&
			ffi="--ffi $T/tg_$op.ffi.rs"
		# shellcheck disable=SC2086
		if "$TILEPORT" --workspace "$TG" compile "$T/tg_$op.rs" $ffi --out "$T/tgout/$op" >"$T/c.log" 2>&1; then
			n_ok=$((n_ok + 1))
		else
			bad "TileGym $f: the translation does not compile"
			sed 's/^/    | /' "$T/c.log" | tail -n 10
		fi
	done
	assert_eq "every TileGym translation compiles ($n_ok of $n_tr)" "$n_ok" "$n_tr"
else
	echo "note: no $TG_TAR: TileGym's kernels not compiled"
fi

# ---- the sample operators, through the whole check with a run's analysis ----
cd "$T/ws" || exit 1
for src in src/tilegym/ops/cutile/softmax.py src/tilegym/ops/triton/rms_norm.py; do
	op=$(basename "$src" .py)
	"$TILEPORT" translate "$src" >"$T/$op.k.rs" && "$TILEPORT" translate "$src" --emit ffi >"$T/$op.f.rs"
	"$TILEPORT" compile "$T/$op.k.rs" --ffi "$T/$op.f.rs" --dtype f16 --dtype f32 --out "$T/$op.run" \
		--json >"$T/$op.json" 2>"$T/e"
	assert_eq "$op: two dtypes lowered" "$(json_get "$T/$op.json" "[o['dtype'] for o in d['outputs']]")" \
		"['f16', 'f32']"
	assert_eq "$op: the f32 one is a supplement" \
		"$(json_get "$T/$op.json" "[o['mlir'] for o in d['outputs']]")" \
		"['generated/generated.mlir', 'generated/supplements/generated_f32.mlir']"
	assert_eq "$op: the report is written" "$(cmp -s "$T/$op.json" "$T/$op.run/reports/compile.json" && echo same)" same
done

# ---- findings: rustc's, and cutile's own ----
"$TILEPORT" compile "$C/wrong_type.rs" >"$T/f.log" 2>&1
assert_eq "a type error: exit" "$?" 1
assert_contains "a type error: rustc's code at the kernel's line" "$T/f.log" \
	"$C/wrong_type.rs:16:13: error[E0308]: mismatched types"
"$TILEPORT" compile "$C/no_init.rs" >"$T/f.log" 2>&1
assert_eq "let without an initializer: exit" "$?" 1
assert_contains "let without an initializer: cutile's message and place" "$T/f.log" \
	"$C/no_init.rs:15:9: error: let bindings must have an initializer expression (cutile lowering of generated)"
"$TILEPORT" compile "$C/no_init.rs" --json >"$T/f.json" 2>/dev/null
assert_eq "--json: the finding's place" \
	"$(json_get "$T/f.json" "[(f['phase'], f['line'], f['column']) for f in d['findings'] if f['level'] == 'error']")" \
	"[('lower', 15, 9)]"
"$TILEPORT" compile "$C/no_init.rs" --no-lower >"$T/f.log" 2>&1
assert_eq "rustc alone accepts it (--no-lower)" "$?" 0
"$TILEPORT" compile "$C/warm.rs" --generics 1,2,3 >"$T/f.log" 2>&1
assert_eq "--generics of the wrong count: exit" "$?" 2
assert_contains "--generics of the wrong count: says so" "$T/f.log" "scale_rows takes 2 generic arguments, 3 given"

# ---- bad input and a missing toolchain ----
printf 'fn main() {}\n' >"$T/plain.rs"
"$TILEPORT" compile "$T/plain.rs" >"$T/f.log" 2>&1
assert_eq "no #[cutile::module]: exit" "$?" 2
assert_contains "no #[cutile::module]: says what was expected" "$T/f.log" \
	"$T/plain.rs:1:1: expected a #[cutile::module] with a body"
printf '#[cutile::module]\npub mod m {\n    /* open\n' >"$T/broken.rs"
"$TILEPORT" compile "$T/broken.rs" >"$T/f.log" 2>&1
assert_eq "an unterminated comment: exit" "$?" 2
assert_contains "an unterminated comment: where" "$T/f.log" "$T/broken.rs:3:5: expected the end of this literal or comment"
mkdir -p "$T/nodep/src/tilegym/ops/cutile_rs/cutile_kernels"
printf '[package]\nname = "k"\n\n[dependencies]\nhalf = "2"\n' \
	>"$T/nodep/src/tilegym/ops/cutile_rs/cutile_kernels/Cargo.toml"
"$TILEPORT" --workspace "$T/nodep" compile "$C/warm.rs" >"$T/f.log" 2>&1
assert_eq "a crate without the cutile dependency: exit" "$?" 2
assert_contains "a crate without the cutile dependency: file and line" "$T/f.log" \
	"$T/nodep/src/tilegym/ops/cutile_rs/cutile_kernels/Cargo.toml:4: expected a \`cutile = \"=VERSION\"\` dependency"
PATH=/usr/bin:/bin HOME=$T "$TILEPORT" compile "$C/warm.rs" >"$T/f.log" 2>&1
assert_eq "no cargo: exit" "$?" 3
assert_contains "no cargo: what to install" "$T/f.log" "cargo >= 1.89: not found (install Rust with rustup"
"$TILEPORT" compile >/dev/null 2>&1
assert_eq "no operand: exit" "$?" 2

# ---- nothing of the workspace was written ----
assert_eq "the workspace is untouched" "$(git -C "$T/ws" status --porcelain | wc -l)" 0

echo "$checks checks, $failures failures"
[ "$failures" -eq 0 ]
