//! Harnesses for `toolgate::rpc`.

/// Fuzz target `parse_tool_call`.
pub fn parse_tool_call(_data: &[u8]) {}
