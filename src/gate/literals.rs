//! JSON string literals written in a text, found and read as the lenient
//! readers real clients and servers use read them, shared by the answer
//! screen ([`super::poison`]) and the argument check ([`super::decide`]):
//! where the literals are ([`json_string_spans`], [`quoted_runs`]), what
//! each character of one reads as and the bytes that spell it
//! ([`spellings`]), and a literal written anew with characters removed and
//! every other one kept as written ([`respell`]).

/// The inside of a quoted run read character by character, the way a
/// parser that tolerates what is not JSON (JSON5, a model) would: each
/// character it reads as (`None` for a lone surrogate, which Python's
/// `json.loads` and JavaScript's `JSON.parse` keep) with the bytes of
/// `run` that spell it. `\"`, `\\`, `\/`, `\n`, `\r`, `\t` and `\uXXXX` (a
/// surrogate pair joined into its character) are decoded; an escape JSON
/// does not know (`\U`, `\d`, `\x41`, `\u12`) is kept as written: its
/// backslash alone reads as a backslash, then what follows as itself. A
/// `literal` (of a text that starts as JSON) reads `\b` and `\f` as JSON
/// does; any other run (in prose) keeps them as written, which there are a
/// path or a regex far more often than a backspace or a form feed
/// (`C:\bin`, `C:\files`, `\bword\b`). One pass.
pub(crate) fn spellings(run: &str, literal: bool) -> impl Iterator<Item = (Option<char>, &str)> {
    let mut rest = run;
    std::iter::from_fn(move || {
        let c = rest.chars().next()?;
        let (read, len) = match c {
            '\\' => json_escape(rest, literal).unwrap_or((Some('\\'), 1)),
            c => (Some(c), c.len_utf8()),
        };
        let (spelling, after) = rest.split_at_checked(len)?;
        rest = after;
        Some((read, spelling))
    })
}

/// The inside of a quoted run as [`spellings`] reads it, a lone surrogate
/// as U+FFFD (as a JavaScript string holding one reaches a model in UTF-8:
/// visible); but a `literal` holding one reads as no string (`None`:
/// fail closed).
pub(crate) fn read_json_escapes(run: &str, literal: bool) -> Option<String> {
    spellings(run, literal)
        .map(|(c, _)| match c {
            None if literal => None,
            c => Some(c.unwrap_or(char::REPLACEMENT_CHARACTER)),
        })
        .collect()
}

/// What the escape `s` starts with stands for (`None` for a lone
/// surrogate) and its length in bytes, for [`spellings`]; `None` when it
/// is kept as written (`\b` and `\f` too, unless `literal`).
fn json_escape(s: &str, literal: bool) -> Option<(Option<char>, usize)> {
    let c = match s.as_bytes().get(1)? {
        b'"' => '"',
        b'\\' => '\\',
        b'/' => '/',
        b'n' => '\n',
        b'r' => '\r',
        b't' => '\t',
        b'b' if literal => '\u{8}',
        b'f' if literal => '\u{c}',
        b'u' => {
            let high = hex_unit(s, 2)?;
            let low = s
                .get(6..8)
                .filter(|u| *u == "\\u")
                .and_then(|_| hex_unit(s, 8));
            return Some(
                match char::decode_utf16([high, low.unwrap_or_default()]).next() {
                    Some(Ok(c)) if c.len_utf16() == 2 => (Some(c), 12),
                    Some(Ok(c)) => (Some(c), 6),
                    _ => (None, 6),
                },
            );
        }
        _ => return None,
    };
    Some((Some(c), 2))
}

/// The four hex digits of `s` at byte `at`, as a UTF-16 code unit.
fn hex_unit(s: &str, at: usize) -> Option<u16> {
    let digits = s.get(at..at + 4)?;
    if !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u16::from_str_radix(digits, 16).ok()
}

/// How many spellings after a lone backslash or a lone surrogate decide
/// what it reads as: a backslash looks at the five bytes after it (`u` and
/// four hex digits), a high surrogate at the six after it (a low one's
/// `\uXXXX`), and each spelling is a byte or more.
const ESCAPE_LOOKAHEAD: usize = 6;

/// One piece of a run written anew ([`respell`]).
enum Piece {
    /// The spelling of the run's character at this index, as written.
    Kept(usize),
    /// Text the run did not hold, written as JSON writes it.
    New(String),
}

/// `run` (the inside of a quoted run) written anew to read, as
/// [`spellings`] reads it, as `cleaned`, a text made from its reading.
/// When `cleaned` is the reading with characters removed (what a screen
/// found hidden: a `\u200b`, a tag written as `\udb40\udc41`, a raw
/// character, an escape of JSON one layer down), only what spells them is
/// removed, every other character kept as written (an escape JSON does not
/// know, `\u0041`, `\n`, `\b` in prose); otherwise (a `data:` URI or
/// base64 written anew) what the two share at either end is kept as
/// written and the rest written as JSON writes it ([`json_string_body`]).
/// A lone backslash or surrogate that would read otherwise before what now
/// follows it (`\` then a removed character then `n`; `\ud83d`, a removed
/// one, `\ude00`; `\` at the end, before the closing quote) is written as
/// `\\` or U+FFFD, which read as it did. One pass over `run`, and one over
/// what is written.
pub(crate) fn respell(run: &str, literal: bool, cleaned: &str) -> String {
    let read: Vec<(Option<char>, &str)> = spellings(run, literal).collect();
    let pieces = pieces(&read, cleaned);
    let mut parts: Vec<&str> = pieces
        .iter()
        .map(|p| match p {
            Piece::Kept(i) => read.get(*i).map_or("", |r| r.1),
            Piece::New(text) => text.as_str(),
        })
        .collect();
    // From the last: what follows each one is written by then.
    for k in (0..pieces.len()).rev() {
        let Some(&Piece::Kept(i)) = pieces.get(k) else {
            continue;
        };
        let Some(&(c, spelling)) = read.get(i) else {
            continue;
        };
        let backslash = spelling == "\\";
        if c.is_some() && !backslash {
            // Any other spelling reads alone.
            continue;
        }
        let after = parts.get(k + 1..).unwrap_or_default().iter().copied();
        let now: String = std::iter::once(spelling)
            .chain(after.chain(std::iter::once("\"")).take(ESCAPE_LOOKAHEAD))
            .collect();
        let was = (!backslash).then_some((None, spelling.len()));
        if json_escape(&now, literal) != was {
            if let Some(p) = parts.get_mut(k) {
                *p = if backslash { "\\\\" } else { "\u{FFFD}" };
            }
        }
    }
    parts.concat()
}

/// What [`respell`] writes for `cleaned`, from the characters of a run
/// as read (a lone surrogate as U+FFFD) with their spellings: when
/// `cleaned` is the reading with characters removed, the spelling of each
/// character it keeps, matched in order (exactly the kept ones when no
/// removed character is one `cleaned` holds, as a hidden one never is);
/// else what the two share at either end kept and the rest new.
fn pieces(read: &[(Option<char>, &str)], cleaned: &str) -> Vec<Piece> {
    let char_of = |r: &(Option<char>, &str)| r.0.unwrap_or(char::REPLACEMENT_CHARACTER);
    let mut want = cleaned.chars().peekable();
    let mut pieces: Vec<Piece> = Vec::with_capacity(read.len());
    for (i, r) in read.iter().enumerate() {
        if want.next_if_eq(&char_of(r)).is_some() {
            pieces.push(Piece::Kept(i));
        }
    }
    if want.peek().is_none() {
        return pieces;
    }
    let wanted: Vec<char> = cleaned.chars().collect();
    let same = |&(r, w): &(&(Option<char>, &str), &char)| char_of(r) == *w;
    let head = read.iter().zip(&wanted).take_while(same).count();
    let (read_rest, wanted_rest) = (
        read.get(head..).unwrap_or_default(),
        wanted.get(head..).unwrap_or_default(),
    );
    let tail = read_rest
        .iter()
        .rev()
        .zip(wanted_rest.iter().rev())
        .take_while(same)
        .count();
    let middle: String = wanted_rest
        .get(..wanted_rest.len() - tail)
        .unwrap_or_default()
        .iter()
        .collect();
    (0..head)
        .map(Piece::Kept)
        .chain(std::iter::once(Piece::New(json_string_body(&middle))))
        .chain((read.len() - tail..read.len()).map(Piece::Kept))
        .collect()
}

/// `text` written as the inside of a JSON string literal (serde_json's
/// escapes, without the quotes).
pub(crate) fn json_string_body(text: &str) -> String {
    let quoted = serde_json::to_string(text).unwrap_or_default();
    quoted
        .strip_prefix('"')
        .and_then(|q| q.strip_suffix('"'))
        .unwrap_or_default()
        .to_owned()
}

/// Where the JSON string literal opened by the `"` at byte `open` of
/// `bytes` closes: its next `"` no backslash escapes; `None` when
/// unterminated.
fn literal_end(bytes: &[u8], open: usize) -> Option<usize> {
    let mut j = open + 1;
    while let Some(&c) = bytes.get(j) {
        match c {
            b'\\' => j += 2,
            b'"' => return Some(j),
            _ => j += 1,
        }
    }
    None
}

/// Byte ranges of the JSON string literals in `text` (each from its `"` to
/// its closing `"`, escapes skipped), read left to right; an unterminated
/// one is none. One pass.
pub(crate) fn json_string_spans(text: &str) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut spans = Vec::new();
    let mut i = 0;
    while let Some(open) = bytes
        .get(i..)
        .and_then(|b| b.iter().position(|&c| c == b'"'))
    {
        let Some(close) = literal_end(bytes, i + open) else {
            break;
        };
        spans.push((i + open, close + 1));
        i = close + 1;
    }
    spans
}

/// Every run of `text` that is a JSON string literal under one pairing of
/// its quotes or the other: from its first `"` to the next one no
/// backslash escapes, from that one to the next, and so on (byte ranges,
/// quotes included; neighbours share their quote). The literals of JSON
/// are every other run from the first; which ones a reader takes out of
/// prose depends on where it starts, and a `"` left unmatched earlier
/// shifts them, but each is one of these runs, and reads the same (a
/// backslash run never holds a quote). One pass.
pub(crate) fn quoted_runs(text: &str) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut runs = Vec::new();
    let Some(mut open) = bytes.iter().position(|&c| c == b'"') else {
        return runs;
    };
    while let Some(close) = literal_end(bytes, open) {
        runs.push((open, close + 1));
        open = close;
    }
    runs
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lenient reader of literals in prose: JSON's escapes, a
    /// surrogate pair joined, a lone surrogate as U+FFFD, anything else
    /// (with `\b` and `\f`) kept as written.
    #[test]
    fn json_escapes_read_leniently() {
        for (run, want) in [
            (r"C:\Users\new", "C:\\Users\new"),
            (r"\d+\bword\b\f", "\\d+\\bword\\b\\f"),
            (r#"\"\\\/\n\r\t"#, "\"\\/\n\r\t"),
            (r"\u0041\u00E9\uD83D\uDE00x", "Aé😀x"),
            (r"\udb40\udc41", "\u{E0041}"),
            (r"\ud800x\udc00\ud800\u0041", "\u{FFFD}x\u{FFFD}\u{FFFD}A"),
            (r"\ud800\ud800\udc00", "\u{FFFD}\u{10000}"),
            (
                r"\u12 \u+041 \u-041 \x41 é\u00e9 a\",
                "\\u12 \\u+041 \\u-041 \\x41 éé a\\",
            ),
            (r"\\u200b", "\\u200b"),
            (r"\u", "\\u"),
            ("", ""),
        ] {
            assert_eq!(
                read_json_escapes(run, false).as_deref(),
                Some(want),
                "{run}"
            );
        }
        for (literal, want) in [
            (r"\b\f\ud83d\ude00\U", Some("\u{8}\u{c}😀\\U")),
            (r"ok \ud800", None),
            (r"ok \udc00\ud800", None),
        ] {
            assert_eq!(
                read_json_escapes(literal, true).as_deref(),
                want,
                "{literal}"
            );
        }
        assert_eq!(json_string_body("a\"\\\u{1}é"), "a\\\"\\\\\\u0001é");
    }

    /// Every run between quotes, whichever pairing reads it as a literal;
    /// an escaped quote is no end; an unterminated run is none.
    #[test]
    fn quoted_runs_cover_both_pairings() {
        let t = r#"a "b" c \"d" e "f\\" g"#;
        let runs: Vec<&str> = quoted_runs(t)
            .into_iter()
            .map(|(a, b)| t.get(a..b).unwrap())
            .collect();
        assert_eq!(runs, [r#""b""#, r#"" c \"d""#, r#"" e ""#, r#""f\\""#]);
        assert_eq!(json_string_spans(t), [(2, 5), (9, 12), (15, 20)]);
        assert!(quoted_runs("no quote").is_empty());
        assert!(quoted_runs(r#"one " only \""#).is_empty());
    }

    /// A run written anew keeps every character not removed as written;
    /// a lone backslash or surrogate that would read otherwise before what
    /// now follows it is written as `\\` or U+FFFD; text written anew (a
    /// changed `data:` payload) is written as JSON writes it between what
    /// is kept at either end (#20 mend).
    #[test]
    fn respell_removes_only_what_spells_removed() {
        let zwsp = '\u{200b}';
        for (run, literal, cleaned, want) in [
            (
                r"C:\Users\bob\u200b",
                false,
                r"C:\Users\bob",
                r"C:\Users\bob",
            ),
            (
                r"a\u200bb\u0041\n\/\b\f\x41\U\u12",
                false,
                "abA\n/\\b\\f\\x41\\U\\u12",
                r"ab\u0041\n\/\b\f\x41\U\u12",
            ),
            (r"\b\u0041\f", true, "A", r"\u0041"),
            (&format!("a{zwsp}b\\d"), false, r"ab\d", r"ab\d"),
            (r"x\udb40\udc41y\ud800", false, "xy\u{FFFD}", r"xy\ud800"),
            (r"\ud800\u200b", false, "\u{FFFD}", r"\ud800"),
            (
                r"\udc00\u200b\udc00",
                false,
                "\u{FFFD}\u{FFFD}",
                r"\udc00\udc00",
            ),
            // What would read otherwise next to what now follows it.
            (&format!("\\{zwsp}n"), false, r"\n", r"\\n"),
            (&format!("\\{zwsp}"), false, "\\", r"\\"),
            (&format!("\\{zwsp}\\\""), false, "\\\"", r#"\\\""#),
            (r"\u12\u200b34", false, r"\u1234", r"\\u1234"),
            (
                r"\ud83d\u200b\ude00",
                false,
                "\u{FFFD}\u{FFFD}",
                "\u{FFFD}\\ude00",
            ),
            // Not a removal: the rest written as JSON writes it.
            (
                r"data\u003aX\u200bY \u0041",
                false,
                "data:Q A",
                r"data\u003aQ \u0041",
            ),
            (
                r"\u0041xy\/",
                false,
                "A\"\\\u{1}\n/",
                r#"\u0041\"\\\u0001\n\/"#,
            ),
            (r"\qX", false, r"\Q", r"\Q"),
            (r"\qX", false, r"\n", r"\\n"),
            ("", false, "", ""),
        ] {
            let out = respell(run, literal, cleaned);
            assert_eq!(out, want, "{run}");
            assert_eq!(
                read_json_escapes(&out, literal).as_deref(),
                Some(cleaned),
                "{run}"
            );
            let quoted = format!("\"{out}\"");
            assert_eq!(json_string_spans(&quoted), [(0, quoted.len())], "{run}");
        }
    }
}
