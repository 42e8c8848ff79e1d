//! `toolgate::rpc`: JSON-RPC 2.0 envelopes and MCP `tools/call` requests,
//! parsed from untrusted bytes, and the error responses a server sends back.
//!
//! Every entry point runs the strict JSON layer first ([`crate::json`]:
//! payload bound, UTF-8, no byte order mark, depth, duplicate keys at any
//! depth), in the same single scan that locates the envelope members (the
//! member table lives here, in `members.rs`: the JSON layer knows no
//! JSON-RPC names), so no `serde_json::Value` is ever built for `tools/call`
//! arguments, and a `tools/call` parsed by [`parse_message`] keeps its call
//! ([`Request::tool_call`]): one scan per line.
//!
//! * [`parse_incoming`]: one line from a client: a single message or a batch.
//! * [`parse_message`]: a single JSON-RPC 2.0 request or notification (§4, §4.1),
//!   any method (initialize, ping, tools/list, notifications/...).
//! * [`parse_tool_call`] / [`parse_tool_call_with`]: an MCP `tools/call`
//!   request (MCP 2025-06-18, Tools) as a [`ToolCallRequest`].
//! * [`Rejected`]: every parse failure, with the id to answer it with (the
//!   id rule, JSON-RPC 2.0 §5, stated on [`Rejected`]);
//!   [`protocol_error`] / [`Rejected::to_response`]: the error response
//!   (§5, §5.1); [`detectable_error_id`]: the id rule for callers holding
//!   only an [`RpcError`].
//! * [`authorization_error`], [`denial_error`], [`refusal_error`]: the -32001
//!   response for a call that parsed but is refused by policy.
//!
//! Errors: [`RpcError`] has four categories, each with one JSON-RPC code
//! (`jsonrpc_code()`); `code()` is the stable kind string (`error.data.kind`).
//!
//! ```
//! use toolgate::rpc::parse_tool_call;
//!
//! let line = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call",
//!                 "params":{"name":"extract","arguments":{"path":"a.pdf"}}}"#;
//! let req = parse_tool_call(line).unwrap();
//! assert_eq!(req.name, "extract");
//! assert_eq!(req.arguments()["path"], "a.pdf");
//!
//! let bad = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":1}}"#;
//! let rejected = parse_tool_call(bad).unwrap_err();
//! assert_eq!(rejected.error.jsonrpc_code(), -32602);
//! assert_eq!(rejected.error.code(), "invalid_name");
//! assert_eq!(rejected.id, Some(7.into()));
//! let response = rejected.to_response(); // = protocol_error(&rejected.error, rejected.id.as_ref())
//! assert_eq!(response["id"], 7);
//! ```
mod builder;
mod error;
mod id;
#[cfg(feature = "harness")]
pub mod legacy;
mod members;
mod message;
mod parse;
mod response;

// The public interface is:
pub use builder::ToolCall;
pub use error::{
    EnvelopeError, MethodError, ParamsError, Rejected, RpcError, AUTHORIZATION_ERROR,
    HTTP_BAD_REQUEST, HTTP_FORBIDDEN, HTTP_PAYLOAD_TOO_LARGE, INVALID_PARAMS, INVALID_REQUEST,
    MAX_ERROR_EXCERPT, METHOD_NOT_FOUND, PARSE_ERROR,
};
pub use id::Id;
pub use message::{Incoming, Message, Notification, Request, ToolCallRequest};
pub use parse::{
    detectable_error_id, parse_incoming, parse_incoming_as, parse_message, parse_message_as,
    parse_tool_call, parse_tool_call_with, Dialect,
};
pub use response::{
    authorization_error, denial_error, protocol_error, refusal_error, AUTHORIZATION_MESSAGE,
};

/// Most elements accepted in one JSON-RPC batch (§6) by [`parse_incoming`].
pub const MAX_BATCH_LEN: usize = 1024;

/// Longest string `id` accepted, in bytes as written between its quotes
/// (JSON-RPC 2.0 sets none): a server holds the id of every request until
/// it is answered, so ids of 4 MB, thousands at once, held gigabytes
/// (attack s72-A, F1). A longer one is [`EnvelopeError::IdTooLong`]; MCP's
/// progress tokens, ids as well, are held to it too.
pub const MAX_ID_BYTES: usize = 1024;

/// The MCP method this module's [`parse_tool_call`] accepts.
pub const TOOLS_CALL: &str = "tools/call";
