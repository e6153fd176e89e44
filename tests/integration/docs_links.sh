#!/bin/sh
# The user's documents hold together: every relative link in README.md and
# docs/*.md names a file of the repository (a moved or renamed file breaks
# it), and the README points a user who writes an agent at what they need:
# the skill every agent is given (skill/SKILL.md) and the example driver
# (samples/agents/example_agent.py).
. "$TILEPORT_TOP/tests/integration/lib/common.sh"
python3 - "$TILEPORT_TOP" >"$T/links.log" 2>&1 <<'PY'
import os, re, sys
top = sys.argv[1]
docs = ["README.md"] + sorted("docs/" + f for f in os.listdir(os.path.join(top, "docs")) if f.endswith(".md"))
bad = 0
for doc in docs:
    fence = False
    for n, line in enumerate(open(os.path.join(top, doc), encoding="utf-8"), 1):
        if line.lstrip().startswith("```"):
            fence = not fence
        if fence:
            continue
        for target in re.findall(r"\]\(([^)\s]+)\)", line):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue
            path = os.path.normpath(os.path.join(top, os.path.dirname(doc), target.split("#")[0]))
            if not os.path.exists(path):
                print(f"{doc}:{n}: link to {target}, which does not exist")
                bad += 1
print("links ok" if not bad else f"{bad} broken link(s)")
PY
assert_contains "every relative link resolves" "$T/links.log" "links ok"
grep -v "links ok" "$T/links.log" | sed 's/^/    | /'
for f in skill/SKILL.md samples/agents/example_agent.py; do
	assert_contains "README links $f" "$TILEPORT_TOP/README.md" "]($f)"
done
finish
