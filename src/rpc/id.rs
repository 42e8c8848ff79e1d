//! The JSON-RPC request id.
use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::{Number, Value};

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
