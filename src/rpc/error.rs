//! `RpcError`: why bytes are not an acceptable message, grouped into four
//! categories that each map to one JSON-RPC 2.0 error code (§5.1), the way
//! rustls maps its error categories to TLS alerts:
//!
//! | category | `jsonrpc_code()` | HTTP |
//! |---|---|---|
//! | [`RpcError::Json`] ([`JsonError`]) | -32700 parse error | 413 for `TooLarge`, else 400 |
//! | [`RpcError::Envelope`] ([`EnvelopeError`]) | -32600 invalid request | 400 |
//! | [`RpcError::MethodNotFound`] ([`MethodError`]) | -32601 method not found | 400 |
//! | [`RpcError::Params`] ([`ParamsError`]) | -32602 invalid params | 400 |
//!
//! Names: `code()` is the stable machine-readable string (`error.data.kind`
//! on the wire, e.g. `duplicate_key`), on every error type of the crate; the
//! numeric JSON-RPC code is `jsonrpc_code()`.
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
/// [`denial_error`](super::denial_error), [`refusal_error`](super::refusal_error)),
/// and of nothing else.
pub const HTTP_FORBIDDEN: u16 = 403;

/// Longest excerpt of an offending value quoted back in an error, in bytes.
pub const MAX_ERROR_EXCERPT: usize = 64;

/// Why bytes are not an acceptable JSON-RPC 2.0 message / MCP request: one
/// variant per category, each with one JSON-RPC code ([`RpcError::jsonrpc_code`]).
///
/// Offsets are byte offsets into the input; pointers are RFC 6901.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RpcError {
    /// The strict JSON layer refused the bytes (RFC 8259 plus the
    /// [`Limits`](crate::json::Limits)): oversize (HTTP 413), empty, only
    /// whitespace, a byte order mark, invalid UTF-8, a syntax error, nesting
    /// too deep or a duplicate key, each with its offset or pointer. -32700.
    Json(JsonError),
    /// Valid JSON, but not a JSON-RPC 2.0 request object (§4). -32600.
    Envelope(EnvelopeError),
    /// A well-formed request for a method that does not exist here. -32601.
    MethodNotFound(MethodError),
    /// A well-formed request whose `params` do not fit the method. -32602.
    Params(ParamsError),
}

/// A parse failure with the id to answer it with (JSON-RPC 2.0 §5).
///
/// The id rule: when the bytes are valid JSON within the payload bound and
/// the top-level value is an object with exactly one `id` member whose value
/// is a valid id, `id` is that id, whatever else is wrong (nesting over the
/// depth limit or a duplicate key anywhere but `id` itself, a wrong `jsonrpc`,
/// a missing or malformed `method` or `params`). It is `None` (answer
/// `"id": null`) only when the bytes are over the bound, not UTF-8, not valid
/// JSON, not an object, or the top-level `id` is absent, duplicated or
/// invalid. A notification's own failure has no id either: it must not be
/// answered at all ([`Rejected::notification`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejected {
    /// What is wrong.
    pub error: RpcError,
    /// The id to echo, by the rule above.
    pub id: Option<super::Id>,
    /// The input is a JSON object with no `id` member at all: a
    /// notification (or a response) a server must not answer.
    pub notification: bool,
}

impl Rejected {
    /// A rejection with no id.
    pub fn without_id(error: RpcError) -> Self {
        Self {
            error,
            id: None,
            notification: false,
        }
    }
}

impl fmt::Display for Rejected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.error.fmt(f)
    }
}

impl std::error::Error for Rejected {}

impl From<Rejected> for RpcError {
    fn from(r: Rejected) -> Self {
        r.error
    }
}

/// Valid JSON that is not a JSON-RPC 2.0 request object (§4): -32600.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum EnvelopeError {
    /// The top-level value is not an object (a scalar).
    NotAnObject {
        /// What it is instead, e.g. `a string`.
        found: &'static str,
    },
    /// The top-level value is an array: a JSON-RPC batch (§6), where
    /// batches are not accepted; see [`parse_incoming`](super::parse_incoming).
    Batch {
        /// Number of elements.
        len: usize,
    },
    /// `[]`: JSON-RPC 2.0 §6 answers an empty batch with one Invalid Request.
    EmptyBatch,
    /// More than [`MAX_BATCH_LEN`](super::MAX_BATCH_LEN) elements.
    BatchTooLong {
        /// Number of elements.
        len: usize,
        /// The bound.
        limit: usize,
    },
    /// `jsonrpc` is missing or not exactly `"2.0"`.
    InvalidJsonrpc {
        /// An excerpt of what was found, `None` when missing.
        found: Option<String>,
    },
    /// `id` is null, fractional, out of integer range, a boolean, an object
    /// or an array (MCP forbids null; JSON-RPC §4 wants a string or number
    /// without fraction).
    InvalidId {
        /// What it is, e.g. `null` or `a fractional number`.
        found: &'static str,
        /// Byte offset of the value.
        offset: usize,
    },
    /// `id` is a string longer than [`MAX_ID_BYTES`](super::MAX_ID_BYTES)
    /// bytes as written between its quotes (kind `invalid_id`).
    IdTooLong {
        /// Its length in bytes as written, quotes not counted.
        bytes: usize,
        /// The bound it broke, [`MAX_ID_BYTES`](super::MAX_ID_BYTES).
        limit: usize,
        /// Byte offset of the value.
        offset: usize,
    },
    /// `method` is missing.
    MissingMethod,
    /// `method` is not a string.
    InvalidMethod {
        /// What it is instead.
        found: &'static str,
        /// Byte offset of the value.
        offset: usize,
    },
    /// `params` is present but neither an object nor an array (§4.2).
    ParamsNotStructured {
        /// What it is instead.
        found: &'static str,
        /// Byte offset of the value.
        offset: usize,
    },
    /// No `id`: a notification (§4.1) is not a call (a server must not
    /// answer a notification at all; this exists for callers that require
    /// a request).
    Notification {
        /// The notification's method.
        method: String,
    },
}

/// A request for a method that does not exist here: -32601.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum MethodError {
    /// The method is not `tools/call` (where only `tools/call` is accepted).
    NotToolsCall {
        /// The method found (excerpt).
        method: String,
    },
    /// A request (it has an `id`) for a method named like a notification
    /// (`notifications/...`): no such request method exists (what the
    /// official TypeScript and Python SDKs answer). [`Dialect::Mcp`](super::Dialect::Mcp) only.
    NotificationMethod {
        /// The method found (excerpt).
        method: String,
    },
}

/// `params` that do not fit the method: -32602.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ParamsError {
    /// `params` is missing on `tools/call`.
    MissingParams,
    /// `params` is not an object: on `tools/call`, and under
    /// [`Dialect::Mcp`](super::Dialect::Mcp) on every method (MCP defines every
    /// method's params as an object; the official SDKs answer -32602 where
    /// JSON-RPC alone would say -32600 for a non-structured value).
    ParamsNotObject {
        /// What it is instead.
        found: &'static str,
        /// Byte offset of the value.
        offset: usize,
    },
    /// `params.name` is missing.
    MissingName,
    /// `params.name` is not a string.
    InvalidName {
        /// What it is instead.
        found: &'static str,
        /// Byte offset of the value.
        offset: usize,
    },
    /// `params.arguments` is not an object.
    ArgumentsNotObject {
        /// What it is instead.
        found: &'static str,
        /// Byte offset of the value.
        offset: usize,
    },
    /// `params._meta` is not an object.
    MetaNotObject {
        /// What it is instead.
        found: &'static str,
        /// Byte offset of the value.
        offset: usize,
    },
    /// The arguments do not fit the tool's typed arguments
    /// ([`ToolCallRequest::arguments_as`](super::ToolCallRequest::arguments_as)).
    InvalidArguments {
        /// `serde`'s message (names the field).
        message: String,
    },
}

impl RpcError {
    /// The stable machine-readable name (`error.data.kind` on the wire),
    /// e.g. `invalid_id` or `duplicate_key`.
    pub fn code(&self) -> &'static str {
        match self {
            // The protocol layer has always called a syntax error
            // `invalid_json`; the other names are the strict layer's own.
            RpcError::Json(JsonError::Syntax { .. }) => "invalid_json",
            RpcError::Json(e) => e.code(),
            RpcError::Envelope(e) => e.code(),
            RpcError::MethodNotFound(e) => e.code(),
            RpcError::Params(e) => e.code(),
        }
    }

    /// The JSON-RPC 2.0 error code (§5.1) of the category: -32700, -32600,
    /// -32601 or -32602.
    pub fn jsonrpc_code(&self) -> i64 {
        match self {
            RpcError::Json(_) => PARSE_ERROR,
            RpcError::Envelope(_) => INVALID_REQUEST,
            RpcError::MethodNotFound(_) => METHOD_NOT_FOUND,
            RpcError::Params(_) => INVALID_PARAMS,
        }
    }

    /// HTTP status for a front end: 413 for an oversized body (in bytes, or
    /// in values: [`JsonError::TooManyValues`]), 400 for every
    /// other protocol error (never 403: that is for policy refusals only).
    pub fn http_status(&self) -> u16 {
        match self {
            RpcError::Json(JsonError::TooLarge { .. } | JsonError::TooManyValues { .. }) => {
                HTTP_PAYLOAD_TOO_LARGE
            }
            _ => HTTP_BAD_REQUEST,
        }
    }

    /// Byte offset the error refers to, when there is one.
    pub fn offset(&self) -> Option<usize> {
        match self {
            RpcError::Json(e) => e.offset(),
            RpcError::Envelope(e) => e.offset(),
            RpcError::MethodNotFound(_) => None,
            RpcError::Params(e) => e.offset(),
        }
    }

    /// RFC 6901 pointer the error refers to, when there is one.
    pub fn pointer(&self) -> Option<&str> {
        match self {
            RpcError::Json(e) => e.pointer(),
            RpcError::Envelope(e) => Some(e.pointer()),
            RpcError::MethodNotFound(_) => Some("/method"),
            RpcError::Params(e) => Some(e.pointer()),
        }
    }

    /// The strict-JSON-layer error this is, for the -32700 category.
    pub fn to_json_error(&self) -> Option<JsonError> {
        match self {
            RpcError::Json(e) => Some(e.clone()),
            _ => None,
        }
    }
}

impl EnvelopeError {
    /// The stable machine-readable name, e.g. `invalid_id`.
    pub fn code(&self) -> &'static str {
        match self {
            EnvelopeError::NotAnObject { .. } => "not_an_object",
            EnvelopeError::Batch { .. } => "batch",
            EnvelopeError::EmptyBatch => "empty_batch",
            EnvelopeError::BatchTooLong { .. } => "batch_too_long",
            EnvelopeError::InvalidJsonrpc { .. } => "invalid_jsonrpc",
            EnvelopeError::InvalidId { .. } | EnvelopeError::IdTooLong { .. } => "invalid_id",
            EnvelopeError::MissingMethod => "missing_method",
            EnvelopeError::InvalidMethod { .. } => "invalid_method",
            EnvelopeError::ParamsNotStructured { .. } => "params_not_structured",
            EnvelopeError::Notification { .. } => "notification",
        }
    }

    fn offset(&self) -> Option<usize> {
        match self {
            EnvelopeError::InvalidId { offset, .. }
            | EnvelopeError::IdTooLong { offset, .. }
            | EnvelopeError::InvalidMethod { offset, .. }
            | EnvelopeError::ParamsNotStructured { offset, .. } => Some(*offset),
            _ => None,
        }
    }

    fn pointer(&self) -> &'static str {
        match self {
            EnvelopeError::NotAnObject { .. }
            | EnvelopeError::Batch { .. }
            | EnvelopeError::EmptyBatch
            | EnvelopeError::BatchTooLong { .. } => "",
            EnvelopeError::InvalidJsonrpc { .. } => "/jsonrpc",
            EnvelopeError::InvalidId { .. }
            | EnvelopeError::IdTooLong { .. }
            | EnvelopeError::Notification { .. } => "/id",
            EnvelopeError::MissingMethod | EnvelopeError::InvalidMethod { .. } => "/method",
            EnvelopeError::ParamsNotStructured { .. } => "/params",
        }
    }
}

impl MethodError {
    /// The stable machine-readable name, e.g. `not_tools_call`.
    pub fn code(&self) -> &'static str {
        match self {
            MethodError::NotToolsCall { .. } => "not_tools_call",
            MethodError::NotificationMethod { .. } => "notification_method",
        }
    }
}

impl ParamsError {
    /// The stable machine-readable name, e.g. `missing_name`.
    pub fn code(&self) -> &'static str {
        match self {
            ParamsError::MissingParams => "missing_params",
            ParamsError::ParamsNotObject { .. } => "params_not_object",
            ParamsError::MissingName => "missing_name",
            ParamsError::InvalidName { .. } => "invalid_name",
            ParamsError::ArgumentsNotObject { .. } => "arguments_not_object",
            ParamsError::MetaNotObject { .. } => "meta_not_object",
            ParamsError::InvalidArguments { .. } => "invalid_arguments",
        }
    }

    fn offset(&self) -> Option<usize> {
        match self {
            ParamsError::ParamsNotObject { offset, .. }
            | ParamsError::InvalidName { offset, .. }
            | ParamsError::ArgumentsNotObject { offset, .. }
            | ParamsError::MetaNotObject { offset, .. } => Some(*offset),
            _ => None,
        }
    }

    fn pointer(&self) -> &'static str {
        match self {
            ParamsError::MissingParams | ParamsError::ParamsNotObject { .. } => "/params",
            ParamsError::MissingName | ParamsError::InvalidName { .. } => "/params/name",
            ParamsError::ArgumentsNotObject { .. } | ParamsError::InvalidArguments { .. } => {
                "/params/arguments"
            }
            ParamsError::MetaNotObject { .. } => "/params/_meta",
        }
    }
}

/// ` (byte N)`, the suffix of messages that point at a value.
struct At(usize);

impl fmt::Display for At {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, " (byte {})", self.0)
    }
}

impl fmt::Display for RpcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RpcError::Json(e) => write!(f, "parse error: {e}"),
            RpcError::Envelope(e) => write!(f, "invalid request: {e}"),
            RpcError::MethodNotFound(e) => write!(f, "method not found: {e}"),
            RpcError::Params(e) => write!(f, "invalid params: {e}"),
        }
    }
}

impl fmt::Display for EnvelopeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EnvelopeError::NotAnObject { found } => {
                write!(f, "the message is {found}, not an object")
            }
            EnvelopeError::Batch { len } => {
                write!(f, "batch of {len} messages is not accepted here")
            }
            EnvelopeError::EmptyBatch => write!(f, "empty batch"),
            EnvelopeError::BatchTooLong { len, limit } => {
                write!(f, "batch of {len} messages exceeds the bound of {limit}")
            }
            EnvelopeError::InvalidJsonrpc { found: None } => {
                write!(f, "/jsonrpc is missing (must be \"2.0\")")
            }
            EnvelopeError::InvalidJsonrpc { found: Some(x) } => {
                write!(f, "/jsonrpc must be \"2.0\", found {x}")
            }
            EnvelopeError::InvalidId { found, offset } => write!(
                f,
                "/id must be a string or an integer, found {found}{}",
                At(*offset)
            ),
            EnvelopeError::IdTooLong {
                bytes,
                limit,
                offset,
            } => write!(
                f,
                "/id is a string of {bytes} bytes, longer than the {limit} bytes an id may be (rpc::MAX_ID_BYTES){}",
                At(*offset)
            ),
            EnvelopeError::MissingMethod => write!(f, "/method is missing"),
            EnvelopeError::InvalidMethod { found, offset } => {
                write!(f, "/method must be a string, found {found}{}", At(*offset))
            }
            EnvelopeError::ParamsNotStructured { found, offset } => write!(
                f,
                "/params must be an object or an array, found {found}{}",
                At(*offset)
            ),
            EnvelopeError::Notification { method } => {
                write!(f, "/id is missing: notification {method:?} is not a call")
            }
        }
    }
}

impl fmt::Display for MethodError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MethodError::NotToolsCall { method } => write!(f, "{method:?} (at /method)"),
            MethodError::NotificationMethod { method } => write!(
                f,
                "{method:?} is a notification, not a request method: send it without an id (at /method)"
            ),
        }
    }
}

impl fmt::Display for ParamsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamsError::MissingParams => write!(f, "/params is missing"),
            ParamsError::ParamsNotObject { found, offset } => {
                write!(f, "/params must be an object, found {found}{}", At(*offset))
            }
            ParamsError::MissingName => write!(f, "/params/name is missing"),
            ParamsError::InvalidName { found, offset } => write!(
                f,
                "/params/name must be a string, found {found}{}",
                At(*offset)
            ),
            ParamsError::ArgumentsNotObject { found, offset } => write!(
                f,
                "/params/arguments must be an object, found {found}{}",
                At(*offset)
            ),
            ParamsError::MetaNotObject { found, offset } => write!(
                f,
                "/params/_meta must be an object, found {found}{}",
                At(*offset)
            ),
            ParamsError::InvalidArguments { message } => {
                write!(f, "/params/arguments: {message}")
            }
        }
    }
}

impl std::error::Error for RpcError {}
impl std::error::Error for EnvelopeError {}
impl std::error::Error for MethodError {}
impl std::error::Error for ParamsError {}

impl From<JsonError> for RpcError {
    fn from(e: JsonError) -> Self {
        RpcError::Json(e)
    }
}

impl From<EnvelopeError> for RpcError {
    fn from(e: EnvelopeError) -> Self {
        RpcError::Envelope(e)
    }
}

impl From<MethodError> for RpcError {
    fn from(e: MethodError) -> Self {
        RpcError::MethodNotFound(e)
    }
}

impl From<ParamsError> for RpcError {
    fn from(e: ParamsError) -> Self {
        RpcError::Params(e)
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
