//! `extract`: the text of a range of pages, bounded per call.

use serde::{Deserialize, Serialize};

use super::error::PdfError;
use super::limits::{Limit, Limits};
use super::load::load;
use super::metadata::load_warnings;
use super::pagetree::{declared_pages, walk};
use super::stream::{decode_stream, DecodeBudget};
use super::text::{page_text, TextLimits};
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
    let _budget = DecodeBudget::start(limits.max_total_decoded_bytes);
    let loaded = load(data, password, limits)?;
    let mut tree = walk(&loaded.doc, limits)?;
    tree.declared = declared_pages(&loaded.doc, loaded.linearized_pages, limits);
    let mut warnings = load_warnings(&loaded, &tree);
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
    let mut ops_left = limits.max_operations_per_call;
    let mut op_memo = std::collections::HashMap::new();
    let mut limits_warned: Vec<Limit> = Vec::new();
    let start = first.saturating_sub(1);
    for index in start..start.saturating_add(selected) {
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
        if ops_left == 0 {
            truncated = true;
            warnings.push(Warning::limit(
                Limit::OperationsPerCall,
                format!(
                    "output stopped before page {number}: {} content operators interpreted in this call; ask for the rest with a page range",
                    limits.max_operations_per_call
                ),
            ));
            break;
        }
        let page_ops = limits.max_operations_per_page.min(ops_left);
        let text_limits = TextLimits {
            max_chars: chars_left,
            max_form_depth: limits.max_form_depth,
            max_operations: page_ops,
            max_stream_bytes: limits.max_stream_bytes,
        };
        let pt = page_text(&loaded.doc, id, &text_limits);
        let ops = content_operators(&loaded.doc, id, limits.max_stream_bytes, &mut op_memo);
        ops_left = ops_left.saturating_sub(page_ops.min(ops));
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
        for limit in &pt.limits_hit {
            if limits_warned.contains(limit) {
                continue;
            }
            limits_warned.push(*limit);
            warnings.push(Warning {
                page: Some(number),
                limit: Some(*limit),
                message: format!(
                    "the text of this page (and of any later page warning of a refused stream) is incomplete: a stream was past the {} limit",
                    limit.name()
                ),
            });
        }
        warnings.extend(pt.warnings.into_iter().map(|message| Warning {
            page: Some(number),
            limit: None,
            message,
        }));
        pages.push(Page { number, text });
    }
    Ok(Extraction {
        page_count,
        pages,
        truncated,
        warnings,
    })
}

/// Operators in page `id`'s own content streams (not its Form XObjects:
/// those are bounded by the per-page operator cap and the call's decode
/// budget), counted by [`count_operators`]. A filtered stream is decoded
/// again through [`decode_stream`], so under the call's budget; each stream
/// is counted once per call (`memo`), however many pages share it.
fn content_operators(
    doc: &lopdf::Document,
    id: lopdf::ObjectId,
    max_stream_bytes: usize,
    memo: &mut std::collections::HashMap<lopdf::ObjectId, usize>,
) -> usize {
    use lopdf::Object;
    let Some(contents) = doc
        .objects
        .get(&id)
        .and_then(|p| p.as_dict().ok())
        .and_then(|p| p.get(b"Contents").ok())
    else {
        return 0;
    };
    let parts: Vec<&Object> = match super::object::resolve(doc, contents) {
        Ok(Object::Array(a)) => a.iter().take(MAX_CONTENT_PARTS_CHECKED).collect(),
        _ => vec![contents],
    };
    let mut total = 0usize;
    for part in parts {
        let key = match part {
            Object::Reference(r) => Some(*r),
            _ => None,
        };
        if let Some(n) = key.and_then(|k| memo.get(&k)) {
            total = total.saturating_add(*n);
            continue;
        }
        let Ok(stream) = super::object::resolve(doc, part).and_then(|o| {
            o.as_stream()
                .map_err(|_| PdfError::structure("content is not a stream"))
        }) else {
            continue;
        };
        let n = if stream.dict.has(b"Filter") {
            decode_stream(stream, max_stream_bytes).map_or(0, |d| count_operators(&d))
        } else {
            count_operators(&stream.content)
        };
        if let Some(k) = key {
            memo.insert(k, n);
        }
        total = total.saturating_add(n);
    }
    total
}

/// Counts the operators of a content stream (ISO 32000-1 §7.8.2) with a
/// lexer that only tells them apart from operands: a run of regular
/// characters that starts with a letter, `'` or `"` and is not `true`,
/// `false` or `null`. Strings, hex strings, names, comments and inline image
/// data (`ID` … `EI`) are skipped. Linear in the input.
pub fn count_operators(c: &[u8]) -> usize {
    let regular = |b: u8| !b.is_ascii_whitespace() && b != 0 && !b"()<>[]{}/%".contains(&b);
    let mut n = 0usize;
    let mut i = 0usize;
    while let Some(&b) = c.get(i) {
        match b {
            b'(' => {
                let mut depth = 1usize;
                i = i.saturating_add(1);
                while let Some(&x) = c.get(i) {
                    match x {
                        b'\\' => i = i.saturating_add(1),
                        b'(' => depth = depth.saturating_add(1),
                        b')' => {
                            depth = depth.saturating_sub(1);
                            if depth == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                    i = i.saturating_add(1);
                }
                i = i.saturating_add(1);
            }
            b'%' => {
                while c.get(i).is_some_and(|&x| x != b'\n' && x != b'\r') {
                    i = i.saturating_add(1);
                }
            }
            b'<' if c.get(i.saturating_add(1)) != Some(&b'<') => {
                while c.get(i).is_some_and(|&x| x != b'>') {
                    i = i.saturating_add(1);
                }
                i = i.saturating_add(1);
            }
            b'/' => {
                i = i.saturating_add(1);
                while c.get(i).is_some_and(|&x| regular(x)) {
                    i = i.saturating_add(1);
                }
            }
            _ if regular(b) => {
                let start = i;
                while c.get(i).is_some_and(|&x| regular(x)) {
                    i = i.saturating_add(1);
                }
                let token = c.get(start..i).unwrap_or_default();
                let operator = (b.is_ascii_alphabetic() || b == b'\'' || b == b'"')
                    && !matches!(token, b"true" | b"false" | b"null");
                if operator {
                    n = n.saturating_add(1);
                }
                if token == b"ID" {
                    // Inline image data runs to the next `EI` between whitespace.
                    match c.get(i..).unwrap_or_default().windows(4).position(|w| {
                        matches!(w, [a, b'E', b'I', d] if a.is_ascii_whitespace() && !regular(*d))
                    }) {
                        Some(at) => i = i.saturating_add(at).saturating_add(3),
                        None => i = c.len(),
                    }
                }
            }
            _ => i = i.saturating_add(1),
        }
    }
    n
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

#[cfg(test)]
mod tests {
    use super::count_operators as n;

    #[test]
    fn operators_are_counted_apart_from_operands() {
        assert_eq!(n(b"BT /F1 12 Tf 72 720 Td (Hello (world) Tj) Tj ET"), 5);
        assert_eq!(n(b"q Q q Q"), 4);
        assert_eq!(n(b"[(a) -250 (b)] TJ 0 0 m true false null"), 2);
        assert_eq!(n(b"% comment Tj Tj\nT* <48656c6c6f> Tj"), 2);
        assert_eq!(n(b"BI /W 2 /H 2 ID \x00Tj Tj q\xff EI Q"), 3);
        assert_eq!(n(&[0u8; 1000]), 0);
        assert_eq!(n(b"(unterminated Tj"), 0);
        assert_eq!(n(b"a' b\" c"), 3);
    }
}
