//! What the transport refuses before (or instead of) the engine, as an HTTP
//! status and a JSON-RPC error body: one kind per reason, one status per
//! kind.

use serde_json::{json, Value};

use crate::engine::wire::Id;

pub use crate::engine::wire::code::HEADER_MISMATCH;

/// Why the transport refused a request (`error.data.kind` of its answer).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `Host` missing, repeated or not allowed (403).
    HostNotAllowed,
    /// `Origin` repeated, `null` or not allowed (403).
    OriginNotAllowed,
    /// No bearer token, or not the token (401).
    Unauthorized,
    /// Another path than the endpoint's (404).
    NotFound,
    /// A method the endpoint does not serve (405).
    MethodNotAllowed,
    /// `Content-Type` is not `application/json` (415).
    UnsupportedMediaType,
    /// `Accept` allows neither JSON nor an event stream (406).
    NotAcceptable,
    /// `MCP-Protocol-Version` repeated, unknown, or not the session's (400).
    BadProtocolVersion,
    /// `Mcp-Session-Id` names no session of this credential (404).
    UnknownSession,
    /// A request other than `initialize` in the handshake era without a
    /// session (400).
    SessionRequired,
    /// A JSON-RPC batch where the revision has none (400).
    BatchNotAllowed,
    /// The body is over the payload bound (413).
    PayloadTooLarge,
    /// The body did not arrive in time (408).
    RequestTimeout,
    /// The body could not be read (400).
    BadBody,
    /// Mirrored headers missing or unlike the body (400, [`HEADER_MISMATCH`]).
    HeaderMismatch,
    /// A method the request's revision does not have: `initialize` in the
    /// stateless era (404, -32601).
    MethodNotFound,
    /// Too many connections, sessions or requests in flight (503).
    Busy,
}

impl Kind {
    /// The stable name (`error.data.kind`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::HostNotAllowed => "host_not_allowed",
            Self::OriginNotAllowed => "origin_not_allowed",
            Self::Unauthorized => "unauthorized",
            Self::NotFound => "not_found",
            Self::MethodNotAllowed => "method_not_allowed",
            Self::UnsupportedMediaType => "unsupported_media_type",
            Self::NotAcceptable => "not_acceptable",
            Self::BadProtocolVersion => "bad_protocol_version",
            Self::UnknownSession => "unknown_session",
            Self::SessionRequired => "session_required",
            Self::BatchNotAllowed => "batch_not_allowed",
            Self::PayloadTooLarge => "payload_too_large",
            Self::RequestTimeout => "request_timeout",
            Self::BadBody => "bad_body",
            Self::HeaderMismatch => "header_mismatch",
            Self::MethodNotFound => "method_not_found",
            Self::Busy => "server_busy",
        }
    }

    /// The HTTP status.
    pub fn status(self) -> u16 {
        match self {
            Self::HostNotAllowed | Self::OriginNotAllowed => 403,
            Self::Unauthorized => 401,
            Self::NotFound | Self::UnknownSession | Self::MethodNotFound => 404,
            Self::MethodNotAllowed => 405,
            Self::NotAcceptable => 406,
            Self::RequestTimeout => 408,
            Self::PayloadTooLarge => 413,
            Self::UnsupportedMediaType => 415,
            Self::Busy => 503,
            Self::BadProtocolVersion
            | Self::SessionRequired
            | Self::BatchNotAllowed
            | Self::BadBody
            | Self::HeaderMismatch => 400,
        }
    }

    /// The JSON-RPC error code of the body.
    pub fn code(self) -> i64 {
        match self {
            Self::HeaderMismatch => HEADER_MISMATCH,
            Self::Busy => crate::engine::SERVER_BUSY,
            Self::BadProtocolVersion => crate::engine::wire::code::UNSUPPORTED_PROTOCOL_VERSION,
            Self::MethodNotFound => crate::rpc::METHOD_NOT_FOUND,
            _ => crate::rpc::INVALID_REQUEST,
        }
    }
}

/// One refusal: its kind, what exactly was wrong, and the id of the request
/// when the body was read far enough to know it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// Why.
    pub kind: Kind,
    /// What, for a person.
    pub message: String,
    /// The request's id (`null` in the answer when `None`).
    pub id: Option<Id>,
    /// Members added to `error.data` beside `kind`.
    pub data: serde_json::Map<String, Value>,
}

impl Refusal {
    /// A refusal of `kind` saying `message`.
    pub fn new(kind: Kind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            id: None,
            data: serde_json::Map::new(),
        }
    }

    /// The same refusal with `key: value` in `error.data`.
    pub fn with_data(mut self, key: &str, value: Value) -> Self {
        self.data.insert(key.into(), value);
        self
    }

    /// The same refusal, answering the request `id`.
    pub fn with_id(mut self, id: Option<Id>) -> Self {
        self.id = id;
        self
    }

    /// The JSON-RPC error response carried as the body.
    pub fn body(&self) -> Value {
        let mut data = self.data.clone();
        data.insert("kind".into(), self.kind.as_str().into());
        json!({
            "jsonrpc": "2.0",
            "id": self.id.as_ref().map_or(Value::Null, Id::to_value),
            "error": {
                "code": self.kind.code(),
                "message": self.message,
                "data": data,
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bodies_carry_the_kind_and_code() {
        let r = Refusal::new(Kind::HeaderMismatch, "Mcp-Method differs").with_id(Some(Id::from(7)));
        assert_eq!(
            r.body(),
            json!({"jsonrpc": "2.0", "id": 7, "error": {"code": -32020,
                "message": "Mcp-Method differs", "data": {"kind": "header_mismatch"}}})
        );
        assert_eq!(
            Refusal::new(Kind::Busy, "x").body()["error"]["code"],
            -32000
        );
        assert_eq!(
            Refusal::new(Kind::HostNotAllowed, "x").body()["id"],
            Value::Null
        );
        assert_eq!(Kind::HostNotAllowed.status(), 403);
        assert_eq!(Kind::Unauthorized.status(), 401);
        assert_eq!(Kind::PayloadTooLarge.status(), 413);
        assert_eq!(Kind::UnsupportedMediaType.status(), 415);
        assert_eq!(Kind::NotAcceptable.status(), 406);
        assert_eq!(Kind::UnknownSession.status(), 404);
        assert_eq!(Kind::HeaderMismatch.status(), 400);
        assert_eq!(Kind::Busy.status(), 503);
    }
}
