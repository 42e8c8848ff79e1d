//! Harnesses for `toolgate::mcp`.
use serde_json::{json, Value};

use crate::engine::transport::{Frame, LineReader};
use crate::mcp::{Config, PageRange, PdfBackend, Server, ToolFailure};

/// A backend that never parses PDFs (the fuzz target must not spawn
/// extractor processes); file access and confinement stay real.
struct StubPdf;

impl PdfBackend for StubPdf {
    fn extract(
        &self,
        pdf: &[u8],
        pages: Option<PageRange>,
        _password: Option<&str>,
    ) -> Result<Value, ToolFailure> {
        if !pdf.starts_with(b"%PDF-") {
            return Err(ToolFailure::new("not_a_pdf", "no %PDF- header"));
        }
        let first = pages.map_or(1, |p| p.first);
        Ok(
            json!({"pageCount": 1, "pages": [{"page": first, "text": ""}], "truncated": false, "warnings": []}),
        )
    }

    fn metadata(&self, _pdf: &[u8], _password: Option<&str>) -> Result<Value, ToolFailure> {
        Ok(
            json!({"pdfVersion": "1.4", "pageCount": 1, "encrypted": false, "info": {}, "xmp": null}),
        )
    }
}

fn server() -> Server<StubPdf> {
    let config = Config {
        root: Some(concat!(env!("CARGO_MANIFEST_DIR"), "/corpus/pdf").into()),
        // Small bounds so the fuzzer reaches the oversized-line path.
        max_line_bytes: 4096,
        tools_page_size: 1,
        ..Config::default()
    };
    Server::new(config, StubPdf).unwrap()
}

/// Fuzz target `mcp_session`: `data` is a session (lines separated by `\n`).
///
/// Invariants: no panic; every request line gets exactly one response and
/// every well-formed notification none; every response is a valid JSON-RPC
/// 2.0 response whose id is the request's id or `null`; a batch answer holds
/// one response per request in it; `serve` over the whole input writes
/// exactly the per-line answers.
pub fn mcp_session(data: &[u8]) {
    let mut stepped = server();
    let mut expected = Vec::new();
    let mut lines = LineReader::new(data, 4096);
    loop {
        let frame = lines.next_frame().unwrap();
        if frame == Frame::Eof {
            break;
        }
        let response = stepped.handle_frame(&frame);
        match &frame {
            Frame::Oversized { len } => {
                assert!(*len > 4096, "an oversized frame within the bound: {len}");
                let r = response.as_ref().expect("an oversized line gets an answer");
                assert_response(r, None);
                assert_eq!(r["id"], Value::Null);
            }
            Frame::Line(bytes) => {
                assert!(
                    bytes.len() <= 4096,
                    "a line over the bound: {}",
                    bytes.len()
                );
                check_line(bytes, response.as_ref());
            }
            Frame::Eof => unreachable!(),
        }
        if let Some(r) = response {
            expected.extend_from_slice(serde_json::to_string(&r).unwrap().as_bytes());
            expected.push(b'\n');
        }
    }
    let mut out = Vec::new();
    server().serve(data, &mut out).unwrap();
    assert_eq!(out, expected, "serve() differs from per-line handling");
}

fn is_notification(v: &Value) -> bool {
    v.as_object().is_some_and(|o| {
        !o.contains_key("id")
            && o.get("jsonrpc") == Some(&json!("2.0"))
            && o.get("method").is_some_and(Value::is_string)
    })
}

/// A JSON-RPC response sent by the client (`result` or `error`, no
/// `method`): the server drops it unanswered (JSON-RPC 2.0 §5).
fn is_response(v: &Value) -> bool {
    crate::engine::wire::is_valid_response(v)
}

/// A message that must never be answered.
fn is_silent(v: &Value) -> bool {
    is_notification(v) || is_response(v)
}

fn is_request(v: &Value) -> bool {
    v.as_object().is_some_and(|o| {
        o.get("id")
            .is_some_and(|id| id.is_string() || id.is_i64() || id.is_u64())
            && o.get("jsonrpc") == Some(&json!("2.0"))
            && o.get("method").is_some_and(Value::is_string)
    })
}

fn check_line(bytes: &[u8], response: Option<&Value>) {
    // serde_json is a looser reference than the core (it takes duplicate
    // keys); where it cannot parse, only the response's shape is checked.
    let parsed: Option<Value> = serde_json::from_slice(bytes).ok();
    match (response, &parsed) {
        (None, Some(Value::Array(items))) => {
            assert!(!items.is_empty() && items.iter().all(is_silent));
        }
        (None, Some(v)) => assert!(is_silent(v), "no answer to a non-notification"),
        (None, None) => panic!("no answer to an unparseable line"),
        (Some(Value::Array(responses)), Some(Value::Array(items))) => {
            let requests = items.iter().filter(|i| !is_silent(i)).count();
            assert_eq!(
                responses.len(),
                requests,
                "one response per batched request"
            );
            for r in responses {
                assert_response(r, None);
            }
        }
        (Some(Value::Array(_)), _) => panic!("a batch answer to a non-batch"),
        (Some(r), Some(v)) => {
            assert!(!is_notification(v) || !is_request(v));
            assert_response(r, v.get("id").filter(|_| is_request(v)));
        }
        (Some(r), None) => {
            assert_response(r, None);
            assert_eq!(r["id"], Value::Null);
        }
    }
}

/// A valid JSON-RPC 2.0 response; its id is `request_id` or `null`.
fn assert_response(r: &Value, request_id: Option<&Value>) {
    let o = r.as_object().expect("a response is an object");
    assert_eq!(o.get("jsonrpc"), Some(&json!("2.0")));
    let id = o.get("id").expect("a response has an id");
    assert!(id.is_null() || id.is_string() || id.is_i64() || id.is_u64());
    if let (Some(want), false) = (request_id, id.is_null()) {
        assert_eq!(id, want, "the response id is the request's");
    }
    match (o.get("result"), o.get("error")) {
        (Some(result), None) => assert!(result.is_object()),
        (None, Some(e)) => {
            assert!(e["code"].is_i64(), "error.code is an integer");
            assert!(e["message"].is_string(), "error.message is a string");
        }
        _ => panic!("exactly one of result and error: {r}"),
    }
    assert!(o.len() == 3, "no other members: {r}");
}
