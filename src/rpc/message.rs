//! The vetted messages `rpc`'s parsers return.
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use serde_json::{json, Map, Value};

use super::error::{ParamsError, Rejected, RpcError};
use super::id::Id;
use crate::json;

/// A JSON-RPC 2.0 request (§4): it has an id and expects a response.
///
/// A `tools/call` request also keeps what the scan found in its `params`
/// ([`Request::tool_call`]), so it is never parsed a second time.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// The id to echo in the response.
    pub id: Id,
    /// The method, e.g. `initialize`, `tools/list`.
    pub method: String,
    /// `params`, an object or an array when present (§4.2).
    pub params: Option<Value>,
    /// For `tools/call`: the vetted call, or why its params do not fit.
    pub(crate) call: Option<Result<ToolCallRequest, ParamsError>>,
}

impl Request {
    /// For a `tools/call` request, the call as [`parse_tool_call`](super::parse_tool_call)
    /// reads it, from the same scan; `None` for any other method.
    ///
    /// # Errors
    ///
    /// The [`Rejected`] answer (-32602 with this request's id) when `params`
    /// do not fit MCP's `tools/call` shape.
    pub fn tool_call(&self) -> Option<Result<ToolCallRequest, Rejected>> {
        self.call.as_ref().map(|c| {
            c.clone().map_err(|e| Rejected {
                error: RpcError::Params(e),
                id: Some(self.id.clone()),
                notification: false,
            })
        })
    }
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
/// returned raw, each to be passed to [`parse_message`](super::parse_message) in turn.
#[derive(Debug, Clone)]
pub enum Incoming {
    /// A single message.
    Single(Message),
    /// A non-empty batch of at most [`MAX_BATCH_LEN`](super::MAX_BATCH_LEN)
    /// elements. Each element already passed the strict JSON layer as part
    /// of the whole input.
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
    pub(crate) arguments: String,
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
    /// [`ParamsError::InvalidArguments`] (-32602) with `serde`'s message
    /// (which names the missing, unknown or mistyped field).
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
