#!/usr/bin/env python3
"""A scripted LLM API on 127.0.0.1 for the agent-driver tests.

It speaks the three wire formats tileport's drivers meet:
  POST .../v1/messages          Anthropic messages (claude CLI, llm anthropic)
  POST .../chat/completions     OpenAI chat completions (llm openai)
  POST .../responses            OpenAI responses (codex CLI)
Each request takes the next step of the scenario (a JSON file); a request
past the last step is an error (answered 500) so a looping client fails
fast. Every request is checked, and every failed check is appended to the
report file at once:
  - the API key, when the scenario names one, arrives only as a header
    (x-api-key or Authorization: Bearer), never in the body;
  - tool results answer their calls: each result names a call made in the
    assistant turn just before it, and each call has its result;
  - a step's own "expect" checks (see check_expect).

Step fields:
  reply     {"text": str, "tools": [{"id","name","input"}], "usage":
            {"in","out","cache_read"}, "stop": str} rendered as a stream in
            the request's format
  status    HTTP status (default 200); with "body" the raw body instead
  headers   extra response headers
  split     "random" (cut the stream at random byte offsets, fixed seed),
            "bytes" (one byte per write) or "none" (default)
  cut       stop after this many bytes of the stream and drop the connection
  malformed put a data line that is not JSON before the real events
  hang      send the headers and the first event, then nothing more
  ping      interleave keep-alive comments and ping events
  openai    {"no_index": true, "args_object": true, "finish": "stop",
            "no_done": true} quirks of "compatible" chat servers
  match     {"path": substring} skip requests whose path lacks it (they get
            an empty reply and are not counted as steps)
  flood     a hostile reply, made as it is sent (never held whole):
            {"text": N} N bytes of text in 16 KiB chunks; {"args": N} one
            write_file call whose arguments run N bytes; {"event": N} one
            event whose data line is N bytes; in the request's format
            (anthropic or openai), then the stream's proper end
A scenario with "loop": true starts again after its last step (benchmarks);
"partial": true does not mind steps that no request took.

Usage: llm_server.py SCENARIO --port-fifo FIFO --report FILE [--log FILE]
The port is written to FIFO once the socket listens (the test blocks
reading it: an event, not a delay). The server exits on SIGTERM or after --timeout s, and then reports the
steps no request took.
"""
import argparse
import http.server
import json
import random
import socketserver
import sys
import signal
import threading

lock = threading.Lock()
state = {"n": 0}
stop = threading.Event()


def fail(msg):
    with lock:
        with open(ARGS.report, "a") as f:
            f.write(msg + "\n")


def api_of(path):
    if "/messages" in path:
        return "anthropic"
    if "/chat/completions" in path:
        return "openai"
    if "/responses" in path:
        return "responses"
    return None


# ---- request checks ----

def check_pairs_anthropic(n, msgs):
    for i, m in enumerate(msgs):
        content = m.get("content")
        if not isinstance(content, list):
            continue
        if m.get("role") == "assistant":
            calls = [c["id"] for c in content if c.get("type") == "tool_use"]
            nxt = msgs[i + 1] if i + 1 < len(msgs) else None
            got = []
            if nxt and isinstance(nxt.get("content"), list):
                got = [c.get("tool_use_id") for c in nxt["content"] if c.get("type") == "tool_result"]
            for c in calls:
                if c not in got:
                    fail(f"request {n}: tool_use {c} (message {i}) has no tool_result right after it")
        if m.get("role") == "user":
            prev = msgs[i - 1] if i > 0 else None
            made = []
            if prev and prev.get("role") == "assistant" and isinstance(prev.get("content"), list):
                made = [c.get("id") for c in prev["content"] if c.get("type") == "tool_use"]
            for c in content:
                if c.get("type") == "tool_result" and c.get("tool_use_id") not in made:
                    fail(f"request {n}: tool_result {c.get('tool_use_id')} (message {i}) answers no call")


def check_pairs_openai(n, msgs):
    open_calls = []
    for i, m in enumerate(msgs):
        role = m.get("role")
        if role == "assistant":
            if open_calls:
                fail(f"request {n}: calls {open_calls} unanswered before message {i}")
            open_calls = [c.get("id") for c in (m.get("tool_calls") or [])]
        elif role == "tool":
            cid = m.get("tool_call_id")
            if cid not in open_calls:
                fail(f"request {n}: tool message {i} answers {cid}, which is not an open call")
            else:
                open_calls.remove(cid)
        elif open_calls:
            fail(f"request {n}: calls {open_calls} unanswered before message {i} ({role})")
            open_calls = []
    if open_calls:
        fail(f"request {n}: calls {open_calls} unanswered at the end")


def check_pairs_responses(n, items):
    calls = set()
    for i, it in enumerate(items if isinstance(items, list) else []):
        if not isinstance(it, dict):
            continue
        if it.get("type") == "function_call":
            calls.add(it.get("call_id"))
        if it.get("type") == "function_call_output" and it.get("call_id") not in calls:
            fail(f"request {n}: function_call_output {it.get('call_id')} answers no call")


def tool_results(api, body):
    """{call id: result text} of the request."""
    out = {}
    if api == "anthropic":
        for m in body.get("messages", []):
            if isinstance(m.get("content"), list):
                for c in m["content"]:
                    if c.get("type") == "tool_result":
                        t = c.get("content")
                        if isinstance(t, list):
                            t = "".join(x.get("text", "") for x in t if isinstance(x, dict))
                        out[c.get("tool_use_id")] = (t or "") + (" [is_error]" if c.get("is_error") else "")
    elif api == "openai":
        for m in body.get("messages", []):
            if m.get("role") == "tool":
                out[m.get("tool_call_id")] = m.get("content") or ""
    else:
        for it in body.get("input", []) if isinstance(body.get("input"), list) else []:
            if isinstance(it, dict) and it.get("type") == "function_call_output":
                o = it.get("output")
                out[it.get("call_id")] = o if isinstance(o, str) else json.dumps(o)
    return out


def call_ids(api, body):
    ids = []
    if api == "anthropic":
        for m in body.get("messages", []):
            if m.get("role") == "assistant" and isinstance(m.get("content"), list):
                ids += [c.get("id") for c in m["content"] if c.get("type") == "tool_use"]
    elif api == "openai":
        for m in body.get("messages", []):
            ids += [c.get("id") for c in (m.get("tool_calls") or [])]
    return ids


def check_expect(n, api, body, raw, exp):
    """expect: {"results": {id: substring}, "absent": [ids], "max_messages": N,
    "contains": [text], "not_contains": [text], "system": substring}"""
    res = tool_results(api, body)
    for cid, sub in exp.get("results", {}).items():
        if cid not in res:
            fail(f"request {n}: no tool result for {cid} (have {sorted(res)})")
        elif sub not in res[cid]:
            fail(f"request {n}: result of {cid} lacks {sub!r}: {res[cid][:300]!r}")
    ids = call_ids(api, body)
    for cid in exp.get("absent", []):
        if cid in ids or cid in res:
            fail(f"request {n}: {cid} should have been trimmed from the history")
    if "max_messages" in exp:
        k = len(body.get("messages", []))
        if k > exp["max_messages"]:
            fail(f"request {n}: {k} messages, expected at most {exp['max_messages']} after trimming")
    text = raw.decode("utf-8", "replace")
    for s in exp.get("contains", []):
        if s not in text:
            fail(f"request {n}: body lacks {s!r}")
    for s in exp.get("not_contains", []):
        if s in text:
            fail(f"request {n}: body has {s!r}")


# ---- streams ----

def sse(event, data):
    head = f"event: {event}\n" if event else ""
    return (head + "data: " + (data if isinstance(data, str) else json.dumps(data)) + "\n\n").encode()


def halves(s):
    k = max(1, len(s) // 2)
    return [s[:k], s[k:]] if len(s) > 1 else [s]


def stream_anthropic(step, body):
    r = step.get("reply", {})
    u = r.get("usage", {})
    model = body.get("model", "mock")
    out = [sse("message_start", {"type": "message_start", "message": {
        "id": "msg_%d" % state["n"], "type": "message", "role": "assistant", "model": model,
        "content": [], "stop_reason": None, "stop_sequence": None,
        "usage": {"input_tokens": u.get("in", 10), "output_tokens": 1,
                  "cache_read_input_tokens": u.get("cache_read", 0),
                  "cache_creation_input_tokens": 0}}})]
    if step.get("ping"):
        out.append(b": keep-alive\n\n")
        out.append(sse("ping", {"type": "ping"}))
    idx = 0
    if r.get("text"):
        out.append(sse("content_block_start", {"type": "content_block_start", "index": idx,
                                               "content_block": {"type": "text", "text": ""}}))
        for part in halves(r["text"]):
            out.append(sse("content_block_delta", {"type": "content_block_delta", "index": idx,
                                                   "delta": {"type": "text_delta", "text": part}}))
        out.append(sse("content_block_stop", {"type": "content_block_stop", "index": idx}))
        idx += 1
    for t in r.get("tools", []):
        out.append(sse("content_block_start", {"type": "content_block_start", "index": idx,
                                               "content_block": {"type": "tool_use", "id": t["id"],
                                                                 "name": t["name"], "input": {}}}))
        for part in halves(json.dumps(t.get("input", {}))):
            out.append(sse("content_block_delta", {"type": "content_block_delta", "index": idx,
                                                   "delta": {"type": "input_json_delta",
                                                             "partial_json": part}}))
        out.append(sse("content_block_stop", {"type": "content_block_stop", "index": idx}))
        idx += 1
    stop_reason = r.get("stop", "tool_use" if r.get("tools") else "end_turn")
    out.append(sse("message_delta", {"type": "message_delta",
                                     "delta": {"stop_reason": stop_reason, "stop_sequence": None},
                                     "usage": {"output_tokens": u.get("out", 5)}}))
    out.append(sse("message_stop", {"type": "message_stop"}))
    return out


def stream_openai(step, body):
    r = step.get("reply", {})
    u = r.get("usage", {})
    q = step.get("openai", {})
    base = {"id": "chatcmpl-%d" % state["n"], "object": "chat.completion.chunk",
            "model": body.get("model", "mock")}

    def chunk(delta, finish=None):
        return sse(None, dict(base, choices=[{"index": 0, "delta": delta, "finish_reason": finish}]))
    out = [chunk({"role": "assistant", "content": ""})]
    if step.get("ping"):
        out.append(b": keep-alive\n\n")
    for part in halves(r.get("text", "")) if r.get("text") else []:
        out.append(chunk({"content": part}))
    for i, t in enumerate(r.get("tools", [])):
        args = json.dumps(t.get("input", {}))
        first = {"id": t["id"], "type": "function", "function": {"name": t["name"], "arguments": ""}}
        if not q.get("no_index"):
            first["index"] = i
        if q.get("args_object"):
            first["function"]["arguments"] = t.get("input", {})
            out.append(chunk({"tool_calls": [first]}))
            continue
        out.append(chunk({"tool_calls": [first]}))
        for part in halves(args):
            frag = {"function": {"arguments": part}}
            if q.get("no_index"):
                frag["id"] = t["id"]
            else:
                frag["index"] = i
            out.append(chunk({"tool_calls": [frag]}))
    finish = q.get("finish", "tool_calls" if r.get("tools") else "stop")
    out.append(chunk({}, finish))
    out.append(sse(None, dict(base, choices=[], usage={
        "prompt_tokens": u.get("in", 10), "completion_tokens": u.get("out", 5),
        "total_tokens": u.get("in", 10) + u.get("out", 5),
        "prompt_tokens_details": {"cached_tokens": u.get("cache_read", 0)}})))
    if not q.get("no_done"):
        out.append(sse(None, "[DONE]"))
    return out


def stream_responses(step, body):
    r = step.get("reply", {})
    u = r.get("usage", {})
    rid = "resp_%d" % state["n"]
    seq = [0]

    def ev(t, d):
        seq[0] += 1
        return sse(t, dict(d, type=t, sequence_number=seq[0]))
    out = [ev("response.created", {"response": {"id": rid, "status": "in_progress", "output": []}})]
    items = []
    oi = 0
    if r.get("text"):
        mid = "msg_%d" % state["n"]
        out.append(ev("response.output_item.added", {"output_index": oi, "item": {
            "type": "message", "id": mid, "role": "assistant", "status": "in_progress", "content": []}}))
        for part in halves(r["text"]):
            out.append(ev("response.output_text.delta", {"item_id": mid, "output_index": oi,
                                                         "content_index": 0, "delta": part}))
        item = {"type": "message", "id": mid, "role": "assistant", "status": "completed",
                "content": [{"type": "output_text", "text": r["text"], "annotations": []}]}
        out.append(ev("response.output_item.done", {"output_index": oi, "item": item}))
        items.append(item)
        oi += 1
    for t in r.get("tools", []):
        args = json.dumps(t.get("input", {}))
        fid = "fc_" + t["id"]
        item = {"type": "function_call", "id": fid, "call_id": t["id"], "name": t["name"],
                "arguments": "", "status": "in_progress"}
        out.append(ev("response.output_item.added", {"output_index": oi, "item": item}))
        for part in halves(args):
            out.append(ev("response.function_call_arguments.delta",
                          {"item_id": fid, "output_index": oi, "delta": part}))
        done = dict(item, arguments=args, status="completed")
        out.append(ev("response.output_item.done", {"output_index": oi, "item": done}))
        items.append(done)
        oi += 1
    out.append(ev("response.completed", {"response": {
        "id": rid, "status": "completed", "output": items,
        "usage": {"input_tokens": u.get("in", 10),
                  "input_tokens_details": {"cached_tokens": u.get("cache_read", 0)},
                  "output_tokens": u.get("out", 5), "output_tokens_details": {"reasoning_tokens": 0},
                  "total_tokens": u.get("in", 10) + u.get("out", 5)}}}))
    return out


STREAMS = {"anthropic": stream_anthropic, "openai": stream_openai, "responses": stream_responses}


def flood(api, spec):
    """The pieces of a flood reply (see the step fields), lazily."""
    chunk = "x" * 16384
    if api == "anthropic":
        def text(t):
            return sse("content_block_delta", {"type": "content_block_delta", "index": 0,
                                               "delta": {"type": "text_delta", "text": t}})

        def args(t):
            return sse("content_block_delta", {"type": "content_block_delta", "index": 0,
                                               "delta": {"type": "input_json_delta", "partial_json": t}})
        yield sse("message_start", {"type": "message_start", "message": {
            "id": "msg_flood", "type": "message", "role": "assistant", "model": "mock", "content": [],
            "usage": {"input_tokens": 10, "output_tokens": 1}}})
        block = {"type": "text", "text": ""} if "args" not in spec else \
            {"type": "tool_use", "id": "toolu_flood", "name": "write_file", "input": {}}
        yield sse("content_block_start", {"type": "content_block_start", "index": 0, "content_block": block})
        end = [sse("content_block_stop", {"type": "content_block_stop", "index": 0}),
               sse("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn"},
                                     "usage": {"output_tokens": 5}}),
               sse("message_stop", {"type": "message_stop"})]
    else:
        def text(t):
            return sse(None, {"choices": [{"index": 0, "delta": {"content": t}}]})

        def args(t):
            return sse(None, {"choices": [{"index": 0, "delta": {"tool_calls": [
                {"index": 0, "function": {"arguments": t}}]}}]})
        if "args" in spec:
            yield sse(None, {"choices": [{"index": 0, "delta": {"tool_calls": [
                {"index": 0, "id": "call_flood", "type": "function",
                 "function": {"name": "write_file", "arguments": ""}}]}}]})
        end = [sse(None, {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}), sse(None, "[DONE]")]
    if "event" in spec:
        n = spec["event"]
        yield b"data: " if api == "openai" else b"event: content_block_delta\ndata: "
        for _ in range(n // len(chunk)):
            yield chunk.encode()
        yield b"\n\n"
    else:
        key = "args" if "args" in spec else "text"
        make = args if key == "args" else text
        if key == "args":
            yield make('{"path": "big.txt", "content": "')
        for _ in range(spec[key] // len(chunk)):
            yield make(chunk)
        if key == "args":
            yield make('"}')
    for e in end:
        yield e


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # each piece of a split reply goes out at once, not after a delayed ACK
    disable_nagle_algorithm = True

    def log_message(self, *a):
        pass

    def do_GET(self):
        self.send_response(404)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self):
        raw = self.rfile.read(int(self.headers.get("Content-Length", 0) or 0))
        api = api_of(self.path)
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {}
            fail(f"request to {self.path}: body is not JSON")
        with lock:
            steps = SCEN.get("steps", [])
            k = state["n"] % len(steps) if SCEN.get("loop") and steps else state["n"]
            step = steps[k] if k < len(steps) else None
            m = (step or {}).get("match", {})
            skip = step is not None and "path" in m and m["path"] not in self.path
            if not skip:
                state["n"] += 1
            n = state["n"]
        if ARGS.log:
            with lock:
                with open(ARGS.log, "a") as f:
                    f.write(json.dumps({"n": n, "path": self.path, "skipped": skip,
                                        "headers": {h.lower(): v for h, v in self.headers.items()
                                                    if h.lower() not in ("x-api-key", "authorization")},
                                        "body": body}) + "\n")
        key = SCEN.get("key")
        if key:
            auth = self.headers.get("x-api-key") or ""
            bearer = self.headers.get("Authorization") or ""
            if key != auth and bearer != "Bearer " + key:
                fail(f"request {n}: the key is not in x-api-key or Authorization")
            if key.encode() in raw:
                fail(f"request {n}: the key is in the request body")
            if key in self.path:
                fail(f"request {n}: the key is in the URL")
        if skip:
            return self.reply(200, {"Content-Type": "text/event-stream"},
                              STREAMS.get(api, stream_anthropic)({"reply": {"text": "ok"}}, body), {})
        if step is None:
            fail(f"request {n} to {self.path}: past the end of the scenario ({len(SCEN.get('steps', []))} steps)")
            return self.reply(500, {"Content-Type": "application/json"},
                              [b'{"error":{"type":"api_error","message":"scenario exhausted"}}'], {})
        if api == "anthropic":
            check_pairs_anthropic(n, body.get("messages", []))
        elif api == "openai":
            check_pairs_openai(n, body.get("messages", []))
        elif api == "responses":
            check_pairs_responses(n, body.get("input"))
        check_expect(n, api, body, raw, step.get("expect", {}))
        status = step.get("status", 200)
        hdrs = {"Content-Type": "text/event-stream" if "body" not in step else
                step.get("content_type", "application/json")}
        hdrs.update(step.get("headers", {}))
        if "flood" in step:
            return self.flood(api, step["flood"])
        if "body" in step:
            b = step["body"]
            parts = [(b if isinstance(b, str) else json.dumps(b)).encode()]
        else:
            parts = STREAMS.get(api, stream_anthropic)(step, body)
            if step.get("malformed"):
                parts.insert(1, sse(None, '{"choices": [ {"delta": {"content": "unterminated'))
        self.reply(status, hdrs, parts, step)

    def flood(self, api, spec):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        try:
            for p in flood(api, spec):
                self.wfile.write(p)
        except (BrokenPipeError, ConnectionResetError):
            pass
        self.close_connection = True

    def reply(self, status, hdrs, parts, step):
        data = b"".join(parts)
        if step.get("hang"):
            data = parts[0]
        if "cut" in step:
            data = data[: step["cut"]]
        self.send_response(status)
        for h, v in hdrs.items():
            self.send_header(h, v)
        cut = "cut" in step or step.get("hang")
        if not cut:
            self.send_header("Content-Length", str(len(data)))
        else:
            self.send_header("Connection", "close")
        self.end_headers()
        pieces = [data]
        split = step.get("split", "none")
        if split == "bytes":
            pieces = [data[i:i + 1] for i in range(len(data))]
        elif split == "random":
            rnd = random.Random(SCEN.get("seed", 1) * 1000 + state["n"])
            cuts = sorted(rnd.sample(range(1, len(data)), min(len(data) - 1, max(1, len(data) // 40))))
            pieces = [data[a:b] for a, b in zip([0] + cuts, cuts + [len(data)])]
        try:
            for p in pieces:
                self.wfile.write(p)
                self.wfile.flush()
            if step.get("hang"):
                stop.wait(ARGS.timeout)
        except (BrokenPipeError, ConnectionResetError):
            pass
        if cut:
            self.close_connection = True


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


def main():
    global ARGS, SCEN
    ap = argparse.ArgumentParser()
    ap.add_argument("scenario")
    ap.add_argument("--port-fifo", required=True)
    ap.add_argument("--report", required=True)
    ap.add_argument("--log")
    ap.add_argument("--timeout", type=float, default=300)
    ARGS = ap.parse_args()
    open(ARGS.report, "a").close()
    # the test blocks on the FIFO: it hears back even when the scenario is bad
    with open(ARGS.port_fifo, "w") as fifo:
        try:
            with open(ARGS.scenario) as f:
                SCEN = json.load(f)
        except ValueError as e:
            fail(f"{ARGS.scenario}: not JSON: {e}")
            fifo.write("0\n")
            return
        srv = Server(("127.0.0.1", 0), Handler)
        fifo.write("%d\n" % srv.server_address[1])
    signal.signal(signal.SIGTERM, lambda *a: stop.set())
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    stop.wait(ARGS.timeout)
    srv.shutdown()
    left = len(SCEN.get("steps", [])) - state["n"]
    if left > 0 and not SCEN.get("partial") and not SCEN.get("loop"):
        fail(f"{left} scenario step(s) never requested")


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        sys.exit(0)
