//! Messages that may quote the file (warnings, error details): every one
//! passes through [`shorten`], which makes it safe to show and bounded.
//!
//! * Safe: every control character (Unicode `Cc`, newline and tab
//!   included), bidirectional formatting character and other format
//!   character (`Cf`: zero-width, soft hyphen, tags, …), the line and
//!   paragraph separators U+2028 and U+2029, and every default-ignorable
//!   code point (`crate::terminal::is_hidden_or_control`) are written as an escape,
//!   `\x01` (below U+0100) or `\u{202e}`. A name from the file can then
//!   neither reorder, hide nor break the text around it, wherever the
//!   message is shown.
//! * Bounded: the escaped message is cut to [`MAX_WARNING_CHARS`]
//!   characters *including* a note of how many characters were cut, so
//!   that shortening a shortened message changes nothing.

use std::fmt::Write as _;

/// Longest message (a warning, or the text of an error that quotes the
/// file), in characters, its cut note included: a message quoting a name
/// from the file (a font, a filter, a security handler) is cut there, with
/// a note saying how many characters were cut.
pub const MAX_WARNING_CHARS: usize = 512;

/// Longest name from the file (a font, a Form XObject, a security
/// handler) quoted within a message, in characters, its cut note included:
/// a long name is cut there, so the rest of the message survives the cut
/// at [`MAX_WARNING_CHARS`].
pub const MAX_NAME_CHARS: usize = 128;

/// Whether `c` is written as an escape in a message: the one rule of
/// [`crate::terminal::is_hidden_or_control`] (tab included here: a warning
/// is one line of JSON text).
fn escaped(c: char) -> bool {
    crate::terminal::is_hidden_or_control(c)
}

/// How many characters `c` takes in a message.
fn width(c: char) -> usize {
    match u32::from(c) {
        _ if !escaped(c) => 1,
        n if n < 0x100 => 4,
        // `\u{` + hex digits + `}`.
        n => 4usize.saturating_add(hex_digits(n)),
    }
}

fn hex_digits(n: u32) -> usize {
    let bits = 32usize.saturating_sub(n.leading_zeros() as usize);
    bits.div_ceil(4).max(1)
}

fn push(out: &mut String, c: char) {
    let n = u32::from(c);
    if !escaped(c) {
        out.push(c);
    } else if n < 0x100 {
        let _ = write!(out, "\\x{n:02x}");
    } else {
        let _ = write!(out, "\\u{{{n:x}}}");
    }
}

fn cut_note(cut: usize) -> String {
    format!("… ({cut} more characters cut)")
}

/// `message` made safe to show and cut to [`MAX_WARNING_CHARS`] characters
/// (see the module docs): control, bidirectional and format characters
/// escaped; past the bound, the first characters of the escaped message
/// (never half an escape) and a note `… (N more characters cut)`, where N
/// is exactly how many characters of the escaped message were left out.
/// Idempotent: `shorten(&shorten(m)) == shorten(m)`. Works in one pass
/// and allocates at most the bound, however long `message` is.
pub(crate) fn shorten(message: &str) -> String {
    shorten_to(message, MAX_WARNING_CHARS)
}

/// The name `bytes` (a PDF name or other bytes from the file, read as
/// UTF-8 with U+FFFD for what is not) to quote within a message: made
/// safe as [`shorten`] does and cut to [`MAX_NAME_CHARS`] characters.
pub(crate) fn quote_name(bytes: &[u8]) -> String {
    shorten_to(&String::from_utf8_lossy(bytes), MAX_NAME_CHARS)
}

/// [`shorten`] to `max` characters.
pub(crate) fn shorten_to(message: &str, max: usize) -> String {
    let total = message
        .chars()
        .fold(0usize, |n, c| n.saturating_add(width(c)));
    let room = if total <= max {
        total
    } else {
        // The note of `total` is at least as long as the final note, whose
        // count is smaller: what is kept plus the note fits.
        max.saturating_sub(cut_note(total).chars().count())
    };
    let mut out = String::new();
    let mut kept = 0usize;
    for c in message.chars() {
        let w = width(c);
        if kept.saturating_add(w) > room {
            break;
        }
        push(&mut out, c);
        kept = kept.saturating_add(w);
    }
    if kept < total {
        out.push_str(&cut_note(total.saturating_sub(kept)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The count in a cut note, and the text before it.
    fn note_of(m: &str) -> Option<(&str, usize)> {
        let (kept, note) = m.rsplit_once("… (")?;
        let n = note.strip_suffix(" more characters cut)")?.parse().ok()?;
        Some((kept, n))
    }

    fn escaped_len(m: &str) -> usize {
        m.chars().map(width).sum()
    }

    #[test]
    fn cut_messages_hold_the_note_within_the_bound() {
        let long = "é".repeat(MAX_WARNING_CHARS + 3);
        let s = shorten(&long);
        assert!((MAX_WARNING_CHARS - 2..=MAX_WARNING_CHARS).contains(&s.chars().count()));
        let (kept, n) = note_of(&s).unwrap();
        assert_eq!(kept.chars().count() + n, MAX_WARNING_CHARS + 3);
        let exact = "x".repeat(MAX_WARNING_CHARS);
        assert_eq!(shorten(&exact), exact);
        assert_eq!(shorten("font /A\u{202e}B\u{1}"), "font /A\\u{202e}B\\x01");
        assert_eq!(shorten("a\nb\tc\u{e0041}"), "a\\x0ab\\x09c\\u{e0041}");
        // An escape is never split.
        let ctl = format!("{}\u{1}\u{1}", "x".repeat(MAX_WARNING_CHARS - 30));
        let s = shorten(&format!("{ctl}{}", "\u{1}".repeat(40)));
        let (kept, _) = note_of(&s).unwrap();
        let tail = kept.trim_start_matches('x');
        assert_eq!(tail, "\\x01".repeat(tail.len() / 4), "{kept}");
        // Three million characters: one pass, bounded result.
        let huge = "\u{1}".repeat(3_000_000);
        let s = shorten(&huge);
        assert!(s.chars().count() <= MAX_WARNING_CHARS);
        let (kept, n) = note_of(&s).unwrap();
        assert_eq!(kept.chars().count() + n, 12_000_000);
        let name = quote_name(&[b'\x1b'; 1000]);
        assert!(name.chars().count() <= MAX_NAME_CHARS);
        assert!(name.starts_with("\\x1b") && name.ends_with("more characters cut)"));
        assert_eq!(quote_name(b"F1\xff"), "F1\u{fffd}");
    }

    proptest! {
        #[test]
        fn shorten_is_bounded_exact_and_idempotent(
            parts in proptest::collection::vec(
                prop_oneof![
                    Just("x".to_owned()),
                    Just("é".to_owned()),
                    Just("\u{1}".to_owned()),
                    Just("\u{202e}".to_owned()),
                    Just("\u{e0041}".to_owned()),
                    Just("… (3 more characters cut)".to_owned()),
                    "[a-z ]{0,40}",
                    any::<String>(),
                ],
                0..200,
            ),
            repeat in 1usize..40,
        ) {
            let m = parts.concat().repeat(repeat);
            let once = shorten(&m);
            prop_assert!(once.chars().count() <= MAX_WARNING_CHARS);
            prop_assert_eq!(shorten(&once), once.clone());
            let total = escaped_len(&m);
            if total <= MAX_WARNING_CHARS {
                prop_assert_eq!(once.chars().count(), total);
            } else {
                let (kept, n) = note_of(&once).unwrap();
                prop_assert_eq!(kept.chars().count() + n, total);
                // At most one escape's width short of the room.
                prop_assert!(once.chars().count() + 16 >= MAX_WARNING_CHARS);
            }
            prop_assert!(!once.chars().any(escaped));
        }
    }
}
