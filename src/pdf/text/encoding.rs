//! Simple-font encodings (PDF 32000-1 Annex D): Standard, WinAnsi, MacRoman,
//! PDFDoc, Symbol, ZapfDingbats, `/Differences`, and glyph name → Unicode
//! through the Adobe Glyph List (tables from the `pdf_encoding` crate) plus the
//! AGL specification's `uniXXXX` / `uXXXX[XX]` forms.

use lopdf::{Document, Object};

/// Longest glyph name considered (longer names are not looked up).
pub const MAX_GLYPH_NAME: usize = 128;

/// A built-in base encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Base {
    /// StandardEncoding (Type 1 default).
    Standard,
    /// WinAnsiEncoding (cp1252).
    WinAnsi,
    /// MacRomanEncoding.
    MacRoman,
    /// PDFDocEncoding.
    PdfDoc,
    /// Symbol font's built-in encoding.
    Symbol,
    /// ZapfDingbats font's built-in encoding.
    ZapfDingbats,
    /// MacExpertEncoding.
    MacExpert,
}

impl Base {
    /// The base encoding named by `name` (`/Encoding` or `/BaseEncoding`).
    pub fn from_name(name: &[u8]) -> Option<Base> {
        Some(match name {
            b"StandardEncoding" => Base::Standard,
            b"WinAnsiEncoding" => Base::WinAnsi,
            b"MacRomanEncoding" => Base::MacRoman,
            b"PDFDocEncoding" => Base::PdfDoc,
            b"MacExpertEncoding" => Base::MacExpert,
            _ => return None,
        })
    }

    /// The Unicode character for `code`.
    pub fn decode(self, code: u8) -> Option<char> {
        let map = match self {
            Base::Standard => &pdf_encoding::STANDARD,
            Base::WinAnsi => &pdf_encoding::WINANSI,
            Base::MacRoman => &pdf_encoding::MACROMAN,
            Base::Symbol => &pdf_encoding::SYMBOL,
            Base::ZapfDingbats => &pdf_encoding::ZDINGBAT,
            Base::MacExpert => &pdf_encoding::MACEXPERT,
            Base::PdfDoc => return pdf_doc(code),
        };
        map.get(code)
            .or_else(|| match self {
                // WinAnsi maps the undefined positions to Latin-1 in practice (pdftotext too).
                Base::WinAnsi if code >= 0xA0 => Some(char::from(code)),
                _ => None,
            })
            .map(|c| match c {
                // Annex D names these positions `hyphen` and `space` (the AGL's
                // U+002D and U+0020, what pdftotext prints); the tables give the
                // Latin-1 soft hyphen and no-break space.
                '\u{ad}' => '-',
                '\u{a0}' => ' ',
                c => c,
            })
    }
}

/// PDFDocEncoding (Annex D.3): Latin-1 with a block of typographic marks at 0x18..0x1F and 0x80..0x9F.
fn pdf_doc(code: u8) -> Option<char> {
    const LOW: [char; 8] = ['˘', 'ˇ', 'ˆ', '˙', '˝', '˛', '˚', '˜'];
    const HIGH: [char; 31] = [
        '•', '†', '‡', '…', '—', '–', 'ƒ', '⁄', '‹', '›', '−', '‰', '„', '“', '”', '‘', '’', '‚',
        '™', 'ﬁ', 'ﬂ', 'Ł', 'Œ', 'Š', 'Ÿ', 'Ž', 'ı', 'ł', 'œ', 'š', 'ž',
    ];
    match code {
        0x18..=0x1F => LOW.get(usize::from(code - 0x18)).copied(),
        0x80..=0x9E => HIGH.get(usize::from(code - 0x80)).copied(),
        0xA0 => Some('€'),
        0x7F | 0x9F | 0xAD => None,
        _ => Some(char::from(code)),
    }
}

/// Unicode text for a glyph name: the AGL, then `uniXXXX…`, `uXXXX[XX]`, then
/// suffixes (`a.sc`, `f_i`). `None` for names with no known meaning.
pub fn glyph_name_to_unicode(name: &str) -> Option<String> {
    if name.is_empty() || name.len() > MAX_GLYPH_NAME {
        return None;
    }
    // AGL specification: drop a suffix after the first period.
    let base = name.split('.').next().unwrap_or(name);
    if base.contains('_') {
        let parts: Option<String> = base.split('_').map(single_component).collect();
        return parts;
    }
    single_component(base)
}

fn single_component(name: &str) -> Option<String> {
    if let Some(s) = pdf_encoding::glyphname_to_unicode(name) {
        return Some(s.to_string());
    }
    if let Some(hex) = name.strip_prefix("uni") {
        if !hex.is_empty() && hex.len() % 4 == 0 && hex.chars().all(|c| c.is_ascii_hexdigit()) {
            let units: Vec<u16> = hex
                .as_bytes()
                .chunks(4)
                .filter_map(|c| std::str::from_utf8(c).ok())
                .filter_map(|c| u16::from_str_radix(c, 16).ok())
                .collect();
            let s: String = char::decode_utf16(units)
                .map(|r| r.unwrap_or(char::REPLACEMENT_CHARACTER))
                .collect();
            return Some(s);
        }
    }
    if let Some(hex) = name.strip_prefix('u') {
        if (4..=6).contains(&hex.len()) && hex.chars().all(|c| c.is_ascii_hexdigit()) {
            return u32::from_str_radix(hex, 16)
                .ok()
                .and_then(char::from_u32)
                .map(String::from);
        }
    }
    extra_name(name).map(String::from)
}

/// Names common in TeX and older fonts that the AGL lacks.
fn extra_name(name: &str) -> Option<&'static str> {
    Some(match name {
        "ff" => "ff",
        "ffi" => "ffi",
        "ffl" => "ffl",
        "fi" => "fi",
        "fl" => "fl",
        "dotlessj" => "ȷ",
        "Delta" => "Δ",
        "Omega" => "Ω",
        "mu" => "μ",
        "nbspace" | "nonbreakingspace" => "\u{a0}",
        "sfthyphen" | "softhyphen" => "\u{ad}",
        "visiblespace" => "␣",
        "angbracketleft" => "⟨",
        "angbracketright" => "⟩",
        "circlecopyrt" => "©",
        "vector" => "\u{20d7}",
        "minus" => "−",
        _ => return None,
    })
}

/// Applies a `/Differences` array to a 256-entry table of glyph names.
pub fn apply_differences(doc: &Document, diffs: &[Object], names: &mut [Option<String>; 256]) {
    let mut code: i64 = -1;
    for item in diffs.iter().take(4096) {
        let Some(item) = crate::pdf::object::deref(doc, item) else {
            continue;
        };
        match item {
            Object::Integer(n) => code = *n,
            Object::Real(r) => code = *r as i64,
            Object::Name(n) => {
                if let Some(slot) = usize::try_from(code).ok().and_then(|c| names.get_mut(c)) {
                    *slot = Some(String::from_utf8_lossy(n).into_owned());
                }
                code = code.saturating_add(1);
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn hyphen_and_space_positions_read_as_ascii() {
        use super::Base;
        assert_eq!(Base::Standard.decode(0x2D), Some('-'));
        assert_eq!(Base::Standard.decode(0x20), Some(' '));
        assert_eq!(Base::WinAnsi.decode(0xAD), Some('-'));
        assert_eq!(Base::WinAnsi.decode(0xA0), Some(' '));
        assert_eq!(Base::MacRoman.decode(0xCA), Some(' '));
        assert_eq!(super::glyph_name_to_unicode("hyphen").as_deref(), Some("-"));
        assert_eq!(super::glyph_name_to_unicode("space").as_deref(), Some(" "));
    }

    use super::*;

    #[test]
    fn names() {
        assert_eq!(glyph_name_to_unicode("A").as_deref(), Some("A"));
        assert_eq!(glyph_name_to_unicode("fi").as_deref(), Some("ﬁ"));
        assert_eq!(glyph_name_to_unicode("uni00410042").as_deref(), Some("AB"));
        assert_eq!(
            glyph_name_to_unicode("u1D400").as_deref(),
            Some("\u{1D400}")
        );
        assert_eq!(glyph_name_to_unicode("a.sc").as_deref(), Some("a"));
        assert_eq!(glyph_name_to_unicode("f_f_i").as_deref(), Some("ffi"));
        assert_eq!(Base::WinAnsi.decode(0x93), Some('“'));
        assert_eq!(Base::PdfDoc.decode(0x84), Some('—'));
    }
}
