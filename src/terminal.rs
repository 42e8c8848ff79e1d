//! Text that came from an untrusted file or process, made safe to print on
//! a terminal: no control character reaches it raw, so a file can neither
//! colour, move or retitle the terminal (ESC, CSI, OSC sequences, C1
//! controls) nor forge a line of our own (`\nerror: …`).
//!
//! The rules, one per kind of output:
//! * a message (an error, a warning, a metadata value printed as text, a
//!   child's stderr line): every control character (Unicode `Cc`: C0, DEL,
//!   C1; tab kept), every format character (`Cf`: bidirectional controls,
//!   zero-width and tag characters, …), the line and paragraph separators
//!   and every default-ignorable code point is written as an escape, `\x1b`
//!   or `\u{202e}` ([`escape_controls`], [`is_hidden_or_control`]);
//! * extracted text: every `Cc` character but newline and tab, and every
//!   bidirectional formatting character, becomes U+FFFD
//!   ([`printable_text`]); the layout survives, nothing else acts;
//! * JSON: serde_json escapes C0 itself; DEL, C1 and the bidirectional
//!   formatting characters, which it leaves raw, are escaped as `\u007f`,
//!   `\u009b`, `\u202e` ([`json_for_terminal`]).
//!
//! * a log record ([`LogWriter`]): a message, written whole, with its one
//!   ending newline kept, so a field from the wire cannot start a line.
//!
//! "Bidirectional formatting" here is Unicode's `Bidi_Control` set plus
//! the line and paragraph separators U+2028 and U+2029, which some
//! terminals and viewers break lines at.

use std::borrow::Cow;
use std::io::{self, Write};

/// Bidirectional formatting characters (`Bidi_Control`): they reorder what
/// a terminal shows, so a message could show another text than it holds;
/// and the line and paragraph separators (U+2028, U+2029).
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{2028}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Whether `c` is written as an escape in a message ([`escape_controls`],
/// and the PDF tools' warnings): a control character (`Cc`), a format
/// character (`Cf`: zero-width characters, bidirectional controls, the soft
/// hyphen, tag characters, …), a line or paragraph separator (`Zl`, `Zp`),
/// a default-ignorable code point (variation selectors, Hangul fillers,
/// the combining grapheme joiner), a private-use character (`Co`), a
/// noncharacter, or one of the two characters drawn as nothing (U+16FE4,
/// U+1D159): everything that acts on a terminal or shows as nothing (or as
/// a font's own glyph), so a message can neither drive the terminal nor
/// hold text a reader does not see. The table is Unicode 17's; a test
/// checks it against the ICU4X tables the gateway decides poisoning with.
/// Unassigned code points need those tables: the gateway's log escapes
/// them too ([`LogWriter::escaping`]).
pub fn is_hidden_or_control(c: char) -> bool {
    c.is_control()
        // Noncharacters: U+nFFFE and U+nFFFF of every plane.
        || u32::from(c) & 0xfffe == 0xfffe
        || matches!(
            c,
            '\u{ad}'
                | '\u{34f}'
                | '\u{600}'..='\u{605}'
                | '\u{61c}'
                | '\u{6dd}'
                | '\u{70f}'
                | '\u{890}'..='\u{891}'
                | '\u{8e2}'
                | '\u{115f}'..='\u{1160}'
                | '\u{17b4}'..='\u{17b5}'
                | '\u{180b}'..='\u{180f}'
                | '\u{200b}'..='\u{200f}'
                | '\u{2028}'..='\u{202e}'
                | '\u{2060}'..='\u{206f}'
                | '\u{3164}'
                | '\u{fe00}'..='\u{fe0f}'
                | '\u{feff}'
                | '\u{ffa0}'
                | '\u{fff0}'..='\u{fffb}'
                | '\u{110bd}'
                | '\u{110cd}'
                | '\u{13430}'..='\u{1343f}'
                | '\u{1bca0}'..='\u{1bca3}'
                | '\u{1d173}'..='\u{1d17a}'
                | '\u{e0000}'..='\u{e0fff}'
                | '\u{e000}'..='\u{f8ff}'
                | '\u{fdd0}'..='\u{fdef}'
                | '\u{16fe4}'
                | '\u{1d159}'
                | '\u{f0000}'..='\u{ffffd}'
                | '\u{100000}'..='\u{10fffd}'
        )
}

/// One message line with every control character (tab aside), format
/// character, line or paragraph separator and default-ignorable code point
/// ([`is_hidden_or_control`]) escaped, as `\xNN` (below U+0100) or
/// `\u{NNNN}`.
pub fn escape_controls(line: &str) -> Cow<'_, str> {
    escape_where(line, is_hidden_or_control)
}

/// [`escape_controls`] with `hidden` deciding which characters (tab aside)
/// are escaped.
fn escape_where(line: &str, hidden: impl Fn(char) -> bool) -> Cow<'_, str> {
    let escaped = |c: char| c != '\t' && hidden(c);
    if !line.chars().any(escaped) {
        return Cow::Borrowed(line);
    }
    let mut out = String::with_capacity(line.len().saturating_add(16));
    for c in line.chars() {
        if !escaped(c) {
            out.push(c);
        } else if u32::from(c) < 0x100 {
            out.push_str(&format!("\\x{:02x}", u32::from(c)));
        } else {
            out.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
        }
    }
    Cow::Owned(out)
}

/// Extracted text for a terminal: every control character but newline and
/// tab, and every bidirectional formatting character, replaced by U+FFFD.
pub fn printable_text(text: &str) -> Cow<'_, str> {
    let replaced = |c: char| (c.is_control() && c != '\n' && c != '\t') || is_bidi_control(c);
    if !text.chars().any(replaced) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(
        text.chars()
            .map(|c| if replaced(c) { '\u{fffd}' } else { c })
            .collect(),
    )
}

/// Serialized JSON with DEL, the C1 controls and the bidirectional
/// formatting characters (which serde_json writes raw) escaped as
/// `\uNNNN`: the same JSON value, inert on a terminal. Outside strings JSON
/// has no such characters, so escaping them everywhere is exact.
pub fn json_for_terminal(json: &str) -> Cow<'_, str> {
    let raw = |c: char| c == '\u{7f}' || ('\u{80}'..='\u{9f}').contains(&c) || is_bidi_control(c);
    if !json.chars().any(raw) {
        return Cow::Borrowed(json);
    }
    let mut out = String::with_capacity(json.len().saturating_add(16));
    for c in json.chars() {
        if raw(c) {
            out.push_str(&format!("\\u{:04x}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// A writer for log records (`tracing_subscriber`'s `with_writer`): every
/// write is taken as one record (the fmt layer writes each formatted event
/// at once) and written as a message ([`escape_controls`]), its one ending
/// newline kept. A method name or tool name quoted from the wire in a log
/// field can then neither drive the terminal nor forge a log line.
#[derive(Debug)]
pub struct LogWriter<W> {
    out: W,
    /// More characters to escape ([`LogWriter::escaping`]).
    also: Option<fn(char) -> bool>,
}

impl<W> LogWriter<W> {
    /// A writer escaping what [`escape_controls`] escapes.
    pub fn new(out: W) -> Self {
        Self { out, also: None }
    }

    /// A writer escaping what [`escape_controls`] escapes and every
    /// character `also` gives (the gateway's: unassigned code points, which
    /// its Unicode tables know; attack s73-B, F2).
    pub fn escaping(out: W, also: fn(char) -> bool) -> Self {
        Self {
            out,
            also: Some(also),
        }
    }
}

impl<W: Write> Write for LogWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let record = String::from_utf8_lossy(buf);
        let (body, end) = match record.strip_suffix('\n') {
            Some(body) => (body, "\n"),
            None => (&*record, ""),
        };
        let also = self.also;
        let mut line = escape_where(body, |c| {
            is_hidden_or_control(c) || also.is_some_and(|f| f(c))
        })
        .into_owned();
        line.push_str(end);
        self.out.write_all(line.as_bytes())?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The table holds every code point the ICU4X tables (the gateway's
    /// poisoning rule, `gate::poison`) give as `Cc`, `Cf`, `Zl`, `Zp`,
    /// default-ignorable or a variation selector; all it holds beyond them
    /// are unassigned code points of those blocks.
    #[cfg(feature = "gate")]
    #[test]
    fn the_table_covers_the_unicode_properties() {
        use icu_properties::props::{
            DefaultIgnorableCodePoint, GeneralCategory, VariationSelector,
        };
        use icu_properties::{CodePointMapData, CodePointSetData};
        let gc = CodePointMapData::<GeneralCategory>::new();
        let di = CodePointSetData::new::<DefaultIgnorableCodePoint>();
        let vs = CodePointSetData::new::<VariationSelector>();
        for c in (0..=0x10_FFFFu32).filter_map(char::from_u32) {
            let cat = gc.get(c);
            let want = matches!(
                cat,
                GeneralCategory::Control
                    | GeneralCategory::Format
                    | GeneralCategory::LineSeparator
                    | GeneralCategory::ParagraphSeparator
            ) || di.contains(c)
                || vs.contains(c);
            let want = want
                || cat == GeneralCategory::PrivateUse
                || matches!(c, '\u{16fe4}' | '\u{1d159}');
            let got = is_hidden_or_control(c);
            assert!(!want || got, "U+{:04X} is missing", u32::from(c));
            assert!(
                want || !got || cat == GeneralCategory::Unassigned,
                "U+{:04X} ({cat:?}) is escaped but visible",
                u32::from(c)
            );
        }
    }

    /// Private use, noncharacters and the characters drawn as nothing are
    /// escaped in a log record; with the gateway's predicate, unassigned
    /// code points too (attack s73-B, F2: `method=` and `tool=` fields
    /// showed them raw).
    #[test]
    fn log_records_escape_what_shows_as_nothing() {
        let mut plain = LogWriter::new(Vec::new());
        plain
            .write_all(
                "m=a\u{e000}b\u{f0000}\u{ffff}\u{fdd0}\u{16fe4}\u{1d159}\u{378} t\n".as_bytes(),
            )
            .unwrap();
        assert_eq!(
            String::from_utf8(plain.out).unwrap(),
            "m=a\\u{e000}b\\u{f0000}\\u{ffff}\\u{fdd0}\\u{16fe4}\\u{1d159}\u{378} t\n"
        );
        let unassigned = |c: char| c == '\u{378}';
        let mut gate = LogWriter::escaping(Vec::new(), unassigned);
        gate.write_all("x\u{378}\u{200b}é\n".as_bytes()).unwrap();
        assert_eq!(
            String::from_utf8(gate.out).unwrap(),
            "x\\u{378}\\u{200b}é\n"
        );
    }

    /// A tag or zero-width character in a log line (F12) is escaped.
    #[test]
    fn hidden_characters_are_escaped_in_messages() {
        assert_eq!(
            escape_controls("a\u{e0041}b\u{200b}c\u{fe0f}d\u{ad}"),
            "a\\u{e0041}b\\u{200b}c\\u{fe0f}d\\xad"
        );
        assert_eq!(escape_controls("é\t😀"), "é\t😀");
    }

    #[test]
    fn messages() {
        assert_eq!(
            escape_controls("a\u{1b}[31mb\tc\u{7}"),
            "a\\x1b[31mb\tc\\x07"
        );
        assert_eq!(escape_controls("x\nerror: forged"), "x\\x0aerror: forged");
        assert_eq!(
            escape_controls("\u{9b}2J \u{202e}txt"),
            "\\x9b2J \\u{202e}txt"
        );
        assert!(matches!(escape_controls("plain é"), Cow::Borrowed(_)));
    }

    #[test]
    fn text_and_json() {
        assert_eq!(
            printable_text("a\u{1b}]0;t\u{7}\nb\tc\u{9b}"),
            "a\u{fffd}]0;t\u{fffd}\nb\tc\u{fffd}"
        );
        assert_eq!(
            printable_text("\u{202e}cod\u{2066}e\u{2028}"),
            "\u{fffd}cod\u{fffd}e\u{fffd}"
        );
        let v =
            serde_json::json!({"k": "a\u{1b}\u{7f}\u{9b}b\n\u{202e}\u{2029}", "\u{200f}key": 1});
        let out = json_for_terminal(&serde_json::to_string_pretty(&v).unwrap()).into_owned();
        assert!(
            !out.chars()
                .any(|c| (c.is_control() && c != '\n') || is_bidi_control(c)),
            "{out:?}"
        );
        assert_eq!(serde_json::from_str::<serde_json::Value>(&out).unwrap(), v);
    }

    #[test]
    fn log_records_keep_one_line() {
        let mut w = LogWriter::new(Vec::new());
        w.write_all(b"DEBUG method=\"a\nERROR forged \x1b[2J\xe2\x80\xae\"\n")
            .unwrap();
        w.write_all(b"no newline").unwrap();
        let out = String::from_utf8(w.out).unwrap();
        // Flushing reaches the writer beneath.
        let mut w = LogWriter::new(io::BufWriter::new(Vec::new()));
        w.write_all(b"x\n").unwrap();
        assert!(w.out.get_ref().is_empty());
        w.flush().unwrap();
        assert_eq!(w.out.get_ref(), b"x\n");
        assert_eq!(
            out,
            "DEBUG method=\"a\\x0aERROR forged \\x1b[2J\\u{202e}\"\nno newline"
        );
    }

    proptest! {
        /// Nothing a terminal acts on survives; the JSON stays the same value.
        #[test]
        fn nothing_acts(s in "\\PC*|[\\x00-\\x1f\\x7f-\\u{9f}\\u{61c}\\u{200e}\\u{200f}\\u{2028}-\\u{202e}\\u{2066}-\\u{2069}a\n]{0,40}") {
            prop_assert!(!escape_controls(&s).chars().any(|c| (c.is_control() && c != '\t') || is_bidi_control(c)));
            prop_assert!(!printable_text(&s).chars().any(|c| (c.is_control() && c != '\n' && c != '\t') || is_bidi_control(c)));
            let json = serde_json::to_string(&s).unwrap();
            let safe = json_for_terminal(&json);
            prop_assert!(!safe.chars().any(|c| c.is_control() || is_bidi_control(c)));
            prop_assert_eq!(serde_json::from_str::<String>(&safe).unwrap(), s);
        }
    }
}
