//! toolgate: a vetted core for MCP tool servers.
//!
//! Layers, arrows point down only:
//!
//! * [`json`]: payload bound, strict JSON parse (UTF-8, depth, duplicate keys).
//! * [`rpc`]: JSON-RPC 2.0 envelope, `tools/call` parsing, error responses.
//! * [`net`]: URL / IP classifier refusing non-public destinations (SSRF).
//! * `pdf` (feature `pdf`): lopdf-based text and metadata extractor with resource limits.
//! * `confine` (feature `confine`): path confinement beneath a root directory.
//! * `engine` (feature `engine`): the session engine and its transports,
//!   below both services.
//! * `mcp` (feature `mcp`): the MCP server for the PDF tools, on the engine.
//! * `gate` (feature `gate`): the policy gateway in front of any stdio MCP
//!   server, on the engine (never on `mcp`).
//!
//! `toolgate = { default-features = false }` is the bare core (`json`, `rpc`, `net`).
//!
//! Numbers: toolgate turns on serde_json's `float_roundtrip` feature, so every
//! float is parsed correctly rounded and a value written back out (the
//! [`rpc::ToolCall`] builder, error responses) reads back as the same `f64`.
//! Cargo unifies features, so a crate that embeds toolgate gets correctly
//! rounded float parsing from its own serde_json too, at a small cost in
//! float parsing speed.
#![forbid(unsafe_code)]
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing
    )
)]

pub mod json;
pub mod net;
pub mod rpc;
pub mod terminal;

#[cfg(feature = "pdf")]
pub mod pdf;

#[cfg(feature = "confine")]
pub mod confine;

#[cfg(feature = "engine")]
pub mod engine;

#[cfg(feature = "mcp")]
pub mod mcp;

#[cfg(feature = "gate")]
pub mod gate;

/// Invariant-checking harnesses: one per fuzz target, shared by `fuzz/`,
/// the corpus replay test and the property suites. Not a stable API.
#[cfg(feature = "harness")]
#[doc(hidden)]
pub mod harness;
