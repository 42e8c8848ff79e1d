//! Tool poisoning: invisible or deceptive characters in tool definitions
//! and results, which a model reads but a person reviewing the text does not
//! see.
//!
//! Flagged: Unicode tag characters (U+E0000–U+E007F, which can spell a
//! whole hidden instruction), bidirectional controls (U+061C, U+200E,
//! U+200F, U+202A–U+202E, U+2066–U+2069), zero-width and invisible
//! characters (U+200B–U+200D, U+2060–U+2064, U+180E, U+FEFF), ANSI escape
//! sequences (ESC and C1 CSI: colour, cursor movement, OSC titles and links)
//! and the other C0/C1 control characters but tab, line feed and carriage
//! return.

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
    /// Zero-width and invisible characters.
    pub invisible: usize,
    /// ANSI escape sequences (each counted once, however long).
    pub ansi: usize,
    /// Other control characters.
    pub controls: usize,
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
    }

    /// A short human summary, e.g. `3 tag characters, 1 ANSI escape`.
    pub fn summary(&self) -> String {
        let parts = [
            (self.tags, "tag character"),
            (self.bidi, "bidi control"),
            (self.invisible, "zero-width character"),
            (self.ansi, "ANSI escape"),
            (self.controls, "control character"),
        ];
        let v: Vec<String> = parts
            .iter()
            .filter(|(n, _)| *n > 0)
            .map(|(n, what)| format!("{n} {what}{}", if *n == 1 { "" } else { "s" }))
            .collect();
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
    match c {
        '\u{E0000}'..='\u{E007F}' => Some(Class::Tag),
        '\u{061C}'
        | '\u{200E}'
        | '\u{200F}'
        | '\u{202A}'..='\u{202E}'
        | '\u{2066}'..='\u{2069}' => Some(Class::Bidi),
        '\u{200B}'..='\u{200D}' | '\u{2060}'..='\u{2064}' | '\u{180E}' | '\u{FEFF}' => {
            Some(Class::Invisible)
        }
        '\t' | '\n' | '\r' => None,
        c if c.is_control() => Some(Class::Control),
        _ => None,
    }
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

/// Scans every string (and object key) of `value`, at most `max_strings`
/// of them, stripping what it finds when `strip` is set. Returns the
/// findings and whether the bound was reached (then the rest is unscanned).
pub fn clean_value(value: &mut Value, strip: bool, max_strings: usize) -> (Findings, bool) {
    let mut total = Findings::default();
    let mut budget = max_strings;
    let mut stack: Vec<&mut Value> = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::String(s) => {
                if budget == 0 {
                    return (total, true);
                }
                budget -= 1;
                let (f, cleaned) = clean(s);
                total.add(f);
                if let (true, Some(c)) = (strip, cleaned) {
                    *s = c;
                }
            }
            Value::Array(a) => stack.extend(a.iter_mut()),
            Value::Object(m) => {
                let dirty = m.keys().any(|k| clean(k).1.is_some());
                if dirty {
                    let old = std::mem::take(m);
                    let mut new = Map::new();
                    for (k, v) in old {
                        let (f, cleaned) = clean(&k);
                        total.add(f);
                        let key = match (strip, cleaned) {
                            (true, Some(c)) => c,
                            _ => k,
                        };
                        new.insert(key, v);
                    }
                    *m = new;
                }
                stack.extend(m.values_mut());
            }
            _ => {}
        }
    }
    (total, false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
        let (f, cut) = clean_value(&mut v, true, 100);
        assert!(!cut);
        assert_eq!(f.invisible, 1);
        assert_eq!(f.bidi, 1);
        assert_eq!(
            v,
            json!({"content": [{"type": "text", "text": "ok"}], "k": 1})
        );
        let mut v = json!(["a", "b", "c"]);
        assert!(clean_value(&mut v, true, 2).1);
    }
}
