//! The `ToolCall` request builder, for clients and tests.
use serde_json::{json, Map, Value};

use super::id::Id;
use super::message::ToolCallRequest;
use super::TOOLS_CALL;

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
