#!/usr/bin/env python3
"""End-to-end check of `toolgate mcp` with the official MCP Python SDK (PyPI `mcp` 2.3.0).

Usage: python tests/clients/python_sdk.py PATH/TO/toolgate

Launches `toolgate mcp --root corpus/pdf` over stdio, once per connect mode:
  * legacy: the initialize handshake (2025-11-25);
  * auto (the SDK default): a server/discover probe at 2026-07-28 first. A server that
    stays silent costs ~10 s before the SDK falls back, so the connect time is printed
    and the negotiated version must be the stateless one.
In each mode it lists the tools, extracts a real multi-page PDF and compares its text with
poppler's (corpus/pdf/expected/*.txt, loosely), reads metadata, and checks that a missing
file, a path outside the root and a cloud-metadata URL all come back as isError results
carrying their stable error kind.

Prints one line per check and a final `N passed, M failed`; exits 1 if any check failed.
"""

from __future__ import annotations

import asyncio
import difflib
import json
import re
import sys
import time
from pathlib import Path

from mcp import Client, StdioServerParameters

REPO = Path(__file__).resolve().parents[2]
ROOT = REPO / "corpus" / "pdf"
EXPECTED = ROOT / "expected"
MULTI_PAGE = "pypdf-pdflatex-4-pages"
# The SDK's discover wait is ~10 s; anything near it means the probe went unanswered.
AUTO_CONNECT_LIMIT_S = 3.0

results: list[tuple[str, bool, str]] = []


def check(name: str, ok: bool, detail: str = "") -> bool:
    results.append((name, ok, detail))
    print(f"{'ok  ' if ok else 'FAIL'} {name}{': ' + detail if detail and not ok else ''}", flush=True)
    return ok


def words(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())


def error_kind(result) -> str | None:
    """The stable kind from an isError result's text: {"error": {"kind": ...}}."""
    try:
        return json.loads(result.content[0].text)["error"]["kind"]
    except (ValueError, KeyError, IndexError, AttributeError, TypeError):
        return None


def expected_pages(name: str) -> int:
    info = (EXPECTED / f"{name}.info").read_text(encoding="utf-8")
    return int(re.search(r"^Pages:\s+(\d+)", info, re.M).group(1))


async def session(binary: str, mode: str) -> None:
    params = StdioServerParameters(command=binary, args=["mcp", "--root", str(ROOT)])
    started = time.monotonic()
    async with Client(params, mode=mode) as client:
        elapsed = time.monotonic() - started
        version = client.session.protocol_version
        print(f"     [{mode}] connected in {elapsed:.3f} s, protocol {version}", flush=True)
        if mode == "auto":
            check("auto: negotiated the stateless revision", version == "2026-07-28", str(version))
            check(
                f"auto: connected without the discover fallback wait (< {AUTO_CONNECT_LIMIT_S} s)",
                elapsed < AUTO_CONNECT_LIMIT_S,
                f"{elapsed:.2f} s",
            )
        else:
            check("legacy: negotiated 2025-11-25", version == "2025-11-25", str(version))

        listed = await client.list_tools()
        tools = {t.name: t for t in listed.tools}
        check(f"{mode}: tools/list names", set(tools) == {"extract", "get_metadata"}, str(sorted(tools)))
        for t in tools.values():
            check(
                f"{mode}: {t.name} schema closed, read-only",
                t.input_schema.get("additionalProperties") is False
                and t.annotations is not None
                and t.annotations.read_only_hint is True
                and t.annotations.open_world_hint is False
                and t.output_schema is not None,
            )

        res = await client.call_tool("extract", {"path": f"{MULTI_PAGE}.pdf"})
        ok = check(f"{mode}: extract {MULTI_PAGE}", not res.is_error, res.content[0].text[:200] if res.content else "")
        if ok:
            sc = res.structured_content or {}
            pages = sc.get("pages", [])
            check(
                f"{mode}: extract page count and numbering",
                sc.get("pageCount") == expected_pages(MULTI_PAGE) and [p["page"] for p in pages] == [1, 2, 3, 4],
                json.dumps({"pageCount": sc.get("pageCount"), "pages": [p.get("page") for p in pages]}),
            )
            got = words(" ".join(p["text"] for p in pages))
            want = words((EXPECTED / f"{MULTI_PAGE}.txt").read_text(encoding="utf-8"))
            ratio = difflib.SequenceMatcher(None, got, want, autojunk=False).ratio()
            check(f"{mode}: extract text matches poppler (word ratio {ratio:.3f} >= 0.9)", ratio >= 0.9)
            mirror = json.loads(res.content[0].text)
            check(f"{mode}: text content mirrors structuredContent", mirror == sc)

        res = await client.call_tool("extract", {"path": f"{MULTI_PAGE}.pdf", "pages": "2-3"})
        check(
            f"{mode}: extract pages 2-3",
            not res.is_error and [p["page"] for p in (res.structured_content or {}).get("pages", [])] == [2, 3],
        )

        res = await client.call_tool("get_metadata", {"path": "pypdf-minimal-document.pdf"})
        ok = check(f"{mode}: get_metadata", not res.is_error, res.content[0].text[:200] if res.content else "")
        if ok:
            sc = res.structured_content or {}
            check(
                f"{mode}: get_metadata fields",
                sc.get("pageCount") == expected_pages("pypdf-minimal-document")
                and sc.get("encrypted") is False
                and isinstance(sc.get("pdfVersion"), str)
                and isinstance(sc.get("info"), dict),
                json.dumps(sc)[:300],
            )

        for label, args, want in [
            ("missing file", {"path": "no-such-file.pdf"}, "not_found"),
            ("path outside root", {"path": "../../../../../../etc/passwd"}, "path.outside_root"),
            ("absolute path outside root", {"path": "/etc/passwd"}, "path.outside_root"),
            ("cloud metadata URL", {"path": "http://169.254.169.254/latest/meta-data/"}, "ssrf.cloud_metadata"),
            ("unknown argument", {"path": f"{MULTI_PAGE}.pdf", "page": "1"}, "invalid_arguments"),
        ]:
            res = await client.call_tool("extract", args)
            kind = error_kind(res)
            check(f"{mode}: {label} -> isError {want}", res.is_error and kind == want, f"isError={res.is_error} kind={kind}")


async def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    binary = str(Path(sys.argv[1]).resolve())
    for mode in ("legacy", "auto"):
        try:
            await asyncio.wait_for(session(binary, mode), timeout=120)
        except Exception as e:  # a failed connect or call is a failed check, not a crash
            check(f"{mode}: session completed", False, f"{type(e).__name__}: {e}")
    failed = sum(1 for _, ok, _ in results if not ok)
    print(f"{len(results) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
