#!/bin/sh
# tileport perf: performance.md goldens that validate agent-e and validate
# perf-log accept, NA rows and every band, variants and their baselines,
# --run, --json, --out (atomic, and not written when nothing pairs), and
# input errors naming file and line with exit 2.
. "$TILEPORT_TOP/tests/integration/lib/common.sh"
G=$TILEPORT_TOP/tests/fixtures/perf
cd "$T" || exit 1

# mklog FILE BACKEND CONFIG=MS...: a perf log in the fixtures' layout
mklog() {
	f=$1 be=$2
	shift 2
	: >"$f"
	for kv in "$@"; do
		printf 'tests/ops/test_softmax.py::Test_Softmax::test_perf[%s-%s]\n' "${kv%=*}" "$be" >>"$f"
		printf '==================== Performance Test Results ====================\n' >>"$f"
		printf '{"%s": {"forward": {"median": %s, "rel_std": 1.0, "nrep": 100}}}\nPASSED\n' \
			"$be" "${kv#*=}" >>"$f"
	done
}

tp() { # tp NAME ARGS...: stdout, stderr and exit code kept under NAME
	n=$1
	shift
	"$TILEPORT" "$@" >"$n.out" 2>"$n.err"
	echo $? >"$n.rc"
}

golden() { # golden DESC FILE GOLDEN
	if [ -n "${TILEPORT_UPDATE_GOLDEN:-}" ]; then
		cp "$2" "$G/$3"
		ok "$1 (golden updated)"
	elif diff -u "$G/$3" "$2" >"$2.diff"; then
		ok "$1"
	else
		bad "$1: differs from tests/fixtures/perf/$3"
		sed 's/^/    | /' "$2.diff" | head -n 30
	fi
}

# ---- the fixture run: DONE, and the stage E validators accept the report ----
cp -R "$TILEPORT_TOP/tests/fixtures/runs/softmax" run
rm run/reports/performance.md
tp done perf run/baseline_perf.txt run/perf_cutile_rs.txt --analysis run/reference/analysis.json \
	--out run/reports/performance.md
assert_eq "DONE exits 0" "$(cat done.rc)" 0
golden "DONE report" done.out softmax.md
cmp -s done.out run/reports/performance.md && ok "--out wrote what was printed" ||
	bad "--out differs from stdout"
ls run/reports/ | grep -q tmp && bad "a temporary file was left in reports/" || ok "no temp file left"
CUTILE_KERNEL_OUT_ROOT=$T "$TILEPORT" validate agent-e run >ve.out 2>&1
assert_eq "validate agent-e accepts it" "$?" 0
assert_contains "agent-e: first line" ve.out "PASS [agent-e.verdict-line]"
grep -q 'agent-e.verdict-band' ve.out && bad "a verdict-band warning on tileport's own report" ||
	ok "no verdict-band warning"
for l in baseline_perf perf_cutile_rs; do
	"$TILEPORT" validate perf-log "run/$l.txt" "$l" >vp.out 2>&1
	assert_eq "validate perf-log accepts $l" "$?" 0
done

# --run reads the same files (the baseline per backend, analysis.json)
tp run perf --run run
assert_eq "--run exits 0" "$(cat run.rc)" 0
assert_contains "--run: same geomean" run.out "geomean_ratio=1.0204"
assert_contains "--run: its inputs" run.out "Inputs: baseline run/baseline_perf_cutile.txt, run/baseline_perf_triton_tileir.txt; candidate run/perf_cutile_rs.txt; analysis run/reference/analysis.json."

# RUN may be an op name in the output root
mkdir -p elsewhere
(cd elsewhere && CUTILE_KERNEL_OUT_ROOT=$T "$TILEPORT" perf --run run >../byname.out 2>&1)
assert_contains "--run OP: found in the output root" byname.out "geomean_ratio=1.0204"

# --json
tp json perf --json run/baseline_perf.txt run/perf_cutile_rs.txt
assert_eq "--json exits as the verdict" "$(cat json.rc)" 0
assert_eq "--json verdict" "$(json_get json.out 'd["verdict"]')" DONE
assert_eq "--json geomean" "$(json_get json.out 'round(d["geomean_ratio"], 4)')" 1.0204
assert_eq "--json row" "$(json_get json.out 'd["rows"][0]["config"] + " " + d["rows"][0]["band"] + " " + str(d["rows"][0]["baseline"]["samples"])')" \
	"4096-1024-float16 DONE 120"
assert_eq "--json interval" "$(json_get json.out 'len(d["ci95"])')" 2

# ---- NA rows: INVESTIGATE with MISSING_DATA, still a valid report ----
mklog na_base.txt cutile 4096-1024-float16=0.030 8192-1024-float16=0.056 16384-1024-float16=0.110
mklog na_cand.txt cutile_rs 4096-1024-float16=0.031 8192-1024-float16=0.057 1-1-float32=0.001
tp na perf --kernel softmax na_base.txt na_cand.txt --out na.md
assert_eq "NA: exit 1" "$(cat na.rc)" 1
golden "NA report" na.out na.md
mkdir -p narun/reports narun/reports/agent_logs
cp na.md narun/reports/performance.md
cp na_cand.txt narun/perf_cutile_rs.txt
cp na_base.txt narun/baseline_perf_cutile.txt
echo log >narun/reports/agent_logs/agent_e.md
"$TILEPORT" validate agent-e --run narun >ve2.out 2>&1
assert_eq "validate agent-e accepts the NA report" "$?" 0
grep -q 'agent-e.verdict-band' ve2.out && bad "INVESTIGATE with MISSING_DATA warned" ||
	ok "MISSING_DATA: no verdict-band warning"

# ---- every band ----
for case in "1.07 MILD_GAP" "1.3 MODERATE_GAP" "1.6 LARGE_GAP" "0.8 DONE"; do
	scale=${case% *} band=${case#* }
	c1=$(python3 -c "print(0.030 * $scale)")
	c2=$(python3 -c "print(0.056 * $scale)")
	mklog b.txt cutile a-float16=0.030 b-float16=0.056
	mklog c.txt cutile_rs a-float16="$c1" b-float16="$c2"
	tp band perf b.txt c.txt
	assert_contains "ratio $scale: Severity $band" band.out "Severity: $band"
	if [ "$band" = DONE ]; then
		assert_contains "ratio $scale: DONE" band.out "VERDICT: DONE"
	else
		assert_contains "ratio $scale: INVESTIGATE" band.out "VERDICT: INVESTIGATE"
		assert_eq "ratio $scale: exit 1" "$(cat band.rc)" 1
	fi
done

# ---- variants: each config against its variant's winning baseline ----
mklog v_cutile.txt cutile 8-1024-1024-1024-False=0.20 8-1024-1024-1024-True=0.30
mklog v_triton.txt triton 8-1024-1024-1024-False=0.25 8-1024-1024-1024-True=0.18
mklog v_rs.txt cutile_rs 8-1024-1024-1024-False=0.21 8-1024-1024-1024-True=0.185
cat >v_analysis.json <<'EOF'
{"kernel_name": "bmm", "reference_backend": "cutile",
 "kernel_variants": [{"variant_name": "non_persistent", "reference_backend": "cutile"},
                     {"variant_name": "static_persistent", "reference_backend": "triton"}],
 "config_to_variant": {"8-1024-1024-1024-False": "non_persistent",
                       "8-1024-1024-1024-True": "static_persistent"}}
EOF
tp var perf --analysis v_analysis.json v_cutile.txt v_triton.txt v_rs.txt
assert_eq "variants: exit 0" "$(cat var.rc)" 0
golden "variants report" var.out bmm.md

# ---- nothing paired: BLOCKED, no report written ----
mklog other.txt cutile_rs 2-2-float32=0.01
tp blocked perf na_base.txt other.txt --out blocked.md
assert_eq "nothing paired: exit 1" "$(cat blocked.rc)" 1
assert_contains "nothing paired: says BLOCKED" blocked.err "no configuration paired"
[ -e blocked.md ] && bad "a report without a geomean was written" || ok "no report without a geomean"

# ---- input errors: exit 2, naming the file (and line) ----
printf 'collected 1 item\nPASSED\n' >nosec.txt
tp e1 perf nosec.txt na_cand.txt
assert_eq "no section: exit 2" "$(cat e1.rc)" 2
assert_contains "no section: names the file" e1.err "nosec.txt: no 'Performance Test Results' section (was pytest run with -sv --print-record?)"
tp e2 perf missing.txt na_cand.txt
assert_eq "missing log: exit 2" "$(cat e2.rc)" 2
assert_contains "missing log: names it" e2.err "missing.txt: cannot open"
printf '{"config_to_variant": {\n  "a": }\n' >bad.json
tp e3 perf --analysis bad.json na_base.txt na_cand.txt
assert_eq "bad analysis: exit 2" "$(cat e3.rc)" 2
assert_contains "bad analysis: file and line" e3.err "bad.json:2: expected a JSON object (analysis.json)"
tp e4 perf na_base.txt
assert_eq "one log: exit 2" "$(cat e4.rc)" 2
tp e5 perf --run "$T/nowhere"
assert_eq "--run without logs: exit 2" "$(cat e5.rc)" 2
assert_contains "--run without logs: says which" e5.err "no baseline perf log yet"
tp e6 perf --json --tui a b
assert_eq "--json with --tui: exit 2" "$(cat e6.rc)" 2
tp e7 perf --tui --out x.md a b
assert_eq "--out with --tui: exit 2" "$(cat e7.rc)" 2
# a section stage E cannot pair: NA in perf, a warning in validate perf-log
printf 't.py::test[a-cutile_rs]\n== Performance Test Results ==\nnot json\nPASSED\n' >np.txt
mklog np_base.txt cutile a=0.01 b=0.02
printf 't.py::test[b-cutile_rs]\n== Performance Test Results ==\n{"cutile_rs": {"median": 0.02}}\nPASSED\n' >>np.txt
tp np perf np_base.txt np.txt
assert_contains "unreadable payload: NA with file and line" np.out "NA a: candidate: np.txt:3: expected the benchmark record (a JSON object) after 'Performance Test Results'."
"$TILEPORT" validate perf-log np.txt >vnp.out 2>&1
assert_eq "validate perf-log: still a pass" "$?" 0
assert_contains "validate perf-log: warns with the line" vnp.out "WARN [perf-log.record] np.txt:3: np: expected the benchmark record"

tp help perf --help
assert_eq "--help exits 0" "$(cat help.rc)" 0
assert_contains "--help usage" help.out "usage: tileport perf [--analysis FILE]"
finish
