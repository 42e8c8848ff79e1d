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
///   read as SqlClient reads them ([`sql_server_host`]: `tcp:db,1433` is
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
    for line in t.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let first = members.len();
        line_members(line, &mut members);
        // As a program splitting it as a shell would (Python's
        // `shlex.split`) reads it: quotes and escapes removed
        // (`-x12''7.0.0.1:8003`); each item once.
        // Not a connection string (`;`): no shell splits one.
        let unquoted = shell_unquoted(line);
        if unquoted != line && !line.contains(';') {
            let seen: std::collections::HashSet<String> = members
                .get(first..)
                .unwrap_or_default()
                .iter()
                .map(Value::to_string)
                .collect();
            let mut more = Vec::new();
            line_members(&unquoted, &mut more);
            members.extend(more.into_iter().filter(|m| !seen.contains(&m.to_string())));
        }
    }
    (!members.is_empty()).then_some(Value::Array(members))
}

/// The members of one line of settings text ([`settings_items`]).
fn line_members(line: &str, members: &mut Vec<Value>) {
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
        return;
    }
    // One item whose key is words (`Data Source=…`), or items
    // between `;`: keys may hold spaces.
    let one_spaced_item = line.matches('=').count() == 1
        && line.split('=').next().is_some_and(|k| {
            let k = k.trim();
            !k.is_empty() && k.chars().all(|c| c.is_alphabetic() || c == ' ')
        });
    let spaced_keys = one_spaced_item || line.contains(';');
    let items: Vec<String> = if one_spaced_item {
        vec![line.to_owned()]
    } else if spaced_keys {
        split_outside_braces(line)
    } else if line.contains('&') && !line.contains(char::is_whitespace) {
        line.split('&').map(str::to_owned).collect()
    } else {
        spaced_tokens(line)
    };
    for item in &items {
        item_members(item.trim(), spaced_keys, true, members);
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
    let Some((key, value)) = item.split_once('=') else {
        if let Some(rest) = attached_short_value(item) {
            let key = if address_like(rest) { "host" } else { "url" };
            members.push(member(key, rest));
        } else if item.contains("://") {
            members.push(member("url", item));
        } else {
            members.extend(curl_addresses(item).into_iter().map(|a| member("host", a)));
        }
        return;
    };
    let key = key.trim().trim_start_matches('-');
    let key_ok = !key.is_empty()
        && key.chars().all(|c| {
            c.is_alphanumeric() || matches!(c, '_' | '.' | '-') || (spaced_keys && c == ' ')
        });
    let value = value.trim();
    let value = ['"', '\'']
        .iter()
        .find_map(|&q| value.strip_prefix(q)?.strip_suffix(q))
        .unwrap_or(value);
    if !key_ok {
        return;
    }
    // An ODBC value in braces is the text inside, `}}` a `}`
    // (`Server={127.0.0.1}` is `127.0.0.1`).
    let unbraced = value
        .strip_prefix('{')
        .and_then(|v| v.strip_suffix('}'))
        .map(|v| v.replace("}}", "}"));
    let value = unbraced.as_deref().unwrap_or(value);
    if nested_ok && value.contains('=') {
        item_members(value, false, false, members);
    }
    let folded: String = key
        .chars()
        .filter(|c| !matches!(c, ' ' | '_' | '-'))
        .flat_map(char::to_lowercase)
        .collect();
    match folded.as_str() {
        "server" | "datasource" | "address" | "addr" | "networkaddress" => {
            if !names_a_file(value) {
                members.push(member("host", &sql_server_host(value)));
            }
        }
        "resolve" | "connectto" => {
            members.extend(curl_addresses(value).into_iter().map(|a| member("host", a)));
        }
        _ => members.push(member(key, value)),
    }
}

/// The value of a short option written with it (`-x127.0.0.1:8080`: `x`
/// and `127.0.0.1:8080`), when it is an address ([`address_like`]) or a
/// URL: `-O2` and `-lpthread` are none.
fn attached_short_value(item: &str) -> Option<&str> {
    let rest = item.strip_prefix('-')?;
    let mut chars = rest.chars();
    chars.next().filter(char::is_ascii_alphabetic)?;
    let value = chars.as_str();
    (address_like(value) || looks_like_url(value)).then_some(value)
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
    if address_like(&sql_server_host(v)) {
        return false;
    }
    let b = v.as_bytes();
    let drive = b.first().is_some_and(u8::is_ascii_alphabetic)
        && b.get(1) == Some(&b':')
        && b.get(2).is_some_and(|c| matches!(c, b'\\' | b'/'));
    drive || v.starts_with([':', '/', '|']) || v.starts_with("./") || v.starts_with(".\\")
}

/// The host of a SQL Server connection string's `Server` value as
/// SqlClient and ODBC read it: without a protocol (`tcp:`, `np:`, `lpc:`,
/// `admin:`), an instance (`\SQLEXPRESS`) and a port (`,1433`); `.`,
/// `(local)` and `(localdb)` are the local host (`localhost`).
fn sql_server_host(value: &str) -> String {
    let mut v = value.trim();
    for protocol in ["tcp:", "np:", "lpc:", "admin:"] {
        if v.len() >= protocol.len()
            && v.get(..protocol.len())
                .is_some_and(|p| p.eq_ignore_ascii_case(protocol))
        {
            v = v.get(protocol.len()..).unwrap_or_default();
        }
    }
    let v = v.trim_start_matches('\\');
    let v = v.split(',').next().unwrap_or_default();
    let v = v.split('\\').next().unwrap_or_default().trim();
    let lower = v.to_ascii_lowercase();
    if v == "." || lower == "(local)" || lower.starts_with("(localdb)") {
        "localhost".to_owned()
    } else {
        v.to_owned()
    }
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
        let one_host = !host.contains(':') || (host.starts_with('[') && host.ends_with(']'));
        if one_host && !port.is_empty() && port.chars().all(|c| c.is_ascii_digit()) {
            return if host.is_empty() {
                Vec::new()
            } else {
                vec![rest]
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
                json!([{"Driver": "x"}, {"host": "127.0.0.1"}, {"PWD": "a}b;c"}]),
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
            ("::127.0.0.1:8003", json!([{"host": "127.0.0.1:8003"}])),
            ("--connect-to=::[::1]:8003", json!([{"host": "[::1]:8003"}])),
            // curl resolves `--connect-to`'s HOST2 as any host: a name or
            // an address in any notation; HOST2 empty keeps the URL's.
            ("--connect-to=::127.1:8003", json!([{"host": "127.1:8003"}])),
            ("--connect-to a.example:443:db.internal:5432", json!([{"host": "db.internal:5432"}])),
            ("::0x7f000001:8003", json!([{"host": "0x7f000001:8003"}])),
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
            assert_eq!(settings_items(none), None, "{none:?}");
        }
    }
}
