//! Tool poisoning: invisible or deceptive characters in tool definitions
//! and results, which a model reads but a person reviewing the text does not
//! see.
//!
//! Decided by Unicode property (the ICU4X tables of `icu_properties`, not a
//! hand-written list), so every character of a kind is flagged, including
//! those added in later Unicode versions:
//! * tag characters (U+E0000–U+E007F, which can spell a whole hidden
//!   instruction);
//! * `Bidi_Control` characters (embeddings, overrides, isolates, marks);
//! * invisible characters: general category `Cf` (format: zero-width
//!   characters, the soft hyphen, interlinear annotation, deprecated format
//!   controls, BOM), `Default_Ignorable_Code_Point` (Hangul fillers, the
//!   combining grapheme joiner, ...), `Variation_Selector` (a whole
//!   instruction can hide after one emoji: VS1–VS256), the line and
//!   paragraph separators (`Zl`, `Zp`: U+2028, U+2029), and code points no
//!   font draws: unassigned (`Cn`, the 66 noncharacters among them, and
//!   whatever a later Unicode version than the tables' assigns) and private
//!   use (`Co`, which carries whatever meaning its reader gives it);
//! * ANSI escape sequences (ESC and C1 CSI: colour, cursor movement, OSC
//!   titles and links);
//! * the other control characters (`Cc`) but tab, line feed and carriage
//!   return.

use icu_properties::props::{
    BidiControl, DefaultIgnorableCodePoint, GeneralCategory, VariationSelector,
};
use icu_properties::{CodePointMapData, CodePointSetData};
use serde_json::{Map, Value};

/// What to do with poisoned text (`--poison`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PoisonMode {
    /// Log it and pass it on unchanged.
    Keep,
    /// Log it and remove the characters (the default).
    #[default]
    Strip,
    /// Log it; hide a poisoned tool and refuse a poisoned result.
    Refuse,
}

impl PoisonMode {
    /// Parses `keep`, `strip` or `refuse`.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "keep" => Some(Self::Keep),
            "strip" => Some(Self::Strip),
            "refuse" => Some(Self::Refuse),
            _ => None,
        }
    }
}

/// Counts of what was found, by kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Findings {
    /// Unicode tag characters.
    pub tags: usize,
    /// Bidirectional controls.
    pub bidi: usize,
    /// Invisible characters (format, default-ignorable, variation
    /// selectors, line and paragraph separators, unassigned code points and
    /// noncharacters, private use).
    pub invisible: usize,
    /// ANSI escape sequences (each counted once, however long).
    pub ansi: usize,
    /// Other control characters.
    pub controls: usize,
    /// Object keys that equal another key of their object once their
    /// hidden characters are removed (`"k\u{200B}"` beside `"k"`): stripping
    /// would rename one member onto another, after the gateway decided on
    /// the first. Never renamed: see [`clean_value`].
    pub collisions: usize,
}

impl Findings {
    /// `true` when nothing was found.
    pub fn is_clean(&self) -> bool {
        *self == Self::default()
    }

    fn add(&mut self, o: Findings) {
        self.tags += o.tags;
        self.bidi += o.bidi;
        self.invisible += o.invisible;
        self.ansi += o.ansi;
        self.controls += o.controls;
        self.collisions += o.collisions;
    }

    /// A short human summary, e.g. `3 tag characters, 1 ANSI escape`.
    pub fn summary(&self) -> String {
        let parts = [
            (self.tags, "tag character"),
            (self.bidi, "bidi control"),
            (self.invisible, "invisible character"),
            (self.ansi, "ANSI escape"),
            (self.controls, "control character"),
        ];
        let mut v: Vec<String> = parts
            .iter()
            .filter(|(n, _)| *n > 0)
            .map(|(n, what)| format!("{n} {what}{}", if *n == 1 { "" } else { "s" }))
            .collect();
        match self.collisions {
            0 => {}
            1 => v.push("1 key equal to another key once its hidden characters are removed".into()),
            n => v.push(format!(
                "{n} keys equal to other keys once their hidden characters are removed"
            )),
        }
        v.join(", ")
    }
}

enum Class {
    Tag,
    Bidi,
    Invisible,
    Control,
}

fn class(c: char) -> Option<Class> {
    if matches!(c, '\t' | '\n' | '\r') {
        return None;
    }
    if ('\u{E0000}'..='\u{E007F}').contains(&c) {
        return Some(Class::Tag);
    }
    if CodePointSetData::new::<BidiControl>().contains(c) {
        return Some(Class::Bidi);
    }
    let gc = CodePointMapData::<GeneralCategory>::new().get(c);
    if gc == GeneralCategory::Control {
        return Some(Class::Control);
    }
    if matches!(
        gc,
        GeneralCategory::Format
            | GeneralCategory::LineSeparator
            | GeneralCategory::ParagraphSeparator
            | GeneralCategory::Unassigned
            | GeneralCategory::PrivateUse
    ) || CodePointSetData::new::<DefaultIgnorableCodePoint>().contains(c)
        || CodePointSetData::new::<VariationSelector>().contains(c)
    {
        return Some(Class::Invisible);
    }
    None
}

/// Scans `text`; returns the findings and, when any, the text without them.
pub fn clean(text: &str) -> (Findings, Option<String>) {
    // Fast path: printable ASCII, tab, LF and CR only.
    if text
        .bytes()
        .all(|b| (0x20..0x7f).contains(&b) || matches!(b, b'\t' | b'\n' | b'\r'))
    {
        return (Findings::default(), None);
    }
    let mut f = Findings::default();
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' || c == '\u{9b}' {
            f.ansi += 1;
            skip_escape(c, &mut chars);
            continue;
        }
        match class(c) {
            Some(Class::Tag) => f.tags += 1,
            Some(Class::Bidi) => f.bidi += 1,
            Some(Class::Invisible) => f.invisible += 1,
            Some(Class::Control) => f.controls += 1,
            None => out.push(c),
        }
    }
    if f.is_clean() {
        (f, None)
    } else {
        (f, Some(out))
    }
}

/// Consumes the rest of an escape sequence that started with `first` (ESC or
/// C1 CSI): CSI parameters up to the final byte, OSC/DCS/PM/APC strings up
/// to BEL or ST, or the one character of a two-character escape.
fn skip_escape(first: char, chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    let kind = if first == '\u{9b}' {
        '['
    } else {
        match chars.next() {
            Some(k) => k,
            None => return,
        }
    };
    match kind {
        '[' => {
            // Parameter and intermediate bytes 0x20-0x3F, then a final 0x40-0x7E.
            for c in chars.by_ref() {
                if ('\u{40}'..='\u{7e}').contains(&c) || !('\u{20}'..='\u{3f}').contains(&c) {
                    break;
                }
            }
        }
        ']' | 'P' | '^' | '_' | 'X' => {
            // String until BEL or ESC \ .
            while let Some(c) = chars.next() {
                if c == '\u{7}' || c == '\u{9c}' {
                    break;
                }
                if c == '\u{1b}' {
                    if chars.peek() == Some(&'\\') {
                        chars.next();
                    }
                    break;
                }
            }
        }
        _ => {}
    }
}

/// Scans every string and object key of `value`, stripping what it finds
/// when `strip` is set, and returns the findings. There is no string
/// budget: a message that reaches here passed the strict layer, so it is
/// bounded in bytes (`--max-response-bytes`) and depth, and all of it is
/// scanned (a budget would forward the rest unscreened).
///
/// A key is never renamed onto another: a key whose stripped form equals
/// another key of its object (a clean one, or one stripped before it) is
/// counted in [`Findings::collisions`] and, when stripping, dropped with
/// its value. Callers that strip refuse such a message (or hide such a
/// definition): the gateway decided on the member the server put first.
pub fn clean_value(value: &mut Value, strip: bool) -> Findings {
    let mut total = Findings::default();
    let mut stack: Vec<&mut Value> = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::String(s) => {
                let (f, cleaned) = clean(s);
                total.add(f);
                if let (true, Some(c)) = (strip, cleaned) {
                    *s = c;
                }
                let data = s.trim_start().get(..5);
                if data.is_some_and(|d| d.eq_ignore_ascii_case("data:")) {
                    clean_encoded(s, strip, &mut total, Encoded::DataUri);
                }
            }
            Value::Array(a) => stack.extend(a.iter_mut()),
            Value::Object(m) => {
                if m.keys().any(|k| clean(k).1.is_some()) {
                    clean_keys(m, strip, &mut total);
                }
                if let Some(Value::String(blob)) = m.get_mut("blob") {
                    clean_encoded(blob, strip, &mut total, Encoded::Base64);
                }
                // An image's or audio's `data`: text whatever the MIME type
                // says, when it decodes to UTF-8.
                if m.contains_key("mimeType") {
                    if let Some(Value::String(data)) = m.get_mut("data") {
                        clean_encoded(data, strip, &mut total, Encoded::Base64);
                    }
                }
                stack.extend(m.values_mut());
            }
            _ => {}
        }
    }
    total
}

/// How a text the server sends is encoded inside a string.
#[derive(Debug, Clone, Copy)]
enum Encoded {
    /// A `blob` (MCP `BlobResourceContents`, an embedded resource): RFC
    /// 4648 base64.
    Base64,
    /// A `data:` URI (RFC 2397, read as WHATWG reads it): its payload
    /// percent-decoded, then base64 when the type ends in `;base64`.
    DataUri,
}

/// Screens the text a `blob` or a `data:` URI carries (a client shows a
/// `text/*` one as text, whatever the MIME type says): decoded, and when
/// it is UTF-8, screened as a string is; when stripping, written back
/// encoded (base64 with padding; a plain `data:` payload percent-encoded).
/// Binary contents (not UTF-8: images, audio) are left alone. Bounded by
/// the string's length (one decode, one screen).
fn clean_encoded(s: &mut String, strip: bool, total: &mut Findings, how: Encoded) {
    use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
    use base64::Engine as _;
    // Forgiving as WHATWG's base64 is: padding optional.
    let engine = GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
    );
    let without_space = |b: &[u8]| -> Vec<u8> {
        b.iter()
            .copied()
            .filter(|c| !c.is_ascii_whitespace())
            .collect()
    };
    // Node's `Buffer.from(s, "base64")` takes the URL-safe alphabet too.
    let url_safe = GeneralPurpose::new(
        &base64::alphabet::URL_SAFE,
        GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
    );
    let decode = |b: &[u8]| {
        let b = without_space(b);
        engine.decode(&b).or_else(|_| url_safe.decode(&b))
    };
    let (meta, bytes, base64) = match how {
        Encoded::Base64 => match decode(s.as_bytes()) {
            Ok(bytes) => (None, bytes, true),
            Err(_) => return,
        },
        Encoded::DataUri => {
            let Some((meta, payload)) = s.split_once(',') else {
                return;
            };
            let base64 = meta.trim_end().to_ascii_lowercase().ends_with(";base64");
            let decoded: Vec<u8> = percent_encoding::percent_decode_str(payload).collect();
            let bytes = if base64 {
                match decode(&decoded) {
                    Ok(bytes) => bytes,
                    Err(_) => return,
                }
            } else {
                decoded
            };
            (Some(meta.to_owned()), bytes, base64)
        }
    };
    let Ok(text) = String::from_utf8(bytes) else {
        return;
    };
    let (f, cleaned) = clean(&text);
    total.add(f);
    let (true, Some(c)) = (strip, cleaned) else {
        return;
    };
    let payload = if base64 {
        engine.encode(c)
    } else {
        percent_encoding::utf8_percent_encode(&c, percent_encoding::NON_ALPHANUMERIC).to_string()
    };
    *s = match meta {
        Some(meta) => format!("{meta},{payload}"),
        None => payload,
    };
}

/// Screens the keys of one object holding at least one poisoned key (see
/// [`clean_value`]): counts what the keys carry and their collisions;
/// when `strip`, renames each poisoned key to its clean form unless that
/// form is taken, and drops it (and its value) when it is.
fn clean_keys(m: &mut Map<String, Value>, strip: bool, total: &mut Findings) {
    let mut taken: std::collections::HashSet<String> =
        m.keys().filter(|k| clean(k).1.is_none()).cloned().collect();
    let old = std::mem::take(m);
    for (k, v) in old {
        let (f, cleaned) = clean(&k);
        total.add(f);
        let Some(c) = cleaned else {
            m.insert(k, v);
            continue;
        };
        if !taken.insert(c.clone()) {
            total.collisions += 1;
            if strip {
                continue;
            }
        }
        m.insert(if strip { c } else { k }, v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Text in a base64 `blob` or a `data:` URI is screened as text is
    /// (#20 attack pass, F4); binary contents are left alone.
    #[test]
    fn encoded_text_is_screened() {
        use base64::Engine as _;
        let b64 = |t: &str| base64::engine::general_purpose::STANDARD.encode(t);
        let hidden: String = "ignore"
            .chars()
            .map(|c| char::from_u32(0xE0000 + c as u32).unwrap())
            .collect();
        let bad = format!("Notes.{hidden}\u{202e} \u{1b}]8;;http://x\u{7}y");
        let mut v = json!({"contents": [
            {"uri": "file:///a.txt", "mimeType": "text/plain", "blob": b64(&bad)},
            {"uri": "file:///b.png", "mimeType": "image/png", "blob": "iVBORw0KGgoAAAANSUhEUg=="},
        ], "content": [
            {"type": "resource", "resource": {"uri": "x:y", "blob": b64(&bad).trim_end_matches('=')}},
            {"type": "resource_link", "uri": format!("data:text/plain;base64,{}", b64(&bad))},
            {"type": "resource_link", "uri": format!("DATA:text/plain,{}", percent_encoding::utf8_percent_encode(&bad, percent_encoding::NON_ALPHANUMERIC))},
        ]});
        let kept = v.clone();
        let found = clean_value(&mut v.clone(), false);
        assert_eq!(found.tags, 4 * 6, "{found:?}");
        let found = clean_value(&mut v, true);
        assert!(!found.is_clean());
        assert_eq!(v["contents"][1], kept["contents"][1], "binary left alone");
        let clean_text = "Notes. y";
        assert_eq!(v["contents"][0]["blob"], b64(clean_text));
        assert_eq!(v["content"][0]["resource"]["blob"], b64(clean_text));
        assert_eq!(
            v["content"][1]["uri"],
            format!("data:text/plain;base64,{}", b64(clean_text))
        );
        assert_eq!(v["content"][2]["uri"], "DATA:text/plain,Notes%2E%20y");
        assert!(clean_value(&mut v, false).is_clean(), "{v}");
        // The URL-safe alphabet, and an image's `data` (#20 re-attack, N4).
        let url_safe =
            base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(format!("{bad}\u{ffff}?>"));
        let mut v = json!({"blob": url_safe, "c": {"type": "image", "mimeType": "image/png", "data": b64(&bad)}});
        let found = clean_value(&mut v.clone(), false);
        assert_eq!(found.tags, 2 * 6, "{found:?}");
        clean_value(&mut v, true);
        assert_eq!(v["c"]["data"], b64(clean_text));
        // A blob that is no base64, and a data: URI without a comma, are
        // strings like any other.
        let mut odd = json!({"blob": "not base64!", "u": "data:text/plain"});
        assert!(clean_value(&mut odd, true).is_clean());
    }

    #[test]
    fn each_kind_found_and_stripped() {
        let hidden: String = "ignore"
            .chars()
            .map(|c| char::from_u32(0xE0000 + c as u32).unwrap())
            .collect();
        let cases = [
            (format!("Reads a file.{hidden}"), "Reads a file.", "1"),
            ("a\u{202E}b\u{2066}c".to_owned(), "abc", "2"),
            ("a\u{200B}b\u{FEFF}".to_owned(), "ab", "3"),
            ("\u{1b}[31mred\u{1b}[0m".to_owned(), "red", "4"),
            (
                "x\u{1b}]8;;http://e\u{7}link\u{1b}]8;;\u{1b}\\y".to_owned(),
                "xlinky",
                "5",
            ),
            ("a\u{8}b\u{9b}2Jc".to_owned(), "abc", "6"),
        ];
        for (input, want, n) in cases {
            let (f, out) = clean(&input);
            assert!(!f.is_clean(), "{n}");
            assert_eq!(out.as_deref(), Some(want), "{n}");
        }
        let (f, _) = clean(&hidden);
        assert_eq!(f.tags, 6);
        assert_eq!(f.summary(), "6 tag characters");
    }

    /// Code points no font draws: unassigned ones (noncharacters among
    /// them) and private use, in every plane (#20 attack pass, J).
    #[test]
    fn unassigned_noncharacters_and_private_use_are_invisible() {
        for c in [
            '\u{FDD0}',
            '\u{FDEF}',
            '\u{FFFE}',
            '\u{FFFF}',
            '\u{1FFFE}',
            '\u{10FFFF}',
            '\u{0378}',
            '\u{E0080}',
            '\u{E000}',
            '\u{F8FF}',
            '\u{F0000}',
            '\u{10FFFD}',
        ] {
            let (f, out) = clean(&format!("a{c}b"));
            assert_eq!(f.invisible, 1, "U+{:04X}", u32::from(c));
            assert_eq!(out.as_deref(), Some("ab"), "U+{:04X}", u32::from(c));
        }
        // Their assigned neighbours stay.
        for s in ["\u{FDFD}", "\u{FFFD}", "\u{1F600}", "\u{0377}", "\u{D7FB}"] {
            assert_eq!(clean(s), (Findings::default(), None), "{s:?}");
        }
    }

    #[test]
    fn clean_text_untouched() {
        for s in [
            "plain",
            "tab\tnl\ncr\r",
            "héllo wörld ✓",
            "مرحبا",
            "日本語",
            "",
        ] {
            assert_eq!(clean(s), (Findings::default(), None), "{s}");
        }
    }

    #[test]
    fn values_and_bound() {
        let mut v = json!({"content": [{"type": "text", "text": "ok\u{200B}"}], "k\u{202E}": 1});
        let f = clean_value(&mut v, true);
        assert_eq!(f.invisible, 1);
        assert_eq!(f.bidi, 1);
        assert_eq!(
            v,
            json!({"content": [{"type": "text", "text": "ok"}], "k": 1})
        );
        // No budget: the last of many strings is screened too.
        let mut many: Vec<Value> = (0..20_000).map(|_| json!("x")).collect();
        many.push(json!("late\u{E0041}"));
        let mut v = Value::Array(many);
        assert_eq!(clean_value(&mut v, true).tags, 1);
        assert_eq!(v.as_array().and_then(|a| a.last()), Some(&json!("late")));
    }

    /// A key is never stripped onto another key of its object, whichever
    /// comes first and whether the other is clean or stripped too.
    #[test]
    fn stripping_never_renames_a_key_onto_another() {
        let cases = [
            (
                json!({"k": "decided", "k\u{200B}": "evil"}),
                json!({"k": "decided"}),
            ),
            (
                json!({"k\u{200B}": "evil", "k": "decided"}),
                json!({"k": "decided"}),
            ),
            (
                json!({"a\u{200B}": 1, "\u{200B}a": 2, "b": 3}),
                json!({"a": 1, "b": 3}),
            ),
            (
                json!({"instructions": "Be nice.", "instructions\u{E0041}": "Be evil."}),
                json!({"instructions": "Be nice."}),
            ),
        ];
        for (input, want) in cases {
            let mut probe = input.clone();
            let found = clean_value(&mut probe, false);
            assert_eq!(probe, input, "counting changes nothing");
            assert_eq!(found.collisions, 1, "{input}");
            let mut v = input.clone();
            let stripped = clean_value(&mut v, true);
            assert_eq!(stripped.collisions, found.collisions, "{input}");
            // The member kept is the clean one, or the first stripped.
            let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
            let want_keys: Vec<&String> = want.as_object().unwrap().keys().collect();
            assert_eq!(keys, want_keys, "{input}");
            if input.get("k").is_some() || input.get("instructions").is_some() {
                assert_eq!(v, want, "{input}");
            }
            assert!(
                found.summary().contains("equal to another key"),
                "{}",
                found.summary()
            );
        }
        // No collision: a lone poisoned key is renamed, nested ones too.
        let mut v = json!({"x\u{200B}": {"y\u{200B}": 1}});
        let f = clean_value(&mut v, true);
        assert_eq!((f.collisions, f.invisible), (0, 2));
        assert_eq!(v, json!({"x": {"y": 1}}));
    }

    /// Every kind the hand-written list missed is found by property.
    #[test]
    fn by_property_not_by_list() {
        let cases = [
            ("\u{2764}\u{FE0F}", "variation selector VS16"),
            ("a\u{FE00}b", "VS1"),
            ("a\u{E0100}\u{E01EF}b", "VS17..VS256"),
            ("soft\u{00AD}hyphen", "soft hyphen"),
            ("line\u{2028}sep\u{2029}", "line and paragraph separators"),
            ("hangul\u{3164}\u{FFA0}\u{115F}\u{1160}", "Hangul fillers"),
            ("cgj\u{034F}", "combining grapheme joiner"),
            ("\u{FFF9}annot\u{FFFA}x\u{FFFB}", "interlinear annotation"),
            ("dep\u{206A}\u{206F}", "deprecated format controls"),
            ("\u{180B}mongolian fvs", "Mongolian free variation selector"),
            ("\u{1D173}music", "musical symbol format"),
            ("\u{061C}alm", "Arabic letter mark"),
        ];
        for (text, what) in cases {
            let (f, out) = clean(text);
            assert!(!f.is_clean(), "{what}");
            let out = out.unwrap_or_default();
            assert!(out.chars().all(|c| class(c).is_none()), "{what}: {out:?}");
        }
        // Visible text of every script stays.
        for s in ["e\u{301}", "한국어", "👍", "ñ", "a b"] {
            assert_eq!(clean(s).0, Findings::default(), "{s}");
        }
    }
}
