//! The server's only entry to message bytes: every line goes through the
//! core here (strict JSON parse, then the JSON-RPC 2.0 envelope), and every
//! protocol-level error response is built here.
//!
//! TEMPORARY ADAPTER: until `toolgate::json::parse_strict` and
//! `toolgate::rpc::parse_message` land on main, this module carries a thin
//! serde_json stand-in with the same decisions. Swap the bodies of
//! [`parse_document`] and [`parse_envelope`], nothing else.

use serde_json::{json, Map, Value};

/// JSON-RPC 2.0 §5.1 codes, plus MCP's.
pub mod code {
    /// Invalid JSON was received.
    pub const PARSE_ERROR: i64 = -32700;
    /// The JSON sent is not a valid Request object.
    pub const INVALID_REQUEST: i64 = -32600;
    /// The method does not exist / is not available.
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// Invalid method parameter(s).
    pub const INVALID_PARAMS: i64 = -32602;
    /// Internal JSON-RPC error.
    pub const INTERNAL_ERROR: i64 = -32603;
    /// MCP 2026-07-28: the request's protocol version is not served.
    pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;
}

/// A JSON-RPC id: a string or an integer (MCP forbids `null` in requests).
pub type Id = Value;

/// A well-formed JSON-RPC 2.0 request or notification.
#[derive(Debug, Clone, PartialEq)]
pub struct Envelope {
    /// `None` for a notification.
    pub id: Option<Id>,
    /// The method name.
    pub method: String,
    /// `params` when present (always an object: MCP params are by-name).
    pub params: Option<Map<String, Value>>,
}

/// A protocol-level failure: the JSON-RPC error response is fully decided.
#[derive(Debug, Clone, PartialEq)]
pub struct ProtocolError {
    /// JSON-RPC error code.
    pub code: i64,
    /// Human-readable message saying what was wrong and where.
    pub message: String,
    /// Optional structured `error.data`.
    pub data: Option<Value>,
    /// The request id, when it was detectable; `null` otherwise.
    pub id: Option<Id>,
    /// The message was a notification (no `id`, a valid `jsonrpc` and
    /// `method`) with a defect elsewhere: JSON-RPC 2.0 §4.1 forbids replying.
    pub notification: bool,
}

impl ProtocolError {
    /// A protocol error with no `data`.
    pub fn new(code: i64, message: impl Into<String>, id: Option<Id>) -> Self {
        Self {
            code,
            message: message.into(),
            data: None,
            id,
            notification: false,
        }
    }

    /// Adds `error.data`.
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    /// The JSON-RPC 2.0 error response object.
    pub fn to_response(&self) -> Value {
        let mut error = Map::new();
        error.insert("code".into(), Value::from(self.code));
        error.insert("message".into(), Value::from(self.message.clone()));
        if let Some(d) = &self.data {
            error.insert("data".into(), d.clone());
        }
        json!({
            "jsonrpc": "2.0",
            "id": self.id.clone().unwrap_or(Value::Null),
            "error": Value::Object(error),
        })
    }
}

/// A success response.
pub fn result_response(id: &Id, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// The answer for a line over the payload bound (never parsed).
pub fn oversized(len: u64, limit: usize) -> ProtocolError {
    ProtocolError::new(
        code::INVALID_REQUEST,
        format!("message too large: {len} bytes exceeds the {limit}-byte payload bound"),
        None,
    )
}

/// Strict JSON parse of one message (UTF-8, depth, duplicate keys).
///
/// # Errors
/// A parse error (`-32700`, id `null`) saying what was wrong and where.
pub fn parse_document(bytes: &[u8], max_bytes: usize) -> Result<Value, ProtocolError> {
    if bytes.len() > max_bytes {
        return Err(oversized(bytes.len() as u64, max_bytes));
    }
    serde_json::from_slice::<Value>(bytes).map_err(|e| {
        ProtocolError::new(
            code::PARSE_ERROR,
            format!(
                "parse error: {e} (line {}, column {})",
                e.line(),
                e.column()
            ),
            None,
        )
    })
}

/// Validates one JSON-RPC 2.0 request or notification object.
///
/// # Errors
/// `-32600` for a malformed envelope (id echoed when it is itself valid),
/// `-32602` for non-object `params`.
pub fn parse_envelope(value: &Value) -> Result<Envelope, ProtocolError> {
    let Value::Object(obj) = value else {
        return Err(ProtocolError::new(
            code::INVALID_REQUEST,
            "invalid request: a message must be a JSON object",
            None,
        ));
    };
    let id = match obj.get("id") {
        None => None,
        Some(v @ Value::String(_)) => Some(v.clone()),
        Some(Value::Number(n)) if n.is_i64() || n.is_u64() => Some(Value::Number(n.clone())),
        Some(Value::Null) => {
            return Err(ProtocolError::new(
                code::INVALID_REQUEST,
                "invalid request: /id must be a string or an integer, not null",
                None,
            ))
        }
        Some(_) => {
            return Err(ProtocolError::new(
                code::INVALID_REQUEST,
                "invalid request: /id must be a string or an integer",
                None,
            ))
        }
    };
    if obj.get("jsonrpc") != Some(&Value::from("2.0")) {
        return Err(ProtocolError::new(
            code::INVALID_REQUEST,
            "invalid request: /jsonrpc must be \"2.0\"",
            None,
        ));
    }
    let method = match obj.get("method") {
        Some(Value::String(m)) => m.clone(),
        _ => {
            return Err(ProtocolError::new(
                code::INVALID_REQUEST,
                "invalid request: /method must be a string",
                id,
            ))
        }
    };
    let params = match obj.get("params") {
        None => None,
        Some(Value::Object(p)) => Some(p.clone()),
        Some(_) => {
            let mut e = ProtocolError::new(
                code::INVALID_PARAMS,
                "invalid params: /params must be an object",
                id.clone(),
            );
            e.notification = id.is_none();
            return Err(e);
        }
    };
    Ok(Envelope { id, method, params })
}
