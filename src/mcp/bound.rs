//! The response bound: no answer of the PDF server is longer than
//! [`MAX_RESPONSE_BYTES`] on the wire.
//!
//! A tool result carries its text twice (`structuredContent`, and the same
//! value serialized into `content[0].text`, escaped once more), so a page of
//! characters JSON escapes (`"`, `\`, control characters) costs up to 13
//! wire bytes a character. The size is measured exactly, by serializing the
//! whole line into a counter; an `extract` result over the bound is cut
//! short from its last page backwards, by the exact wire cost of each
//! character removed, and says so (`truncated: true`, a warning naming
//! `max_response_bytes`); a `get_metadata` XMP packet, then its Info values
//! (the longest first), are cut the same way.
//! Any other answer over the bound becomes the tool
//! error `response_too_large`.

use serde_json::{json, Value};

use super::backend::ToolFailure;
use crate::engine::wire::Id;
pub use crate::json::MAX_RESPONSE_BYTES;

/// Rounds of cutting before giving up with `response_too_large` (each
/// round removes at least the measured excess, so one is almost always
/// enough; the warning a cut adds is the rest).
const MAX_FIT_ROUNDS: usize = 4;

/// Bytes kept free for the warning a cut adds.
const WARNING_SLACK: usize = 1024;

/// The name of the limit in warnings.
pub const RESPONSE_LIMIT_NAME: &str = "max_response_bytes";

/// Counts the bytes written through it.
struct Counter(usize);

impl std::io::Write for Counter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 = self.0.saturating_add(buf.len());
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The exact length of the response line `{"jsonrpc":"2.0","id":…,"result":…}`
/// (without its newline).
pub fn line_bytes(id: &Id, result: &Value) -> usize {
    let mut c = Counter(0);
    let line = json!({"jsonrpc": "2.0", "id": id.to_value(), "result": result});
    match serde_json::to_writer(&mut c, &line) {
        Ok(()) => c.0,
        Err(_) => usize::MAX,
    }
}

/// Wire bytes one character of a page's text costs in a tool result:
/// escaped once in `structuredContent` (when `structured`), and escaped
/// twice in `content[0].text`.
pub fn char_cost(c: char, structured: bool) -> usize {
    // (bytes escaped once, how many of those bytes are `"` or `\`)
    let (once, specials) = match c {
        '"' | '\\' => (2, 2),
        '\u{8}' | '\u{c}' | '\n' | '\r' | '\t' => (2, 1),
        c if c < ' ' => (6, 1),
        c => (c.len_utf8(), 0),
    };
    let twice = once + specials;
    if structured {
        once + twice
    } else {
        twice
    }
}

/// Keeps a tool result under [`MAX_RESPONSE_BYTES`]: `build` renders the
/// result from the structured value (`Ok`) or the failure; an `extract`
/// value (`pages` of `{page, text}`) over the bound is cut short, anything
/// else over it becomes `response_too_large`.
pub fn fit(
    id: &Id,
    outcome: Result<Value, ToolFailure>,
    structured: bool,
    build: impl Fn(Result<&Value, &ToolFailure>) -> Value,
) -> Value {
    let mut value = match outcome {
        Ok(v) => v,
        Err(f) => return fit_failure(id, build(Err(&f)), &build),
    };
    for _ in 0..MAX_FIT_ROUNDS {
        let result = build(Ok(&value));
        let size = line_bytes(id, &result);
        if size <= MAX_RESPONSE_BYTES {
            return result;
        }
        let excess = size - MAX_RESPONSE_BYTES;
        let excess = excess.saturating_add(WARNING_SLACK);
        if !(cut_pages(&mut value, excess, structured)
            || cut_xmp(&mut value, excess, structured)
            || cut_info(&mut value, excess, structured))
        {
            break;
        }
    }
    too_large(&build)
}

fn fit_failure(
    id: &Id,
    result: Value,
    build: &impl Fn(Result<&Value, &ToolFailure>) -> Value,
) -> Value {
    if line_bytes(id, &result) <= MAX_RESPONSE_BYTES {
        result
    } else {
        too_large(build)
    }
}

fn too_large(build: &impl Fn(Result<&Value, &ToolFailure>) -> Value) -> Value {
    build(Err(&ToolFailure::new(
        "response_too_large",
        format!("the answer would be longer than the {MAX_RESPONSE_BYTES}-byte {RESPONSE_LIMIT_NAME} limit"),
    )))
}

/// Removes at least `excess` wire bytes from the end of a `get_metadata`
/// value's XMP packet (the one field of it without a bound of its own in
/// wire bytes: [`crate::pdf::limits::MAX_XMP_BYTES`] counts raw bytes, and a control
/// character costs up to 13 on the wire) and adds a warning naming the
/// limit and the bytes kept; `false` when there is no XMP text to cut.
fn cut_xmp(value: &mut Value, excess: usize, structured: bool) -> bool {
    let Some(Value::String(xmp)) = value.get_mut("xmp") else {
        return false;
    };
    if xmp.is_empty() {
        return false;
    }
    let whole = xmp.len();
    let mut left = excess;
    cut_end(xmp, &mut left, structured);
    let cut = xmp.len();
    let warning = json!({
        "page": null,
        "limit": RESPONSE_LIMIT_NAME,
        "message": format!(
            "the XMP packet is cut to its first {cut} of {whole} bytes (no longer well-formed XML): the answer reached the {MAX_RESPONSE_BYTES}-byte {RESPONSE_LIMIT_NAME} limit (characters JSON escapes cost more)"
        ),
    });
    push_warning(value, warning);
    true
}

/// Removes at least `excess` wire bytes from a `get_metadata` value's
/// `info` entries, the costliest first (a value is cut from its end; an
/// entry whose key alone is too costly goes), and adds a warning counting
/// them; `false` when there is nothing left to cut.
fn cut_info(value: &mut Value, excess: usize, structured: bool) -> bool {
    let Some(Value::Object(info)) = value.get_mut("info") else {
        return false;
    };
    let cost = |s: &str| s.chars().map(|c| char_cost(c, structured)).sum::<usize>();
    let mut costly: Vec<(String, usize)> = info
        .iter()
        .map(|(k, v)| {
            (
                k.clone(),
                cost(k).saturating_add(v.as_str().map_or(0, cost)),
            )
        })
        .collect();
    costly.sort_by_key(|(_, c)| std::cmp::Reverse(*c));
    let mut left = excess;
    let (mut cut, mut dropped) = (0usize, 0usize);
    for (key, _) in costly {
        if left == 0 {
            break;
        }
        if let Some(Value::String(text)) = info.get_mut(&key) {
            cut_end(text, &mut left, structured);
        }
        if left > 0 {
            left = left.saturating_sub(cost(&key));
            info.remove(&key);
            dropped = dropped.saturating_add(1);
        } else {
            cut = cut.saturating_add(1);
        }
    }
    if cut == 0 && dropped == 0 {
        return false;
    }
    let warning = json!({
        "page": null,
        "limit": RESPONSE_LIMIT_NAME,
        "message": format!(
            "{cut} Info values are cut short and {dropped} Info entries left out, the longest first: the answer reached the {MAX_RESPONSE_BYTES}-byte {RESPONSE_LIMIT_NAME} limit (characters JSON escapes cost more)"
        ),
    });
    push_warning(value, warning);
    true
}

/// Cuts characters from the end of `text` until their wire cost
/// ([`char_cost`]) covers `left`, which keeps what is still to remove (0
/// unless all of `text` went).
fn cut_end(text: &mut String, left: &mut usize, structured: bool) {
    let mut at = text.len();
    for (i, c) in text.char_indices().rev() {
        if *left == 0 {
            break;
        }
        *left = left.saturating_sub(char_cost(c, structured));
        at = i;
    }
    text.truncate(at);
}

/// Adds `warning` to a tool value's `warnings` (made when absent).
fn push_warning(value: &mut Value, warning: Value) {
    if let Some(m) = value.as_object_mut() {
        if let Some(Value::Array(ws)) = m.get_mut("warnings") {
            ws.push(warning);
        } else {
            m.insert("warnings".into(), json!([warning]));
        }
    }
}

/// The limits whose warning says where an `extract` answer's text stops.
const STOPPING_LIMITS: [crate::pdf::Limit; 2] = [
    crate::pdf::Limit::OutputChars,
    crate::pdf::Limit::PagesPerCall,
];

/// Removes at least `excess` wire bytes of page text from the end of an
/// `extract` value, marks it truncated and adds a warning; `false` when the
/// value has no page text to cut.
fn cut_pages(value: &mut Value, excess: usize, structured: bool) -> bool {
    let Some(pages) = value.get_mut("pages").and_then(Value::as_array_mut) else {
        return false;
    };
    let mut left = excess;
    let mut stopped_at = None;
    while left > 0 {
        let Some(page) = pages.last_mut() else {
            break;
        };
        let number = page.get("page").cloned().unwrap_or(Value::Null);
        let Some(Value::String(text)) = page.get_mut("text") else {
            pages.pop();
            continue;
        };
        cut_end(text, &mut left, structured);
        stopped_at = Some(number);
        if left > 0 {
            // The whole page went: its `{"page":…,"text":""}` goes too.
            pages.pop();
        }
    }
    let Some(page) = stopped_at else {
        return false;
    };
    if let Some(m) = value.as_object_mut() {
        m.insert("truncated".into(), Value::Bool(true));
        if let (Some(Value::Array(ws)), Some(last)) = (m.get_mut("warnings"), page.as_u64()) {
            // Stale once the text stops here: where an earlier limit
            // stopped the output (`output_chars`, `pages_per_call`: the
            // warning added below says where it stops now), and whatever
            // concerns a page no longer in the answer (a work budget stop
            // or lost content past the cut). Other document warnings stay.
            ws.retain(|w| {
                let stop = matches!(
                    w.get("limit").and_then(Value::as_str),
                    Some(l) if STOPPING_LIMITS.iter().any(|s| s.name() == l)
                );
                let past = w
                    .get("page")
                    .and_then(Value::as_u64)
                    .is_some_and(|p| p > last);
                !stop && !past
            });
        }
        let warning = json!({
            "page": page,
            "limit": RESPONSE_LIMIT_NAME,
            "message": format!(
                "the text stops within page {page}: the answer reached the {MAX_RESPONSE_BYTES}-byte {RESPONSE_LIMIT_NAME} limit (characters JSON escapes cost more); ask for later pages with a page range"
            ),
        });
        if let Some(Value::Array(ws)) = m.get_mut("warnings") {
            ws.push(warning);
        } else {
            m.insert("warnings".into(), json!([warning]));
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Revision;

    fn build(structured: bool) -> impl Fn(Result<&Value, &ToolFailure>) -> Value {
        move |o| match o {
            Ok(v) => {
                let rev = if structured {
                    Revision::parse("2025-06-18")
                } else {
                    Revision::parse("2024-11-05")
                };
                super::super::tools::success(v.clone(), rev.unwrap())
            }
            Err(f) => super::super::tools::failure(f),
        }
    }

    /// The per-character cost is exact: removing one character of a page
    /// shrinks the line by exactly its cost.
    #[test]
    fn char_cost_is_exact() {
        let id = Id::Number(7.into());
        for structured in [true, false] {
            for c in [
                'a', '"', '\\', '\n', '\t', '\u{1}', '\u{1f}', '\u{7f}', 'é', '€', '𝄞', '\u{2028}',
            ] {
                let page = |n: usize| json!({"pageCount": 1, "pages": [{"page": 1, "text": c.to_string().repeat(n)}], "truncated": false, "warnings": []});
                let b = build(structured);
                let with = line_bytes(&id, &b(Ok(&page(3))));
                let without = line_bytes(&id, &b(Ok(&page(2))));
                assert_eq!(
                    with - without,
                    char_cost(c, structured),
                    "{c:?} {structured}"
                );
            }
        }
    }

    #[test]
    fn escaped_pages_are_cut_to_the_bound() {
        let id = Id::String("x".repeat(100));
        // 3 pages of quotes and control characters: 13 bytes each on the wire.
        let per_page = MAX_RESPONSE_BYTES / 13 / 2;
        let text: String = "\"\u{1}".repeat(per_page / 2);
        let value = json!({"pageCount": 3, "pages": [
            {"page": 1, "text": text}, {"page": 2, "text": text}, {"page": 3, "text": text}
        ], "truncated": false, "warnings": []});
        let result = fit(&id, Ok(value), true, build(true));
        let size = line_bytes(&id, &result);
        assert!(size <= MAX_RESPONSE_BYTES, "{size}");
        assert!(
            size > MAX_RESPONSE_BYTES - 64 * 1024,
            "cut no more than needed: {size}"
        );
        let sc = &result["structuredContent"];
        assert_eq!(sc["truncated"], true);
        let w = sc["warnings"].as_array().unwrap().last().unwrap();
        assert!(
            w["message"].as_str().unwrap().contains(RESPONSE_LIMIT_NAME),
            "{w}"
        );
        assert_eq!(sc["pages"][0]["text"], json!(text));
        // Text under the bound passes unchanged.
        let small = json!({"pageCount": 1, "pages": [{"page": 1, "text": "\"hi\""}], "truncated": false, "warnings": []});
        assert_eq!(
            fit(&id, Ok(small.clone()), true, build(true)),
            build(true)(Ok(&small))
        );
    }

    #[test]
    fn warnings_about_pages_cut_away_go_with_them() {
        let id = Id::Number(1.into());
        let per_page = MAX_RESPONSE_BYTES / 13 / 2;
        let text: String = "\"\u{1}".repeat(per_page / 2);
        let value = json!({"pageCount": 5, "pages": [
            {"page": 1, "text": text}, {"page": 2, "text": text}, {"page": 3, "text": text}
        ], "truncated": true, "warnings": [
            {"page": null, "limit": null, "message": "document"},
            {"page": 1, "limit": null, "message": "page one"},
            {"page": 2, "limit": null, "message": "page two"},
            {"page": 3, "limit": null, "message": "page three"},
            {"page": 4, "limit": "call_cpu_time", "message": "the call's work budget ran out on page 4"},
            {"page": null, "limit": "output_chars", "message": "output stopped before page 4"},
            {"page": null, "limit": "pages_per_call", "message": "only pages 1-3 of 1-5 were extracted"},
            {"page": null, "limit": "pages", "message": "document"}
        ]});
        let result = fit(&id, Ok(value), true, build(true));
        let sc = &result["structuredContent"];
        let last = sc["pages"].as_array().unwrap().last().unwrap()["page"]
            .as_u64()
            .unwrap();
        assert!(last <= 3);
        let messages: Vec<&str> = sc["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w["message"].as_str().unwrap())
            .collect();
        let mut kept = ["document", "page one", "page two", "page three"]
            [..=usize::try_from(last).unwrap()]
            .to_vec();
        kept.push("document");
        assert_eq!(&messages[..kept.len()], kept);
        assert_eq!(messages.len(), kept.len() + 1, "{messages:?}");
        assert!(messages[kept.len()].contains(RESPONSE_LIMIT_NAME));
    }

    /// A metadata answer whose XMP of control characters (13 wire bytes
    /// each) passes the bound keeps the most of its XMP that fits, says so,
    /// and keeps everything else.
    #[test]
    fn an_xmp_over_the_bound_is_cut() {
        let id = Id::Number(1.into());
        let xmp = format!("<x>{}", "\u{1}".repeat(crate::pdf::limits::MAX_XMP_BYTES));
        let meta = json!({"pdfVersion": "1.7", "info": {"Title": "t"}, "xmp": xmp, "warnings": []});
        let result = fit(&id, Ok(meta), true, build(true));
        assert_ne!(result["isError"], true);
        let size = line_bytes(&id, &result);
        assert!(size <= MAX_RESPONSE_BYTES, "{size}");
        assert!(
            size > MAX_RESPONSE_BYTES - 64 * 1024,
            "cut no more than needed: {size}"
        );
        let sc = &result["structuredContent"];
        let kept = sc["xmp"].as_str().unwrap();
        assert!(kept.starts_with("<x>") && kept.len() < xmp.len());
        assert_eq!(sc["info"]["Title"], "t");
        let ws = sc["warnings"].as_array().unwrap();
        assert_eq!(ws.len(), 1, "{ws:?}");
        assert_eq!(ws[0]["limit"], RESPONSE_LIMIT_NAME);
        let message = ws[0]["message"].as_str().unwrap();
        assert!(
            message.contains(&format!("first {} of {}", kept.len(), xmp.len())),
            "{message}"
        );
        // Small enough: untouched.
        let small = json!({"xmp": "\u{1}".repeat(1000), "warnings": []});
        assert_eq!(
            fit(&id, Ok(small.clone()), true, build(true)),
            build(true)(Ok(&small))
        );
    }

    /// Info values whose escapes pass the bound (20 of 65,536 U+0001, a
    /// 2 KB file: attack pass) are cut, the longest first, and an entry
    /// whose key alone is too long goes; the XMP is cut before them.
    #[test]
    fn info_values_over_the_bound_are_cut() {
        let id = Id::Number(1.into());
        let mut info = serde_json::Map::new();
        for i in 0..20 {
            info.insert(format!("K{i}"), json!("\u{1}".repeat(65_536 - i)));
        }
        info.insert("Title".into(), json!("t"));
        info.insert("\u{1}".repeat(2_000_000), json!("x"));
        let meta = json!({"info": info, "xmp": "<x/>", "warnings": []});
        let result = fit(&id, Ok(meta), true, build(true));
        assert_ne!(result["isError"], true, "{}", &result.to_string()[..200]);
        let size = line_bytes(&id, &result);
        assert!(size <= MAX_RESPONSE_BYTES, "{size}");
        assert!(
            size > MAX_RESPONSE_BYTES - 128 * 1024,
            "cut no more than needed: {size}"
        );
        let sc = &result["structuredContent"];
        assert_eq!(sc["info"]["Title"], "t", "short values stay");
        assert_eq!(
            sc["info"].as_object().unwrap().len(),
            21,
            "the long key went"
        );
        assert_eq!(
            sc["info"]["K19"].as_str().unwrap().len(),
            65_536 - 19,
            "the shortest long value stays whole"
        );
        assert_eq!(sc["xmp"], "", "the XMP is cut first");
        let ws = sc["warnings"].as_array().unwrap();
        assert!(
            ws.iter().all(|w| w["limit"] == RESPONSE_LIMIT_NAME),
            "{ws:?}"
        );
        assert!(
            ws.iter().any(|w| w["message"]
                .as_str()
                .unwrap()
                .contains("1 Info entries left out")),
            "{ws:?}"
        );
    }

    #[test]
    fn other_answers_over_the_bound_are_refused() {
        let id = Id::Number(1.into());
        let meta = json!({"title": "\u{1}".repeat(MAX_RESPONSE_BYTES / 6)});
        let result = fit(&id, Ok(meta), true, build(true));
        assert_eq!(result["isError"], true);
        assert!(result.to_string().contains("response_too_large"));
    }
}
