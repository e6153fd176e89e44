#!/usr/bin/env python3
"""An example stage agent for tileport: the shape every driver has.

tileport runs a stage's driver (`--driver X=exec:COMMAND`) with /bin/sh -c
in the workspace, and hands it everything through the environment:

  TILEPORT_STAGE      the stage letter, A to F
  TILEPORT_PROMPT     the spawn prompt: Step-0 files, prior artifacts, the
                      output protocol (skill/SKILL.md says what each stage does)
  TILEPORT_OP, TILEPORT_RUN_DIR, TILEGYM_PATH, TILEPORT_SKILL_DIR, TILEPORT_BIN
  TILEPORT_OFFLINE    1 when the toolchain is missing: toolchain steps may be
                      deferred ("deferred: step, step" and VERDICT: DEFERRED)

and reads back one thing: the transcript on stdout, JSON lines ending in a
"final" record whose text ends with the <VALIDATOR_OUTPUT> block and the
VERDICT line (docs/pipeline.md, "Transcript").

This one does no thinking: it copies the skill's worked example of the
operator (skill/examples/OP/) into the places the stage writes, runs the
stage's validator the way an agent must, and returns its output. It knows
softmax and matmul, and only the offline part of stages A, B and D, so on
the sample workspace it takes a run to OFFLINE_COMPLETE:

  tileport run softmax --workspace samples/workspace --headless \\
      --driver A=exec:$PWD/samples/agents/example_agent.py \\
      --driver B=exec:$PWD/samples/agents/example_agent.py \\
      --driver D=exec:$PWD/samples/agents/example_agent.py

To write your own driver, keep emit(), run() and finish() and replace
the copying with a call to your agent (an LLM CLI with the prompt file,
say), translating what it prints into the records below.
"""
import json
import os
import re
import shutil
import subprocess
import sys

ENV = os.environ
STAGE = ENV["TILEPORT_STAGE"]
OP = ENV["TILEPORT_OP"]
OUT = ENV["TILEPORT_RUN_DIR"]
WS = ENV["TILEGYM_PATH"]
OFFLINE = ENV.get("TILEPORT_OFFLINE") == "1"
EXAMPLE = os.path.join(ENV["TILEPORT_SKILL_DIR"], "examples", OP)
OPS = os.path.join(WS, "src", "tilegym", "ops", "cutile_rs")
calls = 0


def emit(record):
    """One transcript record per line, flushed: the screen shows it live."""
    print(json.dumps(record), flush=True)


def tool(name, args, output, error=False):
    global calls
    calls += 1
    emit({"type": "tool_call", "id": str(calls), "name": name, "input": args})
    emit({"type": "tool_result", "id": str(calls), "output": output, "is_error": error})


def write(rel, text=None, src=None, root=OUT):
    """Write a file of the stage (from the example when src is given)."""
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if src:
        shutil.copyfile(os.path.join(EXAMPLE, src), path)
    else:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    tool("write", {"path": path}, "wrote %s" % rel)


def edit(path, old, new):
    """Replace old by new once, unless new is there already."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if new not in text:
        text = text.replace(old, new, 1) if old in text else text + new + "\n"
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    tool("edit", {"path": path}, "registered %s" % OP)


def run(cmd):
    """Run a command as the agent would; returns its exit code and output."""
    p = subprocess.run(cmd, capture_output=True, text=True)
    out = p.stdout + p.stderr
    tool("bash", {"command": " ".join(cmd)}, out, p.returncode != 0)
    return p.returncode, " ".join(cmd), out


def finish(verdict, checks=(), deferred=None, words=""):
    """The final message: the validator block, then VERDICT last."""
    text = words + "\n"
    if deferred:
        text += "deferred: %s\n" % ", ".join(deferred)
    text += "<VALIDATOR_OUTPUT>\n"
    for code, cmd, out in checks:
        text += "$ %s 2>&1\n%s%sexit=%d\n" % (cmd, out, "" if out.endswith("\n") else "\n", code)
    text += "</VALIDATOR_OUTPUT>\nVERDICT: %s\n" % verdict
    emit({"type": "final", "text": text})
    sys.exit(0)


def blocked(why):
    """What the skill says to do when a stage cannot be done."""
    write("SKILL_METHODOLOGY_BLOCKED.txt", "stage %s of %s: %s\n" % (STAGE, OP, why))
    finish("BLOCKED", [(1, "example_agent %s" % STAGE, why + "\n")], words=why)


emit({"type": "start", "driver": "example_agent.py", "model": "none (copies skill/examples)"})
with open(ENV["TILEPORT_PROMPT"], encoding="utf-8") as f:
    prompt = f.read()
emit({"type": "text", "text": "Stage %s of %s; the prompt has %d lines and lists %d Step-0 files."
      % (STAGE, OP, prompt.count("\n"), len(re.findall(r"^- ", prompt, re.M)))})
if not os.path.isdir(EXAMPLE):
    blocked("the example agent knows only the operators of skill/examples/")
if not OFFLINE or STAGE not in "ABD":
    blocked("the example agent only copies files: it cannot build, test or benchmark")

if STAGE == "A":
    steps = ["reference-ir", "perf-log"]
    write("reference/analysis.json", src="analysis.json")
    write("reports/agent_a.md", "# Agent A - %s\n\nanalysis.json from the worked example; the IR "
          "dump and the baseline benchmark need the toolchain.\n" % OP)
    write("reports/agent_logs/agent_a.md", "offline: reference IR and perf logs deferred\n")
elif STAGE == "B":
    steps = ["generated-ir", "layout-gate", "cargo-build"]
    write("kernel.rs", src="kernel.rs")
    write("Cargo.toml", '[package]\nname = "cutile-%s"\nversion = "0.1.0"\nedition = "2024"\n\n'
          '[lib]\nname = "cutile_%s"\ncrate-type = ["cdylib"]\npath = "src/lib.rs"\n\n'
          '[dependencies]\ncutile = "=0.2.0"\ncutile-compiler = "=0.2.0"\ncutile-macro = "=0.2.0"\n'
          'cuda-core = "=0.2.0"\ncuda-async = "=0.2.0"\n\n[workspace]\n' % (OP, OP))
    write("src/lib.rs", 'include!("../kernel.rs");\n')
    if os.path.exists(os.path.join(EXAMPLE, "%s_pipeline.rs" % OP)):
        write("%s_pipeline.rs" % OP, src="%s_pipeline.rs" % OP)
    write("reports/build_log.md", "## Attempt 1 - offline\n\n**Command:** cargo build --release "
          "(deferred: no toolchain)\n**Result:** DEFERRED\n")
    write("reports/agent_b.md", "# Agent B - %s\n\nkernel.rs from the worked example.\n" % OP)
    write("reports/agent_logs/agent_b.md", "offline: build, IR and layout gate deferred\n")
else:
    steps = ["cargo-build", "pytest"]
    write("ffi.rs", src="ffi.rs")
    write("%s_kernel/kernel.rs" % OP, src="kernel.rs", root=OPS)
    write("%s_kernel/ffi.rs" % OP, src="ffi.rs", root=OPS)
    write("%s.py" % OP, src="wrapper.py", root=OPS)
    edit(os.path.join(OPS, "cutile_kernels", "src", "lib.rs"), "\0",
         'mod %s {\n    include!("../../%s_kernel/kernel.rs");\n    include!("../../%s_kernel/ffi.rs");\n}'
         % (OP, OP, OP))
    edit(os.path.join(OPS, "__init__.py"), "    pass  # converted operators",
         "    from . import %s  # noqa: F401\n    pass  # converted operators" % OP)
    edit(os.path.join(WS, "tests", "ops", "test_%s.py" % OP), '_backends = ["cutile"]',
         '_backends = ["cutile", "cutile-rs"]')
    write("reports/correctness.md", "VERDICT: DEFERRED\n# Agent D Report - %s\n\n## Summary\n"
          "0 passed, 0 failed, 0 skipped (pytest deferred: no toolchain)\n\n"
          "| Test | Config | Result | Error | known_gaps |\n|---|---|---|---|---|\n" % OP)
    write("reports/agent_d.md", "# Agent D - %s\n\nffi.rs and the wrapper from the worked example.\n" % OP)
    write("reports/agent_logs/agent_d.md", "offline: cargo build and pytest deferred\n")

check = run([ENV.get("TILEPORT_BIN", "tileport"), "validate", "stage", STAGE, OP, "-q",
             "--deferred", ",".join(steps)])
fail = {"A": "FAIL_FIXABLE", "B": "FAIL_COMPILE", "D": "FAIL"}[STAGE]
finish("DEFERRED" if check[0] == 0 else fail, [check], steps,
       "Stage %s of %s done offline from the worked example." % (STAGE, OP))
