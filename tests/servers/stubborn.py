#!/usr/bin/env python3
"""A server that will not stop: it ignores SIGTERM and the end of its
input, never answers `tools/call` (it lists its one tool, `wait`), and keeps a grandchild in its process
group. It writes its pid and the grandchild's to the file named by argv[1]
once it has answered `initialize`."""
import json
import os
import signal
import subprocess
import sys
import time

signal.signal(signal.SIGTERM, signal.SIG_IGN)
grandchild = subprocess.Popen(["sleep", "1000"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
for line in sys.stdin:
    try:
        msg = json.loads(line)
    except ValueError:
        continue
    if msg.get("method") == "initialize":
        with open(sys.argv[1], "w") as f:
            f.write("%d %d\n" % (grandchild.pid, os.getpid()))
        result = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}}, "serverInfo": {"name": "stubborn", "version": "1"}}
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}) + "\n")
        sys.stdout.flush()
    elif msg.get("method") == "tools/list":
        tools = [{"name": "wait", "inputSchema": {"type": "object"}}]
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": {"tools": tools}}) + "\n")
        sys.stdout.flush()
while True:
    time.sleep(1000)
