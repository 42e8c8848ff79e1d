//! `toolgate mcp` on the session engine, measured as the issue asks, each
//! figure a ratio of two runs made in the same process, interleaved:
//!
//! * `latency`: one `extract` of a one-page PDF on an otherwise idle
//!   server (median of 20 calls, each sent after the previous answer and a
//!   short pause, so the worker started ahead of need is ready) against the
//!   same extraction in process. Goal: at most 2x.
//! * `concurrency`: 8 extractions of a 300-page PDF sent at once against
//!   the same 8 one after another (each worker extracts with one thread).
//!   Goal: at least 1.7x faster on a 2-core machine. Printed beside it, as
//!   the machine's own ceiling for that work: the same 8 extractions in
//!   process on as many threads as the server runs calls at once, against
//!   one thread (median of the same rounds, interleaved).
//! * `ping_p99`: `ping` round trips while two long extractions run. Goal:
//!   p99 at most 5 ms.
//! * `pipelined_tools_list`: N `tools/list` written back to back, against
//!   the same lines to a stdio echo server on the official Rust SDK
//!   (`benches/rmcp_echo`, built by `benches/mcp_engine.sh`; skipped when
//!   absent). Goal: at least 3x its throughput.
//!
//! Run: `bash benches/mcp_engine.sh` (or `cargo bench --bench mcp_engine`;
//! `cargo bench --bench mcp_engine -- latency` runs the figures named;
//! `TOOLGATE_BIN=path` measures another build of the server).
//! Prints one line per figure; numbers go to docs/mcp.md.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

#[allow(dead_code)]
#[path = "../tests/pdf_hostile/gen.rs"]
mod gen;

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use toolgate::pdf;

const BIN: &str = env!("CARGO_BIN_EXE_toolgate");

/// The server measured: `TOOLGATE_BIN` when set (another build of
/// `toolgate`, to compare two builds with one bench), else this build's.
fn bin() -> String {
    std::env::var("TOOLGATE_BIN").unwrap_or_else(|_| BIN.to_owned())
}
const INIT: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

/// `cmd args` with piped stdin and stdout, stderr dropped.
fn spawn(cmd: &str, args: &[&str]) -> Child {
    Command::new(cmd)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

struct Server {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Server {
    fn start(cmd: &str, args: &[&str]) -> Self {
        let mut child = spawn(cmd, args);
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let mut s = Self {
            child,
            stdin,
            stdout,
        };
        s.send(INIT);
        s.read_id(&json!(0));
        s.send(INITIALIZED);
        s
    }

    fn toolgate(root: &Path, extra: &[&str]) -> Self {
        let mut args = vec!["mcp", "--root", root.to_str().unwrap()];
        args.extend_from_slice(extra);
        Self::start(&bin(), &args)
    }

    /// One write per message, as a client's transport sends it (a
    /// `writeln!` on the unbuffered pipe is two writes, and may wake the
    /// server's reader twice).
    fn send(&mut self, line: &str) {
        let mut message = Vec::with_capacity(line.len() + 1);
        message.extend_from_slice(line.as_bytes());
        message.push(b'\n');
        self.stdin.write_all(&message).unwrap();
        self.stdin.flush().unwrap();
    }

    fn read(&mut self) -> Value {
        let mut line = String::new();
        self.stdout.read_line(&mut line).unwrap();
        serde_json::from_str(&line).unwrap()
    }

    /// Reads until the response with `id`; returns it.
    fn read_id(&mut self, id: &Value) -> Value {
        loop {
            let v = self.read();
            if &v["id"] == id {
                return v;
            }
        }
    }

    fn stop(mut self) {
        drop(self.stdin);
        let _ = self.child.wait();
    }
}

fn extract(id: u64, path: &str) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "extract", "arguments": {"path": path}}}).to_string()
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

fn percentile(mut xs: Vec<f64>, p: f64) -> f64 {
    xs.sort_by(f64::total_cmp);
    let i = ((xs.len() as f64 - 1.0) * p).round() as usize;
    xs[i]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn latency(root: &Path) {
    let one = root.join("one.pdf");
    let mut server = Server::toolgate(root, &[]);
    let (mut through, mut direct) = (Vec::new(), Vec::new());
    for i in 1..=20u64 {
        std::thread::sleep(Duration::from_millis(100));
        let t = Instant::now();
        server.send(&extract(i, "one.pdf"));
        let r = server.read_id(&json!(i));
        through.push(ms(t.elapsed()));
        assert_eq!(r["result"]["isError"], false, "{r}");
        let t = Instant::now();
        pdf::extract_in_process(pdf::Source::Path(&one), None, &pdf::Options::default()).unwrap();
        direct.push(ms(t.elapsed()));
    }
    server.stop();
    let (a, b) = (median(through), median(direct));
    println!(
        "latency: one-page extract through the server {a:.3} ms (median of 20) vs in process {b:.3} ms: {:.2}x (goal <= 2x)",
        a / b
    );
}

/// Rounds of the concurrency figure (each: 8 at once, then 8 in a row,
/// then the same in process).
const CONCURRENCY_ROUNDS: usize = 5;

/// `calls` extractions of `pdf` in process, spread over `threads` threads.
fn in_process(pdf: &Path, calls: usize, threads: usize) -> f64 {
    let t = Instant::now();
    std::thread::scope(|s| {
        for k in 0..threads {
            let mine = calls / threads + usize::from(k < calls % threads);
            s.spawn(move || {
                for _ in 0..mine {
                    pdf::extract_in_process(pdf::Source::Path(pdf), None, &pdf::Options::default())
                        .unwrap();
                }
            });
        }
    });
    t.elapsed().as_secs_f64()
}

fn concurrency(root: &Path) {
    let mut server = Server::toolgate(root, &[]);
    let (mut at_once, mut in_row) = (Vec::new(), Vec::new());
    let (mut spread, mut one_thread) = (Vec::new(), Vec::new());
    let cores = toolgate::engine::default_concurrency();
    let pdf = root.join("pages300.pdf");
    let mut id = 0u64;
    for _ in 0..CONCURRENCY_ROUNDS {
        let t = Instant::now();
        let ids: Vec<u64> = (0..8)
            .map(|_| {
                id += 1;
                server.send(&extract(id, "pages300.pdf"));
                id
            })
            .collect();
        let mut left = ids.len();
        while left > 0 {
            let v = server.read();
            if v["id"].as_u64().is_some_and(|n| ids.contains(&n)) {
                assert_eq!(v["result"]["isError"], false, "{v}");
                left -= 1;
            }
        }
        at_once.push(t.elapsed().as_secs_f64());
        let t = Instant::now();
        for _ in 0..8 {
            id += 1;
            server.send(&extract(id, "pages300.pdf"));
            server.read_id(&json!(id));
        }
        in_row.push(t.elapsed().as_secs_f64());
        spread.push(in_process(&pdf, 8, cores));
        one_thread.push(in_process(&pdf, 8, 1));
    }
    server.stop();
    let (a, b) = (median(at_once), median(in_row));
    let (c, d) = (median(spread), median(one_thread));
    println!(
        "concurrency: 8 extractions of a 300-page PDF at once {:.0} ms vs one after another {:.0} ms: {:.2}x faster (goal >= 1.7x, {cores} cores; the same 8 in process on {cores} threads vs one: {:.0} vs {:.0} ms, {:.2}x)",
        a * 1e3,
        b * 1e3,
        b / a,
        c * 1e3,
        d * 1e3,
        d / c,
    );
}

fn ping_p99(root: &Path) {
    let mut server = Server::toolgate(root, &[]);
    let mut rtts = Vec::new();
    let mut id = 1_000_000u64;
    for round in 0..4u64 {
        let calls = [round * 2 + 1, round * 2 + 2];
        for c in calls {
            server.send(&extract(c, "busy.pdf"));
        }
        let mut open = 2;
        while open > 0 {
            id += 1;
            let t = Instant::now();
            server.send(&json!({"jsonrpc": "2.0", "id": id, "method": "ping"}).to_string());
            loop {
                let v = server.read();
                if v["id"] == id {
                    break;
                }
                if v["id"].as_u64().is_some_and(|n| calls.contains(&n)) {
                    open -= 1;
                }
            }
            if open == 2 {
                rtts.push(ms(t.elapsed()));
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }
    server.stop();
    let n = rtts.len();
    println!(
        "ping_p99: {:.3} ms p99 ({:.3} ms p50, {n} pings) while two long extractions run (goal <= 5 ms)",
        percentile(rtts.clone(), 0.99),
        percentile(rtts, 0.5)
    );
}

/// Throughput of `n` pipelined `tools/list` through `cmd args`.
fn pipelined(cmd: &str, args: &[&str], n: usize) -> f64 {
    let mut input = format!("{INIT}\n{INITIALIZED}\n");
    for i in 1..=n {
        input.push_str(&format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":{i},\"method\":\"tools/list\"}}\n"
        ));
    }
    let mut child = spawn(cmd, args);
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = child.stdout.take().unwrap();
    // Wait for the server to be up (its answer to initialize) before the clock starts.
    writeln!(stdin, "{INIT}").unwrap();
    stdin.flush().unwrap();
    let mut first = [0u8; 1];
    stdout.read_exact(&mut first).unwrap();
    let mut reader = BufReader::new(stdout);
    let mut line = String::new();
    reader.read_line(&mut line).unwrap();
    let body = input.split_once('\n').unwrap().1.to_owned();
    let t = Instant::now();
    let writer = std::thread::spawn(move || {
        stdin.write_all(body.as_bytes()).unwrap();
        drop(stdin);
    });
    let mut answered = 0;
    while answered < n {
        line.clear();
        if reader.read_line(&mut line).unwrap() == 0 {
            break;
        }
        answered += 1;
    }
    let secs = t.elapsed().as_secs_f64();
    writer.join().unwrap();
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(answered, n);
    n as f64 / secs
}

fn versus_rmcp(root: &Path) {
    let echo =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/rmcp_echo/target/release/rmcp_echo");
    if !echo.exists() {
        println!(
            "pipelined_tools_list: skipped ({} not built: run benches/mcp_engine.sh)",
            echo.display()
        );
        return;
    }
    let n = 5000;
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    for _ in 0..5 {
        ours.push(pipelined(
            &bin(),
            &["mcp", "--root", root.to_str().unwrap()],
            n,
        ));
        theirs.push(pipelined(echo.to_str().unwrap(), &[], n));
    }
    let (a, b) = (median(ours), median(theirs));
    println!(
        "pipelined_tools_list: {a:.0}/s through toolgate mcp vs {b:.0}/s through the rmcp 3.11.0 echo server: {:.2}x (goal >= 3x)",
        a / b
    );
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        println!("mcp_engine: bench");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root: PathBuf = dir.path().to_path_buf();
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/pdf");
    std::fs::copy(
        corpus.join("pypdf-minimal-document.pdf"),
        root.join("one.pdf"),
    )
    .unwrap();
    std::fs::write(root.join("pages300.pdf"), gen::text_pages(300, 200)).unwrap();
    std::fs::write(root.join("busy.pdf"), gen::text_pages(300, 2_000)).unwrap();
    println!(
        "toolgate mcp on the session engine ({} cores)",
        toolgate::engine::default_concurrency()
    );
    let named: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    type Figure = (&'static str, fn(&Path));
    let figures: [Figure; 4] = [
        ("latency", latency),
        ("concurrency", concurrency),
        ("ping_p99", ping_p99),
        ("pipelined_tools_list", versus_rmcp),
    ];
    for (name, figure) in figures {
        if named.is_empty() || named.iter().any(|n| n == name) {
            figure(&root);
        }
    }
}
