#!/bin/sh
# The agent-facing skill (skill/) against the table the orchestrator reads
# (skill/pipeline.json): every required Step-0 file that points into {skill}/
# exists, every agent file names its stage's verdicts exactly as the table
# lists them, SKILL.md states the caps and vocabularies of the table, and
# relative links resolve. The worked examples (skill/examples/*) hold to the
# rules the agents who copy them are checked by: their IR pair is valid and
# diffs clean, the kernel passes B's checks, the launcher and wrapper D's.
# The same checks then run on broken copies of the skill to prove that they
# notice each kind of breakage.
set -u
: "${TILEPORT_TOP:?TILEPORT_TOP must name the repository root}"
: "${TILEPORT:?TILEPORT must name the binary under test}"
T=$(mktemp -d "${TMPDIR:-/tmp}/tileport-skill-XXXXXX")
trap 'rm -rf "$T"' EXIT

cat >"$T/check.py" <<'PY'
import glob, json, os, re, sys

skill = sys.argv[1]
errors = []

def err(msg):
    errors.append(msg)

def read(rel):
    with open(os.path.join(skill, rel), encoding="utf-8") as f:
        return f.read()

with open(os.path.join(skill, "pipeline.json"), encoding="utf-8") as f:
    table = json.load(f)
stages = table["stages"]

# 1. Step-0 templates into {skill}/ that are not optional ('?') must resolve.
for s in stages:
    for t in s.get("step0", []):
        if t.startswith("?") or not t.startswith("{skill}/"):
            continue
        rel = t[len("{skill}/"):]
        if "{" in rel:
            err("stage %s: step0 %s uses a placeholder other than {skill}" % (s["letter"], t))
            continue
        path = os.path.join(skill, rel)
        if any(c in rel for c in "*?["):
            if not glob.glob(path):
                err("stage %s: step0 %s matches no file" % (s["letter"], t))
        elif not os.path.isfile(path):
            err("stage %s: step0 %s: %s does not exist" % (s["letter"], t, rel))

# 2. Each agent file names its verdicts exactly as the table lists them.
for s in stages:
    letter, agent = s["letter"], s.get("agent")
    if not agent or not os.path.isfile(os.path.join(skill, agent)):
        err("stage %s: agent file %s missing" % (letter, agent))
        continue
    text = read(agent)
    lines = [l for l in text.splitlines() if l.startswith("**Verdicts:**")]
    if len(lines) != 1:
        err("%s: expected one '**Verdicts:**' line, found %d" % (agent, len(lines)))
    else:
        named = re.findall(r"`([A-Z_]+)`", lines[0])
        if named != s["verdicts"]:
            err("%s: **Verdicts:** names %s, pipeline.json lists %s"
                % (agent, " | ".join(named), " | ".join(s["verdicts"])))
    allowed = set(s["verdicts"]) | ({"DEFERRED"} if s.get("deferrable") else set())
    for n, line in enumerate(text.splitlines(), 1):
        for v in re.findall(r"VERDICT: ([A-Z_]+)", line):
            if v not in allowed:
                err("%s:%d: VERDICT: %s is not a verdict of stage %s" % (agent, n, v, letter))
    says_deferred = "VERDICT: DEFERRED" in text
    if s.get("deferrable") and not says_deferred:
        err("%s: stage %s may defer but its file never shows VERDICT: DEFERRED" % (agent, letter))
    if not s.get("deferrable") and says_deferred:
        err("%s: stage %s cannot defer" % (agent, letter))
    for a in s.get("artifacts", []):
        if "*" in a or "{" in a:
            continue
        if a not in text:
            err("%s: artifact %s of stage %s is never named" % (agent, a, letter))

# 3. SKILL.md agrees with the table: caps line, vocabularies, deferred steps.
top = read("SKILL.md")
caps = " ".join("%s%d" % (s["letter"], s["cap"]) for s in stages)
if caps not in top:
    err("SKILL.md: caps '%s' (from pipeline.json) not stated" % caps)
for s in stages:
    row = [l for l in top.splitlines() if l.startswith("| %s | " % s["letter"])]
    if not row or ", ".join(s["verdicts"]) not in row[0]:
        err("SKILL.md: stage table row for %s does not list %s"
            % (s["letter"], ", ".join(s["verdicts"])))
for step in ("reference-ir", "generated-ir", "cargo-build", "pytest", "perf-log", "layout-gate"):
    if step not in top:
        err("SKILL.md: deferred step %s not named" % step)

# 4. Relative markdown links and references/agents mentions resolve.
for md in sorted(glob.glob(os.path.join(skill, "**", "*.md"), recursive=True)):
    rel = os.path.relpath(md, skill)
    text = read(rel)
    for target in re.findall(r"\]\(([^)#\s]+)\)", text):
        if "://" in target:
            continue
        if not os.path.exists(os.path.normpath(os.path.join(os.path.dirname(md), target))):
            err("%s: link to %s does not resolve" % (rel, target))
    for mention in set(re.findall(r"(?<![\w/.-])((?:references|agents)/[\w.-]+\.md)", text)):
        if not os.path.isfile(os.path.join(skill, mention)):
            err("%s: names %s, which does not exist" % (rel, mention))
    n = text.count("\n")
    if n > 400:
        err("%s: %d lines (keep skill files under 400)" % (rel, n))

for e in errors:
    print("skill: " + e)
sys.exit(1 if errors else 0)
PY

failures=0
fail() {
	echo "FAIL: $*"
	failures=$((failures + 1))
}

# The real skill passes.
if ! python3 "$T/check.py" "$TILEPORT_TOP/skill" >"$T/real.out" 2>&1; then
	cat "$T/real.out"
	fail "skill/ does not match skill/pipeline.json"
fi

# check_examples SKILL-DIR: every problem of the worked examples, one a line.
# Each example is put where the validators look: OUT/reference, OUT/generated,
# OUT/kernel.rs, OUT/ffi.rs and the wrapper in a workspace.
check_examples() {
	for ex in "$1"/examples/*/; do
		op=$(basename "$ex")
		for f in walkthrough.md "$op.py" analysis.json reference.mlir generated.mlir kernel.rs ffi.rs wrapper.py; do
			[ -f "$ex/$f" ] || echo "examples/$op: $f is missing"
		done
		[ -f "$ex/kernel.rs" ] && [ -f "$ex/ffi.rs" ] && [ -f "$ex/wrapper.py" ] || continue
		w=$(mktemp -d "$T/ex-XXXXXX")
		run=$w/$op
		mkdir -p "$run/reference" "$run/generated" "$w/ws/src/tilegym/ops/cutile_rs"
		cp "$ex/reference.mlir" "$ex/analysis.json" "$run/reference/"
		cp "$ex/generated.mlir" "$run/generated/"
		cp "$ex/kernel.rs" "$ex/ffi.rs" "$run/"
		cp "$ex/wrapper.py" "$w/ws/src/tilegym/ops/cutile_rs/$op.py"
		for ir in reference generated; do
			"$TILEPORT" validate ir "$ex/$ir.mlir" "$op" -q >"$w/$ir.out" 2>&1 ||
				echo "examples/$op: $ir.mlir fails validate ir: $(tail -n 1 "$w/$ir.out")"
		done
		"$TILEPORT" irdiff "$ex/reference.mlir" "$ex/generated.mlir" >"$w/diff.out" 2>&1
		case $? in
		0 | 2) ;;
		*) echo "examples/$op: irdiff of the pair says $(grep '^VERDICT' "$w/diff.out")" ;;
		esac
		"$TILEPORT" validate analysis --run "$run" -q >"$w/an.out" 2>&1 ||
			echo "examples/$op: analysis.json fails validate analysis: $(tail -n 1 "$w/an.out")"
		"$TILEPORT" validate entry-pattern --run "$run" -q >"$w/ep.out" 2>&1 ||
			echo "examples/$op: kernel.rs does not match the reference's entry pattern"
		# B's and D's validators: only the findings on the example's own files count
		for stage in agent-b agent-d; do
			TILEGYM_PATH=$w/ws "$TILEPORT" validate "$stage" --run "$run" --json 2>/dev/null |
				python3 -c '
import json, sys
op, stage = sys.argv[1], sys.argv[2]
own = ("kernel.rs",) if stage == "agent-b" else ("ffi.rs", "ops/cutile_rs/%s.py" % op)
for f in json.load(sys.stdin)["findings"]:
    if f["severity"] == "FAIL" and (f["file"] or "").endswith(own):
        print("examples/%s: %s: %s [%s]" % (op, f["file"].rsplit(op + "/", 1)[-1], f["message"], f["rule"]))
' "$op" "$stage"
		done
	done
}

check_examples "$TILEPORT_TOP/skill" >"$T/examples.out"
if [ -s "$T/examples.out" ]; then
	cat "$T/examples.out"
	fail "the worked examples break the rules"
fi
[ "$(ls -d "$TILEPORT_TOP"/skill/examples/*/ | wc -l)" -ge 2 ] || fail "fewer than two worked examples"

# expect_examples_broken NAME PATTERN: check_examples finds PATTERN in copy NAME.
expect_examples_broken() {
	check_examples "$T/$1" >"$T/$1.ex.out"
	grep -q -- "$2" "$T/$1.ex.out" || {
		cat "$T/$1.ex.out"
		fail "$1: expected an examples problem matching '$2'"
	}
}

# expect_broken NAME PATTERN: the checker fails on copy NAME and says PATTERN.
expect_broken() {
	if python3 "$T/check.py" "$T/$1" >"$T/$1.out" 2>&1; then
		fail "$1: the checker accepted a broken skill"
	elif ! grep -q -- "$2" "$T/$1.out"; then
		cat "$T/$1.out"
		fail "$1: expected a message matching '$2'"
	fi
}
copy() {
	mkdir -p "$T/$1" && cp -R "$TILEPORT_TOP/skill/." "$T/$1/"
}

copy missing_ref
rm "$T/missing_ref/references/op-mapping.md"
expect_broken missing_ref "step0 {skill}/references/op-mapping.md"

copy missing_agent
rm "$T/missing_agent/agents/agent_e.md"
expect_broken missing_agent "agent file agents/agent_e.md missing"

copy extra_verdict
sed 's/^\*\*Verdicts:\*\* `DONE`/**Verdicts:** `DONE` | `FAIL`/' \
	"$TILEPORT_TOP/skill/agents/agent_e.md" >"$T/extra_verdict/agents/agent_e.md"
expect_broken extra_verdict "agents/agent_e.md: \*\*Verdicts:\*\* names DONE | FAIL"

copy reordered
sed 's/^\*\*Verdicts:\*\* `ALL_PASS` | `FAIL`/**Verdicts:** `FAIL` | `ALL_PASS`/' \
	"$TILEPORT_TOP/skill/agents/agent_d.md" >"$T/reordered/agents/agent_d.md"
expect_broken reordered "agents/agent_d.md: \*\*Verdicts:\*\* names FAIL | ALL_PASS"

copy foreign_verdict
printf '\nVERDICT: DONE\n' >>"$T/foreign_verdict/agents/agent_c.md"
expect_broken foreign_verdict "VERDICT: DONE is not a verdict of stage C"

copy no_defer
sed 's/VERDICT: DEFERRED/VERDICT: PASS/g' "$TILEPORT_TOP/skill/agents/agent_a.md" \
	>"$T/no_defer/agents/agent_a.md"
expect_broken no_defer "stage A may defer"

copy wrong_caps
python3 - "$T/wrong_caps/pipeline.json" <<'PY'
import json, sys
p = sys.argv[1]
d = json.load(open(p))
d["stages"][1]["cap"] = 3
json.dump(d, open(p, "w"), indent=1)
PY
expect_broken wrong_caps "caps 'A1 B3 C1 D2 E2 F1'"

copy dead_link
printf '\nSee [nowhere](references/nowhere.md).\n' >>"$T/dead_link/SKILL.md"
expect_broken dead_link "link to references/nowhere.md does not resolve"

copy missing_concept
rm "$T/missing_concept/concepts/ffi-bridge.md"
expect_broken missing_concept "step0 {skill}/concepts/ffi-bridge.md"

copy generic_lost
sed -i 's/<E: ElementType, /</' "$T/generic_lost/examples/matmul/kernel.rs"
expect_examples_broken generic_lost "examples/matmul: kernel.rs: .*ElementType"

copy owning_ffi
sed -i 's/borrow_tensor::<E>(x)/from_raw_parts(x)/' "$T/owning_ffi/examples/softmax/ffi.rs"
expect_examples_broken owning_ffi "examples/softmax: ffi.rs: "

copy ftz_lost
sed -i 's/exp2 %\([0-9]*\) flush_to_zero/exp2 %\1/' "$T/ftz_lost/examples/softmax/generated.mlir"
expect_examples_broken ftz_lost "examples/softmax: irdiff of the pair says VERDICT: FAIL_FIXABLE"

copy no_wrapper
rm "$T/no_wrapper/examples/matmul/wrapper.py"
expect_examples_broken no_wrapper "examples/matmul: wrapper.py is missing"

if [ "$failures" -gt 0 ]; then
	echo "skill_files: $failures failure(s)"
	exit 1
fi
echo "skill_files: ok"
