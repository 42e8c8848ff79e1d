//! `extract`: the text of a range of pages, bounded per call.

use serde::{Deserialize, Serialize};

use super::error::PdfError;
use super::limits::{Limit, Limits};
use super::load::load;
use super::metadata::load_warnings;
use super::pagetree::{declared_pages, walk};
use super::stream::DecodeBudget;
use super::text::{page_text_in, Call, TextLimits};
use super::{PageRange, Warning};

/// The text of one page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Page {
    /// 1-based page number.
    pub number: u32,
    /// Text in reading order, lines separated by `\n`.
    pub text: String,
}

/// The result of `extract`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Extraction {
    /// Pages in the document: the pages found by the bounded page-tree walk,
    /// or the declared count when plausible and larger (see
    /// [`super::pagetree::PageTree::count`]); pages past those found are empty.
    pub page_count: u32,
    /// The pages extracted, in order.
    pub pages: Vec<Page>,
    /// True when a limit (pages per call, output characters, per-page
    /// operator or stream caps) cut the result short; the warnings say which.
    pub truncated: bool,
    /// What could not be read, per page or for the whole document.
    pub warnings: Vec<Warning>,
}

/// Extracts the text of `range` (all pages when `None`) from PDF bytes.
///
/// # Errors
/// Every load and page-tree error; `page_out_of_range` when the range starts
/// past the last page. Limits reached while extracting are warnings beside a
/// truncated result, not errors.
pub fn extract_from_bytes(
    data: &[u8],
    range: Option<PageRange>,
    password: Option<&str>,
    limits: &Limits,
) -> Result<Extraction, PdfError> {
    extract_counted(data, range, password, limits, &mut |_, _| {}).map(|(x, _)| x)
}

/// [`extract_from_bytes`], calling `progress(done, total)` once the page
/// range is known (`done` = 0) and after each page: `total` is the number
/// of pages this call extracts (after the pages-per-call cap).
///
/// # Errors
/// As [`extract_from_bytes`].
pub fn extract_with_progress(
    data: &[u8],
    range: Option<PageRange>,
    password: Option<&str>,
    limits: &Limits,
    progress: &mut dyn FnMut(u32, u32),
) -> Result<Extraction, PdfError> {
    extract_counted(data, range, password, limits, progress).map(|(x, _)| x)
}

/// [`extract_from_bytes`], and the units of work the call charged to its
/// budget (at most `limits.max_operations_per_call`).
///
/// # Errors
/// As [`extract_from_bytes`].
pub(crate) fn extract_counted(
    data: &[u8],
    range: Option<PageRange>,
    password: Option<&str>,
    limits: &Limits,
    progress: &mut dyn FnMut(u32, u32),
) -> Result<(Extraction, usize), PdfError> {
    extract_unbounded(data, range, password, limits, progress).map_err(PdfError::bounded)
}

/// [`extract_counted`] before its error is bounded ([`PdfError::bounded`]).
fn extract_unbounded(
    data: &[u8],
    range: Option<PageRange>,
    password: Option<&str>,
    limits: &Limits,
    progress: &mut dyn FnMut(u32, u32),
) -> Result<(Extraction, usize), PdfError> {
    let _budget = DecodeBudget::start(limits.max_total_decoded_bytes);
    let loaded = load(data, password, limits)?;
    let mut tree = walk(&loaded.doc, limits)?;
    tree.declared = declared_pages(&loaded.doc, loaded.linearized_pages, limits);
    let mut warnings = super::Warnings::default();
    warnings.extend(load_warnings(&loaded, &tree));
    let count = tree.count();
    let page_count = u32::try_from(count).unwrap_or(u32::MAX);
    let range = range.unwrap_or(PageRange {
        first: 1,
        last: None,
    });
    let first = usize::try_from(range.first).unwrap_or(usize::MAX).max(1);
    if count == 0 {
        warnings.push(Warning::doc("the document has no pages"));
    } else if first > count {
        return Err(PdfError::PageOutOfRange {
            first: range.first,
            page_count,
        });
    }
    let last = range.last.map_or(count, |l| {
        usize::try_from(l).unwrap_or(usize::MAX).min(count)
    });
    let mut truncated = false;
    let mut selected = last.saturating_sub(first.saturating_sub(1));
    if selected > limits.max_pages_per_call {
        selected = limits.max_pages_per_call;
        truncated = true;
        warnings.push(Warning::limit(
            Limit::PagesPerCall,
            format!(
                "only pages {first}-{} of {first}-{last} were extracted; ask for the rest with a page range",
                first.saturating_add(selected).saturating_sub(1)
            ),
        ));
    }
    let mut pages = Vec::with_capacity(selected);
    let mut chars_left = limits.max_output_chars;
    // One work budget for every stream of every page of this call.
    let mut call = Call::new(limits);
    let mut limits_warned: Vec<Limit> = Vec::new();
    let start = first.saturating_sub(1);
    let total = u32::try_from(selected).unwrap_or(u32::MAX);
    progress(0, total);
    for index in start..start.saturating_add(selected) {
        let done = u32::try_from(index.saturating_sub(start)).unwrap_or(u32::MAX);
        if done > 0 {
            progress(done, total);
        }
        let number = u32::try_from(index.saturating_add(1)).unwrap_or(u32::MAX);
        // Past the pages found, up to the declared count: reported empty (a
        // document warning from `load_warnings` says so).
        let Some(&id) = tree.pages.get(index) else {
            pages.push(Page {
                number,
                text: String::new(),
            });
            continue;
        };
        if chars_left == 0 {
            truncated = true;
            warnings.push(Warning::limit(
                Limit::OutputChars,
                format!(
                    "output stopped before page {number}: {} characters returned",
                    limits.max_output_chars
                ),
            ));
            break;
        }
        if let Err(limit) = call.work.check_clock() {
            truncated = true;
            warnings.push(budget_warning(limit, number, limits, &call));
            break;
        }
        let text_limits = TextLimits {
            max_chars: chars_left,
            max_form_depth: limits.max_form_depth,
            max_operations: limits.max_operations_per_page,
            max_stream_bytes: limits.max_stream_bytes,
            max_glyphs: limits.max_glyphs_per_page,
        };
        let pt = page_text_in(&loaded.doc, id, &text_limits, &mut call);
        if let Some(lost) = lost_content(&loaded.doc, id) {
            warnings.push(Warning {
                page: Some(number),
                limit: None,
                message: lost,
            });
        }
        let mut text = pt.text;
        let mut n = text.chars().count();
        if n > chars_left {
            // Defensive: the interpreter overshot its cap.
            text = text.chars().take(chars_left).collect();
            n = chars_left;
        }
        chars_left = chars_left.saturating_sub(n);
        if pt.truncated {
            truncated = true;
        }
        // A stream refused by a size cap or the decode budget: say which
        // limit, so the caller knows the text is short and why.
        // Once per limit and call: the page's own warnings say which
        // streams were refused.
        let spent = call.work.spent();
        for limit in &pt.limits_hit {
            if Some(*limit) == spent || limits_warned.contains(limit) {
                continue;
            }
            limits_warned.push(*limit);
            warnings.push(Warning {
                page: Some(number),
                limit: Some(*limit),
                message: match limit {
                    Limit::OutputChars => format!(
                        "the text stops within this page: the call's {}-character {} limit was reached; ask for the rest with a page range starting at page {number}",
                        limits.max_output_chars,
                        limit.name()
                    ),
                    Limit::StreamBytes | Limit::TotalDecodedBytes => format!(
                        "the text of this page (and of any later page warning of a refused stream) is incomplete: a stream was past the {} limit",
                        limit.name()
                    ),
                    _ => format!(
                        "the text of this page (and of any later page warning of the same limit) is incomplete: the {} limit was reached",
                        limit.name()
                    ),
                },
            });
        }
        let lost = pt.warnings.len().saturating_sub(pt.minor_warnings);
        for (i, message) in pt.warnings.into_iter().enumerate() {
            let w = Warning {
                page: Some(number),
                limit: None,
                message,
            };
            if i < lost {
                warnings.push(w);
            } else {
                warnings.push_minor(w);
            }
        }
        pages.push(Page { number, text });
        if let Some(limit) = spent {
            truncated = true;
            warnings.push(budget_warning(limit, number, limits, &call));
            break;
        }
    }
    let work = call.work.ops();
    Ok((
        Extraction {
            page_count,
            pages,
            truncated,
            warnings: warnings.finish(),
        },
        work,
    ))
}

/// The warning for a call whose work budget ran out on (or before) page
/// `number`: which limit, its value, and where to continue.
fn budget_warning(limit: Limit, number: u32, limits: &Limits, call: &Call) -> Warning {
    let value = match limit {
        Limit::CallCpuTime => limits.max_call_cpu_ms.to_string(),
        _ => call.work.max_ops().to_string(),
    };
    Warning {
        page: Some(number),
        limit: Some(limit),
        message: format!(
            "the call's work budget ran out on page {number} ({}: {value} {}): the text of this page may be incomplete and later pages were not extracted; ask for the rest with a page range starting at page {number}",
            limit.name(),
            limit.unit()
        ),
    }
}

/// Most `/Contents` entries of one page checked by [`lost_content`].
const MAX_CONTENT_PARTS_CHECKED: usize = 1024;

/// A warning when a content stream of page `id` came out of lopdf empty
/// although its `/Length` is not a plain 0: lopdf drops a stream's data when
/// its `/Length` cannot be used (negative, self-referencing, missing object),
/// and the page would otherwise be silently empty.
fn lost_content(doc: &lopdf::Document, id: lopdf::ObjectId) -> Option<String> {
    use lopdf::Object;
    let page = doc.objects.get(&id)?.as_dict().ok()?;
    let contents = super::object::resolve(doc, page.get(b"Contents").ok()?).ok()?;
    let parts: Vec<&Object> = match contents {
        Object::Array(a) => a.iter().take(MAX_CONTENT_PARTS_CHECKED).collect(),
        other => vec![other],
    };
    let lost = parts
        .into_iter()
        .filter_map(|p| super::object::resolve(doc, p).ok()?.as_stream().ok())
        .filter(|s| s.content.is_empty())
        .filter(|s| {
            let length = s
                .dict
                .get(b"Length")
                .ok()
                .and_then(|l| super::object::resolve(doc, l).ok());
            !matches!(length, Some(Object::Integer(0)))
        })
        .count();
    (lost > 0).then(|| {
        format!("{lost} content stream(s) of this page were lost: unusable /Length (negative, self-referencing or missing)")
    })
}
