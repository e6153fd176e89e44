#!/usr/bin/env python3
"""A stage agent that streams transcript text records at a fixed rate
(RATE lines per second for SECONDS), then a final record with a verdict.
Usage: stream_agent.py RATE SECONDS VERDICT"""
import json
import sys
import time

rate, secs, verdict = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
out = sys.stdout
out.write(json.dumps({"type": "start", "driver": "stream_agent"}) + "\n")
batch = max(1, rate // 200)  # 200 writes a second
total = int(rate * secs)
start = time.monotonic()
sent = 0
while sent < total:
    lines = []
    for _ in range(min(batch, total - sent)):
        sent += 1
        lines.append('{"type":"text","text":"streamed line %d: partition load reduce store"}\n' % sent)
    out.write("".join(lines))
    out.flush()
    due = start + sent / rate
    pause = due - time.monotonic()
    if pause > 0:
        time.sleep(pause)
final = "streamed %d lines in %.2f s\n<VALIDATOR_OUTPUT>\n$ true\nexit=0\n</VALIDATOR_OUTPUT>\nVERDICT: %s" % (
    sent, time.monotonic() - start, verdict)
out.write(json.dumps({"type": "final", "text": final}) + "\n")
out.flush()
