//! The charset a document declares inside itself, found as its readers
//! find it before decoding: an XML declaration (`<?xml version="1.0"
//! encoding="ISO-8859-1"?>`, XML 1.0 section 4.3.3), a Python coding
//! cookie on its first or second line (PEP 263), a CSS `@charset` rule
//! (CSS Syntax Level 3, section 3.2) and an HTML `<meta charset>` or
//! `<meta http-equiv="Content-Type" content="…; charset=…">` (HTML's
//! "prescan a byte stream to determine its encoding", reduced to the
//! attribute it looks for). A document whose transport names no charset,
//! or names another, is read in this one by the program that opens it
//! (Python's XML parser takes the declaration over any transport; a
//! browser takes the `<meta>` when the transport says nothing), so the
//! screen reads it so too (attack s67, B-F5).

/// Bytes of a document read for its own declaration: HTML's prescan
/// stops after 1024 bytes; an XML declaration, a coding cookie and an
/// `@charset` rule are shorter than that or are at the very start.
pub const MAX_PRESCAN_BYTES: usize = 1024;

/// Longest label read out of a declaration (the longest WHATWG and
/// Python labels are under 40 bytes); a longer value is no label.
const MAX_LABEL_LEN: usize = 64;

/// Who reads a document's own label, which decides how the label is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Reader {
    /// An XML parser or Python's source reader: the label as Python's
    /// codec of that name reads it; one it does not know is an error.
    Parser,
    /// A browser (HTML `<meta>`, CSS `@charset`): the label as WHATWG
    /// reads it; one it does not know is ignored, a UTF-16 one read as
    /// UTF-8.
    Browser,
}

/// The label a document declares and who reads it, `None` when it
/// declares none: an XML declaration at its start, else a coding cookie
/// on its first or second line, else an `@charset` rule at its start,
/// else a `<meta>` within its first [`MAX_PRESCAN_BYTES`] bytes.
pub(super) fn own_label(bytes: &[u8]) -> Option<(&str, Reader)> {
    let head = bytes.get(..MAX_PRESCAN_BYTES).unwrap_or(bytes);
    xml_declaration(head)
        .map(|l| (l, Reader::Parser))
        .or_else(|| coding_cookie(head).map(|l| (l, Reader::Parser)))
        .or_else(|| css_charset(head).map(|l| (l, Reader::Browser)))
        .or_else(|| meta_charset(head).map(|l| (l, Reader::Browser)))
}

/// The `encoding` of an XML declaration `head` starts with (`<?xml`, white
/// space, pseudo-attributes in either quotes up to `?>`).
fn xml_declaration(head: &[u8]) -> Option<&str> {
    let rest = head.strip_prefix(b"<?xml")?;
    if !rest.first().is_some_and(u8::is_ascii_whitespace) {
        return None;
    }
    let end = find(rest, b"?>")?;
    let decl = rest.get(..end)?;
    let at = find(decl, b"encoding")?;
    let after = skip_space(decl.get(at + b"encoding".len()..)?);
    let after = skip_space(after.strip_prefix(b"=")?);
    quoted(after)
}

/// The encoding a PEP 263 coding cookie names on the first line of
/// `head`, or on its second when the first is a comment or blank: a line
/// of `#` after spaces, tabs or form feeds, holding `coding` then `:` or
/// `=`, spaces or tabs, then the name (letters, digits, `-`, `_`, `.`).
fn coding_cookie(head: &[u8]) -> Option<&str> {
    let (first, rest) = split_line(head);
    if let Some(label) = cookie_in(first) {
        return Some(label);
    }
    let t = skip_blank(first);
    if !(t.is_empty() || t.starts_with(b"#")) {
        return None;
    }
    cookie_in(split_line(rest?).0)
}

/// The first line of `s` (ended by LF, CR LF or CR) and what follows it,
/// `None` when no line end follows.
fn split_line(s: &[u8]) -> (&[u8], Option<&[u8]>) {
    match s.iter().position(|&b| b == b'\n' || b == b'\r') {
        None => (s, None),
        Some(end) => {
            let skip = if s.get(end..end + 2) == Some(b"\r\n") {
                2
            } else {
                1
            };
            (s.get(..end).unwrap_or_default(), s.get(end + skip..))
        }
    }
}

/// The name a coding cookie on `line` gives (see [`coding_cookie`]).
fn cookie_in(line: &[u8]) -> Option<&str> {
    let comment = skip_blank(line).strip_prefix(b"#")?;
    let mut rest = comment;
    while let Some(at) = find(rest, b"coding") {
        let after = rest.get(at + b"coding".len()..)?;
        if let Some(value) = after
            .strip_prefix(b":")
            .or_else(|| after.strip_prefix(b"="))
        {
            let value = skip_blank(value);
            let len = value
                .iter()
                .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
                .count();
            if len > 0 {
                return label(value.get(..len)?);
            }
        }
        rest = after;
    }
    None
}

/// The label of a CSS `@charset "…";` rule `head` starts with (exactly
/// so spelled: CSS reads no other form).
fn css_charset(head: &[u8]) -> Option<&str> {
    let rest = head.strip_prefix(b"@charset \"")?;
    let end = rest.iter().position(|&b| b == b'"')?;
    rest.get(end + 1..)?.strip_prefix(b";")?;
    label(rest.get(..end)?)
}

/// The `charset` a `<meta>` tag in `head` names: its `charset`
/// attribute, or the `charset=` in its `content` (either quote or none),
/// any case; the first tag that names one.
fn meta_charset(head: &[u8]) -> Option<&str> {
    let lower = head.to_ascii_lowercase();
    let mut from = 0;
    while let Some(at) = lower.get(from..).and_then(|r| find(r, b"<meta")) {
        let start = from + at + b"<meta".len();
        let tag_end = lower
            .get(start..)
            .and_then(|r| r.iter().position(|&b| b == b'>'))
            .map_or(lower.len(), |e| start + e);
        let tag = lower.get(start..tag_end)?;
        if tag
            .first()
            .is_some_and(|b| b.is_ascii_whitespace() || *b == b'/')
        {
            if let Some(c) = find(tag, b"charset") {
                let value_at = start + c + b"charset".len();
                let after = skip_space(head.get(value_at..tag_end)?);
                if let Some(value) = after.strip_prefix(b"=") {
                    let value = skip_space(value);
                    if let Some(l) = quoted(value).or_else(|| unquoted(value)) {
                        return Some(l);
                    }
                }
            }
        }
        from = tag_end;
    }
    None
}

/// A value in `"` or `'` at the start of `s`.
fn quoted(s: &[u8]) -> Option<&str> {
    let (&q, rest) = s.split_first()?;
    if q != b'"' && q != b'\'' {
        return None;
    }
    let end = rest.iter().position(|&b| b == q)?;
    label(rest.get(..end)?)
}

/// An unquoted attribute value at the start of `s`, up to white space,
/// `;`, a quote, `/` or `>`.
fn unquoted(s: &[u8]) -> Option<&str> {
    let len = s
        .iter()
        .take_while(|b| !b.is_ascii_whitespace() && !matches!(b, b';' | b'"' | b'\'' | b'>' | b'/'))
        .count();
    label(s.get(..len)?)
}

/// `s` as a label: ASCII, not empty, at most [`MAX_LABEL_LEN`] bytes,
/// spaces around it dropped.
fn label(s: &[u8]) -> Option<&str> {
    let s = std::str::from_utf8(s).ok()?.trim();
    (!s.is_empty() && s.len() <= MAX_LABEL_LEN && s.is_ascii()).then_some(s)
}

/// `s` without its leading ASCII white space.
fn skip_space(s: &[u8]) -> &[u8] {
    let n = s.iter().take_while(|b| b.is_ascii_whitespace()).count();
    s.get(n..).unwrap_or_default()
}

/// `s` without its leading spaces, tabs and form feeds (PEP 263).
fn skip_blank(s: &[u8]) -> &[u8] {
    let n = s
        .iter()
        .take_while(|b| matches!(b, b' ' | b'\t' | b'\x0c'))
        .count();
    s.get(n..).unwrap_or_default()
}

/// Where `needle` first occurs in `hay`.
fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_declaration_as_its_reader_finds_it() {
        for (doc, want) in [
            (
                &b"<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><a/>"[..],
                Some(("ISO-8859-1", Reader::Parser)),
            ),
            (
                b"<?xml version='1.0' encoding = 'latin1' ?>",
                Some(("latin1", Reader::Parser)),
            ),
            (b"<?xml version=\"1.0\"?><a encoding=\"x\"/>", None),
            (b" <?xml version=\"1.0\" encoding=\"latin1\"?>", None),
            (b"<?xmlx encoding=\"latin1\"?>", None),
            (
                b"# -*- coding: latin-1 -*-\nx = 1\n",
                Some(("latin-1", Reader::Parser)),
            ),
            (
                b"#!/usr/bin/env python\r\n# vim: set fileencoding=cp1252 :\r\n",
                Some(("cp1252", Reader::Parser)),
            ),
            (b"import os\n# coding: latin-1\n", None),
            // Python's pattern backtracks to a later `coding` that names one.
            (
                b"# coding= ; fileencoding: latin-1\n",
                Some(("latin-1", Reader::Parser)),
            ),
            (b"# a\n\n# coding: latin-1\n", None),
            (b"x = '# coding: latin-1'\n", None),
            (
                b"@charset \"windows-1252\"; a { }",
                Some(("windows-1252", Reader::Browser)),
            ),
            (b"@charset 'windows-1252';", None),
            (b"@CHARSET \"windows-1252\";", None),
            (
                b"<!doctype html><META Charset = \"Windows-1252\"><p>x",
                Some(("Windows-1252", Reader::Browser)),
            ),
            (
                b"<meta http-equiv=\"Content-Type\" content=\"text/html; charset=iso-8859-1\">",
                Some(("iso-8859-1", Reader::Browser)),
            ),
            (b"<meta charset=koi8-r/>", Some(("koi8-r", Reader::Browser))),
            (b"<metadata charset=\"latin1\">", None),
            (b"<meta name=\"x\"> charset=\"latin1\"", None),
            (b"plain text", None),
        ] {
            assert_eq!(own_label(doc), want, "{}", String::from_utf8_lossy(doc));
        }
    }

    #[test]
    fn a_meta_past_the_prescan_is_not_read() {
        let mut doc = vec![b' '; MAX_PRESCAN_BYTES - 24];
        doc.extend_from_slice(b"<meta charset=\"latin1\">");
        assert_eq!(own_label(&doc), Some(("latin1", Reader::Browser)));
        doc.splice(0..0, [b' '; 10]);
        assert_eq!(own_label(&doc), None);
        let long = format!("<meta charset=\"{}\">", "a".repeat(MAX_LABEL_LEN + 1));
        assert_eq!(own_label(long.as_bytes()), None);
    }
}
