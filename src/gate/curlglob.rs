//! curl's URL globbing (`tool_urlglob.c`), as a tool that shells out to
//! curl has it read a URL argument: `{a,b}` is each alternative, `[x-y]`
//! and `[x-y:n]` each letter or number of the range (`[001-100]` keeps
//! the zeros), `\` escapes the next character, and `[` before an IPv6
//! address, or `[]`, is itself. `{http,x}://127.0.0.1/`, `[h-h]ttp://…`
//! and `127.0.0.[1-1]:8003/` are all fetched from 127.0.0.1.
//!
//! Only the head of the text is expanded: up to the first `/`, `\`, `?` or
//! `#` outside a group that does not follow a `:` or start the text (the
//! end of an authority: the scheme, user, host and port a fetcher reads);
//! a rest is kept as its first character, which says that a path follows.
//! A JSON object or array is no glob (its strings are read as JSON's). A
//! text with a control character other than a tab, or white space in its
//! head outside a group, is no glob (curl refuses such a URL), and so is one curl's
//! globbing refuses (an unmatched brace, `{}`, a nested group, a bad
//! range). Inside a range, blanks after the `-` and before a step are
//! skipped, as curl's `strtoul` skips them (`127.0.0.[1- 1]`).

/// The most distinct texts one text is read as under curl's globbing
/// (`expansions`); a text whose glob expands to more (or whose head is
/// longer than [`crate::net::MAX_URL_BYTES`]) is refused as ambiguous.
pub const MAX_GLOB_EXPANSIONS: usize = 256;

/// A text read under curl's globbing.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Glob {
    /// No glob curl expands: the text is only itself.
    Plain,
    /// The distinct texts the glob expands to, at most
    /// [`MAX_GLOB_EXPANSIONS`], the rest of the text after the head
    /// shortened to its first character.
    Texts(Vec<String>),
    /// More than [`MAX_GLOB_EXPANSIONS`] texts, or a head longer than
    /// [`crate::net::MAX_URL_BYTES`].
    TooMany,
}

/// `text` as curl's globbing reads it (see the module docs). Bounded by
/// the text's length times [`MAX_GLOB_EXPANSIONS`].
pub(crate) fn expansions(text: &str) -> Glob {
    if !text.contains(['{', '[']) || text.chars().any(|c| c.is_control() && c != '\t') {
        return Glob::Plain;
    }
    // A JSON object or array (`{"a":"x,fd00::1"}`) is data, whose strings
    // are read as such, not a URL for curl.
    if text.starts_with(['{', '[']) && serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok() {
        return Glob::Plain;
    }
    let Some((segments, rest, true)) = parse(text) else {
        return Glob::Plain;
    };
    let mut count: usize = 1;
    let mut head_len: usize = 0;
    for s in &segments {
        count = count.saturating_mul(s.len());
        head_len = head_len.saturating_add(s.iter().map(String::len).max().unwrap_or(0));
    }
    if count > MAX_GLOB_EXPANSIONS || head_len > crate::net::MAX_URL_BYTES {
        return Glob::TooMany;
    }
    let mut texts: Vec<String> = vec![String::new()];
    for s in &segments {
        let mut next = Vec::with_capacity(texts.len().saturating_mul(s.len()));
        for t in &texts {
            for alt in s {
                let mut e = String::with_capacity(t.len().saturating_add(alt.len()));
                e.push_str(t);
                e.push_str(alt);
                next.push(e);
            }
        }
        texts = next;
    }
    if let Some(first) = rest.chars().next() {
        for t in &mut texts {
            t.push(first);
        }
    }
    texts.sort();
    texts.dedup();
    Glob::Texts(texts)
}

/// The length of a `[` curl keeps as written at the start of `s`: `[]`,
/// or an IPv6 address (with any zone) in brackets. `None` otherwise.
fn literal_bracket(s: &str) -> Option<usize> {
    let inner = s.strip_prefix('[')?;
    let end = inner.find(']')?;
    let addr = inner.get(..end)?;
    let v6 = addr
        .split('%')
        .next()
        .is_some_and(|a| a.contains(':') && a.parse::<std::net::Ipv6Addr>().is_ok());
    (addr.is_empty() || v6).then(|| end.saturating_add(2))
}

/// The head of `text` as segments of alternatives (a literal run is one
/// alternative), the rest after it, and whether the head holds a group.
/// `None` for a glob curl refuses. Bounded by the text's length.
fn parse(text: &str) -> Option<(Vec<Vec<String>>, &str, bool)> {
    let mut segments: Vec<Vec<String>> = Vec::new();
    let mut grouped = false;
    let mut literal = String::new();
    // The previous character outside a group, for the end of the head: a
    // `/` or `\` right after a `:` or the start (or after those) is part
    // of `scheme://`.
    let mut prev: Option<char> = None;
    let mut i = 0;
    while let Some(c) = text.get(i..).and_then(|t| t.chars().next()) {
        let at = text.get(i..).unwrap_or_default();
        match c {
            '/' | '\\' | '?' | '#'
                if !(matches!(c, '/' | '\\') && matches!(prev, None | Some(':' | '/' | '\\'))) =>
            {
                if c == '\\'
                    && at
                        .get(1..)
                        .is_some_and(|r| r.starts_with(['{', '[', '}', ']']))
                {
                    // An escaped group character, kept as itself.
                    literal.push(at.chars().nth(1).unwrap_or('\\'));
                    prev = Some('x');
                    i = i.saturating_add(2);
                    continue;
                }
                segments.push(vec![std::mem::take(&mut literal)]);
                return Some((segments, at, grouped));
            }
            '{' => {
                segments.push(vec![std::mem::take(&mut literal)]);
                let (alts, len) = set(at)?;
                segments.push(alts);
                grouped = true;
                prev = Some('x');
                i = i.saturating_add(len);
            }
            '[' => {
                if let Some(len) = literal_bracket(at) {
                    literal.push_str(at.get(..len).unwrap_or_default());
                    prev = Some(']');
                    i = i.saturating_add(len);
                } else {
                    segments.push(vec![std::mem::take(&mut literal)]);
                    let (alts, len) = range(at)?;
                    segments.push(alts);
                    grouped = true;
                    prev = Some('x');
                    i = i.saturating_add(len);
                }
            }
            '}' | ']' => return None,
            // Prose (`see {x} here`), or a URL curl refuses.
            c if c.is_whitespace() => return None,
            c => {
                literal.push(c);
                prev = Some(c);
                i = i.saturating_add(c.len_utf8());
            }
        }
    }
    segments.push(vec![literal]);
    Some((segments, "", grouped))
}

/// A `{…}` set at the start of `s`: its distinct alternatives and its
/// length. `None` for one curl refuses (unclosed, empty `{}`, a nested
/// `{` or `[`, a `]`).
fn set(s: &str) -> Option<(Vec<String>, usize)> {
    let mut alts = Vec::new();
    let mut current = String::new();
    let mut chars = s.char_indices().skip(1);
    while let Some((i, c)) = chars.next() {
        match c {
            '{' | '[' | ']' => return None,
            '}' if i == 1 => return None,
            '}' => {
                alts.push(current);
                alts.sort();
                alts.dedup();
                return Some((alts, i.saturating_add(1)));
            }
            ',' => alts.push(std::mem::take(&mut current)),
            '\\' => match chars.next() {
                Some((_, e)) => current.push(e),
                None => return None,
            },
            c => current.push(c),
        }
    }
    None
}

/// A `[x-y]` or `[x-y:n]` range at the start of `s`, of letters (`a-z`,
/// one case) or of decimal numbers (zero-padded as the first is): its
/// values and its length. `None` for one curl refuses. A range of more
/// than [`MAX_GLOB_EXPANSIONS`] values is not listed: it has one value
/// more than the bound (each distinct), so the glob is [`Glob::TooMany`].
fn range(s: &str) -> Option<(Vec<String>, usize)> {
    let end = s.find(']')?;
    let inner = s.get(1..end)?;
    // `strtoul` skips white space and takes a `+` before the step.
    let step_value = |t: &str| {
        let t = t.trim_start();
        let t = t.strip_prefix('+').unwrap_or(t);
        t.parse::<u64>().ok().filter(|&n| n > 0)
    };
    let (span, step) = match inner.split_once(':') {
        Some((span, step)) => (span, step_value(step)?),
        None => (inner, 1),
    };
    let (lo, hi) = span.split_once('-')?;
    let len = end.saturating_add(1);
    let mut lo_chars = lo.chars();
    let mut hi_chars = hi.chars();
    if let (Some(a), None, Some(b), None) = (
        lo_chars.next(),
        lo_chars.next(),
        hi_chars.next(),
        hi_chars.next(),
    ) {
        if a.is_ascii_alphabetic() {
            let (a, b) = (u32::from(a), u32::from(b));
            if b < a || b - a > 25 {
                return None;
            }
            let values = (a..=b)
                .step_by(usize::try_from(step).unwrap_or(usize::MAX))
                .filter_map(char::from_u32)
                .map(String::from)
                .collect();
            return Some((values, len));
        }
    }
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    // curl skips blanks after a number's `-` (`[1- 9]`), not before it.
    let hi = hi.trim_start_matches([' ', '\t']);
    if !digits(lo) || !digits(hi) {
        return None;
    }
    let (a, b) = (lo.parse::<u64>().ok()?, hi.parse::<u64>().ok()?);
    if b < a {
        return None;
    }
    let count = (b - a) / step;
    if count >= u64::try_from(MAX_GLOB_EXPANSIONS).unwrap_or(u64::MAX) {
        // Distinct placeholders, one more than the bound.
        let values = (0..=MAX_GLOB_EXPANSIONS).map(|n| n.to_string()).collect();
        return Some((values, len));
    }
    let width = if lo.starts_with('0') { lo.len() } else { 0 };
    let values = (0..=count)
        .map(|k| format!("{:0width$}", a.saturating_add(k.saturating_mul(step))))
        .collect();
    Some((values, len))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(s: &str) -> Vec<String> {
        match expansions(s) {
            Glob::Texts(t) => t,
            other => panic!("{s}: {other:?}"),
        }
    }

    #[test]
    fn curl_globs_expand() {
        assert_eq!(
            texts("{http,x}://127.0.0.1:8003/x"),
            ["http://127.0.0.1:8003/", "x://127.0.0.1:8003/"]
        );
        assert_eq!(texts("[h-h]ttp://a.example"), ["http://a.example"]);
        assert_eq!(texts("htt{p}://a"), ["http://a"]);
        assert_eq!(texts("127.0.0.[1-1]:8003/"), ["127.0.0.1:8003/"]);
        assert_eq!(texts("{,}127.0.0.1:8003/"), ["127.0.0.1:8003/"]);
        assert_eq!(texts("a[08-10:2]"), ["a08", "a10"]);
        assert_eq!(texts("[a-c:2]"), ["a", "c"]);
        assert_eq!(
            texts("http://[::1]:80{,/}"),
            ["http://[::1]:80", "http://[::1]:80/"]
        );
        assert_eq!(texts("http://{a\\,b,c}.x"), ["http://a,b.x", "http://c.x"]);
        // Blanks after a range's `-` and before its step, as curl's
        // `strtoul` skips them; white space after the head is the path's.
        assert_eq!(texts("127.0.0.[1- 1]:8003/x"), ["127.0.0.1:8003/"]);
        assert_eq!(texts("127.0.0.[1-\t3: +2]"), ["127.0.0.1", "127.0.0.3"]);
        assert_eq!(
            texts("{http,x}://169.254.169.254/latest/[1- 1]"),
            ["http://169.254.169.254/", "x://169.254.169.254/"]
        );
        assert_eq!(texts("http://{a,b}/my file"), ["http://a/", "http://b/"]);
    }

    #[test]
    fn not_globs_and_bounds() {
        for s in [
            "plain",
            "http://[::1]/",
            "a{b",
            "a}b",
            "{}",
            "{a,{b}}",
            "[1-x]",
            "[ 1-2]",
            "[a- c]",
            "[1-2:-1]",
            "{a,b} c",
            "{\"a\":\"x,fd00::1\"}",
            "[\"{a,b}\",1]",
            "a\u{1}{b}",
            "[z-a]",
            "[A-z]",
            "see {x} here",
            "[1-3] items",
            "[link](http://x)",
            "http://a/\\{x\\}",
            "[]",
            "x/{a,b}",
            "http://[::1]:80/{a,b}",
        ] {
            assert_eq!(expansions(s), Glob::Plain, "{s}");
        }
        assert_eq!(expansions("127.0.0.[0-256]"), Glob::TooMany);
        assert_eq!(expansions("[0-9]{1,2,3}[0-9]"), Glob::TooMany);
        assert_eq!(texts("^[0-9]{3}-[0-9]{4}$").len(), 100);
        assert_eq!(
            expansions(&format!("{{a,b}}{}", "x".repeat(crate::net::MAX_URL_BYTES))),
            Glob::TooMany
        );
        assert_eq!(expansions("[1-99999999999999999999]"), Glob::Plain);
        assert_eq!(texts("[0-255]").len(), MAX_GLOB_EXPANSIONS);
    }
}
