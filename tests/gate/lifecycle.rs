//! The session's end: whatever the server does, a client that closes its
//! input (calls in flight or not) ends the session within a bounded time,
//! the server's whole process group is stopped, and the gateway exits.
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitStatus};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::{server, spawn_piped};

#[allow(dead_code)] // the PDF-worker helpers are for other suites
#[path = "../proc_support/mod.rs"]
mod proc_support;

/// Far beyond the gateway's own bound (`3 × GRACE + 2 × TERM_GRACE`): only
/// a gateway that never ends fails.
const EVENTUALLY: Duration = Duration::from_secs(60);

/// The gateway in front of `tests/servers/stubborn.py`, initialized.
struct Stubborn {
    gate: Child,
    stdin: Option<ChildStdin>,
    out: BufReader<ChildStdout>,
    pids: PathBuf,
    _dir: tempfile::TempDir,
}

impl Stubborn {
    fn start() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let pids = dir.path().join("pids");
        let mut gate = spawn_piped(
            Command::new(env!("CARGO_BIN_EXE_toolgate"))
                .args(["gate", "--", "python3", &server("stubborn.py")])
                .arg(&pids),
        );
        let mut stdin = gate.stdin.take();
        let mut out = BufReader::new(gate.stdout.take().unwrap());
        writeln!(stdin.as_mut().unwrap(), "{INITIALIZE}").unwrap();
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        let init: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(init["result"]["serverInfo"]["name"], "stubborn", "{init}");
        Self {
            gate,
            stdin,
            out,
            pids,
            _dir: dir,
        }
    }

    fn send(&mut self, message: &Value) {
        writeln!(self.stdin.as_mut().unwrap(), "{message}").unwrap();
    }

    /// Closes the client's input; the gateway's exit status and every
    /// line it wrote after `initialize`. Every process of the server's
    /// group must be gone by then.
    fn close(mut self) -> (ExitStatus, Vec<Value>) {
        drop(self.stdin.take());
        let status = exits(&mut self.gate);
        let rest = (&mut self.out)
            .lines()
            .map(|l| serde_json::from_str(&l.unwrap()).unwrap())
            .collect();
        let pids = std::fs::read_to_string(&self.pids).unwrap();
        for pid in pids.split_whitespace().map(|p| p.parse().unwrap()) {
            assert!(gone(pid), "process {pid} of the server's group lives on");
        }
        (status, rest)
    }
}

/// Waits for `child` to exit; kills it and fails after [`EVENTUALLY`].
fn exits(child: &mut Child) -> ExitStatus {
    let until = Instant::now() + EVENTUALLY;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if Instant::now() > until {
            let _ = child.kill();
            panic!("the gateway did not exit within {EVENTUALLY:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn gone(pid: u32) -> bool {
    let until = Instant::now() + EVENTUALLY;
    while proc_support::alive(pid) {
        if Instant::now() > until {
            return false;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    true
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;

/// A server that never answers, ignores SIGTERM and the end of its input,
/// and keeps a grandchild: the client's EOF with a call in flight still
/// ends the session; the call gets `tool.server_exited`, the server and
/// its grandchild are killed, and the gateway exits 0.
#[test]
fn client_eof_with_a_call_in_flight_stops_a_server_that_ignores_sigterm() {
    let mut g = Stubborn::start();
    g.send(&json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"wait","arguments":{}}}));
    let (status, rest) = g.close();
    assert_eq!(status.code(), Some(0));
    assert_eq!(rest.len(), 1, "{rest:?}");
    assert_eq!(rest[0]["id"], 1);
    assert_eq!(
        rest[0]["error"]["data"]["code"], "tool.server_exited",
        "{rest:?}"
    );
}

/// The same server when the client closes its input with nothing in
/// flight: the server still has to be stopped.
#[test]
fn client_eof_stops_a_server_that_ignores_its_input_ending() {
    let (status, rest) = Stubborn::start().close();
    assert_eq!(status.code(), Some(0));
    assert!(rest.is_empty(), "{rest:?}");
}
