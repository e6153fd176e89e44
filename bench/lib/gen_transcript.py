#!/usr/bin/env python3
"""Write a transcript.jsonl of N lines (design §4.4 records): text, tool
calls with results, usage; line 21 carries the search target, the last
line the end marker."""
import json
import sys

path, n = sys.argv[1], int(sys.argv[2])
words = ("tile load store reduce mmaf partition kernel launch grid shape dtype "
         "bf16 f32 stride view token ordering latency").split()
with open(path, "w", encoding="utf-8") as f:
    call = 0
    for i in range(1, n + 1):
        if i == 21:
            rec = {"type": "text", "text": "NEEDLE-4242 marks the spot"}
        elif i == n:
            rec = {"type": "text", "text": "END OF TRANSCRIPT %d" % n}
        elif i % 10 == 3:
            call += 1
            rec = {"type": "tool_call", "id": "c%d" % call, "name": "read",
                   "input": {"path": "src/tilegym/ops/cutile/op_%d.py" % (call % 97)}}
        elif i % 10 == 4:
            rec = {"type": "tool_result", "id": "c%d" % call,
                   "output": "\n".join("line %d: %s" % (k, words[(i + k) % len(words)]) for k in range(3)),
                   "is_error": False}
        elif i % 50 == 0:
            rec = {"type": "usage", "tokens_in": i, "tokens_out": i // 10, "cost": i / 1e6}
        else:
            rec = {"type": "text", "text": "step %d: checking %s against the reference %s" %
                   (i, words[i % len(words)], words[(i * 7) % len(words)])}
        f.write(json.dumps(rec, separators=(",", ":")) + "\n")
