//! Harnesses for `toolgate::pdf`.

/// Fuzz target `pdf_extract`.
pub fn pdf_extract(_data: &[u8]) {}
