//! Strings read as YAML, as the loaders a server may use read them
//! (PyYAML 1.1, js-yaml and the `yaml` package, YAML 1.2 cores): block and
//! flow collections, the forms a loader sees ([`yaml_loader_form`]), and
//! plain scalars a loader resolves to numbers ([`yaml_numbers`]).

use serde_json::Value;

use super::encoded::{base64_readings, MAX_BASE64_READINGS};

/// Most forms of one text read as YAML: the text as written, and the text
/// as a YAML 1.1 loader or a Node one reads it (`yaml_loader_form`: NEL,
/// LS and PS as line breaks, a tab after an indicator as a space), each
/// form read at most [`MAX_BASE64_READINGS`] times.
pub const MAX_YAML_FORMS: usize = 2;

/// `true` when a text not bracketed may be a YAML block collection: a line
/// holding `: ` (or a tab after the colon) or ending in `:`, or a text
/// starting with `- `, `-` alone, `? ` or `---`.
pub(super) fn may_be_yaml_block(t: &str) -> bool {
    t.starts_with("- ")
        || t == "-"
        || t.starts_with("-\n")
        || t.starts_with("? ")
        || t.starts_with("---")
        || t.lines().any(|l| {
            let l = l.trim_end();
            l.ends_with(':') || l.contains(": ") || l.contains(":\t")
        })
}

/// The text after the `//` line comments and `/* */` comments (and white
/// space) that `t` starts with, when it starts with one and a JSON array
/// or object follows them. Bounded by `t`'s length.
pub(super) fn after_leading_comments(t: &str) -> Option<&str> {
    let mut rest = t;
    let mut stripped = false;
    loop {
        rest = rest.trim_start();
        if let Some(r) = rest.strip_prefix("//") {
            rest = r.split_once('\n').map_or("", |(_, after)| after);
        } else if let Some(r) = rest.strip_prefix("/*") {
            rest = r.split_once("*/")?.1;
        } else {
            break;
        }
        stripped = true;
    }
    (stripped && rest.starts_with(['[', '{'])).then_some(rest)
}

/// `t` as loaders other than YAML 1.2's read it, when that differs: NEL,
/// LS and PS (U+0085, U+2028, U+2029) as line breaks (YAML 1.1: PyYAML),
/// and a tab in the white space after a `:` indicator, or after a `-` or
/// `?` indicator at a line's start, as a space (js-yaml, the `yaml`
/// package: `host:\t127.1`). One pass over `t`.
pub(super) fn yaml_loader_form(t: &str) -> Option<String> {
    if !t.contains(['\u{85}', '\u{2028}', '\u{2029}', '\t']) {
        return None;
    }
    let mut out = String::with_capacity(t.len());
    // In the white space after an indicator.
    let mut after_indicator = false;
    // Only white space since the line's start.
    let mut line_start = true;
    for c in t.chars() {
        let c = match c {
            '\u{85}' | '\u{2028}' | '\u{2029}' => '\n',
            '\t' if after_indicator => ' ',
            c => c,
        };
        match c {
            '\n' | '\r' => {
                after_indicator = false;
                line_start = true;
            }
            ':' => {
                after_indicator = true;
                line_start = false;
            }
            '-' | '?' if line_start || after_indicator => {
                after_indicator = true;
                line_start = false;
            }
            ' ' | '\t' => {}
            _ => {
                after_indicator = false;
                line_start = false;
            }
        }
        out.push(c);
    }
    (out != t).then_some(out)
}

/// Two readings of one text as one: unreadable when either is, else the
/// readings of both (those of the second not already among the first's).
pub(super) fn both_readings(a: YamlRead, b: YamlRead) -> YamlRead {
    match (a, b) {
        (YamlRead::Unreadable(why), _) | (_, YamlRead::Unreadable(why)) => {
            YamlRead::Unreadable(why)
        }
        (YamlRead::Collection(mut v), YamlRead::Collection(w)) => {
            for x in w {
                if !v.contains(&x) {
                    v.push(x);
                }
            }
            YamlRead::Collection(v)
        }
        (YamlRead::Collection(v), YamlRead::Other) | (YamlRead::Other, YamlRead::Collection(v)) => {
            YamlRead::Collection(v)
        }
        (YamlRead::Other, YamlRead::Other) => YamlRead::Other,
    }
}

/// [`read_yaml`] of `t` and of its loaders' form ([`yaml_loader_form`]),
/// as one ([`both_readings`]): at most [`MAX_YAML_FORMS`] parses.
pub(super) fn read_yaml_forms(t: &str) -> YamlRead {
    let first = read_yaml(t);
    match yaml_loader_form(t) {
        Some(form) => both_readings(first, read_yaml(&form)),
        None => first,
    }
}

/// `true` when a key or string of `v` starts with `(` or holds a quote
/// or a backslash: what YAML leaves of a Python tuple, bytes, nested
/// quoting or an escape (`'\x68ttp://…'`, which YAML's single quotes keep
/// as written) that it does not read as Python does. Bounded by `v`'s
/// size.
pub(super) fn python_residue(v: &Value) -> bool {
    let odd = |s: &str| s.starts_with('(') || s.contains(['\'', '"', '\\']);
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            Value::String(s) if odd(s) => return true,
            Value::Array(a) => stack.extend(a),
            Value::Object(m) => {
                if m.keys().any(|k| odd(k)) {
                    return true;
                }
                stack.extend(m.values());
            }
            _ => {}
        }
    }
    false
}

/// What YAML makes of a text.
#[derive(Debug, PartialEq)]
pub(super) enum YamlRead {
    /// A mapping or a sequence (the documents of a stream with more than
    /// one, as an array), every key a scalar's text: each reading of it
    /// (one a reading of its `!!binary` scalars, [`yaml_scalar`]), at most
    /// [`MAX_BASE64_READINGS`], never empty.
    Collection(Vec<Value>),
    /// A YAML text a loader reads otherwise than this check: an alias
    /// (expanded by a loader), a key that is a collection, a duplicate
    /// key, nesting past the core's bound.
    Unreadable(String),
    /// Scalars only, or no YAML.
    Other,
}

/// A collection being built from YAML events.
pub(super) enum YamlFrame {
    Seq(Vec<Value>),
    Map(serde_json::Map<String, Value>, Option<String>),
}

/// Reads `t` as YAML 1.2 (`yaml-rust2`'s event parser, run once; every
/// scalar as its text or texts, [`yaml_scalar`]), nesting bounded by the
/// core's JSON depth bound: once per reading, the `k`th taking the `k`th
/// text of every scalar that has that many (its last of one that has
/// fewer), so that each text of each scalar is checked in place. Bounded
/// by `t`'s length (the parser's events) times [`MAX_BASE64_READINGS`].
pub(super) fn read_yaml(t: &str) -> YamlRead {
    let (events, readings) = yaml_events(t);
    // A stream with a `---` marker: every document, a scalar too, is one
    // a loader gives (`yaml.safe_load("---\nhttp://…")` is the URL).
    let explicit = t.lines().any(|l| {
        l.strip_prefix("---")
            .is_some_and(|r| r.is_empty() || r.starts_with([' ', '\t']))
    });
    let mut all = Vec::new();
    for pick in 0..readings.min(MAX_BASE64_READINGS) {
        match yaml_reading(&events, pick, explicit) {
            YamlRead::Collection(v) => all.extend(v),
            other => return other,
        }
    }
    YamlRead::Collection(all)
}

/// One event of a YAML text, as [`yaml_events`] keeps it.
pub(super) enum YamlEvent {
    /// A scalar's texts ([`yaml_scalar`]).
    Scalar(Vec<String>),
    /// A sequence starts.
    Seq,
    /// A mapping starts.
    Map,
    /// The innermost collection ends.
    End,
    /// The reading stops here: the text is no YAML (`None`) or YAML no
    /// loader reads as written (why).
    Stop(Option<&'static str>),
}

/// The events of `t` read as YAML, up to the first that stops a reading
/// ([`YamlEvent::Stop`]: a syntax error, an alias, an unreadable tagged
/// scalar, nesting past the core's bound), and the most texts a scalar
/// had. One parse.
pub(super) fn yaml_events(t: &str) -> (Vec<YamlEvent>, usize) {
    use yaml_rust2::parser::Parser;
    use yaml_rust2::Event;
    let max_depth = crate::json::Limits::default().effective_max_depth();
    let mut parser = Parser::new_from_str(t);
    let mut events = Vec::new();
    let mut depth = 0_usize;
    let mut readings = 1_usize;
    loop {
        let Ok((event, _)) = parser.next_token() else {
            events.push(YamlEvent::Stop(None));
            break;
        };
        let kept = match event {
            Event::StreamEnd => break,
            Event::Alias(_) => YamlEvent::Stop(Some("an alias, which a loader expands")),
            Event::Scalar(text, style, _, tag) => match yaml_scalar(text, style, tag) {
                Ok(texts) => {
                    readings = readings.max(texts.len());
                    YamlEvent::Scalar(texts)
                }
                Err(why) => YamlEvent::Stop(Some(why)),
            },
            Event::SequenceStart(..) | Event::MappingStart(..) if depth >= max_depth => {
                YamlEvent::Stop(Some("nesting past the core's bound"))
            }
            Event::SequenceStart(..) => {
                depth += 1;
                YamlEvent::Seq
            }
            Event::MappingStart(..) => {
                depth += 1;
                YamlEvent::Map
            }
            // An end with nothing open is no YAML: the parser stops before
            // one, and `yaml_reading` reads it as `Other` if it did not.
            Event::SequenceEnd | Event::MappingEnd => {
                depth = depth.saturating_sub(1);
                YamlEvent::End
            }
            _ => continue,
        };
        let stop = matches!(kept, YamlEvent::Stop(_));
        events.push(kept);
        if stop {
            break;
        }
    }
    (events, readings)
}

/// One reading of `events` ([`read_yaml`]): the `pick`th text of each
/// scalar (its last when it has fewer). Documents that are all scalars
/// are no collection, unless the stream is `explicit` (a `---` marker):
/// then they are read as the items of a sequence.
pub(super) fn yaml_reading(events: &[YamlEvent], pick: usize, explicit: bool) -> YamlRead {
    let unreadable = |why: &str| YamlRead::Unreadable(format!("YAML with {why}"));
    let mut frames: Vec<YamlFrame> = Vec::new();
    let mut docs: Vec<Value> = Vec::new();
    for event in events {
        let node = match event {
            YamlEvent::Scalar(texts) => {
                let at = pick.min(texts.len().saturating_sub(1));
                texts.get(at).cloned().map_or(Value::Null, Value::String)
            }
            // A syntax error after whole documents: a streaming loader
            // (PyYAML's `safe_load_all`, Go's `yaml.v3` decoder) hands
            // those over before it fails (attack s78-A, B3).
            // Only in a stream of documents (`---`): a flow collection a
            // YAML loader stops inside is read whole by another decoder
            // (JSON5's `// }`; attack s80-A, N2).
            YamlEvent::Stop(None) if explicit && !docs.is_empty() => break,
            YamlEvent::Stop(None) => return YamlRead::Other,
            YamlEvent::Stop(Some(why)) => return unreadable(why),
            YamlEvent::Seq => {
                frames.push(YamlFrame::Seq(Vec::new()));
                continue;
            }
            YamlEvent::Map => {
                frames.push(YamlFrame::Map(serde_json::Map::new(), None));
                continue;
            }
            YamlEvent::End => match frames.pop() {
                Some(YamlFrame::Seq(items)) => Value::Array(items),
                Some(YamlFrame::Map(m, _)) => Value::Object(m),
                None => return YamlRead::Other,
            },
        };
        match frames.last_mut() {
            None => docs.push(node),
            Some(YamlFrame::Seq(items)) => items.push(node),
            Some(YamlFrame::Map(m, pending)) => match (pending.take(), node) {
                // A null key (`~: x`) is `None` to a loader; one per
                // mapping.
                (None, Value::Null) => {
                    if m.contains_key("~") {
                        return unreadable("a duplicate key");
                    }
                    *pending = Some("~".to_owned());
                }
                (None, Value::String(key)) => {
                    if m.contains_key(&key) {
                        return unreadable("a duplicate key");
                    }
                    *pending = Some(key);
                }
                (None, _) => return unreadable("a key that is a collection"),
                (Some(key), value) => {
                    m.insert(key, value);
                }
            },
        }
    }
    let collections = docs
        .iter()
        .filter(|d| d.is_object() || d.is_array())
        .count();
    match (collections, docs.len()) {
        (0, 0) => YamlRead::Other,
        (0, _) if explicit => YamlRead::Collection(vec![Value::Array(docs)]),
        (0, _) => YamlRead::Other,
        (_, 1) => docs
            .pop()
            .map_or(YamlRead::Other, |d| YamlRead::Collection(vec![d])),
        _ => YamlRead::Collection(vec![Value::Array(docs)]),
    }
}

/// The YAML tag prefix `!!` stands for (YAML 1.2, 6.8.2.2).
pub(super) const YAML_CORE_TAGS: &str = "tag:yaml.org,2002:";

/// A YAML scalar as a loader gives it to a server: untagged, or with a
/// core tag, its text, and a plain or `!!int`/`!!float` one that a loader
/// resolves to a non-negative integral number, that number in decimal too
/// ([`yaml_numbers`]: `host: 0x7f_00_00_01` is `2130706433` to PyYAML); `!!binary`, the text its base64 decodes to (PyYAML
/// hands `path: !!binary L2V0Yy9wYXNzd2Q=` over as the bytes
/// `/etc/passwd`, which `open()` takes), read as every lenient decoder
/// reads it ([`base64_readings`]: a stray leading `=`, `-` and `_` as
/// junk or as url-safe digits, ...), each distinct reading one text (one
/// that is no UTF-8 with U+FFFD for its bad bytes, so that a leading `/`
/// or `..` stays seen). At most [`MAX_BASE64_READINGS`] texts; none for
/// a plain null (empty, `~`, `null`), which a loader reads as JSON's
/// `null`.
///
/// # Errors
/// A `!!binary` no reading of which is UTF-8, or any other tag (a local
/// `!name`, `!!python/…`): a loader may construct something this check
/// does not see.
pub(super) fn yaml_scalar(
    text: String,
    style: yaml_rust2::scanner::TScalarStyle,
    tag: Option<yaml_rust2::parser::Tag>,
) -> Result<Vec<String>, &'static str> {
    // A number as Python's `int()` and `float()` read it: white space
    // around it (a block scalar's last line break) ignored.
    // The number first: a host key's refusal names the address it spells
    // (`host: 2_130_706_433`), not a name.
    let with_number = |text: String| {
        let mut texts = yaml_numbers(text.trim());
        texts.retain(|n| *n != text);
        texts.push(text);
        texts
    };
    let Some(tag) = tag else {
        // A plain null (empty, `~`, `null`) is no text to a loader (`None`,
        // as JSON's `null`): no texts.
        let null = matches!(text.as_str(), "" | "~" | "null" | "Null" | "NULL");
        return Ok(
            if style == yaml_rust2::scanner::TScalarStyle::Plain && null {
                Vec::new()
            } else if style == yaml_rust2::scanner::TScalarStyle::Plain {
                with_number(text)
            } else {
                vec![text]
            },
        );
    };
    match (tag.handle.as_str(), tag.suffix.as_str()) {
        (YAML_CORE_TAGS, "binary") => {
            let readings = base64_readings(text.as_bytes());
            if !readings.iter().any(|r| std::str::from_utf8(r).is_ok()) {
                return Err("a !!binary scalar that decodes to no text");
            }
            let mut texts: Vec<String> = Vec::with_capacity(readings.len());
            for r in &readings {
                let t = String::from_utf8_lossy(r).into_owned();
                if !texts.contains(&t) {
                    texts.push(t);
                }
            }
            Ok(texts)
        }
        (YAML_CORE_TAGS, "int" | "float") => Ok(with_number(text)),
        (YAML_CORE_TAGS, "str" | "bool" | "null" | "timestamp") | ("!", "") | ("", "!") => {
            Ok(vec![text])
        }
        _ => Err("a tag a loader may construct otherwise"),
    }
}

/// The non-negative integers a YAML loader may resolve the plain scalar
/// `text` to, in decimal, as a server then writes them (`f"{host}"`,
/// `${host}`): YAML 1.1 ints as PyYAML reads them (`_` anywhere, `0b`,
/// `0x`, a leading `0` octal, base 60 `2:44:24:22:53:53`), YAML 1.2's `0o`
/// octal and decimal with leading zeros, and an integral float
/// (`2130706433.0`, `2.130706433e+9`) as JavaScript's `String` writes it.
/// Empty when it is no number, negative, or past `u128` (no address).
/// Bounded by `text`'s length.
pub(super) fn yaml_numbers(text: &str) -> Vec<String> {
    let body = text.strip_prefix('+').unwrap_or(text);
    if body.is_empty()
        || body.starts_with('-')
        || !body.starts_with(|c: char| c.is_ascii_digit() || c == '.')
    {
        return Vec::new();
    }
    let digits = |s: &str, radix: u32| -> Option<u128> {
        let s: String = s.chars().filter(|&c| c != '_').collect();
        (!s.is_empty()).then_some(())?;
        u128::from_str_radix(&s, radix).ok()
    };
    let mut found: Vec<u128> = Vec::new();
    if let Some(b) = body.strip_prefix("0b") {
        found.extend(digits(b, 2));
    } else if let Some(x) = body.strip_prefix("0x") {
        found.extend(digits(x, 16));
    } else if let Some(o) = body.strip_prefix("0o") {
        found.extend(digits(o, 8));
    } else if body.contains(':') {
        // Base 60: the first part without a leading zero, then parts of
        // at most two digits below 60.
        // PyYAML's base 60 float ends in a fraction: an integral one
        // (`…:53.0`) is the same number.
        let (body, fraction) = body.split_once('.').unwrap_or((body, ""));
        let integral = fraction.chars().all(|c| c == '0' || c == '_');
        let mut parts = body.split(':');
        let first = parts.next().filter(|f| !f.starts_with('0') && integral);
        let mut value = first.and_then(|f| digits(f, 10));
        for part in parts {
            let small = (1..=2).contains(&part.len())
                && part.chars().all(|c| c.is_ascii_digit())
                && part.parse::<u8>().is_ok_and(|n| n < 60);
            value = value
                .filter(|_| small)
                .and_then(|v| v.checked_mul(60))
                .and_then(|v| v.checked_add(u128::from(part.parse::<u8>().ok()?)));
        }
        found.extend(value);
    } else if body.chars().all(|c| c.is_ascii_digit() || c == '_') {
        if body.starts_with('0') && body.len() > 1 {
            found.extend(digits(body, 8));
        }
        found.extend(digits(body, 10));
    } else if body
        .chars()
        .all(|c| c.is_ascii_digit() || matches!(c, '_' | '.' | 'e' | 'E' | '+' | '-'))
    {
        let plain: String = body.chars().filter(|&c| c != '_').collect();
        if let Ok(f) = plain.parse::<f64>() {
            if f.is_finite() && f.fract() == 0.0 && (0.0..1e21).contains(&f) {
                // Integral and below 10^21: exact in `u128`.
                #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                found.push(f as u128);
            }
        }
    }
    let mut out: Vec<String> = Vec::with_capacity(found.len());
    for n in found {
        let n = n.to_string();
        if !out.contains(&n) {
            out.push(n);
        }
    }
    out
}

/// Node properties (a tag and an anchor: `!!str`, `&a`) that may stand
/// between an indicator and the scalar it introduces
/// ([`may_open_quoted_scalar`]).
const MAX_NODE_PROPERTIES: usize = 2;

/// Whether the `"` at byte `open` of `text` may open a YAML double-quoted
/// scalar or a TOML basic string: what comes before it on its line, white
/// space and up to [`MAX_NODE_PROPERTIES`] tags or anchors aside, is
/// nothing (a line's or the text's start) or an indicator that a scalar
/// follows: `:`, `-`, `?`, `[`, `{`, `,` (YAML, flow collections, JSON),
/// `=` (a TOML key), or the `""` of a TOML `"""` string. A quote in prose
/// elsewhere (`he said "C:\Logs"`) opens none. Bounded by the line.
pub(super) fn may_open_quoted_scalar(text: &str, open: usize) -> bool {
    let Some(mut before) = text.get(..open) else {
        return false;
    };
    for _ in 0..MAX_NODE_PROPERTIES {
        before = before.trim_end_matches([' ', '\t']);
        let word_start = before.rfind([' ', '\t', '\n', '\r']).map_or(0, |at| at + 1);
        match before.get(word_start..) {
            Some(word) if word.starts_with(['!', '&']) => {
                before = before.get(..word_start).unwrap_or_default();
            }
            _ => break,
        }
    }
    let before = before.trim_end_matches([' ', '\t']);
    match before.chars().next_back() {
        None | Some('\n' | '\r' | ':' | '-' | '?' | '[' | '{' | ',' | '=') => true,
        Some('"') => before.ends_with("\"\""),
        Some(_) => false,
    }
}

/// The inside of a YAML double-quoted scalar (or a TOML basic string,
/// whose escapes are YAML's but fewer) as a loader reads it (YAML 1.2,
/// 5.7; PyYAML, js-yaml): `\0`, `\a`, `\b`, `\t` (and a backslash before
/// a tab), `\n`, `\v`, `\f`, `\r`, `\e`, `\ `, `\"`, `\/`, `\\`, `\N`
/// (U+0085), `\_` (U+00A0), `\L` (U+2028), `\P` (U+2029), `\xXX`,
/// `\uXXXX` (a surrogate pair joined, as JavaScript's strings join it; a
/// lone surrogate as U+FFFD) and `\UXXXXXXXX`; an escaped line break read
/// as nothing, with the white space that starts the next line; a line
/// break folded (a space, or the line feeds of the empty lines after it,
/// the white space around it dropped). `None` when an escape is none of
/// these (a loader fails on it: `\d`, `\x4`, a code point past U+10FFFF).
/// One pass over `run`.
pub(super) fn read_yaml_escapes(run: &str) -> Option<String> {
    let mut out = String::with_capacity(run.len());
    let mut rest = run;
    // `out` up to its trailing white space as written (folding drops it;
    // an escaped space or tab stays).
    let mut kept = 0;
    while let Some(c) = rest.chars().next() {
        rest = rest.get(c.len_utf8()..)?;
        match c {
            '\\' => {
                let e = rest.chars().next()?;
                rest = rest.get(e.len_utf8()..)?;
                let read = match e {
                    '0' => '\0',
                    'a' => '\u{7}',
                    'b' => '\u{8}',
                    't' | '\t' => '\t',
                    'n' => '\n',
                    'v' => '\u{b}',
                    'f' => '\u{c}',
                    'r' => '\r',
                    'e' => '\u{1b}',
                    ' ' => ' ',
                    '"' => '"',
                    '/' => '/',
                    '\\' => '\\',
                    'N' => '\u{85}',
                    '_' => '\u{a0}',
                    'L' => '\u{2028}',
                    'P' => '\u{2029}',
                    'x' | 'u' | 'U' => {
                        let width = match e {
                            'x' => 2,
                            'u' => 4,
                            _ => 8,
                        };
                        let (n, after) = hex_code(rest, width)?;
                        rest = after;
                        match (e, n) {
                            ('u', 0xD800..=0xDBFF) => {
                                let low = rest
                                    .strip_prefix("\\u")
                                    .and_then(|r| hex_code(r, 4))
                                    .filter(|(l, _)| (0xDC00..=0xDFFF).contains(l));
                                match low {
                                    Some((l, after)) => {
                                        rest = after;
                                        let joined = 0x10000 + ((n - 0xD800) << 10) + (l - 0xDC00);
                                        char::from_u32(joined)
                                            .unwrap_or(char::REPLACEMENT_CHARACTER)
                                    }
                                    None => char::REPLACEMENT_CHARACTER,
                                }
                            }
                            (_, 0xD800..=0xDFFF) => char::REPLACEMENT_CHARACTER,
                            _ => char::from_u32(n)?,
                        }
                    }
                    '\n' | '\r' => {
                        let after = if e == '\r' {
                            rest.strip_prefix('\n').unwrap_or(rest)
                        } else {
                            rest
                        };
                        rest = after.trim_start_matches([' ', '\t']);
                        kept = out.len();
                        continue;
                    }
                    _ => return None,
                };
                out.push(read);
                kept = out.len();
            }
            '\n' | '\r' => {
                out.truncate(kept);
                let mut after = if c == '\r' {
                    rest.strip_prefix('\n').unwrap_or(rest)
                } else {
                    rest
                };
                let mut empty = 0_usize;
                loop {
                    let line = after.trim_start_matches([' ', '\t']);
                    let next = line
                        .strip_prefix("\r\n")
                        .or_else(|| line.strip_prefix(['\n', '\r']));
                    match next {
                        Some(n) => {
                            empty += 1;
                            after = n;
                        }
                        None => {
                            after = line;
                            break;
                        }
                    }
                }
                rest = after;
                if empty == 0 {
                    out.push(' ');
                } else {
                    out.extend(std::iter::repeat_n('\n', empty));
                }
                kept = out.len();
            }
            ' ' | '\t' => out.push(c),
            c => {
                out.push(c);
                kept = out.len();
            }
        }
    }
    Some(out)
}

/// The `width` hex digits `s` starts with, as a number, and the rest.
fn hex_code(s: &str, width: usize) -> Option<(u32, &str)> {
    let digits = s.get(..width)?;
    if !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    Some((u32::from_str_radix(digits, 16).ok()?, s.get(width..)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// `depth` collections, each the only item of the one around it.
    fn yaml_nested(depth: usize) -> String {
        format!("{}1{}", "[".repeat(depth), "]".repeat(depth))
    }

    #[test]
    fn yaml_nested_past_the_cores_bound_is_unreadable() {
        let bound = crate::json::Limits::default().effective_max_depth();
        assert!(matches!(
            read_yaml(&yaml_nested(bound)),
            YamlRead::Collection(_)
        ));
        let past = read_yaml(&yaml_nested(bound + 1));
        assert_eq!(
            past,
            YamlRead::Unreadable("YAML with nesting past the core's bound".into())
        );
        let block = format!("{}1", "- ".repeat(bound + 1));
        assert!(matches!(read_yaml(&block), YamlRead::Unreadable(_)));
    }

    #[test]
    fn yaml_siblings_past_the_bound_are_read_in_full() {
        let bound = crate::json::Limits::default().effective_max_depth();
        let items: Vec<String> = (0..bound + 2).map(|k| format!("[{k}]")).collect();
        let text = format!("[{}]", items.join(", "));
        let want: Vec<Value> = (0..bound + 2).map(|k| json!([k.to_string()])).collect();
        assert_eq!(
            read_yaml(&text),
            YamlRead::Collection(vec![Value::Array(want)])
        );
        let maps: Vec<String> = (0..bound + 2).map(|k| format!("{{k{k}: v}}")).collect();
        let text = format!("[{}]", maps.join(", "));
        assert!(matches!(read_yaml(&text), YamlRead::Collection(v) if v.len() == 1));
    }

    /// The double-quoted scalar reading agrees with `yaml-rust2`'s loader
    /// on every escape YAML 1.2 has (attack s69-B, F2), fails where a
    /// loader fails, and folds line breaks.
    #[test]
    fn yaml_escapes_read_as_a_loader_reads_them() {
        use yaml_rust2::parser::Parser;
        use yaml_rust2::Event;
        let loader = |run: &str| {
            let doc = format!("a: \"{run}\"");
            let mut parser = Parser::new_from_str(&doc);
            let mut scalars = Vec::new();
            loop {
                match parser.next_token() {
                    Ok((Event::StreamEnd, _)) => return scalars.pop(),
                    Ok((Event::Scalar(t, ..), _)) => scalars.push(t),
                    Ok(_) => {}
                    Err(_) => return None,
                }
            }
        };
        for run in [
            r"ig\_nore \x85 \N \L",
            r"x\L\P\N\x85",
            r"ig\U0000200Bnore",
            r#"\0\a\b\t\n\v\f\r\e\ \"\/\\"#,
            r"\u200b\U000E0041 caf\u00e9",
            "tab\\\there",
            "one\n  two",
            "one  \n\n   two",
            "joined\\\n    here",
            "kept\\ \n next",
            r"\d",
            r"\x4",
            r"\U00110000",
            r"end\",
        ] {
            assert_eq!(read_yaml_escapes(run), loader(run), "{run:?}");
        }
        assert_eq!(
            read_yaml_escapes(r"ig\U0000200Bnore").as_deref(),
            Some("ig\u{200B}nore")
        );
        // JavaScript's strings join a surrogate pair; a lone one is U+FFFD.
        assert_eq!(
            read_yaml_escapes(r"\udb40\udc41\ud800x").as_deref(),
            Some("\u{E0041}\u{FFFD}x")
        );
    }

    /// Where a quote may open a YAML or TOML string: after an indicator,
    /// a key's `=`, a line's start, tags and anchors aside; not in prose.
    #[test]
    fn quoted_scalars_open_after_indicators() {
        let at = |t: &str| may_open_quoted_scalar(t, t.rfind('"').unwrap());
        for yes in [
            "\"",
            "a: \"",
            "  - \"",
            "[1, \"",
            "{a: \"",
            "a = \"",
            "a = \"\"\"",
            "? \"",
            "a: !!str \"",
            "a: &x !!str \"",
            "x\n  \"",
        ] {
            assert!(at(yes), "{yes:?}");
        }
        for no in ["he said \"", "x \"\"", "a: b \"", "a: !!str &x !x \""] {
            assert!(!at(no), "{no:?}");
        }
    }

    #[test]
    fn yaml_loader_forms() {
        assert_eq!(yaml_loader_form("a: b\nc: d"), None);
        assert_eq!(yaml_loader_form("a:\tb").as_deref(), Some("a: b"));
        assert_eq!(yaml_loader_form("a\tb: c\td"), None, "tabs in text stay");
        assert_eq!(
            yaml_loader_form("a: 1\u{2028}b: 2\u{85}c: 3\u{2029}").as_deref(),
            Some("a: 1\nb: 2\nc: 3\n")
        );
        assert_eq!(
            yaml_loader_form("-\tx\n  -\t- y").as_deref(),
            Some("- x\n  - - y")
        );
        assert_eq!(after_leading_comments("{}"), None);
        assert_eq!(after_leading_comments("// c\n{}"), Some("{}"));
        assert_eq!(after_leading_comments("/* c */[1]"), Some("[1]"));
        assert_eq!(after_leading_comments("/* unclosed [1]"), None);
        assert_eq!(after_leading_comments("// c\nplain"), None);
    }

    /// [`yaml_numbers`] against the values PyYAML, js-yaml and YAML 1.2
    /// loaders give.
    #[test]
    fn yaml_number_readings() {
        for (text, want) in [
            ("2_130_706_433", vec!["2130706433"]),
            ("0b1010", vec!["10"]),
            ("0x7f_00_00_01", vec!["2130706433"]),
            ("0o17", vec!["15"]),
            ("017", vec!["15", "17"]),
            ("019", vec!["19"]),
            ("1:30", vec!["90"]),
            ("2:44:24:22:53:53", vec!["2130706433"]),
            ("1:60", vec![]),
            ("01:30", vec![]),
            ("1:030", vec![]),
            ("2130706433.0", vec!["2130706433"]),
            ("2.130706433e+9", vec!["2130706433"]),
            ("1.5", vec![]),
            ("1e21", vec![]),
            ("-5", vec![]),
            ("+5", vec!["5"]),
            ("0", vec!["0"]),
            ("abc", vec![]),
            ("", vec![]),
            ("1_2_3", vec!["123"]),
            (".5e1", vec!["5"]),
            ("2:44:24:22:53:53.0", vec!["2130706433"]),
            ("1:30.5", vec![]),
            ("1:30.0_0", vec!["90"]),
            ("340282366920938463463374607431768211456", vec![]),
        ] {
            assert_eq!(yaml_numbers(text), want, "{text}");
        }
    }
}
