//! Rendering typed replies to wire lines, once: every message the engine
//! writes is built here as one JSON text followed by `\n`.
//!
//! serde_json escapes control characters (a newline inside a string is
//! written `\n`), so a rendered message never contains a raw newline: one
//! message is one line (MCP stdio transport).

use serde_json::Value;

use super::message::{Body, ErrorObject, Id, Outbound, Payload, Response};

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
        Payload::Raw(r) => out.extend_from_slice(r.get().as_bytes()),
    }
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

/// One response as a line.
pub(crate) fn response(r: &Response) -> Vec<u8> {
    let mut out = Vec::with_capacity(128);
    push_response(&mut out, r);
    out.push(b'\n');
    out
}

/// A batch answer (JSON-RPC 2.0 §6): one array line.
pub(crate) fn batch(rs: &[Response]) -> Vec<u8> {
    let mut out = Vec::with_capacity(128 * rs.len().max(1));
    out.push(b'[');
    for (i, r) in rs.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        push_response(&mut out, r);
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
        Outbound::Raw(raw) => out.extend_from_slice(raw.get().as_bytes()),
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

    #[test]
    fn lines_are_json_and_whole() {
        let r = Response::result(Id::from(7), json!({"text": "a\nb"}));
        let line = response(&r);
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
        let v: Value = serde_json::from_slice(&batch(&[r, e])).unwrap();
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
}
