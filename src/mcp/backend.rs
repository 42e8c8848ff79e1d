//! What the tools stand on: the PDF extractor and the URL classifier, behind
//! a small trait so the in-memory fuzz harness can run sessions without
//! spawning extractor processes.
//!
//! TEMPORARY ADAPTER: `DefaultPdf` calls lopdf directly until `toolgate::pdf`
//! lands on main.

use serde_json::{json, Map, Value};

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

/// The production backend.
#[derive(Debug, Default, Clone, Copy)]
pub struct DefaultPdf;

impl PdfBackend for DefaultPdf {
    fn extract(
        &self,
        pdf: &[u8],
        pages: Option<PageRange>,
        password: Option<&str>,
    ) -> Result<Value, ToolFailure> {
        let doc = load(pdf, password)?;
        let all = doc.get_pages();
        let count = u32::try_from(all.len()).unwrap_or(u32::MAX);
        let range = pages.unwrap_or(PageRange {
            first: 1,
            last: count.max(1),
        });
        if count == 0 {
            return Ok(json!({"pageCount": 0, "pages": []}));
        }
        if range.first > count {
            return Err(ToolFailure::new(
                "page_out_of_range",
                format!(
                    "page {} requested, the document has {count} pages",
                    range.first
                ),
            ));
        }
        let last = range.last.min(count);
        let mut out = Vec::new();
        for p in range.first..=last {
            let text = doc.extract_text(&[p]).unwrap_or_default();
            out.push(json!({"page": p, "text": text}));
        }
        Ok(json!({"pageCount": count, "pages": out}))
    }

    fn metadata(&self, pdf: &[u8], password: Option<&str>) -> Result<Value, ToolFailure> {
        let doc = load(pdf, password)?;
        let mut info = Map::new();
        if let Ok(lopdf::Object::Reference(r)) = doc.trailer.get(b"Info") {
            if let Ok(dict) = doc.get_dictionary(*r) {
                for (k, v) in dict.iter() {
                    if let Ok(s) = v.as_str() {
                        info.insert(
                            String::from_utf8_lossy(k).into_owned(),
                            Value::from(String::from_utf8_lossy(s).into_owned()),
                        );
                    }
                }
            }
        }
        Ok(json!({
            "pdfVersion": doc.version,
            "pageCount": doc.get_pages().len(),
            "encrypted": doc.is_encrypted(),
            "info": info,
            "xmp": Value::Null,
        }))
    }
}

fn load(pdf: &[u8], password: Option<&str>) -> Result<lopdf::Document, ToolFailure> {
    if !pdf.starts_with(b"%PDF-") && !pdf.windows(5).take(1024).any(|w| w == b"%PDF-") {
        return Err(ToolFailure::new(
            "not_a_pdf",
            "the file does not start with a %PDF- header",
        ));
    }
    let mut doc = lopdf::Document::load_mem(pdf)
        .map_err(|e| ToolFailure::new("malformed", format!("the PDF could not be parsed: {e}")))?;
    if doc.is_encrypted() {
        doc.decrypt(password.unwrap_or(""))
            .map_err(|_| ToolFailure::new("encrypted", "wrong or missing password"))?;
    }
    Ok(doc)
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
