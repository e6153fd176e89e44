# tileport validate diff-report: every rule fires on its own.
. "$TILEPORT_TOP/tests/integration/lib/validate.sh"

d() { # name want sed-expression
	fresh
	sed -i "$3" "$OUT/generated/diff_report.md" || { fail "$1: mutation"; return; }
	rc=0; case "$2" in *FAIL\ *) rc=1 ;; esac
	expect "$1" "$2" "$rc" diff-report softmax
}
control "diff-report" "diff-report softmax"
contains "INFO [diff-report.env]"
contains "PASS"
# the reference script aborts without CUTILE_RS_ROOT; no check reads it
control "diff-report with CUTILE_RS_ROOT" "diff-report softmax" 'export CUTILE_RS_ROOT=/nonexistent'
rule "diff-report.file" "FAIL diff-report.file" "diff-report softmax" 'rm "$OUT/generated/diff_report.md"'
contains "FAIL: 1 error(s), 0 warning(s)"
rule "diff-report.agent-log" "WARN diff-report.agent-log" "diff-report softmax" \
	'rm "$OUT/reports/agent_logs/agent_c.md" "$OUT/reports/agent_c.md"'
contains "PASS (with 1 warning(s))"
rule "diff-report.agent-log legacy ok" "" "diff-report softmax" 'rm "$OUT/reports/agent_logs/agent_c.md"'
d "diff-report.step1 heading" "FAIL diff-report.step1" 's/Step 1: Structural Comparison/Ops/; s/diff_ir/differ/g'
d "diff-report.step1 table" "FAIL diff-report.step1" 's/|/;/g'
d "diff-report.step2" "FAIL diff-report.step2" 's/Step 2: Checklist Diff/Items/'
d "diff-report.step2 statuses" "FAIL diff-report.step2" 's/| MATCH |/| same |/; s/SEMANTIC_EQUIV/equivalent/'
d "diff-report.severity" "WARN diff-report.severity" 's/INFO/low/g'
d "diff-report.step3" "FAIL diff-report.step3" 's/Step 3: Root Cause Analysis/Why/'
d "diff-report.root-class" "WARN diff-report.root-class" 's/ (semantic_equiv)//'
d "diff-report.step4" "FAIL diff-report.step4" 's/Step 4: //; s/[Ii]mpact/effect/g'
d "diff-report.impact-terms" "WARN diff-report.impact-terms" 's/Correctness/Numerics/; s/Performance/Speed/; s/Blocking/Stops/'
# "verdict" also matches the first line, so Step 5 can only go with it
d "diff-report.step5" "FAIL diff-report.step5
WARN diff-report.first-line" '1d; s/Step 5: Verdict/Conclusion/'
d "diff-report.verdict-value" "FAIL diff-report.verdict-value" 's/PASS_WITH_NOTES/BLOCKED/g'
d "diff-report.action-items" "FAIL diff-report.action-items" 's/PASS_WITH_NOTES/FAIL_FIXABLE/g; 1a owner: kernel'
d "diff-report.action-items present" "" 's/PASS_WITH_NOTES/FAIL_FIXABLE/g; 1a owner: kernel
$a ### Action Items\n- Agent B: fix the entry symbol.'
d "diff-report.owner" "WARN diff-report.owner" 's/PASS_WITH_NOTES/FAIL_FIXABLE/g
$a ### Action Items\n- Agent B: fix it.'
d "diff-report.known-gaps" "WARN diff-report.known-gaps" '/Known Gaps/d; s/accepted//'
d "diff-report.attr-assume" "WARN diff-report.attr-assume" 's/assume div_by<16>/hint/g'
d "diff-report.attr-ftz" "WARN diff-report.attr-ftz" 's|flush_to_zero / rounding<approx>|fast math|'
d "diff-report.attr-strides" "WARN diff-report.attr-strides" 's/strides=\[?,1\]/layout/g'
d "diff-report.first-line" "WARN diff-report.first-line" '1s/.*/# report/'
rule "diff-report.variants" "WARN diff-report.variants" "diff-report bmm" \
	'cp "$OUT/generated/diff_report.md" "$BMM/generated/"; cp "$OUT/reports/agent_logs/agent_c.md" "$BMM/reports/agent_logs/"'
rule "diff-report.variants covered" "" "diff-report bmm" \
	'cp "$OUT/generated/diff_report.md" "$BMM/generated/"; cp "$OUT/reports/agent_logs/agent_c.md" "$BMM/reports/agent_logs/"; printf "## non_persistent\n## static_persistent\n" >>"$BMM/generated/diff_report.md"'
finish
