#!/bin/sh
# The compiler's findings in the stage view (reports/compile.json of stage
# B's check) at 80x24 and 160x48 against golden screens, and Enter on one
# opening the source view with the cursor on that line of kernel.rs, beside
# its Python.
. "$TILEPORT_TOP/tests/screen/lib/screen.sh"

cp -R "$TILEPORT_TOP/samples/workspace" ws
sed -i "s|/workspace/tilegym|$T/ws|" out/softmax/.tileport/state.json
"$TILEPORT" translate ws/src/tilegym/ops/cutile/softmax.py >out/softmax/kernel.rs ||
	echo "FAIL translate softmax"
L=$(grep -n 'load_view_tko' out/softmax/kernel.rs | head -1 | cut -d: -f1)
cat >out/softmax/reports/compile.json <<EOJ
{"schema": "tileport.compile/1", "checked": true, "lowered": false, "errors": 1, "warnings": 1,
 "other_errors": 0, "check_ms": 1200, "build_ms": 0, "lower_ms": 0,
 "findings": [
  {"phase": "check", "level": "error", "in_op": true, "file": "kernel.rs", "line": $L, "column": 13,
   "code": "E0308", "message": "mismatched types",
   "rendered": "error[E0308]: mismatched types\n --> kernel.rs:$L:13"},
  {"phase": "check", "level": "warning", "in_op": true, "file": "kernel.rs", "line": 9, "column": 9,
   "message": "unused variable: \`pid\`"},
  {"phase": "check", "level": "warning", "in_op": false, "file": "/elsewhere/ffi_util.rs", "line": 3,
   "column": 1, "message": "a warning of another file: not shown"}],
 "outputs": []}
EOJ

for size in 80x24 160x48; do
	tp "$size" open --read-only out/softmax <<EOS
g
j
<Enter>
/mismatched
<Enter>
:save-display compile-stage-$size.screen
<Enter>
:save-display compile-source-$size.screen
EOS
	check "compile-stage-$size.screen"
	check "compile-source-$size.screen"
done

tp 160x48 open --read-only out/softmax <<EOS
g
j
<Enter>
/mismatched
<Enter>
<Enter>
:save-view compile-source.view
EOS
expect "the cursor is on the finding's line of kernel.rs" compile-source.view "load_view_tko("
[ "$failures" -eq 0 ]
