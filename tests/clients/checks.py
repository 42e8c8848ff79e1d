"""Shared by the Python client scripts here: one line per check, and the final tally.

`check(name, ok, detail)` prints `ok  NAME` or `FAIL NAME: DETAIL` and records it;
`tally(suffix)` prints `N passed, M failed` (plus `suffix`) and returns the exit code
(1 if any check failed).
"""

from __future__ import annotations

results: list[tuple[str, bool, str]] = []


def check(name: str, ok: bool, detail: str = "") -> bool:
    results.append((name, ok, detail))
    print(f"{'ok  ' if ok else 'FAIL'} {name}{': ' + detail if detail and not ok else ''}", flush=True)
    return ok


def tally(suffix: str = "") -> int:
    failed = sum(1 for _, ok, _ in results if not ok)
    print(f"{len(results) - failed} passed, {failed} failed{suffix}")
    return 1 if failed else 0
