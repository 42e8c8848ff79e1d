#!/usr/bin/env python3
"""A fast MCP stdio server for the load tests: answers every request at once
and in order (`tools/call` echoes its arguments; `big` answers with
`arguments.bytes` bytes of text, `tiny` with as many bytes of `0,`, `objects` with
`arguments.count` objects `{"a":0}`, `progress` with one progress notification first, `nested` with about as
many of text inside four layers of base64 `data:` URIs), and exits when its input ends. With
argv[1] = "stall" it reads nothing after `initialize`; with "longname" it lists a tool whose
name is 600 bytes long; with "longcursor" its listing's first page has a
`nextCursor` of 4.3 MB."""
import base64
import json
import sys
import time

TOOLS = [{"name": "echo", "description": "Echoes its arguments.", "inputSchema": {"type": "object"}}]
if "longname" in sys.argv[1:]:
    # A name longer than the gateway records (`gate::MAX_NAME_BYTES`).
    TOOLS.append({"name": "n" * 600, "description": "Long.", "inputSchema": {"type": "object"}})
out = sys.stdout
for line in sys.stdin:
    try:
        msg = json.loads(line)
    except ValueError:
        continue
    if "id" not in msg or "method" not in msg:
        continue
    id, method, params = msg["id"], msg["method"], msg.get("params") or {}
    if method == "initialize":
        result = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}}, "serverInfo": {"name": "echo", "version": "1"}}
    elif method == "ping":
        result = {}
    elif method == "tools/list":
        result = {"tools": TOOLS}
        if "longcursor" in sys.argv[1:]:
            # A cursor longer than the gateway goes on with
            # (`gate::MAX_CURSOR_BYTES`), as long as a line toward the server.
            result["nextCursor"] = "c" * 4_300_000
    elif method == "tools/call":
        args = params.get("arguments", {})
        if params.get("name") == "tiny":
            # `bytes` of tiny values: costly to parse, cheap to write.
            n = int(args.get("bytes", 0)) // 2
            out.write('{"jsonrpc":"2.0","id":%s,"result":{"content":[],"n":[%s]}}\n' % (json.dumps(id), ",".join(["0"] * n)))
            out.flush()
            continue
        if params.get("name") == "progress":
            # One progress notification for the call's token, then the answer.
            token = (params.get("_meta") or {}).get("progressToken")
            out.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": token, "progress": 1}}) + "\n")
            out.write(json.dumps({"jsonrpc": "2.0", "id": id, "result": {"content": [{"type": "text", "text": "progressed"}]}}) + "\n")
            out.flush()
            continue
        if params.get("name") == "objects":
            # `count` one-key objects: cheap to write, costly to parse.
            n = int(args.get("count", 0))
            out.write('{"jsonrpc":"2.0","id":%s,"result":{"content":[],"structuredContent":{"v":[%s]}}}\n' % (json.dumps(id), ",".join(['{"a":0}'] * n)))
            out.flush()
            continue
        if params.get("name") == "big":
            # `unit_hex`: the unit as hex, for a unit the gateway would
            # refuse as an argument (a `data:` URI).
            unit = bytes.fromhex(str(args.get("unit_hex", ""))).decode() or str(args.get("unit", "a")) or "a"
            text = unit * (int(args.get("bytes", 0)) // len(unit))
        elif params.get("name") == "nested":
            # Each layer is 4/3 of the one inside it, and its prefix.
            text = "hello & world "
            text = (text * (int(int(args.get("bytes", 0)) * 0.75 ** 4) // len(text) + 1))
            for _ in range(4):
                text = "data:text/plain;base64," + base64.b64encode(text.encode()).decode()
        else:
            text = json.dumps(args, sort_keys=True)
        result = {"content": [{"type": "text", "text": text}]}
    else:
        out.write(json.dumps({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "method not found"}}) + "\n")
        out.flush()
        continue
    out.write(json.dumps({"jsonrpc": "2.0", "id": id, "result": result}) + "\n")
    out.flush()
    if method == "initialize" and "stall" in sys.argv[1:]:
        while True:
            time.sleep(1000)
