//! `RpcError`: one variant per malformed shape, each with its JSON-RPC code
//! (JSON-RPC 2.0 §5.1) and HTTP status.
use std::fmt;

use crate::json::JsonError;

/// JSON-RPC 2.0 §5.1: invalid JSON was received.
pub const PARSE_ERROR: i64 = -32700;
/// JSON-RPC 2.0 §5.1: the JSON sent is not a valid Request object.
pub const INVALID_REQUEST: i64 = -32600;
/// JSON-RPC 2.0 §5.1: the method does not exist / is not available.
pub const METHOD_NOT_FOUND: i64 = -32601;
/// JSON-RPC 2.0 §5.1: invalid method parameter(s).
pub const INVALID_PARAMS: i64 = -32602;
/// Implementation-defined server error (JSON-RPC 2.0 §5.1 reserves
/// -32000..-32099): a well-formed call refused by policy.
pub const AUTHORIZATION_ERROR: i64 = -32001;

/// HTTP status of an oversized body.
pub const HTTP_PAYLOAD_TOO_LARGE: u16 = 413;
/// HTTP status of every other protocol error.
pub const HTTP_BAD_REQUEST: u16 = 400;
/// HTTP status of a policy refusal ([`authorization_error`](super::authorization_error),
/// [`denial_error`](super::denial_error)), and of nothing else.
pub const HTTP_FORBIDDEN: u16 = 403;

/// Longest excerpt of an offending value quoted back in an error, in bytes.
pub const MAX_ERROR_EXCERPT: usize = 64;

/// Why bytes are not an acceptable JSON-RPC 2.0 message / MCP `tools/call`.
///
/// Offsets are byte offsets into the input; pointers are RFC 6901.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RpcError {
    /// The strict JSON layer refused the bytes (RFC 8259 plus the
    /// [`Limits`](crate::json::Limits)): oversize (HTTP 413), empty, only
    /// whitespace, a byte order mark, invalid UTF-8, a syntax error, nesting
    /// too deep or a duplicate key, each with its offset or pointer. -32700
    /// (JSON-RPC 2.0 §5.1, "Parse error"), answered with `"id": null`.
    Json(JsonError),
    /// The top-level value is not an object (a scalar). -32600.
    NotAnObject {
        /// What it is instead, e.g. `a string`.
        found: &'static str,
    },
    /// The top-level value is an array: a JSON-RPC batch (§6). -32600 where
    /// batches are not accepted; see [`parse_incoming`](super::parse_incoming).
    Batch {
        /// Number of elements.
        len: usize,
    },
    /// `[]`: JSON-RPC 2.0 §6 answers an empty batch with one Invalid Request.
    EmptyBatch,
    /// More than [`MAX_BATCH_LEN`](super::MAX_BATCH_LEN) elements. -32600.
    BatchTooLong {
        /// Number of elements.
        len: usize,
        /// The bound.
        limit: usize,
    },
    /// `jsonrpc` is missing or not exactly `"2.0"`. -32600.
    InvalidJsonrpc {
        /// An excerpt of what was found, `None` when missing.
        found: Option<String>,
    },
    /// `id` is null, fractional, out of integer range, a boolean, an object
    /// or an array (MCP forbids null; JSON-RPC §4 wants a string or number
    /// without fraction). -32600.
    InvalidId {
        /// What it is, e.g. `null` or `a fractional number`.
        found: &'static str,
        /// Byte offset of the value.
        offset: usize,
    },
    /// `method` is missing. -32600.
    MissingMethod,
    /// `method` is not a string. -32600.
    InvalidMethod {
        /// What it is instead.
        found: &'static str,
        /// Byte offset of the value.
        offset: usize,
    },
    /// `params` is present but neither an object nor an array (§4.2). -32600.
    ParamsNotStructured {
        /// What it is instead.
        found: &'static str,
        /// Byte offset of the value.
        offset: usize,
    },
    /// No `id`: a notification (§4.1) is not a call. -32600 (a server must
    /// not answer a notification at all; this exists for callers that
    /// require a request).
    Notification {
        /// The notification's method.
        method: String,
    },
    /// The method is not `tools/call`. -32601.
    NotToolsCall {
        /// The method found (excerpt).
        method: String,
    },
    /// `params` is missing on `tools/call`. -32602.
    MissingParams,
    /// `params` is not an object on `tools/call`. -32602.
    ParamsNotObject {
        /// What it is instead.
        found: &'static str,
        /// Byte offset of the value.
        offset: usize,
    },
    /// `params.name` is missing. -32602.
    MissingName,
    /// `params.name` is not a string. -32602.
    InvalidName {
        /// What it is instead.
        found: &'static str,
        /// Byte offset of the value.
        offset: usize,
    },
    /// `params.arguments` is not an object. -32602.
    ArgumentsNotObject {
        /// What it is instead.
        found: &'static str,
        /// Byte offset of the value.
        offset: usize,
    },
    /// `params._meta` is not an object. -32602.
    MetaNotObject {
        /// What it is instead.
        found: &'static str,
        /// Byte offset of the value.
        offset: usize,
    },
    /// The arguments do not fit the tool's typed arguments
    /// ([`ToolCallRequest::arguments_as`](super::ToolCallRequest::arguments_as)). -32602.
    InvalidArguments {
        /// `serde`'s message (names the field).
        message: String,
    },
}

impl RpcError {
    /// The JSON-RPC 2.0 error code (§5.1): -32700, -32600, -32601 or -32602.
    pub fn code(&self) -> i64 {
        match self {
            RpcError::Json(_) => PARSE_ERROR,
            RpcError::NotAnObject { .. }
            | RpcError::Batch { .. }
            | RpcError::EmptyBatch
            | RpcError::BatchTooLong { .. }
            | RpcError::InvalidJsonrpc { .. }
            | RpcError::InvalidId { .. }
            | RpcError::MissingMethod
            | RpcError::InvalidMethod { .. }
            | RpcError::ParamsNotStructured { .. }
            | RpcError::Notification { .. } => INVALID_REQUEST,
            RpcError::NotToolsCall { .. } => METHOD_NOT_FOUND,
            RpcError::MissingParams
            | RpcError::ParamsNotObject { .. }
            | RpcError::MissingName
            | RpcError::InvalidName { .. }
            | RpcError::ArgumentsNotObject { .. }
            | RpcError::MetaNotObject { .. }
            | RpcError::InvalidArguments { .. } => INVALID_PARAMS,
        }
    }

    /// HTTP status for a front end: 413 for an oversized body, 400 for every
    /// other protocol error (never 403: that is for policy refusals only).
    pub fn http_status(&self) -> u16 {
        match self {
            RpcError::Json(JsonError::TooLarge { .. }) => HTTP_PAYLOAD_TOO_LARGE,
            _ => HTTP_BAD_REQUEST,
        }
    }

    /// True for failures where the id cannot be trusted, answered with
    /// `"id": null` (JSON-RPC 2.0 §5): oversize and invalid JSON (every
    /// -32700), a non-object or batch, and a non-2.0 envelope.
    pub fn is_parse_class(&self) -> bool {
        self.code() == PARSE_ERROR
            || matches!(
                self,
                RpcError::NotAnObject { .. }
                    | RpcError::Batch { .. }
                    | RpcError::EmptyBatch
                    | RpcError::BatchTooLong { .. }
                    | RpcError::InvalidJsonrpc { .. }
            )
    }

    /// A stable machine-readable name, e.g. `invalid_id` or `duplicate_key`.
    pub fn kind(&self) -> &'static str {
        match self {
            // The protocol layer has always called a syntax error
            // `invalid_json`; the other names are the strict layer's own.
            RpcError::Json(JsonError::Syntax { .. }) => "invalid_json",
            RpcError::Json(e) => e.code(),
            RpcError::NotAnObject { .. } => "not_an_object",
            RpcError::Batch { .. } => "batch",
            RpcError::EmptyBatch => "empty_batch",
            RpcError::BatchTooLong { .. } => "batch_too_long",
            RpcError::InvalidJsonrpc { .. } => "invalid_jsonrpc",
            RpcError::InvalidId { .. } => "invalid_id",
            RpcError::MissingMethod => "missing_method",
            RpcError::InvalidMethod { .. } => "invalid_method",
            RpcError::ParamsNotStructured { .. } => "params_not_structured",
            RpcError::Notification { .. } => "notification",
            RpcError::NotToolsCall { .. } => "not_tools_call",
            RpcError::MissingParams => "missing_params",
            RpcError::ParamsNotObject { .. } => "params_not_object",
            RpcError::MissingName => "missing_name",
            RpcError::InvalidName { .. } => "invalid_name",
            RpcError::ArgumentsNotObject { .. } => "arguments_not_object",
            RpcError::MetaNotObject { .. } => "meta_not_object",
            RpcError::InvalidArguments { .. } => "invalid_arguments",
        }
    }

    /// Byte offset the error refers to, when there is one.
    pub fn offset(&self) -> Option<usize> {
        match self {
            RpcError::Json(e) => e.offset(),
            RpcError::InvalidId { offset, .. }
            | RpcError::InvalidMethod { offset, .. }
            | RpcError::ParamsNotStructured { offset, .. }
            | RpcError::ParamsNotObject { offset, .. }
            | RpcError::InvalidName { offset, .. }
            | RpcError::ArgumentsNotObject { offset, .. }
            | RpcError::MetaNotObject { offset, .. } => Some(*offset),
            _ => None,
        }
    }

    /// RFC 6901 pointer the error refers to, when there is one.
    pub fn pointer(&self) -> Option<&str> {
        match self {
            RpcError::Json(e) => e.pointer(),
            RpcError::NotAnObject { .. }
            | RpcError::Batch { .. }
            | RpcError::EmptyBatch
            | RpcError::BatchTooLong { .. } => Some(""),
            RpcError::InvalidJsonrpc { .. } => Some("/jsonrpc"),
            RpcError::InvalidId { .. } | RpcError::Notification { .. } => Some("/id"),
            RpcError::MissingMethod | RpcError::InvalidMethod { .. } => Some("/method"),
            RpcError::NotToolsCall { .. } => Some("/method"),
            RpcError::ParamsNotStructured { .. }
            | RpcError::MissingParams
            | RpcError::ParamsNotObject { .. } => Some("/params"),
            RpcError::MissingName | RpcError::InvalidName { .. } => Some("/params/name"),
            RpcError::ArgumentsNotObject { .. } | RpcError::InvalidArguments { .. } => {
                Some("/params/arguments")
            }
            RpcError::MetaNotObject { .. } => Some("/params/_meta"),
        }
    }
}

impl fmt::Display for RpcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = |o: &usize| format!(" (byte {o})");
        match self {
            RpcError::Json(e) => write!(f, "parse error: {e}"),
            RpcError::NotAnObject { found } => {
                write!(f, "invalid request: the message is {found}, not an object")
            }
            RpcError::Batch { len } => {
                write!(
                    f,
                    "invalid request: batch of {len} messages is not accepted here"
                )
            }
            RpcError::EmptyBatch => write!(f, "invalid request: empty batch"),
            RpcError::BatchTooLong { len, limit } => write!(
                f,
                "invalid request: batch of {len} messages exceeds the bound of {limit}"
            ),
            RpcError::InvalidJsonrpc { found: None } => {
                write!(f, "invalid request: /jsonrpc is missing (must be \"2.0\")")
            }
            RpcError::InvalidJsonrpc { found: Some(x) } => {
                write!(f, "invalid request: /jsonrpc must be \"2.0\", found {x}")
            }
            RpcError::InvalidId { found, offset } => write!(
                f,
                "invalid request: /id must be a string or an integer, found {found}{}",
                at(offset)
            ),
            RpcError::MissingMethod => write!(f, "invalid request: /method is missing"),
            RpcError::InvalidMethod { found, offset } => write!(
                f,
                "invalid request: /method must be a string, found {found}{}",
                at(offset)
            ),
            RpcError::ParamsNotStructured { found, offset } => write!(
                f,
                "invalid request: /params must be an object or an array, found {found}{}",
                at(offset)
            ),
            RpcError::Notification { method } => write!(
                f,
                "invalid request: /id is missing: notification {method:?} is not a call"
            ),
            RpcError::NotToolsCall { method } => {
                write!(f, "method not found: {method:?} (at /method)")
            }
            RpcError::MissingParams => write!(f, "invalid params: /params is missing"),
            RpcError::ParamsNotObject { found, offset } => write!(
                f,
                "invalid params: /params must be an object, found {found}{}",
                at(offset)
            ),
            RpcError::MissingName => write!(f, "invalid params: /params/name is missing"),
            RpcError::InvalidName { found, offset } => write!(
                f,
                "invalid params: /params/name must be a string, found {found}{}",
                at(offset)
            ),
            RpcError::ArgumentsNotObject { found, offset } => write!(
                f,
                "invalid params: /params/arguments must be an object, found {found}{}",
                at(offset)
            ),
            RpcError::MetaNotObject { found, offset } => write!(
                f,
                "invalid params: /params/_meta must be an object, found {found}{}",
                at(offset)
            ),
            RpcError::InvalidArguments { message } => {
                write!(f, "invalid params: /params/arguments: {message}")
            }
        }
    }
}

impl std::error::Error for RpcError {}

impl RpcError {
    /// The strict-JSON-layer error this is, for the -32700 variant.
    pub fn to_json_error(&self) -> Option<JsonError> {
        match self {
            RpcError::Json(e) => Some(e.clone()),
            _ => None,
        }
    }
}

impl From<JsonError> for RpcError {
    fn from(e: JsonError) -> Self {
        RpcError::Json(e)
    }
}

/// At most [`MAX_ERROR_EXCERPT`] bytes of `s`, cut on a char boundary.
pub(crate) fn excerpt(s: &str) -> String {
    if s.len() <= MAX_ERROR_EXCERPT {
        return s.to_owned();
    }
    let mut end = MAX_ERROR_EXCERPT;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", s.get(..end).unwrap_or_default())
}
