//! `toolgate mcp` over a pipe.
//!
//! * `mcp_pipelined/*`: N requests written back to back to one server
//!   process, all N answers read (throughput in requests/s; the process
//!   spawn is amortized over N). Baseline in the same group: the same lines
//!   through `Server::serve` in memory (no pipe, no process).
//! * `mcp_extract_latency`: one `extract` of a one-page PDF through a
//!   running server, request written to its answer read, beside the
//!   extractor called directly the way the server calls it
//!   (`pdf::extract_isolated` on the file's bytes) and in process.
//!   The difference is what the MCP layer adds.
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use toolgate::engine::transport::stdio;
use toolgate::mcp::{Config, DefaultPdf, Server};
use toolgate::pdf;

const BIN: &str = env!("CARGO_BIN_EXE_toolgate");
const ONE_PAGE: &str = "pypdf-minimal-document.pdf";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/pdf")
}

fn spawn() -> Child {
    Command::new(BIN)
        .args(["mcp", "--root"])
        .arg(root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

const INIT: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}"#;

fn session(request: &str, n: usize) -> Vec<u8> {
    let mut s =
        format!("{INIT}\n{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}}\n");
    for i in 1..=n {
        s.push_str(&request.replacen("\"id\":1,", &format!("\"id\":{i},"), 1));
        s.push('\n');
    }
    s.into_bytes()
}

fn over_pipe(input: &[u8]) -> usize {
    let mut child = spawn();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&input).unwrap());
    let mut out = Vec::new();
    child.stdout.take().unwrap().read_to_end(&mut out).unwrap();
    writer.join().unwrap();
    child.wait().unwrap();
    out.iter().filter(|&&b| b == b'\n').count()
}

fn pipelined(c: &mut Criterion) {
    let mut g = c.benchmark_group("mcp_pipelined");
    g.sample_size(10);
    let get_metadata = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"get_metadata","arguments":{{"path":"{ONE_PAGE}"}}}}}}"#
    );
    let cases = [
        (
            "ping",
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#.to_owned(),
            2000,
        ),
        (
            "tools_list",
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#.to_owned(),
            2000,
        ),
        ("get_metadata_1page", get_metadata, 50),
    ];
    for (name, request, n) in cases {
        let input = session(&request, n);
        g.throughput(Throughput::Elements(n as u64));
        g.bench_with_input(BenchmarkId::new("pipe", name), &input, |b, input| {
            b.iter(|| assert_eq!(over_pipe(input), n + 1))
        });
        if name != "get_metadata_1page" {
            g.bench_with_input(BenchmarkId::new("in_memory", name), &input, |b, input| {
                b.iter(|| {
                    let config = Config {
                        root: Some(root()),
                        ..Config::default()
                    };
                    let backend = DefaultPdf::for_config(BIN, &config);
                    let engine = config.engine();
                    let server = Server::new(config, backend).unwrap();
                    let input = std::io::Cursor::new(input.clone());
                    let out = Vec::with_capacity(1 << 20);
                    let (_, out) = stdio::serve(server, engine, input, out).unwrap();
                    out.len()
                })
            });
        }
    }
    g.finish();
}

fn extract_latency(c: &mut Criterion) {
    let mut g = c.benchmark_group("mcp_extract_latency");
    g.sample_size(20);
    let mut child = spawn();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    writeln!(stdin, "{INIT}").unwrap();
    stdout.read_line(&mut line).unwrap();
    let request = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"extract","arguments":{{"path":"{ONE_PAGE}"}}}}}}"#
    );
    g.bench_function("through_mcp_server", |b| {
        b.iter(|| {
            writeln!(stdin, "{request}").unwrap();
            stdin.flush().unwrap();
            line.clear();
            stdout.read_line(&mut line).unwrap();
            assert!(line.contains("\"isError\":false"));
        })
    });
    let file = root().join(ONE_PAGE);
    let iso = pdf::Isolation::new(BIN);
    g.bench_function("extract_isolated_direct", |b| {
        b.iter(|| {
            let bytes = std::fs::read(&file).unwrap();
            pdf::extract_isolated(
                pdf::Source::Bytes(&bytes),
                None,
                &pdf::Options::default(),
                &iso,
            )
            .unwrap()
        })
    });
    g.bench_function("extract_in_process", |b| {
        b.iter(|| pdf::extract(pdf::Source::Path(&file), None).unwrap())
    });
    g.finish();
    drop(stdin);
    child.wait().unwrap();
}

criterion_group!(benches, pipelined, extract_latency);
criterion_main!(benches);
