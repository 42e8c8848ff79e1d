//! What the tools stand on: the PDF extractor and the URL classifier, behind
//! a small trait so the in-memory fuzz harness can run sessions without
//! spawning extractor processes.
//!

use std::path::PathBuf;
use std::sync::Arc;

use serde_json::{json, Value};

use super::Config;
use crate::engine::BoxFuture;
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

/// One PDF operation and its input, as [`PdfBackend::run_async`] takes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PdfRequest {
    /// [`PdfBackend::extract`]'s arguments.
    Extract {
        /// The document.
        pdf: Vec<u8>,
        /// The pages to extract (all when `None`).
        pages: Option<PageRange>,
        /// The password of an encrypted document.
        password: Option<String>,
    },
    /// [`PdfBackend::metadata`]'s arguments.
    Metadata {
        /// The document.
        pdf: Vec<u8>,
        /// The password of an encrypted document.
        password: Option<String>,
    },
}

impl PdfRequest {
    /// Runs this request through `backend`'s blocking methods, on the
    /// calling thread.
    ///
    /// # Errors
    /// The backend's [`ToolFailure`].
    pub fn run_on<B: PdfBackend + ?Sized>(
        self,
        backend: &B,
        job: Job,
    ) -> Result<Value, ToolFailure> {
        match self {
            Self::Extract {
                pdf,
                pages,
                password,
            } => backend.extract(&pdf, pages, password.as_deref(), job),
            Self::Metadata { pdf, password } => backend.metadata(&pdf, password.as_deref(), job),
        }
    }
}

/// The PDF operations the tools need. Results are already in the tools'
/// `outputSchema` shapes. Called on a blocking thread (unless
/// [`inline`](Self::inline) or [`asynchronous`](Self::asynchronous)), one
/// call per `tools/call`, possibly several at once.
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

    /// Whether calls run as [`run_async`](Self::run_async)'s future on
    /// the engine's runtime instead of on a blocking thread: for backends
    /// whose work waits on another process without holding a thread
    /// ([`DefaultPdf`]). The file is then read on the runtime too when it
    /// is small ([`super::INLINE_READ_BYTES`]).
    fn asynchronous(&self) -> bool {
        false
    }

    /// `request` as a future polled on the engine's runtime (when
    /// [`asynchronous`](Self::asynchronous)); dropping it (a cancelled
    /// call) must stop the work. The default runs the blocking methods
    /// where it is polled.
    fn run_async(&self, request: PdfRequest, job: Job) -> BoxFuture<Result<Value, ToolFailure>> {
        let outcome = request.run_on(self, job);
        Box::pin(std::future::ready(outcome))
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

fn page_range(pages: Option<PageRange>) -> Option<pdf::PageRange> {
    pages.map(|r| pdf::PageRange {
        first: r.first,
        last: Some(r.last),
    })
}

/// `extract`'s structured result (the text moved, not copied).
fn extraction_value(x: pdf::Extraction) -> Value {
    let warnings = warnings(&x.warnings);
    let pages: Vec<Value> = x
        .pages
        .into_iter()
        .map(|p| json!({"page": p.number, "text": p.text}))
        .collect();
    json!({
        "pageCount": x.page_count,
        "pages": pages,
        "truncated": x.truncated,
        "warnings": warnings,
    })
}

/// `get_metadata`'s structured result.
fn metadata_value(m: pdf::Metadata) -> Value {
    let warnings = warnings(&m.warnings);
    json!({
        "pdfVersion": m.pdf_version,
        "pageCount": m.page_count,
        "encrypted": m.encrypted,
        "info": m.info,
        "xmp": m.xmp,
        "warnings": warnings,
    })
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
        pdf::worker::extract_watched(
            pdf::Source::Bytes(data),
            page_range(pages),
            &self.options(password),
            &self.pool,
            job.watch,
        )
        .map(extraction_value)
        .map_err(|e| pdf_failure(&e))
    }

    fn metadata(
        &self,
        data: &[u8],
        password: Option<&str>,
        job: Job,
    ) -> Result<Value, ToolFailure> {
        pdf::worker::metadata_watched(
            pdf::Source::Bytes(data),
            &self.options(password),
            &self.pool,
            job.watch,
        )
        .map(metadata_value)
        .map_err(|e| pdf_failure(&e))
    }

    fn asynchronous(&self) -> bool {
        true
    }

    /// The pool's spare fed and read by the call's own task (see
    /// [`pdf::worker::extract_async`]): no thread between the worker and
    /// the engine. Dropping the future kills the worker.
    fn run_async(&self, request: PdfRequest, job: Job) -> BoxFuture<Result<Value, ToolFailure>> {
        let pool = Arc::clone(&self.pool);
        let limits = self.limits;
        let options = move |password: Option<String>| pdf::Options { password, limits };
        Box::pin(async move {
            match request {
                PdfRequest::Extract {
                    pdf,
                    pages,
                    password,
                } => pdf::worker::extract_async(
                    pdf,
                    page_range(pages),
                    &options(password),
                    &pool,
                    job.watch,
                )
                .await
                .map(extraction_value),
                PdfRequest::Metadata { pdf, password } => {
                    pdf::worker::metadata_async(pdf, &options(password), &pool, job.watch)
                        .await
                        .map(metadata_value)
                }
            }
            .map_err(|e| pdf_failure(&e))
        })
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
