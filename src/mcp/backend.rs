//! What the tools stand on: the PDF extractor and the URL classifier, behind
//! a small trait so the in-memory fuzz harness can run sessions without
//! spawning extractor processes.
//!

use serde_json::{json, Value};

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

/// The PDF operations the tools need. Results are already in the tools'
/// `outputSchema` shapes.
pub trait PdfBackend {
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
    ) -> Result<Value, ToolFailure>;

    /// `{"pdfVersion", "pageCount", "encrypted", "info", "xmp"}`.
    ///
    /// # Errors
    /// A [`ToolFailure`] with the extractor's stable error kind.
    fn metadata(&self, pdf: &[u8], password: Option<&str>) -> Result<Value, ToolFailure>;
}

/// The production backend: [`crate::pdf`] in an isolated worker process
/// (a crash, timeout or memory overrun in a hostile file becomes a
/// `worker_failed` tool error and the session carries on).
#[derive(Debug, Clone)]
pub struct DefaultPdf {
    isolation: pdf::Isolation,
}

impl DefaultPdf {
    /// Runs workers through `isolation` (the `toolgate` binary and its limits).
    pub fn new(isolation: pdf::Isolation) -> Self {
        Self { isolation }
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
}

fn pdf_failure(e: &pdf::PdfError) -> ToolFailure {
    ToolFailure::new(e.kind(), e.to_string())
}

fn warnings(ws: &[pdf::Warning]) -> Value {
    Value::Array(
        ws.iter()
            .map(|w| json!({"page": w.page, "message": w.message}))
            .collect(),
    )
}

fn options(password: Option<&str>) -> pdf::Options {
    pdf::Options {
        password: password.map(str::to_owned),
        ..pdf::Options::default()
    }
}

impl PdfBackend for DefaultPdf {
    fn extract(
        &self,
        data: &[u8],
        pages: Option<PageRange>,
        password: Option<&str>,
    ) -> Result<Value, ToolFailure> {
        let range = pages.map(|r| pdf::PageRange {
            first: r.first,
            last: Some(r.last),
        });
        let x = pdf::extract_isolated(
            pdf::Source::Bytes(data),
            range,
            &options(password),
            &self.isolation,
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

    fn metadata(&self, data: &[u8], password: Option<&str>) -> Result<Value, ToolFailure> {
        let m = pdf::metadata_isolated(
            pdf::Source::Bytes(data),
            &options(password),
            &self.isolation,
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
