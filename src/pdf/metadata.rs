//! `metadata`: version, page count, encryption, Info dictionary, XMP.

use std::collections::{BTreeMap, BTreeSet};

use lopdf::{Document, Object};
use serde::{Deserialize, Serialize};

use super::encryption::Encryption;
use super::error::PdfError;
use super::limits::{Limit, Limits, MAX_INFO_ENTRIES, MAX_INFO_VALUE_CHARS, MAX_XMP_BYTES};
use super::load::{catalog, load, Loaded};
use super::object::resolve;
use super::pagetree::{declared_pages, walk, PageTree};
use super::stream::{decode_stream, DecodeBudget};
use super::textstring::decode_text_string;
use super::Warning;

/// What a PDF says about itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Metadata {
    /// `major.minor`: the header's version, or the catalog's `/Version` when later.
    pub pdf_version: String,
    /// Pages in the document: the pages found by the bounded page-tree walk,
    /// or the declared count (linearization `/N`, root `/Count`) when it is
    /// plausible and larger, as viewers and `pdfinfo` report it (see
    /// [`super::pagetree::PageTree::count`]).
    pub page_count: u32,
    /// The trailer names an `/Encrypt` dictionary (one so malformed that it
    /// cannot describe any encryption is ignored, with a warning, as poppler
    /// ignores it: see [`super::encryption::standard_dict_fault`]).
    pub encrypted: bool,
    /// The security handler and algorithm, when encrypted.
    pub encryption: Option<Encryption>,
    /// Info `/Title` (this and the seven fields below: only when the value is
    /// a string, as the spec requires; other values are in [`Metadata::info`]).
    pub title: Option<String>,
    /// Info `/Author`.
    pub author: Option<String>,
    /// Info `/Subject`.
    pub subject: Option<String>,
    /// Info `/Keywords`.
    pub keywords: Option<String>,
    /// Info `/Creator`: the application that made the original document.
    pub creator: Option<String>,
    /// Info `/Producer`: the application that wrote the PDF.
    pub producer: Option<String>,
    /// Info `/CreationDate`, as written (PDF date string, §7.9.4).
    pub creation_date: Option<String>,
    /// Info `/ModDate`, as written.
    pub modification_date: Option<String>,
    /// The whole Info dictionary, values decoded to text (text strings from
    /// PDFDocEncoding or UTF-16BE; names, numbers and booleans as written).
    /// At most [`MAX_INFO_ENTRIES`] entries of [`MAX_INFO_VALUE_CHARS`] characters.
    pub info: BTreeMap<String, String>,
    /// The catalog's XMP packet (`/Metadata` stream) as raw XML, at most
    /// [`MAX_XMP_BYTES`] bytes.
    pub xmp: Option<String>,
    /// lopdf had to correct or rebuild the cross-reference data.
    pub xref_repaired: bool,
    /// What could not be read.
    pub warnings: Vec<Warning>,
}

/// Builds [`Metadata`] from PDF bytes.
///
/// # Errors
/// Every load error of [`super::load::load`], plus the page-tree errors of
/// [`super::pagetree::walk`].
pub fn metadata_from_bytes(
    data: &[u8],
    password: Option<&str>,
    limits: &Limits,
) -> Result<Metadata, PdfError> {
    metadata_unbounded(data, password, limits).map_err(PdfError::bounded)
}

/// [`metadata_from_bytes`] before its error is bounded ([`PdfError::bounded`]).
fn metadata_unbounded(
    data: &[u8],
    password: Option<&str>,
    limits: &Limits,
) -> Result<Metadata, PdfError> {
    let _budget = DecodeBudget::start(limits.max_total_decoded_bytes);
    let loaded = load(data, password, limits)?;
    let mut tree = walk(&loaded.doc, limits)?;
    tree.declared = declared_pages(&loaded.doc, loaded.linearized_pages, limits);
    let mut warnings = load_warnings(&loaded, &tree);
    let (info, text_keys) = info_dict(&loaded.doc, &mut warnings);
    let xmp = xmp(&loaded.doc, &mut warnings);
    // The named fields are text strings (§14.3.3, Table 317); a name, number
    // or boolean in their place stays in `info` only (poppler shows none).
    let field = |k: &str| {
        text_keys
            .contains(k)
            .then(|| info.get(k).cloned())
            .flatten()
    };
    Ok(Metadata {
        pdf_version: version(&loaded.doc),
        page_count: u32::try_from(tree.count()).unwrap_or(u32::MAX),
        encrypted: loaded.encryption.is_some(),
        title: field("Title"),
        author: field("Author"),
        subject: field("Subject"),
        keywords: field("Keywords"),
        creator: field("Creator"),
        producer: field("Producer"),
        creation_date: field("CreationDate"),
        modification_date: field("ModDate"),
        encryption: loaded.encryption,
        info,
        xmp,
        xref_repaired: loaded.xref_repaired,
        warnings,
    })
}

/// Warnings about how the document was loaded and its page tree walked.
pub(crate) fn load_warnings(loaded: &Loaded, tree: &PageTree) -> Vec<Warning> {
    let mut w = Vec::new();
    if loaded.xref_repaired {
        w.push(Warning::doc(
            "the cross-reference data was damaged and has been repaired; objects may be missing",
        ));
    }
    if loaded.missing_header {
        w.push(Warning::doc(
            "the file has no %PDF- header; read anyway because it holds PDF objects (version reported as 0.0)",
        ));
    }
    if let Some(why) = &loaded.encryption_ignored {
        w.push(Warning::doc(format!(
            "the trailer's /Encrypt dictionary is malformed ({why}); the file was read as unencrypted, as poppler does"
        )));
    }
    if loaded.unparsed_pages > 0 {
        w.push(Warning::doc(format!(
            "{} page objects are damaged beyond parsing; they are counted as empty pages",
            loaded.unparsed_pages
        )));
    }
    if loaded.restored_streams > 0 {
        w.push(Warning::doc(format!(
            "{} streams have an unusable /Length; their data was read up to endstream",
            loaded.restored_streams
        )));
    }
    if let Some(state) = &loaded.doc.encryption_state {
        let strf = state.default_string_filter();
        // Crypt filters exist from `/V 4` on; before, strings use the file key.
        if state.version() >= 4
            && !strf.is_empty()
            && strf != b"Identity"
            && !state.crypt_filters().contains_key(strf)
        {
            w.push(Warning::doc(format!(
                "strings use crypt filter /{}, which could not be used (missing from /CF, or without a method): they are given undecrypted, as poppler gives them, so metadata and other strings may be garbage",
                super::quote_name(strf)
            )));
        }
    }
    if loaded.missing_eof {
        w.push(Warning::doc(
            "the file does not end with %%EOF; it may be cut off",
        ));
    }
    if let Some(why) = &tree.scanned {
        w.push(Warning::doc(format!(
            "{why}; the {} pages were found by scanning all objects for /Type /Page, in object-number order",
            tree.pages.len()
        )));
    }
    match tree.declared {
        Some(declared) if declared > tree.pages.len() => w.push(Warning::doc(format!(
            "the document declares {declared} pages (page-tree /Count or linearization /N) but only {} were found; pages {}-{declared} are reported empty",
            tree.pages.len(),
            tree.pages.len().saturating_add(1)
        ))),
        Some(declared) if declared < tree.pages.len() => w.push(Warning::doc(format!(
            "the page tree's /Count says {declared} pages but {} were found; all are reported",
            tree.pages.len()
        ))),
        _ => {}
    }
    if tree.repeated > 0 {
        w.push(Warning::doc(format!(
            "page tree: skipped {} /Kids entries that loop back or repeat a page",
            tree.repeated
        )));
    }
    if tree.invalid > 0 {
        w.push(Warning::doc(format!(
            "page tree: skipped {} /Kids entries that are not page-tree nodes",
            tree.invalid
        )));
    }
    w
}

/// The header version, or the catalog's `/Version` when it is later (§7.2.2).
fn version(doc: &Document) -> String {
    let header = doc.version.clone();
    let cat = catalog(doc)
        .ok()
        .and_then(|c| c.get(b"Version").ok())
        .and_then(|v| resolve(doc, v).ok())
        .and_then(|v| v.as_name().ok())
        .map(|n| String::from_utf8_lossy(n).into_owned());
    let parse = |s: &str| {
        let (a, b) = s.split_once('.')?;
        Some((a.trim().parse::<u32>().ok()?, b.trim().parse::<u32>().ok()?))
    };
    match (cat, parse(&header)) {
        (Some(c), Some(h)) if parse(&c).is_some_and(|cv| cv > h) => c,
        _ => header,
    }
}

/// Decodes any simple value to text, or `None` for containers and streams.
fn value_text(obj: &Object) -> Option<String> {
    match obj {
        Object::String(bytes, _) => Some(decode_text_string(bytes, MAX_INFO_VALUE_CHARS)),
        Object::Name(n) => Some(
            String::from_utf8_lossy(n)
                .chars()
                .take(MAX_INFO_VALUE_CHARS)
                .collect(),
        ),
        Object::Integer(i) => Some(i.to_string()),
        Object::Real(r) => Some(r.to_string()),
        Object::Boolean(b) => Some(b.to_string()),
        _ => None,
    }
}

/// The Info dictionary's entries as text, and which of them are strings.
fn info_dict(
    doc: &Document,
    warnings: &mut Vec<Warning>,
) -> (BTreeMap<String, String>, BTreeSet<String>) {
    let mut out = BTreeMap::new();
    let mut text_keys = BTreeSet::new();
    let Ok(info) = doc.trailer.get(b"Info") else {
        return (out, text_keys);
    };
    let dict = match resolve(doc, info).map(Object::as_dict) {
        Ok(Ok(d)) => d,
        _ => {
            warnings.push(Warning::doc("the Info dictionary is unreadable"));
            return (out, text_keys);
        }
    };
    let mut skipped = 0usize;
    for (key, value) in dict.iter() {
        if out.len() >= MAX_INFO_ENTRIES {
            warnings.push(Warning::limit(
                Limit::InfoEntries,
                format!("Info dictionary: only the first {MAX_INFO_ENTRIES} entries are reported"),
            ));
            break;
        }
        let value = resolve(doc, value).ok();
        match value.and_then(value_text) {
            Some(v) => {
                let key = String::from_utf8_lossy(key).into_owned();
                if matches!(value, Some(Object::String(..))) {
                    text_keys.insert(key.clone());
                }
                out.insert(key, v);
            }
            None => skipped += 1,
        }
    }
    if skipped > 0 {
        warnings.push(Warning::doc(format!(
            "Info dictionary: {skipped} entries are not text and were skipped"
        )));
    }
    (out, text_keys)
}

fn xmp(doc: &Document, warnings: &mut Vec<Warning>) -> Option<String> {
    let meta = catalog(doc).ok()?.get(b"Metadata").ok()?;
    let Ok(Object::Stream(stream)) = resolve(doc, meta) else {
        warnings.push(Warning::doc("the catalog's /Metadata is not a stream"));
        return None;
    };
    match decode_stream(stream, MAX_XMP_BYTES) {
        Ok(bytes) => Some(String::from_utf8_lossy(&bytes).into_owned()),
        Err(e) => {
            warnings.push(Warning::doc(format!("XMP metadata unreadable: {e}")));
            None
        }
    }
}
