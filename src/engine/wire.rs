//! The server's only entry to message bytes: every line goes through the
//! core here ([`crate::rpc::parse_incoming`]: payload bound, strict JSON,
//! JSON-RPC 2.0 envelope), and every protocol-level error response is built
//! here, with the request id whenever it is detectable
//! ([`crate::rpc::detectable_error_id`]).

use serde_json::value::RawValue;
use serde_json::{json, Map, Value};

use super::message::{ClientResponse, ErrorObject, Response};
use crate::json::{JsonError, Limits};
use crate::rpc::{self, Dialect, Incoming, Message, Rejected, RpcError, ToolCallRequest};

pub use crate::rpc::Id;

/// JSON-RPC 2.0 §5.1 codes, plus MCP's.
pub mod code {
    pub use crate::rpc::{INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR};
    /// MCP 2026-07-28: the request's protocol version is not served
    /// (`data: {"supported": [...], "requested": ...}`).
    pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;
    /// MCP 2026-07-28: the request needs a client capability its `_meta`
    /// does not declare (`MissingRequiredClientCapabilityError`).
    pub const MISSING_CLIENT_CAPABILITY: i64 = -32021;
    /// MCP 2026-07-28, Streamable HTTP: mirrored headers missing or unlike
    /// the body (`HeaderMismatch`).
    pub const HEADER_MISMATCH: i64 = -32020;
    /// JSON-RPC 2.0 §5.1: internal error.
    pub const INTERNAL_ERROR: i64 = -32603;
    pub use crate::engine::service::SERVER_BUSY;
}

/// A vetted request or notification whose `params`, when present, is an
/// object (MCP params are by-name).
#[derive(Debug, Clone, PartialEq)]
pub struct Envelope {
    /// `None` for a notification.
    pub id: Option<Id>,
    /// The method name.
    pub method: String,
    /// `params` when present.
    pub params: Option<Map<String, Value>>,
    /// For `tools/call`: the call the core vetted from the same scan.
    pub call: Option<Result<ToolCallRequest, Rejected>>,
}

/// An MCP-level protocol error raised after the envelope parsed.
#[derive(Debug, Clone, PartialEq)]
pub struct ProtocolError {
    /// JSON-RPC error code.
    pub code: i64,
    /// What was wrong, and where (a JSON Pointer into the message).
    pub message: String,
    /// Optional structured `error.data`.
    pub data: Option<Value>,
    /// The request id (`null` in the response when `None`).
    pub id: Option<Id>,
}

impl ProtocolError {
    /// An error with no `data`.
    pub fn new(code: i64, message: impl Into<String>, id: Option<Id>) -> Self {
        Self {
            code,
            message: message.into(),
            data: None,
            id,
        }
    }

    /// -32602, `"invalid params: "` followed by `message` (which names the
    /// member by JSON Pointer).
    pub fn invalid_params(id: &Id, message: &str) -> Self {
        Self::new(
            code::INVALID_PARAMS,
            format!("invalid params: {message}"),
            Some(id.clone()),
        )
    }

    /// Adds `error.data`.
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    /// The JSON-RPC 2.0 error response.
    pub fn to_response(&self) -> Value {
        let mut error = Map::new();
        error.insert("code".into(), Value::from(self.code));
        error.insert("message".into(), Value::from(self.message.clone()));
        if let Some(d) = &self.data {
            error.insert("data".into(), d.clone());
        }
        json!({
            "jsonrpc": "2.0",
            "id": self.id.as_ref().map_or(Value::Null, Id::to_value),
            "error": Value::Object(error),
        })
    }
}

/// The answer to a line over the payload bound (discarded unread): the
/// core's `TooLarge` error, id `null`.
pub fn oversized(len: u64, limit: usize) -> Value {
    let len = usize::try_from(len).unwrap_or(usize::MAX);
    rpc::protocol_error(&RpcError::Json(JsonError::TooLarge { len, limit }), None)
}

/// A success response.
pub fn result_response(id: &Id, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id.to_value(), "result": result})
}

/// The answer to a line over the payload bound (discarded unread): the
/// core's `TooLarge` error, id `null`.
pub(crate) fn oversized_response(len: u64, limit: usize, id: Option<&Id>) -> Response {
    let len = usize::try_from(len).unwrap_or(usize::MAX);
    response_from_value(rpc::protocol_error(
        &RpcError::Json(JsonError::TooLarge { len, limit }),
        id,
    ))
}

/// The answer for a core rejection of `bytes`: a client's response to
/// route ([`Parsed::Response`]) when the bytes are a well-formed response
/// ([`is_valid_response`]); silence for a notification whose only defect is
/// its `params` ([`Rejected::notification`]); otherwise the core's error
/// response, with the id by the core's rule.
fn classify_error(bytes: &[u8], rejected: &Rejected, limits: &Limits) -> Parsed {
    // A JSON-RPC response (`result` or `error`, no `method`): a client
    // answering a server-to-client request. JSON-RPC 2.0 §5 never answers
    // a response (answering could start a loop between two peers).
    // Any envelope defect counts (an error response may carry `"id": null`).
    if !matches!(rejected.error, RpcError::Json(_)) {
        let value = crate::json::parse_strict(bytes, limits).ok();
        if let Some(v) = value.filter(is_valid_response) {
            return Parsed::Response(client_response(v, bytes));
        }
    }
    if rejected.notification {
        tracing::debug!(error = %rejected, "dropped a notification with malformed params");
        return Parsed::Answer(None);
    }
    Parsed::Answer(Some(response_from_value(error_answer(bytes, rejected))))
}

/// The core's error response for `rejected`. When the core names no id
/// because the bytes are not strict JSON (a syntax error, invalid UTF-8, a
/// byte order mark, the top-level `id` given twice, or over the bound),
/// the id is recovered leniently ([`super::recover::line_id`]: the one
/// top-level `id` the line names; over the bound, in its first and last
/// [`super::recover::MAX_ID_SCAN_BYTES`], as the engine reads a line it
/// discards), so the request it would have been is answered, not left
/// waiting. A line naming no id, or several, is answered with `id: null`.
fn error_answer(bytes: &[u8], rejected: &Rejected) -> Value {
    let recovered = match (&rejected.id, &rejected.error) {
        // Over the bound: its kept ends, as the engine keeps them.
        (None, RpcError::Json(JsonError::TooLarge { .. })) => {
            let keep = super::recover::MAX_ID_SCAN_BYTES;
            let head = bytes.get(..keep).unwrap_or(bytes);
            let tail = bytes
                .get(bytes.len().saturating_sub(keep)..)
                .unwrap_or_default();
            super::recover::line_id(head, tail)
        }
        (None, RpcError::Json(_)) => super::recover::line_id(bytes, &[]),
        _ => None,
    };
    match recovered {
        Some(id) => rpc::protocol_error(&rejected.error, Some(&id)),
        None => rejected.to_response(),
    }
}

fn client_response(v: Value, raw: &[u8]) -> ClientResponse {
    let id = v
        .get("id")
        .and_then(|id| serde_json::from_value::<Id>(id.clone()).ok());
    let outcome = match (v.get("result"), v.get("error")) {
        (Some(r), _) => Ok(r.clone()),
        (None, e) => Err(e.cloned().unwrap_or(Value::Null)),
    };
    ClientResponse {
        id,
        outcome,
        raw: raw.into(),
    }
}

/// The typed form of a full JSON-RPC error response built by the core.
pub(crate) fn response_from_value(v: Value) -> Response {
    let id = v
        .get("id")
        .and_then(|id| serde_json::from_value::<Id>(id.clone()).ok());
    let e = v.get("error");
    Response::error(
        id,
        ErrorObject {
            code: e
                .and_then(|e| e.get("code"))
                .and_then(Value::as_i64)
                .unwrap_or(code::INTERNAL_ERROR),
            message: e
                .and_then(|e| e.get("message"))
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
            data: e.and_then(|e| e.get("data")).cloned(),
        },
    )
}

/// The answer for a core rejection of `bytes`, as a value (see
/// [`classify_error`]): `None` for silence.
fn core_error(bytes: &[u8], rejected: &Rejected, limits: &Limits) -> Option<Value> {
    if !matches!(rejected.error, RpcError::Json(_)) {
        let is_response = crate::json::parse_strict(bytes, limits)
            .ok()
            .is_some_and(|v| is_valid_response(&v));
        if is_response {
            tracing::warn!("dropped a JSON-RPC response: this server sends no requests");
            return None;
        }
    }
    if rejected.notification {
        tracing::debug!(error = %rejected, "dropped a notification with malformed params");
        return None;
    }
    Some(error_answer(bytes, rejected))
}

/// A well-formed JSON-RPC 2.0 response (§5): `"jsonrpc": "2.0"`, an `id`
/// (string, integer or null), exactly one of `result` and `error`, an `error`
/// being an object with an integer `code` and a string `message`, and no
/// `method`. Anything else that is not a request stays an invalid request.
pub fn is_valid_response(v: &Value) -> bool {
    let Some(o) = v.as_object() else {
        return false;
    };
    let id_ok = o
        .get("id")
        .is_some_and(|id| id.is_null() || id.is_string() || id.is_i64() || id.is_u64());
    let error_ok = |e: &Value| {
        e.get("code").is_some_and(|c| c.is_i64()) && e.get("message").is_some_and(Value::is_string)
    };
    let body_ok = match (o.get("result"), o.get("error")) {
        (Some(_), None) => true,
        (None, Some(e)) => error_ok(e),
        _ => false,
    };
    o.get("jsonrpc") == Some(&Value::from("2.0"))
        && !o.contains_key("method")
        && id_ok
        && body_ok
        && o.keys()
            .all(|k| matches!(k.as_str(), "jsonrpc" | "id" | "result" | "error"))
}

/// What one line (or batch element) is, once through the core.
#[derive(Debug, Clone)]
pub(crate) enum Parsed {
    /// A vetted request or notification.
    Single(Message),
    /// A batch (elements raw, each to go through [`classify_element`]).
    Batch(Vec<Box<RawValue>>),
    /// A client's response to a server-initiated request.
    Response(ClientResponse),
    /// The core refused it: the answer, or `None` for silence.
    Answer(Option<Response>),
}

/// One message a transport has already put through the core parse
/// ([`Vetted::parse`]), handed to the engine as
/// [`Frame::Vetted`](super::transport::Frame::Vetted): a transport that
/// must look inside a message to route its answer (Streamable HTTP reads the
/// id, the method and `_meta`) parses it once, and the engine does not parse
/// it again.
#[derive(Debug, Clone)]
pub struct Vetted {
    pub(crate) parsed: Parsed,
    pub(crate) raw: Vec<u8>,
}

impl Vetted {
    /// Parses `raw`, one message or batch of at most `limits`' bounds, as
    /// the engine parses a line ([`parse_line`]).
    pub fn parse(raw: Vec<u8>, limits: &Limits) -> Self {
        let parsed = classify_line(&raw, limits);
        Self { parsed, raw }
    }

    /// The bytes as received.
    pub fn raw(&self) -> &[u8] {
        &self.raw
    }
}

/// Two vetted messages are equal when their bytes are (the parse is a
/// function of the bytes and the limits).
impl PartialEq for Vetted {
    fn eq(&self, other: &Self) -> bool {
        self.raw == other.raw
    }
}

impl Eq for Vetted {}

/// Parses one line: a message or a batch.
pub(crate) fn classify_line(bytes: &[u8], limits: &Limits) -> Parsed {
    match rpc::parse_incoming_as(bytes, limits, Dialect::Mcp) {
        Ok(Incoming::Single(m)) => Parsed::Single(m),
        Ok(Incoming::Batch(items)) => Parsed::Batch(items),
        Err(e) => classify_error(bytes, &e, limits),
    }
}

/// Parses one element of a batch.
pub(crate) fn classify_element(bytes: &[u8], limits: &Limits) -> Parsed {
    match rpc::parse_message_as(bytes, limits, Dialect::Mcp) {
        Ok(m) => Parsed::Single(m),
        Err(e) => classify_error(bytes, &e, limits),
    }
}

/// Parses one line: a message or a batch, under the MCP rules
/// ([`Dialect::Mcp`]: `params` is an object; no request calls a
/// `notifications/...` method).
///
/// # Errors
/// The error response to send, or `None` when nothing may be sent.
pub fn parse_line(bytes: &[u8], limits: &Limits) -> Result<Incoming, Option<Value>> {
    rpc::parse_incoming_as(bytes, limits, Dialect::Mcp).map_err(|r| core_error(bytes, &r, limits))
}

/// Parses one element of a batch.
///
/// # Errors
/// As [`parse_line`].
pub fn parse_element(bytes: &[u8], limits: &Limits) -> Result<Message, Option<Value>> {
    rpc::parse_message_as(bytes, limits, Dialect::Mcp).map_err(|r| core_error(bytes, &r, limits))
}

/// Checks MCP's by-name `params` rule on a vetted message.
///
/// # Errors
/// -32602 for a request whose `params` is an array; `None` (silence) for
/// such a notification.
pub fn envelope(message: Message) -> Result<Envelope, Option<Value>> {
    let (id, method, params, call) = match message {
        Message::Request(r) => {
            let call = r.tool_call();
            (Some(r.id), r.method, r.params, call)
        }
        Message::Notification(n) => (None, n.method, n.params, None),
    };
    let params = match params {
        None => None,
        Some(Value::Object(m)) => Some(m),
        Some(_) => {
            return Err(id.map(|id| {
                ProtocolError::new(
                    code::INVALID_PARAMS,
                    "invalid params: /params must be an object (MCP parameters are by name)",
                    Some(id),
                )
                .to_response()
            }))
        }
    };
    Ok(Envelope {
        id,
        method,
        params,
        call,
    })
}

impl From<ProtocolError> for Response {
    fn from(e: ProtocolError) -> Self {
        Response::error(
            e.id,
            ErrorObject {
                code: e.code,
                message: e.message,
                data: e.data,
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The id each entry answers `line` with (they must agree).
    fn answer_id(line: &[u8]) -> Option<Value> {
        let limits = Limits::default();
        let typed = match classify_line(line, &limits) {
            Parsed::Answer(Some(r)) => Some(r.id.as_ref().map_or(Value::Null, Id::to_value)),
            _ => None,
        };
        let value = parse_line(line, &limits)
            .err()
            .flatten()
            .map(|v| v["id"].clone());
        assert_eq!(typed, value, "{line:?}");
        value
    }

    /// A request that fails the strict layer is answered by the id it
    /// names, not with `id: null` (#20 attack pass, K); a line naming no
    /// id, or two, gets `null`.
    #[test]
    fn a_line_that_is_not_json_is_answered_by_its_id() {
        let cases: [(&[u8], Value); 9] = [
            (b"{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":\"x\",\"arguments\":{\"a\":\"\xff\"}}}", json!(5)),
            (b"{\"jsonrpc\":\"2.0\",\"id\":\"r-7\",\"method\":\"ping\"", json!("r-7")),
            (b"{\"jsonrpc\":\"2.0\",\"method\":\"ping\",\"id\":7,}", json!(7)),
            (b"\xef\xbb\xbf{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"ping\"}", json!(8)),
            (b"{\"jsonrpc\":\"2.0\",\"id\":9,\"id\":9,\"method\":\"ping\"}", json!(9)),
            (b"{\"jsonrpc\":\"2.0\",\"id\":1,\"id\":2,\"method\":\"ping\"}", Value::Null),
            (b"{\"jsonrpc\":\"2.0\",\"method\":\"ping\",\"params\":{\"id\":3},}", Value::Null),
            (b"not json", Value::Null),
            // The core's own id, where it has one, is kept.
            (b"{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\",\"params\":{\"a\":1,\"a\":2}}", json!(4)),
        ];
        for (line, want) in cases {
            assert_eq!(
                answer_id(line),
                Some(want),
                "{}",
                String::from_utf8_lossy(line)
            );
        }
    }

    /// Over the bound, the id is read from the line's kept ends only.
    #[test]
    fn a_line_over_the_bound_is_answered_by_the_id_its_ends_name() {
        let limits = Limits {
            max_payload_bytes: 16,
            ..Limits::default()
        };
        let id = |line: &[u8]| {
            parse_line(line, &limits)
                .err()
                .flatten()
                .map(|v| v["id"].clone())
        };
        let small = br#"{"jsonrpc":"2.0","id":5,"method":"ping"}"#;
        assert_eq!(id(small), Some(json!(5)));
        let keep = super::super::recover::MAX_ID_SCAN_BYTES;
        let mut middle = br#"{"jsonrpc":"2.0","method":"ping","a":""#.to_vec();
        middle.resize(keep, b'a');
        middle.extend_from_slice(br#"","id":6,"b":""#);
        middle.resize(middle.len() + keep, b'b');
        let mut last = middle.clone();
        middle.extend_from_slice(br#""}"#);
        assert_eq!(id(&middle), Some(Value::Null), "the id is in no kept end");
        last.extend_from_slice(br#"","id":7}"#);
        assert_eq!(id(&last), Some(json!(7)));
    }
}
