//! Harness for `toolgate::gate`: a whole session through the gateway,
//! both directions, in process (the child is a script of lines).
use std::io::Read;
use std::sync::{Arc, Mutex};

use serde_json::Value;
use tokio::sync::mpsc;

use crate::engine::transport::{Frame, LineReader, Outgoing, Transport};
use crate::engine::wire::{self, Parsed};
use crate::engine::{ByteBudget, Engine, EngineConfig, Id};
use crate::gate::{DenyAs, GateConfig, GateService, Gatekeeper, PinMode, PoisonMode, Policy};
use crate::json::Limits;
use crate::rpc::Message;

/// Small bounds, so the fuzzer reaches the oversized lines and full queues:
/// a client line over `LINE_BYTES`, a server line over `RESPONSE_BYTES`
/// (a script line over `LINE_BYTES` is the client's, whatever it starts
/// with).
const LINE_BYTES: usize = 4096;
const RESPONSE_BYTES: usize = 1024;
const TO_SERVER_BYTES: usize = 2 * LINE_BYTES + 2;

/// Tools whose calls the policy refuses (`[tools] deny`).
const DENIED: &str = "forbidden";

fn config() -> GateConfig {
    let policy = Policy::parse(&format!("[tools]\ndeny = [\"{DENIED}*\"]\n")).unwrap();
    GateConfig {
        keeper: Gatekeeper {
            policy,
            roots: None,
            poison: PoisonMode::default(),
        },
        deny_as: DenyAs::default(),
        call_timeout: None,
        cancel_hold: crate::gate::CANCELLED_CALL_DEADLINE,
        max_response_bytes: RESPONSE_BYTES,
        pin: PinMode::Off,
        pins: None,
        audit: None,
        audit_all: false,
    }
}

/// One step of a session: a line from the client, or from the server.
enum Step {
    Client(Frame),
    Server(Vec<u8>),
}

/// `data` as lines: a line starting with `<` is the server's (the rest of
/// it), any other line the client's.
fn script(data: &[u8]) -> Vec<Step> {
    let mut steps = Vec::new();
    let mut lines = LineReader::new(data, LINE_BYTES);
    loop {
        match lines.next_frame().unwrap() {
            Frame::Eof => return steps,
            Frame::Line(l) if l.first() == Some(&b'<') => {
                steps.push(Step::Server(l.get(1..).unwrap_or_default().to_vec()));
            }
            frame => steps.push(Step::Client(frame)),
        }
    }
}

/// The server's side of a script as a child's stdout: its lines, each
/// with its `\n`, in the order the session sends them. `done` counts the
/// lines the gateway has handled: its reader asks for more bytes only
/// once it has handled every line it was given.
struct ServerOutput {
    lines: std::sync::mpsc::Receiver<Vec<u8>>,
    line: std::io::Cursor<Vec<u8>>,
    given: usize,
    done: tokio::sync::watch::Sender<usize>,
}

impl Read for ServerOutput {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.line.position() >= self.line.get_ref().len() as u64 {
            self.done.send_replace(self.given);
            let Ok(mut line) = self.lines.recv() else {
                return Ok(0);
            };
            line.push(b'\n');
            self.line = std::io::Cursor::new(line);
            self.given += 1;
        }
        self.line.read(buf)
    }
}

/// The script's answer to one of the gateway's own listings
/// (`gate::GATE_ID_PREFIX`): an empty page of the kind `line` asks for.
fn own_listing_answer(line: &[u8]) -> Option<Vec<u8>> {
    let v: Value = serde_json::from_slice(line).ok()?;
    let id = v.get("id")?.as_str()?;
    if !id.starts_with(crate::gate::GATE_ID_PREFIX) {
        return None;
    }
    let member = match v.get("method")?.as_str()? {
        "tools/list" => "tools",
        "prompts/list" => "prompts",
        "resources/list" => "resources",
        "resources/templates/list" => "resourceTemplates",
        _ => return None,
    };
    let answer = serde_json::json!({"jsonrpc": "2.0", "id": id, "result": {member: []}});
    Some(answer.to_string().into_bytes())
}

/// Asserts that no budget counts more than it holds.
fn within(budgets: &[&ByteBudget]) {
    for b in budgets {
        assert!(b.used() <= b.bytes(), "{} of {} bytes", b.used(), b.bytes());
    }
}

/// Fuzz target `gate_session`: `data` is a session, client lines and
/// server lines (`<` first) interleaved, run through the gateway and its
/// engine in process; the server's lines reach the gateway through the
/// same path as a child's stdout (a reading thread, the byte budget).
///
/// Invariants: no panic; every client request gets exactly one answer
/// (at most one when the client cancelled it); a call the policy refuses
/// (`[tools] deny`) never reaches the server, and every line that does is
/// one JSON text; no queue's byte count ever exceeds its budget (toward
/// the server, from the server, the engine's finished answers, toward the
/// client).
pub fn gate_session(data: &[u8]) {
    let t = session(data);
    check(&t.client, &t.written, &t.seen);
}

/// What one session showed: the client's lines, the lines written to the
/// client, the lines that reached the server.
struct Transcript {
    client: Vec<Vec<u8>>,
    written: Vec<Vec<u8>>,
    seen: Vec<Vec<u8>>,
}

fn session(data: &[u8]) -> Transcript {
    let steps = script(data);
    let to_server = ByteBudget::new(TO_SERVER_BYTES);
    let (to_child, mut child_in) = mpsc::unbounded_channel();
    let service = GateService::new(config(), to_child, to_server.clone(), LINE_BYTES);
    let from_server = service.from_server().clone();
    let engine = Engine::new(
        service.clone(),
        EngineConfig {
            max_line_bytes: LINE_BYTES,
            max_response_bytes: RESPONSE_BYTES,
            ..EngineConfig::default()
        },
    );
    let (to_client, finished) = engine.budgets();
    let budgets = [&to_server, &from_server, &to_client, &finished];
    // The server's lines reach the gateway as a child's stdout does, read
    // by the gateway's own reader (`gate::read_child`).
    let (server_tx, lines) = std::sync::mpsc::channel::<Vec<u8>>();
    let (done, mut handled) = tokio::sync::watch::channel(0_usize);
    let stdout = ServerOutput {
        lines,
        line: std::io::Cursor::new(Vec::new()),
        given: 0,
        done,
    };
    let reader = service.clone();
    let child =
        std::thread::spawn(move || crate::gate::read_child(&reader, stdout, RESPONSE_BYTES));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let seen = Arc::new(Mutex::new(Vec::<Vec<u8>>::new()));
    let written = Arc::new(Mutex::new(Vec::<Vec<u8>>::new()));
    let mut client = Vec::new();
    runtime.block_on(async {
        let (frame_tx, frames) = mpsc::channel(4);
        let (outgoing, mut out_rx) = mpsc::channel(64);
        let run = engine.run(Transport { frames, outgoing });
        let server_seen = Arc::clone(&seen);
        // The script's server answers the gateway's own listings at once,
        // with an empty list (the script's lines answer the client's). Its
        // answer comes through the reading thread, racing the script's next
        // lines: a seed whose outcome a test asserts lists its tools first.
        let own_answers = server_tx.clone();
        let to_child = tokio::spawn(async move {
            while let Some((line, _charge)) = child_in.recv().await {
                if let Some(answer) = own_listing_answer(&line) {
                    let _ = own_answers.send(answer);
                }
                server_seen.lock().unwrap().push(line);
            }
        });
        let client_saw = Arc::clone(&written);
        let to_client = tokio::spawn(async move {
            while let Some(m) = out_rx.recv().await {
                match m {
                    Outgoing::Message { line, .. } => client_saw.lock().unwrap().push(line),
                    Outgoing::End => return,
                }
            }
        });
        let drive = async {
            let mut server_lines = 0_usize;
            for step in steps {
                match step {
                    Step::Client(frame) => {
                        if let Frame::Line(l) = &frame {
                            client.push(l.clone());
                        }
                        frame_tx.send(frame).await.unwrap();
                    }
                    Step::Server(line) => {
                        server_tx.send(line).unwrap();
                        server_lines += 1;
                        // The gateway has handled it before the next step.
                        let _ = handled.wait_for(|n| *n >= server_lines).await;
                    }
                }
                for _ in 0..4 {
                    tokio::task::yield_now().await;
                    within(&budgets);
                }
                // Answers are screened away from the session: each is
                // shaped and queued before the next step.
                service.until_screened().await;
                for _ in 0..4 {
                    tokio::task::yield_now().await;
                    within(&budgets);
                }
            }
            // The client ends, then the server: whatever waits is answered.
            frame_tx.send(Frame::Eof).await.unwrap();
            drop(server_tx);
        };
        tokio::join!(run, drive);
        to_client.await.unwrap();
        service.child_gone();
        to_child.await.unwrap();
    });
    child.join().unwrap();
    within(&budgets);
    let written = std::mem::take(&mut *written.lock().unwrap());
    let seen = std::mem::take(&mut *seen.lock().unwrap());
    Transcript {
        client,
        written,
        seen,
    }
}

fn check(client: &[Vec<u8>], written: &[Vec<u8>], seen: &[Vec<u8>]) {
    let limits = Limits {
        max_payload_bytes: LINE_BYTES,
        ..Limits::default()
    };
    // Requests by id, and the ids the client cancelled.
    let mut requests: Vec<(Id, usize)> = Vec::new();
    let mut cancelled: Vec<Value> = Vec::new();
    // Invalid messages whose id can still be read: each may get one error
    // answer carrying that id (JSON-RPC 2.0 §5: the id when it can be
    // detected).
    let mut invalid_ids: Vec<Value> = Vec::new();
    for line in client {
        match wire::classify_line(line, &limits) {
            Parsed::Single(Message::Request(r)) => {
                match requests.iter_mut().find(|(i, _)| *i == r.id) {
                    Some((_, n)) => *n += 1,
                    None => requests.push((r.id, 1)),
                }
            }
            Parsed::Single(Message::Notification(n)) if n.method == "notifications/cancelled" => {
                if let Some(id) = n.params.as_ref().and_then(|p| p.get("requestId")) {
                    cancelled.push(id.clone());
                }
            }
            Parsed::Single(Message::Notification(_)) => {}
            _ => {
                // Not JSON to serde_json either: the engine answers by the
                // one top-level id the line names (`engine::line_id`).
                let id = match serde_json::from_slice::<Value>(line) {
                    Ok(v) => v.get("id").cloned(),
                    Err(_) => crate::engine::line_id(line, &[]).map(|i| i.to_value()),
                };
                if let Some(id) = id {
                    invalid_ids.push(id);
                }
            }
        }
    }
    let written: Vec<Value> = written
        .iter()
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect();
    for v in &written {
        // One shape per message: a request or notification carries no
        // result or error (the client would take it for an answer).
        assert!(
            v.get("method").is_none() || (v.get("result").is_none() && v.get("error").is_none()),
            "a message both asks and answers: {v}"
        );
    }
    let answers: Vec<&Value> = written
        .iter()
        .filter(|v| v.get("result").is_some() || v.get("error").is_some())
        .collect();
    for (id, sent) in &requests {
        let got = answers.iter().filter(|a| a["id"] == id.to_value()).count();
        let extra = invalid_ids.iter().filter(|i| **i == id.to_value()).count();
        if cancelled.contains(&id.to_value()) {
            assert!(got <= sent + extra, "{got} answers to {sent} requests {id}");
        } else {
            assert!(
                got >= *sent && got <= sent + extra,
                "{got} answers to {sent} requests with id {id} ({extra} invalid messages with it)"
            );
        }
    }
    for line in seen {
        let v: Value = serde_json::from_slice(line).expect("the server gets JSON texts");
        assert!(!line.contains(&b'\n'));
        let name = v["params"]["name"].as_str().unwrap_or_default();
        assert!(
            !(v["method"] == "tools/call" && name.starts_with(DENIED)),
            "a refused call reached the server: {v}"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The messages the client and the server got when the seed
    /// `corpus/gate_session/NAME` ran, the harness's invariants checked.
    struct Replay {
        written: Vec<Value>,
        seen: Vec<Value>,
    }

    fn replay(name: &str) -> Replay {
        let path = format!("{}/corpus/gate_session/{name}", env!("CARGO_MANIFEST_DIR"));
        let t = session(&std::fs::read(path).unwrap());
        check(&t.client, &t.written, &t.seen);
        let parse = |lines: &[Vec<u8>]| -> Vec<Value> {
            lines
                .iter()
                .map(|l| serde_json::from_slice(l).unwrap())
                .collect()
        };
        Replay {
            written: parse(&t.written),
            seen: parse(&t.seen),
        }
    }

    /// The harness is wired: the seed's allowed call reaches the server
    /// and comes back with the server's answer, the refused one is answered
    /// by the gateway alone.
    #[test]
    fn a_seed_reaches_the_server_and_back() {
        let Replay { written, seen } = replay("handshake-list-call.jsonl");
        let ids: Vec<Value> = seen.iter().filter_map(|v| v.get("id").cloned()).collect();
        assert_eq!(ids, [0, 1, 2, 4].map(Value::from), "{seen:?}");
        let answer = |id: u64| {
            written
                .iter()
                .find(|v| v["id"] == id)
                .unwrap_or_else(|| panic!("no answer to {id}: {written:?}"))
        };
        assert_eq!(answer(2)["result"]["content"][0]["text"], "hi");
        assert_eq!(answer(3)["result"]["isError"], true);
        assert_eq!(answer(4)["result"], serde_json::json!({}));
        assert_eq!(written.len(), 5, "{written:?}");
    }

    /// A server line with a method and a result (or error) under the id
    /// of a pending call is no request for the client: the call is
    /// answered `tool.bad_response`, nothing asks and answers at once.
    #[test]
    fn a_server_message_that_asks_and_answers_answers_nothing() {
        let Replay { written, .. } = replay("request-and-response.jsonl");
        let answers: Vec<&Value> = written.iter().filter(|v| v["id"] == 2).collect();
        assert_eq!(answers.len(), 1, "{written:?}");
        assert_eq!(answers[0]["error"]["data"]["code"], "tool.bad_response");
        assert!(
            written.iter().all(|v| v.get("method").is_none()),
            "{written:?}"
        );
    }

    /// Server lines over the response bound go through the gateway's own
    /// reader of a child's output: the pending call they answer is
    /// answered by the gateway, each request the server makes is answered
    /// to the server with the core's `too_large` (its `method` read from
    /// the kept start or the kept end), the notification is dropped.
    #[test]
    fn oversized_server_lines_are_answered_both_ways() {
        let Replay { written, seen } = replay("oversized-server-lines.jsonl");
        let to_client =
            |id: Value| -> Vec<&Value> { written.iter().filter(|v| v["id"] == id).collect() };
        let call = to_client(json!(2));
        assert_eq!(call.len(), 1, "{written:?}");
        assert_eq!(
            call[0]["error"]["data"]["code"], "tool.bad_response",
            "{call:?}"
        );
        assert_eq!(to_client(json!(4))[0]["result"], json!({}), "{written:?}");
        assert!(
            written.iter().all(|v| v.get("method").is_none()),
            "a server message over the bound reached the client: {written:?}"
        );
        for id in ["s1", "s2"] {
            let answers: Vec<&Value> = seen.iter().filter(|v| v["id"] == id).collect();
            assert_eq!(answers.len(), 1, "{id}: {seen:?}");
            assert_eq!(answers[0]["error"]["code"], -32700, "{id}: {seen:?}");
            assert_eq!(
                answers[0]["error"]["data"]["limit"], RESPONSE_BYTES,
                "{seen:?}"
            );
        }
    }

    /// A client line that is not strict JSON is answered by the one
    /// top-level id it names (`engine::line_id`), once, and never reaches
    /// the server; a line naming two ids gets `null` (found by the fuzz
    /// target once the engine recovered those ids: the harness counted
    /// only ids serde_json could read).
    #[test]
    fn a_line_that_is_not_json_is_answered_by_its_id() {
        let Replay { written, seen } = replay("not-json-with-an-id.jsonl");
        let by = |id: Value| written.iter().filter(|v| v["id"] == id).count();
        assert_eq!(by(json!("c")), 2, "{written:?}");
        assert_eq!(by(json!(7)), 1, "{written:?}");
        assert_eq!((by(json!(8)), by(json!(9))), (0, 0), "{written:?}");
        let parse_errors = written
            .iter()
            .filter(|v| v["error"]["code"] == -32700)
            .count();
        assert_eq!(parse_errors, 3, "{written:?}");
        let seen: String = seen.iter().map(Value::to_string).collect();
        assert!(
            !seen.contains("\"id\":7") && !seen.contains("ping"),
            "{seen}"
        );
    }
}
