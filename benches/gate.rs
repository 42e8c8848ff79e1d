//! `toolgate gate` against the same server directly, each figure a ratio
//! of runs made in the same process, interleaved:
//!
//! * pipelined throughput: [`PIPELINED`] requests (`ping`, `tools/list`, a
//!   small `tools/call`) written as fast as the pipe takes them, until
//!   every answer is read; gateway / direct (goal: at least 0.9);
//! * one request at a time: [`SEQUENTIAL`] `ping`s, each sent after the
//!   previous answer; p50 and p99 of both, and the gateway's added p50
//!   against the direct p50 (goal: at most 0.5);
//! * the gateway's peak RSS over its pipelined runs.
//!
//! Servers: the official Rust SDK's stdio echo (`benches/rmcp_echo`, built
//! by `benches/gate.sh`; `RMCP_ECHO` names the binary) and `toolgate mcp`.
//! Run: `bash benches/gate.sh`. Numbers go to docs/gate.md.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Command, Stdio};
use std::time::Instant;

const BIN: &str = env!("CARGO_BIN_EXE_toolgate");
const INIT: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

/// Requests per pipelined run (the issue's figure).
const PIPELINED: usize = 20_000;
/// Round trips per one-at-a-time run.
const SEQUENTIAL: usize = 2_000;
/// Runs of each kind, direct and gateway interleaved.
const ROUNDS: usize = 3;

/// A server command: program and arguments.
type Cmd = Vec<String>;

fn spawn(cmd: &Cmd) -> Child {
    Command::new(&cmd[0])
        .args(&cmd[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

fn gated(server: &Cmd) -> Cmd {
    let mut cmd = vec![BIN.to_owned(), "gate".to_owned(), "--".to_owned()];
    cmd.extend(server.iter().cloned());
    cmd
}

/// Peak RSS of `pid` in MiB.
fn peak_mib(pid: u32) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let kib: f64 = status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .unwrap()
        .parse()
        .unwrap();
    kib / 1024.0
}

/// Requests per second for `n` copies of `request` (its `ID` replaced),
/// written back to back once the server answered `initialize`; the input
/// stays open until every answer is read. Also the command's peak RSS.
fn pipelined(cmd: &Cmd, request: &str, n: usize) -> (f64, f64) {
    let mut child = spawn(cmd);
    let mut stdin = child.stdin.take().unwrap();
    let mut reader = BufReader::new(child.stdout.take().unwrap());
    writeln!(stdin, "{INIT}").unwrap();
    stdin.flush().unwrap();
    let mut line = String::new();
    reader.read_line(&mut line).unwrap();
    let mut body = format!("{INITIALIZED}\n");
    for i in 1..=n {
        body.push_str(&request.replace("ID", &i.to_string()));
        body.push('\n');
    }
    let t = Instant::now();
    let writer = std::thread::spawn(move || {
        stdin.write_all(body.as_bytes()).unwrap();
        stdin
    });
    let answered = reader
        .by_ref()
        .lines()
        .take(n)
        .map_while(Result::ok)
        .count();
    let secs = t.elapsed().as_secs_f64();
    let peak = peak_mib(child.id());
    drop(writer.join().unwrap());
    let _ = child.wait();
    assert_eq!(answered, n, "{cmd:?}");
    (n as f64 / secs, peak)
}

/// Round-trip times of `n` pings, one at a time, in microseconds.
fn sequential(cmd: &Cmd, n: usize) -> Vec<f64> {
    let mut child = spawn(cmd);
    let mut stdin = child.stdin.take().unwrap();
    let mut reader = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    writeln!(stdin, "{INIT}\n{INITIALIZED}").unwrap();
    stdin.flush().unwrap();
    reader.read_line(&mut line).unwrap();
    let mut times = Vec::with_capacity(n);
    for i in 1..=n {
        let t = Instant::now();
        writeln!(stdin, r#"{{"jsonrpc":"2.0","id":{i},"method":"ping"}}"#).unwrap();
        stdin.flush().unwrap();
        line.clear();
        reader.read_line(&mut line).unwrap();
        times.push(t.elapsed().as_secs_f64() * 1e6);
    }
    drop(stdin);
    let _ = child.wait();
    times
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

fn percentile(xs: &[f64], p: f64) -> f64 {
    let mut xs = xs.to_vec();
    xs.sort_by(f64::total_cmp);
    xs[((xs.len() as f64 - 1.0) * p).round() as usize]
}

fn bench(name: &str, server: &Cmd, call: &str) {
    let gate = gated(server);
    let requests = [
        ("ping", r#"{"jsonrpc":"2.0","id":ID,"method":"ping"}"#),
        (
            "tools/list",
            r#"{"jsonrpc":"2.0","id":ID,"method":"tools/list"}"#,
        ),
        ("tools/call", call),
    ];
    let mut peak: f64 = 0.0;
    for (method, request) in requests {
        let (mut direct, mut through) = (Vec::new(), Vec::new());
        for _ in 0..ROUNDS {
            direct.push(pipelined(server, request, PIPELINED).0);
            let (rate, rss) = pipelined(&gate, request, PIPELINED);
            through.push(rate);
            peak = peak.max(rss);
        }
        let (d, g) = (median(direct), median(through));
        println!(
            "{name} pipelined {method}: direct {d:.0}/s, gateway {g:.0}/s, ratio {:.2}",
            g / d
        );
    }
    let (mut direct, mut through) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        direct.extend(sequential(server, SEQUENTIAL));
        through.extend(sequential(&gate, SEQUENTIAL));
    }
    let (d50, g50) = (percentile(&direct, 0.5), percentile(&through, 0.5));
    println!(
        "{name} one at a time ping: direct p50 {d50:.0} us p99 {:.0} us; gateway p50 {g50:.0} us p99 {:.0} us; added p50 / direct p50 {:.2}",
        percentile(&direct, 0.99),
        percentile(&through, 0.99),
        (g50 - d50) / d50
    );
    println!("{name} gateway peak RSS over the pipelined runs: {peak:.1} MiB");
}

fn main() {
    let rmcp = std::env::var("RMCP_ECHO").unwrap_or_else(|_| {
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/benches/rmcp_echo/target/release/rmcp_echo"
        )
        .to_owned()
    });
    if std::path::Path::new(&rmcp).exists() {
        let call = r#"{"jsonrpc":"2.0","id":ID,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}"#;
        bench("rmcp_echo", &vec![rmcp], call);
    } else {
        println!("rmcp_echo: {rmcp} not built (bash benches/gate.sh builds it); skipped");
    }
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/corpus/pdf").to_owned();
    let mcp = vec![BIN.to_owned(), "mcp".to_owned(), "--root".to_owned(), root];
    // A small call: a missing file is a tool failure, answered without a worker.
    let call = r#"{"jsonrpc":"2.0","id":ID,"method":"tools/call","params":{"name":"get_metadata","arguments":{"path":"missing.pdf"}}}"#;
    bench("toolgate mcp", &mcp, call);
}
