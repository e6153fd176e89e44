#!/bin/sh
# docs/architecture.md tells the truth about the tree: every folder under
# engine/ has its line in the "Layers and folders" block and its row in the
# modules table, every header of engine/base and engine/core is named in
# the table, every door (and .def) the table names exists in its module's
# folder and every other header it names exists somewhere, and every
# command of cli/commands.def is in "Where each command lives" with the
# file that defines its function. The checker is then shown a page with a
# line missing, a door renamed, a command left out, a command in the wrong
# file and a tree with a folder more, and must fail each.
. "$TILEPORT_TOP/tests/integration/lib/common.sh"

cat >"$T/check.py" <<'PY'
import os, re, sys

doc_path, top, engine = sys.argv[1:4]
doc = open(doc_path, encoding="utf-8").read().split("\n")
problems = []

def section(title):
    """The lines of the section whose heading is exactly `title`."""
    for i, line in enumerate(doc):
        if re.match(r"#+ ", line) and line.split(" ", 1)[1] == title:
            level = len(line.split(" ", 1)[0])
            out = []
            for l in doc[i + 1:]:
                m = re.match(r"(#+) ", l)
                if m and len(m.group(1)) <= level:
                    break
                out.append(l)
            return out
    problems.append(f'no section "{title}"')
    return []

def table_rows(lines):
    rows = []
    for l in lines:
        if l.startswith("|") and not re.match(r"\|\s*-", l):
            rows.append([c.strip() for c in l.strip().strip("|").split("|")])
    return rows[1:] if rows else rows  # without the header row

# The "Layers and folders" block: its first fenced block.
layers, fence, done = [], False, False
for l in section("Layers and folders"):
    if l.startswith("```"):
        if fence:
            done = True
        fence = not fence
        continue
    if fence and not done:
        layers.append(l)
layer_dirs = {m.group(1) for l in layers for m in [re.match(r"engine/([a-z_]+)/", l)] if m}

modules = table_rows(section("Modules and their doors"))
row_folder = {}
for r in modules:
    name = r[0]
    top_name = name.split("/")[0]
    row_folder[name] = os.path.join(engine, top_name) if os.path.isdir(os.path.join(engine, top_name)) \
        else os.path.join(top, top_name)

folders = sorted(d for d in os.listdir(engine) if os.path.isdir(os.path.join(engine, d)))
for d in folders:
    if d not in layer_dirs:
        problems.append(f"engine/{d}/ has no line in the Layers and folders block")
    if not any(r[0] == d or r[0].startswith(d + "/") for r in modules):
        problems.append(f"engine/{d}/ has no row in the modules table")

table_text = "\n".join("|".join(r) for r in modules)
for d in ("base", "core"):
    for h in sorted(os.listdir(os.path.join(engine, d))):
        if h.endswith(".h") and f"`{h}`" not in table_text:
            problems.append(f"engine/{d}/{h} is not named in the modules table")

def exists_anywhere(name):
    for root in (engine, os.path.join(top, "views"), os.path.join(top, "tui"), os.path.join(top, "cli")):
        for dirpath, _, files in os.walk(root):
            if name in files:
                return True
    return False

for r in modules:
    if len(r) < 3:
        problems.append(f"modules table row '{r[0]}' has no door or owns cell")
        continue
    folder = row_folder[r[0]]
    for h in re.findall(r"`([A-Za-z0-9_]+\.(?:h|def))`", r[1]):
        if not os.path.isfile(os.path.join(folder, h)):
            problems.append(f"row {r[0]}: door {h} is not in {os.path.relpath(folder, top)}/")
    for h in re.findall(r"`([A-Za-z0-9_]+\.h)`", r[2]):
        if not exists_anywhere(h):
            problems.append(f"row {r[0]}: {h} does not exist")

cmds = re.findall(r"^CMD\(([a-z_]+),\s*([a-z_]+),", open(os.path.join(top, "cli/commands.def")).read(), re.M)
where = table_rows(section("Where each command lives"))
for name, fn in cmds:
    rows = [r for r in where if len(r) >= 2 and f"`{name}`" in r[1].split("(")[0]]
    if not rows:
        problems.append(f"command {name} is not named in Where each command lives")
        continue
    f = rows[0][0].strip("`")
    path = os.path.join(top, f)
    if not os.path.isfile(path):
        problems.append(f"command {name}: {f} does not exist")
    elif not re.search(rf"^int {fn}\(int argc", open(path, encoding="utf-8").read(), re.M):
        problems.append(f"command {name}: {f} does not define {fn}")

for p in problems:
    print(p)
print(f"{len(folders)} folders, {len(modules)} modules, {len(cmds)} commands: "
      + ("ok" if not problems else f"{len(problems)} problem(s)"))
sys.exit(1 if problems else 0)
PY

DOC=$TILEPORT_TOP/docs/architecture.md
check() { # DOC ENGINE_DIR -> exit status, output in $T/out
	python3 "$T/check.py" "$1" "$TILEPORT_TOP" "$2" >"$T/out" 2>&1
}

if check "$DOC" "$TILEPORT_TOP/engine"; then
	ok "docs/architecture.md: $(tail -n 1 "$T/out")"
else
	bad "docs/architecture.md does not match the tree"
	sed 's/^/    | /' "$T/out"
fi

refused() { # DESC DOC ENGINE_DIR TEXT
	if check "$2" "$3"; then
		bad "$1: the checker passed"
	elif grep -qF -- "$4" "$T/out"; then
		ok "$1"
	else
		bad "$1: '$4' not in the checker's output"
		sed 's/^/    | /' "$T/out"
	fi
}

grep -v '^engine/sem/ ' "$DOC" >"$T/no-layer.md"
refused "a folder without its Layers line" "$T/no-layer.md" "$TILEPORT_TOP/engine" \
	"engine/sem/ has no line in the Layers and folders block"

sed 's/^| refir | `refir.h`/| refir | `refir_door.h`/' "$DOC" >"$T/door.md"
refused "a door that does not exist" "$T/door.md" "$TILEPORT_TOP/engine" \
	"row refir: door refir_door.h is not in engine/refir/"

sed 's/`equiv`, `inventory`/`equiv`/' "$DOC" >"$T/no-cmd.md"
refused "a command left out" "$T/no-cmd.md" "$TILEPORT_TOP/engine" \
	"command inventory is not named in Where each command lives"

sed 's/| `status`, `runs` |/| `status` |/; s/| `review`, `log` |/| `review`, `log`, `runs` |/' "$DOC" >"$T/moved.md"
refused "a command in the wrong file" "$T/moved.md" "$TILEPORT_TOP/engine" \
	"command runs: cli/cmd_review.c does not define cmd_runs"

mkdir -p "$T/engine/newpart"
for d in "$TILEPORT_TOP"/engine/*/; do
	ln -s "$d" "$T/engine/$(basename "$d")"
done
refused "a folder the page does not know" "$DOC" "$T/engine" \
	"engine/newpart/ has no row in the modules table"

finish
