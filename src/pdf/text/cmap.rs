//! CMap parsing: ToUnicode maps (`bfchar`, `bfrange` with string or array
//! targets) and embedded encoding CMaps (`cidchar`, `cidrange`), with the
//! `codespacerange` that splits a string into multi-byte codes.
//!
//! Source: PDF 32000-1:2008 §9.7.5 (CMaps), §9.10.3 (ToUnicode CMaps) and
//! Adobe Technical Note #5014 (CMap and CIDFont Files Specification).
//! The parser is a tolerant tokenizer: unknown tokens are skipped, malformed
//! entries are dropped, and every table it builds is bounded.

use std::collections::HashMap;

/// Most mapping entries (bfchar/cidchar entries plus range entries) kept from one CMap.
pub const MAX_CMAP_ENTRIES: usize = 100_000;
/// Most codes one `bfrange`/`cidrange` entry may span; longer ranges are clipped.
pub const MAX_BFRANGE_SPAN: u32 = 65_536;
/// Most codespace ranges kept from one CMap.
pub const MAX_CODESPACE_RANGES: usize = 256;
/// Most UTF-16 code units in one mapping target (a ligature expands to a few).
pub const MAX_TARGET_UNITS: usize = 64;

/// One codespace range: codes of `len` bytes whose bytes lie between `lo` and `hi`
/// byte by byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Codespace {
    len: u8,
    lo: [u8; 4],
    hi: [u8; 4],
}

impl Codespace {
    fn contains(&self, bytes: &[u8]) -> bool {
        bytes.len() == usize::from(self.len)
            && bytes
                .iter()
                .zip(self.lo.iter().zip(self.hi.iter()))
                .all(|(b, (lo, hi))| lo <= b && b <= hi)
    }
}

/// What a range maps to.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Target {
    /// The first code maps to this text; later codes increment its last unit.
    Start(Vec<u16>),
    /// One text per code.
    Each(Vec<String>),
    /// The first code maps to this CID; later codes increment it.
    Cid(u32),
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Range {
    len: u8,
    lo: u32,
    hi: u32,
    target: Target,
}

/// A parsed CMap: codespace plus code → Unicode text and code → CID mappings.
#[derive(Debug, Clone, Default)]
pub struct CMap {
    codespace: Vec<Codespace>,
    chars: HashMap<(u8, u32), String>,
    cids: HashMap<(u8, u32), u32>,
    ranges: Vec<Range>,
    /// Whether some entry was dropped by a bound.
    pub clipped: bool,
    /// Name given by `usecmap`, if any (a predefined parent CMap).
    pub use_cmap: Option<String>,
    min_len: Option<u8>,
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Hex(Vec<u8>),
    Int(i64),
    Name(Vec<u8>),
    Word(Vec<u8>),
    ArrOpen,
    ArrClose,
}

/// A bounded tokenizer over the PostScript-like CMap syntax.
struct Lexer<'a> {
    data: &'a [u8],
    pos: usize,
}

fn is_delim(b: u8) -> bool {
    matches!(
        b,
        b'(' | b')' | b'<' | b'>' | b'[' | b']' | b'{' | b'}' | b'/' | b'%'
    )
}

impl Iterator for Lexer<'_> {
    type Item = Tok;

    fn next(&mut self) -> Option<Tok> {
        loop {
            let b = *self.data.get(self.pos)?;
            match b {
                b if b.is_ascii_whitespace() || b == 0 => self.pos += 1,
                b'%' => {
                    while let Some(&c) = self.data.get(self.pos) {
                        if c == b'\n' || c == b'\r' {
                            break;
                        }
                        self.pos += 1;
                    }
                }
                b'[' => {
                    self.pos += 1;
                    return Some(Tok::ArrOpen);
                }
                b']' => {
                    self.pos += 1;
                    return Some(Tok::ArrClose);
                }
                b'<' => {
                    self.pos += 1;
                    if self.data.get(self.pos) == Some(&b'<') {
                        self.pos += 1;
                        return Some(Tok::Word(b"<<".to_vec()));
                    }
                    let mut digits = Vec::new();
                    while let Some(&c) = self.data.get(self.pos) {
                        self.pos += 1;
                        if c == b'>' {
                            break;
                        }
                        if let Some(d) = (c as char).to_digit(16) {
                            digits.push(d as u8);
                        }
                    }
                    if digits.len() % 2 == 1 {
                        digits.push(0);
                    }
                    let bytes = digits.chunks(2).map(|p| match p {
                        [h, l] => (h << 4) | l,
                        _ => 0,
                    });
                    return Some(Tok::Hex(bytes.collect()));
                }
                b'(' => {
                    // Literal strings appear in headers (Registry, Ordering); skip them.
                    let mut depth = 0usize;
                    while let Some(&c) = self.data.get(self.pos) {
                        self.pos += 1;
                        match c {
                            b'\\' => self.pos += 1,
                            b'(' => depth += 1,
                            b')' => {
                                depth = depth.saturating_sub(1);
                                if depth == 0 {
                                    break;
                                }
                            }
                            _ => {}
                        }
                    }
                    return Some(Tok::Word(b"()".to_vec()));
                }
                _ => {
                    let start = self.pos;
                    let is_name = b == b'/';
                    self.pos += 1;
                    while let Some(&c) = self.data.get(self.pos) {
                        if c.is_ascii_whitespace() || is_delim(c) {
                            break;
                        }
                        self.pos += 1;
                    }
                    let word = self.data.get(start..self.pos).unwrap_or_default();
                    if is_name {
                        return Some(Tok::Name(word.get(1..).unwrap_or_default().to_vec()));
                    }
                    if let Some(n) = std::str::from_utf8(word)
                        .ok()
                        .and_then(|s| s.parse::<i64>().ok())
                    {
                        return Some(Tok::Int(n));
                    }
                    return Some(Tok::Word(word.to_vec()));
                }
            }
        }
    }
}

fn code_value(bytes: &[u8]) -> Option<(u8, u32)> {
    if bytes.is_empty() || bytes.len() > 4 {
        return None;
    }
    let v = bytes.iter().fold(0u32, |acc, &b| (acc << 8) | u32::from(b));
    Some((bytes.len() as u8, v))
}

fn utf16_units(bytes: &[u8]) -> Vec<u16> {
    bytes
        .chunks(2)
        .take(MAX_TARGET_UNITS)
        .map(|p| match p {
            [h, l] => u16::from_be_bytes([*h, *l]),
            [h] => u16::from(*h),
            _ => 0,
        })
        .collect()
}

fn units_to_string(units: &[u16]) -> String {
    char::decode_utf16(units.iter().copied())
        .map(|r| r.unwrap_or(char::REPLACEMENT_CHARACTER))
        .collect()
}

/// A ToUnicode target: UTF-16BE bytes, or a glyph name (seen in the wild).
fn target_text(tok: &Tok) -> Option<String> {
    match tok {
        Tok::Hex(b) => Some(units_to_string(&utf16_units(b))),
        Tok::Name(n) => std::str::from_utf8(n)
            .ok()
            .and_then(super::encoding::glyph_name_to_unicode),
        _ => None,
    }
}

impl CMap {
    /// Parses CMap source text. Never fails: what cannot be read is skipped.
    pub fn parse(data: &[u8]) -> CMap {
        let mut cmap = CMap::default();
        let mut lex = Lexer { data, pos: 0 };
        let mut prev: Option<Tok> = None;
        while let Some(tok) = lex.next() {
            if let Tok::Word(w) = &tok {
                match w.as_slice() {
                    b"begincodespacerange" => cmap.read_codespace(&mut lex),
                    b"beginbfchar" => cmap.read_chars(&mut lex, false),
                    b"begincidchar" => cmap.read_chars(&mut lex, true),
                    b"beginbfrange" => cmap.read_ranges(&mut lex, false),
                    b"begincidrange" => cmap.read_ranges(&mut lex, true),
                    b"usecmap" => {
                        if let Some(Tok::Name(n)) = &prev {
                            cmap.use_cmap = Some(String::from_utf8_lossy(n).into_owned());
                        }
                    }
                    _ => {}
                }
            }
            prev = Some(tok);
        }
        cmap.ranges.sort_by_key(|r| (r.len, r.lo));
        cmap.min_len = cmap
            .chars
            .keys()
            .map(|(l, _)| *l)
            .chain(cmap.ranges.iter().map(|r| r.len))
            .min();
        cmap
    }

    fn full(&mut self) -> bool {
        let full = self.entries() >= MAX_CMAP_ENTRIES;
        self.clipped |= full;
        full
    }

    fn read_codespace(&mut self, lex: &mut Lexer<'_>) {
        loop {
            let Some(lo) = lex.next() else { return };
            let Tok::Hex(lo) = lo else { return };
            let Some(Tok::Hex(hi)) = lex.next() else {
                return;
            };
            if lo.len() != hi.len() || lo.is_empty() || lo.len() > 4 {
                continue;
            }
            if self.codespace.len() >= MAX_CODESPACE_RANGES {
                self.clipped = true;
                continue;
            }
            let mut space = Codespace {
                len: lo.len() as u8,
                lo: [0; 4],
                hi: [0; 4],
            };
            for (dst, src) in space.lo.iter_mut().zip(lo.iter()) {
                *dst = *src;
            }
            for (dst, src) in space.hi.iter_mut().zip(hi.iter()) {
                *dst = *src;
            }
            self.codespace.push(space);
        }
    }

    fn read_chars(&mut self, lex: &mut Lexer<'_>, cid: bool) {
        loop {
            let Some(Tok::Hex(src)) = lex.next() else {
                return;
            };
            let Some(dst) = lex.next() else { return };
            let Some(key) = code_value(&src) else {
                continue;
            };
            if self.full() {
                continue;
            }
            match (cid, &dst) {
                (true, Tok::Int(n)) => {
                    if let Ok(n) = u32::try_from(*n) {
                        self.cids.insert(key, n);
                    }
                }
                (false, _) => {
                    if let Some(text) = target_text(&dst) {
                        self.chars.insert(key, text);
                    }
                }
                _ => {}
            }
        }
    }

    fn read_ranges(&mut self, lex: &mut Lexer<'_>, cid: bool) {
        loop {
            let Some(Tok::Hex(lo)) = lex.next() else {
                return;
            };
            let Some(Tok::Hex(hi)) = lex.next() else {
                return;
            };
            let Some(dst) = lex.next() else { return };
            let target = match (&dst, cid) {
                (Tok::Int(n), true) => u32::try_from(*n).ok().map(Target::Cid),
                (Tok::Hex(b), false) => Some(Target::Start(utf16_units(b))),
                (Tok::ArrOpen, false) => {
                    let mut each = Vec::new();
                    for tok in lex.by_ref() {
                        if tok == Tok::ArrClose {
                            break;
                        }
                        if each.len() < MAX_BFRANGE_SPAN as usize {
                            each.push(target_text(&tok).unwrap_or_default());
                        }
                    }
                    Some(Target::Each(each))
                }
                _ => None,
            };
            let (Some(target), Some((len, lo)), Some((hlen, hi))) =
                (target, code_value(&lo), code_value(&hi))
            else {
                continue;
            };
            if len != hlen || hi < lo || self.full() {
                continue;
            }
            let hi = if hi - lo >= MAX_BFRANGE_SPAN {
                self.clipped = true;
                lo + (MAX_BFRANGE_SPAN - 1)
            } else {
                hi
            };
            self.ranges.push(Range {
                len,
                lo,
                hi,
                target,
            });
        }
    }

    /// Table entries held (mappings and ranges): bounded by
    /// [`MAX_CMAP_ENTRIES`], and the work charged for building the map.
    pub fn entries(&self) -> usize {
        self.chars
            .len()
            .saturating_add(self.cids.len())
            .saturating_add(self.ranges.len())
    }

    /// Whether a codespace range was declared.
    pub fn has_codespace(&self) -> bool {
        !self.codespace.is_empty()
    }

    /// Whether the CMap maps any code to text.
    pub fn has_text_mappings(&self) -> bool {
        !self.chars.is_empty()
            || self
                .ranges
                .iter()
                .any(|r| !matches!(r.target, Target::Cid(_)))
    }

    /// Length in bytes of the code starting at the front of `bytes`, per the
    /// codespace ranges (§9.7.6.2); `None` when no codespace is declared.
    pub fn code_len(&self, bytes: &[u8]) -> Option<usize> {
        if self.codespace.is_empty() {
            return None;
        }
        for n in 1..=4usize {
            let Some(prefix) = bytes.get(..n) else { break };
            if self.codespace.iter().any(|c| c.contains(prefix)) {
                return Some(n);
            }
        }
        // No match: consume as many bytes as the shortest codespace whose
        // first byte matches, else the shortest codespace (per the spec's advice).
        let first_match = self
            .codespace
            .iter()
            .filter(|c| {
                bytes
                    .first()
                    .is_some_and(|b| c.lo[0] <= *b && *b <= c.hi[0])
            })
            .map(|c| usize::from(c.len))
            .min();
        first_match
            .or_else(|| self.codespace.iter().map(|c| usize::from(c.len)).min())
            .map(|n| n.clamp(1, bytes.len().max(1)))
    }

    fn find_range(&self, len: u8, code: u32) -> Option<&Range> {
        // Ranges are sorted by (len, lo); search the last one starting at or before `code`,
        // then scan back a few for overlapping definitions.
        let idx = self
            .ranges
            .partition_point(|r| (r.len, r.lo) <= (len, code));
        self.ranges
            .get(..idx)?
            .iter()
            .rev()
            .take(8)
            .find(|r| r.len == len && r.lo <= code && code <= r.hi)
    }

    /// The Unicode text of a code of `len` bytes.
    pub fn lookup_text(&self, len: u8, code: u32) -> Option<String> {
        if let Some(s) = self.chars.get(&(len, code)) {
            return Some(s.clone());
        }
        let range = self.find_range(len, code)?;
        let offset = code.checked_sub(range.lo)?;
        match &range.target {
            Target::Start(units) => {
                let mut units = units.clone();
                let last = units.last_mut()?;
                let value = u32::from(*last).checked_add(offset)?;
                if value > 0xFFFF {
                    // Spills into the next unit: only meaningful for BMP text.
                    return char::from_u32(value).map(String::from);
                }
                *last = value as u16;
                Some(units_to_string(&units))
            }
            Target::Each(items) => items.get(offset as usize).cloned(),
            Target::Cid(_) => None,
        }
    }

    /// The CID of a code of `len` bytes (encoding CMaps).
    pub fn lookup_cid(&self, len: u8, code: u32) -> Option<u32> {
        if let Some(c) = self.cids.get(&(len, code)) {
            return Some(*c);
        }
        let range = self.find_range(len, code)?;
        match range.target {
            Target::Cid(start) => start.checked_add(code.checked_sub(range.lo)?),
            _ => None,
        }
    }

    /// The shortest code length used by text mappings (computed once at parse).
    pub fn shortest_mapped_len(&self) -> Option<u8> {
        self.min_len
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_bfchar_bfrange_and_arrays() {
        let src = b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap
            1 begincodespacerange <0000> <FFFF> endcodespacerange
            2 beginbfchar <0003> <0020> <0011> <00660069> endbfchar
            2 beginbfrange <0024> <0026> <0041> <0030> <0031> [<0078> <D835DC00>] endbfrange
            endcmap";
        let c = CMap::parse(src);
        assert_eq!(c.code_len(&[0, 3, 0, 4]), Some(2));
        assert_eq!(c.lookup_text(2, 3).as_deref(), Some(" "));
        assert_eq!(c.lookup_text(2, 0x11).as_deref(), Some("fi"));
        assert_eq!(c.lookup_text(2, 0x25).as_deref(), Some("B"));
        assert_eq!(c.lookup_text(2, 0x31).as_deref(), Some("\u{1D400}"));
        assert_eq!(c.lookup_text(2, 0x27), None);
    }

    #[test]
    fn clips_huge_ranges() {
        let c = CMap::parse(b"1 beginbfrange <00000000> <FFFFFFFF> <0041> endbfrange");
        assert!(c.clipped);
        assert_eq!(c.lookup_text(4, 1).as_deref(), Some("B"));
        assert_eq!(c.lookup_text(4, 0x10_0000), None);
    }

    #[test]
    fn mixed_codespace() {
        let c = CMap::parse(
            b"2 begincodespacerange <00> <80> <8140> <9FFC> endcodespacerange
              1 begincidrange <8140> <817e> 633 endcidrange",
        );
        assert_eq!(c.code_len(b"A\x81\x40"), Some(1));
        assert_eq!(c.code_len(b"\x81\x40"), Some(2));
        assert_eq!(c.lookup_cid(2, 0x8141), Some(634));
    }
}
