#!/bin/sh
# `tileport ir fmt` on Tile IR bytecode: the reference's 13.1 file prints as
# the official translator prints it; printed text reads back to the same
# text; bad files exit 2 naming the offset and the reason.
set -u
: "${TILEPORT:?}" "${TILEPORT_TOP:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
fix="$TILEPORT_TOP/tests/fixtures/bytecode/spec11_negi_13_1.tileirbc"

"$TILEPORT" ir fmt "$fix" >"$tmp/out.mlir" 2>"$tmp/err" || fail "ir fmt exited $? on the 13.1 fixture: $(cat "$tmp/err")"
cat >"$tmp/want.mlir" <<'MLIR'
cuda_tile.module @kernels {
  entry @basic() {
    %cst_i32 = constant <i32: [1, 2]> : tile<2xi32>
    %0 = negi %cst_i32 : tile<2xi32>
    %1 = negi %cst_i32 : tile<2xi32>
    return
  }
}
MLIR
cmp -s "$tmp/want.mlir" "$tmp/out.mlir" || { diff "$tmp/want.mlir" "$tmp/out.mlir" >&2; fail "ir fmt text differs"; }

# the printed text is itself valid input and prints identically
"$TILEPORT" ir fmt "$tmp/out.mlir" >"$tmp/again.mlir" || fail "printed text does not read back"
cmp -s "$tmp/out.mlir" "$tmp/again.mlir" || fail "text round trip changed the output"

# every seed of the fuzz corpus decodes and prints (they are all valid files)
n=0
for f in "$TILEPORT_TOP"/tests/fuzz/corpus/bytecode/*.tileirbc; do
	"$TILEPORT" ir fmt "$f" >"$tmp/seed.mlir" 2>"$tmp/err" || fail "ir fmt failed on $f: $(cat "$tmp/err")"
	head -n 1 "$tmp/seed.mlir" | grep -q '^cuda_tile.module @kernels' || fail "no module header for $f"
	n=$((n + 1))
done
[ "$n" -gt 10 ] || fail "expected the bytecode seed corpus, found $n files"

# rejections: exit 2 and a message with the file, the offset and the reason
expect_reject() {
	file=$1 want=$2
	"$TILEPORT" ir fmt "$file" >/dev/null 2>"$tmp/err"
	rc=$?
	[ "$rc" -eq 2 ] || fail "$(basename "$file"): exit $rc, expected 2"
	grep -qF -- "$want" "$tmp/err" || fail "$(basename "$file"): message '$(cat "$tmp/err")' lacks '$want'"
	grep -qF -- "$file: offset " "$tmp/err" || fail "$(basename "$file"): message lacks file and offset"
}
head -c 100 "$fix" >"$tmp/truncated.tileirbc"
expect_reject "$tmp/truncated.tileirbc" "offset 74 (0x4a): type section length 31 exceeds remaining data size 25"
printf '\177TileIR\000\015\004\000\000\000' >"$tmp/v134.tileirbc"
expect_reject "$tmp/v134.tileirbc" "unsupported Tile version 13.4.0"
{ head -c 12 "$fix"; printf '\177\001\000'; } >"$tmp/badsec.tileirbc"
expect_reject "$tmp/badsec.tileirbc" "offset 12 (0xc): unknown section ID: 127"
# atan2 (13.2) in a 13.1 file: patch the first negi (offset 0x19) to 0x6E
{ head -c 25 "$fix"; printf '\156'; tail -c +27 "$fix"; } >"$tmp/atan2.tileirbc"
expect_reject "$tmp/atan2.tileirbc" "offset 25 (0x19): unsupported opcode 110 (atan2) for bytecode version 13.1"

echo "bytecode: ok"
