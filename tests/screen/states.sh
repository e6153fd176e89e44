#!/bin/sh
# Runs and attempts in the states a user meets, against golden screens:
# a run that ended without being accepted (the outcome in the runs view and
# the pipeline title), a live run in a repair retry with a long directory
# (cut where it is least harmful), an interrupted attempt's elapsed time,
# a finished run whose cursor was moved (no [paused]), read-only and ended
# runs (what the keys would do is not advertised, and refused at once), an
# agent's stderr on the stage view, a plain-text transcript, and the text
# view's cut marks, wrapping and sideways scroll.
. "$TILEPORT_TOP/tests/screen/lib/screen.sh"

# the fixture runs in other states (state.json edited like the orchestrator
# writes it)
edit_state() { # RUN PYTHON (on d)
	python3 - "$T/out/$1/.tileport/state.json" "$2" <<'PY'
import json, sys
p = sys.argv[1]
d = json.load(open(p))
exec(sys.argv[2])
json.dump(d, open(p, "w"), indent=2)
PY
}
cp -R "$T/out/softmax" "$T/out/layer_norm"
edit_state layer_norm '
d["op"] = "layer_norm"
d["updated"] -= 3600000
e = d["attempts"][-1]
e["verdict"] = e["claimed"] = "INVESTIGATE"
d["reason"] = None
d["outcome"] = "not_accepted"
d["outcome_reason"] = "E1 returned INVESTIGATE"
d["contract"] = "pass"'
sed -i '$ s/"outcome":"accepted","msg":"PIPELINE_COMPLETE: E1 returned DONE; output contract: pass; accepted"/"outcome":"not_accepted","outcome_reason":"E1 returned INVESTIGATE","msg":"PIPELINE_COMPLETE; output contract: pass; not accepted: E1 returned INVESTIGATE"/' \
	"$T/out/layer_norm/.tileport/events.jsonl"
# D1 of rmsnorm was interrupted: its agent last wrote 1:35 after it started
touch -d @1795900505 "$T/out/rmsnorm/.tileport/attempts/03-D1/transcript.jsonl" \
	"$T/out/rmsnorm/.tileport/attempts/03-D1/stderr.log"

for size in 80x24 160x48; do
	tp "$size" browse --read-only --out out <<EOS
:save-display runs-outcome-$size.screen
j
j
<Enter>
:save-display pipeline-not-accepted-$size.screen
q
k
<Enter>
:save-display pipeline-interrupted-$size.screen
EOS
	check "runs-outcome-$size.screen"
	check "pipeline-not-accepted-$size.screen"
	check "pipeline-interrupted-$size.screen"
done

# A live run far below the current directory, in its repair retry: the
# state keeps its dot and whole word, the status column says repairing,
# the directory keeps its end.
deep=out-of-a-rather/long/path/to/the/output/root
mkdir -p "$deep"
cp -R "$T/out/softmax" "$deep/softmax"
python3 - "$deep/softmax/.tileport/state.json" <<'PY'
import json, sys
p = sys.argv[1]
d = json.load(open(p))
a = d["attempts"][1]
d["attempts"] = d["attempts"][:2]
a.update(state="running", repair=True, dir="02-B1r", verdict=None, claimed=None, action=None, ended=0)
d.update(status="running", final=None, reason=None, outcome=None, contract=None)
json.dump({k: v for k, v in d.items() if v is not None}, open(p, "w"), indent=2)
PY
mv "$deep/softmax/.tileport/attempts/02-B1" "$deep/softmax/.tileport/attempts/02-B1r"
cat >"$T/script" <<EOS
:save-display runs-live-80x24.screen
<Enter>
:save-display pipeline-repairing-80x24.screen
EOS
# an orchestrator holds the run (flock on its lock, as tileport does)
COLUMNS=80 LINES=24 TILEPORT_SCRIPT="$T/script" flock "$deep/softmax/.tileport/lock" "$TILEPORT" browse \
	--read-only --out "$deep" >"$T/tp.log" 2>&1 || { echo "FAIL live browse"; failures=$((failures + 1)); }
check runs-live-80x24.screen
check pipeline-repairing-80x24.screen

# A finished run on a screen that may drive it: moving the cursor leaves no
# [paused] (nothing runs to follow), and the keys that would only be refused
# on an ended run (skip, continue, abort) are not offered; pressed, they
# say why before asking anything.
tp 80x24 open out/softmax <<EOS
j
:save-display pipeline-ended-moved-80x24.screen
K
:save-display refuse-skip-80x24.screen
X
:save-display refuse-abort-80x24.screen
EOS
check pipeline-ended-moved-80x24.screen
check refuse-skip-80x24.screen
check refuse-abort-80x24.screen

# Read-only: no stepping keys offered; O says why, once.
tp 80x24 open --read-only out/softmax <<EOS
O
:save-display readonly-override-80x24.screen
EOS
check readonly-override-80x24.screen

# An agent that exited non-zero: its last stderr line on the stage view.
edit_state rmsnorm '
a = d["attempts"][1]
a["exit"] = "exit 3"
a["stderr_tail"] = "warming up\nerror: quota exceeded for model x"'
tp 80x24 browse --read-only --out out <<EOS
<Enter>
k
<Enter>
:save-display stage-stderr-80x24.screen
EOS
check stage-stderr-80x24.screen

# A plain-text reply: its transcript shows each line once.
mkdir -p "$T/plain"
printf '%s\n' '{"type":"text","text":"checked the analysis"}' '{"type":"text","text":"<VALIDATOR_OUTPUT>"}' \
	'{"type":"text","text":"$ tileport validate stage A softmax"}' '{"type":"text","text":"exit=0"}' \
	'{"type":"text","text":"</VALIDATOR_OUTPUT>"}' '{"type":"text","text":"VERDICT: PASS"}' \
	'{"type":"final","text":"checked the analysis\n<VALIDATOR_OUTPUT>\n$ tileport validate stage A softmax\nexit=0\n</VALIDATOR_OUTPUT>\nVERDICT: PASS\n","gathered":true}' \
	>"$T/plain/transcript.jsonl"
tp 80x24 open plain/transcript.jsonl <<EOS
:save-display transcript-plain-80x24.screen
EOS
check transcript-plain-80x24.screen

# The text view: long lines end in ~; w wraps them (without breaking the
# double-width characters); <Right> stops at the end of the longest line.
python3 - "$T/long.txt" <<'PY'
import sys
with open(sys.argv[1], "w", encoding="utf-8") as f:
    f.write("short line\n")
    f.write("long " + "abcdefghij" * 12 + " END\n")
    f.write("tab\there\n")
    f.write("中文字符" * 14 + "\n")
    f.write("last\n")
PY
tp 60x12 open long.txt <<EOS
:save-display text-cut-60x12.screen
w
:save-display text-wrap-60x12.screen
w
<Right>
<Right>
<Right>
<Right>
<Right>
:save-display text-scrolled-60x12.screen
EOS
check text-cut-60x12.screen
check text-wrap-60x12.screen
check text-scrolled-60x12.screen
finish
