//! Python's codecs where they read bytes otherwise than the WHATWG
//! encoding (as `encoding_rs` decodes it) the gateway reads their label
//! with: the byte sequences a Python client decodes to a hidden character
//! that a browser reads as a visible one or not at all. Found by decoding
//! every one- and two-byte sequence (and every four-byte one of GB18030)
//! with CPython 3.11's codecs and with `encoding_rs` (attack s67, B-F1,
//! B-F2; the sweep in `docs/gate.md`):
//! * `cp850`: 0xF0 is U+00AD SOFT HYPHEN (the gateway reads the DOS code
//!   pages as IBM866, whose 0xF0 is `Ё`);
//! * `cp932` (`ms932`, `mskanji`): single bytes 0xA0, 0xFD, 0xFE and 0xFF
//!   are U+F8F0–U+F8F3, private use, where Shift_JIS has none;
//! * `gb18030`: CPython's codec is the GB18030-2000 mapping: twenty
//!   two-byte codes are private-use characters where `encoding_rs`
//!   (the Encoding Standard, GB18030-2022's mapping) reads visible ones:
//!   nineteen 2022 moved out of the private-use area (`A6D9` U+FE10,
//!   `A3A0` U+3000, ...) and `A8BC`, U+E7C7 in 2000, U+1E3F since 2005.

use encoding_rs::Encoding;

/// A Python codec as a WHATWG encoding with some codes read otherwise.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct PyCodec {
    /// The encoding that reads every other code as Python does.
    base: &'static Encoding,
    /// How many bytes the code at a position takes.
    unit: Unit,
    /// Codes (whole, as [`Unit`] cuts them) and the character Python
    /// reads each as.
    codes: &'static [(&'static [u8], char)],
}

/// How an encoding cuts bytes into codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unit {
    /// One byte a code.
    Single,
    /// Shift_JIS: a lead byte 0x81–0x9F or 0xE0–0xFC and its trail byte;
    /// any other byte alone.
    ShiftJis,
    /// GB18030: a lead byte 0x81–0xFE with a trail byte, or with three
    /// when a digit follows it; any other byte alone.
    Gb18030,
}

impl Unit {
    /// Bytes of the code `rest` starts with (at least one, at most all).
    /// A lead byte whose next bytes make no code is a code of one byte
    /// (a decoder reads on after it, as Python's `errors="replace"` and
    /// the Encoding Standard's decoders do).
    fn len(self, rest: &[u8]) -> usize {
        let n = match (self, rest) {
            (Unit::ShiftJis, [0x81..=0x9F | 0xE0..=0xFC, 0x40..=0x7E | 0x80..=0xFC, ..]) => 2,
            (Unit::Gb18030, [0x81..=0xFE, 0x30..=0x39, 0x81..=0xFE, 0x30..=0x39, ..]) => 4,
            (Unit::Gb18030, [0x81..=0xFE, 0x40..=0x7E | 0x80..=0xFE, ..]) => 2,
            _ => 1,
        };
        n.min(rest.len()).max(1)
    }
}

/// Python's `cp850` (IBM850, DOS Latin 1).
pub(crate) static CP850: PyCodec = PyCodec {
    base: encoding_rs::IBM866,
    unit: Unit::Single,
    codes: &[(b"\xF0", '\u{AD}')],
};

/// Python's `cp932` (Microsoft's Shift_JIS).
pub(crate) static CP932: PyCodec = PyCodec {
    base: encoding_rs::SHIFT_JIS,
    unit: Unit::ShiftJis,
    codes: &[
        (b"\xA0", '\u{F8F0}'),
        (b"\xFD", '\u{F8F1}'),
        (b"\xFE", '\u{F8F2}'),
        (b"\xFF", '\u{F8F3}'),
    ],
};

/// Python's `gb18030` (CPython's is the GB18030-2000 mapping).
pub(crate) static GB18030: PyCodec = PyCodec {
    base: encoding_rs::GB18030,
    unit: Unit::Gb18030,
    codes: &[
        (b"\xA3\xA0", '\u{E5E5}'),
        (b"\xA6\xD9", '\u{E78D}'),
        (b"\xA6\xDA", '\u{E78E}'),
        (b"\xA6\xDB", '\u{E78F}'),
        (b"\xA6\xDC", '\u{E790}'),
        (b"\xA6\xDD", '\u{E791}'),
        (b"\xA6\xDE", '\u{E792}'),
        (b"\xA6\xDF", '\u{E793}'),
        (b"\xA6\xEC", '\u{E794}'),
        (b"\xA6\xED", '\u{E795}'),
        (b"\xA6\xF3", '\u{E796}'),
        (b"\xA8\xBC", '\u{E7C7}'),
        (b"\xFE\x59", '\u{E81E}'),
        (b"\xFE\x61", '\u{E826}'),
        (b"\xFE\x66", '\u{E82B}'),
        (b"\xFE\x67", '\u{E82C}'),
        (b"\xFE\x6D", '\u{E832}'),
        (b"\xFE\x7E", '\u{E843}'),
        (b"\xFE\x90", '\u{E854}'),
        (b"\xFE\xA0", '\u{E864}'),
    ],
};

/// The codec Python reads a label in (by its letters and digits, lower
/// case) where it differs from the label's WHATWG encoding, `None` for the
/// others.
pub(crate) fn for_key(key: &str) -> Option<&'static PyCodec> {
    Some(match key {
        "cp850" | "850" | "ibm850" | "cspc850multilingual" => &CP850,
        "cp932" | "ms932" | "mskanji" => &CP932,
        "gb18030" | "gb180302000" => &GB18030,
        _ => None?,
    })
}

impl PyCodec {
    /// `body` as Python reads it, `None` when it is no text in the codec:
    /// each run between the codes read otherwise decoded by the base
    /// encoding. One pass.
    pub(crate) fn decode(&self, body: &[u8]) -> Option<String> {
        self.read(body, false)
    }

    /// `body` as Python reads it with `errors="replace"`: as
    /// [`PyCodec::decode`], each malformed sequence U+FFFD; a code of
    /// several bytes that maps to nothing is U+FFFD for its first byte,
    /// read on from the second, as CPython's multibyte codecs do.
    pub(crate) fn decode_lossy(&self, body: &[u8]) -> String {
        self.read(body, true).unwrap_or_default()
    }

    /// [`PyCodec::decode`], or with malformed sequences replaced
    /// (`lossy`, never `None`).
    fn read(&self, body: &[u8], lossy: bool) -> Option<String> {
        let base = |run: &[u8]| {
            if lossy {
                Some(self.base.decode_without_bom_handling(run).0.into_owned())
            } else {
                self.base
                    .decode_without_bom_handling_and_without_replacement(run)
                    .map(std::borrow::Cow::into_owned)
            }
        };
        let mut out = String::with_capacity(body.len());
        let (mut run, mut at) = (0, 0);
        while let Some(rest) = body.get(at..).filter(|r| !r.is_empty()) {
            let n = self.unit.len(rest);
            let code = rest.get(..n).unwrap_or(rest);
            if let Some(&(_, c)) = self.codes.iter().find(|(b, _)| *b == code) {
                out.push_str(&base(body.get(run..at)?)?);
                out.push(c);
                run = at + n;
            } else if n > 1
                && self
                    .base
                    .decode_without_bom_handling_and_without_replacement(code)
                    .is_none()
            {
                // A code of several bytes that maps to nothing: CPython's
                // multibyte codecs fail on its first byte alone and read on
                // from the second (`cp932` `86 80` is U+FFFD U+0080, and
                // `gb18030` `84 31 D3 36 9C 33` U+FFFD `1` then a tag
                // character), where the Encoding Standard's decoders take
                // the whole code (review of s68).
                out.push_str(&base(body.get(run..at)?)?);
                if !lossy {
                    return None;
                }
                out.push(char::REPLACEMENT_CHARACTER);
                at += 1;
                run = at;
                continue;
            }
            at += n;
        }
        out.push_str(&base(body.get(run..)?)?);
        Some(out)
    }

    /// The codes read otherwise and what Python reads each as.
    #[cfg(any(test, feature = "harness"))]
    pub(crate) fn codes(&self) -> &'static [(&'static [u8], char)] {
        self.codes
    }

    /// `text` in the codec: the base encoding's bytes (a character it
    /// lacks as a numeric character reference, as `encoding_rs` writes
    /// it); the characters read otherwise are hidden ones, which cleaned
    /// text has lost.
    pub(crate) fn encode(&self, text: &str) -> Vec<u8> {
        self.base.encode(text).0.into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_read_otherwise_only_where_a_code_starts() {
        assert_eq!(
            CP850.decode(b"ig\xf0no\xf0re").as_deref(),
            Some("ig\u{ad}no\u{ad}re")
        );
        assert_eq!(
            CP932.decode(b"a\xfdb\xa0").as_deref(),
            Some("a\u{f8f1}b\u{f8f0}")
        );
        // 0xA0 as the trail byte of a two-byte code is that code's.
        assert_eq!(CP932.decode(b"\x81\xa0").as_deref(), Some("\u{25a1}"));
        assert_eq!(
            GB18030.decode(b"ok\xa6\xd9ok").as_deref(),
            Some("ok\u{e78d}ok")
        );
        assert_eq!(GB18030.decode(b"\xa3\xa0").as_deref(), Some("\u{e5e5}"));
        // A6D9 inside a four-byte code, or as a trail and the next lead.
        assert_eq!(
            GB18030.decode(b"\x84\x31\x82\x36").as_deref(),
            encoding_rs::GB18030
                .decode_without_bom_handling_and_without_replacement(b"\x84\x31\x82\x36")
                .as_deref()
        );
        assert_eq!(GB18030.decode(b"\xb0\xa6\xd9").as_deref(), None);
        assert_eq!(
            GB18030.decode(b"\xb0\xa1\xa6\xd9").as_deref(),
            Some("\u{554a}\u{e78d}")
        );
        assert_eq!(GB18030.decode(b"ok\xa6"), None);
        // A code of several bytes that maps to nothing: one byte of junk,
        // read on from the next, as CPython reads it.
        assert_eq!(CP932.decode_lossy(b"\x86\x80"), "\u{fffd}\u{80}");
        assert_eq!(CP932.decode_lossy(b"\x86\xa0"), "\u{fffd}\u{f8f0}");
        assert_eq!(
            GB18030.decode_lossy(b"\x84\x31\xd3\x36\x9c\x33"),
            "\u{fffd}1\u{e0041}"
        );
        assert_eq!(GB18030.decode(b"\x84\x31\xd3\x36\x9c\x33"), None);
        assert_eq!(for_key("cp850"), Some(&CP850));
        assert_eq!(for_key("shiftjis"), None);
    }
    /// A row of `tests/data/pycodec/cpython_codecs.tsv`: the bytes, and
    /// CPython's strict (`None` when it raises) and `errors="replace"`
    /// readings.
    type Row = (Vec<u8>, Option<String>, String);

    fn code_points(s: &str) -> String {
        s.split('.')
            .filter(|p| !p.is_empty())
            .map(|p| char::from_u32(u32::from_str_radix(p, 16).unwrap()).unwrap())
            .collect()
    }

    fn rows() -> Vec<(&'static str, Row)> {
        include_str!("../../tests/data/pycodec/cpython_codecs.tsv")
            .lines()
            .map(|line| {
                let f: Vec<&str> = line.split('\t').collect();
                assert_eq!(f.len(), 4, "{line}");
                let bytes = (0..f[1].len())
                    .step_by(2)
                    .map(|i| u8::from_str_radix(&f[1][i..i + 2], 16).unwrap())
                    .collect();
                let strict = (f[2] != "-").then(|| code_points(f[2]));
                (f[0], (bytes, strict, code_points(f[3])))
            })
            .collect()
    }

    /// The hidden characters of a reading, in order (what the screen
    /// finds in it), U+FFFD left out.
    fn hidden(s: &str) -> Vec<char> {
        s.chars()
            .filter(|&c| super::super::hidden::class(c).is_some())
            .collect()
    }

    /// CPython itself as the oracle (the table its codecs wrote, see the
    /// script beside it): for every row, `PyCodec` reads exactly the
    /// hidden characters CPython reads, strictly and with
    /// `errors="replace"`; on the codes it reads otherwise, exactly
    /// CPython's text; and it reads strictly all CPython reads strictly
    /// but for the visible letters its base encoding reads otherwise.
    #[test]
    fn cpython_oracle() {
        let rows = rows();
        assert!(rows.len() > 2_000);
        let mut overrides = 0;
        for (name, (bytes, strict, lossy)) in &rows {
            let codec = for_key(name).unwrap();
            let ours = codec.decode(bytes);
            let ours_lossy = codec.decode_lossy(bytes);
            let at = format!("{name} {bytes:02X?}: ours {ours_lossy:?}, CPython {lossy:?}");
            assert_eq!(hidden(&ours_lossy), hidden(lossy), "{at}");
            if let Some(strict) = strict {
                if let Some(ours) = &ours {
                    assert_eq!(hidden(ours), hidden(strict), "{at}");
                }
            }
            if codec.codes().iter().any(|(b, _)| b == bytes) {
                overrides += 1;
                assert_eq!(ours.as_ref(), strict.as_ref(), "{at}");
                assert_eq!(&ours_lossy, lossy, "{at}");
            }
        }
        // Every code read otherwise is in the table.
        let all: usize = [&CP850, &CP932, &GB18030]
            .iter()
            .map(|c| c.codes().len())
            .sum();
        assert_eq!(overrides, all);
    }
    /// Bytes shaped like the codecs' codes: ASCII, lead bytes, trail
    /// bytes, GB18030 digits, the codes read otherwise, anything.
    fn code_soup() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
        use proptest::prelude::*;
        let piece = prop_oneof![
            any::<u8>().prop_map(|b| vec![b]),
            (0x20_u8..0x7F).prop_map(|b| vec![b]),
            (0x81_u8..=0xFE, 0x30_u8..=0x39).prop_map(|(a, b)| vec![a, b]),
            (0x81_u8..=0xFE, 0x40_u8..=0xFE).prop_map(|(a, b)| vec![a, b]),
            proptest::sample::select(
                [&CP850, &CP932, &GB18030]
                    .iter()
                    .flat_map(|c| c.codes().iter().map(|(b, _)| b.to_vec()))
                    .collect::<Vec<_>>()
            ),
        ];
        proptest::collection::vec(piece, 0..24).prop_map(|v| v.concat())
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::default())]

        /// The strict reading, when there is one, is the lossy one; without
        /// one the lossy one holds U+FFFD; the lossy one has no more
        /// characters than the bytes, and reads on after junk: a code that
        /// follows junk is read as it is read alone.
        #[test]
        fn lossy_reading_extends_the_strict_one(bytes in code_soup(), which in 0_usize..3) {
            let codec = [&CP850, &CP932, &GB18030][which];
            let lossy = codec.decode_lossy(&bytes);
            match codec.decode(&bytes) {
                Some(strict) => proptest::prop_assert_eq!(&lossy, &strict),
                None => proptest::prop_assert!(lossy.contains(char::REPLACEMENT_CHARACTER), "{:?}", lossy),
            }
            proptest::prop_assert!(lossy.chars().count() <= bytes.len());
            for &(code, c) in codec.codes() {
                let after = codec.decode_lossy(&[&bytes[..], b"\n", code].concat());
                proptest::prop_assert!(after.ends_with(&format!("\n{c}")), "{after:?}");
            }
        }
    }
}
