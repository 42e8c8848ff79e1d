#!/usr/bin/env python3
"""Builds the CID -> Unicode tables of the four Adobe CJK character collections
from Adobe's `Adobe-<Ordering>-UCS2` CMaps (adobe-type-tools/cmap-resources,
BSD-3-Clause; Debian ships them in poppler-data under /usr/share/poppler/cMap).

Output per collection, `<Ordering>.bin`: little-endian u16 per CID (index = CID,
0 = unmapped) for CIDs whose text is one BMP scalar. CIDs mapped to a scalar
above U+FFFF or to several scalars are left at 0 (rare: they are supplementary
ideographs and compatibility sequences).

Usage: generate.py [CMAP_DIR]   (default /usr/share/poppler/cMap)
"""
import os
import re
import sys

SRC = sys.argv[1] if len(sys.argv) > 1 else '/usr/share/poppler/cMap'
OUT = os.path.dirname(os.path.abspath(__file__))
HEX = re.compile(rb'<([0-9A-Fa-f]+)>')


def scalars(hexstr):
    b = bytes.fromhex(hexstr.decode())
    return b.decode('utf-16-be', 'replace')


def parse(path):
    data = open(path, 'rb').read()
    m = {}
    for block in re.findall(rb'beginbfchar(.*?)endbfchar', data, re.S):
        toks = HEX.findall(block)
        for src, dst in zip(toks[0::2], toks[1::2]):
            m[int(src, 16)] = scalars(dst)
    for block in re.findall(rb'beginbfrange(.*?)endbfrange', data, re.S):
        for line in block.splitlines():
            line = line.strip()
            if not line:
                continue
            if b'[' in line:
                head, arr = line.split(b'[', 1)
                lo, hi = [int(t, 16) for t in HEX.findall(head)]
                for i, dst in enumerate(HEX.findall(arr)):
                    m[lo + i] = scalars(dst)
            else:
                lo, hi, dst = HEX.findall(line)
                lo, hi = int(lo, 16), int(hi, 16)
                base = bytes.fromhex(dst.decode())
                start = int.from_bytes(base, 'big')
                for i in range(hi - lo + 1):
                    m[lo + i] = (start + i).to_bytes(len(base), 'big').decode('utf-16-be', 'replace')
    return m


for ordering in ['Japan1', 'GB1', 'CNS1', 'Korea1']:
    m = parse(os.path.join(SRC, f'Adobe-{ordering}', f'Adobe-{ordering}-UCS2'))
    top = max(m)
    table = bytearray(2 * (top + 1))
    for cid, text in m.items():
        if len(text) == 1 and ord(text) <= 0xFFFF and text != '\ufffd':
            table[2 * cid:2 * cid + 2] = ord(text).to_bytes(2, 'little')
    open(os.path.join(OUT, f'{ordering}.bin'), 'wb').write(table)
    print(ordering, top + 1, 'CIDs', sum(1 for c in m.values() if len(c) == 1), 'mapped')
