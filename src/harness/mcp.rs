//! Harnesses for `toolgate::mcp`.

/// Fuzz target `mcp_session`.
pub fn mcp_session(_data: &[u8]) {}
