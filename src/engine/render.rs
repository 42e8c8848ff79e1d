//! Rendering typed replies to wire lines, once: every message the engine
//! writes is built here as one JSON text followed by `\n`.
//!
//! serde_json escapes control characters (a newline inside a string is
//! written `\n`), so a rendered message never contains a raw newline: one
//! message is one line (MCP stdio transport).

use serde_json::{json, Value};

use super::message::{Body, ErrorObject, Id, Outbound, Payload, Response};
use super::wire::code::INTERNAL_ERROR;

fn push_json<T: serde::Serialize + ?Sized>(out: &mut Vec<u8>, v: &T) {
    // Serializing a `Value`, a `RawValue` or an id into a `Vec` cannot
    // fail (no I/O, string keys only); keep the line valid if it ever did.
    if serde_json::to_writer(&mut *out, v).is_err() {
        out.extend_from_slice(b"null");
    }
}

fn push_payload(out: &mut Vec<u8>, p: &Payload) {
    match p {
        Payload::Value(v) => push_json(out, v),
        Payload::Raw(r) => push_raw(out, r.get().as_bytes()),
    }
}

/// Writes vetted JSON text as it came, but for its raw carriage returns,
/// each made a space ([`line_safe`]).
fn push_raw(out: &mut Vec<u8>, json: &[u8]) {
    out.extend(json.iter().map(|&b| if b == b'\r' { b' ' } else { b }));
}

/// `json` (the text of one vetted JSON value) as it may go on a line to
/// a peer: a raw carriage return, in valid JSON only whitespace between
/// tokens (one in a string is escaped), becomes a space, the same value.
/// A peer that also ends lines at a CR (Python's universal newlines, as
/// the official Python SDK's stdio transport reads) would otherwise read
/// a second message where the gateway vetted one. Every line toward a
/// client ([`response`], [`outbound`]) and every client line the gateway
/// passes to its server goes through this.
pub(crate) fn line_safe(json: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(json.len());
    push_raw(&mut out, json);
    out
}

fn push_id(out: &mut Vec<u8>, id: Option<&Id>) {
    match id {
        Some(id) => push_json(out, id),
        None => out.extend_from_slice(b"null"),
    }
}

fn push_error(out: &mut Vec<u8>, e: &ErrorObject) {
    out.extend_from_slice(b"{\"code\":");
    out.extend_from_slice(e.code.to_string().as_bytes());
    out.extend_from_slice(b",\"message\":");
    push_json(out, &e.message);
    if let Some(data) = &e.data {
        out.extend_from_slice(b",\"data\":");
        push_json(out, data);
    }
    out.push(b'}');
}

/// Appends `r` as one JSON object (no newline).
pub(crate) fn push_response(out: &mut Vec<u8>, r: &Response) {
    out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
    push_id(out, r.id.as_ref());
    match &r.body {
        Body::Result(p) => {
            out.extend_from_slice(b",\"result\":");
            push_payload(out, p);
        }
        Body::Error(e) => {
            out.extend_from_slice(b",\"error\":");
            push_error(out, e);
        }
    }
    out.push(b'}');
}

/// The error code of a response line [`push_response`] wrote: `None` for a
/// result (or any other text). The inverse of its prefix, so a transport
/// that maps errors to statuses (Streamable HTTP) need not parse an
/// answer again.
#[cfg(feature = "http")]
pub(crate) fn error_code(line: &[u8]) -> Option<i64> {
    let rest = line.strip_prefix(b"{\"jsonrpc\":\"2.0\",\"id\":")?;
    let mut ids = serde_json::Deserializer::from_slice(rest).into_iter::<serde::de::IgnoredAny>();
    ids.next()?.ok()?;
    let rest = rest
        .get(ids.byte_offset()..)?
        .strip_prefix(b",\"error\":{\"code\":")?;
    let end = rest
        .iter()
        .position(|b| !(b.is_ascii_digit() || *b == b'-'))
        .unwrap_or(rest.len());
    std::str::from_utf8(rest.get(..end)?).ok()?.parse().ok()
}

/// The error that stands in for an answer to `id` whose JSON text would be
/// longer than `max_bytes` (`-32603`, data code `response_too_large`).
pub(crate) fn too_large(id: Option<Id>, max_bytes: usize) -> Response {
    Response::error(
        id,
        ErrorObject {
            code: INTERNAL_ERROR,
            message: format!(
                "the answer would be longer than the {max_bytes}-byte max_response_bytes limit"
            ),
            data: Some(json!({
                "code": "response_too_large",
                "limit": "max_response_bytes",
                "maxBytes": max_bytes,
            })),
        },
    )
}

/// One response as one JSON text (no newline).
fn rendered(r: &Response) -> Vec<u8> {
    let mut out = Vec::with_capacity(128);
    push_response(&mut out, r);
    out
}

/// One response as a line whose JSON text is at most `max_bytes` (the
/// newline not counted): a longer one is replaced by [`too_large`].
pub(crate) fn response(r: &Response, max_bytes: usize) -> Vec<u8> {
    let mut out = rendered(r);
    if out.len() > max_bytes {
        out = rendered(&too_large(r.id.clone(), max_bytes));
    }
    out.push(b'\n');
    out
}

/// A batch answer (JSON-RPC 2.0 §6): one array line whose JSON text is at
/// most `max_bytes` (the newline not counted) whenever the batch's
/// stand-in errors fit in it (they echo only the ids, which came in one
/// request line of at most [`crate::json::MAX_PAYLOAD_BYTES`], at most
/// [`crate::rpc::MAX_BATCH_LEN`] of them). Answers are kept in order while
/// each still leaves room for the shortest form of every later one; an
/// answer that does not fit becomes its [`too_large`] error.
pub(crate) fn batch(rs: &[Response], max_bytes: usize) -> Vec<u8> {
    let full: Vec<Vec<u8>> = rs.iter().map(rendered).collect();
    let fallback: Vec<Vec<u8>> = rs
        .iter()
        .zip(&full)
        .map(|(r, f)| {
            let e = rendered(&too_large(r.id.clone(), max_bytes));
            if f.len() <= e.len() {
                f.clone()
            } else {
                e
            }
        })
        .collect();
    // What the rest of the line needs at least: each later answer's
    // shortest form and the byte after it (`,`, or `]` after the last).
    let mut rest: usize = fallback.iter().map(|e| e.len() + 1).sum();
    let mut out = Vec::with_capacity(rest.min(max_bytes) + 2);
    out.push(b'[');
    for (i, (f, e)) in full.iter().zip(&fallback).enumerate() {
        if i > 0 {
            out.push(b',');
        }
        rest -= e.len() + 1;
        let fits = out.len() + f.len() + rest < max_bytes;
        out.extend_from_slice(if fits { f } else { e });
    }
    out.extend_from_slice(b"]\n");
    out
}

fn push_message(out: &mut Vec<u8>, id: Option<&Id>, method: &str, params: Option<&Payload>) {
    out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",");
    if let Some(id) = id {
        out.extend_from_slice(b"\"id\":");
        push_json(out, id);
        out.push(b',');
    }
    out.extend_from_slice(b"\"method\":");
    push_json(out, method);
    if let Some(p) = params {
        out.extend_from_slice(b",\"params\":");
        push_payload(out, p);
    }
    out.push(b'}');
}

/// A server-initiated message as a line.
pub(crate) fn outbound(m: &Outbound) -> Vec<u8> {
    let mut out = Vec::with_capacity(128);
    match m {
        Outbound::Notification { method, params } => {
            push_message(&mut out, None, method, params.as_ref())
        }
        Outbound::Request { id, method, params } => {
            push_message(&mut out, Some(id), method, params.as_ref())
        }
        Outbound::Raw(raw) => push_raw(&mut out, raw.get().as_bytes()),
    }
    out.push(b'\n');
    out
}

/// `notifications/progress` for `token` (MCP "Progress").
pub(crate) fn progress(
    token: &Id,
    progress: u64,
    total: Option<u64>,
    message: Option<&str>,
) -> Vec<u8> {
    let mut params = serde_json::Map::new();
    params.insert("progressToken".into(), token.to_value());
    params.insert("progress".into(), Value::from(progress));
    if let Some(t) = total {
        params.insert("total".into(), Value::from(t));
    }
    if let Some(m) = message {
        params.insert("message".into(), Value::from(m));
    }
    outbound(&Outbound::Notification {
        method: "notifications/progress".into(),
        params: Some(Payload::Value(Value::Object(params))),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Raw CRs (JSON whitespace) in vetted text become spaces, in
    /// responses, server messages and lines toward a server; escaped ones
    /// stay escaped.
    #[test]
    fn no_raw_carriage_return_reaches_a_peer() {
        use serde_json::value::RawValue;
        use std::sync::Arc;
        let text = "{\"a\":\r{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"x\"}\r,\"b\":\"c\\rd\"}";
        let raw: Arc<RawValue> = Arc::from(RawValue::from_string(text.to_owned()).unwrap());
        let line = response(
            &Response::result(Id::from(1), Payload::Raw(raw.clone())),
            1 << 20,
        );
        let outb = outbound(&Outbound::Raw(raw));
        let own = line_safe(text.as_bytes());
        for l in [line, outb, own] {
            assert!(!l.contains(&b'\r'), "{}", String::from_utf8_lossy(&l));
            let v: Value = serde_json::from_slice(&l).unwrap();
            let want: Value = serde_json::from_str(text).unwrap();
            assert!(v == want || v["result"] == want, "the same value: {v}");
        }
    }

    /// `error_code` reads back the code of every error `response` writes,
    /// whatever the id, and nothing of a result.
    #[cfg(feature = "http")]
    #[test]
    fn error_codes_read_back() {
        let ids = [
            Some(Id::from(7)),
            Some(Id::from(-3)),
            Some(Id::from("a\",\"error\":{\"code\":1")),
            Some(Id::from("")),
            None,
        ];
        for id in ids {
            for code in [-32601_i64, -32000, 0, 42] {
                let r = Response::error(
                    id.clone(),
                    ErrorObject {
                        code,
                        message: "m".into(),
                        data: None,
                    },
                );
                assert_eq!(error_code(&response(&r, usize::MAX)), Some(code));
            }
            let ok = Response {
                id: id.clone(),
                body: Body::Result(json!({"error": {"code": 5}}).into()),
            };
            assert_eq!(error_code(&response(&ok, usize::MAX)), None);
        }
        assert_eq!(error_code(b"{\"id\":1,\"error\":{\"code\":5}}"), None);
        assert_eq!(error_code(b""), None);
    }

    #[test]
    fn lines_are_json_and_whole() {
        let r = Response::result(Id::from(7), json!({"text": "a\nb"}));
        let line = response(&r, usize::MAX);
        assert_eq!(line.iter().filter(|&&b| b == b'\n').count(), 1);
        let v: Value = serde_json::from_slice(&line).unwrap();
        assert_eq!(
            v,
            json!({"jsonrpc": "2.0", "id": 7, "result": {"text": "a\nb"}})
        );
        let e = Response::error(
            None,
            ErrorObject {
                code: -32600,
                message: "x".into(),
                data: Some(json!({"k": 1})),
            },
        );
        let v: Value = serde_json::from_slice(&batch(&[r, e], usize::MAX)).unwrap();
        assert_eq!(
            v[1],
            json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": "x", "data": {"k": 1}}})
        );
        let p: Value = serde_json::from_slice(&progress(&Id::from("t"), 2, Some(5), None)).unwrap();
        assert_eq!(
            p,
            json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": "t", "progress": 2, "total": 5}})
        );
    }

    fn sized(id: u64, bytes: usize) -> Response {
        Response::result(Id::from(id), json!({"text": "\"".repeat(bytes / 2)}))
    }

    fn text_len(line: &[u8]) -> usize {
        assert_eq!(line.last(), Some(&b'\n'));
        line.len() - 1
    }

    #[test]
    fn an_answer_over_the_bound_becomes_its_error() {
        let r = sized(3, 1000);
        let line = response(&r, 500);
        assert!(text_len(&line) <= 500);
        let v: Value = serde_json::from_slice(&line).unwrap();
        assert_eq!(v["id"], 3);
        assert_eq!(v["error"]["code"], -32603);
        assert_eq!(v["error"]["data"]["code"], "response_too_large");
        assert_eq!(v["error"]["data"]["maxBytes"], 500);
        // At the bound exactly, it stays.
        let exact = text_len(&response(&r, usize::MAX));
        assert_eq!(response(&r, exact), response(&r, usize::MAX));
        assert_ne!(response(&r, exact - 1), response(&r, usize::MAX));
    }

    #[test]
    fn a_batch_answer_stays_within_the_bound() {
        // Ten answers of 1 MB each under a 3.5 MB bound: the first three
        // stay, the rest become their errors, in order, with their ids.
        let rs: Vec<Response> = (0..10).map(|i| sized(i, 1_000_000)).collect();
        let line = batch(&rs, 3_500_000);
        assert!(text_len(&line) <= 3_500_000);
        let v: Value = serde_json::from_slice(&line).unwrap();
        let v = v.as_array().unwrap();
        assert_eq!(v.len(), 10);
        for (i, a) in v.iter().enumerate() {
            assert_eq!(a["id"], i);
            assert_eq!(a.get("result").is_some(), i < 3, "{i}");
        }
        let exact = text_len(&batch(&rs, usize::MAX));
        assert_eq!(batch(&rs, exact), batch(&rs, usize::MAX));
        assert_ne!(batch(&rs, exact - 1), batch(&rs, usize::MAX));
    }

    proptest::proptest! {
        #[test]
        fn batch_answers_are_bounded_ordered_and_kept_when_they_fit(
            sizes in proptest::collection::vec(0usize..4000, 1..12),
            max in 0usize..30_000,
        ) {
            let rs: Vec<Response> = sizes.iter().enumerate().map(|(i, &n)| sized(i as u64, n)).collect();
            let line = batch(&rs, max);
            let parts: Vec<Vec<u8>> = rs.iter().map(|r| response(r, usize::MAX)).collect();
            let errs: Vec<Vec<u8>> = rs.iter().map(|r| response(&too_large(r.id.clone(), max), usize::MAX)).collect();
            // Each answer's shortest form as JSON text (newline dropped).
            let shortest: usize = parts.iter().zip(&errs).map(|(p, e)| p.len().min(e.len()) - 1).sum();
            let v: Value = serde_json::from_slice(&line).unwrap();
            let v = v.as_array().unwrap();
            proptest::prop_assert_eq!(v.len(), rs.len());
            // Which answers stayed whole (by comparing with each form).
            let mut kept = Vec::new();
            for (i, a) in v.iter().enumerate() {
                let whole: Value = serde_json::from_slice(&parts[i]).unwrap();
                let err: Value = serde_json::from_slice(&errs[i]).unwrap();
                proptest::prop_assert!(*a == whole || *a == err, "{i}");
                kept.push(*a == whole);
            }
            // Bounded whenever the shortest forms fit (`[`, `]`, commas: n + 1).
            if shortest + rs.len() < max {
                proptest::prop_assert!(text_len(&line) <= max);
            }
            // Nothing replaced when the whole batch fits.
            if text_len(&batch(&rs, usize::MAX)) <= max {
                proptest::prop_assert!(kept.iter().all(|&k| k));
            }
            // No replacement is gratuitous: putting any replaced answer back
            // (the others as they are) would cross the bound.
            for i in (0..rs.len()).filter(|&i| !kept[i]) {
                let len: usize = (0..rs.len())
                    .map(|j| if j == i || kept[j] { parts[j].len() - 1 } else { errs[j].len() - 1 })
                    .sum::<usize>() + rs.len() + 1;
                proptest::prop_assert!(len > max, "answer {i} was replaced but fits");
            }
        }
    }
}
