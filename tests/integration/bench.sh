#!/bin/sh
# tileport bench end to end without a GPU: the commands are a test-only
# stand-in (lib/fake_bench.py) that writes the trace the injection library
# would write, with made-up device times, so what is tested is everything
# after the measurement: the ABBA order, the environment each process gets,
# per-process trace files, the assignment to configurations, statistics,
# the strict pass rule, NA rows, the perf logs and bench.json it writes,
# --from, the GPU readings (a stand-in nvidia-smi) and every failure path.
. "$TILEPORT_TOP/tests/integration/lib/common.sh"
FAKE="python3 $TILEPORT_TOP/tests/integration/lib/fake_bench.py"
cd "$T" || exit 1
cat >"$T/bin/nvidia-smi" <<'EOF'
#!/bin/sh
# a stand-in: the CSV answer of one H200
case "$*" in
*--query-gpu=*) echo "0, NVIDIA H200, 580.159.04, 1980, 1980, 41, 118.52, 0x0000000000000000" ;;
*) echo "GPU 0: NVIDIA H200 (UUID: GPU-test)" ;;
esac
EOF
chmod +x "$T/bin/nvidia-smi"

bench() { # bench NAME ARGS...: stdout, stderr, exit code under NAME
	n=$1
	shift
	"$TILEPORT" bench "$@" >"$n.out" 2>"$n.err"
	echo $? >"$n.rc"
}
top() { sed "s|$TILEPORT_TOP|TOP|g" "$1"; }

# ---- A/A: the same runner both sides ----
FAKE_BENCH_ORDER=$T/order bench aa --inject none --ref "$FAKE" --cand "$FAKE" --out aa
assert_eq "A/A: exit 0 (PASS)" "$(cat aa.rc)" 0
assert_eq "ABBA order over two rounds" "$(tr '\n' ' ' <order)" \
	"0 ref 1 cand 2 cand 3 ref 4 ref 5 cand 6 cand 7 ref "
assert_contains "A/A: strict pass stated" aa.out "PASS (strict rule: the CI's upper bound"
top aa.out >aa.shown
if [ -n "${TILEPORT_UPDATE_GOLDEN:-}" ]; then
	cp aa.shown "$TILEPORT_TOP/tests/fixtures/perf/bench-aa.txt"
fi
if diff -u "$TILEPORT_TOP/tests/fixtures/perf/bench-aa.txt" aa.shown >aa.diff; then
	ok "A/A: the table (golden)"
else
	bad "A/A: differs from tests/fixtures/perf/bench-aa.txt"
	sed 's/^/    | /' aa.diff | head -n 30
fi
"$TILEPORT" bench --from aa --json >aa.json 2>/dev/null
assert_eq "A/A: the interval holds 1" "$(json_get aa.json 'd["table"]["ci95"][0] < 1 < d["table"]["ci95"][1]')" True
assert_eq "A/A: geomean within 1%" "$(json_get aa.json 'abs(d["table"]["geomean_ratio"] - 1) < 0.01')" True
assert_eq "A/A: 8 processes recorded" "$(json_get aa.json 'len(d["processes"])')" 8
assert_eq "GPU readings before and after each" \
	"$(json_get aa.json 'd["processes"][3]["gpu_after"]["name"] + " " + str(d["processes"][3]["gpu_before"]["sm_mhz"])')" \
	"NVIDIA H200 1980"
assert_eq "samples kept per process" \
	"$(json_get aa.json '[len(g) for g in d["samples_ns"][0]["ref"]]')" "[50, 50, 50, 50]"
assert_contains "GPU line" aa.out "GPU 0: NVIDIA H200, driver 580.159.04; SM clock 1980-1980 MHz (max 1980) and 41-41 C over 16 readings; clock event reasons none"

# --from DIR gives the same table again; another seed only moves the interval
"$TILEPORT" bench --from aa >from.out 2>from.err
assert_eq "--from: the same output" "$(cmp -s aa.out from.out && echo same)" same
"$TILEPORT" bench --from aa --seed 7 --json >seed.json 2>/dev/null
assert_eq "--seed: same geomean" "$(json_get seed.json 'd["table"]["geomean_ratio"]')" \
	"$(json_get aa.json 'd["table"]["geomean_ratio"]')"
[ "$(json_get seed.json 'd["table"]["ci95"]')" != "$(json_get aa.json 'd["table"]["ci95"]')" ] &&
	ok "--seed: another interval" || bad "--seed: the same interval"

# the perf logs it wrote are perf logs: validated, and paired by tileport perf
for s in ref cand; do
	"$TILEPORT" validate perf-log "aa/perf_$s.txt" >vp.out 2>&1
	assert_eq "validate perf-log accepts perf_$s.txt" "$?" 0
done
"$TILEPORT" perf aa/perf_ref.txt aa/perf_cand.txt >pp.out 2>&1
assert_eq "tileport perf agrees on the geomean" "$(grep '^geomean_ratio=' pp.out)" "$(grep '^geomean_ratio=' aa.out)"

# ---- the known slowdown: the op launched twice ----
bench twice --inject none --ref "$FAKE" --cand "$FAKE --kernels 2" --rounds 1
assert_eq "2x: exit 1 (FAIL)" "$(cat twice.rc)" 1
geo=$(sed -n 's/^geomean_ratio=//p' twice.out)
assert_eq "2x: geomean within 3% of 2" "$(python3 -c "print(abs($geo / 2 - 1) < 0.03)")" True
assert_contains "2x: the band" twice.out "the point estimate alone (the reference rule, geomean <= 1.05): LARGE_GAP"
assert_contains "2x: kernels per iteration differ" twice.out "! kernels/iter differ"

# ---- strict against lenient: a little slower, and noisy ----
bench noisy --inject none --rounds 1 --ref "$FAKE --noise 0.05 --proc-noise 0.01 --reps 20" \
	--cand "$FAKE --scale 1.02 --noise 0.05 --proc-noise 0.01 --reps 20"
assert_eq "noisy: exit 1" "$(cat noisy.rc)" 1
assert_contains "noisy: the interval reaches past 1.05" noisy.out "FAIL (strict rule: the CI's upper bound"
assert_contains "noisy: the point alone would pass" noisy.out "(the reference rule, geomean <= 1.05): DONE"

# ---- a config the candidate does not run: NA ----
bench na --inject none --rounds 1 --ref "$FAKE" --cand "$FAKE --skip 4096-4096-float16"
assert_eq "NA: exit 1" "$(cat na.rc)" 1
assert_contains "NA: the row says why" na.out "NA 4096-4096-float16: no samples from the candidate (no range tileport:4096-4096-float16, or nothing measured in it)"
assert_contains "NA: MISSING_DATA" na.out "with MISSING_DATA"

# ---- children write their own traces (%p), and they count ----
bench child --inject none --rounds 1 --ref "$FAKE --child" --cand "$FAKE --child" --json
assert_eq "children: exit 0" "$(cat child.rc)" 0
assert_eq "children: their config paired" \
	"$(json_get child.out '[r["ratio"] is not None for r in d["table"]["rows"] if r["config"] == "child-256-float32"]')" "[True]"

# ---- the injection library reaches every process ----
: >libfake.so
FAKE_BENCH_EXPECT_INJECT=$T/libfake.so bench inj --inject "$T/libfake.so" --rounds 1 --ref "$FAKE" --cand "$FAKE"
assert_eq "CUDA_INJECTION64_PATH set for each command" "$(cat inj.rc)" 0
TILEPORT_CUPTI_LIB=$T/libfake.so FAKE_BENCH_EXPECT_INJECT=$T/libfake.so bench inj2 --rounds 1 --ref "$FAKE" --cand "$FAKE"
assert_eq "TILEPORT_CUPTI_LIB found" "$(cat inj2.rc)" 0
TILEPORT_CUPTI_LIB=$T/nope.so bench nolib --ref "$FAKE" --cand "$FAKE"
assert_eq "no library: exit 3" "$(cat nolib.rc)" 3
assert_contains "no library: says how" nolib.err "libtileport_cupti.so not found"

# ---- failures: exit 3, each saying where to look ----
bench fail --inject none --rounds 1 --ref "$FAKE" --cand "$FAKE --fail" --out failed
assert_eq "a failing command: exit 3" "$(cat fail.rc)" 3
assert_contains "a failing command: names its output" fail.err "the candidate command failed (exit 1); its output is in failed/01-cand.log"
assert_contains "its output kept" failed/01-cand.log "fake_bench: failing as asked"
TMPDIR=$T bench tmpfail --inject none --rounds 1 --ref "$FAKE --fail" --cand "$FAKE"
kept=$(sed -n 's/^tileport bench: kept //p' tmpfail.err)
[ -n "$kept" ] && [ -f "$kept/00-ref.log" ] && ok "without --out, a failure keeps its directory" ||
	bad "the failing command's output was not kept: $(cat tmpfail.err)"
TMPDIR=$T bench tmpok --inject none --rounds 1 --ref "$FAKE" --cand "$FAKE"
[ "$(ls -d "$T"/tileport-bench-* | wc -l)" -eq 1 ] && ok "without --out, a success leaves nothing" ||
	bad "temporary directories left: $(ls -d "$T"/tileport-bench-*)"
bench notrace --inject none --rounds 1 --ref "$FAKE --no-trace" --cand "$FAKE"
assert_eq "no trace: exit 3" "$(cat notrace.rc)" 3
assert_contains "no trace: says what was expected" notrace.err "the reference command wrote no trace: with --inject none it writes \$TILEPORT_TRACE itself"
bench partial --inject none --rounds 1 --ref "$FAKE" --cand "$FAKE --no-flush"
assert_eq "never flushed: exit 3" "$(cat partial.rc)" 3
assert_contains "never flushed: says so" partial.err "was never flushed: the candidate process left without running its exit handlers"
mkdir -p broken
printf '#tileport-trace\t1\nK\t1\t2\n' >broken/00-ref.1.trace
bench broken --from broken
assert_eq "a malformed trace: exit 2" "$(cat broken.rc)" 2
assert_contains "a malformed trace: file and line" broken.err "broken/00-ref.1.trace:2: expected K start end"
bench emptydir --from "$T/bin"
assert_eq "--from without traces: exit 2" "$(cat emptydir.rc)" 2

# ---- real traces captured on a GPU (tests/gpu/capture_fixtures.sh), when there are some ----
CAP=$TILEPORT_TOP/tests/fixtures/trace/captured
if [ -f "$CAP/bench.txt" ]; then
	"$TILEPORT" bench --from "$CAP" >cap.out 2>cap.err
	cmp -s "$CAP/bench.txt" cap.out && ok "captured traces: the table as it was made on the GPU" ||
		bad "captured traces: $(diff "$CAP/bench.txt" cap.out | head -n 5)"
else
	echo "skip: no traces captured on a GPU yet (tests/gpu/capture_fixtures.sh)"
fi

# ---- usage ----
bench u1 --ref a
assert_eq "one command: exit 2" "$(cat u1.rc)" 2
bench u2 --ref a --cand b --rounds 0
assert_eq "--rounds 0: exit 2" "$(cat u2.rc)" 2
bench u3 --from aa --ref a
assert_eq "--from with --ref: exit 2" "$(cat u3.rc)" 2
bench u4 --ref a --cand b --flush-bytes 12Q
assert_eq "--flush-bytes 12Q: exit 2" "$(cat u4.rc)" 2
bench u5 --from aa --flush-bytes 1G
assert_contains "--flush-bytes 1G: no flush is that large" u5.out "has no L2 flush"
bench help --help
assert_contains "--help" help.out "usage: tileport bench --ref CMD --cand CMD"
finish
