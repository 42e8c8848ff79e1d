#!/usr/bin/env python3
"""Compare the line coverage of two fuzz targets over some source directories.

Usage (from the repository root, after `cargo +nightly fuzz coverage -a -s none TARGET corpus/TARGET`
for both targets):

    python3 fuzz/coverage_diff.py TARGET_A TARGET_B [DIR...]   (DIR default: src/json src/rpc src/net src/pdf)

Runs `llvm-cov export -format=text` (nightly's llvm-tools) over each target's coverage binary
(target/<triple>/coverage/<triple>/release/TARGET) and profile
(fuzz/coverage/TARGET/coverage.profdata), then prints, restricted to DIR (subdirectories
included): lines and regions covered per directory and target (the numbers of `llvm-cov
report`), the functions with a non-zero count in one profile only (demangled by `c++filt`,
crate hashes dropped, generic instantiations merged), and the lines executed in one profile
only, as ranges per file with their first source line. A line counts as executed as `llvm-cov`
counts it (its segments, the wrapped segment and gap regions as LLVM's LineCoverageStats).
"""
import glob
import json
import os
import re
import subprocess
import sys
from collections import defaultdict

TRIPLE = "x86_64-unknown-linux-gnu"


def llvm_cov():
    found = sorted(glob.glob(os.path.expanduser("~/.rustup/toolchains/nightly*/lib/rustlib/*/bin/llvm-cov")))
    if not found:
        sys.exit("coverage_diff.py: no llvm-cov; rustup component add llvm-tools --toolchain nightly")
    return found[-1]


def export(target, root):
    # `cargo fuzz coverage` builds under the repository's target/ (older versions: fuzz/target/).
    binary = next((b for b in (os.path.join(root, d, TRIPLE, "coverage", TRIPLE, "release", target)
                               for d in ("target", "fuzz/target")) if os.path.exists(b)),
                  os.path.join(root, "target", TRIPLE, "coverage", TRIPLE, "release", target))
    profile = os.path.join(root, "fuzz/coverage", target, "coverage.profdata")
    for p in (binary, profile):
        if not os.path.exists(p):
            sys.exit(f"coverage_diff.py: {p} missing; run cargo +nightly fuzz coverage first")
    out = subprocess.run([llvm_cov(), "export", "-format=text", binary, "-instr-profile=" + profile],
                         check=True, capture_output=True).stdout
    return json.loads(out)["data"][0]


def rel(path, root, dirs):
    r = os.path.relpath(path, root)
    for d in dirs:
        if r == d or r.startswith(d.rstrip("/") + "/"):
            return r, d
    return None, None


def executed_lines(segments):
    """Line -> executed (bool), for the mapped lines of one file, as LLVM's LineCoverageStats."""
    # segment: [line, col, count, has_count, is_region_entry, is_gap_region]
    lines = {}
    by_line = defaultdict(list)
    for s in segments:
        by_line[s[0]].append(s)
    if not segments:
        return lines
    wrapped = None
    last = max(s[0] for s in segments)
    for line in range(segments[0][0], last + 1):
        here = by_line.get(line, [])
        starts = [s for s in here if not s[5] and s[3] and s[4]]
        skipped = bool(here) and not here[0][3] and here[0][4]
        mapped = not skipped and ((wrapped is not None and wrapped[3]) or bool(starts))
        if mapped:
            count = wrapped[2] if wrapped is not None else 0
            for s in starts:
                count = max(count, s[2])
            lines[line] = count > 0
        if here:
            wrapped = here[-1]
    return lines


def demangle(names):
    if not names:
        return {}
    out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True,
                         check=True).stdout.split("\n")
    return {n: re.sub(r"\[[0-9a-f]{16}\]", "", d) for n, d in zip(names, out)}


def load(target, root, dirs):
    data = export(target, root)
    per_dir = defaultdict(lambda: [0, 0, 0, 0])  # lines covered, lines, regions covered, regions
    lines = {}
    for f in data["files"]:
        r, d = rel(f["filename"], root, dirs)
        if r is None:
            continue
        s = f["summary"]
        acc = per_dir[d]
        acc[0] += s["lines"]["covered"]
        acc[1] += s["lines"]["count"]
        acc[2] += s["regions"]["covered"]
        acc[3] += s["regions"]["count"]
        lines[r] = executed_lines(f["segments"])
    funcs = defaultdict(int)
    where = {}
    raw = []
    for fn in data["functions"]:
        r, _ = rel(fn["filenames"][0], root, dirs)
        if r is None:
            continue
        raw.append((fn["name"], fn["count"], r, fn["regions"][0][0] if fn["regions"] else 0))
    names = demangle(sorted({n for n, _, _, _ in raw}))
    for n, count, r, line in raw:
        d = names.get(n, n)
        funcs[d] = max(funcs[d], count)
        where.setdefault(d, f"{r}:{line}")
    return per_dir, lines, funcs, where


def ranges(nums):
    nums = sorted(nums)
    out = []
    for n in nums:
        if out and n == out[-1][1] + 1:
            out[-1][1] = n
        else:
            out.append([n, n])
    return out


def source_line(root, path, line):
    try:
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
            for i, text in enumerate(f, 1):
                if i == line:
                    return text.strip()
    except OSError:
        pass
    return ""


def main(argv):
    if len(argv) < 2 or argv[0] in ("-h", "--help"):
        print(__doc__.strip().split("\n\n")[1])
        return 2
    a, b = argv[0], argv[1]
    dirs = argv[2:] or ["src/json", "src/rpc", "src/net", "src/pdf"]
    root = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
    A, B = load(a, root, dirs), load(b, root, dirs)

    print("| directory | target | lines | regions |")
    print("|---|---|---|---|")
    for d in dirs:
        for t, (per_dir, _, _, _) in ((a, A), (b, B)):
            lc, ln, rc, rn = per_dir.get(d, [0, 0, 0, 0])
            pl = f"{100 * lc / ln:.1f}%" if ln else "-"
            pr = f"{100 * rc / rn:.1f}%" if rn else "-"
            print(f"| `{d}` | `{t}` | {lc}/{ln} ({pl}) | {rc}/{rn} ({pr}) |")

    for (t, X), (u, Y) in (((a, A), (b, B)), ((b, B), (a, A))):
        fx, fy, wx = X[2], Y[2], X[3]
        only = sorted((wx[n], n) for n, c in fx.items() if c > 0 and fy.get(n, 0) == 0)
        print(f"\n## functions executed by {t} only ({len(only)})\n")
        for w, n in only:
            print(f"- `{n}` ({w})")
        print(f"\n## lines executed by {t} only\n")
        total = 0
        for path in sorted(X[1]):
            lx, ly = X[1][path], Y[1].get(path, {})
            mine = [l for l, e in lx.items() if e and not ly.get(l, False)]
            if not mine:
                continue
            total += len(mine)
            spans = ranges(mine)
            print(f"- {path}: {len(mine)} lines")
            for s, e in spans:
                span = f"{s}" if s == e else f"{s}-{e}"
                print(f"    {span}: {source_line(root, path, s)[:100]}")
        print(f"\n({total} lines in all)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
