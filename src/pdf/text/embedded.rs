//! Embedded font programs, read only for what text extraction needs when a
//! font has no ToUnicode: the built-in encoding (Type 1 `/Encoding` array,
//! CFF encoding + charset) and TrueType/OpenType cmaps (via `ttf-parser`).
//! PDF 32000-1:2008 §9.9 (embedded font programs).

use std::collections::HashMap;

use lopdf::{Dictionary, Document, Object};

use super::TextLimits;

/// Highest code point probed in an embedded font's Unicode cmap (the BMP).
pub const MAX_CMAP_PROBE: u32 = 0xFFFF;

/// Most bytes of a Type 1 font's clear-text part scanned for its encoding.
pub const MAX_TYPE1_CLEARTEXT: usize = 256 * 1024;

/// An embedded font program.
pub enum Program {
    /// `/FontFile`: Type 1; only its built-in encoding is kept.
    Type1(Vec<(u8, String)>),
    /// `/FontFile2` (TrueType) or `/FontFile3` `/OpenType`.
    Sfnt(Vec<u8>),
    /// `/FontFile3` `/Type1C` or `/CIDFontType0C`: bare CFF.
    Cff(Vec<u8>),
}

impl Program {
    /// Loads the font program referenced by the font descriptor `fd`, if any.
    pub fn load(
        doc: &Document,
        fd: &Dictionary,
        limits: &TextLimits,
        warnings: &mut Vec<String>,
    ) -> Option<Program> {
        for key in [&b"FontFile2"[..], b"FontFile3", b"FontFile"] {
            let Ok(obj) = fd.get(key) else { continue };
            let Some(obj) = crate::pdf::object::deref(doc, obj) else {
                continue;
            };
            let Object::Stream(s) = obj else { continue };
            let data = match crate::pdf::stream::decode_stream(s, limits.max_stream_bytes) {
                Ok(d) => d,
                Err(e) => {
                    warnings.push(format!("embedded font: {e}"));
                    return None;
                }
            };
            return Some(match key {
                b"FontFile" => Program::Type1(type1_encoding(&data)),
                b"FontFile3" => {
                    let sub = s.dict.get(b"Subtype").ok().and_then(|o| o.as_name().ok());
                    if sub == Some(&b"OpenType"[..]) {
                        Program::Sfnt(data)
                    } else {
                        Program::Cff(data)
                    }
                }
                _ => Program::Sfnt(data),
            });
        }
        None
    }

    /// The built-in encoding as (code, glyph name) pairs.
    pub fn builtin_names(&self) -> Vec<(u8, String)> {
        match self {
            Program::Type1(names) => names.clone(),
            Program::Cff(data) => cached_cff_names(data),
            Program::Sfnt(_) => Vec::new(),
        }
    }

    /// Text for a glyph name not in the glyph list: none known beyond the list.
    pub fn text_for_name(&self, _name: &str) -> Option<String> {
        None
    }

    /// Text for a simple font's code through a TrueType font's own cmap:
    /// (3,0) symbol subtable at `0xF000 + code`, else (1,0) Mac Roman, then the
    /// glyph's `post` name or its Unicode cmap entry.
    pub fn text_for_code(&self, code: u8) -> Option<char> {
        let Program::Sfnt(data) = self else {
            return None;
        };
        let face = ttf_parser::Face::parse(data, 0).ok()?;
        let cmap = face.tables().cmap?;
        let mut gid = None;
        for sub in cmap.subtables {
            let found = match (sub.platform_id, sub.encoding_id) {
                (ttf_parser::PlatformId::Windows, 0) => sub
                    .glyph_index(0xF000 + u32::from(code))
                    .or_else(|| sub.glyph_index(u32::from(code))),
                (ttf_parser::PlatformId::Macintosh, 0) => sub.glyph_index(u32::from(code)),
                _ => None,
            };
            if found.is_some() {
                gid = found;
                break;
            }
        }
        let gid = gid?;
        if let Some(name) = face.glyph_name(gid) {
            if let Some(t) = super::encoding::glyph_name_to_unicode(name) {
                return t.chars().next();
            }
        }
        None
    }

    /// CID → character through the font's Unicode cmap, inverted; `cid_to_gid`
    /// maps CIDs to glyph ids (identity when absent).
    pub fn cid_text(&self, cid_to_gid: Option<&[u16]>) -> HashMap<u32, char> {
        let Program::Sfnt(data) = self else {
            return HashMap::new();
        };
        let Ok(face) = ttf_parser::Face::parse(data, 0) else {
            return HashMap::new();
        };
        let Some(cmap) = face.tables().cmap else {
            return HashMap::new();
        };
        // Probe the Basic Multilingual Plane code point by code point: a
        // bounded amount of work whatever ranges the (untrusted) cmap claims.
        let mut gid_char: HashMap<u16, char> = HashMap::new();
        if let Some(sub) = cmap.subtables.into_iter().find(|s| s.is_unicode()) {
            for cp in 0x20..=MAX_CMAP_PROBE {
                let (Some(g), Some(c)) = (sub.glyph_index(cp), char::from_u32(cp)) else {
                    continue;
                };
                // Keep the first (smallest) non-private-use code point of a glyph.
                let e = gid_char.entry(g.0).or_insert(c);
                if is_pua(*e) && !is_pua(c) {
                    *e = c;
                }
            }
        }
        match cid_to_gid {
            None => gid_char
                .into_iter()
                .map(|(g, c)| (u32::from(g), c))
                .collect(),
            Some(map) => map
                .iter()
                .enumerate()
                .filter_map(|(cid, g)| gid_char.get(g).map(|c| (cid as u32, *c)))
                .collect(),
        }
    }
}

fn is_pua(c: char) -> bool {
    ('\u{E000}'..='\u{F8FF}').contains(&c)
}

/// Reads `dup <code> /<name> put` entries of a Type 1 font's clear-text
/// `/Encoding` array (before `eexec`). `StandardEncoding` fonts give none.
fn type1_encoding(data: &[u8]) -> Vec<(u8, String)> {
    let clear = data
        .get(..data.len().min(MAX_TYPE1_CLEARTEXT))
        .unwrap_or_default();
    let end = find(clear, b"eexec").unwrap_or(clear.len());
    let clear = clear.get(..end).unwrap_or_default();
    let Some(start) = find(clear, b"/Encoding") else {
        return Vec::new();
    };
    let text = String::from_utf8_lossy(clear.get(start..).unwrap_or_default());
    let mut out = Vec::new();
    let words: Vec<&str> = text.split_ascii_whitespace().collect();
    for w in words.windows(4) {
        if let [dup, code, name, put] = w {
            if *dup == "dup" && *put == "put" {
                if let (Ok(c), Some(n)) = (code.parse::<u8>(), name.strip_prefix('/')) {
                    out.push((c, n.to_string()));
                }
            }
        }
        if w.first() == Some(&"readonly") || w.first() == Some(&"def") && !out.is_empty() {
            break;
        }
    }
    out
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// Most CFF encodings remembered per thread (content-addressed, so the same
/// subset font on every page of a document is read once).
pub const MAX_CACHED_PROGRAMS: usize = 256;

type NameCache = HashMap<(u64, usize), Vec<(u8, String)>>;

thread_local! {
    static CFF_NAMES: std::cell::RefCell<NameCache> = std::cell::RefCell::new(HashMap::new());
}

/// [`cff_names`], remembered by a hash of the font program's bytes.
fn cached_cff_names(data: &[u8]) -> Vec<(u8, String)> {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    data.hash(&mut h);
    let key = (h.finish(), data.len());
    if let Some(v) = CFF_NAMES.with(|c| c.borrow().get(&key).cloned()) {
        return v;
    }
    let names = cff_names(data);
    CFF_NAMES.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() >= MAX_CACHED_PROGRAMS {
            c.clear();
        }
        c.insert(key, names.clone());
    });
    names
}

/// The built-in encoding of a bare CFF font: code → glyph → glyph name.
fn cff_names(data: &[u8]) -> Vec<(u8, String)> {
    let Some(cff) = ttf_parser::cff::Table::parse(data) else {
        return Vec::new();
    };
    (0..=255u8)
        .filter_map(|code| {
            let gid = cff.glyph_index(code)?;
            if gid.0 == 0 {
                return None;
            }
            Some((code, cff.glyph_name(gid)?.to_string()))
        })
        .collect()
}
