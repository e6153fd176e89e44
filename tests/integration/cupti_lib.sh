#!/bin/sh
# libtileport_cupti.so as built (only where the CUDA toolkit was found; a
# clean skip otherwise): what it exports and links, and, loaded into a
# process here, its file lifecycle: TILEPORT_TRACE with %p, a .partial file
# renamed at the first flush, the header and meta records, one X record per
# activity kind CUPTI refused (no GPU driver on a CI machine), and tileport
# reading it back. Measuring needs a GPU: tests/gpu/.
. "$TILEPORT_TOP/tests/integration/lib/common.sh"
LIB=${TILEPORT_BUILD:?}/libtileport_cupti.so
if [ ! -f "$LIB" ]; then
	echo "skip: $LIB was not built (no CUDA toolkit with CUPTI)"
	exit 0
fi
cd "$T" || exit 1
nm -D --defined-only "$LIB" | awk '{print $3}' | sort >exports
assert_eq "exports only the entry points" "$(tr '\n' ' ' <exports)" "InitializeInjection tileport_cupti_flush "
readelf -d "$LIB" >dyn
assert_contains "links libcupti" dyn "Shared library: [libcupti.so"
grep -q 'libasan\|libubsan' dyn && bad "linked with a sanitizer runtime" || ok "no sanitizer runtime"

mkdir -p d
load() { # load TRACE: InitializeInjection and an explicit flush in a fresh process
	TILEPORT_TRACE=$1 python3 -c '
import ctypes, sys
lib = ctypes.CDLL(sys.argv[1])
print("init", lib.InitializeInjection())
lib.tileport_cupti_flush()
' "$LIB"
}
load "$T/d/00-ref.%p.trace" >init.out 2>init.err
assert_contains "InitializeInjection returns 1" init.out "init 1"
set -- d/00-ref.*.trace
[ -f "$1" ] && ok "the trace was renamed from .partial" || bad "no trace file: $(ls d)"
ls d | grep -q '\.partial$' && bad ".partial left behind" || ok "no .partial left behind"
head -n 1 "$1" | grep -q "^#tileport-trace	1$" && ok "header" || bad "header: $(head -n 1 "$1")"
assert_contains "pid meta" "$1" "M	pid	"
assert_contains "NVTX injection points at the loaded libcupti" "$1" "M	nvtx_injection	"
[ "$(grep -c '^F	' "$1")" -ge 2 ] && ok "flushed by the call and at exit" || bad "flush records: $(grep -c '^F' "$1")"
if ! nvidia-smi -L >/dev/null 2>&1; then
	assert_contains "no driver: CUPTI's refusal recorded" "$1" "X	cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL): "
fi
load "$T/d/01-cand.%p.trace" >/dev/null 2>&1
"$TILEPORT" bench --from d >from.out 2>&1
assert_eq "tileport reads it: nothing paired" "$?" 1
if ! nvidia-smi -L >/dev/null 2>&1; then
	assert_contains "and says what the library reported" from.out "the library reported: cuptiActivityEnable"
fi
env -u TILEPORT_TRACE python3 -c 'import ctypes, sys; print(ctypes.CDLL(sys.argv[1]).InitializeInjection())' "$LIB" >un.out 2>un.err
assert_contains "without TILEPORT_TRACE: still 1" un.out "1"
assert_contains "without TILEPORT_TRACE: says nothing is recorded" un.err "TILEPORT_TRACE is not set: nothing is recorded"
finish
