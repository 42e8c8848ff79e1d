//! Harnesses for `toolgate::pdf`. In-process (fuzzers cannot spawn workers),
//! with tight limits so each input stays fast.

use crate::pdf::{metadata_in_process, Limits, Options, PdfError, Source};

/// The limits the harness runs under.
pub fn harness_limits() -> Limits {
    Limits {
        max_input_bytes: 4 << 20,
        max_stream_bytes: 2 << 20,
        max_total_decoded_bytes: 16 << 20,
        max_page_tree_nodes: 5_000,
        max_pages: 2_000,
        max_pages_per_call: 20,
        max_output_chars: 100_000,
        max_operations_per_page: 100_000,
        max_operations_per_call: 500_000,
        ..Limits::default()
    }
}

const KINDS: &[&str] = &[
    "not_pdf",
    "empty_input",
    "truncated",
    "malformed_xref",
    "malformed_structure",
    "page_tree_cycle",
    "reference_cycle",
    "nesting_too_deep",
    "limit_exceeded",
    "unsupported_encryption",
    "password_required",
    "io",
    "page_out_of_range",
];

fn check_error(e: &PdfError) {
    assert!(KINDS.contains(&e.kind()), "unexpected kind {e:?}");
    let json = serde_json::to_string(e).unwrap();
    let back: PdfError = serde_json::from_str(&json).unwrap();
    assert_eq!(&back, e, "error does not round-trip through JSON");
    assert!(!e.to_string().is_empty());
}

/// Extracts `data` in process under `limits` and returns the result beside
/// the units of work the call charged to its budget (content operators of
/// every interpreted stream, font table entries).
///
/// # Errors
/// As [`crate::pdf::extract_in_process`].
pub fn pdf_work(data: &[u8], limits: &Limits) -> (Result<crate::pdf::Extraction, PdfError>, usize) {
    if data.len() > limits.max_input_bytes {
        let options = Options {
            password: None,
            limits: *limits,
        };
        return (
            crate::pdf::extract_in_process(Source::Bytes(data), None, &options),
            0,
        );
    }
    match crate::pdf::extract::extract_counted(data, None, None, limits, &mut |_, _| {}) {
        Ok((x, work)) => (Ok(x), work),
        Err(e) => (Err(e), 0),
    }
}

/// Fuzz target `pdf_extract`: extraction and metadata are total, bounded by
/// their limits, agree on the page count, and their results round-trip
/// through JSON (the worker protocol).
pub fn pdf_extract(data: &[u8]) {
    let options = Options {
        password: None,
        limits: harness_limits(),
    };
    let limits = &options.limits;
    let (extraction, work) = pdf_work(data, limits);
    assert!(
        work <= limits.max_operations_per_call,
        "{work} units of work past the budget of {}",
        limits.max_operations_per_call
    );

    let metadata = metadata_in_process(Source::Bytes(data), &options);
    match &extraction {
        Ok(x) => {
            assert!(x.pages.len() <= limits.max_pages_per_call);
            assert!(x.page_count as usize <= limits.max_pages);
            let chars: usize = x.pages.iter().map(|p| p.text.chars().count()).sum();
            assert!(chars <= limits.max_output_chars, "{chars} chars");
            for (i, p) in x.pages.iter().enumerate() {
                assert_eq!(p.number as usize, i + 1, "pages out of order");
            }
            if !x.truncated {
                assert_eq!(
                    x.pages.len(),
                    x.page_count as usize,
                    "pages missing without truncation"
                );
            }
            let json = serde_json::to_string(x).unwrap();
            assert_eq!(
                &serde_json::from_str::<crate::pdf::Extraction>(&json).unwrap(),
                x
            );
        }
        Err(e) => check_error(e),
    }
    match (&metadata, &extraction) {
        (Ok(m), Ok(x)) => assert_eq!(m.page_count, x.page_count, "page counts disagree"),
        (Err(e), Ok(_)) => panic!("metadata failed ({e}) where extraction succeeded"),
        (Ok(_), Err(e)) => panic!("extraction failed ({e}) where metadata succeeded"),
        (Err(a), Err(b)) => {
            check_error(a);
            assert_eq!(a.kind(), b.kind(), "the two calls fail differently");
        }
    }
    if let Ok(m) = &metadata {
        let json = serde_json::to_string(m).unwrap();
        assert_eq!(
            &serde_json::from_str::<crate::pdf::Metadata>(&json).unwrap(),
            m
        );
    }
}
