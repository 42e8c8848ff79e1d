//! What the tools stand on: the PDF extractor and the URL classifier, behind
//! a small trait so the in-memory fuzz harness can run sessions without
//! spawning extractor processes.
//!

use std::path::PathBuf;
use std::sync::Arc;

use serde_json::{json, Value};

use super::Config;
use crate::pdf;

/// An inclusive 1-based page range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageRange {
    /// First page, 1-based.
    pub first: u32,
    /// Last page, 1-based, `>= first`.
    pub last: u32,
}

/// A tool failure the agent can read: a stable machine-readable `kind` and a
/// human-readable message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolFailure {
    /// Stable kind, e.g. `not_found`, `not_a_pdf`, `path.outside_root`, `ssrf.loopback`.
    pub kind: String,
    /// What went wrong, for a human or a model.
    pub message: String,
}

impl ToolFailure {
    /// Builds a failure.
    pub fn new(kind: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            kind: kind.into(),
            message: message.into(),
        }
    }
}

impl std::fmt::Display for ToolFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.kind, self.message)
    }
}

impl std::error::Error for ToolFailure {}

/// What one call's work gets: progress reporting and the handle that
/// kills its worker. Built by the server for each `tools/call`.
#[derive(Debug, Default)]
pub struct Job {
    /// Progress (pages done, total pages) and the worker's abort channel.
    pub watch: pdf::worker::Watch,
}

/// The PDF operations the tools need. Results are already in the tools'
/// `outputSchema` shapes. Called on a blocking thread (unless
/// [`inline`](Self::inline)), one call per `tools/call`, possibly several
/// at once.
pub trait PdfBackend: Send + Sync + 'static {
    /// Text of the pages in `pages` (all when `None`):
    /// `{"pageCount": n, "pages": [{"page": k, "text": "..."}]}`.
    ///
    /// # Errors
    /// A [`ToolFailure`] with the extractor's stable error kind.
    fn extract(
        &self,
        pdf: &[u8],
        pages: Option<PageRange>,
        password: Option<&str>,
        job: Job,
    ) -> Result<Value, ToolFailure>;

    /// `{"pdfVersion", "pageCount", "encrypted", "info", "xmp"}`.
    ///
    /// # Errors
    /// A [`ToolFailure`] with the extractor's stable error kind.
    fn metadata(&self, pdf: &[u8], password: Option<&str>, job: Job) -> Result<Value, ToolFailure>;

    /// Whether a call may run where it is polled instead of on a blocking
    /// thread: only for backends that never block (in-memory stubs).
    fn inline(&self) -> bool {
        false
    }
}

/// The production backend: [`crate::pdf`] in an isolated worker process
/// (a crash, timeout or memory overrun in a hostile file becomes a
/// `worker_failed` tool error and the session carries on), one fresh
/// worker per call, one started ahead of need.
#[derive(Debug, Clone)]
pub struct DefaultPdf {
    pool: Arc<pdf::worker::Prestarted>,
    limits: pdf::Limits,
}

impl DefaultPdf {
    /// Runs workers through `isolation` (the `toolgate` binary and its
    /// limits), with the extractor's default limits.
    pub fn new(isolation: pdf::Isolation) -> Self {
        Self {
            pool: Arc::new(pdf::worker::Prestarted::new(isolation)),
            limits: pdf::Limits::default(),
        }
    }

    /// Runs workers through `worker_exe` under `config`'s limits: its
    /// file bound ([`Config::max_pdf_bytes`], the worker's input bound
    /// too), worker timeout and memory.
    pub fn for_config(worker_exe: impl Into<PathBuf>, config: &Config) -> Self {
        let isolation = pdf::Isolation {
            worker_exe: worker_exe.into(),
            timeout: config.worker_timeout,
            memory: config.worker_memory_bytes,
        };
        let limits = pdf::Limits {
            max_input_bytes: usize::try_from(config.max_pdf_bytes).unwrap_or(usize::MAX),
            ..pdf::Limits::default()
        };
        Self {
            pool: Arc::new(pdf::worker::Prestarted::new(isolation)),
            limits,
        }
    }

    /// Runs workers through the running executable, which must be `toolgate`.
    ///
    /// # Errors
    /// When the running executable's path cannot be found.
    pub fn current_exe() -> Result<Self, ToolFailure> {
        pdf::Isolation::current_exe()
            .map(Self::new)
            .map_err(|e| pdf_failure(&e))
    }

    /// The isolation the workers run under.
    pub fn isolation(&self) -> &pdf::Isolation {
        self.pool.isolation()
    }

    /// The extractor's limits sent with every call.
    pub fn limits(&self) -> &pdf::Limits {
        &self.limits
    }

    /// Whether a worker started ahead of need is waiting now.
    pub fn is_ready(&self) -> bool {
        self.pool.is_ready()
    }

    fn options(&self, password: Option<&str>) -> pdf::Options {
        pdf::Options {
            password: password.map(str::to_owned),
            limits: self.limits,
        }
    }
}

fn pdf_failure(e: &pdf::PdfError) -> ToolFailure {
    ToolFailure::new(e.kind(), e.to_string())
}

fn warnings(ws: &[pdf::Warning]) -> Value {
    Value::Array(
        ws.iter()
            .map(|w| json!({"page": w.page, "limit": w.limit.map(pdf::Limit::name), "message": w.message}))
            .collect(),
    )
}

impl PdfBackend for DefaultPdf {
    fn extract(
        &self,
        data: &[u8],
        pages: Option<PageRange>,
        password: Option<&str>,
        job: Job,
    ) -> Result<Value, ToolFailure> {
        let range = pages.map(|r| pdf::PageRange {
            first: r.first,
            last: Some(r.last),
        });
        let x = pdf::worker::extract_watched(
            pdf::Source::Bytes(data),
            range,
            &self.options(password),
            &self.pool,
            job.watch,
        )
        .map_err(|e| pdf_failure(&e))?;
        let pages: Vec<Value> = x
            .pages
            .iter()
            .map(|p| json!({"page": p.number, "text": p.text}))
            .collect();
        Ok(json!({
            "pageCount": x.page_count,
            "pages": pages,
            "truncated": x.truncated,
            "warnings": warnings(&x.warnings),
        }))
    }

    fn metadata(
        &self,
        data: &[u8],
        password: Option<&str>,
        job: Job,
    ) -> Result<Value, ToolFailure> {
        let m = pdf::worker::metadata_watched(
            pdf::Source::Bytes(data),
            &self.options(password),
            &self.pool,
            job.watch,
        )
        .map_err(|e| pdf_failure(&e))?;
        Ok(json!({
            "pdfVersion": m.pdf_version,
            "pageCount": m.page_count,
            "encrypted": m.encrypted,
            "info": m.info,
            "xmp": m.xmp,
            "warnings": warnings(&m.warnings),
        }))
    }
}

/// The tool failure for a URL `path`: URLs are never fetched. One refused
/// by [`crate::net::classify_url`] fails with its denial code (`ssrf.*`,
/// `url.*`); any other fails with `remote_disabled`. No DNS lookup and no
/// connection happen either way.
pub fn refuse_url(input: &str) -> ToolFailure {
    match crate::net::classify_url(input) {
        Err(denial) => ToolFailure::new(denial.code(), denial.reason()),
        Ok(dest) => ToolFailure::new(
            "remote_disabled",
            format!(
                "{} is not fetched: remote URLs are disabled in this server; pass a local file path",
                dest.url()
            ),
        ),
    }
}
