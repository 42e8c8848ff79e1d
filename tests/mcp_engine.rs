//! `toolgate mcp` on the session engine, tried as a client would over
//! pipes: concurrent calls, `ping` while calls run, cancellation killing the
//! call's worker, progress before the result, the era left open by a
//! probe, and `initialize` checked as the official SDKs check it. Also the
//! worker's limits coming from `Config` all the way down.
#![cfg(feature = "cli")]
mod mcp_support;

#[allow(dead_code)]
#[path = "pdf_hostile/gen.rs"]
mod gen;
#[allow(dead_code)]
mod proc_support;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use mcp_support::*;
use serde_json::{json, Value};

/// A server on a temporary root holding `busy.pdf`, driven line by line.
struct Live {
    child: Child,
    stdin: ChildStdin,
    lines: mpsc::Receiver<Value>,
    _dir: tempfile::TempDir,
}

impl Live {
    fn start(extra: &[&str]) -> Self {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("busy.pdf"), gen::text_pages(300, 2_000)).unwrap();
        std::fs::copy(
            corpus().join("pypdf-minimal-document.pdf"),
            dir.path().join("one.pdf"),
        )
        .unwrap();
        let mut child = Command::new(BIN)
            .arg("mcp")
            .arg("--root")
            .arg(dir.path())
            .args(extra)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in stdout.lines() {
                let Ok(line) = line else { return };
                let v: Value = serde_json::from_str(&line).expect("stdout carries JSON only");
                if tx.send(v).is_err() {
                    return;
                }
            }
        });
        Self {
            child,
            stdin,
            lines,
            _dir: dir,
        }
    }

    fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Every message until one satisfies `until` (included); a hang fails
    /// after a minute, never a measured speed.
    fn read_until(&self, until: impl Fn(&Value) -> bool) -> Vec<Value> {
        let mut got = Vec::new();
        loop {
            let v = self
                .lines
                .recv_timeout(Duration::from_secs(60))
                .unwrap_or_else(|_| panic!("no message satisfied the wait; got {got:?}"));
            let done = until(&v);
            got.push(v);
            if done {
                return got;
            }
        }
    }

    /// Closes stdin; returns every message still to come.
    fn finish(mut self) -> Vec<Value> {
        drop(self.stdin);
        let rest: Vec<Value> = self.lines.iter().collect();
        assert!(self.child.wait().unwrap().success());
        rest
    }

    fn initialize(&mut self) {
        self.send(INIT);
        self.send(INITIALIZED);
        self.read_until(|v| v["id"] == 1);
    }
}

fn extract_busy(id: u64, token: Option<&str>) -> String {
    let mut params = json!({"name": "extract", "arguments": {"path": "busy.pdf"}});
    if let Some(t) = token {
        params["_meta"] = json!({"progressToken": t});
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}).to_string()
}

fn is_id(v: &Value, id: u64) -> bool {
    v["id"] == id && (v.get("result").is_some() || v.get("error").is_some())
}

/// Live children of `parent` running `pdf-worker`.
fn live_workers_of(parent: u32) -> Vec<u32> {
    proc_support::workers_of(parent)
        .into_iter()
        .filter(|&w| proc_support::alive(w))
        .collect()
}

/// Polls `cond` for up to a minute (a hang is the failure).
fn eventually(what: &str, cond: impl Fn() -> bool) {
    let start = Instant::now();
    while !cond() {
        assert!(start.elapsed() < Duration::from_secs(60), "never: {what}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn ping_and_tools_list_are_answered_while_calls_run() {
    let mut s = Live::start(&["--max-concurrent-calls", "2"]);
    s.initialize();
    s.send(&extract_busy(2, None));
    s.send(&extract_busy(3, None));
    s.send(&ping(4));
    s.send(r#"{"jsonrpc":"2.0","id":5,"method":"tools/list"}"#);
    let got = s.read_until(|v| v["id"] == 5);
    let ids: Vec<Value> = got.iter().map(|v| v["id"].clone()).collect();
    assert_eq!(ids, [json!(4), json!(5)], "answered before the calls");
    let rest = s.finish();
    let mut ids: Vec<u64> = rest.iter().filter_map(|v| v["id"].as_u64()).collect();
    ids.sort_unstable();
    assert_eq!(ids, [2, 3]);
    // Answered (a loaded machine may stop a debug-build worker at its
    // wall-clock bound: a tool error, still an answer).
    for r in &rest {
        assert!(r["result"]["content"].is_array(), "{r}");
    }
}

#[test]
fn progress_reports_pages_and_never_follows_the_result() {
    let mut s = Live::start(&[]);
    s.initialize();
    s.send(&extract_busy(2, Some("tok")));
    let got = s.read_until(|v| is_id(v, 2));
    let (result, progress) = got.split_last().unwrap();
    assert!(result["result"]["content"].is_array(), "{result}");
    assert!(!progress.is_empty(), "no progress before the result");
    let mut last = 0;
    for p in progress {
        assert_eq!(p["method"], "notifications/progress", "{p}");
        assert_eq!(p["params"]["progressToken"], "tok");
        let done = p["params"]["progress"].as_u64().unwrap();
        assert!(done >= last, "progress went back: {p}");
        last = done;
        assert_eq!(p["params"]["total"], 300, "{p}");
    }
    // A call without a token gets none.
    s.send(&extract_busy(3, None));
    let got = s.read_until(|v| is_id(v, 3));
    assert_eq!(got.len(), 1, "{got:?}");
    assert!(s.finish().is_empty());
}

#[test]
fn cancellation_kills_the_worker_and_frees_the_slot() {
    let mut s = Live::start(&["--max-concurrent-calls", "1"]);
    s.initialize();
    let pid = s.child.id();
    // The worker started ahead of need.
    eventually("a spare worker", || live_workers_of(pid).len() == 1);
    let spare = live_workers_of(pid);
    s.send(&extract_busy(2, Some("p")));
    s.read_until(|v| v["method"] == "notifications/progress");
    // The spare took the call: it is the one to die.
    s.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"test"}}"#);
    eventually("the cancelled call's worker killed", || {
        spare.iter().all(|w| !live_workers_of(pid).contains(w))
    });
    // The slot is free: a call behind it runs; unknown and finished ids
    // are ignored.
    s.send(&call(3, "get_metadata", json!({"path": "one.pdf"})));
    s.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":77}}"#);
    let got = s.read_until(|v| is_id(v, 3));
    assert!(
        got.iter().all(|v| v["id"] != 2),
        "a cancelled call answered: {got:?}"
    );
    assert_eq!(got.last().unwrap()["result"]["isError"], false);
    s.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}"#);
    s.send(&ping(4));
    s.read_until(|v| v["id"] == 4);
    let rest = s.finish();
    assert!(
        rest.iter().all(|v| v["id"] != 2 && v["method"].is_null()),
        "{rest:?}"
    );
}

#[test]
fn a_probe_before_initialize_leaves_the_handshake_open() {
    let rs = run(lines(&[
        &modern(1, "server/discover", "2026-07-28", json!({})),
        &modern(2, "tools/list", "2099-01-01", json!({})),
        &init_with("2025-06-18").replace("\"id\":1", "\"id\":3"),
        INITIALIZED,
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/list"}"#,
    ]));
    assert_eq!(rs[0]["result"]["supportedVersions"], json!(["2026-07-28"]));
    assert_eq!(rs[1]["error"]["code"], -32022);
    assert_eq!(
        rs[2]["result"]["protocolVersion"], "2025-06-18",
        "{}",
        rs[2]
    );
    assert_eq!(rs[3]["result"]["tools"].as_array().unwrap().len(), 2);
    // A successful stateless request does fix the era.
    let rs = run(lines(&[
        &modern(1, "tools/list", "2026-07-28", json!({})),
        INIT,
    ]));
    assert_eq!(rs[0]["result"]["resultType"], "complete");
    assert_eq!(rs[1]["error"]["code"], -32022);
}

#[test]
fn initialize_needs_object_capabilities_and_client_info() {
    let init = |params: Value| {
        json!({"jsonrpc": "2.0", "id": 9, "method": "initialize", "params": params}).to_string()
    };
    let info = json!({"name": "t", "version": "1"});
    let bad = [
        (
            json!({"protocolVersion": "2025-11-25", "capabilities": [], "clientInfo": info}),
            "/params/capabilities must be an object",
        ),
        (
            json!({"protocolVersion": "2025-11-25", "clientInfo": info}),
            "/params/capabilities",
        ),
        (
            json!({"protocolVersion": "2025-11-25", "capabilities": {}}),
            "/params/clientInfo",
        ),
        (
            json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": "t"}),
            "/params/clientInfo must be an object",
        ),
    ];
    for (params, says) in bad {
        let rs = run(lines(&[&init(params.clone()), &ping(2)]));
        assert_eq!(rs[0]["id"], 9, "{params}");
        assert_eq!(rs[0]["error"]["code"], -32602, "{params}");
        let message = rs[0]["error"]["message"].as_str().unwrap();
        assert!(message.contains(says), "{message}");
        assert_eq!(rs[1]["result"], json!({}), "the session goes on");
    }
    // A refused initialize leaves the session fresh: a good one follows.
    let good = json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": info});
    let rs = run(lines(&[
        &init(json!({"protocolVersion": "2025-11-25", "capabilities": 1, "clientInfo": info})),
        &init(good),
    ]));
    assert_eq!(rs[1]["result"]["protocolVersion"], "2025-11-25");
}

/// The worker's limits come from `Config`: a non-default memory bound and
/// file bound reach the worker process.
#[test]
fn config_limits_reach_the_worker() {
    use toolgate::engine::transport::stdio;
    use toolgate::mcp::{Config, DefaultPdf, Server};

    let session = |config: Config, path: &str| {
        let backend = DefaultPdf::for_config(BIN, &config);
        let engine = config.engine();
        let server = Server::new(config, backend).unwrap();
        let input = lines(&[INIT, &call(2, "extract", json!({"path": path}))]);
        let (_, out) =
            stdio::serve(server, engine, std::io::Cursor::new(input), Vec::new()).unwrap();
        let text = String::from_utf8(out).unwrap();
        let last = text.lines().last().unwrap().to_owned();
        serde_json::from_str::<Value>(&last).unwrap()
    };
    // The spare worker started for this config runs under its limits.
    let memory = (512 << 20) + 4096;
    let limited = Config {
        root: Some(corpus()),
        worker_memory_bytes: memory,
        worker_timeout: Duration::from_secs(7),
        ..Config::default()
    };
    let backend = DefaultPdf::for_config(BIN, &limited);
    let me = std::process::id();
    let limits_of =
        |pid: u32| std::fs::read_to_string(format!("/proc/{pid}/limits")).unwrap_or_default();
    let has = |text: &str, name: &str, value: u64| {
        text.lines().any(|l| {
            l.starts_with(name)
                && l.split_whitespace()
                    .filter(|w| *w == value.to_string())
                    .count()
                    >= 1
        })
    };
    eventually("a worker under the configured limits", || {
        live_workers_of(me).into_iter().any(|w| {
            let l = limits_of(w);
            has(&l, "Max address space", memory) && has(&l, "Max cpu time", 7 + 2)
        })
    });
    drop(backend);
    let r = session(limited, "pypdf-minimal-document.pdf");
    assert_eq!(r["result"]["isError"], false, "{r}");

    // A file over the extractor's default input bound (64 MiB) is read
    // whole when the server's bound is raised.
    let dir = tempfile::tempdir().unwrap();
    let big = toolgate::pdf::limits::MAX_INPUT_BYTES + (1 << 20);
    let mut pdf = std::fs::read(corpus().join("pypdf-minimal-document.pdf")).unwrap();
    let mut padded = b"%PDF-1.4\n".to_vec();
    padded.resize(big - pdf.len(), b' ');
    padded.pop();
    padded.push(b'\n');
    // The real document after the padding: its xref offsets are relative
    // to its own start, so the extractor recovers by scanning; what
    // matters here is that the bytes reach it at all.
    padded.append(&mut pdf);
    std::fs::write(dir.path().join("big.pdf"), &padded).unwrap();
    let default = Config {
        root: Some(dir.path().to_path_buf()),
        ..Config::default()
    };
    let r = session(default, "big.pdf");
    assert_eq!(
        tool_error_kind(&r),
        "too_large",
        "the default bound refuses it"
    );
    let raised = Config {
        root: Some(dir.path().to_path_buf()),
        max_pdf_bytes: 80 << 20,
        // A debug-build worker on a loaded machine: room to read 65 MiB.
        worker_timeout: Duration::from_secs(120),
        ..Config::default()
    };
    let r = session(raised, "big.pdf");
    let text = r.to_string();
    assert!(
        !text.contains("too_large") && !text.contains("limit_exceeded"),
        "{r}"
    );
    assert_ne!(
        tool_error_kind_or_none(&r).as_deref(),
        Some("worker_failed"),
        "{r}"
    );
}

fn tool_error_kind_or_none(r: &Value) -> Option<String> {
    (r["result"]["isError"] == true).then(|| tool_error_kind(r))
}

/// A worker past its deadline is killed by the call that waits for it on
/// the engine's runtime (and reaped before the call answers): the call
/// ends with `limit_exceeded` (the worker time), and the session goes on.
#[test]
fn a_worker_past_its_deadline_is_killed_and_the_call_says_so() {
    use toolgate::engine::transport::stdio;
    use toolgate::mcp::{Config, DefaultPdf, Server};

    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("busy.pdf"), gen::text_pages(300, 2_000)).unwrap();
    let config = Config {
        root: Some(dir.path().to_path_buf()),
        // The busy file takes far longer than this, in any build.
        worker_timeout: Duration::from_millis(20),
        ..Config::default()
    };
    let backend = DefaultPdf::for_config(BIN, &config);
    let engine = config.engine();
    let server = Server::new(config, backend).unwrap();
    let input = lines(&[INIT, &extract_busy(2, None), &ping(3)]);
    let (_, out) = stdio::serve(server, engine, std::io::Cursor::new(input), Vec::new()).unwrap();
    let answers: Vec<Value> = String::from_utf8(out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let call = answers
        .iter()
        .find(|v| is_id(v, 2))
        .expect("the call is answered");
    assert_eq!(tool_error_kind(call), "limit_exceeded", "{call}");
    assert!(call.to_string().contains("worker_time"), "{call}");
    assert!(answers.iter().any(|v| is_id(v, 3)), "{answers:?}");
}
