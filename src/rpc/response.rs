//! Error responses (JSON-RPC 2.0 §5, §5.1) built from typed errors.
use serde_json::{json, Map, Value};

use super::error::{EnvelopeError, Rejected, RpcError, AUTHORIZATION_ERROR};
use super::id::Id;
use crate::json::JsonError;
use crate::net::{Denial, StableCode};

/// The message of every policy refusal.
pub const AUTHORIZATION_MESSAGE: &str = "blocked by policy";

fn response_error(id: Option<&Id>, error: Value) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": id.map_or(Value::Null, Id::to_value),
        "error": error,
    })
}

/// The JSON-RPC 2.0 error response (§5, §5.1) for a message that never
/// reached application logic: `{"jsonrpc":"2.0","id":…,"error":{"code",
/// "message","data":{"kind","offset"?,"pointer"?,"key"?,"limit"?}}}`, with
/// `id` `null` when `id` is `None`. A parser's [`Rejected`] carries the id
/// to pass ([`Rejected::to_response`]). Send it with HTTP status
/// [`RpcError::http_status`] behind HTTP.
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
    if let RpcError::Json(
        JsonError::TooLarge { limit, .. } | JsonError::TooManyValues { limit, .. },
    ) = error
    {
        data.insert("limit".into(), (*limit).into());
    }
    if let RpcError::Envelope(
        EnvelopeError::IdTooLong { limit, .. } | EnvelopeError::BatchTooLong { limit, .. },
    ) = error
    {
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

impl Rejected {
    /// The error response to send: [`protocol_error`] with this id.
    pub fn to_response(&self) -> Value {
        protocol_error(&self.error, self.id.as_ref())
    }
}

/// The error response for a call that parsed but is refused by policy:
/// code -32001 ([`AUTHORIZATION_ERROR`], in the implementation-defined
/// range of JSON-RPC 2.0 §5.1), message "blocked by policy",
/// `error.data.reason`. HTTP front ends send it with
/// [`HTTP_FORBIDDEN`](super::HTTP_FORBIDDEN) (403).
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
