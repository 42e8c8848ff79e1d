//! The typed values that cross the engine: a client's messages as the
//! engine hands them to a service, and what a service answers or sends,
//! typed until [`super::render`] writes them.

use std::sync::Arc;

use serde_json::value::RawValue;
use serde_json::{Map, Value};

pub use crate::rpc::Id;

/// A vetted client request, as the engine hands it to a service.
#[derive(Debug, Clone)]
pub struct Request {
    /// The id the response must carry.
    pub id: Id,
    /// The method name.
    pub method: String,
    /// `params`: `None` when absent; otherwise the value as sent (MCP
    /// defines every method's params as an object; the service answers
    /// anything else).
    pub params: Option<Value>,
    /// The message's bytes as vetted by the core (a batch element: that
    /// element's bytes), for a service that forwards messages verbatim.
    pub raw: Arc<[u8]>,
    /// Whether it came inside a JSON-RPC batch.
    pub in_batch: bool,
    /// For `tools/call`: the call the core vetted from the line's one scan
    /// (or why its params do not fit); `None` for any other method.
    pub call: Option<Result<crate::rpc::ToolCallRequest, crate::rpc::Rejected>>,
}

impl Request {
    /// `params` when it is an object.
    pub fn params_object(&self) -> Option<&Map<String, Value>> {
        self.params.as_ref().and_then(Value::as_object)
    }
}

/// A vetted client notification (no id; never answered).
#[derive(Debug, Clone)]
pub struct Notification {
    /// The method name, e.g. `notifications/initialized`.
    pub method: String,
    /// `params` as sent.
    pub params: Option<Value>,
    /// The message's bytes as vetted by the core.
    pub raw: Arc<[u8]>,
}

/// A JSON-RPC response the client sent (to a server-initiated request).
#[derive(Debug, Clone)]
pub struct ClientResponse {
    /// The id it answers (`None` for `"id": null`).
    pub id: Option<Id>,
    /// `Ok(result)` or `Err(error object)`.
    pub outcome: Result<Value, Value>,
    /// The message's bytes as vetted by the core.
    pub raw: Arc<[u8]>,
}

/// A JSON value to write: built by the service, or already serialized
/// (a cached `tools/list` page, a child's result forwarded verbatim).
#[derive(Debug, Clone)]
pub enum Payload {
    /// A value, serialized when the response is written.
    Value(Value),
    /// JSON text already vetted or rendered once.
    Raw(Arc<RawValue>),
}

impl From<Value> for Payload {
    fn from(v: Value) -> Self {
        Self::Value(v)
    }
}

/// A JSON-RPC error object (§5.1).
#[derive(Debug, Clone, PartialEq)]
pub struct ErrorObject {
    /// The JSON-RPC code (e.g. -32602).
    pub code: i64,
    /// What was wrong, and where.
    pub message: String,
    /// Optional structured `error.data`.
    pub data: Option<Value>,
}

/// The body of a response.
#[derive(Debug, Clone)]
pub enum Body {
    /// `result`.
    Result(Payload),
    /// `error`.
    Error(ErrorObject),
}

/// One response, typed until it is written.
#[derive(Debug, Clone)]
pub struct Response {
    /// The request's id; `None` renders as `"id": null` (only for bytes
    /// whose id is not known for certain).
    pub id: Option<Id>,
    /// Result or error.
    pub body: Body,
}

impl Response {
    /// A success response.
    pub fn result(id: Id, result: impl Into<Payload>) -> Self {
        Self {
            id: Some(id),
            body: Body::Result(result.into()),
        }
    }

    /// An error response.
    pub fn error(id: Option<Id>, error: ErrorObject) -> Self {
        Self {
            id,
            body: Body::Error(error),
        }
    }
}

/// What the engine sends for one message.
#[derive(Debug, Clone)]
pub enum Reply {
    /// Write this response.
    Send(Response),
    /// Write nothing (notifications, client responses, a cancelled call).
    Silent,
}

/// A message the engine writes to the client on a service's behalf.
#[derive(Debug, Clone)]
pub enum Outbound {
    /// A notification: `{"jsonrpc":"2.0","method":…,"params":…}`.
    Notification {
        /// The method, e.g. `notifications/message`.
        method: String,
        /// `params`, omitted when `None`.
        params: Option<Payload>,
    },
    /// A server-initiated request with an id the service chose (a gateway
    /// forwarding its child's ids uses a namespace it reserves); the
    /// client's answer comes back through `Service::response`.
    Request {
        /// The id.
        id: Id,
        /// The method, e.g. `sampling/createMessage`.
        method: String,
        /// `params`, omitted when `None`.
        params: Option<Payload>,
    },
    /// A message already vetted and rendered (a child's line forwarded
    /// verbatim): written as it is, followed by a newline. It must be one
    /// JSON value without a newline in it.
    Raw(Arc<RawValue>),
}
