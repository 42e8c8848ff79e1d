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
//! The server is a [`Service`](crate::engine::Service) on the session
//! engine: `tools/call` runs on one of `max_concurrent_calls` slots (queued
//! beyond, refused with the engine's server-busy error past the queue);
//! `ping`, `tools/list`, notifications and cancellations are answered while
//! calls run; a cancelled call's worker is killed at once; a call carrying
//! `_meta.progressToken` reports pages done.
//!
//! ```no_run
//! # fn main() -> std::io::Result<()> {
//! use toolgate::mcp::{Config, DefaultPdf, Server};
//! let config = Config { root: Some("corpus/pdf".into()), ..Config::default() };
//! let exe = std::env::current_exe()?;
//! let server = Server::new(config.clone(), DefaultPdf::for_config(exe, &config))?;
//! let stdin = std::io::BufReader::new(std::io::stdin());
//! toolgate::engine::transport::stdio::serve(server, config.engine(), stdin, std::io::stdout())?;
//! # Ok(())
//! # }
//! ```

mod backend;
mod bound;
mod call;
#[cfg(feature = "http")]
#[doc(hidden)]
pub mod fixtures;
mod lifecycle;
mod server;
mod tools;

use std::path::PathBuf;
use std::time::Duration;

pub use backend::{DefaultPdf, Job, PageRange, PdfBackend, PdfRequest, ToolFailure};
pub use call::looks_like_url;
pub use server::Server;
pub use tools::{parse_pages, PathScope, MAX_PAGE_NUMBER, TOOL_NAMES};

use crate::engine::EngineConfig;

/// Default bound on one line (one JSON-RPC message), in bytes, terminator
/// excluded: the core's payload bound. Longer lines are discarded as they
/// stream in and answered with the core's `too_large` error (-32700, id null).
pub const MAX_LINE_BYTES: usize = crate::json::MAX_PAYLOAD_BYTES;

/// Default bound on a PDF file read for a tool call, in bytes: the
/// extractor's own input bound ([`crate::pdf::limits::MAX_INPUT_BYTES`]),
/// so one number governs both. A server that sets
/// [`Config::max_pdf_bytes`] sets the worker's bound too.
pub const MAX_PDF_BYTES: u64 = crate::pdf::limits::MAX_INPUT_BYTES as u64;

/// Largest file read on the engine's runtime by a call of an
/// [asynchronous](PdfBackend::asynchronous) backend, in bytes: opening
/// never blocks and the handle is checked to be a regular file first, so
/// this is a read of at most 128 KiB, a few microseconds from the page
/// cache (a one-page PDF is tens of KiB). A larger file is read on a
/// blocking thread.
pub const INLINE_READ_BYTES: u64 = 128 << 10;

/// Default wall-clock bound on one tool call ([`Config::call_timeout`]):
/// the fetcher's own total deadline
/// ([`crate::net::fetch::DEFAULT_TOTAL_TIMEOUT`]) plus the worker's
/// ([`crate::pdf::worker::DEFAULT_TIMEOUT`]), so that neither is cut short
/// by default, and a download plus an extraction never outlives it.
pub const CALL_TIMEOUT: Duration =
    crate::net::fetch::DEFAULT_TOTAL_TIMEOUT.saturating_add(crate::pdf::worker::DEFAULT_TIMEOUT);

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
    /// Tool calls running at once (at least 1; default: the machine's
    /// available parallelism).
    pub max_concurrent_calls: usize,
    /// Tool calls waiting for a slot; beyond this a call gets the engine's
    /// server-busy error ([`crate::engine::DEFAULT_MAX_QUEUED_CALLS`]).
    pub max_queued_calls: usize,
    /// Wall-clock bound on one tool call ([`CALL_TIMEOUT`]): reading or
    /// downloading its file, waiting for the worker and the extraction
    /// together. Past it the call is a tool error (`limit_exceeded`,
    /// `call_time`) and its work is stopped.
    pub call_timeout: Duration,
    /// Wall-clock bound on one PDF worker
    /// ([`crate::pdf::worker::DEFAULT_TIMEOUT`]); its CPU limit follows.
    pub worker_timeout: Duration,
    /// Address-space bound of one PDF worker, in bytes
    /// ([`crate::pdf::worker::DEFAULT_WORKER_MEMORY`]).
    pub worker_memory_bytes: u64,
    /// Fetch `http(s)` URLs given as a tool's `path` through this fetcher
    /// (its policy decides which destinations; its body cap is lowered to
    /// [`Config::max_pdf_bytes`] when larger). `None` (the default): every
    /// URL is refused, with its denial code or `remote_disabled`, and no
    /// connection is opened. The tool descriptions say which.
    pub remote: Option<std::sync::Arc<crate::net::fetch::Fetcher>>,
}

impl Config {
    /// The engine's bounds for this server.
    pub fn engine(&self) -> EngineConfig {
        EngineConfig {
            max_concurrent_calls: self.max_concurrent_calls.max(1),
            max_queued_calls: self.max_queued_calls,
            max_line_bytes: self.max_line_bytes,
            max_response_bytes: crate::json::MAX_RESPONSE_BYTES,
        }
    }
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
            max_concurrent_calls: crate::engine::default_concurrency(),
            max_queued_calls: crate::engine::DEFAULT_MAX_QUEUED_CALLS,
            call_timeout: CALL_TIMEOUT,
            worker_timeout: crate::pdf::worker::DEFAULT_TIMEOUT,
            worker_memory_bytes: crate::pdf::worker::DEFAULT_WORKER_MEMORY,
            remote: None,
        }
    }
}
