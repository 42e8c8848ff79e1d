#!/usr/bin/env python3
"""`toolgate mcp --allow-remote` with the official MCP Python SDK (PyPI `mcp` 2.3.0).

Usage: python tests/clients/python_sdk_remote.py PATH/TO/toolgate

Run it where only loopback exists, so that no packet can leave the machine even if the
fetcher were wrong (CI: `unshare -rn sh -c 'ip link set lo up && python ...'`). It refuses
to run when a non-loopback route exists.

A loopback HTTP origin (127.0.0.1, a port of its own) serves a real PDF and counts requests.
In each SDK connect mode (legacy handshake, auto):
  * with `--allow-remote --allow-http --allow 127.0.0.1:PORT`, the SDK extracts the PDF from
    the origin's URL (the text equals the same file's from disk), reads its metadata, and
    hears byte progress; the tool description says remote fetch is on;
  * 127.0.0.2, the cloud metadata address, a redirect to 127.0.0.2 and a name are refused
    with their ssrf.* kind, and 127.0.0.2 receives 0 connections;
  * without the allow entry the same URL is refused (ssrf.loopback) and 0 requests reach the
    origin; without --allow-remote it is refused the same way.

Prints one line per check and a final `N passed, M failed`; exits 1 if any check failed.
"""

from __future__ import annotations

import asyncio
import http.server
import json
import socket
import sys
import tempfile
import threading
from pathlib import Path

from checks import check, tally
from mcp import Client, StdioServerParameters

REPO = Path(__file__).resolve().parents[2]
PDF_NAME = "pypdf-pdflatex-4-pages.pdf"
PDF = (REPO / "corpus" / "pdf" / PDF_NAME).read_bytes()



def error_kind(result) -> str | None:
    try:
        return json.loads(result.content[0].text)["error"]["kind"]
    except (ValueError, KeyError, IndexError, AttributeError, TypeError):
        return None


def only_loopback() -> bool:
    """True when no address outside loopback is reachable (a connect fails at once)."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.connect(("192.0.2.1", 9))  # TEST-NET-1: never answers; only the route matters
        return False
    except OSError:
        return True
    finally:
        s.close()


class Origin:
    """A loopback HTTP origin on `host`: /doc.pdf is the PDF, /hop redirects to `redirect`."""

    def __init__(self, host: str, redirect: str | None = None) -> None:
        self.requests: list[str] = []
        origin = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 (http.server's name)
                origin.requests.append(self.path)
                if self.path == "/hop" and redirect:
                    self.send_response(302)
                    self.send_header("Location", redirect)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                self.send_response(200)
                self.send_header("Content-Type", "application/pdf")
                self.send_header("Content-Length", str(len(PDF)))
                self.end_headers()
                self.wfile.write(PDF)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer((host, 0), Handler)
        self.port = self.server.server_address[1]
        self.base = f"http://{host}:{self.port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


async def session(binary: str, mode: str, root: str, origin: Origin, internal: Origin) -> None:
    allowed = StdioServerParameters(
        command=binary,
        args=["mcp", "--root", root, "--allow-remote", "--allow-http", "--allow", f"127.0.0.1:{origin.port}"],
    )
    url = f"{origin.base}/doc.pdf"
    async with Client(allowed, mode=mode) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        desc = tools["extract"].input_schema["properties"]["path"]["description"]
        check(f"{mode}: the path description says remote fetch is on", "REMOTE FETCH IS ON" in desc, desc[:120])
        check(
            f"{mode}: the tools are open-world with remote fetch on",
            all(t.annotations is not None and t.annotations.open_world_hint is True for t in tools.values()),
        )
        before = len(origin.requests)
        progress: list[tuple[float, float | None]] = []

        async def on_progress(p: float, total: float | None, message: str | None) -> None:
            progress.append((p, total))

        remote = await client.call_tool("extract", {"path": url}, progress_callback=on_progress)
        local = await client.call_tool("extract", {"path": PDF_NAME})
        ok = check(f"{mode}: extract from the allowed loopback origin", not remote.is_error,
                   remote.content[0].text[:200] if remote.content else "")
        if ok:
            check(f"{mode}: the fetched PDF extracts as the file from disk",
                  remote.structured_content == local.structured_content)
            check(f"{mode}: one request reached the origin", len(origin.requests) == before + 1,
                  str(origin.requests))
            values = [p for p, _ in progress]
            check(f"{mode}: byte progress heard, only growing",
                  bool(values) and values == sorted(set(values)) and values[0] <= len(PDF) <= values[-1],
                  str(progress))
        meta = await client.call_tool("get_metadata", {"path": url})
        check(f"{mode}: get_metadata from the origin", not meta.is_error
              and (meta.structured_content or {}).get("pageCount") == 4, str(meta.structured_content)[:200])

        for label, path, want in [
            ("127.0.0.2 (not allowed)", f"{internal.base}/doc.pdf", "ssrf.loopback"),
            ("the cloud metadata address", "http://169.254.169.254/latest/meta-data/", "ssrf.cloud_metadata"),
            ("the metadata address in IPv4-mapped IPv6", "http://[::ffff:a9fe:a9fe]/", "ssrf.cloud_metadata"),
            ("a redirect to 127.0.0.2", f"{origin.base}/hop", "ssrf.loopback"),
            ("localhost", f"http://localhost:{origin.port}/doc.pdf", "ssrf.localhost_name"),
        ]:
            res = await client.call_tool("extract", {"path": path})
            kind = error_kind(res)
            check(f"{mode}: {label} -> isError {want}", res.is_error and kind == want, f"kind={kind}")
        check(f"{mode}: 127.0.0.2 received no connection", internal.requests == [], str(internal.requests))

    for label, args in [
        ("without the allow entry", ["--allow-remote", "--allow-http"]),
        ("without --allow-remote", []),
    ]:
        params = StdioServerParameters(command=binary, args=["mcp", "--root", root, *args])
        before = len(origin.requests)
        async with Client(params, mode=mode) as client:
            res = await client.call_tool("extract", {"path": url})
            kind = error_kind(res)
            check(f"{mode}: {label}: refused ssrf.loopback", res.is_error and kind == "ssrf.loopback", f"kind={kind}")
        check(f"{mode}: {label}: 0 requests reached the origin", len(origin.requests) == before,
              str(origin.requests[before:]))


async def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    if not only_loopback():
        print("refusing to run: a non-loopback route exists (run under `unshare -rn`)", file=sys.stderr)
        return 2
    binary = sys.argv[1]
    internal = Origin("127.0.0.2")
    origin = Origin("127.0.0.1", redirect=f"{internal.base}/doc.pdf")
    with tempfile.TemporaryDirectory() as root:
        (Path(root) / PDF_NAME).write_bytes(PDF)
        for mode in ("legacy", "auto"):
            await session(binary, mode, root, origin, internal)
    return tally()


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
