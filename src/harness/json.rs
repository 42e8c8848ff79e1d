//! Harnesses for `toolgate::json` (owner: core JSON work).

/// Fuzz target `depth_of`.
pub fn depth_of(_data: &[u8]) {}

/// Fuzz target `duplicate_keys`.
pub fn duplicate_keys(_data: &[u8]) {}
