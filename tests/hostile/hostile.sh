#!/bin/sh
# The hostile suite: every case of cases.tsv (bad input, a FIFO or a link
# where a file belongs, a full disk, a damaged run) is run in a folder of
# its own; each must exit with its code and say its message, and nothing
# outside its folder may change (a checksum of a sentinel tree, and the
# type of /dev/null, before and after). docs/reliability.md describes it.
set -u
: "${TILEPORT:?TILEPORT must name the binary under test}"
: "${TILEPORT_TOP:?TILEPORT_TOP must name the repository root}"
TP=$TILEPORT TOP=$TILEPORT_TOP FIX=$TILEPORT_TOP/tests/fixtures
R=$(mktemp -d "${TMPDIR:-/tmp}/tileport-hostile-XXXXXX")
[ -n "${KEEP_TMP:-}" ] || trap 'rm -rf "$R"' EXIT
S=$R/sentinel
mkdir -p "$S/sub"
echo "kept" >"$S/keep"
echo "also kept" >"$S/sub/file"
ROOT=
[ "$(id -u)" = 0 ] && ROOT=1
export TP TOP FIX S ROOT
unset TILEGYM_PATH CUTILE_KERNEL_OUT_ROOT TILEPORT_TABLE

mkdir -p "$R/so"
${CC:-cc} -shared -fPIC -o "$R/so/libcutile_kernels.so" "$FIX/elf/cutile_kernels.c" || exit 1
SO=$R/so/libcutile_kernels.so
export SO

sentinel_sum() {
	(cd "$S" && find . -printf '%y %m %p\n' | sort && find . -type f -exec cat {} +) | cksum
	stat -c '%F' /dev/null
}

# Helpers a case's setup may call (the case folder is the current one).
helpers='
mkrun() { mkdir -p out; cp -R "$FIX/tui-runs/${1:-softmax}" out/; }
mkvalidate() {
	cp -R "$FIX/runs" out; cp -R "$FIX/workspace" ws
	rel=ws/src/tilegym/ops/cutile_rs/cutile_kernels/target/release
	mkdir -p "$rel"; cp "$SO" "$rel/"
}
# a git workspace cs/ws with softmax converted, its complete run cs/out/softmax
mkpkg() { T=$W; . "$TOP/tests/integration/lib/changeset.sh" >/dev/null 2>&1; }
'

before=$(sentinel_sum)
n=0 failed=0 skipped=0
while IFS= read -r line; do
	case $line in '#'* | '') continue ;; esac
	name=$(printf '%s\n' "$line" | awk -F' [|] ' '{print $1}')
	setup=$(printf '%s\n' "$line" | awk -F' [|] ' '{print $2}')
	cmd=$(printf '%s\n' "$line" | awk -F' [|] ' '{print $3}')
	want=$(printf '%s\n' "$line" | awk -F' [|] ' '{print $4}')
	frag=$(printf '%s\n' "$line" | awk -F' [|] ' '{print $5}')
	n=$((n + 1))
	W=$R/case$n
	mkdir -p "$W"
	export W
	# every case gets a config of its own, and the validators' paths
	export XDG_CONFIG_HOME="$W/.cfg" TILEGYM_PATH="$W/ws" CUTILE_KERNEL_OUT_ROOT="$W/out"
	if [ "$(cd "$W" && eval "$helpers $setup" 2>&1)" = skip ]; then
		skipped=$((skipped + 1))
		echo "skip $name"
		continue
	fi
	(cd "$W" && timeout 60 sh -c "$cmd") >"$W/.out" 2>&1 </dev/null
	rc=$?
	ok=1
	[ "$rc" = "$want" ] || ok=
	case $frag in
	'!'*) ! grep -qF -- "${frag#!}" "$W/.out" || ok= ;;
	*) grep -qF -- "$frag" "$W/.out" || ok= ;;
	esac
	now=$(sentinel_sum)
	if [ "$now" != "$before" ]; then
		ok=
		echo "     the sentinel tree or /dev/null changed"
		before=$now
	fi
	if [ -n "$ok" ]; then
		echo "ok   $name"
	else
		failed=$((failed + 1))
		echo "FAIL $name: exit $rc (want $want), output:"
		sed 's/^/    | /' "$W/.out" | tail -n 8
		echo "    (want: $frag)"
	fi
done <"$TOP/tests/hostile/cases.tsv"
echo "$n cases, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
