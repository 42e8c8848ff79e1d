//! Reading the id of a line that will not be parsed (over the line bound,
//! not strict JSON, nested too deep, a duplicate key, invalid UTF-8, an id
//! of the wrong type), so the request it is or answers gets an answer
//! instead of waiting forever: the engine answers a client's oversized
//! request by its id ([`line_id`]), the gateway answers a client's request
//! whose server answer it will not forward with `tool.bad_response`.
//!
//! Leniently, by design: the line is never used, so a wrong guess can only
//! bring an error answer early (fail closed). The scan reads the top-level
//! members of the object the line starts with (or of each object element of
//! a batch array), strings and nesting tracked byte by byte, over the
//! bounded bytes it is given, and keeps each value of a member named `id`:
//! a string, or a number whose value is an integer (`2.0` is `2`). An `id`
//! nested deeper (inside `result` or `params`) never counts.
//!
//! Ambiguity: a line naming several ids (two top-level `id` members, or a
//! batch) names every one of them (the gateway answers each pending one;
//! [`line_id`] takes none); past [`MAX_ID_CANDIDATES`] it names none. The
//! writer could have sent each of those errors itself, so this grants it
//! nothing.

use serde_json::Number;

use super::wire::Id;

/// Bytes kept of the start and of the end of a line over its bound (the
/// rest is discarded unread), scanned for its id.
pub const MAX_ID_SCAN_BYTES: usize = 64 * 1024;

/// Most `id` members kept from one line (a line with more names none).
pub const MAX_ID_CANDIDATES: usize = 8;

/// The ids the top-level `id` members of `bytes` name (at most
/// [`MAX_ID_CANDIDATES`], wherever they sit in the line: first, middle or
/// last), without duplicates; empty when there are more, or none. When
/// the line is an array (a batch), the top-level members of each object
/// element count. One pass over `bytes`, which the caller has bounded.
pub fn id_candidates(bytes: &[u8]) -> Vec<Id> {
    ids_of(|value| scalar_members(bytes, |key, v| !key_is(key, "id") || value(v)))
}

/// The ids of the `id` values a scan hands its callback (`scan` stops
/// when the callback returns `false`): each a string or an integer,
/// without duplicates; none when there are more than
/// [`MAX_ID_CANDIDATES`].
fn ids_of(scan: impl FnOnce(&mut dyn FnMut(&[u8]) -> bool)) -> Vec<Id> {
    let mut found: Vec<Id> = Vec::new();
    let mut over = false;
    scan(&mut |value| {
        let id = match value.first() {
            Some(b'"') => string_id(value),
            _ => number_id(value),
        };
        if let Some(id) = id {
            push(&mut found, id);
        }
        over = found.len() > MAX_ID_CANDIDATES;
        !over
    });
    if over {
        return Vec::new();
    }
    found
}

/// Whether a top-level member of `bytes` (as [`id_candidates`] reads
/// them: of the object the line starts with, or of each object element of
/// a batch) is named `name` and holds a string: a line that names a
/// `method` this way is a request or a notification, read leniently.
pub fn names_string_member(bytes: &[u8], name: &str) -> bool {
    let mut named = false;
    scalar_members(bytes, |key, value| {
        named = value.first() == Some(&b'"') && key_is(key, name);
        !named
    });
    named
}

/// Calls `visit` with the quoted key and the text of the value of each
/// top-level member whose value is a string or a number (of the object
/// the line starts with, or of each object element of a batch array),
/// strings and nesting tracked byte by byte, in one pass; stops when
/// `visit` returns `false`.
fn scalar_members(bytes: &[u8], mut visit: impl FnMut(&[u8], &[u8]) -> bool) {
    let member_depth = match bytes.iter().find(|b| !b.is_ascii_whitespace()) {
        Some(b'[') => 2usize,
        _ => 1usize,
    };
    let mut depth = 0usize;
    let mut i = 0usize;
    let mut expect_key = false;
    // The container open at `member_depth` is an object (members count).
    let mut in_object = false;
    let mut last_key: Option<(usize, usize)> = None;
    while let Some(&b) = bytes.get(i) {
        let at_members = depth == member_depth && in_object;
        let value_end = match b {
            b'"' => {
                let end = string_end(bytes, i);
                if at_members && expect_key {
                    last_key = Some((i, end));
                    expect_key = false;
                    i = end;
                    continue;
                }
                expect_key = false;
                Some(end)
            }
            b'-' | b'0'..=b'9' if at_members && last_key.is_some() => Some(
                bytes
                    .iter()
                    .skip(i)
                    .position(|c| !matches!(c, b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9'))
                    .map_or(bytes.len(), |n| i.saturating_add(n)),
            ),
            b'{' | b'[' => {
                depth = depth.saturating_add(1);
                if depth == member_depth {
                    in_object = b == b'{';
                    expect_key = in_object;
                    last_key = None;
                }
                None
            }
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                None
            }
            b',' if at_members => {
                expect_key = true;
                None
            }
            b':' if at_members => None,
            b' ' | b'\t' | b'\r' | b'\n' => None,
            _ if at_members => {
                last_key = None;
                None
            }
            _ => None,
        };
        let Some(end) = value_end else {
            i = i.saturating_add(1);
            continue;
        };
        let key = if at_members { last_key.take() } else { None };
        if let Some(key) = key.and_then(|(s, e)| bytes.get(s..e)) {
            if !visit(key, bytes.get(i..end).unwrap_or_default()) {
                return;
            }
        }
        i = end;
    }
}

/// The ids of top-level `id` members found in the *end* of a line
/// (`tail`, which may start anywhere inside it): writers that put `id`
/// last (the TypeScript SDK writes `{"result":…,"jsonrpc":"2.0","id":2}`)
/// leave it past what [`id_candidates`] reads of a long line. A member is
/// top-level when what follows its value closes exactly one more object
/// than it opens, and ends the line.
pub fn tail_id_candidates(tail: &[u8]) -> Vec<Id> {
    ids_of(|value| tail_members(tail, "id", value))
}

/// Whether the end of a line (`tail`, read as [`tail_id_candidates`]
/// reads it) holds a top-level member `name` whose value is a string: a
/// long request that writes its `method` last names it there.
pub fn tail_names_string_member(tail: &[u8], name: &str) -> bool {
    let mut named = false;
    tail_members(tail, name, |value| {
        named = value.first() == Some(&b'"');
        !named
    });
    named
}

/// Calls `visit` with the text of the value (a string or a number) of
/// each top-level member named `name` (as written, unescaped) in the last
/// [`MAX_ID_SCAN_BYTES`] of `tail`; stops when `visit` returns `false`.
fn tail_members(tail: &[u8], name: &str, mut visit: impl FnMut(&[u8]) -> bool) {
    let tail = tail
        .get(tail.len().saturating_sub(MAX_ID_SCAN_BYTES)..)
        .unwrap_or(tail);
    let key = format!("\"{name}\"");
    let key = key.as_bytes();
    let mut from = 0usize;
    while let Some(at) = tail
        .get(from..)
        .and_then(|rest| rest.windows(key.len()).position(|w| w == key))
    {
        let start = from.saturating_add(at);
        from = start.saturating_add(key.len());
        let mut i = from;
        while tail.get(i).is_some_and(u8::is_ascii_whitespace) {
            i = i.saturating_add(1);
        }
        if tail.get(i) != Some(&b':') {
            continue;
        }
        i = i.saturating_add(1);
        while tail.get(i).is_some_and(u8::is_ascii_whitespace) {
            i = i.saturating_add(1);
        }
        let end = match tail.get(i) {
            Some(b'"') => string_end(tail, i),
            Some(b'-' | b'0'..=b'9') => tail
                .iter()
                .skip(i)
                .position(|c| !matches!(c, b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9'))
                .map_or(tail.len(), |n| i.saturating_add(n)),
            _ => continue,
        };
        if closes_the_line(tail.get(end..).unwrap_or_default())
            && !visit(tail.get(i..end).unwrap_or_default())
        {
            return;
        }
    }
}

/// `true` when `rest` (what follows a member's value) closes exactly one
/// object more than it opens and then ends: the member was top-level.
fn closes_the_line(rest: &[u8]) -> bool {
    let mut depth = 0i64;
    let mut i = 0usize;
    while let Some(&b) = rest.get(i) {
        match b {
            b'"' => {
                i = string_end(rest, i);
                continue;
            }
            b'{' | b'[' => depth = depth.saturating_add(1),
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                if depth < 0 {
                    return b == b'}'
                        && rest
                            .get(i.saturating_add(1)..)
                            .unwrap_or_default()
                            .iter()
                            .all(u8::is_ascii_whitespace);
                }
            }
            _ => {}
        }
        i = i.saturating_add(1);
    }
    false
}

fn push(found: &mut Vec<Id>, id: Id) {
    if !found.contains(&id) {
        found.push(id);
    }
}

/// The index just past the string that starts (with `"`) at `start`, or
/// the end of the input.
fn string_end(bytes: &[u8], start: usize) -> usize {
    let mut i = start.saturating_add(1);
    while let Some(&b) = bytes.get(i) {
        match b {
            b'\\' => i = i.saturating_add(2),
            b'"' => return i.saturating_add(1),
            _ => i = i.saturating_add(1),
        }
    }
    bytes.len()
}

/// `true` when the quoted key `key` reads `name`, escapes decoded.
fn key_is(key: &[u8], name: &str) -> bool {
    serde_json::from_slice::<String>(key).is_ok_and(|k| k == name)
}

fn string_id(quoted: &[u8]) -> Option<Id> {
    let text = String::from_utf8_lossy(quoted);
    serde_json::from_str::<String>(&text).ok().map(Id::String)
}

fn number_id(text: &[u8]) -> Option<Id> {
    let n: Number = serde_json::from_slice(text).ok()?;
    if n.is_i64() || n.is_u64() {
        return Some(Id::Number(n));
    }
    let f = n.as_f64()?;
    if f.fract() != 0.0 || !f.is_finite() || f.abs() > 9.007_199_254_740_992e15 {
        return None;
    }
    // An integral float (`2.0`, `2e0`) names the integer id.
    #[allow(clippy::cast_possible_truncation)]
    let i = f as i64;
    Some(Id::Number(Number::from(i)))
}

/// The one id an oversized line names, from its kept start (`prefix`,
/// [`id_candidates`]) and end (`suffix`, [`tail_id_candidates`]): `None`
/// when it names none, or more than one.
pub fn line_id(prefix: &[u8], suffix: &[u8]) -> Option<Id> {
    let mut ids = id_candidates(prefix);
    for id in tail_id_candidates(suffix) {
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    match ids.as_slice() {
        [one] => Some(one.clone()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(line: &[u8]) -> Vec<String> {
        id_candidates(line).iter().map(|i| i.to_string()).collect()
    }

    #[test]
    fn lenient_ids() {
        assert_eq!(
            ids(br#"{"jsonrpc":"2.0","id":2,"result":{"a":1,"a":2}}"#),
            ["2"]
        );
        assert_eq!(ids(br#"{"id":2,"id":2,"result":{}}"#), ["2"]);
        assert_eq!(ids(br#"{"id":2.0,"result":{}}"#), ["2"]);
        assert_eq!(ids(br#"{"id":"a\"b","result":{}}"#), [r#""a\"b""#]);
        assert_eq!(ids(b"{\"id\":\"x\",\"result\":\"\xff\"}"), ["\"x\""]);
        assert_eq!(ids(br#"{"result":{"id":5},"id":7}"#), ["7"]);
        assert_eq!(ids(br#"{"\u0069d":3}"#), ["3"]);
        assert_eq!(ids(br#"{"id":1,"id":2}"#), ["1", "2"]);
        assert_eq!(
            ids(br#"{"idx":1,"x":"id","y":["id",4]}"#),
            Vec::<String>::new()
        );
        assert_eq!(ids(br#"{"id":2.5}"#), Vec::<String>::new());
        assert_eq!(ids(br#"{"id":null}"#), Vec::<String>::new());
        let deep = format!(
            r#"{{"id":9,"result":{}{}}}"#,
            "[".repeat(300),
            "]".repeat(300)
        );
        assert_eq!(ids(deep.as_bytes()), ["9"]);
        let many: String = (0..20).map(|i| format!(r#""id":{i},"#)).collect();
        assert!(ids(format!("{{{many}}}").as_bytes()).is_empty());
        assert_eq!(ids(br#"{"id":"unterminated"#), Vec::<String>::new());
        assert_eq!(ids(br#"[1,"id",3]"#), Vec::<String>::new());
    }

    /// A top-level `method` holding a string names a request (or a
    /// notification), read leniently; a nested one, a key only seen as a
    /// value, or a `method` of another type, does not.
    #[test]
    fn a_method_read_leniently() {
        let named = |l: &[u8]| names_string_member(l, "method");
        assert!(named(
            br#"{"jsonrpc":"2.0","id":1,"method":"x","a":1,"a":2}"#
        ));
        assert!(named(
            br#"{"id":"s\ud800","params":{"m":[[[]]]},"method":"roots/list"}"#
        ));
        assert!(named(br#"{"params":{"x":1e400},"\u006dethod":"y"}"#));
        assert!(named(br#"[{"id":1,"result":{}},{"id":2,"method":"z"}]"#));
        assert!(!named(br#"{"id":1,"result":{"method":"x"}}"#));
        assert!(!named(br#"{"id":1,"result":"method"}"#));
        assert!(!named(br#"{"id":1,"method":5}"#));
        assert!(!named(br#"{"id":1,"methods":"x"}"#));
        assert!(!named(br#"["method","x"]"#));
        assert!(!named(b"method"));
    }

    /// Past the first 64 KiB: the id first, in the middle, last, and after
    /// a lone surrogate; a nested `id` never counts.
    #[test]
    fn ids_anywhere_in_a_long_line() {
        let pad = "x".repeat(300_000);
        let first = format!(r#"{{"jsonrpc":"2.0","id":4,"result":{{"a":"{pad}","a":1}}}}"#);
        let middle = format!(r#"{{"result":{{"a":"{pad}","a":1}},"id":5,"b":"{pad}"}}"#);
        let last = format!(r#"{{"result":{{"id":9,"a":"{pad}","a":1}},"jsonrpc":"2.0","id":6}}"#);
        let surrogate = format!(
            r#"{{"result":{{"content":[{{"type":"text","text":"{pad}\ud83d"}}]}},"jsonrpc":"2.0","id":"s-7"}}"#
        );
        assert_eq!(ids(first.as_bytes()), ["4"]);
        assert_eq!(ids(middle.as_bytes()), ["5"]);
        assert_eq!(ids(last.as_bytes()), ["6"]);
        assert_eq!(ids(surrogate.as_bytes()), [r#""s-7""#]);
        let two = format!(r#"{{"id":1,"result":"{pad}","id":2}}"#);
        assert_eq!(ids(two.as_bytes()), ["1", "2"], "every one, none picked");
    }

    /// A long request writing its `method` last names it in its end; a
    /// nested `method`, one not a string, or a member that does not end
    /// the line never counts.
    #[test]
    fn a_method_written_last() {
        let named = |l: &str| tail_names_string_member(l.as_bytes(), "method");
        assert!(named(
            r#"x"},"jsonrpc":"2.0","method":"roots/list","id":"s9"}"#
        ));
        assert!(named(r#"x"}, "method" : "ping"}"#));
        assert!(
            !named(r#"x"},"params":{"method":"ping"},"id":1}"#),
            "nested"
        );
        assert!(!named(r#"x"},"method":5,"id":1}"#), "not a string");
        assert!(!named(r#"x"},"method":"ping","#), "not the end of a line");
        assert!(!named(r#"x"},"methods":"ping"}"#));
        assert!(!named(r#"x"},"id":1}"#));
        assert!(
            named(r#"x"},"method":5,"method":"ping"}"#),
            "the string one"
        );
        assert_eq!(
            tail_id_candidates(br#"x"},"id":1,"id":"b"}"#),
            [Id::Number(1.into()), Id::String("b".into())],
            "every one"
        );
    }

    /// A batch: the top-level members of each element object.
    #[test]
    fn ids_of_a_batch() {
        assert_eq!(
            ids(br#" [{"jsonrpc":"2.0","id":3,"result":{"id":8}},{"result":{},"id":"b"}]"#),
            ["3", "\"b\""]
        );
        assert_eq!(ids(br#"[[{"id":1}],{"x":{"id":2}}]"#), Vec::<String>::new());
    }

    #[test]
    fn ids_at_the_end_of_a_line() {
        let tail = |t: &[u8]| -> Vec<String> {
            tail_id_candidates(t)
                .iter()
                .map(|i| i.to_string())
                .collect()
        };
        assert_eq!(tail(br#"aaaa"}]},"jsonrpc":"2.0","id":2}"#), ["2"]);
        assert_eq!(tail(br#"aa"}},"id":"x-1","jsonrpc":"2.0"}"#), ["\"x-1\""]);
        assert_eq!(
            tail(br#"a","id":3}],"id":4}"#),
            ["4"],
            "the nested one is not top-level"
        );
        assert_eq!(tail(br#"x","note":""id":5}"}"#), Vec::<String>::new());
        assert_eq!(tail(br#"x"},"id":2.0}  "#), ["2"]);
        assert_eq!(tail(br#"x"},"id":2"#), Vec::<String>::new(), "no end");
    }

    /// The kept start and end of a cut line: an id both name counts once;
    /// two different ids, or none, name no request.
    #[test]
    fn the_id_of_a_cut_line() {
        let one = |p: &[u8], s: &[u8]| line_id(p, s).map(|i| i.to_string());
        assert_eq!(
            one(br#"{"id":7,"result":"aa"#, br#"aa"}"#),
            Some("7".into())
        );
        assert_eq!(
            one(br#"{"result":"aa"#, br#"aa","id":8}"#),
            Some("8".into())
        );
        assert_eq!(
            one(br#"{"id":7,"result":"aa"#, br#"aa","id":7}"#),
            Some("7".into()),
            "the same id at both ends is one id"
        );
        assert_eq!(one(br#"{"id":7,"result":"aa"#, br#"aa","id":8}"#), None);
        assert_eq!(one(br#"{"result":"aa"#, br#"aa"}"#), None);
    }

    fn json_value() -> impl proptest::strategy::Strategy<Value = serde_json::Value> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just(serde_json::Value::Null),
            any::<i64>().prop_map(serde_json::Value::from),
            "[a-z\"\\{}\\[\\],:]{0,8}".prop_map(serde_json::Value::from),
        ];
        leaf.prop_recursive(4, 32, 4, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(serde_json::Value::from),
                proptest::collection::btree_map("(id|[a-z]{1,3})", inner, 0..4)
                    .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
            ]
        })
    }

    use proptest::strategy::Strategy as _;

    proptest::proptest! {
        /// The exact oracle on well-formed answers: the one id, wherever the
        /// `id` member sits among the others and whatever the result holds
        /// (nested `id` members, strings full of braces and quotes).
        #[test]
        fn the_id_of_a_wellformed_answer(
            id in proptest::prop_oneof![
                proptest::prelude::any::<i64>().prop_map(|n| Id::Number(n.into())),
                "[ -~]{0,12}".prop_map(Id::String),
            ],
            result in json_value(),
            id_first in proptest::prelude::any::<bool>(),
        ) {
            let (a, b) = (format!("\"id\":{}", id.to_value()), format!("\"result\":{result}"));
            let line = if id_first { format!("{{\"jsonrpc\":\"2.0\",{a},{b}}}") } else { format!("{{{b},{a}}}") };
            proptest::prop_assert_eq!(id_candidates(line.as_bytes()), vec![id]);
        }

        /// Total on any bytes, and bounded: never more than
        /// MAX_ID_CANDIDATES ids.
        #[test]
        fn total_on_any_bytes(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..256)) {
            proptest::prop_assert!(id_candidates(&bytes).len() <= MAX_ID_CANDIDATES);
            proptest::prop_assert!(tail_id_candidates(&bytes).len() <= MAX_ID_CANDIDATES);
        }

        /// The tail oracle: the one top-level id of a well-formed answer
        /// written last, read from any cut of its end that holds the member.
        #[test]
        fn the_id_written_last(
            id in proptest::prop_oneof![
                proptest::prelude::any::<i64>().prop_map(|n| Id::Number(n.into())),
                "[ -~]{0,12}".prop_map(Id::String),
            ],
            result in json_value(),
            cut in 0usize..64,
        ) {
            let line = format!("{{\"result\":{result},\"jsonrpc\":\"2.0\",\"id\":{}}}", id.to_value());
            let member = line.rfind("\"id\":").unwrap();
            let from = member.saturating_sub(cut);
            let tail = &line.as_bytes()[from..];
            let found = tail_id_candidates(tail);
            // A cut inside a string of the result may make a quoted `"id":`
            // look like a key; the real one is always found.
            proptest::prop_assert!(found.contains(&id), "{:?} in {}", found, String::from_utf8_lossy(tail));
        }

        /// The tail reads a request's `method` written last, from any cut
        /// of its end that holds the member, and never one nested in
        /// `params` of a line whose last member is its id.
        #[test]
        fn the_method_written_last(
            params in json_value(),
            method in "[ -~]{0,12}",
            cut in 0usize..64,
        ) {
            let m = serde_json::Value::String(method);
            let line = format!("{{\"params\":{params},\"jsonrpc\":\"2.0\",\"id\":1,\"method\":{m}}}");
            let from = line.rfind("\"method\":").unwrap().saturating_sub(cut);
            proptest::prop_assert!(tail_names_string_member(&line.as_bytes()[from..], "method"));
            let nested = format!("{{\"params\":{{\"method\":{m}}},\"id\":1}}");
            proptest::prop_assert!(!tail_names_string_member(nested.as_bytes(), "method"));
        }
    }
}
