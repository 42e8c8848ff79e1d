#!/usr/bin/env python3
"""A transparent tap in front of a real MCP stdio server, for the gateway tests.

Usage: tap.py LOG CMD [ARGS...]

Starts CMD ARGS with this process's stdout and stderr (the server writes straight to its
client), copies every line read on stdin to the server's stdin unchanged and appends it to
LOG as well, so a test can prove which requests reached the server and which never did. On
EOF the server's stdin is closed; the tap exits with the server's status. It stays in the
gateway's process group, so signals sent to the group reach the server too.

The server gets the tap's environment minus `LC_CTYPE` when the tap's own locale coercion
(PEP 538: Python run under the C locale sets `LC_CTYPE=C.UTF-8` in its environment) put it
there, so a test of the environment the gateway passes sees the gateway's, not the tap's.
"""
import os
import subprocess
import sys


def main() -> int:
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    log = open(sys.argv[1], "ab", buffering=0)
    env = dict(os.environ)
    if not any(k in env for k in ("LC_ALL", "LANG")) and env.get("LC_CTYPE") == "C.UTF-8":
        del env["LC_CTYPE"]  # added by the tap's own interpreter (PEP 538), not by the gateway
    child = subprocess.Popen(sys.argv[2:], stdin=subprocess.PIPE, env=env)
    try:
        for line in sys.stdin.buffer:
            log.write(line)
            child.stdin.write(line)
            child.stdin.flush()
    except (BrokenPipeError, OSError):
        pass
    try:
        child.stdin.close()
    except OSError:
        pass
    return child.wait()


if __name__ == "__main__":
    sys.exit(main())
