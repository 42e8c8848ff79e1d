//! Harnesses for `toolgate::net`.

/// Fuzz target `classify_url`.
pub fn classify_url(_data: &[u8]) {}

/// Fuzz target `classify_ip`.
pub fn classify_ip(_data: &[u8]) {}

/// Fuzz target `classify_url_differential`.
pub fn classify_url_differential(_data: &[u8]) {}
