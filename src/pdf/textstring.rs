//! Decoding of PDF text strings (ISO 32000-1 §7.9.2.2): UTF-16BE with a byte
//! order mark, UTF-8 with a BOM (PDF 2.0), else PDFDocEncoding (Annex D.2).
//! Decoding is lossy (U+FFFD for what cannot be decoded), never an error.

/// PDFDocEncoding code points 0x18..=0x1F, where it differs from Latin-1.
const LOW: [char; 8] = [
    '\u{02D8}', '\u{02C7}', '\u{02C6}', '\u{02D9}', '\u{02DD}', '\u{02DB}', '\u{02DA}', '\u{02DC}',
];

/// PDFDocEncoding code points 0x80..=0xA0 (0x9F is undefined).
const HIGH: [char; 33] = [
    '\u{2022}', '\u{2020}', '\u{2021}', '\u{2026}', '\u{2014}', '\u{2013}', '\u{0192}', '\u{2044}',
    '\u{2039}', '\u{203A}', '\u{2212}', '\u{2030}', '\u{201E}', '\u{201C}', '\u{201D}', '\u{2018}',
    '\u{2019}', '\u{201A}', '\u{2122}', '\u{FB01}', '\u{FB02}', '\u{0141}', '\u{0152}', '\u{0160}',
    '\u{0178}', '\u{017D}', '\u{0131}', '\u{0142}', '\u{0153}', '\u{0161}', '\u{017E}', '\u{FFFD}',
    '\u{20AC}',
];

/// Decodes one PDFDocEncoding byte.
fn pdf_doc_char(b: u8) -> char {
    match b {
        0x18..=0x1F => LOW
            .get(usize::from(b - 0x18))
            .copied()
            .unwrap_or('\u{FFFD}'),
        0x80..=0xA0 => HIGH
            .get(usize::from(b - 0x80))
            .copied()
            .unwrap_or('\u{FFFD}'),
        0x7F | 0xAD => '\u{FFFD}',
        _ => char::from(b),
    }
}

/// Decodes a text string's bytes, keeping at most `max_chars` characters.
pub fn decode_text_string(bytes: &[u8], max_chars: usize) -> String {
    let units = |rest: &[u8], be: bool| -> String {
        let it = rest.chunks_exact(2).map(|c| match c {
            [a, b] if be => u16::from_be_bytes([*a, *b]),
            [a, b] => u16::from_le_bytes([*a, *b]),
            _ => 0xFFFD,
        });
        char::decode_utf16(it)
            .map(|r| r.unwrap_or('\u{FFFD}'))
            .take(max_chars)
            .collect()
    };
    match bytes {
        [0xFE, 0xFF, rest @ ..] => units(rest, true),
        [0xFF, 0xFE, rest @ ..] => units(rest, false),
        [0xEF, 0xBB, 0xBF, rest @ ..] => String::from_utf8_lossy(rest)
            .chars()
            .take(max_chars)
            .collect(),
        _ => bytes
            .iter()
            .take(max_chars)
            .map(|&b| pdf_doc_char(b))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::decode_text_string as d;

    #[test]
    fn encodings() {
        assert_eq!(d(b"abc", 10), "abc");
        assert_eq!(d(b"\xfe\xff\x00A\x00\xe9", 10), "A\u{e9}");
        assert_eq!(d(b"\xfe\xff\xd8\x00", 10), "\u{FFFD}");
        assert_eq!(d(b"\x84\xa0\xe9\x18", 10), "\u{2014}\u{20AC}\u{e9}\u{02D8}");
        assert_eq!(d(b"\xef\xbb\xbfh\xc3\xa9", 10), "h\u{e9}");
        assert_eq!(d(b"abcdef", 3), "abc");
    }
}
