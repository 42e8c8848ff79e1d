//! Content-stream text interpreter.
//!
//! INTERFACE CONTRACT (used by the document-level extractor):
//! `page_text(doc, page_id, limits)` never panics and never fails as a whole:
//! it returns whatever text it could place, plus warnings for what it could
//! not read (a bad font, an undecodable stream, a limit reached).
//! The current body is a placeholder.

use lopdf::{Document, ObjectId};

/// Bounds for interpreting one page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextLimits {
    /// Most characters of text produced for the page.
    pub max_chars: usize,
    /// Deepest nesting of Form XObjects followed.
    pub max_form_depth: usize,
    /// Most content-stream operators interpreted (all streams of the page).
    pub max_operations: usize,
    /// Most decoded bytes of any one stream (content, form, CMap, font).
    pub max_stream_bytes: usize,
}

impl Default for TextLimits {
    fn default() -> Self {
        Self {
            max_chars: 1 << 20,
            max_form_depth: 12,
            max_operations: 2_000_000,
            max_stream_bytes: 64 << 20,
        }
    }
}

/// The text of one page.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PageText {
    /// Text in reading order; lines separated by `\n`.
    pub text: String,
    /// What could not be read on this page, for humans.
    pub warnings: Vec<String>,
    /// True when a limit cut the page short.
    pub truncated: bool,
}

/// Extracts the text of page `page_id` of `doc`.
pub fn page_text(doc: &Document, page_id: ObjectId, limits: &TextLimits) -> PageText {
    let _ = limits;
    let mut out = PageText::default();
    let pages = doc.get_pages();
    let number = pages
        .iter()
        .find(|(_, id)| **id == page_id)
        .map(|(n, _)| *n);
    match number.map(|n| doc.extract_text(&[n])) {
        Some(Ok(t)) => out.text = t,
        Some(Err(e)) => out.warnings.push(e.to_string()),
        None => out.warnings.push("page not found".into()),
    }
    out
}
