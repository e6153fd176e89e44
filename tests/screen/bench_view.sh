#!/bin/sh
# The benchmark table view at 80x24 and 160x48 against golden screens: a
# table with every band and an NA row on each side (the ratio bar at
# 160 columns), sorted by each column and reversed, a 300-row table
# scrolled and sorted, opened from a performance.md (tileport open) and
# from tileport bench --tui; then the cell types (bands, the footer), Enter
# on an NA row, the file behind a row, and refresh.
. "$TILEPORT_TOP/tests/screen/lib/screen.sh"

V=$TILEPORT_TOP/tests/fixtures/perf/view
mkdir -p run/reports
cp "$V"/*.txt run/
# 300 configurations, ratios from 0.9 to 1.3
python3 - <<'EOF'
def section(cfg, be, ms):
    return ("tests/ops/test_big.py::T::test_perf[%s-%s]\n"
            "==================== Performance Test Results ====================\n"
            '{"%s": {"forward": {"median": %.6f, "rel_std": 1.0, "nrep": 50, "kernels_per_iter": 1}}}\n'
            "PASSED\n" % (cfg, be, be, ms))
with open("big_base.txt", "w") as b, open("big_cand.txt", "w") as c:
    for i in range(300):
        cfg = "%d-1024-float16" % (64 * (i + 1))
        base = 0.01 + i * 0.001
        b.write(section(cfg, "cutile", base))
        c.write(section(cfg, "cutile_rs", base * (0.9 + (i * 37 % 100) / 250.0)))
EOF

for size in 80x24 160x48; do
	tp "$size" perf --tui run/baseline_perf_cutile.txt run/perf_cutile_rs.txt <<EOS
:save-display bench-$size.screen
s
:save-display bench-sort-config-$size.screen
s
s
s
s
:save-display bench-sort-ratio-$size.screen
S
:save-display bench-sort-ratio-reverse-$size.screen
s
s
s
s
:save-display bench-sort-recorded-reverse-$size.screen
EOS
	for s in "" -sort-config -sort-ratio -sort-ratio-reverse -sort-recorded-reverse; do
		check "bench$s-$size.screen"
	done

	tp "$size" perf --tui big_base.txt big_cand.txt <<EOS
:save-display bench-big-$size.screen
G
:save-display bench-big-end-$size.screen
s
s
s
s
s
S
g
:save-display bench-big-worst-$size.screen
EOS
	for s in big big-end big-worst; do
		check "bench-$s-$size.screen"
	done
done

# From a run: the pipeline view on stage E and the stage view of an E
# attempt pair the run's perf logs; elsewhere b says where it works.
for size in 80x24 160x48; do
	tp "$size" browse --read-only --out out <<EOS
<Enter>
g
j
j
j
j
b
:save-display bench-run-pipeline-$size.screen
q
<Enter>
b
:save-display bench-run-stage-$size.screen
q
q
g
b
:save-display bench-run-not-e-$size.screen
EOS
	check "bench-run-pipeline-$size.screen"
	check "bench-run-stage-$size.screen"
	check "bench-run-not-e-$size.screen"
done

# A performance.md, opened as a file: its rows and verdict, with noise and
# samples from the logs beside it.
"$TILEPORT" perf --run run --out run/reports/performance.md >/dev/null 2>&1
tp 80x24 open run/reports/performance.md <<EOS
:save-display bench-md-80x24.screen
EOS
check bench-md-80x24.screen
# a report alone, its logs nowhere: its own rows and verdict
mkdir -p alone
sed "/^Inputs:/d" run/reports/performance.md >alone/performance.md
tp 80x24 open alone/performance.md <<EOS
:save-view bench-alone.view
EOS
expect "a report alone: its rows" bench-alone.view "[perf-large 2.000x]"
expect "a report alone: no noise known" bench-alone.view "[dim -/-]"
expect "a report alone: its verdict" bench-alone.view "[verdict-warn INVESTIGATE]"

# Cell types: every band, the NA rows, a kernel count that differs, the footer.
tp 160x48 perf --tui run/baseline_perf_cutile.txt run/perf_cutile_rs.txt <<EOS
:save-view bench.view
j
j
j
j
j
<Enter>
:save-display bench-na-enter-160x48.screen
EOS
check bench-na-enter-160x48.screen
expect "DONE typed" bench.view "[perf-done 1.027x]"
expect "faster typed as DONE" bench.view "[perf-done 0.902x]"
expect "MILD_GAP typed" bench.view "[perf-mild 1.073x]"
expect "MODERATE_GAP typed" bench.view "[perf-moderate 1.316x]"
expect "LARGE_GAP typed" bench.view "[perf-large 2.000x]"
expect "NA typed" bench.view "[perf-missing NA]"
expect "a different kernel count is flagged" bench.view "[finding-warn 1/2]"
expect "the bar of a slow row" bench.view "[perf-large ████"
expect "footer: the geomean's band" bench.view "footer default: [label geomean ] [perf-moderate 1.2118]"
expect "footer: the verdict" bench.view "[verdict-warn INVESTIGATE] [perf-missing  MISSING_DATA]"

# tileport bench --tui: the same view over a bench table (strict rule)
F="python3 $TILEPORT_TOP/tests/integration/lib/fake_bench.py"
tp 80x24 bench --tui --inject none --rounds 1 --ref "$F" --cand "$F --scale 1.03" <<EOS
:save-display bench-tui-80x24.screen
EOS
check bench-tui-80x24.screen

# e on a row opens its record in $EDITOR at its line; after an edit, F5
# reads the logs again
cat >"$T/editor" <<'EOF'
#!/bin/sh
echo "$@" >"$EDITED"
sed -i 's/"median": 0.0309,/"median": 0.0601,/' "$2"
EOF
chmod +x "$T/editor"
EDITED=$T/edited EDITOR=$T/editor tp 80x24 perf --tui run/baseline_perf_cutile.txt run/perf_cutile_rs.txt <<EOS
:save-view bench-before.view
e
<F5>
:save-view bench-refreshed.view
EOS
expect "e opens the candidate record at its line" "$T/edited" "+2 run/perf_cutile_rs.txt"
expect "before the edit" bench-before.view "[perf-done 1.027x]"
expect "F5 reads the logs again" bench-refreshed.view "[perf-large 1.997x]"
finish
