//! Each function runs one public API on arbitrary bytes and panics if an
//! invariant is violated. Panicking is the point here, so the lints that
//! keep library code total are lifted for this module only.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

pub mod json;
pub mod net;
pub mod numbers;
pub mod rpc;

#[cfg(feature = "pdf")]
pub mod pdf;

#[cfg(feature = "mcp")]
pub mod mcp;

#[cfg(feature = "fetch")]
pub mod fetch;

/// Every fuzz target name, in the order the corpus replay walks `corpus/`.
pub const TARGETS: &[&str] = &[
    "parse_tool_call",
    "depth_of",
    "duplicate_keys",
    "classify_url",
    "classify_ip",
    "classify_url_differential",
    #[cfg(feature = "pdf")]
    "pdf_extract",
    #[cfg(feature = "mcp")]
    "mcp_session",
    #[cfg(feature = "fetch")]
    "fetch_redirects",
];

/// Runs the harness of fuzz target `target` on `data`.
/// Returns `false` when `target` is unknown.
pub fn run(target: &str, data: &[u8]) -> bool {
    match target {
        "parse_tool_call" => rpc::parse_tool_call(data),
        "depth_of" => json::depth_of(data),
        "duplicate_keys" => json::duplicate_keys(data),
        "classify_url" => net::classify_url(data),
        "classify_ip" => net::classify_ip(data),
        "classify_url_differential" => net::classify_url_differential(data),
        #[cfg(feature = "pdf")]
        "pdf_extract" => pdf::pdf_extract(data),
        #[cfg(feature = "mcp")]
        "mcp_session" => mcp::mcp_session(data),
        #[cfg(feature = "fetch")]
        "fetch_redirects" => fetch::fetch_redirects(data),
        _ => return false,
    }
    true
}
