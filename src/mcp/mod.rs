//! `toolgate::mcp`: an MCP server over stdio (feature `mcp`) serving the PDF
//! tools `extract` and `get_metadata` on top of the vetted core.
//!
//! Transport: newline-delimited JSON-RPC 2.0 (MCP spec, "Transports",
//! stdio). Every line passes through the core first (payload bound, strict
//! JSON, envelope); stdout carries protocol messages only.
//!
//! Protocol revisions:
//!
//! | revision   | era       | entry                          | batches |
//! |------------|-----------|--------------------------------|---------|
//! | 2024-11-05 | handshake | `initialize`                   | no      |
//! | 2025-03-26 | handshake | `initialize`                   | yes (at most [`crate::rpc::MAX_BATCH_LEN`]) |
//! | 2025-06-18 | handshake | `initialize`                   | no      |
//! | 2025-11-25 | handshake | `initialize`                   | no      |
//! | 2026-07-28 | stateless | `server/discover`, `_meta` per request | no |
//!
//! An `initialize` offering an unknown version is answered with 2025-11-25
//! (a result, not an error). A stateless request naming an unknown version
//! gets -32022 with `data: {"supported": [...], "requested": ...}`.
//!
//! ```no_run
//! # fn main() -> std::io::Result<()> {
//! use toolgate::mcp::{Config, DefaultPdf, Server};
//! let config = Config { root: Some("corpus/pdf".into()), ..Config::default() };
//! let mut server = Server::new(config, DefaultPdf::current_exe().map_err(std::io::Error::other)?)?;
//! server.serve(std::io::stdin().lock(), std::io::stdout().lock())
//! # }
//! ```

mod backend;
mod server;
mod tools;

use std::path::PathBuf;

pub use backend::{DefaultPdf, PageRange, PdfBackend, ToolFailure};
pub use server::{looks_like_url, Server};
pub use tools::{parse_pages, PathScope, MAX_PAGE_NUMBER, TOOL_NAMES};

/// Default bound on one line (one JSON-RPC message), in bytes, terminator
/// excluded: the core's payload bound. Longer lines are discarded as they
/// stream in and answered with the core's `too_large` error (-32700, id null).
pub const MAX_LINE_BYTES: usize = crate::json::MAX_PAYLOAD_BYTES;

/// Default bound on a PDF file read for a tool call, in bytes.
pub const MAX_PDF_BYTES: u64 = 64 * 1024 * 1024;

/// Default number of tools per `tools/list` page.
pub const TOOLS_PAGE_SIZE: usize = 50;

/// Server settings.
#[derive(Debug, Clone)]
pub struct Config {
    /// Confine every file path to this directory (canonicalized and opened
    /// at start). Required unless `unconfined` is set.
    pub root: Option<PathBuf>,
    /// Serve any path the process can read, without a root. Off by default:
    /// [`Server::new`] refuses a config with neither a root nor this (and
    /// one with both). The tool descriptions then say the server is
    /// unconfined.
    pub unconfined: bool,
    /// Refuse regular files with more than one hard link
    /// (`path.multiply_linked`): no path check can see where a hard link
    /// leads. Off by default.
    pub refuse_multiply_linked: bool,
    /// Bound on one line in bytes ([`MAX_LINE_BYTES`]).
    pub max_line_bytes: usize,
    /// Bound on a PDF file in bytes ([`MAX_PDF_BYTES`]).
    pub max_pdf_bytes: u64,
    /// Tools per `tools/list` page ([`TOOLS_PAGE_SIZE`]; at least 1).
    pub tools_page_size: usize,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            root: None,
            unconfined: false,
            refuse_multiply_linked: false,
            max_line_bytes: MAX_LINE_BYTES,
            max_pdf_bytes: MAX_PDF_BYTES,
            tools_page_size: TOOLS_PAGE_SIZE,
        }
    }
}
