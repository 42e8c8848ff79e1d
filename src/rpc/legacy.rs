//! The two-parse path the server used before a message kept its
//! `tools/call` captures: [`parse_message`] for the
//! line, then [`parse_tool_call_with`] on the
//! same bytes again. Kept (hidden `harness` feature) as the reference the
//! single-parse path is checked against (`tests/rpc_props.rs`) and measured
//! against (`benches/rpc_parse.rs`).
use serde_json::Value;

use super::{parse_message, parse_tool_call_with, Message, ToolCallRequest};
use crate::json::Limits;

/// One `tools/call` line the old way: two strict scans. The answer is the
/// call, or the error response to send.
///
/// # Errors
///
/// The error response of whichever parse refused the line first.
pub fn two_parse_tool_call(bytes: &[u8], limits: &Limits) -> Result<ToolCallRequest, Value> {
    match parse_message(bytes, limits) {
        Err(r) => Err(r.to_response()),
        Ok(_) => parse_tool_call_with(bytes, limits).map_err(|r| r.to_response()),
    }
}

/// One `tools/call` line the new way: one scan, the call taken from the
/// vetted message. Same answers as [`two_parse_tool_call`].
///
/// # Errors
///
/// The error response to send.
pub fn one_parse_tool_call(bytes: &[u8], limits: &Limits) -> Result<ToolCallRequest, Value> {
    match parse_message(bytes, limits) {
        Err(r) => Err(r.to_response()),
        Ok(Message::Request(r)) => match r.tool_call() {
            Some(Ok(call)) => Ok(call),
            Some(Err(rejected)) => Err(rejected.to_response()),
            // Not `tools/call`: the answer is what parse_tool_call gives,
            // which this path does not re-derive by scanning again.
            None => Err(super::protocol_error(
                &super::MethodError::NotToolsCall {
                    method: super::error::excerpt(&r.method),
                }
                .into(),
                Some(&r.id),
            )),
        },
        Ok(Message::Notification(n)) => Err(super::protocol_error(
            &super::EnvelopeError::Notification {
                method: super::error::excerpt(&n.method),
            }
            .into(),
            None,
        )),
    }
}
