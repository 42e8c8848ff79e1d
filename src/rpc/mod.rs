//! `toolgate::rpc`: JSON-RPC 2.0 envelopes and MCP `tools/call` requests,
//! parsed from untrusted bytes, and the error responses a server sends back.
//!
//! Every entry point runs the strict JSON layer first ([`crate::json`]:
//! payload bound, UTF-8, no byte order mark, depth, duplicate keys at any
//! depth), in the same single scan that locates the envelope members, so no
//! `serde_json::Value` is ever built for `tools/call` arguments.
//!
//! * [`parse_incoming`]: one line from a client: a single message or a batch.
//! * [`parse_message`]: a single JSON-RPC 2.0 request or notification (§4, §4.1),
//!   any method (initialize, ping, tools/list, notifications/...).
//! * [`parse_tool_call`] / [`parse_tool_call_with`]: an MCP `tools/call`
//!   request (MCP 2025-06-18, Tools) as a [`ToolCallRequest`].
//! * [`protocol_error`], [`detectable_error_id`]: the error response
//!   (JSON-RPC 2.0 §5, §5.1) for bytes that never reached application logic.
//! * [`authorization_error`], [`denial_error`], [`refusal_error`]: the -32001
//!   response for a call that parsed but is refused by policy.
//!
//! Errors: [`RpcError`] has four categories, each with one JSON-RPC code
//! (`jsonrpc_code()`); `code()` is the stable kind string (`error.data.kind`).
//!
//! ```
//! use toolgate::rpc::{parse_tool_call, protocol_error, detectable_error_id};
//!
//! let line = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call",
//!                 "params":{"name":"extract","arguments":{"path":"a.pdf"}}}"#;
//! let req = parse_tool_call(line).unwrap();
//! assert_eq!(req.name, "extract");
//! assert_eq!(req.arguments()["path"], "a.pdf");
//!
//! let bad = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":1}}"#;
//! let err = parse_tool_call(bad).unwrap_err();
//! assert_eq!(err.jsonrpc_code(), -32602);
//! assert_eq!(err.code(), "invalid_name");
//! let id = detectable_error_id(bad, &err);
//! let response = protocol_error(&err, id.as_ref());
//! assert_eq!(response["id"], 7);
//! ```
use std::fmt;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{json, Map, Number, Value};

use crate::json::{self, Capture, JsonError, Kind, Limits, Member, Span, MAX_SUPPORTED_DEPTH};
use crate::net::{Denial, StableCode};

mod error;

pub use error::{
    EnvelopeError, MethodError, ParamsError, RpcError, AUTHORIZATION_ERROR, HTTP_BAD_REQUEST,
    HTTP_FORBIDDEN, HTTP_PAYLOAD_TOO_LARGE, INVALID_PARAMS, INVALID_REQUEST, MAX_ERROR_EXCERPT,
    METHOD_NOT_FOUND, PARSE_ERROR,
};

/// Most elements accepted in one JSON-RPC batch (§6) by [`parse_incoming`].
pub const MAX_BATCH_LEN: usize = 1024;

/// The MCP method this module's [`parse_tool_call`] accepts.
pub const TOOLS_CALL: &str = "tools/call";

/// A JSON-RPC request id: a string or an integer (JSON-RPC 2.0 §4; MCP
/// forbids `null`). Integers must fit `i64` or `u64`; a number with a
/// fraction or exponent is refused, so an id always echoes back verbatim.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Id {
    /// An integer id.
    Number(Number),
    /// A string id.
    String(String),
}

impl Id {
    /// The id as a JSON value.
    pub fn to_value(&self) -> Value {
        match self {
            Id::Number(n) => Value::Number(n.clone()),
            Id::String(s) => Value::String(s.clone()),
        }
    }
}

impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Id::Number(n) => write!(f, "{n}"),
            Id::String(s) => write!(f, "{s:?}"),
        }
    }
}

impl From<i64> for Id {
    fn from(n: i64) -> Self {
        Id::Number(n.into())
    }
}
impl From<u64> for Id {
    fn from(n: u64) -> Self {
        Id::Number(n.into())
    }
}
impl From<i32> for Id {
    fn from(n: i32) -> Self {
        Id::Number(n.into())
    }
}
impl From<u32> for Id {
    fn from(n: u32) -> Self {
        Id::Number(n.into())
    }
}
impl From<&str> for Id {
    fn from(s: &str) -> Self {
        Id::String(s.to_owned())
    }
}
impl From<String> for Id {
    fn from(s: String) -> Self {
        Id::String(s)
    }
}

/// A JSON-RPC 2.0 request (§4): it has an id and expects a response.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// The id to echo in the response.
    pub id: Id,
    /// The method, e.g. `initialize`, `tools/list`.
    pub method: String,
    /// `params`, an object or an array when present (§4.2).
    pub params: Option<Value>,
}

/// A JSON-RPC 2.0 notification (§4.1): no id, and no response is sent.
#[derive(Debug, Clone, PartialEq)]
pub struct Notification {
    /// The method, e.g. `notifications/initialized`.
    pub method: String,
    /// `params`, an object or an array when present (§4.2).
    pub params: Option<Value>,
}

/// One vetted JSON-RPC 2.0 message from a client.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    /// Has an id; answer it.
    Request(Request),
    /// Has no id; never answer it.
    Notification(Notification),
}

impl Message {
    /// The method name.
    pub fn method(&self) -> &str {
        match self {
            Message::Request(r) => &r.method,
            Message::Notification(n) => &n.method,
        }
    }

    /// The id, for a request.
    pub fn id(&self) -> Option<&Id> {
        match self {
            Message::Request(r) => Some(&r.id),
            Message::Notification(_) => None,
        }
    }

    /// The params, when present.
    pub fn params(&self) -> Option<&Value> {
        match self {
            Message::Request(r) => r.params.as_ref(),
            Message::Notification(n) => n.params.as_ref(),
        }
    }
}

/// What one input (e.g. one line) holds: a single message, or a batch
/// (JSON-RPC 2.0 §6, allowed by MCP 2025-03-26) whose elements are
/// returned raw, each to be passed to [`parse_message`] in turn.
#[derive(Debug, Clone)]
pub enum Incoming {
    /// A single message.
    Single(Message),
    /// A non-empty batch of at most [`MAX_BATCH_LEN`] elements. Each element
    /// already passed the strict JSON layer as part of the whole input.
    Batch(Vec<Box<RawValue>>),
}

/// A vetted MCP `tools/call` request (MCP 2025-06-18, Tools: `params` is
/// `{ name, arguments?, _meta? }`).
///
/// `arguments` is kept as its vetted JSON text (strictly checked: depth,
/// duplicate keys, grammar) rather than a `Map`, so that parsing never
/// builds a `Value` the tool may not need; read it with
/// [`arguments`](Self::arguments), [`arguments_as`](Self::arguments_as) or
/// [`arguments_json`](Self::arguments_json). An absent `arguments` reads as `{}`.
#[derive(Debug, Clone)]
pub struct ToolCallRequest {
    /// The request id (to echo in the response).
    pub id: Id,
    /// The tool name (`params.name`).
    pub name: String,
    /// `params.arguments` as vetted JSON object text.
    arguments: String,
    /// `params._meta` (e.g. `progressToken`), when present.
    pub meta: Option<Map<String, Value>>,
}

impl PartialEq for ToolCallRequest {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
            && self.name == other.name
            && self.meta == other.meta
            && self.arguments() == other.arguments()
    }
}

impl ToolCallRequest {
    /// The arguments as a JSON object (parsed on each call).
    pub fn arguments(&self) -> Map<String, Value> {
        // The text was vetted as an object, so this cannot fail; an empty
        // map keeps the function total regardless.
        json::from_vetted(&self.arguments).unwrap_or_default()
    }

    /// The arguments' JSON text, exactly as received (an object).
    pub fn arguments_json(&self) -> &str {
        &self.arguments
    }

    /// Deserializes the arguments straight into the tool's own type. With
    /// `#[serde(deny_unknown_fields)]` on `T`, unknown arguments are refused.
    ///
    /// # Errors
    ///
    /// [`RpcError::Params(ParamsError::InvalidArguments)`] (-32602) with `serde`'s message (which
    /// names the missing, unknown or mistyped field).
    pub fn arguments_as<T: DeserializeOwned>(&self) -> Result<T, RpcError> {
        serde_json::from_str(&self.arguments).map_err(|e| {
            RpcError::Params(ParamsError::InvalidArguments {
                message: e.to_string(),
            })
        })
    }

    /// `{"id": …, "name": …, "arguments": …}` (what `toolgate parse` prints).
    pub fn to_value(&self) -> Value {
        json!({
            "id": self.id.to_value(),
            "name": self.name,
            "arguments": Value::Object(self.arguments()),
        })
    }
}

/// Precheck + strict scan, recording the envelope spans.
fn vet<'a>(bytes: &'a [u8], limits: &Limits) -> Result<(&'a str, Capture), RpcError> {
    let text = json::precheck(bytes, limits)?;
    let cap = json::scan_strict(text, limits, true, MAX_BATCH_LEN)?;
    Ok((text, cap))
}

fn slice(text: &str, span: Span) -> &str {
    text.get(span.start..span.end).unwrap_or_default()
}

/// The validated head of a single message.
struct Head {
    id: Option<Id>,
    method: String,
}

/// A failed envelope, with the id when it was already known to be valid.
struct Failed {
    error: RpcError,
    id: Option<Id>,
}

impl From<RpcError> for Failed {
    fn from(error: RpcError) -> Self {
        Failed { error, id: None }
    }
}

/// The top-level value must be an object (not a batch, not a scalar).
fn require_object(cap: &Capture) -> Result<(), RpcError> {
    match cap.top {
        Some(Member {
            kind: Kind::Object, ..
        }) => Ok(()),
        Some(Member {
            kind: Kind::Array, ..
        }) => Err(if cap.element_count == 0 {
            RpcError::Envelope(EnvelopeError::EmptyBatch)
        } else {
            RpcError::Envelope(EnvelopeError::Batch {
                len: cap.element_count,
            })
        }),
        Some(m) => Err(RpcError::Envelope(EnvelopeError::NotAnObject {
            found: m.kind.name(),
        })),
        None => Err(RpcError::Json(JsonError::Empty)),
    }
}

/// The raw content of a vetted string member when it has no escape (the
/// common case, read without `serde_json`).
fn unescaped_str(text: &str, m: Member) -> Option<&str> {
    if m.kind != Kind::String {
        return None;
    }
    let inner = text.get(m.span.start + 1..m.span.end.checked_sub(1)?)?;
    (!inner.contains('\\')).then_some(inner)
}

fn decode_string(text: &str, m: Member) -> Option<String> {
    if m.kind != Kind::String {
        return None;
    }
    if let Some(s) = unescaped_str(text, m) {
        return Some(s.to_owned());
    }
    json::from_vetted::<String>(slice(text, m.span)).ok()
}

/// Whether a string member equals `want` (after unescaping).
fn string_is(text: &str, m: Member, want: &str) -> bool {
    match unescaped_str(text, m) {
        Some(s) => s == want,
        None => decode_string(text, m).as_deref() == Some(want),
    }
}

/// JSON-RPC 2.0 §4: `jsonrpc` exactly "2.0", `id` a string or integer when
/// present, `method` a string.
fn head(text: &str, cap: &Capture) -> Result<Head, Failed> {
    require_object(cap)?;
    match cap.jsonrpc {
        None => {
            return Err(RpcError::Envelope(EnvelopeError::InvalidJsonrpc { found: None }).into())
        }
        Some(m) if string_is(text, m, "2.0") => {}
        Some(m) => {
            return Err(RpcError::Envelope(EnvelopeError::InvalidJsonrpc {
                found: Some(error::excerpt(slice(text, m.span))),
            })
            .into())
        }
    }
    let id = match cap.id {
        None => None,
        Some(m) => Some(decode_id(text, m)?),
    };
    let method = match cap.method {
        None => {
            return Err(Failed {
                error: RpcError::Envelope(EnvelopeError::MissingMethod),
                id,
            })
        }
        Some(m) => match decode_string(text, m) {
            Some(s) => s,
            None => {
                return Err(Failed {
                    error: RpcError::Envelope(EnvelopeError::InvalidMethod {
                        found: m.kind.name(),
                        offset: m.span.start,
                    }),
                    id,
                })
            }
        },
    };
    Ok(Head { id, method })
}

fn decode_id(text: &str, m: Member) -> Result<Id, RpcError> {
    let invalid = |found| {
        RpcError::Envelope(EnvelopeError::InvalidId {
            found,
            offset: m.span.start,
        })
    };
    let raw = slice(text, m.span);
    match m.kind {
        Kind::String => decode_string(text, m)
            .map(Id::String)
            .ok_or_else(|| invalid("a string")),
        Kind::Number => {
            if raw.bytes().any(|c| matches!(c, b'.' | b'e' | b'E')) {
                return Err(invalid("a number with a fraction or exponent"));
            }
            if raw == "-0" {
                // serde_json reads `-0` as the float -0.0; it cannot echo as an integer.
                return Err(invalid("negative zero"));
            }
            if let Ok(n) = raw.parse::<i64>() {
                return Ok(Id::Number(n.into()));
            }
            match raw.parse::<u64>() {
                Ok(n) => Ok(Id::Number(n.into())),
                Err(_) => Err(invalid("an integer outside the 64-bit range")),
            }
        }
        other => Err(invalid(other.name())),
    }
}

fn structured_params(text: &str, cap: &Capture) -> Result<Option<Value>, RpcError> {
    match cap.params {
        None => Ok(None),
        Some(m) if matches!(m.kind, Kind::Object | Kind::Array) => {
            Ok(Some(json::from_vetted::<Value>(slice(text, m.span))?))
        }
        Some(m) => Err(RpcError::Envelope(EnvelopeError::ParamsNotStructured {
            found: m.kind.name(),
            offset: m.span.start,
        })),
    }
}

fn message_from(text: &str, cap: &Capture) -> Result<Message, Failed> {
    let head = head(text, cap)?;
    let params = structured_params(text, cap).map_err(|error| Failed {
        error,
        id: head.id.clone(),
    })?;
    Ok(match head.id {
        Some(id) => Message::Request(Request {
            id,
            method: head.method,
            params,
        }),
        None => Message::Notification(Notification {
            method: head.method,
            params,
        }),
    })
}

/// Parses one JSON-RPC 2.0 message (a request or a notification, any
/// method) from untrusted bytes, after the strict JSON layer.
///
/// Sources: JSON-RPC 2.0 §4 (request object), §4.1 (notification), §4.2
/// (params are structured); RFC 8259 §8.3 and RFC 7493 §2.3 (duplicate keys
/// refused at any depth); MCP (id is never null). Members other than
/// `jsonrpc`, `id`, `method`, `params` are vetted and ignored.
///
/// # Errors
///
/// * -32700 (`RpcError::Json` with the strict layer's `JsonError`: `TooLarge`
///   (HTTP 413), `Empty`, `WhitespaceOnly`, `ByteOrderMark`, `InvalidUtf8`,
///   `Syntax`, `TooDeep`, `DuplicateKey`):
///   the strict JSON layer refused the bytes (see [`crate::json::parse_strict`]).
/// * -32600 `Batch` / `EmptyBatch` (a top-level array: use [`parse_incoming`]),
///   `NotAnObject`, `InvalidJsonrpc`, `InvalidId`, `MissingMethod`,
///   `InvalidMethod`, `ParamsNotStructured`.
pub fn parse_message(bytes: &[u8], limits: &Limits) -> Result<Message, RpcError> {
    let (text, cap) = vet(bytes, limits)?;
    message_from(text, &cap).map_err(|f| f.error)
}

/// Parses one input that may be a single message or a batch (JSON-RPC 2.0
/// §6; MCP 2025-03-26 allows batches). A batch's elements are returned raw,
/// each already vetted as part of the whole; pass each to [`parse_message`]
/// and answer (or not, for notifications) element by element.
///
/// # Errors
///
/// As [`parse_message`] for a single message; for a batch,
/// `RpcError::Envelope(EnvelopeError::EmptyBatch)` for `[]` and `RpcError::Envelope(EnvelopeError::BatchTooLong)` beyond
/// [`MAX_BATCH_LEN`] elements (both -32600).
pub fn parse_incoming(bytes: &[u8], limits: &Limits) -> Result<Incoming, RpcError> {
    let (text, cap) = vet(bytes, limits)?;
    if let Some(Member {
        kind: Kind::Array, ..
    }) = cap.top
    {
        if cap.element_count == 0 {
            return Err(RpcError::Envelope(EnvelopeError::EmptyBatch));
        }
        if cap.element_count > MAX_BATCH_LEN {
            return Err(RpcError::Envelope(EnvelopeError::BatchTooLong {
                len: cap.element_count,
                limit: MAX_BATCH_LEN,
            }));
        }
        let mut out = Vec::with_capacity(cap.elements.len());
        for span in &cap.elements {
            out.push(json::from_vetted::<Box<RawValue>>(slice(text, *span))?);
        }
        return Ok(Incoming::Batch(out));
    }
    message_from(text, &cap)
        .map(Incoming::Single)
        .map_err(|f| f.error)
}

/// [`parse_tool_call_with`] under [`Limits::default()`].
///
/// # Errors
///
/// See [`parse_tool_call_with`].
pub fn parse_tool_call(bytes: &[u8]) -> Result<ToolCallRequest, RpcError> {
    parse_tool_call_with(bytes, &Limits::default())
}

/// Parses an MCP `tools/call` request (MCP 2025-06-18, Tools) from untrusted
/// bytes: the strict JSON layer, the JSON-RPC 2.0 envelope (§4), then
/// `params` = `{ name: string, arguments?: object, _meta?: object }`.
/// Total: every input yields a request or a typed error.
///
/// One scan checks grammar, depth and duplicate keys everywhere (inside
/// `arguments` too) and locates the members; only `id`, `name` and `_meta`
/// are then decoded, `arguments` is copied as vetted text.
///
/// # Errors
///
/// * -32700 (HTTP 413 for `TooLarge`, else 400): `RpcError::Json` with
///   `TooLarge`, `Empty`, `WhitespaceOnly`, `ByteOrderMark`, `InvalidUtf8`,
///   `Syntax` (with offset), `TooDeep` and `DuplicateKey` (with pointer and
///   offset).
/// * -32600: `Batch` / `EmptyBatch` (a top-level array), `NotAnObject`,
///   `InvalidJsonrpc`, `InvalidId` (null, fraction, boolean, object, array),
///   `MissingMethod`, `InvalidMethod`, `Notification` (no `id`).
/// * -32601: `NotToolsCall` (any other method).
/// * -32602: `MissingParams`, `ParamsNotObject`, `MissingName`, `InvalidName`,
///   `ArgumentsNotObject`, `MetaNotObject`.
pub fn parse_tool_call_with(bytes: &[u8], limits: &Limits) -> Result<ToolCallRequest, RpcError> {
    let (text, cap) = vet(bytes, limits)?;
    tool_call_from(text, &cap).map_err(|f| f.error)
}

fn tool_call_from(text: &str, cap: &Capture) -> Result<ToolCallRequest, Failed> {
    let head = head(text, cap)?;
    let Some(id) = head.id else {
        return Err(RpcError::Envelope(EnvelopeError::Notification {
            method: error::excerpt(&head.method),
        })
        .into());
    };
    let fail = |error: RpcError| Failed {
        error,
        id: Some(id.clone()),
    };
    if head.method != TOOLS_CALL {
        return Err(fail(RpcError::MethodNotFound(MethodError::NotToolsCall {
            method: error::excerpt(&head.method),
        })));
    }
    match cap.params {
        None => return Err(fail(RpcError::Params(ParamsError::MissingParams))),
        Some(m) if m.kind != Kind::Object => {
            return Err(fail(RpcError::Params(ParamsError::ParamsNotObject {
                found: m.kind.name(),
                offset: m.span.start,
            })))
        }
        Some(_) => {}
    }
    let name = match cap.name {
        None => return Err(fail(RpcError::Params(ParamsError::MissingName))),
        Some(m) => match decode_string(text, m) {
            Some(s) => s,
            None => {
                return Err(fail(RpcError::Params(ParamsError::InvalidName {
                    found: m.kind.name(),
                    offset: m.span.start,
                })))
            }
        },
    };
    let arguments = match cap.arguments {
        None => "{}".to_owned(),
        Some(m) if m.kind == Kind::Object => slice(text, m.span).to_owned(),
        Some(m) => {
            return Err(fail(RpcError::Params(ParamsError::ArgumentsNotObject {
                found: m.kind.name(),
                offset: m.span.start,
            })))
        }
    };
    let meta = match cap.meta {
        None => None,
        Some(m) if m.kind == Kind::Object => Some(
            json::from_vetted::<Map<String, Value>>(slice(text, m.span))
                .map_err(|e| fail(e.into()))?,
        ),
        Some(m) => {
            return Err(fail(RpcError::Params(ParamsError::MetaNotObject {
                found: m.kind.name(),
                offset: m.span.start,
            })))
        }
    };
    Ok(ToolCallRequest {
        id,
        name,
        arguments,
        meta,
    })
}

/// The id to put in the error response for `error` raised on `bytes`
/// (JSON-RPC 2.0 §5): the request's id whenever the envelope parsed well
/// enough to know it (a valid `jsonrpc` and a valid `id`), `None` (send
/// `null`) for parse-class failures ([`RpcError::is_parse_class`]: oversize,
/// invalid JSON, duplicate keys, too deep, not an object, batch, non-2.0
/// envelope) and when the id itself is missing or invalid.
///
/// Never returns an id that is not in `bytes`. Bounded like the parse
/// itself (the input is re-scanned with its own length as the bound).
pub fn detectable_error_id(bytes: &[u8], error: &RpcError) -> Option<Id> {
    if error.is_parse_class() {
        return None;
    }
    let limits = Limits {
        max_payload_bytes: bytes.len(),
        max_depth: MAX_SUPPORTED_DEPTH,
    };
    let (text, cap) = vet(bytes, &limits).ok()?;
    match head(text, &cap) {
        Ok(h) => h.id,
        Err(f) => f.id,
    }
}

fn response_error(id: Option<&Id>, error: Value) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": id.map_or(Value::Null, Id::to_value),
        "error": error,
    })
}

/// The JSON-RPC 2.0 error response (§5, §5.1) for a message that never
/// reached application logic: `{"jsonrpc":"2.0","id":…,"error":{"code",
/// "message","data":{"kind","offset"?,"pointer"?,"key"?}}}`, with `id`
/// `null` when `id` is `None`. Pair it with [`detectable_error_id`].
/// Send it with HTTP status [`RpcError::http_status`] behind HTTP.
pub fn protocol_error(error: &RpcError, id: Option<&Id>) -> Value {
    let mut data = Map::new();
    data.insert("kind".into(), error.code().into());
    if let Some(o) = error.offset() {
        data.insert("offset".into(), o.into());
    }
    if let Some(p) = error.pointer() {
        data.insert("pointer".into(), p.into());
    }
    if let RpcError::Json(JsonError::DuplicateKey(d)) = error {
        data.insert("key".into(), d.key.clone().into());
    }
    if let RpcError::Json(JsonError::TooLarge { limit, .. }) = error {
        data.insert("limit".into(), (*limit).into());
    }
    response_error(
        id,
        json!({
            "code": error.jsonrpc_code(),
            "message": error.to_string(),
            "data": data,
        }),
    )
}

/// The message of every policy refusal.
pub const AUTHORIZATION_MESSAGE: &str = "blocked by policy";

/// The error response for a call that parsed but is refused by policy:
/// code -32001 ([`AUTHORIZATION_ERROR`], in the implementation-defined
/// range of JSON-RPC 2.0 §5.1), message "blocked by policy",
/// `error.data.reason`. HTTP front ends send it with [`HTTP_FORBIDDEN`] (403).
pub fn authorization_error(id: &Id, reason: &str) -> Value {
    response_error(
        Some(id),
        json!({
            "code": AUTHORIZATION_ERROR,
            "message": AUTHORIZATION_MESSAGE,
            "data": { "reason": reason },
        }),
    )
}

/// [`authorization_error`] for a [`Denial`] from `toolgate::net` (or path
/// confinement): [`refusal_error`] with its [`DenialCode`](crate::net::DenialCode).
/// HTTP status 403.
pub fn denial_error(id: &Id, denial: &Denial) -> Value {
    refusal_error(id, denial.kind(), &denial.reason())
}

/// [`authorization_error`] with a stable code of any family
/// ([`StableCode`]: `ssrf.*`, `policy.*`, `fetch.*`, ...) in
/// `error.data.code` beside `error.data.reason`. HTTP status 403.
pub fn refusal_error(id: &Id, code: impl StableCode, reason: &str) -> Value {
    response_error(
        Some(id),
        json!({
            "code": AUTHORIZATION_ERROR,
            "message": AUTHORIZATION_MESSAGE,
            "data": { "code": code.code(), "reason": reason },
        }),
    )
}

/// Builds `tools/call` requests, for clients and tests:
///
/// ```
/// use toolgate::rpc::{parse_tool_call, ToolCall};
/// let bytes = ToolCall::new("extract").arg("path", "a.pdf").id(7).to_json();
/// let req = parse_tool_call(bytes.as_bytes()).unwrap();
/// assert_eq!(req, ToolCall::new("extract").arg("path", "a.pdf").id(7).to_request());
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    id: Id,
    name: String,
    arguments: Map<String, Value>,
    meta: Option<Map<String, Value>>,
}

impl ToolCall {
    /// A call to tool `name`, id 1, no arguments.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            id: Id::from(1i64),
            name: name.into(),
            arguments: Map::new(),
            meta: None,
        }
    }

    /// Sets the request id.
    pub fn id(mut self, id: impl Into<Id>) -> Self {
        self.id = id.into();
        self
    }

    /// Adds (or replaces) one argument.
    pub fn arg(mut self, key: impl Into<String>, value: impl Into<Value>) -> Self {
        self.arguments.insert(key.into(), value.into());
        self
    }

    /// Replaces all arguments.
    pub fn arguments(mut self, arguments: Map<String, Value>) -> Self {
        self.arguments = arguments;
        self
    }

    /// Adds (or replaces) one `_meta` entry (e.g. `progressToken`).
    pub fn meta(mut self, key: impl Into<String>, value: impl Into<Value>) -> Self {
        self.meta
            .get_or_insert_with(Map::new)
            .insert(key.into(), value.into());
        self
    }

    /// Replaces the whole `_meta` object (an empty map still sends `"_meta": {}`).
    pub fn meta_map(mut self, meta: Map<String, Value>) -> Self {
        self.meta = Some(meta);
        self
    }

    /// The request as a JSON value.
    pub fn to_value(&self) -> Value {
        let mut params = Map::new();
        params.insert("name".into(), self.name.clone().into());
        params.insert("arguments".into(), Value::Object(self.arguments.clone()));
        if let Some(meta) = &self.meta {
            params.insert("_meta".into(), Value::Object(meta.clone()));
        }
        json!({
            "jsonrpc": "2.0",
            "id": self.id.to_value(),
            "method": TOOLS_CALL,
            "params": params,
        })
    }

    /// The request as one line of JSON (no trailing newline).
    pub fn to_json(&self) -> String {
        self.to_value().to_string()
    }

    /// The [`ToolCallRequest`] a server parses from [`to_json`](Self::to_json).
    pub fn to_request(&self) -> ToolCallRequest {
        ToolCallRequest {
            id: self.id.clone(),
            name: self.name.clone(),
            arguments: Value::Object(self.arguments.clone()).to_string(),
            meta: self.meta.clone(),
        }
    }
}
