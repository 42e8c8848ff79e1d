//! Fonts as the text interpreter needs them: how a string splits into codes,
//! each code's Unicode text and its advance width.
//!
//! Sources for the text of a code, first match wins (the order pdftotext uses):
//! the `/ToUnicode` CMap; for simple fonts the encoding (`/Encoding`, its
//! `/Differences`, else the embedded font program's built-in encoding) through
//! glyph names; for composite fonts the Adobe CJK collection's CID table
//! (Japan1, GB1, CNS1, Korea1), the embedded TrueType cmap, or a predefined
//! legacy CMap decoded by its charset (Shift-JIS, GBK, Big5, EUC-KR, UTF-16).
//! PDF 32000-1:2008 §9.6 (simple fonts), §9.7 (composite fonts), §9.10 (text extraction).

use std::collections::HashMap;

use lopdf::{Dictionary, Document, Object};

use super::cmap::CMap;
use super::embedded;
use super::encoding::{self, Base};
use super::TextLimits;
use crate::pdf::object::{deref, get, get_array, get_dict, get_name, num};

/// Most entries read from a `/W` (CID widths) array.
pub const MAX_W_ENTRIES: usize = 65_536;
/// Most entries read from a simple font's `/Widths` array.
pub const MAX_SIMPLE_WIDTHS: usize = 256;

/// A decoded code: its text goes to the output, its width advances the pen.
#[derive(Debug, Clone, PartialEq)]
pub struct Code {
    /// The code value.
    pub code: u32,
    /// Its length in bytes.
    pub len: u8,
}

/// Legacy multi-byte charsets behind predefined CJK CMaps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Legacy {
    /// Shift-JIS (`*-RKSJ-*`).
    ShiftJis,
    /// EUC-JP (`EUC-H`, `EUC-V`).
    EucJp,
    /// GBK / GB 2312 EUC (`GBK-EUC-*`, `GB-EUC-*`, `GBpc-EUC-*`, `GBK2K-*`).
    Gbk,
    /// Big5 (`B5pc-*`, `ETen-B5-*`, `HKscs-B5-*`, `B5-*`).
    Big5,
    /// EUC-KR / UHC (`KSC-EUC-*`, `KSCms-UHC-*`, `KSCpc-EUC-*`).
    EucKr,
    /// UTF-16BE (`Uni*-UCS2-*`, `Uni*-UTF16-*`).
    Utf16,
}

impl Legacy {
    fn from_cmap_name(name: &str) -> Option<Legacy> {
        Some(if name.contains("RKSJ") {
            Legacy::ShiftJis
        } else if name.starts_with("GB") {
            Legacy::Gbk
        } else if name.starts_with("B5") || name.starts_with("ETen") || name.starts_with("HKscs") {
            Legacy::Big5
        } else if name.starts_with("KSC") {
            Legacy::EucKr
        } else if name == "EUC-H" || name == "EUC-V" {
            Legacy::EucJp
        } else if name.starts_with("Uni") && (name.contains("UCS2") || name.contains("UTF16")) {
            Legacy::Utf16
        } else {
            return None;
        })
    }

    fn code_len(self, bytes: &[u8]) -> usize {
        let Some(&b) = bytes.first() else { return 1 };
        let n = match self {
            Legacy::ShiftJis => {
                if (0x81..=0x9F).contains(&b) || (0xE0..=0xFC).contains(&b) {
                    2
                } else {
                    1
                }
            }
            Legacy::EucJp => match b {
                0x8E | 0xA1..=0xFE => 2,
                0x8F => 3,
                _ => 1,
            },
            Legacy::Gbk | Legacy::Big5 | Legacy::EucKr => {
                if (0x81..=0xFE).contains(&b) {
                    2
                } else {
                    1
                }
            }
            Legacy::Utf16 => {
                if (0xD8..=0xDB).contains(&b) {
                    4
                } else {
                    2
                }
            }
        };
        n.min(bytes.len()).max(1)
    }

    fn decode(self, bytes: &[u8], out: &mut String) {
        let enc = match self {
            Legacy::ShiftJis => encoding_rs::SHIFT_JIS,
            Legacy::EucJp => encoding_rs::EUC_JP,
            Legacy::Gbk => encoding_rs::GBK,
            Legacy::Big5 => encoding_rs::BIG5,
            Legacy::EucKr => encoding_rs::EUC_KR,
            Legacy::Utf16 => encoding_rs::UTF_16BE,
        };
        let (text, _) = enc.decode_without_bom_handling(bytes);
        out.push_str(&text);
    }
}

/// An Adobe CJK character collection, for CIDs with no ToUnicode entry.
///
/// CID → Unicode comes from Adobe's `Adobe-<Ordering>-UCS2` CMaps (Adobe
/// Technical Notes #5078 Japan1, #5079 GB1, #5080 CNS1, #5093 Korea1),
/// compiled by `cid_data/generate.py` into one little-endian `u16` per CID
/// (0 = unmapped); the same source pdftotext reads through poppler-data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Collection {
    /// Adobe-Japan1.
    Japan1,
    /// Adobe-GB1 (simplified Chinese).
    Gb1,
    /// Adobe-CNS1 (traditional Chinese).
    Cns1,
    /// Adobe-Korea1.
    Korea1,
}

static JAPAN1: &[u8] = include_bytes!("cid_data/Japan1.bin");
static GB1: &[u8] = include_bytes!("cid_data/GB1.bin");
static CNS1: &[u8] = include_bytes!("cid_data/CNS1.bin");
static KOREA1: &[u8] = include_bytes!("cid_data/Korea1.bin");

impl Collection {
    fn from_ordering(o: &[u8]) -> Option<Collection> {
        match o {
            b"Japan1" => Some(Collection::Japan1),
            b"GB1" => Some(Collection::Gb1),
            b"CNS1" => Some(Collection::Cns1),
            b"Korea1" => Some(Collection::Korea1),
            _ => None,
        }
    }

    fn cid_to_unicode(self, cid: u32) -> Option<char> {
        let table = match self {
            Collection::Japan1 => JAPAN1,
            Collection::Gb1 => GB1,
            Collection::Cns1 => CNS1,
            Collection::Korea1 => KOREA1,
        };
        let at = usize::try_from(cid).ok()?.checked_mul(2)?;
        match table.get(at..at.checked_add(2)?)? {
            [lo, hi] => match u16::from_le_bytes([*lo, *hi]) {
                0 => None,
                u => char::from_u32(u32::from(u)),
            },
            _ => None,
        }
    }
}

/// How a composite font's strings split into codes and CIDs.
#[derive(Debug, Clone)]
enum CidEncoding {
    /// Identity-H / Identity-V: 2-byte codes, CID = code.
    Identity,
    /// A predefined legacy CMap: codes decoded by charset, CIDs unknown.
    Legacy(Legacy),
    /// An embedded CMap stream.
    Embedded(Box<CMap>, Option<Legacy>),
}

#[derive(Debug, Clone)]
enum Kind {
    Simple {
        text: Box<[Option<Box<str>>; 256]>,
        widths: Box<[f64; 256]>,
    },
    Composite {
        encoding: CidEncoding,
        widths: HashMap<u32, f64>,
        default_width: f64,
        /// CID → text from the embedded font program (TrueType cmap).
        cid_text: HashMap<u32, char>,
        /// The character collection (`/CIDSystemInfo` `/Ordering`).
        collection: Option<Collection>,
        /// Ordering `Identity` or `UCS` with no font program to read: CIDs
        /// are taken as Unicode code points (pdftotext's identity mapping).
        identity: bool,
    },
}

/// A loaded font.
#[derive(Debug, Clone)]
pub struct Font {
    kind: Kind,
    to_unicode: Option<CMap>,
    /// Vertical writing mode (`-V` CMaps).
    pub vertical: bool,
    /// Glyph space → text space scale (1/1000 except Type 3's `/FontMatrix`).
    pub scale: f64,
    /// Glyph height as a fraction of the font size (Type 3 fonts differ).
    pub height: f64,
    /// Why parts of the font could not be read.
    pub warnings: Vec<String>,
}

fn stream_bytes(
    doc: &Document,
    dict: &Dictionary,
    key: &[u8],
    limits: &TextLimits,
    warnings: &mut Vec<String>,
) -> Option<Vec<u8>> {
    let Object::Stream(s) = get(doc, dict, key)? else {
        return None;
    };
    match crate::pdf::stream::decode_stream(s, limits.max_stream_bytes) {
        Ok(b) => Some(b),
        Err(e) => {
            warnings.push(format!(
                "{}: {e}",
                String::from_utf8_lossy(key).into_owned()
            ));
            None
        }
    }
}

/// Strips a subset tag (`ABCDEF+Name`).
fn base_font_name(name: &[u8]) -> String {
    let s = String::from_utf8_lossy(name);
    match s.split_once('+') {
        Some((tag, rest)) if tag.len() == 6 => rest.to_string(),
        _ => s.into_owned(),
    }
}

impl Font {
    /// A stand-in for a font that could not be loaded: single-byte codes,
    /// Latin-1 text, half-em widths.
    pub fn fallback(warning: String) -> Font {
        let text: Box<[Option<Box<str>>; 256]> = Box::new(std::array::from_fn(|i| {
            let c = char::from(i as u8);
            (!c.is_control()).then(|| c.to_string().into_boxed_str())
        }));
        Font {
            kind: Kind::Simple {
                text,
                widths: Box::new([0.5; 256]),
            },
            to_unicode: None,
            vertical: false,
            scale: 0.001,
            height: 1.0,
            warnings: vec![warning],
        }
    }

    /// Loads the font dictionary `dict`. Never fails: unreadable parts become
    /// warnings and fallbacks.
    pub fn load(doc: &Document, dict: &Dictionary, limits: &TextLimits) -> Font {
        let mut warnings = Vec::new();
        let subtype = get_name(doc, dict, b"Subtype").unwrap_or(b"Type1");
        let to_unicode = stream_bytes(doc, dict, b"ToUnicode", limits, &mut warnings)
            .map(|b| CMap::parse(&b))
            .filter(CMap::has_text_mappings);
        if to_unicode.as_ref().is_some_and(|c| c.clipped) {
            warnings.push("ToUnicode CMap clipped at a bound".into());
        }
        let mut font = if subtype == b"Type0" {
            load_composite(doc, dict, limits, to_unicode.is_some(), &mut warnings)
        } else {
            load_simple(
                doc,
                dict,
                subtype,
                limits,
                to_unicode.is_some(),
                &mut warnings,
            )
        };
        font.to_unicode = to_unicode;
        font.warnings.extend(warnings);
        font
    }

    /// Table entries the font holds (code mappings, widths, CMap entries):
    /// the work charged to the call's budget for loading it.
    pub fn entries(&self) -> usize {
        let own = match &self.kind {
            Kind::Simple { .. } => 512,
            Kind::Composite {
                encoding,
                widths,
                cid_text,
                ..
            } => {
                let cmap = match encoding {
                    CidEncoding::Embedded(c, _) => c.entries(),
                    _ => 0,
                };
                widths
                    .len()
                    .saturating_add(cid_text.len())
                    .saturating_add(cmap)
            }
        };
        own.saturating_add(self.to_unicode.as_ref().map_or(0, CMap::entries))
    }

    /// Splits the next code off `bytes` (non-empty). Returns the code and its length.
    pub fn next_code(&self, bytes: &[u8]) -> Code {
        let len = match &self.kind {
            Kind::Simple { .. } => 1,
            Kind::Composite { encoding, .. } => match encoding {
                CidEncoding::Identity => 2,
                CidEncoding::Legacy(l) => l.code_len(bytes),
                CidEncoding::Embedded(c, legacy) => c
                    .code_len(bytes)
                    .or_else(|| legacy.map(|l| l.code_len(bytes)))
                    .unwrap_or(2),
            },
        };
        let len = len.clamp(1, 4).min(bytes.len().max(1));
        let code = bytes
            .iter()
            .take(len)
            .fold(0u32, |acc, &b| (acc << 8) | u32::from(b));
        Code {
            code,
            len: len as u8,
        }
    }

    fn cid(&self, code: &Code) -> Option<u32> {
        match &self.kind {
            Kind::Simple { .. } => None,
            Kind::Composite { encoding, .. } => match encoding {
                CidEncoding::Identity => Some(code.code),
                CidEncoding::Legacy(_) => None,
                CidEncoding::Embedded(c, _) => c.lookup_cid(code.len, code.code),
            },
        }
    }

    /// Appends the Unicode text of `code` (whose bytes are `bytes`) to `out`.
    pub fn push_text(&self, code: &Code, bytes: &[u8], out: &mut String) {
        if let Some(tu) = &self.to_unicode {
            if let Some(t) = tu.lookup_text(code.len, code.code) {
                out.push_str(&t);
                return;
            }
            // A one-byte ToUnicode applied to two-byte codes (and vice versa) happens.
            if let Some(t) = tu
                .shortest_mapped_len()
                .filter(|l| *l != code.len && *l == 2 && code.len == 1)
                .and_then(|l| tu.lookup_text(l, code.code))
            {
                out.push_str(&t);
                return;
            }
        }
        match &self.kind {
            Kind::Simple { text, .. } => {
                if let Some(Some(t)) = text.get(code.code as usize) {
                    out.push_str(t);
                }
            }
            Kind::Composite {
                encoding,
                cid_text,
                collection,
                identity,
                ..
            } => {
                let legacy = match encoding {
                    CidEncoding::Legacy(l) => Some(*l),
                    CidEncoding::Embedded(_, l) => *l,
                    CidEncoding::Identity => None,
                };
                if let Some(cid) = self.cid(code) {
                    if let Some(c) = collection.and_then(|o| o.cid_to_unicode(cid)) {
                        out.push(c);
                        return;
                    }
                    if let Some(c) = cid_text.get(&cid) {
                        out.push(*c);
                        return;
                    }
                    if let Some(c) = char::from_u32(cid).filter(|c| *identity && !c.is_control()) {
                        out.push(c);
                        return;
                    }
                }
                if let Some(l) = legacy {
                    l.decode(bytes, out);
                }
            }
        }
    }

    /// The advance of `code` in text space units (before font size).
    pub fn width(&self, code: &Code) -> f64 {
        match &self.kind {
            Kind::Simple { widths, .. } => widths.get(code.code as usize).copied().unwrap_or(0.0),
            Kind::Composite {
                widths,
                default_width,
                encoding,
                ..
            } => match self.cid(code) {
                Some(cid) => widths.get(&cid).copied().unwrap_or(*default_width) * self.scale,
                None => {
                    let half = matches!(encoding, CidEncoding::Legacy(l) | CidEncoding::Embedded(_, Some(l)) if *l != Legacy::Utf16)
                        && code.len == 1;
                    if half {
                        0.5
                    } else {
                        *default_width * self.scale
                    }
                }
            },
        }
    }
}

fn load_simple(
    doc: &Document,
    dict: &Dictionary,
    subtype: &[u8],
    limits: &TextLimits,
    has_to_unicode: bool,
    warnings: &mut Vec<String>,
) -> Font {
    let type3 = subtype == b"Type3";
    let base_name = get_name(doc, dict, b"BaseFont")
        .map(base_font_name)
        .unwrap_or_default();
    let descriptor = get_dict(doc, dict, b"FontDescriptor");
    let (scale, height) = if type3 {
        let m: Vec<f64> = get_array(doc, dict, b"FontMatrix")
            .unwrap_or_default()
            .iter()
            .filter_map(num)
            .collect();
        match m.as_slice() {
            [a, _, _, d, ..] if a.is_finite() && d.is_finite() && *a != 0.0 => {
                (*a, (d / a).abs().clamp(0.01, 100.0))
            }
            _ => (0.001, 1.0),
        }
    } else {
        (0.001, 1.0)
    };

    // Glyph names per code: the base encoding, else the font program's built-in one.
    let mut names: [Option<String>; 256] = std::array::from_fn(|_| None);
    let enc_obj = get(doc, dict, b"Encoding");
    let (base, diffs) = match enc_obj {
        Some(Object::Name(n)) => (Base::from_name(n), None),
        Some(Object::Dictionary(d)) => (
            get_name(doc, d, b"BaseEncoding").and_then(Base::from_name),
            get_array(doc, d, b"Differences"),
        ),
        _ => (None, None),
    };
    let symbolic_name = if base_name.starts_with("Symbol") {
        Some(Base::Symbol)
    } else if base_name.starts_with("ZapfDingbats") || base_name.starts_with("Dingbats") {
        Some(Base::ZapfDingbats)
    } else {
        None
    };
    // The font program is decompressed and read only when it can matter: for
    // its built-in encoding, or for a TrueType font's own cmap, and never
    // when a ToUnicode map supplies the text.
    let needs_program =
        !has_to_unicode && ((base.is_none() && symbolic_name.is_none()) || subtype == b"TrueType");
    let program = descriptor
        .filter(|_| needs_program)
        .and_then(|d| embedded::Program::load(doc, d, limits, warnings));
    let builtin = program
        .as_ref()
        .map(|p| p.builtin_names())
        .unwrap_or_default();
    let mut text: Box<[Option<Box<str>>; 256]> = Box::new(std::array::from_fn(|_| None));
    let fill_base = |b: Base, text: &mut [Option<Box<str>>; 256]| {
        for (i, slot) in text.iter_mut().enumerate() {
            *slot = b.decode(i as u8).map(|c| c.to_string().into_boxed_str());
        }
    };
    if let Some(b) = base {
        fill_base(b, &mut text);
    } else if let Some(b) = symbolic_name {
        fill_base(b, &mut text);
    } else if !builtin.is_empty() {
        for (code, name) in builtin {
            if let Some(slot) = names.get_mut(usize::from(code)) {
                *slot = Some(name);
            }
        }
    } else if !type3 {
        let symbolic = descriptor
            .and_then(|d| get(doc, d, b"Flags"))
            .and_then(num)
            .is_some_and(|f| (f as i64) & 4 != 0);
        if !(symbolic && subtype == b"TrueType") {
            // An embedded TrueType font without a usable built-in encoding
            // reads as WinAnsi; any other font, including a TrueType font
            // that is not embedded, as StandardEncoding (pdftotext does).
            fill_base(
                if subtype == b"TrueType" && program.is_some() {
                    Base::WinAnsi
                } else {
                    Base::Standard
                },
                &mut text,
            );
        }
    }
    if let Some(d) = diffs {
        encoding::apply_differences(doc, d, &mut names);
    }
    // Each code's glyph name as pdftotext sees it (for the Type 3 size guess):
    // `/Differences`, else the base encoding's character.
    let named: Vec<Option<String>> = names
        .iter()
        .zip(text.iter())
        .map(|(n, t)| n.clone().or_else(|| t.as_deref().map(str::to_string)))
        .collect();
    for (i, name) in names.iter().enumerate() {
        let Some(name) = name else { continue };
        // Unknown names (`g42`, `cid12`, `a1`, …): the code itself read as
        // Latin-1, as pdftotext does (it does not read numbers out of names).
        let decoded = encoding::glyph_name_to_unicode(name)
            .or_else(|| program.as_ref().and_then(|p| p.text_for_name(name)))
            .or_else(|| {
                let c = char::from(i as u8);
                (!c.is_control()).then(|| c.to_string())
            });
        if let (Some(slot), Some(t)) = (text.get_mut(i), decoded) {
            *slot = Some(t.into_boxed_str());
        }
    }
    if type3 {
        for (i, slot) in text.iter_mut().enumerate() {
            let c = char::from(i as u8);
            if slot.is_none() && !c.is_control() {
                *slot = Some(c.to_string().into_boxed_str());
            }
        }
    }
    // Codes still without text: the embedded font's own cmap (symbolic TrueType).
    if let Some(p) = &program {
        for (i, slot) in text.iter_mut().enumerate() {
            if slot.is_none() {
                *slot = p
                    .text_for_code(i as u8)
                    .map(|c| c.to_string().into_boxed_str());
            }
        }
    } else if subtype == b"TrueType" && base.is_none() && diffs.is_none() {
        // A TrueType font with no encoding and no program to read: codes
        // pass through as Latin-1 (what pdftotext prints).
        for (i, slot) in text.iter_mut().enumerate() {
            let c = char::from(i as u8);
            if slot.is_none() && !c.is_control() {
                *slot = Some(c.to_string().into_boxed_str());
            }
        }
    }

    let mut widths = Box::new([0.0f64; 256]);
    let missing = descriptor
        .and_then(|d| get(doc, d, b"MissingWidth"))
        .and_then(num)
        .unwrap_or(0.0);
    match get_array(doc, dict, b"Widths") {
        Some(ws) => {
            let first = get(doc, dict, b"FirstChar")
                .and_then(num)
                .unwrap_or(0.0)
                .clamp(0.0, 255.0) as usize;
            for w in widths.iter_mut() {
                *w = missing * scale;
            }
            for (slot, w) in widths
                .iter_mut()
                .skip(first)
                .zip(ws.iter().take(MAX_SIMPLE_WIDTHS))
            {
                *slot = deref(doc, w).and_then(num).unwrap_or(missing) * scale;
            }
        }
        None => {
            let table = std14_table(&base_name);
            for (i, w) in widths.iter_mut().enumerate() {
                let t = text.get(i).and_then(|t| t.as_deref());
                *w = match table {
                    Std14::Mono => 0.6,
                    Std14::Table(tab) => t
                        .and_then(|t| t.chars().next())
                        .and_then(|c| tab.binary_search_by_key(&c, |(k, _)| *k).ok())
                        .and_then(|i| tab.get(i))
                        .map(|(_, w)| f64::from(*w) / 1000.0)
                        .unwrap_or_else(|| standard_width_guess(t)),
                    Std14::Unknown => standard_width_guess(t),
                };
            }
        }
    }
    let height = if type3 {
        height * type3_size_factor(&named, &widths)
    } else {
        height
    };
    Font {
        kind: Kind::Simple { text, widths },
        to_unicode: None,
        vertical: false,
        scale,
        height,
        warnings: Vec::new(),
    }
}

/// A Type 3 font's glyphs are drawn in a private grid, so its size on the
/// page is unknown until a glyph is measured; pdftotext guesses it from one
/// advance width (text space units per 1 unit of font size): the glyph `m`
/// against a generic 0.6 em, else the first one-letter glyph name against
/// 0.5 em, else the first named glyph with a width against 0.5 em. Using the
/// same guess keeps word and line grouping (thresholds are fractions of the
/// size) where pdftotext puts them. 1 when nothing fits.
fn type3_size_factor(names: &[Option<String>], widths: &[f64; 256]) -> f64 {
    let width = |code: usize| {
        widths
            .get(code)
            .copied()
            .filter(|w| *w > 0.0 && w.is_finite())
    };
    let one_char = |n: &Option<String>| -> Option<char> {
        let mut chars = n.as_deref()?.chars();
        let c = chars.next()?;
        chars.next().is_none().then_some(c)
    };
    let m = names.iter().rposition(|n| one_char(n) == Some('m'));
    let letter = names
        .iter()
        .position(|n| one_char(n).is_some_and(|c| c.is_ascii_alphabetic()));
    let any = names
        .iter()
        .enumerate()
        .position(|(code, n)| n.is_some() && width(code).is_some());
    let factor = match (
        m.and_then(width),
        letter.and_then(width),
        any.and_then(width),
    ) {
        (Some(w), _, _) => w / 0.6,
        (None, Some(w), _) | (None, None, Some(w)) => w / 0.5,
        (None, None, None) => 1.0,
    };
    factor.clamp(0.01, 100.0)
}

enum Std14 {
    Mono,
    Table(&'static [(char, u16)]),
    Unknown,
}

/// The standard-14 metrics for a base font name (with the usual aliases:
/// Arial = Helvetica, TimesNewRoman = Times; §9.6.2.2 and Annex D).
fn std14_table(name: &str) -> Std14 {
    use super::std14::*;
    let lower = name.to_ascii_lowercase();
    let bold = lower.contains("bold");
    let italic = lower.contains("italic") || lower.contains("oblique");
    if lower.starts_with("courier") {
        Std14::Mono
    } else if lower.starts_with("times") {
        Std14::Table(match (bold, italic) {
            (false, false) => TIMES_ROMAN,
            (true, false) => TIMES_BOLD,
            (false, true) => TIMES_ITALIC,
            (true, true) => TIMES_BOLD_ITALIC,
        })
    } else if lower.starts_with("helvetica") || lower.starts_with("arial") {
        Std14::Table(match (bold, italic) {
            (false, false) => HELVETICA,
            (true, false) => HELVETICA_BOLD,
            (false, true) => HELVETICA_OBLIQUE,
            (true, true) => HELVETICA_BOLD_OBLIQUE,
        })
    } else {
        Std14::Unknown
    }
}

/// Approximate advance of a character in a proportional standard font (no
/// `/Widths` given): close enough to tell a word gap from letter spacing.
fn standard_width_guess(text: Option<&str>) -> f64 {
    let Some(c) = text.and_then(|t| t.chars().next()) else {
        return 0.5;
    };
    match c {
        ' ' => 0.25,
        'i' | 'j' | 'l' | '.' | ',' | ':' | ';' | '\'' | '!' | '|' => 0.25,
        'f' | 't' | 'r' | 'I' | '(' | ')' | '[' | ']' | '-' => 0.33,
        'm' | 'w' => 0.8,
        'M' | 'W' => 0.9,
        'A'..='Z' => 0.68,
        '0'..='9' => 0.55,
        _ => 0.5,
    }
}

fn load_composite(
    doc: &Document,
    dict: &Dictionary,
    limits: &TextLimits,
    has_to_unicode: bool,
    warnings: &mut Vec<String>,
) -> Font {
    let mut vertical = false;
    let encoding = match get(doc, dict, b"Encoding") {
        Some(Object::Name(n)) => {
            let name = String::from_utf8_lossy(n);
            vertical = name.ends_with("-V");
            if name.starts_with("Identity") {
                CidEncoding::Identity
            } else if let Some(l) = Legacy::from_cmap_name(&name) {
                CidEncoding::Legacy(l)
            } else {
                warnings.push(format!(
                    "unsupported predefined CMap {name}; using Identity"
                ));
                CidEncoding::Identity
            }
        }
        Some(Object::Stream(s)) => {
            vertical = get(doc, &s.dict, b"WMode")
                .and_then(num)
                .is_some_and(|w| w == 1.0);
            match crate::pdf::stream::decode_stream(s, limits.max_stream_bytes) {
                Ok(b) => {
                    let cmap = CMap::parse(&b);
                    let legacy = cmap.use_cmap.as_deref().and_then(Legacy::from_cmap_name);
                    CidEncoding::Embedded(Box::new(cmap), legacy)
                }
                Err(e) => {
                    warnings.push(format!("encoding CMap: {e}"));
                    CidEncoding::Identity
                }
            }
        }
        _ => {
            warnings.push("Type0 font without a usable /Encoding; using Identity".into());
            CidEncoding::Identity
        }
    };
    let descendant = get_array(doc, dict, b"DescendantFonts")
        .and_then(|a| a.first())
        .and_then(|o| deref(doc, o))
        .and_then(|o| match o {
            Object::Dictionary(d) => Some(d),
            _ => None,
        });
    let mut widths = HashMap::new();
    let mut default_width = 1000.0;
    let mut cid_text = HashMap::new();
    let mut collection = None;
    let mut identity = false;
    if let Some(desc) = descendant {
        let ordering = get_dict(doc, desc, b"CIDSystemInfo")
            .and_then(|info| get(doc, info, b"Ordering"))
            .and_then(|o| o.as_str().ok());
        collection = ordering.and_then(Collection::from_ordering);
        identity = !has_to_unicode && matches!(ordering, Some(b"Identity" | b"UCS"));
        if let Some(dw) = get(doc, desc, b"DW").and_then(num) {
            default_width = dw;
        }
        if let Some(w) = get_array(doc, desc, b"W") {
            read_cid_widths(doc, w, &mut widths);
        }
        // The embedded font's cmap is only read when no ToUnicode covers the font.
        if let Some(fd) = get_dict(doc, desc, b"FontDescriptor").filter(|_| !has_to_unicode) {
            if let Some(p) = embedded::Program::load(doc, fd, limits, warnings) {
                let map = cid_to_gid(doc, desc, limits, warnings);
                cid_text = p.cid_text(map.as_deref());
                identity = false;
            }
        }
    } else {
        warnings.push("Type0 font without DescendantFonts".into());
    }
    Font {
        kind: Kind::Composite {
            encoding,
            widths,
            default_width,
            cid_text,
            collection,
            identity,
        },
        to_unicode: None,
        vertical,
        scale: 0.001,
        height: 1.0,
        warnings: Vec::new(),
    }
}

/// `/CIDToGIDMap` as a table (None for Identity or absent).
fn cid_to_gid(
    doc: &Document,
    desc: &Dictionary,
    limits: &TextLimits,
    warnings: &mut Vec<String>,
) -> Option<Vec<u16>> {
    let bytes = stream_bytes(doc, desc, b"CIDToGIDMap", limits, warnings)?;
    Some(
        bytes
            .chunks(2)
            .take(usize::from(u16::MAX) + 1)
            .map(|p| match p {
                [h, l] => u16::from_be_bytes([*h, *l]),
                _ => 0,
            })
            .collect(),
    )
}

/// Reads `/W`: `c [w1 w2 …]` and `c_first c_last w` entries.
fn read_cid_widths(doc: &Document, w: &[Object], out: &mut HashMap<u32, f64>) {
    let mut i = 0usize;
    let mut budget = MAX_W_ENTRIES;
    while i < w.len() && budget > 0 {
        let first = w.get(i).and_then(|o| deref(doc, o)).and_then(num);
        let second = w.get(i + 1).and_then(|o| deref(doc, o));
        match (first, second) {
            (Some(c), Some(Object::Array(ws))) => {
                let c = c.max(0.0) as u32;
                for (k, wv) in ws.iter().enumerate().take(budget) {
                    if let Some(v) = deref(doc, wv).and_then(num) {
                        out.insert(c.saturating_add(k as u32), v);
                    }
                    budget -= 1;
                }
                i += 2;
            }
            (Some(c1), Some(o)) => {
                let (Some(c2), Some(v)) = (
                    num(o),
                    w.get(i + 2).and_then(|o| deref(doc, o)).and_then(num),
                ) else {
                    return;
                };
                let (c1, c2) = (c1.max(0.0) as u32, c2.max(0.0) as u32);
                for c in (c1..=c2).take(budget) {
                    out.insert(c, v);
                    budget -= 1;
                }
                i += 3;
            }
            _ => return,
        }
    }
}
