//! Harnesses for `toolgate::mcp`.
use std::task::{Context, Poll, Waker};

use serde_json::{json, Value};
use tokio::sync::mpsc;

use crate::engine::transport::{stdio, Frame, LineReader, Outgoing, Transport};
use crate::engine::{
    CallContext, ClientResponse, Engine, EngineConfig, ErrorObject, Handled, Id, Notification,
    Peer, Request, Service,
};
use crate::mcp::{Config, Job, PageRange, PdfBackend, Server, ToolFailure};

/// A backend that never parses PDFs (the fuzz target must not spawn
/// extractor processes); file access and confinement stay real.
struct StubPdf;

impl PdfBackend for StubPdf {
    fn extract(
        &self,
        pdf: &[u8],
        pages: Option<PageRange>,
        _password: Option<&str>,
        _job: Job,
    ) -> Result<Value, ToolFailure> {
        if !pdf.starts_with(b"%PDF-") {
            return Err(ToolFailure::new("not_a_pdf", "no %PDF- header"));
        }
        let first = pages.map_or(1, |p| p.first);
        Ok(
            json!({"pageCount": 1, "pages": [{"page": first, "text": ""}], "truncated": false, "warnings": []}),
        )
    }

    fn metadata(
        &self,
        _pdf: &[u8],
        _password: Option<&str>,
        _job: Job,
    ) -> Result<Value, ToolFailure> {
        Ok(
            json!({"pdfVersion": "1.4", "pageCount": 1, "encrypted": false, "info": {}, "xmp": null}),
        )
    }

    fn inline(&self) -> bool {
        true
    }
}

/// The server with every call answered where it is decided: the stub's
/// calls finish when first polled, so a session's answers do not depend
/// on scheduling and the stepped and whole runs can be compared byte for
/// byte.
struct Inline(Server<StubPdf>);

impl Service for Inline {
    fn attach(&mut self, peer: Peer) {
        self.0.attach(peer);
    }

    fn request(&mut self, request: Request, ctx: CallContext) -> Handled {
        match self.0.request(request, ctx) {
            Handled::Call(mut work) | Handled::Task(mut work) => {
                let mut cx = Context::from_waker(Waker::noop());
                match work.as_mut().poll(&mut cx) {
                    Poll::Ready(reply) => Handled::Reply(reply),
                    Poll::Pending => panic!("a stub call did not finish when first polled"),
                }
            }
            handled => handled,
        }
    }

    fn notification(&mut self, notification: Notification) {
        self.0.notification(notification);
    }

    fn response(&mut self, response: ClientResponse) {
        self.0.response(response);
    }

    fn accept_batch(&mut self, len: usize) -> Result<(), ErrorObject> {
        self.0.accept_batch(len)
    }

    fn closed(&mut self) {
        self.0.closed();
    }
}

/// Small bounds so the fuzzer reaches the oversized-line path.
const LINE_BYTES: usize = 4096;

fn config() -> Config {
    Config {
        root: Some(concat!(env!("CARGO_MANIFEST_DIR"), "/corpus/pdf").into()),
        max_line_bytes: LINE_BYTES,
        tools_page_size: 1,
        max_concurrent_calls: 2,
        ..Config::default()
    }
}

fn server() -> Inline {
    Inline(Server::new(config(), StubPdf).unwrap())
}

/// A request no session line can be waiting on (nothing is in flight when
/// it is sent); its answer marks the end of one frame's answers.
const SENTINEL: &str = r#"{"jsonrpc":"2.0","id":"toolgate-harness-sentinel","method":"ping"}"#;

/// Feeds `frames` to the engine one at a time; returns each frame's
/// answers (the lines the engine wrote before the sentinel's answer).
fn stepped(frames: Vec<Frame>, engine: EngineConfig) -> Vec<Vec<Vec<u8>>> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async move {
        let (frame_tx, frame_rx) = mpsc::channel(1);
        let (outgoing, mut out_rx) = mpsc::channel(64);
        let run = Engine::new(server(), engine).run(Transport {
            frames: frame_rx,
            outgoing,
        });
        let drive = async move {
            let mut answers = Vec::new();
            for frame in frames {
                frame_tx.send(frame).await.unwrap();
                frame_tx
                    .send(Frame::Line(SENTINEL.as_bytes().to_vec()))
                    .await
                    .unwrap();
                let mut lines = Vec::new();
                loop {
                    let Some(Outgoing::Message { line, .. }) = out_rx.recv().await else {
                        panic!("the engine ended inside a session");
                    };
                    let v: Value = serde_json::from_slice(&line).unwrap();
                    if v["id"] == "toolgate-harness-sentinel" {
                        break;
                    }
                    lines.push(line);
                }
                answers.push(lines);
            }
            frame_tx.send(Frame::Eof).await.unwrap();
            assert_eq!(out_rx.recv().await, Some(Outgoing::End));
            answers
        };
        let (_, answers) = tokio::join!(run, drive);
        answers
    })
}

/// Fuzz target `mcp_session`: `data` is a session (lines separated by `\n`).
///
/// The session runs on the engine twice: stepped, one frame at a time
/// through the engine's transport channels, and whole, through the stdio
/// transport over in-memory buffers.
///
/// Invariants: no panic; every request line gets exactly one response and
/// every well-formed notification none; every response is a valid JSON-RPC
/// 2.0 response whose id is the request's id or `null` (for a line that is
/// not JSON, exactly the one top-level id it names, else `null`); a batch answer holds
/// one response per request in it; the whole run writes exactly the
/// stepped answers.
pub fn mcp_session(data: &[u8]) {
    let mut frames = Vec::new();
    let mut lines = LineReader::with_prefix(data, LINE_BYTES, crate::engine::MAX_ID_SCAN_BYTES);
    loop {
        let frame = lines.next_frame().unwrap();
        if frame == Frame::Eof {
            break;
        }
        frames.push(frame);
    }
    let answers = stepped(frames.clone(), config().engine());
    let mut expected = Vec::new();
    for (frame, lines) in frames.iter().zip(&answers) {
        assert!(lines.len() <= 1, "one frame, several answers: {lines:?}");
        let response: Option<Value> = lines.first().map(|l| serde_json::from_slice(l).unwrap());
        match frame {
            Frame::Oversized { len, id, .. } => {
                assert!(
                    *len > LINE_BYTES as u64,
                    "an oversized frame within the bound: {len}"
                );
                let r = response.as_ref().expect("an oversized line gets an answer");
                assert_response(r, None);
                assert_eq!(r["id"], id.as_ref().map_or(Value::Null, Id::to_value));
            }
            Frame::Line(bytes) => {
                assert!(
                    bytes.len() <= LINE_BYTES,
                    "a line over the bound: {}",
                    bytes.len()
                );
                check_line(bytes, response.as_ref());
            }
            Frame::Eof | Frame::Vetted(_) => unreachable!(),
        }
        for line in lines {
            expected.extend_from_slice(line);
        }
    }
    let input = std::io::Cursor::new(data.to_vec());
    let (_, out) = stdio::serve(server(), config().engine(), input, Vec::new()).unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out),
        String::from_utf8_lossy(&expected),
        "the whole run differs from the stepped run"
    );
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
            // Not JSON to serde_json either: answered by the one top-level
            // id the line names, read leniently, else `null`.
            assert_response(r, None);
            let id = crate::engine::line_id(bytes, &[]);
            assert_eq!(r["id"], id.as_ref().map_or(Value::Null, Id::to_value));
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
