//! The charset a document declares inside itself, found as its readers
//! find it before decoding: an XML declaration (`<?xml version="1.0"
//! encoding="ISO-8859-1"?>`, XML 1.0 section 4.3.3), a Python coding
//! cookie on its first or second line (PEP 263), a CSS `@charset` rule
//! (CSS Syntax Level 3, section 3.2) and an HTML `<meta charset>` or
//! `<meta http-equiv="Content-Type" content="…; charset=…">` (HTML's
//! "prescan a byte stream to determine its encoding", section 13.2.3.2,
//! followed step by step: comments and other tags skipped, attributes read
//! as its "get an attribute" reads them). A document whose transport
//! names no charset, or names another, is read in this one by the program
//! that opens it (Python's XML parser takes the declaration over any
//! transport; a browser takes the `<meta>` when the transport says
//! nothing), so the screen reads it so too (attack s67, B-F5).

/// Bytes of a document a browser reads for its own declaration: HTML's
/// prescan and CSS's `@charset` look at the first 1024 bytes.
pub const MAX_PRESCAN_BYTES: usize = 1024;

/// Bytes of a document read for a parser's declaration: an XML
/// declaration (expat reads one of any length at the start) and the
/// first two lines for a coding cookie (CPython reads them whole,
/// whatever their length). Neither reader stops earlier, so a declaration
/// not complete within this bound is one the screen cannot read as its
/// reader does: the screen fails closed on it.
pub const MAX_DECLARATION_BYTES: usize = 64 * 1024;

/// Longest label read out of a declaration (the longest WHATWG and
/// Python labels are under 40 bytes); a longer value is no label.
pub(crate) const MAX_LABEL_LEN: usize = 64;

/// Who reads a document's own label, which decides how the label is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reader {
    /// An XML parser or Python's source reader: the label as Python's
    /// codec of that name reads it; one it does not know is an error.
    Parser,
    /// A browser (HTML `<meta>`, CSS `@charset`): the label as WHATWG
    /// reads it (`encoding_rs::Encoding::for_label`); one it does not
    /// know is ignored, a UTF-16 one read as UTF-8.
    Browser,
}

/// A parser's declaration the screen cannot read: longer than
/// [`MAX_DECLARATION_BYTES`] (fail closed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TooLong;

/// The label a document declares and who reads it, `Ok(None)` when it
/// declares none: an XML declaration at its start, else a coding cookie
/// on its first or second line (both within [`MAX_DECLARATION_BYTES`],
/// else `Err(TooLong)`), else an `@charset` rule at its start, else a
/// `<meta>` within its first [`MAX_PRESCAN_BYTES`] bytes. A browser's
/// label is one WHATWG knows (an unknown `<meta>` label makes the prescan
/// go on to the next tag, as a browser's does).
pub(crate) fn own_label(bytes: &[u8]) -> Result<Option<(&str, Reader)>, TooLong> {
    let head = bytes.get(..MAX_DECLARATION_BYTES).unwrap_or(bytes);
    // Whether the reader would read on past what the screen reads.
    let cut = bytes.len() > head.len();
    if let Some(label) = xml_declaration(head, cut)? {
        return Ok(Some((label, Reader::Parser)));
    }
    if let Some(label) = coding_cookie(head, cut)? {
        return Ok(Some((label, Reader::Parser)));
    }
    let head = bytes.get(..MAX_PRESCAN_BYTES).unwrap_or(bytes);
    Ok(css_charset(head)
        .or_else(|| meta_charset(head))
        .map(|l| (l, Reader::Browser)))
}

/// The `encoding` of an XML declaration `head` starts with (`<?xml`, white
/// space, pseudo-attributes in either quotes up to `?>`); `Err` when one
/// starts but does not end within `head` and the document goes on
/// (`cut`).
fn xml_declaration(head: &[u8], cut: bool) -> Result<Option<&str>, TooLong> {
    let Some(rest) = head.strip_prefix(b"<?xml") else {
        return Ok(None);
    };
    if !rest.first().is_some_and(u8::is_ascii_whitespace) {
        return Ok(None);
    }
    let Some(end) = find(rest, b"?>") else {
        // No end in the whole document: not well formed, nothing read.
        return if cut { Err(TooLong) } else { Ok(None) };
    };
    let decl = rest.get(..end).unwrap_or_default();
    let value = || {
        let at = find(decl, b"encoding")?;
        let after = skip_space(decl.get(at + b"encoding".len()..)?);
        let after = skip_space(after.strip_prefix(b"=")?);
        quoted(after)
    };
    Ok(value())
}

/// The encoding a PEP 263 coding cookie names on the first line of
/// `head`, or on its second when the first is a comment or blank: a line
/// of `#` after spaces, tabs or form feeds, holding `coding` then `:` or
/// `=`, spaces or tabs, then the name (letters, digits, `-`, `_`, `.`).
/// `Err` when a line that may hold one does not end within `head` and the
/// document goes on (`cut`).
fn coding_cookie(head: &[u8], cut: bool) -> Result<Option<&str>, TooLong> {
    // A line that starts as one that may hold a cookie (blank, or a
    // comment) and is not whole within `head`.
    let unseen = |line: &[u8], ended: bool| {
        let t = skip_blank(line);
        cut && !ended && (t.is_empty() || t.starts_with(b"#"))
    };
    let (first, rest) = split_line(head);
    if unseen(first, rest.is_some()) {
        return Err(TooLong);
    }
    if let Some(label) = cookie_in(first) {
        return Ok(Some(label));
    }
    let t = skip_blank(first);
    let Some(rest) = rest.filter(|_| t.is_empty() || t.starts_with(b"#")) else {
        return Ok(None);
    };
    let (second, after) = split_line(rest);
    if unseen(second, after.is_some()) {
        return Err(TooLong);
    }
    Ok(cookie_in(second))
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
/// so spelled: CSS reads no other form), when WHATWG knows it.
fn css_charset(head: &[u8]) -> Option<&str> {
    let rest = head.strip_prefix(b"@charset \"")?;
    let end = rest.iter().position(|&b| b == b'"')?;
    rest.get(end + 1..)?.strip_prefix(b";")?;
    whatwg_label(rest.get(..end)?)
}

/// HTML's white space in the prescan: tab, LF, FF, CR, space.
fn html_space(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ')
}

/// The label HTML's prescan (section 13.2.3.2) finds in `head`: the first
/// `<meta>` tag, outside comments and other tags' attributes, whose
/// attributes (the first of each name) give a label WHATWG knows, by its
/// `charset`, or by the `charset=` of its `content` with an `http-equiv`
/// of `content-type`; `x-user-defined` read as `windows-1252`. One pass
/// over `head` (at most [`MAX_PRESCAN_BYTES`]).
fn meta_charset(head: &[u8]) -> Option<&str> {
    let mut at = 0;
    while let Some(rest) = head.get(at..).filter(|r| !r.is_empty()) {
        if rest.starts_with(b"<!--") {
            // To the first `>` after two `-` (`<!-->` ends itself).
            at += rest
                .windows(3)
                .skip(2)
                .position(|w| w == b"-->")
                .map_or(rest.len(), |p| p + 2 + 3);
            continue;
        }
        let lower = |i: usize| rest.get(i).map(u8::to_ascii_lowercase);
        let is_meta = rest.len() > 5
            && rest
                .get(..5)
                .is_some_and(|t| t.eq_ignore_ascii_case(b"<meta"))
            && rest.get(5).is_some_and(|&b| html_space(b) || b == b'/');
        if is_meta {
            match meta_attributes(head, at + 6)? {
                (Some(label), _) => return Some(label),
                (None, next) => at = next,
            }
            continue;
        }
        let tag_at = match (lower(0), lower(1), lower(2)) {
            (Some(b'<'), Some(b'/'), Some(c)) if c.is_ascii_lowercase() => Some(2),
            (Some(b'<'), Some(c), _) if c.is_ascii_lowercase() => Some(1),
            _ => None,
        };
        if let Some(name_at) = tag_at {
            // Another tag: its name, then its attributes, skipped.
            let name = rest
                .get(name_at..)
                .unwrap_or_default()
                .iter()
                .take_while(|&&b| !html_space(b) && b != b'>')
                .count();
            at += name_at + name;
            loop {
                match attribute(head, at) {
                    Got::Attribute(_, next) => at = next,
                    Got::Close => break,
                    Got::End => return None,
                }
            }
            at += 1;
            continue;
        }
        if matches!((lower(0), lower(1)), (Some(b'<'), Some(b'!' | b'/' | b'?'))) {
            at += rest
                .iter()
                .position(|&b| b == b'>')
                .map_or(rest.len(), |p| p + 1);
            continue;
        }
        at += 1;
    }
    None
}

/// The label the attributes of a `<meta>` tag starting at `at` in `head`
/// give (HTML's prescan, the steps after "get an attribute"), and where
/// the prescan goes on: the byte after the tag's `>`; `None` when the tag
/// does not end within `head`.
fn meta_attributes(head: &[u8], mut at: usize) -> Option<(Option<&str>, usize)> {
    let (mut http_equiv, mut content, mut charset_seen) = (false, false, false);
    let mut got_pragma = false;
    // `None`: need pragma null; `Some(need)` and the charset, if any.
    let mut need_pragma: Option<bool> = None;
    let mut charset: Option<&str> = None;
    loop {
        let ((name, value), next) = match attribute(head, at) {
            Got::Attribute(a, next) => (a, next),
            Got::Close => break,
            Got::End => return None,
        };
        at = next;
        let name = head.get(name.0..name.1).unwrap_or_default();
        let value = head.get(value.0..value.1).unwrap_or_default();
        let seen = if name.eq_ignore_ascii_case(b"http-equiv") {
            &mut http_equiv
        } else if name.eq_ignore_ascii_case(b"content") {
            &mut content
        } else if name.eq_ignore_ascii_case(b"charset") {
            &mut charset_seen
        } else {
            continue;
        };
        if std::mem::replace(seen, true) {
            continue;
        }
        if name.eq_ignore_ascii_case(b"http-equiv") {
            got_pragma |= value.eq_ignore_ascii_case(b"content-type");
        } else if name.eq_ignore_ascii_case(b"content") {
            // Unless a `charset` attribute set it (to a label or to none).
            if let (Some(l), None, false) = (content_charset(value), charset, charset_seen) {
                charset = Some(l);
                need_pragma = Some(true);
            }
        } else {
            charset = whatwg_label(value);
            need_pragma = Some(false);
        }
    }
    let label = match need_pragma {
        Some(true) if !got_pragma => None,
        Some(_) => charset,
        None => None,
    };
    let label = label.map(|l| {
        if l.eq_ignore_ascii_case("x-user-defined") {
            "windows-1252"
        } else {
            l
        }
    });
    Some((label, at + 1))
}

/// Byte ranges in `head` of an attribute's name and value.
type Attribute = ((usize, usize), (usize, usize));

/// What HTML's prescan "get an attribute" finds.
enum Got {
    /// An attribute's name and value (ranges of `head`; the spec's
    /// lower-casing left to the comparisons) and where the next one is
    /// looked for, past the start of this one.
    Attribute(Attribute, usize),
    /// None: the tag's `>`.
    Close,
    /// The end of the bytes read, inside the tag: the prescan ends.
    End,
}

/// HTML's prescan "get an attribute" at `at` in `head`.
fn attribute(head: &[u8], mut at: usize) -> Got {
    let byte = |i: usize| head.get(i).copied();
    while byte(at).is_some_and(|b| html_space(b) || b == b'/') {
        at += 1;
    }
    match byte(at) {
        None => return Got::End,
        Some(b'>') => return Got::Close,
        Some(_) => {}
    }
    let start = at;
    // The name: up to `=` (not its first byte), white space, `/` or `>`.
    while let Some(b) = byte(at) {
        if b == b'=' && at > start {
            return value(head, (start, at), at + 1);
        }
        if html_space(b) {
            break;
        }
        if b == b'/' || b == b'>' {
            return Got::Attribute(((start, at), (at, at)), at);
        }
        at += 1;
    }
    let name = (start, at);
    while byte(at).is_some_and(html_space) {
        at += 1;
    }
    match byte(at) {
        None => Got::End,
        Some(b'=') => value(head, name, at + 1),
        Some(_) => Got::Attribute((name, (at, at)), at),
    }
}

/// The value part of "get an attribute" for the attribute `name`, its
/// `=` just before `at`.
fn value(head: &[u8], name: (usize, usize), mut at: usize) -> Got {
    let byte = |i: usize| head.get(i).copied();
    while byte(at).is_some_and(html_space) {
        at += 1;
    }
    let Some(b) = byte(at) else {
        return Got::End;
    };
    let rest = head.get(at + 1..).unwrap_or_default();
    if b == b'"' || b == b'\'' {
        return match rest.iter().position(|&c| c == b) {
            Some(len) => Got::Attribute((name, (at + 1, at + 1 + len)), at + 2 + len),
            None => Got::End,
        };
    }
    if b == b'>' {
        return Got::Attribute((name, (at, at)), at);
    }
    match rest.iter().position(|&c| html_space(c) || c == b'>') {
        Some(len) => Got::Attribute((name, (at, at + 1 + len)), at + 1 + len),
        None => Got::End,
    }
}

/// HTML's "extract a character encoding from a meta element" on a
/// `content` value: the label after the first `charset` followed by `=`
/// (white space around it), in quotes or up to white space or `;`, when
/// WHATWG knows it.
fn content_charset(s: &[u8]) -> Option<&str> {
    let mut rest = s;
    loop {
        let at = find_ignore_case(rest, b"charset")?;
        let after = skip_html_space(rest.get(at + b"charset".len()..)?);
        let Some(value) = after.strip_prefix(b"=") else {
            rest = after;
            continue;
        };
        let value = skip_html_space(value);
        return match value.split_first() {
            Some((&q, tail)) if q == b'"' || q == b'\'' => {
                let end = tail.iter().position(|&b| b == q)?;
                whatwg_label(tail.get(..end)?)
            }
            Some(_) => {
                let end = value
                    .iter()
                    .position(|&b| html_space(b) || b == b';')
                    .unwrap_or(value.len());
                whatwg_label(value.get(..end)?)
            }
            None => None,
        };
    }
}

/// `s` as a label when WHATWG knows it (`encoding_rs::Encoding::for_label`,
/// which trims ASCII white space only), then as [`label`] reads it.
fn whatwg_label(s: &[u8]) -> Option<&str> {
    encoding_rs::Encoding::for_label(s).and_then(|_| label(s))
}

/// `s` without its leading HTML white space.
fn skip_html_space(s: &[u8]) -> &[u8] {
    let n = s.iter().take_while(|&&b| html_space(b)).count();
    s.get(n..).unwrap_or_default()
}

/// Where `needle` (lower case) first occurs in `hay`, any case.
fn find_ignore_case(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len())
        .position(|w| w.eq_ignore_ascii_case(needle))
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
            // The unquoted value runs to white space or `>`: `koi8-r/`.
            (b"<meta charset=koi8-r/>", None),
            (
                b"<meta charset=koi8-r />",
                Some(("koi8-r", Reader::Browser)),
            ),
            (b"<metadata charset=\"latin1\">", None),
            (b"<meta name=\"x\"> charset=\"latin1\"", None),
            (b"plain text", None),
        ] {
            assert_eq!(own_label(doc), Ok(want), "{}", String::from_utf8_lossy(doc));
        }
    }

    #[test]
    fn a_meta_past_the_prescan_is_not_read() {
        let mut doc = vec![b' '; MAX_PRESCAN_BYTES - 24];
        doc.extend_from_slice(b"<meta charset=\"latin1\">");
        assert_eq!(own_label(&doc), Ok(Some(("latin1", Reader::Browser))));
        doc.splice(0..0, [b' '; 10]);
        assert_eq!(own_label(&doc), Ok(None));
        let long = format!("<meta charset=\"{}\">", "a".repeat(MAX_LABEL_LEN + 1));
        assert_eq!(own_label(long.as_bytes()), Ok(None));
    }

    /// HTML's prescan as the spec writes it (13.2.3.2): attributes read
    /// as "get an attribute" reads them (a `>` in quotes is no tag end;
    /// the first attribute of a name wins), `content` read only with
    /// `http-equiv="content-type"`, a label WHATWG does not know skipped
    /// for the next `<meta>`, comments and other tags' attributes skipped.
    #[test]
    fn meta_read_as_the_html_prescan_reads_it() {
        let browser = |l| Ok(Some((l, Reader::Browser)));
        for (doc, want) in [
            (
                &b"<meta name=\"a>b\" charset=\"latin1\">"[..],
                browser("latin1"),
            ),
            (
                b"<meta charset=\"klingon\"><meta charset=\"latin1\">",
                browser("latin1"),
            ),
            (
                b"<meta charset=\"latin1\" charset=\"koi8-r\">",
                browser("latin1"),
            ),
            (b"<meta charset=\"klingon\" charset=\"koi8-r\">", Ok(None)),
            (
                b"<meta content=\"text/html; charset=koi8-r\" http-equiv=\"Content-Type\">",
                browser("koi8-r"),
            ),
            (b"<meta content=\"text/html; charset=koi8-r\">", Ok(None)),
            (
                b"<meta content=\"charset=koi8-r\" http-equiv=content-type charset=latin1>",
                browser("latin1"),
            ),
            (
                b"<meta charset=x content=\"charset=koi8-r\" http-equiv=content-type>",
                Ok(None),
            ),
            (
                b"<meta http-equiv=x http-equiv=content-type content='charset=latin1'>",
                Ok(None),
            ),
            (
                b"<meta content=\"charset='koi8-r\" http-equiv=content-type>",
                Ok(None),
            ),
            (
                b"<meta content=\"a charsetx charset = 'koi8-r'\" http-equiv=content-type>",
                browser("koi8-r"),
            ),
            (
                b"<!-- <meta charset=latin1> --><meta charset=koi8-r>",
                browser("koi8-r"),
            ),
            (b"<!--><meta charset=koi8-r>", browser("koi8-r")),
            (
                b"<p title=\"<meta charset=latin1>\"><meta charset=koi8-r>",
                browser("koi8-r"),
            ),
            (b"<?php <meta charset=latin1> ?>", Ok(None)),
            (b"<meta/charset=latin1>", browser("latin1")),
            (b"<meta charset=x-user-defined>", browser("windows-1252")),
            (
                b"<meta charset=\"\x0blatin1\"><meta charset=koi8-r>",
                browser("koi8-r"),
            ),
            (b"<meta charset=\"latin1", Ok(None)),
            (b"<meta x=\"<meta charset=latin1>", Ok(None)),
            (
                b"@charset \"klingon\";<meta charset=latin1>",
                browser("latin1"),
            ),
        ] {
            assert_eq!(own_label(doc), want, "{}", String::from_utf8_lossy(doc));
        }
    }

    /// expat reads an XML declaration of any length, CPython a cookie's
    /// lines whatever their length: one not whole within the bound fails
    /// closed, not skipped.
    #[test]
    fn a_parser_declaration_past_the_bound_fails_closed() {
        let pad = " ".repeat(MAX_DECLARATION_BYTES);
        let parser = |l| Ok(Some((l, Reader::Parser)));
        let xml = format!("<?xml version=\"1.0\"{pad}encoding=\"latin1\"?><a/>");
        assert_eq!(own_label(xml.as_bytes()), Err(TooLong));
        let near = format!(
            "<?xml version=\"1.0\"{}encoding=\"latin1\"?><a/>",
            &pad[1200..]
        );
        assert_eq!(own_label(near.as_bytes()), parser("latin1"));
        let cookie = format!("#{pad}coding: latin1\nx = 1\n");
        assert_eq!(own_label(cookie.as_bytes()), Err(TooLong));
        let second = format!("#!/usr/bin/env python\n#{pad}coding: latin1\n");
        assert_eq!(own_label(second.as_bytes()), Err(TooLong));
        let near = format!("#{}coding: latin1\nx = 1\n", &pad[1200..]);
        assert_eq!(own_label(near.as_bytes()), parser("latin1"));
        // A long line no cookie can be on, or a short document: read.
        let code = format!("x = 1{pad}\n# coding: latin1\n");
        assert_eq!(own_label(code.as_bytes()), Ok(None));
        assert_eq!(
            own_label(format!("<?xml {}", &pad[9..]).as_bytes()),
            Ok(None)
        );
    }
}
