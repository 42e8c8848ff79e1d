//! What the tools stand on: the PDF extractor and the URL classifier, behind
//! a small trait so the in-memory fuzz harness can run sessions without
//! spawning extractor processes.
//!
//! TEMPORARY ADAPTERS: `LopdfPdf` and `classify_url` are stand-ins until
//! `toolgate::pdf` and `toolgate::net::classify_url` land on main.

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

/// A URL refused (or not fetched): the stable code and the reason.
pub fn classify_url(input: &str) -> ToolFailure {
    let refused = |code: &str, reason: &str| ToolFailure::new(code, reason);
    let Ok(url) = url::Url::parse(input) else {
        return refused("url.malformed", "the URL could not be parsed");
    };
    if !matches!(url.scheme(), "http" | "https") {
        return refused("url.scheme", "only http and https URLs are considered");
    }
    if !url.username().is_empty() || url.password().is_some() {
        return refused("url.userinfo", "URLs with credentials are refused");
    }
    let ip: Option<std::net::IpAddr> = match url.host() {
        Some(url::Host::Ipv4(a)) => Some(a.into()),
        Some(url::Host::Ipv6(a)) => Some(a.to_ipv4_mapped().map_or(a.into(), Into::into)),
        Some(url::Host::Domain(d)) => {
            let d = d.trim_end_matches('.').to_ascii_lowercase();
            if d == "localhost" || d.ends_with(".localhost") {
                return refused("ssrf.loopback", "localhost is a loopback name");
            }
            if d == "metadata.google.internal" {
                return refused("ssrf.cloud_metadata", "a cloud metadata service name");
            }
            None
        }
        None => return refused("url.malformed", "the URL has no host"),
    };
    if let Some(ip) = ip {
        let code = match ip {
            std::net::IpAddr::V4(a) if a.octets() == [169, 254, 169, 254] => "ssrf.cloud_metadata",
            std::net::IpAddr::V4(a) if a.is_loopback() => "ssrf.loopback",
            std::net::IpAddr::V4(a) if a.is_private() => "ssrf.private_use",
            std::net::IpAddr::V4(a) if a.is_link_local() => "ssrf.link_local",
            std::net::IpAddr::V4(a) if a.is_unspecified() => "ssrf.unspecified",
            std::net::IpAddr::V6(a) if a.is_loopback() => "ssrf.loopback",
            std::net::IpAddr::V6(a) if a.is_unspecified() => "ssrf.unspecified",
            _ => "",
        };
        if !code.is_empty() {
            return refused(code, "the destination is not a public address");
        }
    }
    ToolFailure::new(
        "remote_disabled",
        "fetching remote URLs is disabled in this server; pass a local file path",
    )
}
