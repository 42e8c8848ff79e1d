//! Under load the gateway is transparent: when the server is behind it
//! stops reading the client (backpressure), so whatever the server answers
//! directly it answers through the gateway; and it keeps message order.
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::process::Command;
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{json, Value};

use crate::{server, spawn_piped};

/// Requests written at once, far beyond every count bound of the gateway
/// (`gate::MAX_PENDING_REQUESTS`, the engine's queues).
const PIPELINED: usize = 20_000;

/// A bound on each wait, generous: only a lost answer fails it.
const EVENTUALLY: Duration = Duration::from_secs(120);

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;

/// `initialize`, then [`PIPELINED`] requests: `ping`, `tools/list` and
/// `tools/call` in turn.
fn pipelined_input() -> Vec<u8> {
    let mut input = format!("{INITIALIZE}\n").into_bytes();
    for i in 1..=PIPELINED {
        let request = match i % 3 {
            0 => json!({"jsonrpc": "2.0", "id": i, "method": "ping"}),
            1 => json!({"jsonrpc": "2.0", "id": i, "method": "tools/list"}),
            _ => json!({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                         "params": {"name": "echo", "arguments": {"i": i}}}),
        };
        input.extend(request.to_string().bytes());
        input.push(b'\n');
    }
    input
}

/// Writes `input` to `command` as fast as its stdin takes it (on a thread
/// of its own), reads `expected` answers, then closes its input. The
/// answers by id.
fn answers(mut command: Command, input: Vec<u8>, expected: usize) -> BTreeMap<String, Value> {
    let mut child = spawn_piped(&mut command);
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        stdin.write_all(&input).unwrap();
        stdin
    });
    let out = BufReader::new(child.stdout.take().unwrap());
    let (tx, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in out.lines() {
            if tx.send(line.unwrap()).is_err() {
                return;
            }
        }
    });
    let mut got = BTreeMap::new();
    while got.len() < expected {
        let line = lines.recv_timeout(EVENTUALLY).unwrap_or_else(|_| {
            panic!("{} answers of {expected}", got.len());
        });
        let answer: Value = serde_json::from_str(&line).unwrap();
        let id = answer["id"].to_string();
        assert!(got.insert(id, answer).is_none(), "two answers to one id");
    }
    drop(writer.join().unwrap());
    child.wait().unwrap();
    got
}

/// 20,000 requests written as fast as the pipe takes them: through the
/// gateway every one is answered, with the answer the server gives
/// directly (nothing refused for being fast, nothing lost).
#[test]
fn pipelined_requests_get_the_answers_the_server_gives_directly() {
    let input = pipelined_input();
    let mut direct = Command::new("python3");
    direct.arg(server("echo.py"));
    let direct = answers(direct, input.clone(), PIPELINED + 1);
    let mut gated = Command::new(env!("CARGO_BIN_EXE_toolgate"));
    gated.args(["gate", "--", "python3", &server("echo.py")]);
    let gated = answers(gated, input, PIPELINED + 1);
    assert_eq!(direct.len(), PIPELINED + 1);
    for (id, answer) in &direct {
        assert_eq!(gated.get(id), Some(answer), "the answer to {id}");
    }
}

/// `--resolve`: a request whose names are resolved before it is forwarded
/// still reaches the server before the messages sent after it. Run in a
/// namespace with loopback alone and its own `/etc/hosts` (the name
/// resolves from the file; no packet can leave).
#[test]
fn resolved_calls_keep_message_order() {
    let dir = tempfile::tempdir().unwrap();
    let hosts = dir.path().join("hosts");
    std::fs::write(&hosts, "93.184.216.34 origin.toolgate-test.net\n").unwrap();
    let record = dir.path().join("record.jsonl");
    let script = r#"mount --bind "$1" /etc/hosts && exec "$2" gate --resolve -- python3 "$3" "$4""#;
    let mut command = Command::new("unshare");
    command
        .args(["-rnm", "sh", "-c", script, "sh"])
        .arg(&hosts)
        .arg(env!("CARGO_BIN_EXE_toolgate"))
        .arg(server("recorder.py"))
        .arg(&record);
    let mut input = format!("{INITIALIZE}\n");
    for i in 1..=20 {
        let call = json!({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                          "params": {"name": "fetch", "arguments": {"url": format!("http://origin.toolgate-test.net/{i}")}}});
        let note = json!({"jsonrpc": "2.0", "method": "notifications/progress",
                          "params": {"progressToken": i, "progress": 1}});
        input.push_str(&format!("{call}\n{note}\n"));
    }
    let got = answers(command, input.into_bytes(), 21);
    for i in 1..=20 {
        let text = got[&i.to_string()]["result"]["content"][0]["text"].as_str();
        assert!(
            text.is_some_and(|t| t.starts_with("{\"arguments\"")),
            "the call {i} reached the server: {:?}",
            got[&i.to_string()]
        );
    }
    let seen: Vec<Value> = std::fs::read_to_string(&record)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let order: Vec<String> = seen
        .iter()
        .skip(1)
        .map(|m| match m["id"].as_u64() {
            Some(id) => format!("call {id}"),
            None => format!("note {}", m["params"]["progressToken"]),
        })
        .collect();
    let sent: Vec<String> = (1..=20)
        .flat_map(|i| [format!("call {i}"), format!("note {i}")])
        .collect();
    assert_eq!(order, sent);
}
