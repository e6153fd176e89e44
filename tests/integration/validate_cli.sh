# tileport validate: arguments, environment, exit codes, closing lines, JSON,
# and the skill/scripts wrappers with the reference names.
. "$TILEPORT_TOP/tests/integration/lib/validate.sh"

code() { # want-exit description command...
	want=$1 what=$2
	shift 2
	VT_CASES=$((VT_CASES + 1))
	"$@" >"$VT_TMP/out.txt" 2>"$VT_TMP/err.txt"
	got=$?
	[ "$got" = "$want" ] || fail "$what: exit $got, expected $want"
}

fresh
code 0 "--help" "$TILEPORT" validate --help
contains "ir FILE KERNEL"
contains "perf-log FILE [LABEL]"
code 0 "help validate" "$TILEPORT" help validate
code 2 "no validator" "$TILEPORT" validate
code 2 "unknown validator" "$TILEPORT" validate agent-z softmax
code 2 "too many arguments" "$TILEPORT" validate agent-b a b
code 2 "ir without file" "$TILEPORT" validate ir
code 2 "unknown option" "$TILEPORT" validate kernel softmax --bogus
code 2 "--run not a directory" "$TILEPORT" validate kernel --run "$C/nope"
code 2 "stage letter" "$TILEPORT" validate stage G softmax
code 2 "no kernel" "$TILEPORT" validate agent-b
(unset CUTILE_KERNEL_OUT_ROOT TILEGYM_PATH; cd "$VT_TMP" && "$TILEPORT" validate agent-b softmax >/dev/null 2>"$VT_TMP/err.txt"
	echo $? >"$VT_TMP/rc")
[ "$(cat "$VT_TMP/rc")" = 3 ] || fail "no output root anywhere: expected exit 3"
grep -q CUTILE_KERNEL_OUT_ROOT "$VT_TMP/err.txt" || fail "missing variable not named"
(unset TILEGYM_PATH; cd "$VT_TMP" && "$TILEPORT" validate kernel softmax >/dev/null 2>&1; echo $? >"$VT_TMP/rc")
[ "$(cat "$VT_TMP/rc")" = 3 ] || fail "kernel without TILEGYM_PATH: expected exit 3"
# Where every other command looks: --out, then the workspace's
# cutile_kernel_out (the workspace from TILEGYM_PATH or the current directory)
code 0 "--out" env -u CUTILE_KERNEL_OUT_ROOT "$TILEPORT" validate analysis softmax --out "$C/out" -q
code 2 "--out given once, said once" "$TILEPORT" validate analysis softmax --outt "$C/out"
[ "$(grep -c "unknown option '--outt'" "$VT_TMP/err.txt")" = 1 ] || fail "the unknown option is not named once"
cp -R "$C/out" "$WS/cutile_kernel_out"
code 0 "the workspace's cutile_kernel_out" env -u CUTILE_KERNEL_OUT_ROOT "$TILEPORT" validate analysis softmax -q
(unset CUTILE_KERNEL_OUT_ROOT TILEGYM_PATH; cd "$WS" && "$TILEPORT" validate analysis softmax -q >/dev/null 2>&1
	echo $? >"$VT_TMP/rc")
[ "$(cat "$VT_TMP/rc")" = 0 ] || fail "in the workspace with no variable set: exit $(cat "$VT_TMP/rc")"
rm -rf "$WS/cutile_kernel_out"
# a tileport run knows its workspace: kernel --run DIR alone is enough
mkdir -p "$C/owned/softmax" && cp -R "$OUT/." "$C/owned/softmax/"
mkdir -p "$C/owned/softmax/.tileport"
printf '{"schema": 1, "op": "softmax", "status": "complete", "workspace": "%s", "attempts": []}\n' "$WS" \
	>"$C/owned/softmax/.tileport/state.json"
(unset CUTILE_KERNEL_OUT_ROOT TILEGYM_PATH; cd "$VT_TMP" && "$TILEPORT" validate kernel --run "$C/owned/softmax" -q \
	>"$VT_TMP/out.txt" 2>&1; echo $? >"$VT_TMP/rc")
[ "$(cat "$VT_TMP/rc")" = 0 ] || { cat "$VT_TMP/out.txt"; fail "kernel --run DIR of a tileport run: exit $(cat "$VT_TMP/rc")"; }

# --run stands in for the kernel name and CUTILE_KERNEL_OUT_ROOT
(unset CUTILE_KERNEL_OUT_ROOT; "$TILEPORT" validate kernel --run "$OUT" -q >"$VT_TMP/out.txt"; echo $? >"$VT_TMP/rc")
[ "$(cat "$VT_TMP/rc")" = 0 ] || fail "--run: exit $(cat "$VT_TMP/rc")"
contains "Result: 0 fail, 0 warn"
mkdir -p "$C/elsewhere" && cp -R "$OUT" "$C/elsewhere/run7"
code 0 "--run with another directory name and KERNEL" "$TILEPORT" validate agent-d softmax --run "$C/elsewhere/run7"
code 0 "global --workspace" env TILEGYM_PATH=/nonexistent "$TILEPORT" --workspace "$WS" validate kernel softmax
code 1 "TILEGYM_PATH elsewhere" env TILEGYM_PATH="$C" "$TILEPORT" validate kernel softmax

# closing lines, as the reference scripts print them
code 0 "agent-b closing" "$TILEPORT" validate agent-b softmax
tail -n 1 "$VT_TMP/out.txt" | grep -qx "VERDICT: COMPILED" || fail "agent-b closing line"
for v in agent-d agent-e agent-f diff-report; do
	code 0 "$v closing" "$TILEPORT" validate $v softmax
	tail -n 1 "$VT_TMP/out.txt" | grep -qx "PASS" || fail "$v closing line"
done
code 0 "kernel closing" "$TILEPORT" validate kernel softmax
[ "$(tail -n 2 "$VT_TMP/out.txt" | tr '\n' '|')" = "Result: 0 fail, 0 warn|PASS|" ] || fail "kernel closing lines"
code 0 "entry-pattern closing" "$TILEPORT" validate entry-pattern softmax
tail -n 1 "$VT_TMP/out.txt" | grep -qx "OK: entry pattern matches structural reference IR" || fail "entry-pattern closing"
# several kernels: each entry against the IR of its own name, not another
# whose name has the same words (_k_bwd_kernel is no entry for k_kernel)
mkdir -p "$C/twok" && cp -R "$OUT/." "$C/twok/" && rm -f "$C/twok/reference/"*.mlir
printf '%s\n' 'cuda_tile.module @m {' '  %0, %1 = load_view_tko weak %v[%i] : x' '}' >"$C/twok/reference/reference__k_kernel.mlir"
printf '%s\n' 'cuda_tile.module @m {' '  %0, %1 = load_ptr_tko weak %p : x' '}' >"$C/twok/reference/reference__k_bwd_kernel.mlir"
cat >"$C/twok/kernel.rs" <<'EOK'
#[cutile::module]
pub mod k_module {
    use cutile::core::*;
    #[cutile::entry()]
    pub unsafe fn _k_kernel<E: ElementType>(x: &Tensor<E, { [-1] }>) {}
    #[cutile::entry()]
    pub unsafe fn _k_bwd_kernel<E: ElementType>(x: *mut E) {}
}
EOK
code 0 "entry-pattern: an entry per kernel's own IR" "$TILEPORT" validate entry-pattern --run "$C/twok"
contains "entry _k_bwd_kernel (ptr) matches PTR IR reference__k_bwd_kernel.mlir"
contains "entry _k_kernel (tensor) matches TMA IR reference__k_kernel.mlir"
rm "$OUT/reports/agent_logs/agent_d.md" "$OUT/reports/agent_logs/agent_e.md"
code 1 "agent-d failing closing" "$TILEPORT" validate agent-d softmax
tail -n 1 "$VT_TMP/out.txt" | grep -qx "FAIL: 1 issue(s)" || fail "agent-d FAIL closing"
code 1 "kernel failing closing" "$TILEPORT" validate kernel softmax
[ "$(tail -n 2 "$VT_TMP/out.txt" | tr '\n' '|')" = "Result: 1 fail, 0 warn|FAIL|" ] || fail "kernel FAIL closing"

# JSON: findings {rule, severity, file, line, message} and the verdict
fresh
rm "$OUT/softmax_pipeline.rs"
code 0 "kernel --json" "$TILEPORT" validate kernel softmax --json
"$PY" - "$VT_TMP/out.txt" "$OUT" <<'PY' || fail "JSON shape"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["title"] == "kernel" and j["kernel"] == "softmax", j
assert j["run_dir"] == sys.argv[2], j["run_dir"]
assert j["verdict"] == "WARN" and j["exit_code"] == 0, (j["verdict"], j["exit_code"])
assert j["counts"]["WARN"] == 1 and j["counts"]["FAIL"] == 0
assert j["runs"][0]["closing"] == ["Result: 0 fail, 1 warn", "PASS"], j["runs"][0]
for f in j["findings"]:
    assert set(f) >= {"rule", "severity", "file", "line", "message", "validator"}, f
    assert f["severity"] in ("PASS", "INFO", "WARN", "FAIL", "DEFERRED")
    assert f["line"] is None or (isinstance(f["line"], int) and f["line"] > 0)
w = [f for f in j["findings"] if f["severity"] == "WARN"]
assert w[0]["rule"] == "kernel.pipeline-rs" and w[0]["file"].endswith("softmax_pipeline.rs"), w
PY
rm "$OUT/correctness_cutile_rs.txt" "$OUT/reports/agent_logs/agent_d.md"
code 1 "stage --json" "$TILEPORT" validate stage D softmax --json --deferred pytest
"$PY" - "$VT_TMP/out.txt" <<'PY' || fail "stage JSON"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["title"] == "stage D" and j["verdict"] == "FAIL" and j["exit_code"] == 1
assert [r["validator"] for r in j["runs"]] == ["agent-d"]
sev = {f["rule"]: f["severity"] for f in j["findings"] if f["severity"] != "PASS"}
assert sev == {"agent-d.pytest-log": "DEFERRED", "agent-d.log": "FAIL"}, sev
assert j["deferred"] == ["pytest"] and j["deferred_hit"] == ["pytest"]
PY

# the wrappers with the reference names
S="$TILEPORT_TOP/skill/scripts"
fresh
TILEPORT_BIN="$TILEPORT" "$S/validate_kernel.sh" softmax >"$VT_TMP/w.txt" 2>&1
[ $? = 0 ] || fail "validate_kernel.sh: nonzero"
"$TILEPORT" validate kernel softmax >"$VT_TMP/d.txt" 2>&1
cmp -s "$VT_TMP/w.txt" "$VT_TMP/d.txt" || fail "validate_kernel.sh output differs from tileport validate kernel"
for s in validate_analysis validate_agent_b validate_entry_pattern validate_diff_report validate_agent_d \
	validate_agent_e validate_agent_f; do
	TILEPORT_BIN="$TILEPORT" "$S/$s.sh" softmax >/dev/null 2>&1 || fail "$s.sh failed on the complete run"
done
TILEPORT_BIN="$TILEPORT" "$S/validate_ir.sh" "$OUT/reference/reference.mlir" softmax >/dev/null || fail "validate_ir.sh"
TILEPORT_BIN="$TILEPORT" "$S/validate_perf_log.sh" "$OUT/perf_cutile_rs.txt" perf_cutile_rs >"$VT_TMP/w.txt" ||
	fail "validate_perf_log.sh"
grep -q "PASS: perf_cutile_rs: 2 perf records for 2 passed tests" "$VT_TMP/w.txt" || fail "perf_log wrapper output"
rm "$OUT/reports/performance.md"
TILEPORT_BIN="$TILEPORT" "$S/validate_agent_e.sh" softmax >/dev/null 2>&1
[ $? = 1 ] || fail "validate_agent_e.sh: failing run should exit 1"
# found on PATH when TILEPORT_BIN is unset
mkdir -p "$C/bin" && ln -s "$TILEPORT" "$C/bin/tileport"
(unset TILEPORT_BIN; PATH="$C/bin:$PATH" "$S/validate_agent_f.sh" softmax >/dev/null 2>&1) || fail "wrapper via PATH"
# and named clearly when nowhere
mkdir -p "$C/skill/scripts" && cp "$S/_tileport.sh" "$S/validate_kernel.sh" "$C/skill/scripts/"
(unset TILEPORT_BIN; PATH=/usr/bin:/bin "$C/skill/scripts/validate_kernel.sh" softmax >/dev/null 2>"$VT_TMP/err.txt"; echo $? >"$VT_TMP/rc")
[ "$(cat "$VT_TMP/rc")" = 3 ] || fail "wrapper without a binary: exit $(cat "$VT_TMP/rc")"
grep -q "tileport not found" "$VT_TMP/err.txt" || fail "wrapper without a binary: message"
finish
