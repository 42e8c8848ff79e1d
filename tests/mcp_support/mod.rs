//! Shared helpers for the `tests/mcp_*.rs` suites: run the built `toolgate
//! mcp` binary over pipes with raw input bytes.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};

use serde_json::{json, Value};

pub const BIN: &str = env!("CARGO_BIN_EXE_toolgate");

pub fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/pdf")
}

pub struct Outcome {
    pub responses: Vec<Value>,
    pub status: ExitStatus,
    pub stderr: String,
}

/// Runs `toolgate mcp --root ROOT EXTRA...` on `input`, stdin closed after it.
/// Every stdout line must be JSON (stdout carries protocol messages only).
pub fn run_with(root: &Path, extra: &[&str], input: Vec<u8>) -> Outcome {
    let mut child = Command::new(BIN)
        .arg("mcp")
        .arg("--root")
        .arg(root)
        .args(extra)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input_copy = input.clone();
    // Write from a thread: the server answers while we are still writing.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let mut stderr_pipe = child.stderr.take().unwrap();
    let err_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr_pipe.read_to_string(&mut s);
        s
    });
    let mut out = Vec::new();
    child.stdout.take().unwrap().read_to_end(&mut out).unwrap();
    writer.join().unwrap();
    let status = child.wait().unwrap();
    let stderr = err_reader.join().unwrap();
    let text = String::from_utf8(out).expect("stdout is UTF-8");
    let responses: Vec<Value> = text
        .lines()
        .map(|l| {
            serde_json::from_str(l).unwrap_or_else(|e| panic!("non-JSON stdout line {l:?}: {e}"))
        })
        .collect();
    let responses = in_request_order(&input_copy, responses);
    Outcome {
        responses,
        status,
        stderr,
    }
}

/// The ids a request line carries (a batch: its elements' ids).
fn line_ids(line: &[u8]) -> Vec<Value> {
    let id = |v: &Value| {
        v.get("method")
            .and(v.get("id"))
            .filter(|id| !id.is_null())
            .cloned()
    };
    match serde_json::from_slice::<Value>(line) {
        Ok(Value::Array(items)) => items.iter().filter_map(id).collect(),
        Ok(v) => id(&v).into_iter().collect(),
        Err(_) => Vec::new(),
    }
}

/// The server answers tool calls as they finish, so a `ping` sent behind a
/// call is answered first. The suites read answers by position: put each
/// answer at the request line it answers (the earliest unanswered line with
/// its id; a batch answer by its first id; an `id: null` answer stays
/// behind the answer before it).
pub fn in_request_order(input: &[u8], responses: Vec<Value>) -> Vec<Value> {
    let ids: Vec<Vec<Value>> = input.split(|&b| b == b'\n').map(line_ids).collect();
    let mut used = vec![false; ids.len()];
    let mut key = 0;
    let mut keyed: Vec<(usize, usize, Value)> = Vec::new();
    for (n, r) in responses.into_iter().enumerate() {
        let id = match &r {
            Value::Array(items) => items.first().map(|i| i["id"].clone()),
            v => v.get("id").cloned(),
        }
        .filter(|id| !id.is_null());
        if let Some(id) = id {
            if let Some(i) = (0..ids.len()).find(|&i| !used[i] && ids[i].contains(&id)) {
                used[i] = true;
                key = i;
            }
        }
        keyed.push((key, n, r));
    }
    keyed.sort_by_key(|(k, n, _)| (*k, *n));
    keyed.into_iter().map(|(_, _, r)| r).collect()
}

pub fn run(input: Vec<u8>) -> Vec<Value> {
    let o = run_with(&corpus(), &[], input);
    assert!(
        o.status.success(),
        "exit {:?}; stderr: {}",
        o.status,
        o.stderr
    );
    o.responses
}

/// Lines joined with `\n`, each ending in one.
pub fn lines(ls: &[&str]) -> Vec<u8> {
    let mut v = Vec::new();
    for l in ls {
        v.extend_from_slice(l.as_bytes());
        v.push(b'\n');
    }
    v
}

pub const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
pub const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

pub fn init_with(version: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"{version}","capabilities":{{}},"clientInfo":{{"name":"t","version":"1"}}}}}}"#
    )
}

pub fn ping(id: u64) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#)
}

pub fn call(id: u64, tool: &str, args: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": args}})
        .to_string()
}

/// A stateless (2026-07-28) request.
pub fn modern(id: u64, method: &str, version: &str, mut params: Value) -> String {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
}

pub fn pong(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": {}})
}

/// Asserts a core protocol error: code, `data.kind`, id.
pub fn assert_core_error(r: &Value, code: i64, kind: &str, id: Value) {
    assert_eq!(r["jsonrpc"], "2.0", "{r}");
    assert_eq!(r["id"], id, "{r}");
    assert_eq!(r["error"]["code"], code, "{r}");
    assert_eq!(r["error"]["data"]["kind"], kind, "{r}");
    assert!(r.get("result").is_none(), "{r}");
}

/// The stable kind of an `isError: true` tool result.
pub fn tool_error_kind(r: &Value) -> String {
    assert_eq!(r["result"]["isError"], true, "{r}");
    let text = r["result"]["content"][0]["text"].as_str().unwrap();
    let v: Value = serde_json::from_str(text).unwrap();
    v["error"]["kind"].as_str().unwrap().to_owned()
}
