#!/usr/bin/env python3
"""Writes cpython_codecs.tsv beside this file: how CPython reads byte
sequences in the three codecs `gate::pycodec` models (cp850, cp932,
gb18030), the oracle of `pycodec`'s `cpython_oracle` test.

Source: CPython's own codecs (run with CPython 3.11; the file was made with
3.11.7). Regenerate: `python3 tests/data/pycodec/cpython_codecs.py`.

Rows: codec, the bytes in hex, CPython's strict decode (code points in hex
joined by `.`, `-` when it raises, empty for no character), then its
errors="replace" decode. Kept: every one-byte sequence; every two-byte
sequence whose reading holds a character the screen calls hidden (format,
private use, unassigned, controls but tab/LF/CR, U+2028/9) one in
HIDDEN_EVERY (plus all of them in the lead bytes of the codes `pycodec`
overrides); and one in OTHER_EVERY of the others. Deterministic.
"""
import pathlib
import unicodedata

CODECS = ["cp850", "cp932", "gb18030"]
HIDDEN_EVERY = 13
OTHER_EVERY = 397
OVERRIDE_LEADS = {"gb18030": {0xA3, 0xA6, 0xA8, 0xFE}, "cp932": set(), "cp850": set()}


def hidden(ch):
    if ch in "\t\n\r":
        return False
    return unicodedata.category(ch) in ("Cf", "Co", "Cn", "Cc", "Zl", "Zp")


def cps(s):
    return ".".join("%X" % ord(c) for c in s)


def row(codec, b):
    try:
        strict = cps(b.decode(codec))
    except UnicodeDecodeError:
        strict = "-"
    lossy = b.decode(codec, "replace")
    return "%s\t%s\t%s\t%s" % (codec, b.hex().upper(), strict, cps(lossy)), lossy


def main():
    out = []
    for codec in CODECS:
        for i in range(256):
            out.append(row(codec, bytes([i]))[0])
        n_hidden = n_other = 0
        for lead in range(0x80, 0x100):
            for trail in range(256):
                line, lossy = row(codec, bytes([lead, trail]))
                if any(hidden(c) for c in lossy if c != "\ufffd"):
                    n_hidden += 1
                    if lead in OVERRIDE_LEADS[codec] or n_hidden % HIDDEN_EVERY == 0:
                        out.append(line)
                else:
                    n_other += 1
                    if n_other % OTHER_EVERY == 0:
                        out.append(line)
    here = pathlib.Path(__file__).parent
    (here / "cpython_codecs.tsv").write_text("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
