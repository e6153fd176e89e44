#!/bin/sh
# The sample workspace's --print-record hook (samples/workspace/tests/
# conftest.py) under a real pytest: the log it produces is a perf log that
# validate perf-log accepts and tileport perf pairs, a failing test's
# record becomes an NA row, NaN payload values stay JSON, and the sample
# Python files compile. The benchmark itself needs a GPU; a test that
# records a made-up payload stands in for it.
. "$TILEPORT_TOP/tests/integration/lib/common.sh"
cd "$T" || exit 1
PYTEST=
for p in /usr/bin/python3 python3; do
	if "$p" -c 'import pytest' 2>/dev/null; then PYTEST="$p -m pytest"; break; fi
done
for f in "$TILEPORT_TOP"/samples/workspace/tests/conftest.py "$TILEPORT_TOP"/samples/workspace/tests/ops/*.py \
	"$TILEPORT_TOP"/samples/bench/*.py; do
	python3 -c 'import ast, sys; ast.parse(open(sys.argv[1]).read(), sys.argv[1])' "$f" &&
		ok "compiles: ${f#"$TILEPORT_TOP"/}" || bad "does not compile: $f"
done
if [ -z "$PYTEST" ]; then
	echo "skip: no pytest (Debian python3-pytest; make deps installs it for check)"
	finish
	exit $?
fi
mkdir -p ws/tests/ops
cp "$TILEPORT_TOP/samples/workspace/tests/conftest.py" ws/tests/
cat >ws/tests/ops/test_softmax.py <<'PY'
import pytest

@pytest.mark.parametrize("backend", ["cutile"])
@pytest.mark.parametrize("dtype", ["float16"])
@pytest.mark.parametrize("M, N", [(4096, 1024), (8192, 1024), (1, 1)])
def test_perf(M, N, dtype, backend, record_property):
    print("output of the test itself")
    record_property("benchmark", {backend: {"forward": {
        "median": 0.01 * M / 1024, "rel_std": 1.0, "nrep": 10, "mean": float("nan")}}})
    assert M > 1, "a failing config"
PY
(cd ws && $PYTEST -p no:cacheprovider tests/ops/test_softmax.py -sv --print-record) >base.log 2>&1
sed 's/cutile"\]/cutile_rs"]/; s/0\.01 \* M/0.0105 * M/' ws/tests/ops/test_softmax.py >t.py && mv t.py ws/tests/ops/test_softmax.py
(cd ws && $PYTEST -p no:cacheprovider tests/ops/test_softmax.py -sv --print-record) >cand.log 2>&1
assert_eq "three sections" "$(grep -c 'Performance Test Results' base.log)" 3
assert_contains "the test id inside the section" base.log "test: tests/ops/test_softmax.py::test_perf[4096-1024-float16-cutile]"
assert_contains "NaN printed as null" base.log '"mean": null'
"$TILEPORT" validate perf-log base.log >v.out 2>&1
assert_eq "validate perf-log: the failing test fails it" "$?" 1
assert_contains "validate perf-log counted the sections" v.out "perf_sections=3 passed=2 failed="
"$TILEPORT" perf base.log cand.log >p.out 2>p.err
assert_eq "tileport perf: INVESTIGATE (an NA row)" "$?" 1
assert_contains "paired by parameter string" p.out "| 4096-1024-float16 | 0.04000 | 0.04200 | 1.05x | PASS |"
assert_contains "the failed test is NA" p.out "NA 1-1-float16: candidate: cand.log:"
assert_contains "the operator from the test file" p.out "## Performance Results: softmax"
finish
