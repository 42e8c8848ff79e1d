#!/usr/bin/env python3
"""End-to-end check of `toolgate mcp` with the official MCP Python SDK (PyPI `mcp` 2.3.0).

Usage: python tests/clients/python_sdk.py PATH/TO/toolgate [--http]

With --http every session runs over Streamable HTTP instead: the server is started as
`toolgate mcp --root DIR --http 127.0.0.1:0` and the SDK connects to the URL it prints
(`Client(url, mode=...)`); every check below is the same.

Launches `toolgate mcp --root corpus/pdf` over stdio, once per connect mode:
  * legacy: the initialize handshake (2025-11-25);
  * auto (the SDK default): a server/discover probe at 2026-07-28 first. A server that
    stays silent costs ~10 s before the SDK falls back, so the connect time is printed
    and the negotiated version must be the stateless one.
In each mode it lists the tools, extracts a real multi-page PDF and compares its text with
poppler's (corpus/pdf/expected/*.txt, loosely), reads metadata, and checks that a missing
file, a path outside the root and a cloud-metadata URL all come back as isError results
carrying their stable error kind.

Then, in each mode again, on a temporary root holding a generated 300-page PDF that takes
the extractor a while: concurrent calls (`tools/list` answered while three extractions run,
all three then complete), progress (the SDK's progress callback hears pages done out of 300,
in order, nothing after the result), and cancellation (a call abandoned by the client's
read timeout: the SDK sends `notifications/cancelled`, the call's worker process is killed,
and the next call is served).

Prints one line per check and a final `N passed, M failed`; exits 1 if any check failed.
"""

from __future__ import annotations

import asyncio
import contextlib
import difflib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from checks import check, tally
from mcp import Client, StdioServerParameters

REPO = Path(__file__).resolve().parents[2]
ROOT = REPO / "corpus" / "pdf"
EXPECTED = ROOT / "expected"
MULTI_PAGE = "pypdf-pdflatex-4-pages"
# The SDK's discover wait is ~10 s; anything near it means the probe went unanswered.
AUTO_CONNECT_LIMIT_S = 3.0



HTTP = "--http" in sys.argv[2:]


@contextlib.asynccontextmanager
async def connect(binary: str, root: str, mode: str, extra: tuple[str, ...] = ()):
    """A connected client of `toolgate mcp --root ROOT EXTRA...`, over stdio or (--http) HTTP."""
    args = ["mcp", "--root", str(root), *extra]
    if not HTTP:
        async with Client(StdioServerParameters(command=binary, args=args), mode=mode) as client:
            yield client
        return
    server = subprocess.Popen(
        [binary, *args, "--http", "127.0.0.1:0"],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )
    try:
        first = server.stderr.readline().strip()
        url = first.removeprefix("toolgate mcp: serving MCP at ")
        async with Client(url, mode=mode) as client:
            yield client
    finally:
        server.kill()
        server.wait()


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
    started = time.monotonic()
    async with connect(binary, str(ROOT), mode) as client:
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


BUSY_PAGES = 300


def busy_pdf(pages: int = BUSY_PAGES, ops: int = 2000) -> bytes:
    """A PDF of `pages` pages sharing one content stream of `ops` text operators."""
    content = b"BT /F1 12 Tf " + b"(word) Tj " * ops + b"ET"
    objects = {
        1: b"<< /Type /Catalog /Pages 2 0 R >>",
        2: b"<< /Type /Pages /Kids [" + b" ".join(b"%d 0 R" % (10 + i) for i in range(pages)) + b"] /Count %d >>" % pages,
        3: b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
        4: b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    }
    for i in range(pages):
        objects[10 + i] = b"<< /Type /Page /Parent 2 0 R /Contents 3 0 R /Resources << /Font << /F1 4 0 R >> >> >>"
    out = bytearray(b"%PDF-1.7\n")
    offsets = {}
    for num in sorted(objects):
        offsets[num] = len(out)
        out += b"%d 0 obj\n" % num + objects[num] + b"\nendobj\n"
    size = max(objects) + 1
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % size
    for num in range(1, size):
        out += b"%010d 00000 n \n" % offsets[num] if num in offsets else b"0000000000 65535 f \n"
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (size, xref)
    return bytes(out)


def server_pid(root: str) -> int | None:
    """The `toolgate mcp` process serving `root` (found through /proc)."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            argv = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"mcp" in argv and root.encode() in argv:
            return int(entry)
    return None


def workers_of(parent: int) -> set[int]:
    """Live `pdf-worker` children of `parent`."""
    found = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            argv = Path(f"/proc/{entry}/cmdline").read_bytes()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if fields[0] not in ("Z", "X") and int(fields[1]) == parent and b"pdf-worker" in argv:
            found.add(int(entry))
    return found


async def eventually(cond, limit_s: float = 60.0) -> bool:
    """Polls `cond` until it holds; False only when it never did (a hang, not a speed)."""
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        if cond():
            return True
        await asyncio.sleep(0.02)
    return False


async def engine_session(binary: str, mode: str) -> None:
    """Concurrency, progress and cancellation, as a client sees them."""
    root = tempfile.mkdtemp(prefix="toolgate-sdk-")
    try:
        Path(root, "busy.pdf").write_bytes(busy_pdf())
        Path(root, "light.pdf").write_bytes(busy_pdf(ops=300))
        # More work than the extractor's per-call budget allows: it runs until the budget ends it.
        Path(root, "slow.pdf").write_bytes(busy_pdf(ops=20000))
        shutil.copy(ROOT / "pypdf-minimal-document.pdf", Path(root, "one.pdf"))
        async with connect(binary, root, mode, ("--max-concurrent-calls", "3")) as client:
            busy = {"path": "busy.pdf"}
            calls = [asyncio.create_task(client.call_tool("extract", busy)) for _ in range(3)]
            await asyncio.sleep(0)
            listed = await client.list_tools()
            running = sum(1 for c in calls if not c.done())
            check(f"{mode}: tools/list answered while extractions run", len(listed.tools) == 2 and running > 0, f"{running} still running")
            done = await asyncio.gather(*calls)
            check(
                f"{mode}: three concurrent extractions complete",
                all(not r.is_error and (r.structured_content or {}).get("pageCount") == BUSY_PAGES for r in done),
                str([r.is_error for r in done]),
            )

            heard: list[tuple[float, float | None]] = []

            async def on_progress(progress: float, total: float | None, message: str | None) -> None:
                heard.append((progress, total))

            # Over HTTP the answer after streamed progress is one server-sent event, which the
            # SDK bounds to 1 MiB: the progress call reads a lighter file there.
            progress_file = {"path": "light.pdf"} if HTTP else busy
            res = await client.call_tool("extract", progress_file, progress_callback=on_progress)
            at_result = len(heard)
            await asyncio.sleep(0.3)
            check(f"{mode}: progress: extraction completes", not res.is_error)
            check(
                f"{mode}: progress: pages done out of {BUSY_PAGES}, in order",
                at_result > 0
                and all(t == BUSY_PAGES for _, t in heard)
                and all(a[0] <= b[0] for a, b in zip(heard, heard[1:])),
                str(heard[:5]),
            )
            check(f"{mode}: progress: nothing after the result", len(heard) == at_result, f"{at_result} then {len(heard)}")

            pid = server_pid(root)
            check(f"{mode}: cancel: found the server process", pid is not None)
            if pid is not None:
                ready = await eventually(lambda: len(workers_of(pid)) == 1)
                spare = workers_of(pid)
                check(f"{mode}: cancel: a worker waits, started ahead of need", ready, str(spare))
                try:
                    await client.call_tool("extract", {"path": "slow.pdf"}, read_timeout_seconds=0.05)
                    check(f"{mode}: cancel: the client's timeout fired", False, "the call finished first")
                except Exception:  # the SDK's timeout error; it sends notifications/cancelled
                    check(f"{mode}: cancel: the client's timeout fired", True)
                killed = await eventually(lambda: not (spare & workers_of(pid)))
                check(f"{mode}: cancel: the call's worker was killed", killed, str(workers_of(pid)))
            res = await client.call_tool("get_metadata", {"path": "one.pdf"})
            check(f"{mode}: cancel: the next call is served", not res.is_error)
    finally:
        shutil.rmtree(root, ignore_errors=True)


async def main() -> int:
    if len(sys.argv) not in (2, 3) or sys.argv[2:] not in ([], ["--http"]):
        print(__doc__, file=sys.stderr)
        return 2
    binary = str(Path(sys.argv[1]).resolve())
    for mode in ("legacy", "auto"):
        try:
            await asyncio.wait_for(session(binary, mode), timeout=120)
        except Exception as e:  # a failed connect or call is a failed check, not a crash
            check(f"{mode}: session completed", False, f"{type(e).__name__}: {e}")
        try:
            await asyncio.wait_for(engine_session(binary, mode), timeout=300)
        except Exception as e:
            check(f"{mode}: engine session completed", False, f"{type(e).__name__}: {e}")
    return tally(" (Streamable HTTP)" if HTTP else "")


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
